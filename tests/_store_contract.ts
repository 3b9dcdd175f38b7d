/**
 * The contract every {@linkcode EstateStore} keeps, as one suite run against each implementation
 * (`store_contract_folder_test.ts`, `store_contract_pg_test.ts`): the same inputs, the same
 * outcomes, whatever keeps the estate.
 */
import assert from "node:assert/strict";
import {
  type AuditRecord,
  type EstateEvent,
  generateAuditKeys,
  importAuditKey,
  LifecycleError,
  PublishError,
  signAuditCheckpoint,
  type StoredCall,
  ToolRegistry,
  type ToolSpec,
  verifyAuditChain,
} from "../mod.ts";
import type { DriftRecord, EstatePrincipal, EstateStore } from "../lib/store/mod.ts";
import { call, clock, lookup } from "./_store_fixtures.ts";

/** A backing for stores: each `open()` is another process's view of the same estate. */
export interface StoreHarness {
  /** Opens (and loads) a store on this backing. */
  open(options?: { now?: () => Date }): Promise<EstateStore>;
  /** Replaces the principals as an operator would (a file edit, a database write). */
  writePrincipals(principals: EstatePrincipal[]): Promise<void>;
  /** Removes the backing. */
  cleanup(): Promise<void>;
}

/** Options for {@linkcode storeContract}. */
export interface StoreContractOptions {
  /** Why the suite cannot run here (e.g. no PostgreSQL binaries): every test is ignored, saying so. */
  skip?: string;
  /** Whether `watch()` is part of what this backing is held to yet. Default true. */
  watch?: boolean;
}

const PRINCIPALS: EstatePrincipal[] = [
  {
    id: "ops-bot",
    scopes: ["payments:read"],
    tenant: "wholesale",
    clearance: "confidential",
  },
  { id: "teller", scopes: [], tenant: "retail", clearance: "internal" },
];

const withNote = (version: string): ToolSpec =>
  lookup(version, {
    inputSchema: {
      type: "object",
      properties: { reference: { type: "string" }, note: { type: "string" } },
      required: ["reference"],
    },
  });

const SERVER = {
  id: "crm-mcp",
  owner: "crm-team",
  description: "The CRM team's MCP server.",
  upstream: {
    kind: "http" as const,
    url: "https://crm.internal/mcp",
    identity: { spiffeId: "spiffe://bank.example/crm" },
  },
  tools: ["crm.customer.get"],
};

const DRIFT: DriftRecord[] = [
  {
    at: "2026-01-05T09:00:00.000Z",
    server: "crm-mcp",
    kind: "unavailable",
    details: "refused",
  },
  {
    at: "2026-01-05T09:01:00.000Z",
    server: "crm-mcp",
    tool: "crm.customer.get",
    registeredVersion: "1.0.0",
    kind: "description",
    details: "the description changed",
    evidence: { live: "Ünïcode 𝄞" },
  },
];

async function collect<T>(
  stream: Iterable<T> | AsyncIterable<T>,
): Promise<T[]> {
  const out: T[] = [];
  for await (const x of stream) out.push(x);
  return out;
}

async function refusal(fn: () => unknown): Promise<unknown> {
  try {
    await fn();
  } catch (e) {
    return e;
  }
  throw new Error("expected a refusal");
}

/** The error the in-memory registry gives for the same publish, for comparison. */
function registryRefusal(
  published: ToolSpec[],
  candidate: ToolSpec,
): PublishError {
  const registry = new ToolRegistry();
  for (const spec of published) registry.publish(spec);
  try {
    registry.publish(candidate);
  } catch (e) {
    if (e instanceof PublishError) return e;
    throw e;
  }
  throw new Error("expected the registry to refuse");
}

/**
 * Registers the contract's tests for one store implementation.
 *
 * @param label Names the backing in each test's name.
 * @param factory Makes a fresh, empty backing.
 * @param options `skip`: ignore every test, with the reason; `watch: false` leaves watch out.
 */
