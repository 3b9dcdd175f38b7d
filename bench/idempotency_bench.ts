/**
 * The cost of an idempotency key on `tools/call`, side by side in one run: the same server
 * (`McpServer.handleStateless`, in process, no transport, so the step's own cost is what differs)
 * answering a write tool
 *
 *   no key        the baseline: every call runs;
 *   key           a fresh key per call (claim, run, store the outcome) — memory store;
 *   repeat        a key already answered (read back, replayed; the handler does not run) — memory;
 *   pg key        a fresh key per call on the PostgreSQL store (`idempotency_keys`, migration 006):
 *                 an insert and an update per call, on a real PostgreSQL started for the run;
 *   pg repeat     a key already answered, on PostgreSQL (an insert that loses and a select).
 *
 * Keys and arguments vary call by call (a reference and an amount drawn per call). Each round
 * times every contender for `--calls` calls (`--pg-calls` for the PostgreSQL ones), in an order
 * rotated round by round, after a warm-up; `--rounds` rounds (default 7); the median round is
 * reported with the farthest round's distance, and each contender's ratio to `no key` as the median
 * of the per-round ratios. The PostgreSQL part is skipped, saying why, where PostgreSQL cannot run.
 *
 *   deno task run bench/idempotency_bench.ts [--calls 4000] [--pg-calls 400] [--rounds 7]
 */
import { IDEMPOTENCY_META_KEY, McpServer, STATELESS_META, ToolRegistry } from "../mod.ts";
import { PgEstateStore } from "../lib/store/pg/pg_store.ts";
import { postgresSkipReason, startPostgres } from "../tests/_postgres.ts";
import { spec } from "../tests/_mcp_fixtures.ts";
import { flag, int, markdownTable, median, ratio, rotate, roundRatio, spread } from "./_stats.ts";

const CALLS = flag(Deno.args, "calls", 4000);
const PG_CALLS = flag(Deno.args, "pg-calls", 400);
const ROUNDS = flag(Deno.args, "rounds", 7);
const PRINCIPAL = { id: "ops", scopes: [], tenant: "wholesale", clearance: "restricted" as const };
const RELEASE = spec("payments.release", "1.0.0", { sideEffect: "write" });

let seq = 0;
function request(key: string | undefined, n: number) {
  return {
    jsonrpc: "2.0",
    id: ++seq,
    method: "tools/call",
    params: {
      name: "payments.release",
      arguments: { reference: `PMT-${String(n % 1_000_000).padStart(6, "0")}`, amount: n % 9973 },
      _meta: {
        [STATELESS_META.protocolVersion]: "2026-07-28",
        [STATELESS_META.clientCapabilities]: {},
        ...(key === undefined ? {} : { [IDEMPOTENCY_META_KEY]: key }),
      },
    },
  };
}

function server(registry: ToolRegistry, store?: PgEstateStore): McpServer {
  return new McpServer({
    registry,
    handlerFor: () => (args) => ({ released: args.reference, amount: args.amount }),
    ...(store
      ? {
        idempotency: {
          claim: (c) => store.claimIdempotencyKey(c),
          finish: (r, o) => store.finishIdempotencyKey(r, o),
          release: (r) => store.releaseIdempotencyKey(r),
          read: (r, now) => store.readIdempotencyKey(r, now),
        },
      }
      : {}),
  });
}

interface Contender {
  name: string;
  calls: number;
  /** Answers call `i` of a run. */
  call: (i: number) => Promise<unknown>;
  /** Before the timed calls of a round (not timed). */
  prepare?: () => Promise<void>;
}

/** Keys already answered, for the repeat contenders: 64 keys, each with its own arguments. */
async function answered(s: McpServer, tag: string): Promise<(i: number) => Promise<unknown>> {
  const keys = Array.from({ length: 64 }, (_, k) => ({ key: `${tag}-${k}`, n: 7919 * k }));
  for (const { key, n } of keys) await s.handleStateless(request(key, n), { principal: PRINCIPAL });
  return (i) => {
    const { key, n } = keys[i % keys.length];
    return s.handleStateless(request(key, n), { principal: PRINCIPAL });
  };
}

const registry = new ToolRegistry();
registry.publish(RELEASE);
const memory = server(registry);
let fresh = 0;
const contenders: Contender[] = [
  {
    name: "no key",
    calls: CALLS,
    call: (i) => memory.handleStateless(request(undefined, i), { principal: PRINCIPAL }),
  },
  {
    name: "key",
    calls: CALLS,
    call: (i) => memory.handleStateless(request(`k-${++fresh}`, i), { principal: PRINCIPAL }),
  },
  { name: "repeat", calls: CALLS, call: await answered(memory, "mem") },
];

const skip = postgresSkipReason();
let stopPg: (() => Promise<void>) | undefined;
let pgStore: PgEstateStore | undefined;
if (skip) {
  console.log(`PostgreSQL part skipped: ${skip}`);
} else {
  const pg = await startPostgres();
  const url = await pg.createDatabase();
  pgStore = await PgEstateStore.open(url);
  await pgStore.publish(RELEASE);
  const onPg = server(pgStore.registry, pgStore);
  const plain = server(pgStore.registry);
  contenders.push(
    {
      name: "pg no key",
      calls: PG_CALLS,
      call: (i) => plain.handleStateless(request(undefined, i), { principal: PRINCIPAL }),
    },
    {
      name: "pg key",
      calls: PG_CALLS,
      call: (i) => onPg.handleStateless(request(`pk-${++fresh}`, i), { principal: PRINCIPAL }),
    },
    { name: "pg repeat", calls: PG_CALLS, call: await answered(onPg, "pg") },
  );
  stopPg = async () => {
    onPg.close();
    plain.close();
    await pgStore!.close();
    await pg.stop();
  };
}

async function time(c: Contender): Promise<number> {
  const start = performance.now();
  for (let i = 0; i < c.calls; i++) await c.call(i);
  return c.calls / ((performance.now() - start) / 1000);
}

// Warm-up: one short run of each.
for (const c of contenders) await time({ ...c, calls: Math.ceil(c.calls / 4) });
const rates = new Map<string, number[]>(contenders.map((c) => [c.name, []]));
for (let r = 0; r < ROUNDS; r++) {
  for (const c of rotate(contenders, r)) rates.get(c.name)!.push(await time(c));
}

const baseline = (name: string) => name.startsWith("pg") ? "pg no key" : "no key";
console.log(
  `tools/call with and without an idempotency key, ${ROUNDS} rounds, ${
    int(CALLS)
  } calls a round (PostgreSQL: ${
    int(PG_CALLS)
  }); calls per second, median round ± farthest round; ratio to the baseline within a round`,
);
console.log(markdownTable(
  ["contender", "calls/s", "µs/call", "vs baseline"],
  contenders.map((c) => {
    const xs = rates.get(c.name)!;
    const m = median(xs);
    return [
      c.name,
      `${int(m)} ${spread(xs)}`,
      (1e6 / m).toFixed(1),
      ratio(roundRatio(rates.get(baseline(c.name))!, xs)),
    ];
  }),
));
memory.close();
await stopPg?.();
