/**
 * Idempotency keys across replicas on one real PostgreSQL (`_postgres.ts`): concurrent duplicates
 * of one key spread over two `estate serve` servers run the handler once and every caller gets the
 * same result; a replica SIGKILLed after its handler ran and its outcome was stored, before it
 * answered, leaves the outcome for the other replica to answer the retry with; one SIGKILLed while
 * its handler ran (nothing stored) leaves the key held: the other replica does not run the call,
 * and says it is still running, then — past the lease — that its outcome is unknown.
 */
import assert from "node:assert/strict";
import postgres from "postgres";
import {
  ESTATE_ERROR_CODES,
  IDEMPOTENCY_META_KEY,
  IDEMPOTENT_REPLAY_META_KEY,
  McpServer,
  STATELESS_META,
} from "../mod.ts";
import { estateServer } from "../lib/cli/serve.ts";
import { PgEstateStore } from "../lib/store/pg/pg_store.ts";
import { postgresSkipReason, startPostgres, type TestPostgres } from "./_postgres.ts";
import { OPERATOR, spec } from "./_mcp_fixtures.ts";
import { REPLICA_PRINCIPAL } from "./_idempotent_replica.ts";

const skip = postgresSkipReason();
let server: Promise<TestPostgres> | undefined;
const pg = {
  name: "",
  ignore: skip !== undefined,
  sanitizeResources: false,
  sanitizeOps: false,
};

const RELEASE = spec("payments.release", "1.0.0", { sideEffect: "write" });
const ARGS = { reference: "PMT-000042", amount: 1200 };

type Wire = {
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: Record<string, unknown> };
};

let ids = 0;
function call(key: string) {
  return {
    jsonrpc: "2.0",
    id: ++ids,
    method: "tools/call",
    params: {
      name: "payments.release",
      arguments: ARGS,
      _meta: {
        [STATELESS_META.protocolVersion]: "2026-07-28",
        [STATELESS_META.clientCapabilities]: {},
        [IDEMPOTENCY_META_KEY]: key,
      },
    },
  };
}

/** A fresh database with the tool published and a table of effects. */
async function database(): Promise<string> {
  const url = await (await (server ??= startPostgres())).createDatabase();
  const store = await PgEstateStore.open(url);
  await store.publish(RELEASE);
  await store.sql`create table replica_effects (reference text not null)`;
  await store.close();
  return url;
}

async function effects(url: string): Promise<number> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    const [{ n }] = await sql`select count(*)::int as n from replica_effects`;
    return n;
  } finally {
    await sql.end();
  }
}

Deno.test({
  ...pg,
  name:
    "[postgres] concurrent duplicates of one key spread over two replicas run the handler once; every caller gets the same result",
  fn: async () => {
    const url = await database();
    const stores = [await PgEstateStore.open(url), await PgEstateStore.open(url)];
    let ran = 0;
    const replicas = stores.map((store) =>
      estateServer(store, {
        system: {
          handlerFor: () => async (args) => {
            ran++;
            // Long enough for the duplicates to arrive while it runs.
            await new Promise((r) => setTimeout(r, 100));
            return { released: args.reference, at: crypto.randomUUID() };
          },
        },
        log: () => {},
        recordCalls: false,
      })
    );
    try {
      for (const key of ["k-1", "k-2", "k-3"]) {
        const answers = await Promise.all(
          Array.from(
            { length: 12 },
            (_, i) =>
              replicas[i % 2].handleStateless(call(key), { principal: OPERATOR }) as Promise<Wire>,
          ),
        );
        assert.ok(answers.every((w) => w.result), JSON.stringify(answers.find((w) => w.error)));
        for (const w of answers) {
          assert.deepEqual(w.result?.structuredContent, answers[0].result?.structuredContent);
        }
        assert.equal(
          answers.filter((w) =>
            (w.result?._meta as Record<string, unknown> | undefined)?.[IDEMPOTENT_REPLAY_META_KEY]
          ).length,
          11,
        );
      }
      assert.equal(ran, 3, "the handler ran once per key");
    } finally {
      for (const r of replicas) r.close();
      for (const s of stores) await s.close();
    }
  },
});

/** Replica A in its own process, stopping where `mode` says; resolves once it printed `until`. */
async function replicaProcess(url: string, mode: string) {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", new URL("./_idempotent_replica.ts", import.meta.url).pathname, url, mode],
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  const next = async (): Promise<string> => {
    while (!buffer.includes("\n")) {
      const { value, done } = await lines.read();
      if (done) throw new Error(`replica A (${mode}) ended before saying more: ${buffer}`);
      buffer += value;
    }
    const line = buffer.slice(0, buffer.indexOf("\n"));
    buffer = buffer.slice(buffer.indexOf("\n") + 1);
    return line;
  };
  const listening = await next();
  assert.match(listening, /^listening /);
  return { child, url: listening.slice("listening ".length), next, lines };
}

