/**
 * One hop to `estate serve`, by transport and era (issue 26): the same `McpClient` calling the
 * example estate's `fx.quote` as `wholesale-operator` over
 *
 *   stdio        `estate serve --stdio --principal wholesale-operator` (a session, handshake era)
 *   http session `estate serve --http` with the demo bearer token, the handshake era (a session)
 *   http stateless the same server, 2026-07-28 stateless requests (no session)
 *
 * each server in its own process, as a user runs it; then, for where the time goes, a bare
 * `fetch` of the same stateless request against the same `estate serve`, and against two canned
 * servers that answer every POST with a fixed result (`_canned_server.ts`: `node:http`, the stack
 * the transport serves on, and `Deno.serve`). Calls carry varied amounts and currency pairs. Rounds of `--round-ms` per path, the order rotated round by round, after a warm-up:
 * calls per second with one call in flight on one connection, then with `--clients` connections
 * (default 16) each keeping one call in flight; median round ± the farthest; a ratio is the median
 * of the ratios within each round. For the HTTP servers, their process's CPU time per call in the
 * parallel runs (from `/proc`, Linux): what a call costs the server, whatever else shares the
 * machine.
 *
 *   deno task run bench/hop_bench.ts [--round-ms 2000] [--rounds 5] [--clients 16]
 */
import { McpClient } from "../mod.ts";
import { StdioClientTransport } from "../lib/mcp/transports/stdio_mod.ts";
import { StreamableHttpClientTransport } from "../lib/mcp/transports/http_mod.ts";
import { DEMO_TOKENS } from "../lib/cli/demo_tokens.ts";
import { flag, int, markdownTable, median, ratio, rotate, roundRatio, spread } from "./_stats.ts";

const ROOT = new URL("../", import.meta.url).pathname;
const ROUND_MS = flag(Deno.args, "round-ms", 2000);
const ROUNDS = flag(Deno.args, "rounds", 5);
const CLIENTS = flag(Deno.args, "clients", 16);
const PRINCIPAL = "wholesale-operator";
const CCY = ["EUR", "GBP", "USD", "CHF", "JPY"];

type Path = "stdio" | "http session" | "http stateless";
const PATHS: Path[] = ["stdio", "http session", "http stateless"];

/** A server process that prints its URL (`estate serve --http`, a canned server); URL and stop. */
async function startHttp(
  args: string[] = [`${ROOT}cli.ts`, "serve", "--http", "127.0.0.1:0", "--estate", `${ROOT}corpus`],
): Promise<{ url: URL; pid: number; stop: () => Promise<void> }> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", ...args],
    cwd: ROOT,
    stdin: "null",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let printed = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`estate serve printed no URL:\n${printed}`);
    printed += value;
    const m = /URL: (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(printed);
    if (m) {
      (async () => {
        while (!(await reader.read()).done) { /* drain */ }
      })();
      return {
        url: new URL(m[1]),
        pid: child.pid,
        stop: async () => {
          child.kill("SIGTERM");
          await child.status;
        },
      };
    }
  }
}

async function connect(path: Path, url: URL): Promise<McpClient> {
  const client = path === "stdio"
    ? new McpClient(
      new StdioClientTransport({
        command: Deno.execPath(),
        args: [
          "run",
          "-A",
          `${ROOT}cli.ts`,
          "serve",
          "--stdio",
          "--principal",
          PRINCIPAL,
          "--estate",
          `${ROOT}corpus`,
        ],
        stderr: "ignore",
      }),
      { era: "handshake" },
    )
    : new McpClient(
      new StreamableHttpClientTransport(url.href, {
        headers: { authorization: `Bearer ${DEMO_TOKENS[PRINCIPAL]}` },
      }),
      { era: path === "http session" ? "handshake" : "stateless" },
    );
  await client.connect();
  return client;
}

let seq = 0;
function quote(client: McpClient): Promise<void> {
  const n = seq++;
  return client.callTool("fx.quote", {
    sell: CCY[n % 5],
    buy: CCY[(n + 1 + (n >> 3) % 4) % 5],
    amount: 1000 + (n % 997) * 13,
  }).then((o) => {
    if (o.kind !== "ok") throw new Error(`fx.quote: ${JSON.stringify(o)}`);
  });
}

