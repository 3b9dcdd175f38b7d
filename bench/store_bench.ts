/**
 * The estate in a folder (`EstateDir`) and in PostgreSQL (`PgEstateStore`) side by side, for issue
 * 16: each workload runs on both stores in the same round (the order rotated round by round), a
 * ratio is the median of the ratios within each round, and every figure is the median round with
 * the smallest and largest round. Every workload checks that it did what it says, and fails
 * loudly otherwise.
 *
 *   publish    two writer processes on one store (each a `deno run` of this script holding one
 *              open store), released together: each publishes K patch versions of its own two
 *              tools and of two tools both publish (the same versions, same content: of the two,
 *              exactly one publishes each, the other hears `already-published`); every version
 *              replays its tool's 300 stored calls. Versions per second from the first start to
 *              the last finish; afterwards the versions stored (files / rows, and one lifecycle
 *              event each) must be exactly those published, each published exactly once.
 *   replay     `estate replay payments.lookup --json` as a subprocess (under `/usr/bin/time -v`
 *              for its peak RSS) over N stored calls (default 1,000,000) of the corpus's
 *              payments.lookup: 1.0.0, 1.1.0 and 2.0.0 calls as the corpus has them, about 6% of
 *              them the mistakes agents make (a 2.0.0 call still passing `currency`, a lower-case
 *              reference, a missing reference, `includeHistory: "true"`, an unknown currency, a
 *              misspelt key), each call replayed against the newest version of its major line.
 *              Folder: `--estate DIR` over calls.jsonl; database: `--store URL`, the calls loaded
 *              with COPY (then VACUUM ANALYZE, as autovacuum would) and read through a cursor.
 *              Both must report exactly the calls and rejections generated. Then again with
 *              V8's old space capped at `--heap-cap` MiB (default 32, far below the calls' size):
 *              it completes only if memory stays flat. (V8 sizes the young generation from that
 *              cap too, so the capped run's time says little about the uncapped one's.)
 *   notify     two `estate serve --http` replicas on one store; a client (`McpClient`, handshake
 *              era, with its GET stream) on replica B as wholesale-operator; this process
 *              publishes a new fx.quote patch version (its own `EstateDir` / `PgEstateStore`),
 *              and the time from the publish's return (after the commit, or the folder's rename)
 *              to the client hearing `notifications/tools/list_changed` is taken; then the
 *              client's tools/list must show the new version. `estate serve` gathers the
 *              store's change events for 150 ms from a folder (fs.watch reports a burst of events
 *              per write) and 10 ms from a database (LISTEN/NOTIFY: one event per commit): the
 *              floors of the two.
 *   call       one `estate serve` per store, with and without `--record-calls` (the folder
 *              appends each accepted call to calls.jsonl with an fsync before the answer, and its
 *              own fs.watch then refreshes the estate; the database starts an insert that the
 *              answer does not wait for): sequential `tools/call` of fx.quote over HTTP
 *              (handshake era), each result checked; afterwards the store must hold exactly the
 *              calls made (with `--record-calls`) or none more (without).
 *
 * PostgreSQL runs here (initdb in a temporary folder, 127.0.0.1) with fsync and synchronous_commit
 * on, as the folder store fsyncs; its server's CPU and memory are not in the figures of the
 * processes measured, but it shares the machine's cores with them.
 *
 *   deno task run bench/store_bench.ts [--calls 1000000] [--rounds 3] [--versions 100]
 *     [--publishes 50] [--tool-calls 2000] [--heap-cap 32] [--only publish,replay,notify,call]
 *
 * A full run (1,000,000 calls, 5 rounds) takes about 7 minutes on 2 cores; `--calls 20000
 * --rounds 1 --versions 5 --publishes 5 --tool-calls 200` checks every workload in about 15 s.
 */
import fs from "node:fs";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import postgres from "postgres";
import { McpClient, type StoredCall, type ToolSpec } from "../mod.ts";
import { EstateDir, type EstateStore } from "../lib/store/mod.ts";
import { PgEstateStore } from "../lib/store/pg/pg_store.ts";
import { parseVersionFile } from "../lib/store/_tool_dir.ts";
import { StreamableHttpClientTransport } from "../lib/mcp/transports/http_mod.ts";
import { DEMO_TOKENS } from "../lib/cli/demo_tokens.ts";
import { rng } from "./_calls.ts";
import { flag, int, markdownTable, median, quantile, rotate } from "./_stats.ts";
import { startPostgres, type TestPostgres as BenchPostgres } from "../tests/_postgres.ts";

const ROOT = new URL("../", import.meta.url).pathname;
const SELF = new URL(import.meta.url).pathname;
/** The CLI as `deno task estate` runs it. */
const CLI = ["run", "--config", "deno.runtime.jsonc", "--allow-all", "cli.ts"];
const KINDS = ["folder", "postgres"] as const;
type Kind = typeof KINDS[number];

/** Where a store is: a folder, or a database URL. */
interface Place {
  kind: Kind;
  where: string;
}

async function openAt(place: Place): Promise<EstateStore> {
  return place.kind === "folder"
    ? EstateDir.open(place.where)
    : await PgEstateStore.open(place.where);
}

function storeFlags(place: Place): string[] {
  return place.kind === "folder" ? ["--estate", place.where] : ["--store", place.where];
}

