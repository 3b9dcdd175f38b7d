/**
 * The gateway's added latency per forwarded call, against a direct connection to the same
 * upstream, everything over Streamable HTTP on 127.0.0.1, each server in its own Deno process:
 *
 *   direct    client (`McpClient`) → upstream (`McpServer` with the corpus's fx.quote 1.0.0 and an
 *             outputSchema for its result);
 *   gateway   client → gateway (`McpServer` whose handler is `Gateway.handlerFor`, the estate
 *             registering the same version) → the same upstream, over the gateway's own client
 *             connection;
 *   relay     the control: client → an `McpServer` whose handler forwards the call over a plain
 *             `McpClient` (no `Gateway`) → the same upstream: what the second hop costs alone.
 *
 * Through the gateway a call is checked twice (arguments against the registered inputSchema by
 * the gateway's server, again by the upstream), crosses a second HTTP hop, and its
 * `structuredContent` is checked against the registered outputSchema. Both client legs speak the
 * same era: the handshake era (`initialize`, a session) and, apart, stateless 2026-07-28. No TLS
 * on either path (the upstream's mutual TLS costs its handshake once per connection, then the
 * record layer; the bench measures what the gateway adds per call).
 *
 * Each round times every path for `--round-ms` (default 2,000 ms), one call in flight and then 16,
 * in an order rotated round by round, after a warm-up; `--rounds` rounds (default 5), the median
 * round reported with the farthest round's distance; a ratio is the median of the ratios within
 * each round, and the added time per call is the median of the differences within each round.
 *
 *   deno task run bench/gateway_bench.ts [--round-ms 2000] [--rounds 5]
 */
import fs from "node:fs";
import {
  type CallToolResult,
  Gateway,
  McpClient,
  McpServer,
  parseToolSpec,
  type Principal,
  type ServerRecord,
  ToolRegistry,
  type ToolSpec,
} from "../mod.ts";
import {
  bearerTokens,
  serveHttp,
  StreamableHttpClientTransport,
} from "../lib/mcp/transports/http_mod.ts";
import { flag, int, markdownTable, median, ratio, rotate, roundRatio, spread } from "./_stats.ts";

const ROOT = new URL("../", import.meta.url).pathname;
const SELF = new URL(import.meta.url).pathname;
const TOKEN = "bench-gateway-token";

/** fx.quote 1.0.0 as the corpus has it, with an outputSchema for the quote it returns. */
const FX: ToolSpec = {
  ...parseToolSpec(
    JSON.parse(fs.readFileSync(`${ROOT}corpus/tools/fx.quote/1.0.0.json`, "utf8")),
    "fx.quote 1.0.0",
  ),
  outputSchema: {
    type: "object",
    properties: {
      sell: { type: "string", enum: ["EUR", "GBP", "USD", "CHF", "JPY"] },
      buy: { type: "string", enum: ["EUR", "GBP", "USD", "CHF", "JPY"] },
      tenor: { type: "string", enum: ["SPOT", "1W", "1M", "3M", "6M", "1Y"] },
      rate: { type: "number", exclusiveMinimum: 0 },
      buyAmount: { type: "number", minimum: 0 },
      validForSeconds: { type: "integer", minimum: 1 },
    },
    required: ["sell", "buy", "tenor", "rate", "buyAmount", "validForSeconds"],
    additionalProperties: false,
  },
};

const RATES: Record<string, number> = {
  EUR: 1,
  GBP: 0.8712,
  USD: 1.0931,
  CHF: 0.9402,
  JPY: 162.38,
};

/** The upstream's handler. */
function quote(args: Record<string, unknown>): Record<string, unknown> {
  const rate = RATES[args.buy as string] / RATES[args.sell as string];
  return {
    sell: args.sell,
    buy: args.buy,
    tenor: args.tenor ?? "SPOT",
    rate: Number(rate.toFixed(6)),
    buyAmount: Number(((args.amount as number) * rate).toFixed(2)),
    validForSeconds: 30,
  };
}

/** Who calls (the bench client of each server, and the gateway as the upstream's client). */
const TRADER: Principal = {
  id: "bench-trader",
  scopes: ["fx:quote"],
  tenant: "wholesale",
  clearance: "restricted",
};

type Era = "handshake" | "stateless";

/** Serves an `McpServer` over HTTP on 127.0.0.1 and prints `URL <url>` on stdout. */
async function serveAndPrint(server: McpServer): Promise<void> {
  const http = await serveHttp(server, {
    authenticate: bearerTokens([{ ...TRADER, token: TOKEN }]),
  });
  console.log(`URL ${http.url}`);
}

