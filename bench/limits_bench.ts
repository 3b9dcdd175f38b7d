/**
 * What the estate's call limits cost per `tools/call` (issue 25, part 2), side by side in one
 * process: the same calls through one `McpServer` (handshake-era sessions, `handle`, no transport)
 * with no limiter, with a `CallLimiter` counting in memory, counting in a folder store
 * (`EstateDir.takeQuota`, under the folder's lock) and counting in PostgreSQL
 * (`PgEstateStore.takeQuota`, one round trip). Each round runs every contender once, the order
 * rotated round by round; a ratio is the median of the ratios within each round, and every figure
 * is the median round with the spread over rounds.
 *
 * The workload: the example estate's tools, 200 principals (the three of the example and 197 more
 * like the wholesale operator, each its own counters), calls drawn across payments.lookup (three
 * versions' shapes), fx.quote and policy.search with varied arguments, and the limits a bank would
 * set — one per tool per principal, a prefix limit, one for a named principal, and one for the
 * whole estate — each high enough that every call is admitted (the cost of a call that runs; every
 * contender must admit all of them, checked). Handlers answer at once, so the figure is the limits'
 * cost against the server's own path, not against a tool's work.
 *
 * Then "a principal at its limit does not slow another": on PostgreSQL, principal B's sequential
 * calls alone; while principal A calls at a steady pace and is admitted; and while A calls at the
 * same pace a tool whose limit it has spent (every call refused — by the limiter's memory of the
 * full counter, without a round trip). B's median and p95 each way, rounds rotated.
 *
 *   deno task run bench/limits_bench.ts [--calls 2000] [--rounds 5]
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import {
  type CallLimit,
  CallLimiter,
  McpServer,
  memoryQuotaCounter,
  type Principal,
  type QuotaCounter,
  type Session,
} from "../mod.ts";
import { EstateDir } from "../lib/store/mod.ts";
import { PgEstateStore } from "../lib/store/pg/pg_store.ts";
import { flag, markdownTable, median, quantile, ratio, rotate, spread } from "./_stats.ts";
import { Rand } from "./_rand.ts";
import { startPostgres } from "../tests/_postgres.ts";
import { ready } from "../tests/_mcp_fixtures.ts";

const ROOT = new URL("../", import.meta.url).pathname;
const args = Deno.args;
const CALLS = flag(args, "calls", 2000);
const ROUNDS = flag(args, "rounds", 5);

const LIMITS: CallLimit[] = [
  { tool: "payments.lookup", calls: 1_000_000, per: "minute" },
  { tool: "fx.quote", calls: 1_000_000, per: "minute" },
  { tool: "payments.*", calls: 10_000_000, per: "hour" },
  { principal: "wholesale-operator", calls: 1_000_000, per: "minute" },
  { each: "estate", calls: 100_000_000, per: "minute" },
];

const OPERATOR: Principal = {
  id: "wholesale-operator",
  scopes: ["payments:read", "payments:release", "fx:quote", "policy:read"],
  tenant: "wholesale",
  clearance: "restricted",
};
const PRINCIPALS: Principal[] = [
  OPERATOR,
  ...[...Array(199)].map((_, i) => ({ ...OPERATOR, id: `desk-agent-${i}` })),
];

/** The calls: tool and arguments, drawn once and replayed by every contender. */
function makeCalls(
  n: number,
): { principal: number; name: string; args: Record<string, unknown> }[] {
  const r = new Rand(25);
  const currencies = ["EUR", "GBP", "USD", "CHF", "JPY"];
  return [...Array(n)].map(() => {
    const principal = r.int(0, PRINCIPALS.length - 1);
    const which = r.float();
    if (which < 0.5) {
      const args: Record<string, unknown> = {
        reference: `PMT-${String(r.int(0, 999_999)).padStart(6, "0")}`,
      };
      if (r.chance(0.3)) args.includeHistory = r.chance(0.5);
      return { principal, name: "payments.lookup", args };
    }
    if (which < 0.8) {
      const [sell, buy] = r.some(currencies, 2);
      return { principal, name: "fx.quote", args: { sell, buy, amount: r.int(1, 5_000_000) } };
    }
    return {
      principal,
      name: "policy.search",
      args: { query: r.pick(["wire limits", "sanctions screening", "KYC refresh", "FX exposure"]) },
    };
  });
}

