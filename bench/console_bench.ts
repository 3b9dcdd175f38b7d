/**
 * The console at estate scale (issue 28): 1,000 tools and 1,000,000 stored calls, in a folder and
 * in PostgreSQL, served in process by `serveHttp` with the console, signed in as a principal who
 * sees every tool. The calls fall on the tools by a Zipf law (s = 1.1: a few tools carry most
 * calls, as in a bank), over 180 days, from 40 principals, mostly on each tool's newer versions;
 * arguments are realistic payment arguments (`bench/_calls.ts`).
 *
 * Per store, in one run:
 *   tool page, first   GET /console/tools/<hottest tool> once: the console has never counted its
 *                      calls, so this is the one full read of them (each tool's once per process)
 *   tool page          the same page again, 30 times a round (the aggregate is up to date: the
 *                      only read is "any calls since the cursor?")
 *   after 1,000 new    1,000 calls appended to the tool, then the page: reads those 1,000 only
 *   median tool page   the page of the tool with the median number of calls
 *   estate page        GET /console/ (1,000 rows)
 *   scan per request   what the tool page would cost without the aggregate: one read of all the
 *                      tool's calls into the same counts (no HTTP, no HTML) — the baseline
 * Rounds of each (`--rounds`, default 3): median with the smallest and largest round; the ratio
 * scan ÷ tool page is taken within each round.
 *
 *   deno task run bench/console_bench.ts [--tools 1000] [--calls 1000000] [--rounds 3] [--no-pg]
 */
import fs from "node:fs";
import { CallStats, McpServer, type StoredCall, type ToolSpec } from "../mod.ts";
import { EstateDir, type EstateStore } from "../lib/store/mod.ts";
import { PgEstateStore } from "../lib/store/pg/pg_store.ts";
import { bearerTokens, serveHttp } from "../lib/mcp/transports/http_mod.ts";
import { webConsole } from "../lib/cli/console/console.ts";
import { paymentArgs } from "./_calls.ts";
import { cumulative, Rand } from "./_rand.ts";
import { flag, markdownTable, median, ms, quantile } from "./_stats.ts";
import { startPostgres } from "../tests/_postgres.ts";

const ROOT = new URL("../", import.meta.url).pathname;
const TOOLS = flag(Deno.args, "tools", 1000);
const CALLS = flag(Deno.args, "calls", 1_000_000);
const ROUNDS = flag(Deno.args, "rounds", 3);
const WITH_PG = !Deno.args.includes("--no-pg");
const TOKEN = "bench-console-token-0001";
const PRINCIPAL = {
  id: "platform-owner",
  scopes: ["payments:read"],
  tenant: "group",
  clearance: "restricted" as const,
};
const DAY = 86_400_000;
const END = Date.UTC(2026, 11, 1);

function check(ok: boolean, what: string): void {
  if (!ok) throw new Error(`console_bench: ${what}`);
}

/** The corpus's payments.release as a template: each tool a renamed copy, its versions minor bumps. */
const TEMPLATE: ToolSpec = JSON.parse(
  fs.readFileSync(`${ROOT}corpus/tools/payments.lookup/1.1.0.json`, "utf8"),
);
const OWNERS = ["payments-core", "retail-core-banking", "treasury", "group-risk", "customer-data"];
const EFFECTS = ["read", "idempotent-write", "write", "irreversible"] as const;

function specs(r: Rand): ToolSpec[] {
  const out: ToolSpec[] = [];
  for (let i = 0; i < TOOLS; i++) {
    const name = `${r.pick(["payments", "cards", "fx", "risk", "crm", "treasury"])}.t${
      String(i).padStart(4, "0")
    }.${r.pick(["lookup", "list", "get", "search", "release"])}`;
    const versions = r.int(1, 4);
    for (let v = 0; v < versions; v++) {
      const input = TEMPLATE.inputSchema as Record<string, unknown>;
      const props = { ...(input.properties as Record<string, unknown>) };
      for (let k = 0; k < v; k++) props[`option${k}`] = { type: "boolean" };
      out.push({
        ...TEMPLATE,
        name,
        version: `1.${v}.0`,
        title: `Tool ${i}`,
        owner: r.pick(OWNERS),
        sideEffect: r.pick(EFFECTS),
        requiredScopes: ["payments:read"],
        tenants: [],
        inputSchema: { ...input, properties: props },
      });
    }
  }
  return out;
}