/** `--serve=upstream`: fx.quote, run in-process. */
async function serveUpstream(): Promise<void> {
  const registry = new ToolRegistry();
  registry.restore({ spec: FX, history: [] });
  await serveAndPrint(new McpServer({ registry, handlerFor: () => quote }));
}

/** `--serve=gateway --upstream=URL --era=ERA`: fx.quote, forwarded to the upstream. */
async function serveGateway(upstream: string, era: Era): Promise<void> {
  const registry = new ToolRegistry();
  registry.restore({ spec: FX, history: [] });
  const record: ServerRecord = {
    id: "pricing",
    owner: "treasury",
    description: "The pricing engine's MCP server.",
    upstream: { kind: "http", url: upstream, identity: { spiffeId: "spiffe://bank.example/fx" } },
    tools: ["fx.quote"],
  };
  const gateway = new Gateway({
    registry,
    serverFor: (name) => (record.tools.includes(name) ? record : undefined),
    servers: () => [record],
    // Plain HTTP on loopback: the identity check is out of the measurement.
    connector: () =>
      Promise.resolve({
        transport: new StreamableHttpClientTransport(upstream, { token: TOKEN }),
        identity: {
          server: record.id,
          check: "spiffe",
          expected: "spiffe://bank.example/fx",
          observed: "(bench: plain HTTP on 127.0.0.1)",
        },
      }),
    client: { era },
    relistIntervalMs: 0,
  });
  await gateway.start();
  const status = gateway.status()[0];
  if (status.connection !== "connected") throw new Error(JSON.stringify(status));
  await serveAndPrint(new McpServer({ registry, handlerFor: (spec) => gateway.handlerFor(spec) }));
}

/**
 * `--serve=relay --upstream=URL --era=ERA`: the control — fx.quote forwarded by a bare handler
 * over one `McpClient` (no `Gateway`: no output check, no deadline, breaker or drift), so that
 * what the second hop costs and what the gateway adds to it are told apart.
 */
async function serveRelay(upstream: string, era: Era): Promise<void> {
  const registry = new ToolRegistry();
  registry.restore({ spec: FX, history: [] });
  const client = await connect(upstream, era);
  await serveAndPrint(
    new McpServer({
      registry,
      handlerFor: () => (args) =>
        client.request("tools/call", { name: "fx.quote", arguments: args }) as Promise<
          CallToolResult
        >,
    }),
  );
}

/** A server process; resolves with its URL once it printed it. */
async function spawn(args: string[]): Promise<{ url: string; stop: () => Promise<void> }> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", SELF, ...args],
    cwd: ROOT,
    stdin: "null",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let printed = "";
  let url: string | undefined;
  while (url === undefined) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`${args.join(" ")} printed no URL: ${printed}`);
    printed += value;
    url = /URL (\S+)\n/.exec(printed)?.[1];
  }
  const drained = (async () => {
    while (!(await reader.read()).done) { /* nothing more is printed */ }
  })();
  return {
    url,
    stop: async () => {
      child.kill("SIGTERM");
      await child.status;
      await drained;
    },
  };
}

async function connect(url: string, era: Era): Promise<McpClient> {
  const client = new McpClient(new StreamableHttpClientTransport(url, { token: TOKEN }), {
    era,
    requestTimeoutMs: 60_000,
  });
  await client.connect();
  return client;
}

const ARGS = { sell: "EUR", buy: "GBP", amount: 1_000_000 };

/** Microseconds per call: calls for `ms` milliseconds, `inFlight` at a time. */
async function perCall(client: McpClient, ms: number, inFlight: number): Promise<number> {
  let done = 0;
  const t0 = performance.now();
  const deadline = t0 + ms;
  const worker = async () => {
    while (performance.now() < deadline) {
      const r = await client.request("tools/call", { name: "fx.quote", arguments: ARGS }) as {
        isError?: boolean;
        structuredContent?: { buyAmount?: number };
      };
      if (r.isError || r.structuredContent?.buyAmount !== 871_200) {
        throw new Error(JSON.stringify(r));
      }
      done++;
    }
  };
  await Promise.all(Array.from({ length: inFlight }, worker));
  return (performance.now() - t0) * 1000 / done;
}