/** One fetch of a stateless `tools/call` of fx.quote, its answer read; throws unless 200. */
function rawCall(url: URL): () => Promise<void> {
  return async () => {
    const n = seq++;
    const res = await fetch(url, {
      method: "POST",
      headers: {
        authorization: `Bearer ${DEMO_TOKENS[PRINCIPAL]}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": "tools/call",
        "mcp-name": "fx.quote",
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: n,
        method: "tools/call",
        params: {
          name: "fx.quote",
          arguments: { sell: CCY[n % 5], buy: CCY[(n + 1) % 5], amount: 1000 + (n % 997) * 13 },
          _meta: {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
          },
        },
      }),
    });
    const text = await res.text();
    if (res.status !== 200 || !text.includes('"result"')) throw new Error(text.slice(0, 300));
  };
}

/** Calls answered so far, by every `timed` run. */
let done = 0;

/** Calls per second for `ms`, each caller keeping one call in flight. */
async function timed(callers: (() => Promise<void>)[], ms: number): Promise<number> {
  const first = done;
  const end = performance.now() + ms;
  const t0 = performance.now();
  await Promise.all(callers.map(async (call) => {
    while (performance.now() < end) {
      await call();
      done++;
    }
  }));
  return (done - first) / ((performance.now() - t0) / 1000);
}

interface Contender {
  name: string;
  one: () => Promise<void>;
  many: (() => Promise<void>)[];
  /** The server's process, when its CPU time can be read (`/proc`, Linux). */
  pid?: number;
}

/** A process's CPU time (user + system) in µs, from `/proc/<pid>/stat`; undefined elsewhere. */
function cpuMicros(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const fields = Deno.readTextFileSync(`/proc/${pid}/stat`).split(") ")[1].split(" ");
    const ticks = Number(fields[11]) + Number(fields[12]);
    return ticks * 10_000; // USER_HZ is 100 on Linux
  } catch {
    return undefined;
  }
}

async function main(): Promise<void> {
  const http = await startHttp();
  const canned = {
    node: await startHttp([`${ROOT}bench/_canned_server.ts`, "node"]),
    deno: await startHttp([`${ROOT}bench/_canned_server.ts`, "deno"]),
  };
  const clients: McpClient[] = [];
  try {
    const contenders: Contender[] = [];
    for (const path of PATHS) {
      const one = await connect(path, http.url);
      // stdio: one process per connection, as a host runs one per server.
      const n = path === "stdio" ? Math.min(CLIENTS, 4) : CLIENTS;
      const many = await Promise.all([...Array(n)].map(() => connect(path, http.url)));
      clients.push(one, ...many);
      contenders.push({
        name: path,
        one: () => quote(one),
        many: many.map((c) => () => quote(c)),
        ...(path === "stdio" ? {} : { pid: http.pid }),
      });
    }
    const raw = (name: string, server: { url: URL; pid: number }) => ({
      name,
      one: rawCall(server.url),
      many: [...Array(CLIENTS)].map(() => rawCall(server.url)),
      pid: server.pid,
    });
    contenders.push(raw("fetch → estate serve, stateless", http));
    contenders.push(raw("fetch → canned node:http server", canned.node));
    contenders.push(raw("fetch → canned Deno.serve server", canned.deno));
    const one = new Map<string, number[]>(contenders.map((c) => [c.name, []]));
    const par = new Map<string, number[]>(contenders.map((c) => [c.name, []]));
    const cpu = new Map<string, number[]>(contenders.map((c) => [c.name, []]));
    for (let round = -1; round < ROUNDS; round++) {
      for (const c of rotate(contenders, Math.max(0, round))) {
        const a = await timed([c.one], round < 0 ? 500 : ROUND_MS);
        const before = cpuMicros(c.pid), calls0 = done;
        const b = await timed(c.many, round < 0 ? 500 : ROUND_MS);
        const after = cpuMicros(c.pid);
        if (round >= 0) {
          one.get(c.name)!.push(a);
          par.get(c.name)!.push(b);
          if (before !== undefined && after !== undefined) {
            cpu.get(c.name)!.push((after - before) / (done - calls0));
          }
        }
      }
    }
    const rows = contenders.map(({ name: p }) => [
      p,
      `${int(median(one.get(p)!))} ${spread(one.get(p)!)}`,
      `${(1e6 / median(one.get(p)!)).toFixed(0)} µs`,
      ratio(roundRatio(one.get("stdio")!, one.get(p)!)),
      `${int(median(par.get(p)!))} ${spread(par.get(p)!)}`,
      p === "http stateless" ? ratio(roundRatio(par.get(p)!, par.get("http session")!)) : "—",
      cpu.get(p)!.length ? `${median(cpu.get(p)!).toFixed(0)} µs ${spread(cpu.get(p)!)}` : "—",
    ]);
    console.log(
      `One hop, fx.quote as ${PRINCIPAL}; ${ROUNDS} rounds of ${ROUND_MS} ms after a warm-up. ` +
        `Parallel: ${CLIENTS} callers (stdio: ${
          Math.min(CLIENTS, 4)
        } processes), one call in flight each. The canned servers answer every POST with a ` +
        `fixed result and do no MCP work: the HTTP floor of each server stack.\n`,
    );
    console.log(markdownTable([
      "path",
      "calls/s, 1 in flight",
      "per call",
      "time ÷ stdio's",
      "calls/s, parallel",
      "stateless ÷ session",
      "server CPU per call, parallel",
    ], rows));
  } finally {
    for (const c of clients) await c.close().catch(() => {});
    await http.stop();
    await canned.node.stop();
    await canned.deno.stop();
  }
}

if (import.meta.main) await main();