interface Contender {
  name: string;
  counter?: QuotaCounter;
}

async function serverFor(
  registryDir: string,
  contender: Contender,
): Promise<{ server: McpServer; sessions: Session[] }> {
  const estate = EstateDir.open(registryDir);
  const server = new McpServer({
    registry: estate.registry,
    handlerFor: () => (a) => ({ ok: true, echo: a }),
    ...(contender.counter ? { limiter: new CallLimiter(LIMITS, contender.counter) } : {}),
  });
  const sessions: Session[] = [];
  for (const principal of PRINCIPALS) {
    sessions.push(await ready(server, principal));
  }
  return { server, sessions };
}

/** Runs the calls; the wall time per call in ms. Every call must be answered with a result. */
async function run(
  s: { server: McpServer; sessions: Session[] },
  calls: ReturnType<typeof makeCalls>,
): Promise<number> {
  const t0 = performance.now();
  let id = 1;
  for (const c of calls) {
    const answer = await s.server.handle({
      jsonrpc: "2.0",
      id: id++,
      method: "tools/call",
      params: { name: c.name, arguments: c.args },
    }, s.sessions[c.principal]) as { result?: { isError?: boolean }; error?: unknown };
    if (!answer.result || answer.result.isError) {
      throw new Error(`a call was not admitted and run: ${JSON.stringify(answer)}`);
    }
  }
  return (performance.now() - t0) / calls.length;
}