function check(ok: unknown, message: string): asserts ok {
  if (!ok) throw new Error(`store_bench: ${message}`);
}

/** Reads a stream a line at a time; undefined at its end. */
function lineReader(stream: ReadableStream<Uint8Array>): () => Promise<string | undefined> {
  const reader = stream.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  return async () => {
    while (true) {
      const i = buffer.indexOf("\n");
      if (i >= 0) {
        const line = buffer.slice(0, i);
        buffer = buffer.slice(i + 1);
        return line;
      }
      const { value, done } = await reader.read();
      if (done) {
        const rest = buffer;
        buffer = "";
        return rest || undefined;
      }
      buffer += value;
    }
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The wall clock in milliseconds, comparable across processes on this machine. */
const wall = () => performance.timeOrigin + performance.now();

// ---------------------------------------------------------------------------------------------
// The example estate in each store
// ---------------------------------------------------------------------------------------------

function versionFiles(dir: string): string[] {
  const key = (f: string) => f.replace(/\.json$/, "").split(".").map(Number);
  return fs.readdirSync(dir).filter((f) => /^\d+\.\d+\.\d+\.json$/.test(f)).sort((a, b) => {
    const [x, y] = [key(a), key(b)];
    return x[0] - y[0] || x[1] - y[1] || x[2] - y[2];
  });
}

/** A copy of corpus/ in `dir`, optionally without one tool's calls.jsonl. */
function corpusFolder(dir: string, withoutCallsOf?: string): string {
  fs.cpSync(`${ROOT}corpus`, dir, { recursive: true });
  if (withoutCallsOf) fs.rmSync(`${dir}/tools/${withoutCallsOf}/calls.jsonl`);
  return dir;
}

/** COPY text format: backslash, tab and line breaks escaped. */
const copyText = (s: string) =>
  s.replace(/\\/g, "\\\\").replace(/\t/g, "\\t").replace(/\n/g, "\\n").replace(/\r/g, "\\r");

/** Loads stored-call lines of one tool with COPY; how many. */
async function copyCalls(url: string, name: string, lines: Iterable<string>): Promise<number> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  let n = 0;
  try {
    const writable = await sql`copy stored_calls (name, call) from stdin`.writable();
    const chunks = function* () {
      let batch: string[] = [];
      for (const line of lines) {
        batch.push(`${copyText(name)}\t${copyText(line)}\n`);
        n++;
        if (batch.length === 5000) {
          yield batch.join("");
          batch = [];
        }
      }
      if (batch.length) yield batch.join("");
    };
    await pipeline(Readable.from(chunks()), writable);
  } finally {
    await sql.end();
  }
  return n;
}

/**
 * The example estate (corpus/) in a fresh database: principals through `setPrincipals`, versions
 * and lifecycle events as rows (the spec files' bytes), stored calls with COPY; then checked to
 * load as the folder does.
 */
async function corpusDatabase(pg: BenchPostgres, withoutCallsOf?: string): Promise<string> {
  const url = await pg.createDatabase();
  const corpus = EstateDir.open(`${ROOT}corpus`);
  const store = await PgEstateStore.open(url);
  try {
    await store.setPrincipals(corpus.principals());
    for (const name of fs.readdirSync(`${ROOT}corpus/tools`).sort()) {
      const dir = `${ROOT}corpus/tools/${name}`;
      const lifecycle = JSON.parse(fs.readFileSync(`${dir}/lifecycle.json`, "utf8")) as Record<
        string,
        unknown[]
      >;
      await store.sql.begin(async (tx) => {
        for (const file of versionFiles(dir)) {
          const version = file.replace(/\.json$/, "");
          const text = fs.readFileSync(`${dir}/${file}`, "utf8");
          await tx`insert into tool_versions (name, version, spec) values (${name}, ${version}, ${text})`;
          for (const entry of lifecycle[version] ?? []) {
            await tx`insert into lifecycle_events (name, version, entry) values (${name}, ${version}, ${
              JSON.stringify(entry)
            })`;
          }
        }
      });
      if (name !== withoutCallsOf && fs.existsSync(`${dir}/calls.jsonl`)) {
        const lines = fs.readFileSync(`${dir}/calls.jsonl`, "utf8").split("\n").filter(Boolean);
        check(
          await copyCalls(url, name, lines) === lines.length,
          `loading ${name}'s calls`,
        );
      }
    }
  } finally {
    await store.close();
  }
  const loaded = await PgEstateStore.open(url);
  try {
    const shape = (s: EstateStore) =>
      JSON.stringify(
        s.registry.names().map((n) =>
          s.registry.versions(n).map((r) => [n, r.spec.version, r.state])
        ),
      );
    check(shape(loaded) === shape(corpus), "the corpus loaded into PostgreSQL differs");
  } finally {
    await loaded.close();
  }
  return url;
}

// ---------------------------------------------------------------------------------------------
// Workload 1: publish with two writers
// ---------------------------------------------------------------------------------------------

const LOOKUP = parseVersionFile(
  fs.readFileSync(`${ROOT}corpus/tools/payments.lookup/1.0.0.json`, "utf8"),
  "payments.lookup 1.0.0",
);
const OWN = { a: ["bench.own-a-0", "bench.own-a-1"], b: ["bench.own-b-0", "bench.own-b-1"] };
const SHARED = ["bench.shared-0", "bench.shared-1"];

/** Version 1.0.`patch` of a bench tool shaped as payments.lookup 1.0.0 (a title change each). */
function benchSpec(name: string, patch: number): ToolSpec {
  return {
    ...LOOKUP,
    name,
    version: `1.0.${patch}`,
    title: patch ? `${LOOKUP.title} (revision ${patch})` : LOOKUP.title,
  };
}

/** `n` valid 1.0.0 calls of payments.lookup. */
function lookupCalls(n: number, seed: number): StoredCall[] {
  const r = rng(seed);
  const start = Date.parse("2026-01-15T09:00:00Z");
  return Array.from({ length: n }, (_, i) => ({
    version: "1.0.0",
    arguments: {
      reference: "PMT-" + String(Math.floor(r() * 1e6)).padStart(6, "0"),
      ...(r() < 0.4 ? { currency: ["EUR", "GBP", "USD", "CHF", "JPY"][Math.floor(r() * 5)] } : {}),
    },
    principal: "wholesale-operator",
    at: new Date(start + i * 60_000).toISOString(),
  }));
}

/** `--worker=publish`: opens the store, says `ready`, publishes on `go`, prints the outcome. */
async function publishWorker(place: Place, names: string[], versions: number): Promise<void> {
  const store = await openAt(place);
  const next = lineReader(Deno.stdin.readable);
  console.log("ready");
  check((await next()) === "go", "the worker was not released");
  const outcomes: [string, number, string][] = [];
  const started = wall();
  for (let patch = 1; patch <= versions; patch++) {
    for (const name of names) {
      try {
        outcomes.push([name, patch, (await store.publish(benchSpec(name, patch))).status]);
      } catch (e) {
        outcomes.push([name, patch, `error: ${(e as Error).message}`]);
      }
    }
  }
  const ended = wall();
  await store.close();
  console.log(JSON.stringify({ started, ended, outcomes }));
}

interface PublishRound {
  perSecond: number;
  published: number;
}

/** The versions a store holds of the bench tools, with how many lifecycle events each. */
async function storedVersions(place: Place): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  const names = [...OWN.a, ...OWN.b, ...SHARED];
  if (place.kind === "folder") {
    for (const name of names) {
      const dir = `${place.where}/tools/${name}`;
      const lifecycle = JSON.parse(fs.readFileSync(`${dir}/lifecycle.json`, "utf8")) as Record<
        string,
        unknown[]
      >;
      for (const file of versionFiles(dir)) {
        const version = file.replace(/\.json$/, "");
        out.set(`${name}@${version}`, lifecycle[version]?.length ?? 0);
      }
    }
    return out;
  }
  const sql = postgres(place.where, { max: 1, onnotice: () => {} });
  try {
    const rows = await sql`select v.name, v.version,
      (select count(*) from lifecycle_events e where e.name = v.name and e.version = v.version)::int
        as events
      from tool_versions v`;
    for (const r of rows) out.set(`${r.name}@${r.version}`, r.events as number);
  } finally {
    await sql.end();
  }
  return out;
}

