/**
 * Idempotency keys on `tools/call`: the store in memory, and the server's step — a repeat is
 * answered from the stored outcome (the handler ran once), the same key with other arguments is
 * refused, keys are per principal, keys lapse on the stated schedule (an injected clock), a
 * duplicate while the first runs waits for it or is told to retry, a claim that outlived its lease
 * is answered "outcome unknown", and a 2026-07-28 round that asks for input frees the key for its
 * retry.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { EstateDir } from "../lib/store/estate_dir.ts";
import { estateServer } from "../lib/cli/serve.ts";
import {
  type CallRecord,
  DEFAULT_IDEMPOTENCY_TTL_MS,
  ESTATE_ERROR_CODES,
  estateConfigProblems,
  IDEMPOTENCY_META_KEY,
  IDEMPOTENT_REPLAY_META_KEY,
  isIdempotencyKey,
  McpServer,
  type McpServerOptions,
  memoryIdempotencyStore,
  type Principal,
  STATELESS_META,
  ToolRegistry,
} from "../mod.ts";
import { OPERATOR, RETAIL, spec } from "./_mcp_fixtures.ts";

const RELEASE = spec("payments.release", "1.0.0", { sideEffect: "write" });
const CONFIRMED = spec("payments.confirmed", "1.0.0", {
  sideEffect: "irreversible",
  confirm: { message: "Release payment {reference}?" },
});

type Wire = {
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: Record<string, unknown> };
};

/** A server whose handler counts its runs and can be held until released. */
function keyedServer(options: Partial<McpServerOptions> = {}) {
  const registry = new ToolRegistry();
  registry.publish(RELEASE);
  registry.publish(CONFIRMED);
  const ran: unknown[] = [];
  const calls: CallRecord[] = [];
  let gate: Promise<void> = Promise.resolve();
  const server = new McpServer({
    registry,
    handlerFor: () => async (args) => {
      ran.push(args);
      await gate;
      return { released: args.reference, run: ran.length };
    },
    onCall: (r) => calls.push(r),
    ...options,
  });
  return {
    server,
    ran,
    calls,
    hold(): () => void {
      let open!: () => void;
      gate = new Promise((r) => open = r);
      return open;
    },
  };
}

let ids = 0;
function call(
  server: McpServer,
  options: {
    key?: unknown;
    args?: Record<string, unknown>;
    principal?: Principal;
    tool?: string;
    extra?: Record<string, unknown>;
  } = {},
): Promise<Wire> {
  return server.handleStateless({
    jsonrpc: "2.0",
    id: ++ids,
    method: "tools/call",
    params: {
      name: options.tool ?? "payments.release",
      arguments: options.args ?? { reference: "PMT-000001", amount: 10 },
      ...options.extra,
      _meta: {
        [STATELESS_META.protocolVersion]: "2026-07-28",
        [STATELESS_META.clientCapabilities]: { elicitation: {} },
        ...(options.key === undefined ? {} : { [IDEMPOTENCY_META_KEY]: options.key }),
      },
    },
  }, { principal: options.principal ?? OPERATOR }) as Promise<Wire>;
}

Deno.test("isIdempotencyKey() takes 1 to 255 printable ASCII characters and nothing else", () => {
  for (const good of ["a", "x".repeat(255), "8e03978e-40d5-43e8-bc93-6894a57f9324", "!~"]) {
    assert.equal(isIdempotencyKey(good), true, good);
  }
  for (const bad of ["", "x".repeat(256), "a b", "tab\t", "é", 7, null, undefined, {}]) {
    assert.equal(isIdempotencyKey(bad), false, JSON.stringify(bad));
  }
});

