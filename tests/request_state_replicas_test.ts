/**
 * Confirmations across replicas: a 2026-07-28 confirmation asked by one server and retried on
 * another runs when they share the requestState key (and is refused as forged when they do not);
 * a rotation keeps the old key opening what it sealed while the new one seals; `estate serve`
 * reads the keys from the environment, and refuses keys it cannot use.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { EstateDir } from "../lib/store/estate_dir.ts";
import { estateServer } from "../lib/cli/serve.ts";
import {
  type CallRecord,
  McpServer,
  memorySpentStates,
  type SpentStates,
  STATELESS_META,
  ToolRegistry,
} from "../mod.ts";
import {
  REQUEST_STATE_KEY_ENV,
  REQUEST_STATE_PREVIOUS_KEYS_ENV,
  requestStateKeys,
} from "../lib/cli/_request_state_keys.ts";
import { OPERATOR, spec } from "./_mcp_fixtures.ts";

const RELEASE = spec("payments.release", "1.0.1", {
  sideEffect: "irreversible",
  requiredScopes: ["payments:release"],
  dataClassification: "restricted",
  tenants: ["wholesale"],
  confirm: { message: "Release payment {reference} of {amount} GBP?" },
});

function key(): Uint8Array {
  return crypto.getRandomValues(new Uint8Array(32));
}

/** A replica: its own server over its own copy of the estate, sealing with `keys`. */
function replica(keys: Uint8Array | Uint8Array[], spentStates?: SpentStates) {
  const registry = new ToolRegistry();
  registry.publish(RELEASE);
  const ran: string[] = [];
  const calls: CallRecord[] = [];
  const server = new McpServer({
    registry,
    handlerFor: () => (args) => {
      ran.push(String(args.reference));
      return { released: args.reference };
    },
    onCall: (r) => calls.push(r),
    requestStateKey: keys,
    spentStates,
  });
  return { server, ran, calls };
}

type Wire = {
  result?: Record<string, unknown>;
  error?: { code: number; message: string };
};

const ARGS = { reference: "PMT-000042", amount: 1200 };

function call(id: number, extra: Record<string, unknown> = {}) {
  return {
    jsonrpc: "2.0",
    id,
    method: "tools/call",
    params: {
      name: "payments.release",
      arguments: ARGS,
      ...extra,
      _meta: {
        [STATELESS_META.protocolVersion]: "2026-07-28",
        [STATELESS_META.clientCapabilities]: { elicitation: {} },
      },
    },
  };
}

/** Asks on `first`, answers the confirmation on `second`: the retry's answer. */
async function askThenRetry(
  first: McpServer,
  second: McpServer,
): Promise<Wire> {
  const asked = await first.handleStateless(call(1), { principal: OPERATOR }) as Wire;
  assert.equal(asked.result?.resultType, "input_required");
  return await second.handleStateless(
    call(2, {
      requestState: asked.result?.requestState,
      inputResponses: { "ask-0": { action: "accept", content: { confirm: true } } },
    }),
    { principal: OPERATOR },
  ) as Wire;
}

Deno.test("a confirmation asked by one replica runs on another that shares the key, once; with another key it is refused as forged and nothing runs", async () => {
  const shared = key();
  const a = replica(shared), b = replica(shared);
  const done = await askThenRetry(a.server, b.server);
  assert.equal(done.result?.resultType, "complete", JSON.stringify(done));
  assert.deepEqual(done.result?.structuredContent, { released: "PMT-000042" });
  assert.deepEqual([a.ran, b.ran], [[], ["PMT-000042"]]);
  assert.equal(b.calls.at(-1)?.confirmation?.action, "accept");

  const c = replica(key());
  const refused = await askThenRetry(a.server, c.server);
  assert.equal(refused.error?.code, -32602);
  assert.match(refused.error!.message, /requestState refused \(forged\)/);
  assert.deepEqual(c.ran, []);
  for (const r of [a, b, c]) r.server.close();
});

Deno.test("a key rotation: the new key seals, the old one still opens what it sealed, and a replica without it refuses", async () => {
  const old = key(), next = key();
  const before = replica(old); // not rotated yet
  const rotated = replica([next, old]); // seals with next, still opens old
  const after = replica(next); // the old key dropped
  // Asked before the rotation, answered on a rotated replica: runs.
  const carried = await askThenRetry(before.server, rotated.server);
  assert.equal(carried.result?.resultType, "complete", JSON.stringify(carried));
  // Asked on a rotated replica (sealed with the new key): a replica that only has the old key
  // cannot open it; one that has the new key can.
  const stale = await askThenRetry(rotated.server, before.server);
  assert.match(stale.error!.message, /\(forged\)/);
  const fresh = await askThenRetry(rotated.server, after.server);
  assert.equal(fresh.result?.resultType, "complete", JSON.stringify(fresh));
  // Once the old key is dropped, what it sealed is refused.
  const dropped = await askThenRetry(before.server, after.server);
  assert.match(dropped.error!.message, /\(forged\)/);
  assert.deepEqual([before.ran, rotated.ran, after.ran], [[], ["PMT-000042"], ["PMT-000042"]]);
  for (const r of [before, rotated, after]) r.server.close();
});