async function publishRound(place: Place, versions: number): Promise<PublishRound> {
  // The tools at 1.0.0, each with 300 stored calls that every publish replays.
  const seed = await openAt(place);
  try {
    for (const [i, name] of [...OWN.a, ...OWN.b, ...SHARED].entries()) {
      await seed.publish(benchSpec(name, 0));
      await seed.appendCalls(name, lookupCalls(300, 100 + i));
    }
  } finally {
    await seed.close();
  }
  const workers = [[...OWN.a, ...SHARED], [...OWN.b, ...SHARED]].map((names) => {
    const child = new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "-A",
        SELF,
        "--worker=publish",
        `--kind=${place.kind}`,
        `--where=${place.where}`,
        `--names=${names.join(",")}`,
        `--versions=${versions}`,
      ],
      cwd: ROOT,
      stdin: "piped",
      stdout: "piped",
      stderr: "inherit",
    }).spawn();
    return { child, next: lineReader(child.stdout), stdin: child.stdin.getWriter() };
  });
  for (const w of workers) check((await w.next()) === "ready", "a publish worker did not start");
  await Promise.all(workers.map((w) => w.stdin.write(new TextEncoder().encode("go\n"))));
  const results = await Promise.all(workers.map(async (w) => {
    const line = await w.next();
    await w.stdin.close();
    check((await w.child.status).success, "a publish worker failed");
    return JSON.parse(line ?? "null") as {
      started: number;
      ended: number;
      outcomes: [string, number, string][];
    };
  }));
  // Each version published exactly once, the other writer told it already was; no error.
  const published = new Map<string, number>();
  for (const { outcomes } of results) {
    check(outcomes.length === 4 * versions, `a worker made ${outcomes.length} publishes`);
    for (const [name, patch, status] of outcomes) {
      check(
        status === "published" || status === "already-published",
        `${name}@1.0.${patch}: ${status}`,
      );
      const key = `${name}@1.0.${patch}`;
      published.set(key, (published.get(key) ?? 0) + (status === "published" ? 1 : 0));
    }
  }
  const expected = [...OWN.a, ...OWN.b, ...SHARED].flatMap((name) =>
    Array.from({ length: versions }, (_, i) => `${name}@1.0.${i + 1}`)
  );
  check(published.size === expected.length, `${published.size} versions attempted`);
  for (const key of expected) {
    check(published.get(key) === 1, `${key} was published ${published.get(key) ?? 0} times`);
  }
  const stored = await storedVersions(place);
  const all = [...expected, ...[...OWN.a, ...OWN.b, ...SHARED].map((n) => `${n}@1.0.0`)];
  check(stored.size === all.length, `the ${place.kind} store holds ${stored.size} versions`);
  for (const key of all) {
    check(stored.get(key) === 1, `${key}: ${stored.get(key)} lifecycle events stored`);
  }
  const seconds = (Math.max(...results.map((r) => r.ended)) -
    Math.min(...results.map((r) => r.started))) / 1000;
  return { perSecond: expected.length / seconds, published: expected.length };
}