Deno.test("memoryIdempotencyStore(): one claim wins, finish only by the owner, release frees a running claim, a lapsed entry is claimed anew", async () => {
  const store = memoryIdempotencyStore();
  const binding = { tool: "t", version: "1.0.0", digest: "d" };
  const claim = { principal: "p", key: "k", binding, owner: "a", startedAt: 100, expires: 200 };
  assert.equal(await store.claim(claim), undefined);
  assert.equal((await store.claim({ ...claim, owner: "b" }))?.owner, "a");
  assert.equal(
    await store.claim({ ...claim, principal: "q", owner: "c" }),
    undefined,
    "per principal",
  );
  assert.equal(await store.finish({ principal: "p", key: "k", owner: "b" }, { result: {} }), false);
  store.release({ principal: "p", key: "k", owner: "b" });
  assert.ok(await store.read({ principal: "p", key: "k" }, 150), "another owner cannot release it");
  store.release({ principal: "p", key: "k", owner: "a" });
  assert.equal(await store.read({ principal: "p", key: "k" }, 150), undefined);
  assert.equal(await store.claim({ ...claim, owner: "d" }), undefined);
  assert.equal(
    await store.finish({ principal: "p", key: "k", owner: "d" }, { result: { n: 1 } }),
    true,
  );
  store.release({ principal: "p", key: "k", owner: "d" });
  assert.deepEqual((await store.read({ principal: "p", key: "k" }, 199))?.outcome, {
    result: { n: 1 },
  });
  assert.equal(await store.read({ principal: "p", key: "k" }, 200), undefined, "lapsed at expires");
  assert.equal(
    await store.claim({ ...claim, owner: "e", startedAt: 200, expires: 300 }),
    undefined,
  );
});

Deno.test("a repeat with the same key is answered with the stored outcome, marked, and the handler ran once; without a key every call runs", async () => {
  const s = keyedServer();
  const first = await call(s.server, { key: "release-1" });
  const again = await call(s.server, { key: "release-1" });
  assert.deepEqual(first.result?.structuredContent, { released: "PMT-000001", run: 1 });
  assert.deepEqual(again.result?.structuredContent, first.result?.structuredContent);
  assert.equal((again.result?._meta as Record<string, unknown>)[IDEMPOTENT_REPLAY_META_KEY], true);
  assert.equal(
    (first.result?._meta as Record<string, unknown> | undefined)?.[
      IDEMPOTENT_REPLAY_META_KEY
    ],
    undefined,
  );
  assert.equal(s.ran.length, 1);
  assert.deepEqual(s.calls.map((c) => c.outcome), ["ok", "replayed"]);
  await call(s.server);
  await call(s.server);
  assert.equal(s.ran.length, 3);
  s.server.close();
});

Deno.test("the same key with other arguments, another tool or from another principal: refused with -32602, or (another principal) a key of its own", async () => {
  const s = keyedServer();
  await call(s.server, { key: "k" });
  const other = await call(s.server, { key: "k", args: { reference: "PMT-000002" } });
  assert.equal(other.error?.code, -32602);
  assert.match(other.error!.message, /Idempotency key "k" was used with other arguments/);
  assert.match(other.error!.message, /nothing was run/);
  const otherTool = await call(s.server, {
    key: "k",
    tool: "payments.confirmed",
    extra: {},
  });
  assert.equal(otherTool.error?.code, -32602);
  // Key order does not matter: the digest is of canonical JSON.
  const reordered = await call(s.server, {
    key: "k",
    args: { amount: 10, reference: "PMT-000001" },
  });
  assert.equal(reordered.result?.isError, undefined, JSON.stringify(reordered));
  assert.equal(s.ran.length, 1);
  // Another principal's "k" is another key: it runs, and never sees the first one's outcome.
  const retail: Principal = { ...RETAIL, id: "someone-else", tenant: "wholesale" };
  const theirs = await call(s.server, { key: "k", principal: retail });
  assert.deepEqual(theirs.result?.structuredContent, { released: "PMT-000001", run: 2 });
  assert.equal(s.ran.length, 2);
  s.server.close();
});

Deno.test("an idempotency key that is not 1 to 255 printable ASCII characters is refused with -32602 naming it, and nothing runs", async () => {
  const s = keyedServer();
  for (const bad of ["", "a b", 42, "x".repeat(256)]) {
    const w = await call(s.server, { key: bad });
    assert.equal(w.error?.code, -32602, JSON.stringify(w));
    assert.match(w.error!.message, /_meta\["dev\.tool-estate\/idempotencyKey"\] must be a string/);
  }
  assert.equal(s.ran.length, 0);
  s.server.close();
});

Deno.test("invalid arguments do not claim a key: the corrected call with the same key runs", async () => {
  const s = keyedServer();
  const invalid = await call(s.server, { key: "fix-me", args: { reference: "nope" } });
  assert.equal(invalid.result?.isError, true);
  const fixed = await call(s.server, { key: "fix-me", args: { reference: "PMT-000003" } });
  assert.deepEqual(fixed.result?.structuredContent, { released: "PMT-000003", run: 1 });
  s.server.close();
});