async function main(): Promise<void> {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "limits-bench-"));
  fs.cpSync(`${ROOT}corpus`, work, { recursive: true });
  const pg = await startPostgres({ durable: true });
  try {
    const url = await pg.createDatabase();
    const pgStore = await PgEstateStore.open(url);
    const folderStore = EstateDir.open(work);
    const contenders: Contender[] = [
      { name: "no limits" },
      { name: "memory" },
      { name: "folder store" },
      { name: "PostgreSQL" },
    ];
    const counters = (): Record<string, QuotaCounter | undefined> => ({
      "no limits": undefined,
      "memory": undefined, // a fresh one per server, below
      "folder store": { take: (t, now) => folderStore.takeQuota(t, now) },
      "PostgreSQL": { take: (t) => pgStore.takeQuota(t) },
    });
    const calls = makeCalls(CALLS);
    const times = new Map<string, number[]>(contenders.map((c) => [c.name, []]));
    // One warm-up round, not reported.
    for (let round = -1; round < ROUNDS; round++) {
      for (const c of rotate(contenders, Math.max(0, round))) {
        const take = c.name === "memory" ? memoryQuotaCounter() : counters()[c.name];
        const s = await serverFor(work, { name: c.name, ...(take ? { counter: take } : {}) });
        const t = await run(s, calls);
        s.server.close();
        if (round >= 0) times.get(c.name)!.push(t);
      }
    }
    const base = times.get("no limits")!;
    const rows = contenders.map((c) => {
      const ts = times.get(c.name)!;
      const extra = ts.map((t, r) => t - base[r]);
      return [
        c.name,
        `${(median(ts) * 1000).toFixed(1)} µs`,
        spread(ts),
        c.name === "no limits" ? "—" : `${(median(extra) * 1000).toFixed(1)} µs`,
        ratio(median(ts.map((t, r) => t / base[r]))),
      ];
    });
    console.log(
      `Call limits, ${CALLS} tools/call per contender per round, ${ROUNDS} rounds (+1 warm-up), ` +
        `${PRINCIPALS.length} principals, ${LIMITS.length} limits, every call admitted:\n`,
    );
    console.log(
      markdownTable(
        ["contender", "per call (median)", "spread", "added per call", "× no limits"],
        rows,
      ),
    );

    // A principal at its limit does not slow another (PostgreSQL): B's calls alone, while A calls
    // at a steady pace and is admitted, and while A calls at the same pace at its limit.
    const limiterLimits: CallLimit[] = [
      { tool: "fx.quote", principal: PRINCIPALS[1].id, calls: 1, per: "hour" },
      { each: "estate", calls: 100_000_000, per: "minute" },
    ];
    const estate = EstateDir.open(work);
    const server = new McpServer({
      registry: estate.registry,
      handlerFor: () => (a) => ({ ok: true, echo: a }),
      limiter: new CallLimiter(limiterLimits, { take: (t) => pgStore.takeQuota(t) }),
    });
    const open = (principal: Principal) => ready(server, principal);
    // A's calls: fx.quote (its limit, 1 an hour, is spent by the first) or policy.search (no limit
    // of its own: admitted and counted in the estate's counter, one round trip each).
    const a = await open(PRINCIPALS[1]), b = await open(PRINCIPALS[2]);
    const call = (session: Session, name: string, id: number) =>
      server.handle({
        jsonrpc: "2.0",
        id,
        method: "tools/call",
        params: {
          name,
          arguments: name === "fx.quote"
            ? { sell: "EUR", buy: "USD", amount: 100 + (id % 1000) }
            : { query: `wire limits ${id}` },
        },
      }, session) as Promise<{ result?: { isError?: boolean }; error?: { code: number } }>;
    await call(a, "fx.quote", 1); // A's one fx.quote of the hour
    const bTimes: Record<"alone" | "admitted" | "refused", number[]> = {
      alone: [],
      admitted: [],
      refused: [],
    };
    let id = 10;
    const timeB = async (into: number[]) => {
      for (let i = 0; i < 300; i++) {
        const t0 = performance.now();
        const r = await call(b, "policy.search", id++);
        into.push(performance.now() - t0);
        if (!r.result || r.result.isError) throw new Error("B was refused");
      }
    };
    // A: one call every 0.2 ms of wall time, 8 at a time at most (a busy agent), the same pace
    // whether it is admitted or refused.
    const pacedA = (tool: string, expect: "admitted" | "refused") => {
      let stop = false, inFlight = 0, made = 0;
      const done = (async () => {
        const started = performance.now();
        while (!stop) {
          const due = started + made * 0.2;
          if (performance.now() < due || inFlight >= 8) {
            await new Promise((resolve) => setTimeout(resolve, 0));
            continue;
          }
          made++;
          inFlight++;
          call(a, tool, id++).then((r) => {
            inFlight--;
            const refused = r.error?.code === -32029;
            if (refused !== (expect === "refused")) {
              throw new Error(`A was ${refused ? "refused" : "admitted"}`);
            }
          });
        }
        while (inFlight > 0) await new Promise((resolve) => setTimeout(resolve, 1));
      })();
      return {
        stop: async () => {
          stop = true;
          await done;
          return made;
        },
      };
    };
    const made = { admitted: 0, refused: 0 };
    for (let round = 0; round < ROUNDS; round++) {
      for (const mode of rotate(["alone", "admitted", "refused"] as const, round)) {
        if (mode === "alone") {
          await timeB(bTimes.alone);
          continue;
        }
        const hammer = pacedA(mode === "admitted" ? "policy.search" : "fx.quote", mode);
        await timeB(bTimes[mode]);
        made[mode] += await hammer.stop();
      }
    }
    server.close();
    console.log(
      `\nPrincipal B's policy.search calls (PostgreSQL counter), ${bTimes.alone.length} each way; ` +
        `A paced at one call per 0.2 ms (8 in flight at most): ${made.admitted} admitted, ` +
        `${made.refused} refused at its limit:\n`,
    );
    const us = (xs: number[], p?: number) =>
      `${((p === undefined ? median(xs) : quantile(xs, p)) * 1000).toFixed(0)} µs`;
    console.log(markdownTable(["B's calls", "median", "p95", "× alone (median)"], [
      ["alone", us(bTimes.alone), us(bTimes.alone, 0.95), "1.00×"],
      [
        "while A calls and is admitted",
        us(bTimes.admitted),
        us(bTimes.admitted, 0.95),
        ratio(median(bTimes.admitted) / median(bTimes.alone)),
      ],
      [
        "while A calls at its limit (refused)",
        us(bTimes.refused),
        us(bTimes.refused, 0.95),
        ratio(median(bTimes.refused) / median(bTimes.alone)),
      ],
    ]));
    await pgStore.close();
  } finally {
    await pg.stop();
    fs.rmSync(work, { recursive: true, force: true });
  }
}

if (import.meta.main) await main();
