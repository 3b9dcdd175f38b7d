/**
 * MCP servers side by side over stdio, one client (ours: `McpClient` on our stdio transport) for
 * every server, each server in its own Deno process on this machine:
 *
 *   call     tools/call round trips per second, one call in flight and 16 in flight, against
 *            - ours: `McpServer` with the corpus's fx.quote 1.0.0 (its JSON Schema), and
 *            - the official SDK's `McpServer` (@modelcontextprotocol/sdk 1.32.2, `registerTool`
 *              with the equivalent Zod schema), the same handler and the same result on the wire;
 *            and ours again with fx.quote among 10,000 published tools.
 *   list     tools/list, every page, like for like: the same tools published on both sides —
 *            100 (ours with one page of 100, and with its default 50 a page; the SDK's
 *            `McpServer` lists one page), then 10,000 (a principal who sees them all: ours with
 *            one page and with 50 a page, the SDK with its one page) — and, apart, ours with
 *            10,000 published for a principal who sees 100 of them (the SDK has no principals).
 *
 * Each round times every server for `--round-ms` (default 2,000 ms; the ratio moves by a few
 * percent between runs at that length), in an order rotated round by round, after a warm-up;
 * `--rounds` rounds (default 5), the median round reported with the farthest round's distance.
 *
 *   deno task run bench/mcp_bench.ts [--round-ms 2000] [--rounds 5]
 */