// ---------------------------------------------------------------------------------------------
// Workload 2: replay of stored calls
// ---------------------------------------------------------------------------------------------

const REPLAYED = "payments.lookup";

interface GeneratedCalls {
  lines: Generator<string>;
  /** Filled in as the lines are taken: how many each major line's replay must reject. */
  rejected: { 1: number; 2: number };
}

/**
 * `n` stored calls of payments.lookup as the corpus has them (1.0.0 first, then 1.1.0, then mostly
 * 2.0.0; a currency on some 1.x calls, includeHistory on some 1.1.0 and 2.0.0 calls), about 6% of
 * them a mistake each version's schema rejects.
 */
function replayCalls(n: number): GeneratedCalls {
  const rejected = { 1: 0, 2: 0 };
  const lines = function* () {
    const r = rng(16);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)];
    const currencies = ["EUR", "GBP", "USD", "CHF", "JPY"];
    const principals = [
      "wholesale-operator",
      "wholesale-operator",
      "payments-assistant",
      "ops-bot",
    ];
    const start = Date.parse("2026-01-15T09:00:00Z");
    const span = Date.parse("2026-11-30T18:00:00Z") - start;
    for (let i = 0; i < n; i++) {
      const p = i / n;
      const version = p < 0.3
        ? "1.0.0"
        : p < 0.6
        ? (r() < 0.3 ? "1.0.0" : "1.1.0")
        : (r() < 0.2 ? "1.1.0" : "2.0.0");
      const major = version === "2.0.0" ? 2 : 1;
      const args: Record<string, unknown> = {
        reference: "PMT-" + String(Math.floor(r() * 1e6)).padStart(6, "0"),
      };
      if (major === 1 && r() < 0.45) args.currency = pick(currencies);
      if (version !== "1.0.0" && r() < 0.35) args.includeHistory = r() < 0.5;
      if (r() < 0.06) {
        // One mistake, which the newest version of the call's major line rejects.
        const mistake = Math.floor(r() * 6);
        if (mistake === 0) {
          if (major === 2) args.currency = pick(currencies); // 2.0.0 dropped currency
          else args.currency = "AUD";
        } else if (mistake === 1) {
          args.reference = (args.reference as string).toLowerCase();
        } else if (mistake === 2) {
          delete args.reference;
          args.paymentRef = "PMT-" + String(Math.floor(r() * 1e6)).padStart(6, "0");
        } else if (mistake === 3) {
          args.includeHistory = "true";
        } else if (mistake === 4) {
          args.reference = Number((args.reference as string).slice(4));
        } else {
          args.refrence = args.reference;
          delete args.reference;
        }
        rejected[major]++;
      }
      yield JSON.stringify({
        version,
        arguments: args,
        principal: pick(principals),
        at: new Date(start + Math.floor(span * p)).toISOString(),
      });
    }
  };
  return { lines: lines(), rejected };
}

interface ReplayRun {
  seconds: number;
  peakMiB: number;
}

/** The V8 old-space cap (MiB) of the second replay run of each round. */
const CAP = flag(Deno.args, "heap-cap", 32);

const TIME = fs.existsSync("/usr/bin/time") ? "/usr/bin/time" : undefined;