/** A stateless tools/call over HTTP with an Idempotency-Key header. */
function post(endpoint: string, key: string): Promise<Response> {
  const body = call(key);
  delete (body.params._meta as Record<string, unknown>)[IDEMPOTENCY_META_KEY];
  return fetch(endpoint, {
    method: "POST",
    headers: {
      authorization: `Bearer ${REPLICA_PRINCIPAL.token}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": "tools/call",
      "mcp-name": "payments.release",
      "idempotency-key": `"${key}"`,
    },
    body: JSON.stringify(body),
  });
}

/** Replica B, in this process: its own server over its own store. */
async function replicaB(url: string, options: { leaseMs?: number } = {}) {
  const store = await PgEstateStore.open(url);
  let ran = 0;
  const server = new McpServer({
    registry: store.registry,
    handlerFor: () => (args) => {
      ran++;
      return { released: args.reference };
    },
    idempotency: {
      claim: (claim) => store.claimIdempotencyKey(claim),
      finish: (ref, outcome) => store.finishIdempotencyKey(ref, outcome),
      release: (ref) => store.releaseIdempotencyKey(ref),
      read: (ref, now) => store.readIdempotencyKey(ref, now),
    },
    idempotencyWaitMs: 0,
    ...(options.leaseMs === undefined ? {} : { idempotencyLeaseMs: options.leaseMs }),
  });
  return {
    ask: (key: string) =>
      server.handleStateless(call(key), { principal: REPLICA_PRINCIPAL }) as Promise<Wire>,
    ran: () => ran,
    close: async () => {
      server.close();
      await store.close();
    },
  };
}

Deno.test({
  ...pg,
  name:
    "[postgres] a replica SIGKILLed after its handler ran and its outcome was stored, before it answered: the retry on the other replica gets the stored outcome; the effect happened once",
  fn: async () => {
    const url = await database();
    const a = await replicaProcess(url, "die-after-store");
    const first = post(a.url, "kill-after").catch((e) => e);
    assert.equal(await a.next(), "stored");
    a.child.kill("SIGKILL");
    await a.child.status;
    await a.lines.cancel().catch(() => {});
    assert.ok((await first) instanceof Error, "the first caller got no answer");
    const b = await replicaB(url);
    try {
      const retry = await b.ask("kill-after");
      assert.deepEqual(retry.result?.structuredContent, { released: "PMT-000042" });
      assert.equal(
        (retry.result?._meta as Record<string, unknown>)[IDEMPOTENT_REPLAY_META_KEY],
        true,
      );
      assert.equal(b.ran(), 0);
      assert.equal(await effects(url), 1);
    } finally {
      await b.close();
    }
  },
});

Deno.test({
  ...pg,
  name:
    "[postgres] a replica SIGKILLed while its handler ran (nothing stored): the other replica does not run the call — still running (-32050), and past the lease outcome unknown (-32051); the effect happened once",
  fn: async () => {
    const url = await database();
    const a = await replicaProcess(url, "die-in-handler");
    const first = post(a.url, "kill-during").catch((e) => e);
    assert.equal(await a.next(), "running");
    a.child.kill("SIGKILL");
    await a.child.status;
    await a.lines.cancel().catch(() => {});
    assert.ok((await first) instanceof Error, "the first caller got no answer");
    const b = await replicaB(url);
    const late = await replicaB(url, { leaseMs: 0 });
    try {
      const running = await b.ask("kill-during");
      assert.equal(running.error?.code, ESTATE_ERROR_CODES.IDEMPOTENCY_IN_PROGRESS);
      assert.equal(running.error?.data?.retryAfterSeconds, 1);
      const unknown = await late.ask("kill-during");
      assert.equal(unknown.error?.code, ESTATE_ERROR_CODES.IDEMPOTENCY_OUTCOME_UNKNOWN);
      assert.match(unknown.error!.message, /never reported; it was not run again/);
      assert.equal(b.ran() + late.ran(), 0);
      assert.equal(await effects(url), 1);
    } finally {
      await b.close();
      await late.close();
    }
  },
});

Deno.test({
  ...pg,
  name: "[postgres] the test server stops",
  fn: async () => {
    if (server) await (await server).stop();
  },
});