Deno.test("keys lapse on the stated schedule: a repeat within the TTL is replayed, at the TTL the key runs anew (injected clock)", async () => {
  let now = Date.parse("2026-03-01T00:00:00Z");
  const s = keyedServer({ now: () => now });
  await call(s.server, { key: "daily" });
  now += DEFAULT_IDEMPOTENCY_TTL_MS - 1;
  await call(s.server, { key: "daily" });
  assert.equal(s.ran.length, 1);
  now += 1;
  const anew = await call(s.server, { key: "daily" });
  assert.deepEqual(anew.result?.structuredContent, { released: "PMT-000001", run: 2 });
  s.server.close();

  let t = 0;
  const short = keyedServer({ now: () => t, idempotencyTtlMs: 1000 });
  await call(short.server, { key: "k" });
  t = 999;
  await call(short.server, { key: "k" });
  t = 1000;
  await call(short.server, { key: "k", args: { reference: "PMT-000009" } });
  assert.equal(short.ran.length, 2, "after the TTL even other arguments run under the key");
  short.server.close();
});

Deno.test("duplicates while the first call runs wait for its outcome; past the wait they are told -32050 with retryAfterSeconds and 409; nothing runs twice", async () => {
  const s = keyedServer({ idempotencyWaitMs: 60_000 });
  const open = s.hold();
  const first = call(s.server, { key: "slow" });
  while (s.ran.length === 0) await new Promise((r) => setTimeout(r, 1));
  const dups = Array.from({ length: 5 }, () => call(s.server, { key: "slow" }));
  open();
  const all = await Promise.all([first, ...dups]);
  for (const w of all) {
    assert.deepEqual(w.result?.structuredContent, { released: "PMT-000001", run: 1 });
  }
  assert.equal(s.ran.length, 1);
  s.server.close();

  const impatient = keyedServer({ idempotencyWaitMs: 0 });
  const release = impatient.hold();
  const running = call(impatient.server, { key: "slow" });
  while (impatient.ran.length === 0) await new Promise((r) => setTimeout(r, 1));
  const served = await impatient.server.serveStateless(
    {
      kind: "request",
      message: {
        jsonrpc: "2.0",
        id: 99,
        method: "tools/call",
        params: {
          name: "payments.release",
          arguments: { reference: "PMT-000001", amount: 10 },
          _meta: {
            [STATELESS_META.protocolVersion]: "2026-07-28",
            [STATELESS_META.clientCapabilities]: {},
            [IDEMPOTENCY_META_KEY]: "slow",
          },
        },
      },
    },
    { principal: OPERATOR },
  );
  const error = (served.response as Wire).error!;
  assert.equal(error.code, ESTATE_ERROR_CODES.IDEMPOTENCY_IN_PROGRESS);
  assert.equal(error.data?.retryAfterSeconds, 1);
  assert.match(error.message, /is still running; nothing was run again/);
  assert.deepEqual(served.outcome, { kind: "in-progress", retryAfterSeconds: 1 });
  release();
  await running;
  assert.equal(impatient.ran.length, 1);
  assert.equal(impatient.calls.at(-1)?.outcome, "ok");
  assert.equal(impatient.calls.filter((c) => c.outcome === "key-refused").length, 1);
  impatient.server.close();
});

Deno.test("a claim that outlived its lease with no outcome (its server died) is answered -32051 outcome unknown, and is never run again", async () => {
  const store = memoryIdempotencyStore();
  let now = 1_000_000;
  // A replica that claimed the key and died: its handler never returns, its claim stays running.
  const dead = keyedServer({ idempotency: store, now: () => now, idempotencyWaitMs: 0 });
  dead.hold();
  void call(dead.server, { key: "lost" });
  while (dead.ran.length === 0) await new Promise((r) => setTimeout(r, 1));
  const b = keyedServer({
    idempotency: store,
    now: () => now,
    idempotencyWaitMs: 0,
    idempotencyLeaseMs: 60_000,
  });
  const early = await call(b.server, { key: "lost" });
  assert.equal(early.error?.code, ESTATE_ERROR_CODES.IDEMPOTENCY_IN_PROGRESS);
  now += 60_000;
  const late = await call(b.server, { key: "lost" });
  assert.equal(late.error?.code, ESTATE_ERROR_CODES.IDEMPOTENCY_OUTCOME_UNKNOWN);
  assert.match(
    late.error!.message,
    /^Outcome unknown: the first call of payments\.release with idempotency key "lost" started at 1970-01-01T00:16:40\.000Z and never reported; it was not run again/,
  );
  assert.equal(b.ran.length, 0);
  dead.server.close();
  b.server.close();
});