/** Runs `estate replay` as a subprocess; its wall time, peak RSS and verdict (checked). */
async function replayRun(
  place: Place,
  n: number,
  rejected: { 1: number; 2: number },
  v8Flags: string[] = [],
): Promise<ReplayRun> {
  const args = [
    CLI[0],
    ...v8Flags,
    ...CLI.slice(1),
    "replay",
    REPLAYED,
    "--json",
    ...storeFlags(place),
  ];
  const t0 = performance.now();
  let stdout: string, stderr: string, code: number, peakKiB: number;
  if (TIME) {
    const out = await new Deno.Command(TIME, { args: ["-v", Deno.execPath(), ...args], cwd: ROOT })
      .output();
    stdout = new TextDecoder().decode(out.stdout);
    stderr = new TextDecoder().decode(out.stderr);
    code = out.code;
    peakKiB = Number(/Maximum resident set size \(kbytes\): (\d+)/.exec(stderr)?.[1]);
  } else {
    // No /usr/bin/time: the child's VmHWM from /proc, read until it exits.
    const child = new Deno.Command(Deno.execPath(), {
      args,
      cwd: ROOT,
      stdout: "piped",
      stderr: "piped",
    })
      .spawn();
    peakKiB = 0;
    let done = false;
    const poll = (async () => {
      while (!done) {
        try {
          const m = /VmHWM:\s+(\d+) kB/.exec(Deno.readTextFileSync(`/proc/${child.pid}/status`));
          if (m) peakKiB = Math.max(peakKiB, Number(m[1]));
        } catch { /* exited */ }
        await sleep(20);
      }
    })();
    const out = await child.output();
    done = true;
    await poll;
    stdout = new TextDecoder().decode(out.stdout);
    stderr = new TextDecoder().decode(out.stderr);
    code = out.code;
  }
  const seconds = (performance.now() - t0) / 1000;
  const total = rejected[1] + rejected[2];
  check(code === (total ? 1 : 0), `estate replay (${place.kind}) exited ${code}: ${stderr}`);
  const verdict = JSON.parse(stdout) as {
    stored: number;
    replayed: number;
    rejected: number;
    lines: { major: number; rejected: number }[];
  };
  const byMajor = Object.fromEntries(verdict.lines.map((l) => [l.major, l.rejected]));
  check(
    verdict.stored === n && verdict.replayed === n && verdict.rejected === total &&
      byMajor[1] === rejected[1] && byMajor[2] === rejected[2],
    `estate replay (${place.kind}) reported ${
      JSON.stringify({ ...verdict, lines: byMajor })
    }; generated ${n} calls, rejected ${JSON.stringify(rejected)}`,
  );
  check(peakKiB > 0, "no peak RSS measured");
  return { seconds, peakMiB: peakKiB / 1024 };
}

// ---------------------------------------------------------------------------------------------
// estate serve, and clients
// ---------------------------------------------------------------------------------------------

interface Served {
  url: string;
  stop(): Promise<void>;
}