import fs from "node:fs";
import process from "node:process";
import * as z from "zod";
// The SDK's "./*" export maps types to `*.js.d.ts`, which do not exist: hence @ts-types.
// @ts-types="@modelcontextprotocol/sdk/server/mcp"
import { McpServer as SdkMcpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
// @ts-types="@modelcontextprotocol/sdk/server/stdio"
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import {
  McpClient,
  McpServer,
  parseToolSpec,
  type Principal,
  ToolRegistry,
  type ToolSpec,
} from "../mod.ts";
import { serveStdio, StdioClientTransport } from "../lib/mcp/transports/stdio_mod.ts";
import { flag, int, markdownTable, median, ratio, rotate, roundRatio, spread } from "./_stats.ts";

const ROOT = new URL("../", import.meta.url).pathname;
const SELF = new URL(import.meta.url).pathname;

const FX: ToolSpec = parseToolSpec(
  JSON.parse(fs.readFileSync(`${ROOT}corpus/tools/fx.quote/1.0.0.json`, "utf8")),
  "fx.quote 1.0.0",
);
const CCY = ["EUR", "GBP", "USD", "CHF", "JPY"] as const;
const TENORS = ["SPOT", "1W", "1M", "3M", "6M", "1Y"] as const;
/** fx.quote's input schema as Zod, for the SDK's `registerTool`. */
const FX_ZOD = z.object({
  sell: z.enum(CCY).describe("ISO 4217 code."),
  buy: z.enum(CCY).describe("ISO 4217 code."),
  amount: z.number().positive().max(100_000_000).describe("Amount in the sell currency."),
  tenor: z.enum(TENORS).default("SPOT"),
}).strict();

const RATES: Record<string, number> = {
  EUR: 1,
  GBP: 0.8712,
  USD: 1.0931,
  CHF: 0.9402,
  JPY: 162.38,
};

/** The one handler both servers run. */
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

const TRADER: Principal = {
  id: "bench-trader",
  scopes: ["fx:quote", "desk:7"],
  tenant: "wholesale",
  clearance: "restricted",
};

/** A principal who holds every desk's scope: sees all the bulk tools. */
const EVERY_DESK: Principal = {
  ...TRADER,
  id: "bench-every-desk",
  scopes: Array.from({ length: 100 }, (_, d) => `desk:${d}`),
};

/** `count` tools; the trader sees every hundredth (scope `desk:7`): 100 of 10,000. */
function bulkTools(count: number, onlyVisible: boolean): ToolSpec[] {
  const out: ToolSpec[] = [];
  for (let i = 0; i < count; i++) {
    if (onlyVisible && i % 100 !== 7) continue;
    out.push({
      name: `desk${i % 100}.tool${i}`,
      version: "1.0.0",
      title: `Tool ${i}`,
      description: `Tool number ${i}. Reads desk ${i % 100}'s system of record.`,
      inputSchema: {
        type: "object",
        properties: { id: { type: "string", pattern: "^[A-Z]{3}-[0-9]{4}$" } },
        required: ["id"],
        additionalProperties: false,
      },
      sideEffect: "read",
      requiredScopes: [`desk:${i % 100}`],
      dataClassification: "internal",
      tenants: [],
      owner: "bench",
    });
  }
  return out;
}

/**
 * The servers, by kind. Ours: which tools are published, who the session's principal is, the
 * page size. The SDK's: which tools are registered (it has no principals; it lists one page).
 */
const OURS: Record<string, { tools: () => ToolSpec[]; principal: Principal; pageSize?: number }> = {
  "ours-fx": { tools: () => [FX], principal: TRADER },
  // fx.quote and 9,999 others: 10,000 published.
  "ours-fx-10k": { tools: () => [FX, ...bulkTools(9_999, false)], principal: TRADER },
  "ours-100": { tools: () => bulkTools(10_000, true), principal: TRADER },
  "ours-100-p100": { tools: () => bulkTools(10_000, true), principal: TRADER, pageSize: 100 },
  "ours-10k-all": { tools: () => bulkTools(10_000, false), principal: EVERY_DESK },
  "ours-10k-all-p10k": {
    tools: () => bulkTools(10_000, false),
    principal: EVERY_DESK,
    pageSize: 10_000,
  },
  "ours-10k-sees-100": { tools: () => bulkTools(10_000, false), principal: TRADER },
};
const SDK: Record<string, () => ToolSpec[]> = {
  "sdk-fx": () => [FX],
  "sdk-100": () => bulkTools(10_000, true),
  "sdk-10k": () => bulkTools(10_000, false),
};

/** The server side: `--serve=KIND` serves one server on this process's stdio. */
async function serve(kind: string): Promise<void> {
  if (kind in SDK) {
    const server = new SdkMcpServer({ name: "sdk-bench", version: "1.0.0" });
    for (const t of SDK[kind]()) {
      if (t.name === "fx.quote") {
        server.registerTool("fx.quote", {
          title: FX.title,
          description: FX.description,
          inputSchema: FX_ZOD,
        }, (args) => {
          const out = quote(args);
          return { content: [{ type: "text", text: JSON.stringify(out) }], structuredContent: out };
        });
      } else {
        server.registerTool(t.name, {
          title: t.title,
          description: t.description,
          inputSchema: z.object({ id: z.string().regex(/^[A-Z]{3}-[0-9]{4}$/) }).strict(),
        }, () => ({ content: [{ type: "text", text: "ok" }] }));
      }
    }
    await server.connect(new StdioServerTransport());
    return;
  }
  const config = OURS[kind];
  const registry = new ToolRegistry();
  // Loaded as `estate serve` loads an estate from disk. (`publish` checks each new tool's
  // description against every published tool: 10,000 publishes one by one take minutes.)
  for (const t of config.tools()) registry.restore({ spec: t, history: [] });
  const server = new McpServer({
    registry,
    handlerFor: (spec) => spec.name === "fx.quote" ? quote : () => "ok",
    pageSize: config.pageSize,
  });
  await serveStdio(server, {
    principal: config.principal,
    input: process.stdin,
    output: process.stdout,
  });
}

/**
 * A connected client to a server process of the given kind. Every client speaks the handshake
 * era (`initialize`, a session), the one era the SDK 1.32.2 server speaks: like for like. A kind
 * ending in `@modern` speaks 2026-07-28 instead (stateless requests; ours only).
 */
async function connect(kind: string): Promise<McpClient> {
  const modern = kind.endsWith("@modern");
  const client = new McpClient(
    new StdioClientTransport({
      command: Deno.execPath(),
      args: ["run", "-A", SELF, `--serve=${kind.replace(/@modern$/, "")}`],
      cwd: ROOT,
      stderr: "inherit",
    }),
    { era: modern ? "stateless" : "handshake", requestTimeoutMs: 120_000 },
  );
  await client.connect();
  return client;
}

const ARGS = { sell: "EUR", buy: "GBP", amount: 1_000_000 };

/** Calls per second: calls for `ms` milliseconds, `inFlight` at a time. */
async function callRate(client: McpClient, ms: number, inFlight: number): Promise<number> {
  let done = 0;
  const t0 = performance.now();
  const deadline = t0 + ms;
  const worker = async () => {
    while (performance.now() < deadline) {
      const r = await client.request("tools/call", { name: "fx.quote", arguments: ARGS }) as {
        isError?: boolean;
      };
      if (r.isError) throw new Error(JSON.stringify(r));
      done++;
    }
  };
  await Promise.all(Array.from({ length: inFlight }, worker));
  return done / ((performance.now() - t0) / 1000);
}

/** One full listing (every page): how many tools, pages and bytes. */
async function listOnce(
  client: McpClient,
): Promise<{ tools: number; pages: number; bytes: number }> {
  let tools = 0, pages = 0, bytes = 0;
  let cursor: string | undefined;
  do {
    const page = await client.request("tools/list", cursor === undefined ? {} : { cursor }) as {
      tools: unknown[];
      nextCursor?: string;
    };
    tools += page.tools.length;
    pages++;
    bytes += JSON.stringify(page).length;
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return { tools, pages, bytes };
}

/** Milliseconds per full listing, listing for `ms` milliseconds (at least 3 listings). */
async function listMs(client: McpClient, ms: number): Promise<number> {
  let n = 0;
  const t0 = performance.now();
  while (n < 3 || performance.now() - t0 < ms) {
    let cursor: string | undefined;
    do {
      const page = await client.request("tools/list", cursor === undefined ? {} : { cursor }) as {
        nextCursor?: string;
      };
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    n++;
  }
  return (performance.now() - t0) / n;
}

const fmtSpread = (xs: number[]) => spread(xs);

async function main(roundMs: number, rounds: number): Promise<void> {
  console.log(
    `Deno ${Deno.version.deno}, ${navigator.hardwareConcurrency} cores; rounds of ` +
      `${
        roundMs.toLocaleString("en")
      } ms per server and setting, ${rounds} rounds after a warm-up, ` +
      `servers in a rotated order each round; median round (± the farthest round); a ratio is ` +
      `the median of the ratios within each round\n`,
  );

  // tools/call
  const callKinds = ["ours-fx", "sdk-fx", "ours-fx-10k"];
  const clients = new Map<string, McpClient>();
  for (const k of callKinds) clients.set(k, await connect(k));
  const rates = new Map<string, number[]>();
  for (const k of callKinds) { // warm up: JIT, schema compilation
    await callRate(clients.get(k)!, roundMs / 2, 1);
    await callRate(clients.get(k)!, roundMs / 2, 16);
  }
  for (let round = 0; round < rounds; round++) {
    for (const k of rotate(callKinds, round)) {
      for (const inFlight of [1, 16]) {
        const key = `${k} ${inFlight}`;
        rates.set(key, [
          ...rates.get(key) ?? [],
          await callRate(clients.get(k)!, roundMs, inFlight),
        ]);
      }
    }
  }
  for (const c of clients.values()) await c.close();
  const rate = (k: string, f: number) => median(rates.get(`${k} ${f}`)!);
  const label: Record<string, string> = {
    "ours-fx": "ours (`McpServer`), `fx.quote` alone",
    "sdk-fx": "SDK 1.32.2 `McpServer` (Zod schema), the same tool",
    "ours-fx-10k": "ours, `fx.quote` among 10,000 published tools",
  };
  console.log("tools/call round trips per second over stdio (fx.quote, valid arguments)\n");
  console.log(markdownTable(
    ["tools/call round trips per second", "1 in flight", "÷ SDK", "16 in flight", "÷ SDK"],
    callKinds.map((k) => [
      label[k],
      `${int(rate(k, 1))} ${fmtSpread(rates.get(`${k} 1`)!)}`,
      ratio(roundRatio(rates.get(`${k} 1`)!, rates.get("sdk-fx 1")!)),
      `${int(rate(k, 16))} ${fmtSpread(rates.get(`${k} 16`)!)}`,
      ratio(roundRatio(rates.get(`${k} 16`)!, rates.get("sdk-fx 16")!)),
    ]),
  ));

  // tools/list: like for like (100 tools on both sides), then 10,000 tools.
  const listKinds = [
    "ours-100-p100",
    "ours-100",
    "sdk-100",
    "ours-10k-all-p10k",
    "ours-10k-all",
    "sdk-10k",
    "ours-10k-sees-100",
    "ours-10k-sees-100@modern",
  ];
  const listClients = new Map<string, McpClient>();
  const shape = new Map<string, { tools: number; pages: number; bytes: number }>();
  for (const k of listKinds) {
    const c = await connect(k);
    listClients.set(k, c);
    shape.set(k, await listOnce(c));
  }
  for (const k of listKinds) await listMs(listClients.get(k)!, roundMs / 2); // warm up
  const listing = new Map<string, number[]>();
  for (let round = 0; round < rounds; round++) {
    for (const k of rotate(listKinds, round)) {
      listing.set(k, [...listing.get(k) ?? [], await listMs(listClients.get(k)!, roundMs)]);
    }
  }
  for (const c of listClients.values()) await c.close();
  const msOf = (k: string) => median(listing.get(k)!);
  const listLabel: Record<string, string> = {
    "ours-100-p100": "ours, 100 published, `pageSize: 100`",
    "ours-100": "ours, 100 published, default 50 a page",
    "sdk-100": "SDK 1.32.2 `McpServer`, 100 registered",
    "ours-10k-all-p10k": "ours, 10,000 published, `pageSize: 10000`",
    "ours-10k-all": "ours, 10,000 published, default 50 a page",
    "sdk-10k": "SDK 1.32.2 `McpServer`, 10,000 registered",
    "ours-10k-sees-100": "ours, 10,000 published, a principal who sees 100",
    "ours-10k-sees-100@modern": "the same, stateless 2026-07-28 requests",
  };
  const row = (k: string, base: string) => {
    const sh = shape.get(k)!;
    return [
      listLabel[k],
      int(sh.tools),
      int(sh.pages),
      `${int(sh.bytes / 1024)} KiB`,
      `${msOf(k).toFixed(msOf(k) < 10 ? 3 : 1)} ${fmtSpread(listing.get(k)!)}`,
      // No SDK counterpart for a principal who sees 100 of 10,000.
      k.includes("sees-100") ? "—" : ratio(roundRatio(listing.get(base)!, listing.get(k)!)),
    ];
  };
  const head = (t: string) => [t, "tools listed", "pages", "bytes", "ms per listing", "SDK ÷ this"];
  console.log(
    "\ntools/list over stdio, every page: like for like, 100 tools published on both sides\n",
  );
  console.log(markdownTable(
    head("tools/list, 100 tools"),
    ["ours-100-p100", "ours-100", "sdk-100"].map((k) => row(k, "sdk-100")),
  ));
  console.log(
    "\ntools/list over stdio, every page: 10,000 tools published (a principal who sees 100 of " +
      "them has no SDK counterpart: it has no principals)\n",
  );
  console.log(markdownTable(
    head("tools/list, 10,000 tools"),
    [
      "ours-10k-all-p10k",
      "ours-10k-all",
      "sdk-10k",
      "ours-10k-sees-100",
      "ours-10k-sees-100@modern",
    ].map((k) => row(k, "sdk-10k")),
  ));
}

if (import.meta.main) {
  const serveFlag = Deno.args.find((a) => a.startsWith("--serve="));
  if (serveFlag) await serve(serveFlag.slice("--serve=".length));
  else await main(flag(Deno.args, "round-ms", 2_000), Math.max(5, flag(Deno.args, "rounds", 5)));
}