Deno.test("a 2026-07-28 round that asks for input stores nothing: the retry with requestState and the same key runs the call, once; a repeat then replays it", async () => {
  const s = keyedServer();
  const args = { reference: "PMT-000042" };
  const asked = await call(s.server, { key: "confirm-1", tool: "payments.confirmed", args });
  assert.equal(asked.result?.resultType, "input_required", JSON.stringify(asked));
  assert.equal(s.ran.length, 0);
  const retry = (id: string) =>
    call(s.server, {
      key: "confirm-1",
      tool: "payments.confirmed",
      args,
      extra: {
        requestState: asked.result?.requestState,
        inputResponses: { [id]: { action: "accept", content: { confirm: true } } },
      },
    });
  const done = await retry("ask-0");
  assert.equal(done.result?.resultType, "complete", JSON.stringify(done));
  assert.deepEqual(done.result?.structuredContent, { released: "PMT-000042", run: 1 });
  // The same retry again (its answer was lost): the stored outcome, not "requestState spent".
  const replayed = await retry("ask-0");
  assert.deepEqual(replayed.result?.structuredContent, { released: "PMT-000042", run: 1 });
  assert.equal(
    (replayed.result?._meta as Record<string, unknown>)[IDEMPOTENT_REPLAY_META_KEY],
    true,
  );
  assert.equal(s.ran.length, 1);
  s.server.close();
});

Deno.test("a declined confirmation is stored: the repeat is told it was declined, and nothing runs", async () => {
  const s = keyedServer();
  const args = { reference: "PMT-000043" };
  const asked = await call(s.server, { key: "decline-1", tool: "payments.confirmed", args });
  const declined = await call(s.server, {
    key: "decline-1",
    tool: "payments.confirmed",
    args,
    extra: {
      requestState: asked.result?.requestState,
      inputResponses: { "ask-0": { action: "decline" } },
    },
  });
  assert.equal(declined.result?.isError, true);
  const again = await call(s.server, { key: "decline-1", tool: "payments.confirmed", args });
  assert.equal(again.result?.isError, true);
  assert.match(JSON.stringify(again.result?.content), /declined the confirmation/);
  assert.equal(s.ran.length, 0);
  s.server.close();
});

Deno.test("estate serve keeps idempotency keys as long as estate.json's idempotencyKeyTtlHours says, read per call; a bad value is refused naming it", async () => {
  assert.deepEqual(estateConfigProblems({ idempotencyKeyTtlHours: 0 }), [
    "idempotencyKeyTtlHours must be a number of hours above 0 and at most 8760, got 0",
  ]);
  assert.deepEqual(estateConfigProblems({ idempotencyKeyTtlHours: 1.5 }), []);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "estate-idem-ttl-"));
  try {
    fs.cpSync(new URL("../corpus", import.meta.url).pathname, dir, { recursive: true });
    fs.writeFileSync(path.join(dir, "estate.json"), JSON.stringify({ idempotencyKeyTtlHours: 1 }));
    let now = Date.UTC(2026, 11, 3, 9, 0, 0);
    let ran = 0;
    const server = estateServer(EstateDir.open(dir), {
      system: { handlerFor: () => () => ({ ran: ++ran }) },
      log: () => {},
      recordCalls: false,
      now: () => now,
    });
    const principal = {
      id: "retail-agent",
      scopes: ["policy:read"],
      tenant: "retail",
      clearance: "confidential" as const,
    };
    const call = async () => {
      const answer = await server.handleStateless({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: {
          name: "policy.search",
          arguments: { query: "wire limits" },
          _meta: {
            [STATELESS_META.protocolVersion]: "2026-07-28",
            [STATELESS_META.clientCapabilities]: {},
            [IDEMPOTENCY_META_KEY]: "ttl-key",
          },
        },
      }, { principal }) as { result?: { structuredContent?: { ran: number } } };
      return answer.result?.structuredContent?.ran;
    };
    assert.equal(await call(), 1);
    now += 59 * 60_000;
    assert.equal(await call(), 1, "replayed within the hour");
    now += 2 * 60_000;
    assert.equal(await call(), 2, "the key lapsed after an hour: run anew");
    server.close();
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