export function storeContract(
  label: string,
  factory: () => Promise<StoreHarness>,
  options: StoreContractOptions = {},
): void {
  const test = (
    name: string,
    fn: (h: StoreHarness, opened: EstateStore[]) => Promise<void>,
  ) =>
    Deno.test({
      name: `[${label}] ${name}${options.skip ? ` (skipped: ${options.skip})` : ""}`,
      ignore: options.skip !== undefined,
      sanitizeResources: false,
      sanitizeOps: false,
      fn: async () => {
        const harness = await factory();
        const opened: EstateStore[] = [];
        const tracked: StoreHarness = {
          ...harness,
          open: async (o) => {
            const s = await harness.open(o);
            opened.push(s);
            return s;
          },
        };
        try {
          await fn(tracked, opened);
        } finally {
          for (const s of opened) await s.close();
          await harness.cleanup();
        }
      },
    });

  test("the audit log: publish, deprecate and drift are recorded; two stores extend one chain; reads filter; checkpoints are kept", async (h) => {
    const a = await h.open({ now: clock() }), b = await h.open({ now: clock() });
    await a.publish(lookup("1.0.0"));
    await b.publish(lookup("1.1.0"));
    await b.refresh();
    await a.refresh();
    await a.deprecate("payments.lookup", "1.0.0", { reason: "use 1.1.0" });
    await b.appendDrift([{
      at: "2026-01-05T09:00:00.000Z",
      server: "crm-mcp",
      kind: "unavailable",
      details: "no answer",
    }]);
    await Promise.all(
      Array.from(
        { length: 10 },
        (_, i) =>
          (i % 2 ? a : b).appendAudit([{ kind: "call", principal: `p${i % 2}`, detail: { i } }]),
      ),
    );
    const records: AuditRecord[] = [];
    for await (const r of b.readAudit()) records.push(r);
    assert.deepEqual(records.slice(0, 4).map((r) => [r.kind, r.tool, r.version]), [
      ["publish", "payments.lookup", "1.0.0"],
      ["publish", "payments.lookup", "1.1.0"],
      ["deprecate", "payments.lookup", "1.0.0"],
      ["drift", undefined, undefined],
    ]);
    assert.equal(records[2].detail.reason, "use 1.1.0");
    const verdict = await verifyAuditChain(records);
    assert.deepEqual(verdict.ok && [verdict.records, verdict.head], [14, await a.auditHead()]);
    const p1: number[] = [];
    for await (const r of a.readAudit({ principal: "p1" })) p1.push(r.detail.i as number);
    assert.deepEqual(p1.sort((x, y) => x - y), [1, 3, 5, 7, 9]);
    const { privatePem } = await generateAuditKeys();
    const checkpoint = await signAuditCheckpoint(await a.auditHead(), {
      privateKey: await importAuditKey(privatePem, "sign"),
    });
    await a.appendAuditCheckpoint(checkpoint);
    assert.deepEqual(await b.auditCheckpoints(), [checkpoint]);
    await assert.rejects(
      async () => await a.appendAudit([{ kind: "nope" as "call" }]),
      TypeError,
    );
  });

  test("a requestState is claimed once across stores opened on one estate, under concurrency; another nonce is its own", async (h) => {
    await h.writePrincipals(PRINCIPALS);
    const a = await h.open(), b = await h.open();
    const expires = Date.now() + 600_000;
    const nonce = crypto.randomUUID().replace(/-/g, "");
    const claims = await Promise.all(
      Array.from({ length: 8 }, (_, i) => (i % 2 ? a : b).claimRequestState(nonce, expires)),
    );
    assert.equal(claims.filter((c) => c).length, 1, `one winner of ${claims}`);
    assert.equal(await a.claimRequestState(nonce, expires), false);
    assert.equal(await b.claimRequestState(`${nonce}x`, expires), true);
    // A lapsed claim may be forgotten; a claim still running never is.
    for (let i = 0; i < 200; i++) {
      await a.claimRequestState(`lapsed${i}`, Date.now() - 1000);
    }
    assert.equal(await b.claimRequestState(nonce, expires), false);
  });

  test("an idempotency key is claimed once across stores on one estate, under concurrency; its outcome is read by every store; keys are per principal; a lapsed key is claimed anew", async (h) => {
    await h.writePrincipals(PRINCIPALS);
    const a = await h.open(), b = await h.open();
    const now = Date.now();
    const key = `key-${crypto.randomUUID()}`;
    const binding = { tool: "payments.release", version: "1.0.0", digest: "ab".repeat(32) };
    const claim = (owner: string, extra: Record<string, unknown> = {}) => ({
      principal: "ops-bot",
      key,
      binding,
      owner,
      startedAt: now,
      expires: now + 60_000,
      ...extra,
    });
    const claims = await Promise.all(
      Array.from({ length: 8 }, (_, i) => (i % 2 ? a : b).claimIdempotencyKey(claim(`o${i}`))),
    );
    const winners = claims.flatMap((c, i) => c === undefined ? [`o${i}`] : []);
    assert.equal(winners.length, 1, `one winner of ${JSON.stringify(claims)}`);
    const owner = winners[0];
    for (const c of claims) {
      if (c) assert.deepEqual([c.owner, c.binding, c.outcome], [owner, binding, undefined]);
    }
    // Per principal: another principal's same string is another key.
    assert.equal(await a.claimIdempotencyKey(claim("t1", { principal: "teller" })), undefined);
    const ref = { principal: "ops-bot", key };
    assert.equal(await b.finishIdempotencyKey({ ...ref, owner: "someone" }, { result: {} }), false);
    const result = {
      content: [{ type: "text", text: "Überweisung 𝄞" }],
      structuredContent: { n: 1 },
    };
    assert.equal(await b.finishIdempotencyKey({ ...ref, owner }, { result }), true);
    for (const s of [a, b]) {
      const entry = await s.readIdempotencyKey(ref, now + 1);
      assert.deepEqual(entry, {
        binding,
        owner,
        startedAt: now,
        expires: now + 60_000,
        outcome: { result },
      });
    }
    // A stored outcome is never released.
    await a.releaseIdempotencyKey({ ...ref, owner });
    assert.ok(await b.readIdempotencyKey(ref, now + 1));
    // A running claim released by its owner frees the key; a lapsed one is claimed anew.
    await a.releaseIdempotencyKey({ principal: "teller", key, owner: "t1" });
    assert.equal(await b.readIdempotencyKey({ principal: "teller", key }, now + 1), undefined);
    const error = { error: { code: -32602, message: "bad", data: { x: 1 } } };
    assert.equal(await b.claimIdempotencyKey(claim("t2", { principal: "teller" })), undefined);
    assert.equal(
      await a.finishIdempotencyKey({ principal: "teller", key, owner: "t2" }, error),
      true,
    );
    assert.deepEqual(
      (await b.readIdempotencyKey({ principal: "teller", key }, now))?.outcome,
      error,
    );
    assert.equal(await a.readIdempotencyKey(ref, now + 60_000), undefined, "lapsed at expires");
    const later = { startedAt: now + 60_000, expires: now + 120_000 };
    assert.equal(await b.claimIdempotencyKey(claim("late", later)), undefined);
    assert.equal((await a.readIdempotencyKey(ref, now + 60_001))?.owner, "late");
    assert.equal((await a.readIdempotencyKey(ref, now + 60_001))?.outcome, undefined);
    // Lapsed keys may be forgotten as claims go; a live one never is.
    for (let i = 0; i < 200; i++) {
      await a.claimIdempotencyKey(
        claim(`x${i}`, { key: `lapsed-${i}`, startedAt: now - 2000, expires: now - 1000 }),
      );
    }
    assert.equal((await b.readIdempotencyKey(ref, now + 60_001))?.owner, "late");
  });

  test("round trip: versions, lifecycle, calls and principals survive a reopen", async (h) => {
    await h.writePrincipals(PRINCIPALS);
    const store = await h.open({ now: clock() });
    assert.equal((await store.publish(lookup("1.0.0"))).status, "published");
    assert.equal((await store.publish(withNote("1.1.0"))).status, "published");
    await store.deprecate("payments.lookup", "1.0.0", {
      reason: "use 1.1.0",
      retireAfter: "2026-06-30",
    });
    await store.retire("payments.lookup", "1.0.0", {
      reason: "no callers left",
    });
    const calls = [
      call("1.0.0", { reference: "PMT-000001" }),
      call(
        "1.1.0",
        { reference: "PMT-000002", note: "Überweisung für 𝄞 Ltd" },
        "teller",
      ),
    ];
    assert.equal(await store.appendCalls("payments.lookup", calls), 2);

    const again = await h.open();
    assert.deepEqual(
      again.registry.versions("payments.lookup"),
      store.registry.versions("payments.lookup"),
    );
    assert.deepEqual(
      again.registry.versions("payments.lookup").map((r) => r.history),
      [
        [
          { state: "active", at: "2026-01-05T09:00:01.000Z" },
          {
            state: "deprecated",
            at: "2026-01-05T09:00:03.000Z",
            reason: "use 1.1.0",
            retireAfter: "2026-06-30",
          },
          {
            state: "retired",
            at: "2026-01-05T09:00:04.000Z",
            reason: "no callers left",
          },
        ],
        [{ state: "active", at: "2026-01-05T09:00:02.000Z" }],
      ],
    );
    assert.deepEqual(await collect(again.readCalls("payments.lookup")), calls);
    assert.deepEqual(again.principals(), PRINCIPALS);
    assert.equal(again.principal("teller")?.tenant, "retail");
    assert.equal(again.principal("nobody"), undefined);
  });

  test("an identical republish is already-published; different content is the registry's republish refusal", async (h) => {
    const store = await h.open({ now: clock() });
    await store.publish(lookup("1.0.0"));
    assert.equal(
      (await store.publish(lookup("1.0.0"))).status,
      "already-published",
    );
    const changed = lookup("1.0.0", { title: "Find a payment" });
    const expected = registryRefusal([lookup("1.0.0")], changed);
    const e = await refusal(() => store.publish(changed));
    assert.ok(e instanceof PublishError);
    assert.equal(e.refusal, "republish");
    assert.equal(e.message, expected.message);
    const again = await h.open();
    assert.equal(
      again.registry.latest("payments.lookup")?.title,
      "Look up a payment",
    );
  });

  test("a bump smaller than the change is refused with the registry's PublishError", async (h) => {
    const store = await h.open();
    await store.publish(withNote("1.0.0"));
    const breaking = lookup("1.1.0"); // removes the property note: major
    const expected = registryRefusal([withNote("1.0.0")], breaking);
    const e = await refusal(() => store.publish(breaking));
    assert.ok(e instanceof PublishError);
    assert.equal(e.refusal, "bump-too-small");
    assert.equal(e.message, expected.message);
    assert.deepEqual(e.changes, expected.changes);
    assert.deepEqual(
      (await h.open()).registry.versions("payments.lookup").length,
      1,
    );
    assert.equal((await store.publish(lookup("2.0.0"))).status, "published");
  });

  test("a version not newer than the newest is refused", async (h) => {
    const store = await h.open();
    await store.publish(lookup("1.2.0"));
    const e = await refusal(() => store.publish(lookup("1.1.0")));
    assert.ok(e instanceof PublishError);
    assert.equal(e.refusal, "not-newer");
  });

  test("publish replays the major line's stored calls: a non-major version that rejects them is refused", async (h) => {
    const store = await h.open();
    await store.publish(lookup("1.0.0"));
    await store.appendCalls("payments.lookup", [
      call("1.0.0", { reference: "PMT-000001" }),
      call("1.0.0", { reference: "PMT-000002", note: 7 }),
      call("1.0.0", { reference: "PMT-000003", note: "fine" }),
      call("1.0.0", { reference: "PMT-000004", note: false }, "teller"),
      call("1.0.0", { reference: "PMT-000005", note: [1] }),
      call("1.0.0", { reference: "PMT-000006", note: null }),
      call("1.0.0", { reference: "PMT-000007", note: {} }),
    ]);
    const e = await refusal(() => store.publish(withNote("1.1.0")));
    assert.ok(e instanceof PublishError);
    assert.equal(e.refusal, "corpus-rejected");
    assert.equal(e.rejected.count, 5);
    assert.deepEqual(e.rejected.first.map((r) => r.index), [2, 4, 5]);
    assert.match(e.message, /rejects 5 stored calls/);
    assert.match(e.message, /publish 2\.0\.0/);
    assert.equal(store.registry.latest("payments.lookup")?.version, "1.0.0");
    assert.equal(
      (await h.open()).registry.latest("payments.lookup")?.version,
      "1.0.0",
    );
    assert.equal((await store.publish(withNote("2.0.0"))).status, "published");
  });

  test("deprecate and retire refuse as the registry does, and write nothing", async (h) => {
    const store = await h.open({ now: clock() });
    const e1 = await refusal(() => store.deprecate("payments.lookup", "1.0.0"));
    assert.ok(e1 instanceof LifecycleError, String(e1));
    await store.publish(lookup("1.0.0"));
    await store.retire("payments.lookup", "1.0.0", { reason: "gone" });
    const e2 = await refusal(() => store.retire("payments.lookup", "1.0.0", { reason: "again" }));
    assert.ok(e2 instanceof LifecycleError, String(e2));
    const e3 = await refusal(() => store.deprecate("payments.lookup", "1.0.0"));
    assert.ok(e3 instanceof LifecycleError, String(e3));
    const again = await h.open();
    assert.deepEqual(
      again.registry.versions("payments.lookup")[0].history.map((e) => e.state),
      ["active", "retired"],
    );
  });

  test("writes decide against the store: another writer's version is respected, and refresh() brings it in with events", async (h) => {
    const a = await h.open();
    const b = await h.open();
    await a.publish(lookup("1.0.0"));
    assert.equal((await b.publish(lookup("1.1.0"))).status, "published");
    // a has not seen 1.1.0, yet deciding against the store refuses an older version.
    const e = await refusal(() => a.publish(lookup("1.0.5")));
    assert.ok(e instanceof PublishError);
    assert.equal(e.refusal, "not-newer");
    await b.deprecate("payments.lookup", "1.0.0", { reason: "use 1.1.0" });
    const c = await h.open();
    const events: string[] = [];
    c.registry.subscribe((ev: EstateEvent) => events.push(`${ev.type} ${ev.name}@${ev.version}`));
    await a.publish(lookup("1.2.0"));
    await c.refresh();
    assert.deepEqual(events, ["published payments.lookup@1.2.0"]);
    assert.deepEqual(
      c.registry.versions("payments.lookup").map((
        r,
      ) => [r.spec.version, r.state]),
      [["1.0.0", "deprecated"], ["1.1.0", "active"], ["1.2.0", "active"]],
    );
  });

  test("subscribers hear of this store's publishes and lifecycle changes", async (h) => {
    const store = await h.open();
    const events: string[] = [];
    store.registry.subscribe((e) => events.push(`${e.type} ${e.name}@${e.version}`));
    await store.publish(lookup("1.0.0"));
    await store.deprecate("payments.lookup", "1.0.0", { reason: "r" });
    await store.retire("payments.lookup", "1.0.0", { reason: "r" });
    assert.deepEqual(events, [
      "published payments.lookup@1.0.0",
      "deprecated payments.lookup@1.0.0",
      "retired payments.lookup@1.0.0",
    ]);
  });

  test("two writers publishing the same version at once: exactly one publishes", async (h) => {
    const a = await h.open();
    const b = await h.open();
    await a.publish(lookup("1.0.0"));
    await b.refresh();
    const outcomes = await Promise.allSettled([
      (async () => await a.publish(withNote("1.1.0")))(),
      (async () => await b.publish(lookup("1.1.0", { title: "Other" })))(),
    ]);
    const won = outcomes.filter((o) => o.status === "fulfilled");
    const lost = outcomes.filter((o) => o.status === "rejected");
    assert.equal(won.length, 1, JSON.stringify(outcomes));
    assert.equal(
      (won[0] as PromiseFulfilledResult<{ status: string }>).value.status,
      "published",
    );
    const reason = (lost[0] as PromiseRejectedResult).reason;
    assert.ok(reason instanceof PublishError, String(reason));
    assert.equal(reason.refusal, "republish");
    assert.equal(
      (await h.open()).registry.versions("payments.lookup").length,
      2,
    );
  });

  test("appendCalls refuses a bad call before writing anything, and a tool not published", async (h) => {
    const store = await h.open();
    await store.publish(lookup("1.0.0"));
    await assert.rejects(
      async () =>
        await store.appendCalls("payments.lookup", [
          call("1.0.0", { reference: "x" }),
          {
            version: "1.0.0",
            arguments: {},
            principal: 7,
          } as unknown as StoredCall,
        ]),
      TypeError,
    );
    assert.deepEqual(await collect(store.readCalls("payments.lookup")), []);
    await assert.rejects(async () => await store.appendCalls("nope", [call("1.0.0", {})]));
    assert.equal(await store.appendCalls("payments.lookup", []), 0);
  });

  test("readCalls streams many calls in order", async (h) => {
    const store = await h.open();
    await store.publish(lookup("1.0.0"));
    const calls = Array.from(
      { length: 2500 },
      (_, i) => call("1.0.0", { reference: `PMT-${i}` }),
    );
    await store.appendCalls("payments.lookup", calls.slice(0, 1000));
    await store.appendCalls("payments.lookup", calls.slice(1000));
    let i = 0;
    for await (const c of store.readCalls("payments.lookup")) {
      assert.deepEqual(c, calls[i++]);
    }
    assert.equal(i, calls.length);
  });

  test("callsAfter() from the start equals readCalls, and a second read with its cursor is empty", async (h) => {
    const store = await h.open();
    await store.publish(lookup("1.0.0"));
    const calls = Array.from({ length: 25 }, (_, i) => call("1.0.0", { reference: `PMT-${i}` }));
    await store.appendCalls("payments.lookup", calls);
    const first = await store.callsAfter("payments.lookup");
    assert.deepEqual(first.calls, await collect(store.readCalls("payments.lookup")));
    assert.deepEqual(first.calls, calls);
    assert.equal(first.restarted, false);
    assert.equal(first.more, false);
    const again = await store.callsAfter("payments.lookup", first.cursor);
    assert.deepEqual(again, { calls: [], cursor: first.cursor, restarted: false, more: false });
  });

  test("callsAfter() in batches of a small limit concatenates to readCalls; more is true until the last batch", async (h) => {
    const store = await h.open();
    await store.publish(lookup("1.0.0"));
    const calls = Array.from({ length: 10 }, (_, i) => call("1.0.0", { reference: `PMT-${i}` }));
    await store.appendCalls("payments.lookup", calls);
    for (const limit of [1, 3, 5, 10, 11]) {
      const read: StoredCall[] = [];
      const mores: boolean[] = [];
      let cursor: string | undefined;
      for (;;) {
        const batch = await store.callsAfter("payments.lookup", cursor, { limit });
        assert.equal(batch.restarted, false);
        assert.ok(batch.calls.length <= limit, `limit ${limit}: ${batch.calls.length} calls`);
        read.push(...batch.calls);
        mores.push(batch.more);
        cursor = batch.cursor;
        if (!batch.more) break;
      }
      assert.deepEqual(read, calls, `limit ${limit}`);
      const batches = Math.max(1, Math.ceil(calls.length / limit));
      assert.deepEqual(
        mores,
        Array.from({ length: batches }, (_, i) => i < batches - 1),
        `limit ${limit}`,
      );
    }
    await assert.rejects(
      async () => await store.callsAfter("payments.lookup", undefined, { limit: 0 }),
      RangeError,
    );
  });

  test("callsAfter() after appendCalls returns only the calls appended since, in any store on the estate", async (h) => {
    const a = await h.open(), b = await h.open();
    await a.publish(lookup("1.0.0"));
    await a.appendCalls("payments.lookup", [call("1.0.0", { reference: "PMT-1" })]);
    const first = await a.callsAfter("payments.lookup");
    assert.deepEqual(first.calls, [call("1.0.0", { reference: "PMT-1" })]);
    const later = [
      call("1.0.0", { reference: "PMT-2" }),
      call("1.0.0", { reference: "PMT-3" }, "teller"),
    ];
    await b.appendCalls("payments.lookup", later);
    const second = await a.callsAfter("payments.lookup", first.cursor);
    assert.deepEqual(second.calls, later);
    assert.equal(second.restarted, false);
    // Another store on the same estate reads on from the same cursor.
    assert.deepEqual((await b.callsAfter("payments.lookup", first.cursor)).calls, later);
    assert.deepEqual((await a.callsAfter("payments.lookup", second.cursor)).calls, []);
  });

  test("callsAfter() with a cursor it did not give (nonsense, another tool's) reads from the start, restarted", async (h) => {
    const store = await h.open();
    await store.publish(lookup("1.0.0"));
    await store.publish({ ...lookup("1.0.0"), name: "payments.status" });
    const calls = [call("1.0.0", { reference: "PMT-1" }), call("1.0.0", { reference: "PMT-2" })];
    await store.appendCalls("payments.lookup", calls);
    await store.appendCalls("payments.status", calls);
    const other = await store.callsAfter("payments.status", undefined, { limit: 1 });
    for (
      const cursor of [
        "nonsense",
        "",
        "pg:12x",
        "file:1:1:2:3",
        "pg:99999999999999999999",
        "pg:-1",
        other.cursor,
      ]
    ) {
      const read = await store.callsAfter("payments.lookup", cursor);
      assert.equal(read.restarted, true, JSON.stringify(cursor));
      assert.deepEqual(read.calls, calls, JSON.stringify(cursor));
      assert.equal(read.more, false);
      const next = await store.callsAfter("payments.lookup", read.cursor);
      assert.deepEqual(next, { calls: [], cursor: read.cursor, restarted: false, more: false });
    }
  });

  test("callsAfter() of a tool with no calls: none, and its cursor then reads the first calls appended", async (h) => {
    const store = await h.open();
    const none = await store.callsAfter("payments.lookup");
    assert.deepEqual(none.calls, []);
    assert.equal(none.restarted, false);
    assert.equal(none.more, false);
    await store.publish(lookup("1.0.0"));
    const published = await store.callsAfter("payments.lookup", none.cursor);
    assert.deepEqual([published.calls, published.restarted], [[], false]);
    await store.appendCalls("payments.lookup", [call("1.0.0", { reference: "PMT-1" })]);
    const read = await store.callsAfter("payments.lookup", published.cursor);
    assert.deepEqual(read.calls, [call("1.0.0", { reference: "PMT-1" })]);
    assert.equal(read.restarted, false);
  });

  test("servers: registered, kept, and a record listing another server's tool is refused", async (h) => {
    const store = await h.open();
    assert.equal((await store.registerServer(SERVER)).status, "registered");
    assert.equal((await store.registerServer(SERVER)).status, "unchanged");
    await assert.rejects(
      async () => await store.registerServer({ ...SERVER, id: "other-mcp" }),
      /crm\.customer\.get/,
    );
    const changed = {
      ...SERVER,
      description: "The CRM team's MCP server, moved.",
    };
    await assert.rejects(async () => await store.registerServer(changed));
    assert.equal(
      (await store.registerServer(changed, { update: true })).status,
      "updated",
    );
    const again = await h.open();
    assert.equal(
      again.registry.serverFor("crm.customer.get")?.description,
      changed.description,
    );
    assert.deepEqual(again.registry.servers().map((s) => s.id), ["crm-mcp"]);
  });

  test("drift records append and read back in order", async (h) => {
    const store = await h.open();
    assert.deepEqual(await collect(store.readDrift()), []);
    assert.equal(await store.appendDrift(DRIFT.slice(0, 1)), 1);
    assert.equal(await store.appendDrift(DRIFT.slice(1)), 1);
    assert.deepEqual(await collect((await h.open()).readDrift()), DRIFT);
  });

  test("refreshPrincipals() takes in changed principals", async (h) => {
    await h.writePrincipals(PRINCIPALS);
    const store = await h.open();
    assert.equal(await store.refreshPrincipals(), false);
    await h.writePrincipals([PRINCIPALS[1]]);
    assert.equal(await store.refreshPrincipals(), true);
    assert.deepEqual(store.principals().map((p) => p.id), ["teller"]);
  });

  if (options.watch !== false) {
    test("watch() hears of another writer's publish", async (h) => {
      const a = await h.open();
      const b = await h.open();
      const heard: string[] = [];
      let wake = () => {};
      const watch = await a.watch((change) => {
        heard.push(change.kind);
        wake();
      });
      try {
        const woke = new Promise<void>((resolve) => wake = resolve);
        await b.publish(lookup("1.0.0"));
        let timer: ReturnType<typeof setTimeout> | undefined;
        await Promise.race([
          woke,
          new Promise((_, reject) => {
            timer = setTimeout(
              () => reject(new Error("no change heard in 5s")),
              5000,
            );
          }),
        ]).finally(() => clearTimeout(timer));
        assert.ok(
          heard.includes("tools") || heard.includes("unknown"),
          heard.join(),
        );
        await a.refresh();
        assert.equal(a.registry.latest("payments.lookup")?.version, "1.0.0");
      } finally {
        await watch.close();
      }
    });
  }
}