async function main(roundMs: number, rounds: number): Promise<void> {
  console.log(
    `Deno ${Deno.version.deno}, ${navigator.hardwareConcurrency} cores; rounds of ` +
      `${roundMs.toLocaleString("en")} ms per path and setting, ${rounds} rounds after a ` +
      `warm-up, paths in a rotated order each round; median round (± the farthest round); a ` +
      `ratio or an added time is the median over rounds of the one within each round\n`,
  );
  const upstream = await spawn(["--serve=upstream"]);
  const processes = [upstream];
  const paths: { key: string; era: Era; via: "direct" | "relay" | "gateway"; client: McpClient }[] =
    [];
  try {
    for (const era of ["handshake", "stateless"] as const) {
      const via = [`--upstream=${upstream.url}`, `--era=${era}`];
      const relay = await spawn(["--serve=relay", ...via]);
      const gateway = await spawn(["--serve=gateway", ...via]);
      processes.push(relay, gateway);
      paths.push(
        { key: `direct ${era}`, era, via: "direct", client: await connect(upstream.url, era) },
        { key: `relay ${era}`, era, via: "relay", client: await connect(relay.url, era) },
        { key: `gateway ${era}`, era, via: "gateway", client: await connect(gateway.url, era) },
      );
    }
    const times = new Map<string, number[]>();
    for (const p of paths) { // warm up: JIT, schema compilation, connections
      await perCall(p.client, roundMs / 2, 1);
      await perCall(p.client, roundMs / 2, 16);
    }
    for (let round = 0; round < rounds; round++) {
      for (const p of rotate(paths, round)) {
        for (const inFlight of [1, 16]) {
          const key = `${p.key} ${inFlight}`;
          times.set(key, [...times.get(key) ?? [], await perCall(p.client, roundMs, inFlight)]);
        }
      }
    }
    const label = {
      "direct handshake": "direct: client → upstream",
      "relay handshake": "bare forwarder: client → relay → upstream",
      "gateway handshake": "gateway: client → gateway → upstream",
      "direct stateless": "direct, stateless 2026-07-28",
      "relay stateless": "bare forwarder, stateless 2026-07-28",
      "gateway stateless": "gateway, stateless 2026-07-28",
    } as Record<string, string>;
    const us = (x: number) => `${x.toFixed(0)} µs`;
    const rows = paths.map((p) => {
      const base = `direct ${p.era}`;
      const cell = (inFlight: number) => {
        const xs = times.get(`${p.key} ${inFlight}`)!;
        const ys = times.get(`${base} ${inFlight}`)!;
        const added = median(xs.map((x, r) => x - ys[r]));
        return [
          `${us(median(xs))} ${spread(xs)}`,
          ratio(roundRatio(xs, ys)),
          p.via === "direct" ? "—" : `+${us(added)}`,
        ];
      };
      const one = cell(1);
      const many = times.get(`${p.key} 16`)!;
      return [
        label[p.key],
        ...one,
        `${int(1e6 / median(many))} ${spread(many)}`,
        ratio(roundRatio(times.get(`${base} 16`)!, many)),
      ];
    });
    console.log("fx.quote over Streamable HTTP on 127.0.0.1, valid arguments\n");
    console.log(markdownTable(
      [
        "tools/call",
        "1 in flight: per call",
        "÷ direct",
        "added per call",
        "16 in flight: calls/s",
        "direct ÷ this",
      ],
      rows,
    ));
    for (const era of ["handshake", "stateless"] as const) {
      const xs = times.get(`gateway ${era} 1`)!;
      const ys = times.get(`relay ${era} 1`)!;
      console.log(
        `\n${
          era === "handshake" ? "handshake era" : "stateless 2026-07-28"
        }: the gateway over the ` +
          `bare forwarder, one call in flight: ${ratio(roundRatio(xs, ys))}, ` +
          `${median(xs.map((x, r) => x - ys[r])).toFixed(0)} µs per call`,
      );
    }
  } finally {
    for (const p of paths) await p.client.close();
    for (const p of processes) await p.stop();
  }
}

if (import.meta.main) {
  const serve = Deno.args.find((a) => a.startsWith("--serve="))?.slice("--serve=".length);
  const arg = (name: string) =>
    Deno.args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
  if (serve === "upstream") await serveUpstream();
  else if (serve === "gateway") await serveGateway(arg("upstream")!, arg("era") as Era);
  else if (serve === "relay") await serveRelay(arg("upstream")!, arg("era") as Era);
  else await main(flag(Deno.args, "round-ms", 2_000), Math.max(3, flag(Deno.args, "rounds", 5)));
}