/** How many of the `CALLS` calls each tool gets: a Zipf law (s = 1.1) over the tools. */
function callCounts(r: Rand, names: string[]): Map<string, number> {
  const cum = cumulative(names.map((_, i) => 1 / Math.pow(i + 1, 1.1)));
  const counts = new Int32Array(names.length);
  for (let i = 0; i < CALLS; i++) counts[r.weighted(cum)]++;
  return new Map(names.map((n, i) => [n, counts[i]]));
}

const PRINCIPALS = Array.from({ length: 40 }, (_, i) => `agent-${String(i).padStart(2, "0")}`);

/**
 * One tool's stored calls, oldest first, in batches (memory stays flat): the same calls for the
 * same tool every time (seeded by its name), over 180 days, 40 principals, newer versions more.
 */
function* toolCalls(name: string, count: number, versions: string[]): Generator<StoredCall[]> {
  let seed = 0;
  for (const c of name) seed = (seed * 31 + c.charCodeAt(0)) >>> 0;
  const r = new Rand(seed);
  const times = new Float64Array(count);
  for (let i = 0; i < count; i++) times[i] = END - r.float() * 180 * DAY;
  times.sort();
  const rand = () => r.float();
  for (let i = 0; i < count; i += 20_000) {
    const batch: StoredCall[] = [];
    for (let k = i; k < Math.min(count, i + 20_000); k++) {
      batch.push({
        version: versions[
          Math.min(versions.length - 1, Math.floor(Math.sqrt(r.float()) * versions.length))
        ],
        arguments: paymentArgs(rand),
        principal: r.pick(PRINCIPALS),
        at: new Date(times[k]).toISOString(),
      });
    }
    yield batch;
  }
}

async function fill(
  estate: EstateStore,
  all: ToolSpec[],
  counts: Map<string, number>,
  versionsOf: Map<string, string[]>,
) {
  for (const spec of all) {
    const result = await estate.publish(spec);
    check(result.status === "published", `publish ${spec.name}@${spec.version}: ${result.status}`);
  }
  for (const [name, count] of counts) {
    for (const batch of toolCalls(name, count, versionsOf.get(name)!)) {
      await estate.appendCalls(name, batch);
    }
  }
}

async function timed(f: () => Promise<unknown>): Promise<number> {
  const t = performance.now();
  await f();
  return performance.now() - t;
}

interface Figures {
  first: number;
  page: number[];
  pageP95: number[];
  incremental: number[];
  medianTool: number[];
  estate: number[];
  scan: number[];
  ratio: number[];
}

async function measure(
  estate: EstateStore,
  hot: string,
  mid: string,
  hotCalls: number,
): Promise<Figures> {
  const server = new McpServer({ registry: estate.registry, handlerFor: () => () => ({}) });
  const web = webConsole({ estate });
  const http = await serveHttp(server, {
    authenticate: bearerTokens([{ ...PRINCIPAL, token: TOKEN }]),
    pages: web.pages,
  });
  const base = `${new URL(http.url).origin}/console`;
  const headers = { cookie: `estate_console=${TOKEN}` };
  const page = async (path: string) => {
    const res = await fetch(`${base}${path}`, { headers });
    const text = await res.text();
    check(res.status === 200, `${path}: ${res.status}`);
    return text;
  };
  const f: Figures = {
    first: 0,
    page: [],
    pageP95: [],
    incremental: [],
    medianTool: [],
    estate: [],
    scan: [],
    ratio: [],
  };
  try {
    let text = "";
    f.first = await timed(async () => text = await page(`/tools/${hot}`));
    const total = [
      ...text.matchAll(
        /<h3>[^<]*<span class="badge[^>]*>[a-z]+<\/span> <span class="muted">(\d+) calls?/g,
      ),
    ]
      .reduce((a, m) => a + Number(m[1]), 0);
    check(total === hotCalls, `the hot tool's page counts ${total} calls, ${hotCalls} stored`);
    await page(`/tools/${mid}`);
    for (let round = 0; round < ROUNDS; round++) {
      const times: number[] = [];
      for (let i = 0; i < 30; i++) times.push(await timed(() => page(`/tools/${hot}`)));
      f.page.push(median(times));
      f.pageP95.push(quantile(times, 0.95));
      const versions = estate.registry.versions(hot).map((r) => r.spec.version);
      const extra: StoredCall[] = Array.from({ length: 1000 }, (_, i) => ({
        version: versions[i % versions.length],
        arguments: { reference: `PMT-${String(i).padStart(6, "0")}` },
        principal: "agent-extra",
        at: new Date(END + round * DAY + i).toISOString(),
      }));
      await estate.appendCalls(hot, extra);
      f.incremental.push(await timed(() => page(`/tools/${hot}`)));
      const midTimes: number[] = [];
      for (let i = 0; i < 10; i++) midTimes.push(await timed(() => page(`/tools/${mid}`)));
      f.medianTool.push(median(midTimes));
      const estateTimes: number[] = [];
      for (let i = 0; i < 5; i++) estateTimes.push(await timed(() => page(`/`)));
      f.estate.push(median(estateTimes));
      const scan = await timed(async () => {
        const stats = new CallStats();
        for await (const c of estate.readCalls(hot)) stats.add(c);
        for (const v of versions) stats.callers(v);
        stats.days();
      });
      f.scan.push(scan);
      f.ratio.push(scan / f.page[round]);
    }
  } finally {
    web.close();
    await http.close();
    server.close();
  }
  return f;
}