Deno.test("a confirmed state runs its call once across replicas sharing the spent states: replayed on the other, or retried on both at once", async () => {
  const shared = key(), spent = memorySpentStates();
  const a = replica(shared, spent), b = replica(shared, spent);
  const asked = await a.server.handleStateless(call(1), { principal: OPERATOR }) as Wire;
  const retry = (server: McpServer, id: number) =>
    server.handleStateless(
      call(id, {
        requestState: asked.result?.requestState,
        inputResponses: { "ask-0": { action: "accept", content: { confirm: true } } },
      }),
      { principal: OPERATOR },
    ) as Promise<Wire>;
  const [one, two] = await Promise.all([retry(a.server, 2), retry(b.server, 3)]);
  const answers = [one, two];
  assert.equal(answers.filter((w) => w.result?.resultType === "complete").length, 1);
  assert.match(answers.find((w) => w.error)!.error!.message, /requestState refused \(spent\)/);
  assert.deepEqual([...a.ran, ...b.ran], ["PMT-000042"]);
  // Replayed later on either replica: spent.
  for (const [server, id] of [[a.server, 4], [b.server, 5]] as const) {
    assert.match((await retry(server, id)).error!.message, /\(spent\)/);
  }
  assert.deepEqual([...a.ran, ...b.ran], ["PMT-000042"]);
  for (const r of [a, b]) r.server.close();
});

function b64(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes));
}

Deno.test("estate serve's requestState keys come from the environment: base64 or base64url, 32 bytes or more, earlier keys only beside a current one", () => {
  const k1 = key(), k2 = key();
  assert.equal(requestStateKeys({}), undefined);
  assert.deepEqual(requestStateKeys({ [REQUEST_STATE_KEY_ENV]: b64(k1) }), [k1]);
  const url = b64(k1).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  assert.deepEqual(requestStateKeys({ [REQUEST_STATE_KEY_ENV]: url }), [k1]);
  assert.deepEqual(
    requestStateKeys({
      [REQUEST_STATE_KEY_ENV]: ` ${b64(k1)} `,
      [REQUEST_STATE_PREVIOUS_KEYS_ENV]: `${b64(k2)}, `,
    }),
    [k1, k2],
  );
  assert.throws(
    () => requestStateKeys({ [REQUEST_STATE_KEY_ENV]: b64(new Uint8Array(16)) }),
    /holds 16 bytes; a requestState key needs 32 random bytes or more/,
  );
  assert.throws(
    () => requestStateKeys({ [REQUEST_STATE_KEY_ENV]: "not base64!" }),
    /ESTATE_REQUEST_STATE_KEY is not base64/,
  );
  assert.throws(
    () =>
      requestStateKeys({
        [REQUEST_STATE_KEY_ENV]: b64(k1),
        [REQUEST_STATE_PREVIOUS_KEYS_ENV]: `${b64(k2)},short`,
      }),
    /ESTATE_REQUEST_STATE_PREVIOUS_KEYS \(key 2\)/,
  );
  assert.throws(
    () => requestStateKeys({ [REQUEST_STATE_PREVIOUS_KEYS_ENV]: b64(k2) }),
    /ESTATE_REQUEST_STATE_PREVIOUS_KEYS is set but ESTATE_REQUEST_STATE_KEY is not/,
  );
});

Deno.test("estate serve's servers over one folder estate share the key and the claims: asked on one, confirmed on the other, never twice", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "estate-replicas-"));
  try {
    await EstateDir.open(dir).publish(RELEASE);
    const keys = requestStateKeys({ [REQUEST_STATE_KEY_ENV]: b64(key()) })!;
    const ran: string[] = [];
    const serve = () =>
      estateServer(EstateDir.open(dir), {
        system: {
          handlerFor: () => (args) => {
            ran.push(String(args.reference));
            return { released: args.reference };
          },
        },
        log: () => {},
        recordCalls: false,
        requestStateKeys: keys,
      });
    const a = serve(), b = serve();
    const asked = await a.handleStateless(call(1), { principal: OPERATOR }) as Wire;
    const retry = (server: McpServer, id: number) =>
      server.handleStateless(
        call(id, {
          requestState: asked.result?.requestState,
          inputResponses: { "ask-0": { action: "accept", content: { confirm: true } } },
        }),
        { principal: OPERATOR },
      ) as Promise<Wire>;
    assert.equal((await retry(b, 2)).result?.resultType, "complete");
    assert.match((await retry(a, 3)).error!.message, /\(spent\)/);
    assert.deepEqual(ran, ["PMT-000042"]);
    a.close();
    b.close();
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