/** `estate serve --http 127.0.0.1:0` over a store; resolves with its URL. */
async function startServe(place: Place, extra: string[] = []): Promise<Served> {
  const child = new Deno.Command(Deno.execPath(), {
    args: [...CLI, "serve", ...storeFlags(place), "--http", "127.0.0.1:0", ...extra],
    cwd: ROOT,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  let log = "";
  const logged = child.stderr.pipeThrough(new TextDecoderStream()).pipeTo(
    new WritableStream({ write: (text) => void (log = (log + text).slice(-4000)) }),
  );
  const next = lineReader(child.stdout);
  let url: string | undefined;
  while (url === undefined) {
    const line = await next();
    if (line === undefined) break;
    url = /URL: (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(line)?.[1];
  }
  const drained = (async () => {
    while ((await next()) !== undefined) { /* the rest of the banner */ }
  })();
  const stop = async () => {
    child.kill("SIGTERM");
    await child.status;
    await drained;
    await logged;
  };
  if (url === undefined) {
    await stop();
    throw new Error(`store_bench: estate serve (${place.kind}) printed no URL:\n${log}`);
  }
  return { url, stop };
}

async function connectAs(url: string, principal: string): Promise<McpClient> {
  const client = new McpClient(
    new StreamableHttpClientTransport(url, { token: DEMO_TOKENS[principal] }),
    { era: "handshake", requestTimeoutMs: 60_000 },
  );
  await client.connect();
  return client;
}

// ---------------------------------------------------------------------------------------------
// Workload 3: list_changed between replicas
// ---------------------------------------------------------------------------------------------

/** How long `estate serve` waits after a store's change event before it refreshes. */
/** How long `estate serve` gathers change events before it refreshes: a folder, a database. */
const DEBOUNCE_MS = { folder: 150, postgres: 10 };

const FX = parseVersionFile(
  fs.readFileSync(`${ROOT}corpus/tools/fx.quote/1.0.0.json`, "utf8"),
  "fx.quote 1.0.0",
);

/** A writer and a client on replica B of two replicas on one store. */
interface Replicas {
  place: Place;
  writer: EstateStore;
  client: McpClient;
  heard: number[];
  patch: number;
  servers: Served[];
}

async function startReplicas(place: Place): Promise<Replicas> {
  const servers = [await startServe(place), await startServe(place)];
  const client = await connectAs(servers[1].url, "wholesale-operator");
  const heard: number[] = [];
  client.onToolsChanged(() => heard.push(performance.now()));
  const replicas: Replicas = {
    place,
    writer: await openAt(place),
    client,
    heard,
    patch: 0,
    servers,
  };
  await sleep(500); // the GET stream opens after the handshake
  await propagate(replicas, 2); // warm-up, and proof that the stream is open
  return replicas;
}

/** Publishes `count` fx.quote patches, one at a time; milliseconds to each list_changed. */
async function propagate(r: Replicas, count: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < count; i++) {
    const patch = ++r.patch;
    const before = r.heard.length;
    const result = await r.writer.publish({
      ...FX,
      version: `1.0.${patch}`,
      title: `${FX.title} (revision ${patch})`,
    });
    const published = performance.now();
    check(result.status === "published", `fx.quote@1.0.${patch}: ${result.status}`);
    const deadline = published + 10_000;
    while (r.heard.length === before && performance.now() < deadline) await sleep(1);
    check(
      r.heard.length > before,
      `no list_changed on replica B (${r.place.kind}) within 10 s of publishing fx.quote@1.0.${patch}`,
    );
    out.push(r.heard[before] - published);
    const listed = (await r.client.listTools()).find((t) => t.name === "fx.quote");
    check(
      listed?.title?.endsWith(`(revision ${patch})`),
      `replica B (${r.place.kind}) lists fx.quote as ${
        JSON.stringify(listed?.title)
      } after list_changed for 1.0.${patch}`,
    );
    await sleep(300); // past the debounce: each publish is heard on its own
  }
  return out;
}

async function stopReplicas(r: Replicas): Promise<void> {
  await r.client.close();
  await r.writer.close();
  for (const s of r.servers) await s.stop();
}

// ---------------------------------------------------------------------------------------------
// Workload 4: tools/call
// ---------------------------------------------------------------------------------------------

const QUOTE = { sell: "EUR", buy: "GBP", amount: 1_000_000 };

/** `n` sequential fx.quote calls; each one's milliseconds. */
async function callLatencies(client: McpClient, n: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    const result = await client.request("tools/call", { name: "fx.quote", arguments: QUOTE }) as {
      isError?: boolean;
      structuredContent?: { buyAmount?: number };
    };
    out.push(performance.now() - t0);
    check(
      !result.isError && result.structuredContent?.buyAmount === 871_200,
      `fx.quote answered ${JSON.stringify(result)}`,
    );
  }
  return out;
}

/** How many fx.quote calls a store holds. */
async function fxCalls(place: Place): Promise<number> {
  if (place.kind === "folder") {
    const text = fs.readFileSync(`${place.where}/tools/fx.quote/calls.jsonl`, "utf8");
    return text.split("\n").filter(Boolean).length;
  }
  const sql = postgres(place.where, { max: 1, onnotice: () => {} });
  try {
    const [row] = await sql`select count(*)::int as n from stored_calls where name = 'fx.quote'`;
    return row.n as number;
  } finally {
    await sql.end();
  }
}

// ---------------------------------------------------------------------------------------------
// The run
// ---------------------------------------------------------------------------------------------

/** Per-round figures of one metric, for both stores. */
type Figures = Record<Kind, number[]>;

function figures(): Figures {
  return { folder: [], postgres: [] };
}

/** "median (min–max)". */
function range(xs: readonly number[], fmt: (x: number) => string): string {
  return `${fmt(median(xs))} (${fmt(Math.min(...xs))}–${fmt(Math.max(...xs))})`;
}

interface Options {
  calls: number;
  rounds: number;
  versions: number;
  publishes: number;
  toolCalls: number;
  only: Set<string>;
}

/** What each workload is given: the options, the database server, a scratch folder, the table. */
interface Context {
  o: Options;
  pg: BenchPostgres;
  tmp: string;
  /** Adds a row of the table: a metric's rounds for both stores and their ratios. */
  add(label: string, f: Figures, fmt: (x: number) => string): void;
}

const ms = (x: number) => x < 10 ? `${x.toFixed(2)} ms` : `${x.toFixed(0)} ms`;

/** Workload 1: publish throughput with two writer processes. */
async function benchPublish({ o, pg, tmp, add }: Context): Promise<void> {
  const rate = figures();
  let published = 0;
  for (let round = 0; round < o.rounds; round++) {
    for (const kind of rotate(KINDS, round)) {
      const place = {
        kind,
        where: kind === "folder"
          ? await Deno.makeTempDir({ dir: tmp, prefix: "publish-" })
          : await pg.createDatabase(),
      };
      const r = await publishRound(place, o.versions);
      rate[kind].push(r.perSecond);
      published = r.published;
    }
  }
  console.log(
    `publish: 2 writer processes, ${published} versions a round (${o.versions} patches of 6 ` +
      `tools; 2 of them published by both), each published exactly once: checked`,
  );
  add("publish, 2 writers: versions/s", rate, (x) => x.toFixed(1));
}

/** Workload 2: `estate replay` over `--calls` stored calls, time and peak RSS. */
async function benchReplay({ o, pg, tmp, add }: Context): Promise<void> {
  const generated = replayCalls(o.calls);
  const folder: Place = { kind: "folder", where: corpusFolder(`${tmp}/replay`, REPLAYED) };
  const file = `${folder.where}/tools/${REPLAYED}/calls.jsonl`;
  let t0 = performance.now();
  const fd = fs.openSync(file, "w");
  let batch: string[] = [];
  for (const line of generated.lines) {
    batch.push(line);
    if (batch.length === 10_000) {
      fs.writeSync(fd, batch.join("\n") + "\n");
      batch = [];
    }
  }
  if (batch.length) fs.writeSync(fd, batch.join("\n") + "\n");
  fs.closeSync(fd);
  const size = fs.statSync(file).size;
  const written = (performance.now() - t0) / 1000;
  const database: Place = { kind: "postgres", where: await corpusDatabase(pg, REPLAYED) };
  t0 = performance.now();
  const again = replayCalls(o.calls);
  check(
    await copyCalls(database.where, REPLAYED, again.lines) === o.calls,
    "COPY loaded too few calls",
  );
  check(
    JSON.stringify(again.rejected) === JSON.stringify(generated.rejected),
    "the generator is not deterministic",
  );
  const sql = postgres(database.where, { max: 1, onnotice: () => {} });
  await sql`vacuum analyze stored_calls`;
  const [t] = await sql`select pg_total_relation_size('stored_calls')::bigint as bytes`;
  await sql.end();
  const loaded = (performance.now() - t0) / 1000;
  const rej = generated.rejected;
  console.log(
    `replay: ${int(o.calls)} calls of ${REPLAYED} (${int(rej[1] + rej[2])} mistakes: ${
      int(rej[1])
    } of 1.x, ${int(rej[2])} of 2.x); calls.jsonl ${(size / 1e6).toFixed(0)} MB written in ${
      written.toFixed(1)
    } s; COPY + VACUUM ANALYZE ${loaded.toFixed(1)} s, table and index ${
      (Number(t.bytes) / 1e6).toFixed(0)
    } MB; peak RSS by ${TIME ? "/usr/bin/time -v" : "polling /proc/PID/status VmHWM"}`,
  );
  const seconds = figures(), peak = figures(), capped = figures(), cappedPeak = figures();
  for (let round = 0; round < o.rounds; round++) {
    for (const place of rotate([folder, database], round)) {
      const r = await replayRun(place, o.calls, rej);
      seconds[place.kind].push(r.seconds);
      peak[place.kind].push(r.peakMiB);
    }
    // The same with the V8 heap capped far below the calls' size: it completes only if
    // memory stays flat (a store that held the calls would run out of heap and fail).
    for (const place of rotate([folder, database], round)) {
      const r = await replayRun(place, o.calls, rej, [
        `--v8-flags=--max-old-space-size=${CAP}`,
      ]);
      capped[place.kind].push(r.seconds);
      cappedPeak[place.kind].push(r.peakMiB);
    }
  }
  add(
    `replay ${int(o.calls)} calls: estate replay, wall`,
    seconds,
    (x) => `${x.toFixed(2)} s`,
  );
  add("replay: calls/s", {
    folder: seconds.folder.map((s) => o.calls / s),
    postgres: seconds.postgres.map((s) => o.calls / s),
  }, (x) => int(x));
  add("replay: peak RSS of estate replay", peak, (x) => `${x.toFixed(0)} MiB`);
  add(`replay, V8 heap ≤ ${CAP} MiB: wall`, capped, (x) => `${x.toFixed(2)} s`);
  add(`replay, V8 heap ≤ ${CAP} MiB: peak RSS`, cappedPeak, (x) => `${x.toFixed(0)} MiB`);
  fs.rmSync(folder.where, { recursive: true });
}

/** Workload 3: list_changed from a publish to a client of another replica. */
async function benchNotify({ o, pg, tmp, add }: Context): Promise<void> {
  const replicas = [
    await startReplicas({ kind: "folder", where: corpusFolder(`${tmp}/notify`) }),
    await startReplicas({ kind: "postgres", where: await corpusDatabase(pg) }),
  ];
  const p50 = figures(), p99 = figures(), all = figures();
  try {
    for (let round = 0; round < o.rounds; round++) {
      for (const r of rotate(replicas, round)) {
        const xs = await propagate(r, o.publishes);
        p50[r.place.kind].push(quantile(xs, 0.5));
        p99[r.place.kind].push(quantile(xs, 0.99));
        all[r.place.kind].push(...xs);
      }
    }
  } finally {
    for (const r of replicas) await stopReplicas(r);
  }
  console.log(
    `notify: ${o.publishes} publishes a round per store, each heard as list_changed on ` +
      `replica B and then listed there: checked; all rounds pooled: folder p50 ${
        ms(quantile(all.folder, 0.5))
      } p99 ${ms(quantile(all.folder, 0.99))} max ${ms(Math.max(...all.folder))}, ` +
      `PostgreSQL p50 ${ms(quantile(all.postgres, 0.5))} p99 ${
        ms(quantile(all.postgres, 0.99))
      } max ${
        ms(Math.max(...all.postgres))
      } (serve gathers change events for ${DEBOUNCE_MS.folder} ms from a folder, ${DEBOUNCE_MS.postgres} ms from a database)`,
  );
  add("list_changed publish → replica B: p50", p50, ms);
  add("list_changed publish → replica B: p99", p99, ms);
  const above = (xs: number[], by: number) => xs.map((x) => x - by);
  add(
    "list_changed: p50 past serve's gathering of events",
    {
      folder: above(p50.folder, DEBOUNCE_MS.folder),
      postgres: above(p50.postgres, DEBOUNCE_MS.postgres),
    },
    ms,
  );
}

/** Workload 4: sequential tools/call, with and without `--record-calls`. */
async function benchCall({ o, pg, tmp, add }: Context): Promise<void> {
  const configs: { place: Place; record: boolean; label: string }[] = [];
  for (const record of [false, true]) {
    configs.push(
      {
        place: { kind: "folder", where: corpusFolder(`${tmp}/call-${record}`) },
        record,
        label: record ? "folder --record-calls" : "folder",
      },
      {
        place: { kind: "postgres", where: await corpusDatabase(pg) },
        record,
        label: record ? "postgres --record-calls" : "postgres",
      },
    );
  }
  const before = await Promise.all(configs.map((c) => fxCalls(c.place)));
  const served = [];
  try {
    for (const c of configs) {
      served.push(await startServe(c.place, c.record ? ["--record-calls"] : []));
    }
    const clients = await Promise.all(
      served.map((s) => connectAs(s.url, "wholesale-operator")),
    );
    const warmUp = Math.min(200, o.toolCalls);
    for (const client of clients) await callLatencies(client, warmUp);
    const stats = configs.map(() => ({
      mean: [] as number[],
      p50: [] as number[],
      p99: [] as number[],
    }));
    for (let round = 0; round < o.rounds; round++) {
      for (const i of rotate(configs.map((_, i) => i), round)) {
        const xs = await callLatencies(clients[i], o.toolCalls);
        stats[i].mean.push(xs.reduce((a, b) => a + b, 0) / xs.length);
        stats[i].p50.push(quantile(xs, 0.5));
        stats[i].p99.push(quantile(xs, 0.99));
      }
    }
    for (const client of clients) await client.close();
    // The calls recorded: all of them with --record-calls (the database's inserts may still
    // be in flight), none without.
    const made = warmUp + o.rounds * o.toolCalls;
    for (const [i, c] of configs.entries()) {
      const want = before[i] + (c.record ? made : 0);
      let now = await fxCalls(c.place);
      for (
        const deadline = performance.now() + 30_000;
        now !== want && performance.now() < deadline;
      ) {
        await sleep(100);
        now = await fxCalls(c.place);
      }
      check(now === want, `${c.label} holds ${now} fx.quote calls, expected ${want}`);
    }
    for (const record of [false, true]) {
      const [f, p] = [0, 1].map((k) => stats[(record ? 2 : 0) + k]);
      const flagText = record ? " --record-calls" : "";
      add(`tools/call${flagText}: mean`, { folder: f.mean, postgres: p.mean }, ms);
      add(`tools/call${flagText}: p50`, { folder: f.p50, postgres: p.p50 }, ms);
      add(`tools/call${flagText}: p99`, { folder: f.p99, postgres: p.p99 }, ms);
    }
    console.log(
      `call: ${int(o.toolCalls)} sequential fx.quote calls a round per server (after ${warmUp} ` +
        `warm-up), every answer checked; with --record-calls every call stored, without none: checked`,
    );
  } finally {
    for (const s of served) await s.stop();
  }
}

const WORKLOADS: Record<string, (c: Context) => Promise<void>> = {
  publish: benchPublish,
  replay: benchReplay,
  notify: benchNotify,
  call: benchCall,
};

async function main(o: Options): Promise<void> {
  const pg = await startPostgres({ durable: true });
  const tmp = await Deno.makeTempDir({ prefix: "store-bench-" });
  const rows: string[][] = [];
  const add = (label: string, f: Figures, fmt: (x: number) => string) => {
    const ratios = f.postgres.map((x, i) => x / f.folder[i]);
    rows.push([
      label,
      range(f.folder, fmt),
      range(f.postgres, fmt),
      range(ratios, (x) => `${x.toFixed(2)}×`),
    ]);
  };
  try {
    const admin = postgres(pg.url, { max: 1, onnotice: () => {} });
    const [info] = await admin`select version() as version,
      current_setting('fsync') as fsync, current_setting('synchronous_commit') as sc`;
    await admin.end();
    console.log(
      `Deno ${Deno.version.deno}, ${navigator.hardwareConcurrency} cores, load ${
        Deno.loadavg().map((x) => x.toFixed(2)).join(" ")
      }; ${
        String(info.version).split(" on ")[0]
      } (fsync ${info.fsync}, synchronous_commit ${info.sc}) ` +
        `on 127.0.0.1; folders and the database under ${tmp.replace(/[^/]*$/, "")}; ${o.rounds} ` +
        `rounds, stores in a rotated order each round; median round (smallest–largest); PG ÷ ` +
        `folder is the median (smallest–largest) of the ratios within each round\n`,
    );
    for (const [name, run] of Object.entries(WORKLOADS)) {
      if (o.only.has(name)) await run({ o, pg, tmp, add });
    }
    console.log();
    console.log(markdownTable(["", "folder", "PostgreSQL", "PG ÷ folder"], rows));
  } finally {
    await pg.stop();
    await Deno.remove(tmp, { recursive: true });
  }
}

if (import.meta.main) {
  const arg = (name: string) =>
    Deno.args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
  const worker = arg("worker");
  if (worker === "publish") {
    await publishWorker(
      { kind: arg("kind") as Kind, where: arg("where")! },
      arg("names")!.split(","),
      Number(arg("versions")),
    );
  } else {
    const onlyIndex = Deno.args.findIndex((a) => a === "--only");
    const only = arg("only") ?? (onlyIndex >= 0 ? Deno.args[onlyIndex + 1] : undefined);
    await main({
      calls: flag(Deno.args, "calls", 1_000_000),
      rounds: Math.max(1, flag(Deno.args, "rounds", 3)),
      versions: flag(Deno.args, "versions", 100),
      publishes: flag(Deno.args, "publishes", 50),
      toolCalls: flag(Deno.args, "tool-calls", 2_000),
      only: new Set((only ?? "publish,replay,notify,call").split(",")),
    });
  }
}