const row = (xs: number[], show: (x: number) => string) =>
  `${show(median(xs))} (${show(Math.min(...xs))}–${show(Math.max(...xs))})`;

if (import.meta.main) {
  const r = new Rand(28);
  const all = specs(r);
  const versionsOf = new Map<string, string[]>();
  for (const s of all) versionsOf.set(s.name, [...(versionsOf.get(s.name) ?? []), s.version]);
  const names = [...versionsOf.keys()];
  const counts = callCounts(r, names);
  const hot = names[0];
  const sorted = [...names].sort((a, b) => counts.get(a)! - counts.get(b)!);
  const mid = sorted[Math.floor(sorted.length / 2)];
  console.log(
    `${names.length} tools, ${all.length} versions, ${CALLS} calls: hottest ${hot} ${
      counts.get(hot)
    }, median ${mid} ${counts.get(mid)}, fewest ${counts.get(sorted[0])}`,
  );
  const results: [string, Figures][] = [];
  fs.mkdirSync(`${ROOT}.scratch`, { recursive: true });
  const dir = fs.mkdtempSync(`${ROOT}.scratch/console-bench-`);
  try {
    fs.writeFileSync(`${dir}/estate.json`, "{}\n");
    fs.writeFileSync(`${dir}/principals.json`, "[]\n");
    const folder = EstateDir.open(dir);
    let t = performance.now();
    await fill(folder, all, counts, versionsOf);
    console.log(`folder filled in ${((performance.now() - t) / 1000).toFixed(1)} s`);
    results.push(["folder", await measure(folder, hot, mid, counts.get(hot)!)]);
    if (WITH_PG) {
      const pg = await startPostgres({ durable: true });
      try {
        const store = await PgEstateStore.open(await pg.createDatabase());
        try {
          t = performance.now();
          await fill(store, all, counts, versionsOf);
          await store.sql`vacuum analyze stored_calls`;
          console.log(`database filled in ${((performance.now() - t) / 1000).toFixed(1)} s`);
          results.push(["PostgreSQL", await measure(store, hot, mid, counts.get(hot)!)]);
        } finally {
          await store.close();
        }
      } finally {
        await pg.stop();
      }
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  console.log(
    markdownTable(
      [
        "store",
        "tool page, first",
        "tool page",
        "p95",
        "after 1,000 new",
        "median tool",
        "estate page",
        "scan per request",
        "scan ÷ page",
      ],
      results.map(([store, f]) => [
        store,
        ms(f.first),
        row(f.page, ms),
        row(f.pageP95, ms),
        row(f.incremental, ms),
        row(f.medianTool, ms),
        row(f.estate, ms),
        row(f.scan, ms),
        row(f.ratio, (x) => `${x.toFixed(0)}×`),
      ]),
    ),
  );
}
