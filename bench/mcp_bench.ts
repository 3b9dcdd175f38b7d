/**
 * MCP servers side by side over stdio, one client (ours: `McpClient` on our stdio transport) for
 * every server, each server in its own Deno process on this machine:
 *
 *   call     tools/call round trips per second, one call in flight and 16 in flight, against
 *            - ours: `McpServer` with the corpus's fx.quote 1.0.0 (its JSON Schema), and
 *            - the official SDK's `McpServer` (@modelcontextprotocol/sdk 1.32.2, `registerTool`
 *              with the equivalent Zod schema), the same handler and the same result on the wire;
 *            and ours again with fx.quote among 10,000 published tools.
 *   list     tools/list latency (every page; 50 a page) for a principal who sees 100 of 10,000
 *            published tools (ours), beside ours with only those 100 published and the SDK's
 *            `McpServer` with the same 100 registered (it has no per-principal filter).
 *
 * Rounds alternate between the servers; the median round is reported.
 *
 * Run: `deno run -A bench/mcp_bench.ts [calls per round]` (default 2,000).
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

/** The server side: `--serve=KIND` serves one server on this process's stdio. */
async function serve(kind: string): Promise<void> {
  if (kind.startsWith("sdk")) {
    const server = new SdkMcpServer({ name: "sdk-bench", version: "1.0.0" });
    if (kind === "sdk-fx") {
      server.registerTool("fx.quote", {
        title: FX.title,
        description: FX.description,
        inputSchema: FX_ZOD,
      }, (args) => {
        const out = quote(args);
        return { content: [{ type: "text", text: JSON.stringify(out) }], structuredContent: out };
      });
    } else {
      for (const t of bulkTools(10_000, true)) {
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
  const registry = new ToolRegistry();
  const tools = kind === "ours-fx" ? [FX] : kind === "ours-fx-10k" // fx.quote and 9,999 others: 10,000 published
    ? [FX, ...bulkTools(9_999, false)]
    : kind === "ours-10k"
    ? bulkTools(10_000, false)
    : bulkTools(10_000, true); // ours-100
  for (const t of tools) registry.publish(t);
  const server = new McpServer({
    registry,
    handlerFor: (spec) => spec.name === "fx.quote" ? quote : () => "ok",
  });
  await serveStdio(server, { principal: TRADER, input: process.stdin, output: process.stdout });
}

/** A connected client to a server process of the given kind. */
async function connect(kind: string): Promise<McpClient> {
  const client = new McpClient(
    new StdioClientTransport({
      command: Deno.execPath(),
      args: ["run", "-A", SELF, `--serve=${kind}`],
      cwd: ROOT,
      stderr: "inherit",
    }),
  );
  await client.connect();
  return client;
}

const ARGS = { sell: "EUR", buy: "GBP", amount: 1_000_000 };

/** Calls per second: `n` calls, `inFlight` at a time. */
async function callRate(client: McpClient, n: number, inFlight: number): Promise<number> {
  let next = 0;
  const worker = async () => {
    while (next++ < n) {
      const r = await client.request("tools/call", { name: "fx.quote", arguments: ARGS }) as {
        isError?: boolean;
      };
      if (r.isError) throw new Error(JSON.stringify(r));
    }
  };
  const t0 = performance.now();
  await Promise.all(Array.from({ length: inFlight }, worker));
  return n / ((performance.now() - t0) / 1000);
}

/** Milliseconds per full listing (every page), over `n` listings. */
async function listMs(client: McpClient, n: number): Promise<{ ms: number; tools: number }> {
  let tools = 0;
  const t0 = performance.now();
  for (let i = 0; i < n; i++) {
    tools = 0;
    let cursor: string | undefined;
    do {
      const page = await client.request("tools/list", cursor === undefined ? {} : { cursor }) as {
        tools: unknown[];
        nextCursor?: string;
      };
      tools += page.tools.length;
      cursor = page.nextCursor;
    } while (cursor !== undefined);
  }
  return { ms: (performance.now() - t0) / n, tools };
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

function table(rows: string[][]): void {
  const widths = rows[0].map((_, c) => Math.max(...rows.map((r) => r[c].length)));
  for (const r of rows) {
    console.log(
      r.map((cell, c) => c === 0 ? cell.padEnd(widths[c]) : cell.padStart(widths[c]))
        .join("  "),
    );
  }
}

async function main(n: number): Promise<void> {
  const ROUNDS = 5;
  console.log(
    `Deno ${Deno.version.deno}, ${navigator.hardwareConcurrency} cores; ` +
      `${n.toLocaleString("en")} calls a round, ${ROUNDS} rounds, median round\n`,
  );
  const callKinds = ["ours-fx", "sdk-fx", "ours-fx-10k"];
  const clients = new Map<string, McpClient>();
  for (const k of callKinds) clients.set(k, await connect(k));
  const rates = new Map<string, number[]>();
  for (const k of callKinds) { // warm up: JIT, schema compilation
    await callRate(clients.get(k)!, 500, 1);
    await callRate(clients.get(k)!, 500, 16);
  }
  for (let round = 0; round < ROUNDS; round++) {
    for (const k of callKinds) {
      for (const inFlight of [1, 16]) {
        const key = `${k} ${inFlight}`;
        rates.set(key, [...rates.get(key) ?? [], await callRate(clients.get(k)!, n, inFlight)]);
      }
    }
  }
  for (const c of clients.values()) await c.close();
  const rate = (k: string, f: number) => median(rates.get(`${k} ${f}`)!);
  const label: Record<string, string> = {
    "ours-fx": "ours (McpServer, fx.quote alone)",
    "sdk-fx": "SDK 1.32.2 McpServer (Zod), fx.quote alone",
    "ours-fx-10k": "ours, fx.quote among 10,000 published tools",
  };
  console.log("tools/call round trips per second over stdio (fx.quote, valid arguments)");
  table([
    ["server", "1 in flight", "÷ SDK", "16 in flight", "÷ SDK"],
    ...callKinds.map((k) => [
      label[k],
      Math.round(rate(k, 1)).toLocaleString("en"),
      `${(rate(k, 1) / rate("sdk-fx", 1)).toFixed(2)}×`,
      Math.round(rate(k, 16)).toLocaleString("en"),
      `${(rate(k, 16) / rate("sdk-fx", 16)).toFixed(2)}×`,
    ]),
  ]);

  const listKinds = ["ours-10k", "ours-100", "sdk-100"];
  const listing = new Map<string, { ms: number[]; tools: number }>();
  const listClients = new Map<string, McpClient>();
  for (const k of listKinds) listClients.set(k, await connect(k));
  for (const k of listKinds) await listMs(listClients.get(k)!, 50); // warm up
  for (let round = 0; round < ROUNDS; round++) {
    for (const k of listKinds) {
      const r = await listMs(listClients.get(k)!, 200);
      listing.set(k, { ms: [...listing.get(k)?.ms ?? [], r.ms], tools: r.tools });
    }
  }
  for (const c of listClients.values()) await c.close();
  const listLabel: Record<string, string> = {
    "ours-10k": "ours, 10,000 published",
    "ours-100": "ours, only those 100 published",
    "sdk-100": "SDK 1.32.2 McpServer, those 100 registered",
  };
  const ms = (k: string) => median(listing.get(k)!.ms);
  console.log("\ntools/list over stdio for a principal who sees 100 tools (every page, 50 a page)");
  table([
    ["server", "tools seen", "pages", "ms per listing", "÷ ours, 100 published"],
    ...listKinds.map((k) => [
      listLabel[k],
      String(listing.get(k)!.tools),
      k.startsWith("sdk") ? "1" : "2",
      ms(k).toFixed(3),
      `${(ms(k) / ms("ours-100")).toFixed(2)}×`,
    ]),
  ]);
}

if (import.meta.main) {
  const flag = Deno.args[0];
  if (flag?.startsWith("--serve=")) await serve(flag.slice("--serve=".length));
  else await main(Number(flag ?? 2_000));
}
