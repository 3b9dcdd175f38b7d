import assert from "node:assert/strict";
import {
  type EstateEvent,
  LifecycleError,
  type Principal,
  PublishError,
  type StoredCall,
  ToolRegistry,
  type ToolSpec,
} from "../mod.ts";

const v1: ToolSpec = {
  name: "payments.lookup",
  version: "1.0.0",
  title: "Look up a payment",
  description:
    "Returns the status of a wholesale payment by its reference. Reads the payments system of record.",
  inputSchema: {
    type: "object",
    properties: {
      reference: { type: "string" },
      currency: { type: "string", enum: ["EUR", "GBP"] },
    },
    required: ["reference"],
  },
  sideEffect: "read",
  requiredScopes: ["payments:read"],
  dataClassification: "confidential",
  tenants: ["wholesale"],
  owner: "payments-platform",
};

const withSchema = (
  version: string,
  inputSchema: ToolSpec["inputSchema"],
): ToolSpec => ({
  ...v1,
  version,
  inputSchema,
});
const props = (v1.inputSchema as { properties: Record<string, unknown> }).properties;
const fixedClock = () => new Date("2026-11-30T09:00:00Z");

function refusal(f: () => unknown): PublishError {
  try {
    f();
  } catch (e) {
    if (e instanceof PublishError) return e;
    throw e;
  }
  assert.fail("expected a PublishError");
}

Deno.test("publish() refuses a breaking change published as a minor bump, naming the fix", () => {
  const r = new ToolRegistry();
  r.publish(v1);
  const e = refusal(() =>
    r.publish(
      withSchema("1.1.0", {
        type: "object",
        properties: { reference: props.reference },
        required: ["reference"],
      }),
    )
  );
  assert.equal(e.refusal, "bump-too-small");
  assert.match(
    e.message,
    /^Cannot publish payments\.lookup@1\.1\.0: change is major \(removed property currency at \$\.properties\.currency\); publish 2\.0\.0, not 1\.1\.0$/,
  );
  assert.equal(e.changes[0].kind, "property-removed");
  assert.equal(
    r.publish(
      withSchema("2.0.0", {
        type: "object",
        properties: { reference: props.reference },
        required: ["reference"],
      }),
    ).status,
    "published",
  );
});

Deno.test("publish() allows over-bumping and demands exactly the classified bump", () => {
  const r = new ToolRegistry();
  r.publish(v1);
  const widened = withSchema("1.1.0", {
    ...v1.inputSchema as object,
    properties: { ...props, channel: { type: "string" } },
  });
  assert.equal(
    refusal(() => r.publish({ ...widened, version: "1.0.1" })).refusal,
    "bump-too-small",
  );
  assert.equal(r.publish(widened).plan.bump, "minor");
  assert.equal(
    r.publish({ ...widened, version: "3.0.0", title: "Over-bumped" }).status,
    "published",
  );
  assert.equal(
    r.publish({ ...widened, version: "3.0.1", title: "Retitled" }).plan.bump,
    "patch",
  );
});

Deno.test("publish() keeps versions immutable: identical is already published, different is refused", () => {
  const r = new ToolRegistry();
  r.publish(v1);
  assert.equal(r.publish(structuredClone(v1)).status, "already-published");
  const e = refusal(() => r.publish({ ...v1, description: "Changed." }));
  assert.equal(e.refusal, "republish");
  assert.match(
    e.message,
    /already published with different content.*immutable; publish 1\.0\.1 \(a patch change against 1\.0\.0\)/,
  );
  assert.equal(
    r.versions("payments.lookup")[0].spec.description,
    v1.description,
  );
});

Deno.test("publish() suggests, for a refused republish, a version the next publish accepts", () => {
  const r = new ToolRegistry();
  r.publish(v1);
  r.publish({ ...v1, version: "1.1.0" });
  // 1.1.0 again, with a breaking change: not 1.1.1 (which would then need 2.0.0), but 2.0.0.
  const breaking = {
    ...v1,
    version: "1.1.0",
    inputSchema: { type: "object", properties: {} },
  };
  const e = refusal(() => r.publish(breaking));
  assert.equal(e.refusal, "republish");
  const hint = /publish (\d+\.\d+\.\d+) \(a major change against 1\.1\.0\)/
    .exec(e.message)?.[1];
  assert.equal(hint, "2.0.0", e.message);
  assert.equal(r.publish({ ...breaking, version: hint }).status, "published");
  // A version below the newest gets the same kind of hint.
  const low = refusal(() => r.publish({ ...breaking, version: "1.5.0", title: "T" }));
  assert.equal(low.refusal, "not-newer");
  assert.match(low.message, /publish 2\.0\.1 \(a patch change against it\)/);
});

Deno.test("publish() refuses a version not newer than the newest published", () => {
  const r = new ToolRegistry();
  r.publish({ ...v1, version: "1.2.0" });
  const e = refusal(() => r.publish({ ...v1, version: "1.1.5" }));
  assert.equal(e.refusal, "not-newer");
  assert.match(
    e.message,
    /not newer than the newest published version 1\.2\.0; publish 1\.2\.1 \(a patch change against it\)/,
  );
});

Deno.test("publish() fails closed on a schema the validator cannot enforce", () => {
  const r = new ToolRegistry();
  const e = refusal(() =>
    r.publish(
      withSchema("1.0.0", {
        type: "object",
        properties: { a: { $ref: "https://x.example/a.json" } },
      }),
    )
  );
  assert.equal(e.refusal, "unsafe-schema");
  assert.match(e.message, /remote \$ref/);
  assert.equal(e.issues.length, 1);
  assert.equal(
    refusal(() => r.publish(withSchema("1.0.0", { type: "string" }))).refusal,
    "unsafe-schema",
  );
  assert.deepEqual(r.names(), []);
});

Deno.test("publish() replays the major line's stored calls for a non-major bump and refuses on any rejection", () => {
  // Stored calls the classifier cannot know about: 1.x traffic that relied on sending a number as
  // the reference (accepted by 1.0.0's open schema), and 0.x traffic, which is not replayed.
  const open = withSchema("1.0.0", {
    type: "object",
    properties: { reference: {} },
    required: ["reference"],
  });
  const calls: StoredCall[] = [
    ...Array.from({ length: 37 }, (_, i) => ({
      version: i % 2 ? "1.0.0" : "1.1.0",
      arguments: { reference: 771 + i },
      principal: i % 3 ? "retail-agent" : "wholesale-operator",
      at: `2026-11-${String(1 + (i % 28)).padStart(2, "0")}T10:00:00Z`,
    })),
    {
      version: "1.0.0",
      arguments: { reference: "PMT-000771" },
      principal: "ops",
      at: "2026-11-02T00:00:00Z",
    },
    {
      version: "0.9.0",
      arguments: { legacy: true },
      principal: "old-agent",
      at: "2026-01-01T00:00:00Z",
    },
  ];
  let replays = 0;
  const r = new ToolRegistry({
    storedCalls: (name) => {
      replays++;
      return name === "payments.lookup" ? calls : [];
    },
  });
  r.publish(open);
  // Narrowing `reference` to strings is major, so 1.1.0 is refused for the bump, and the plan
  // also counts the stored calls it would break.
  const narrowed = withSchema("1.1.0", {
    type: "object",
    properties: { reference: { type: "string" } },
    required: ["reference"],
  });
  const e = refusal(() => r.publish(narrowed));
  assert.equal(e.refusal, "bump-too-small");
  assert.equal(e.rejected.count, 37);
  assert.equal(e.rejected.first.length, 3);
  assert.match(
    e.message,
    /rejects 37 stored calls that 1\.x callers made \(first: call 1 \(wholesale-operator, 2026-11-01T10:00:00Z\): \$\.reference expected string, got integer/,
  );
  assert.match(e.message, /accept them, or publish 2\.0\.0$/);
  // A major bump is not replayed: pinned 1.x callers keep 1.x.
  const before = replays;
  assert.equal(
    r.publish({ ...narrowed, version: "2.0.0" }).status,
    "published",
  );
  assert.equal(replays, before);
});

Deno.test("publish() refuses a patch when stored calls the old version never accepted would fail", () => {
  // Calls imported from before the estate existed: stored against 1.0.0 but invalid under it.
  // The classifier calls a retitle a patch; the corpus replay is the contract test that still runs.
  const calls: StoredCall[] = [
    {
      version: "1.0.0",
      arguments: { reference: "PMT-1", currency: "USD" },
      principal: "import",
      at: "2025-12-31T23:59:59Z",
    },
  ];
  const r = new ToolRegistry({ storedCalls: () => calls });
  r.restore({ spec: v1, history: [] });
  const e = refusal(() => r.publish({ ...v1, version: "1.0.1", title: "Retitled" }));
  assert.equal(e.refusal, "corpus-rejected");
  assert.match(
    e.message,
    /rejects 1 stored call that 1\.x callers made \(first: call 1 \(import, 2025-12-31T23:59:59Z\): \$\.currency must be one of "EUR", "GBP"\)/,
  );
  assert.equal(r.versions("payments.lookup").length, 1);
});

Deno.test("lifecycle: deprecated is never latest but resolves by pin; retired never resolves", () => {
  const r = new ToolRegistry({ now: fixedClock });
  r.publish(v1);
  r.publish({ ...v1, version: "1.1.0", title: "Minor" });
  r.publish({
    ...v1,
    version: "2.0.0",
    inputSchema: {
      type: "object",
      properties: { reference: { type: "string" } },
      required: ["reference"],
    },
  });
  r.deprecate("payments.lookup", "1.1.0", {
    reason: "superseded by 2.0.0",
    retireAfter: "2027-03-31",
  });
  assert.equal(r.latest("payments.lookup")?.version, "2.0.0");
  assert.equal(r.resolve("payments.lookup", "^1.0.0")?.version, "1.0.0"); // newest active match first
  assert.equal(r.resolve("payments.lookup", "~1.1.0")?.version, "1.1.0"); // only the deprecated one matches
  assert.equal(r.resolve("payments.lookup", "*")?.version, "2.0.0");
  r.deprecate("payments.lookup", "2.0.0");
  assert.equal(r.latest("payments.lookup")?.version, "1.0.0");
  r.retire("payments.lookup", "1.1.0", { reason: "window closed" });
  assert.equal(r.resolve("payments.lookup", "~1.1.0"), undefined);
  const history = r.versions("payments.lookup")[1].history;
  // version(): one version's record, whatever its state, as versions() has it.
  assert.deepEqual(r.version("payments.lookup", "1.1.0"), r.versions("payments.lookup")[1]);
  assert.equal(r.version("payments.lookup", "1.1.0")?.state, "retired");
  assert.equal(r.version("payments.lookup", "9.9.9"), undefined);
  assert.deepEqual(history.map((h) => h.state), [
    "active",
    "deprecated",
    "retired",
  ]);
  assert.deepEqual(history[1], {
    state: "deprecated",
    at: "2026-11-30T09:00:00.000Z",
    reason: "superseded by 2.0.0",
    retireAfter: "2027-03-31",
  });
  assert.throws(() => r.deprecate("payments.lookup", "1.1.0"), LifecycleError);
  assert.throws(() => r.retire("payments.lookup", "1.1.0"), /already retired/);
  assert.throws(
    () => r.deprecate("payments.lookup", "9.9.9"),
    /no such published version/,
  );
  assert.throws(() => r.resolve("payments.lookup", "not a range"), TypeError);
});

Deno.test("discover() lists, per name in order, the newest active version the principal may see", () => {
  const r = new ToolRegistry();
  const retail: Principal = {
    id: "retail-agent",
    scopes: ["transfers:read", "crm:read"],
    tenant: "retail",
    clearance: "confidential",
  };
  const operator: Principal = {
    id: "wholesale-operator",
    scopes: ["payments:read", "payments:release"],
    tenant: "wholesale",
    clearance: "restricted",
  };
  r.publish(v1);
  r.publish({
    ...v1,
    version: "1.1.0",
    title: "Needs a new scope",
    requiredScopes: ["payments:read", "payments:history"],
  });
  r.publish({
    ...v1,
    name: "payments.release",
    sideEffect: "irreversible",
    requiredScopes: ["payments:release"],
    dataClassification: "restricted",
  });
  r.publish({
    ...v1,
    name: "crm.customer.get",
    requiredScopes: ["crm:read"],
    tenants: ["retail", "group"],
  });
  r.publish({
    ...v1,
    name: "retail.transfers.lookup",
    requiredScopes: ["transfers:read"],
    tenants: ["retail"],
  });
  r.publish({
    ...v1,
    name: "policy.search",
    requiredScopes: [],
    tenants: [],
    dataClassification: "public",
  });
  const seen = (p: Principal) => r.discover(p).map((s) => `${s.name}@${s.version}`);
  assert.deepEqual(seen(retail), [
    "crm.customer.get@1.0.0",
    "policy.search@1.0.0",
    "retail.transfers.lookup@1.0.0",
  ]);
  // The operator lacks payments:history, so sees the older active payments.lookup.
  assert.deepEqual(seen(operator), [
    "payments.lookup@1.0.0",
    "payments.release@1.0.0",
    "policy.search@1.0.0",
  ]);
  r.deprecate("payments.lookup", "1.0.0");
  assert.deepEqual(seen(operator), [
    "payments.release@1.0.0",
    "policy.search@1.0.0",
  ]);
});

Deno.test("subscribe() reports publishes, deprecations and retirements, and unsubscribes", () => {
  const r = new ToolRegistry();
  const events: EstateEvent[] = [];
  const off = r.subscribe((e) => events.push(e));
  r.publish(v1);
  r.publish(v1); // identical: no event
  r.deprecate("payments.lookup", "1.0.0");
  r.retire("payments.lookup", "1.0.0");
  off();
  r.publish({ ...v1, version: "1.0.1", title: "After unsubscribe" });
  assert.deepEqual(events.map((e) => `${e.type} ${e.name}@${e.version}`), [
    "published payments.lookup@1.0.0",
    "deprecated payments.lookup@1.0.0",
    "retired payments.lookup@1.0.0",
  ]);
});

Deno.test("restore() loads reviewed versions without re-running publish rules, but keeps immutability", () => {
  const r = new ToolRegistry();
  r.restore({
    spec: { ...v1, version: "2.0.0" },
    history: [{ state: "active", at: "2026-01-01T00:00:00Z" }],
  });
  r.restore({
    spec: v1,
    history: [{ state: "active", at: "2025-01-01T00:00:00Z" }, {
      state: "deprecated",
      at: "2026-01-01T00:00:00Z",
    }],
  });
  assert.deepEqual(
    r.versions("payments.lookup").map((v) => `${v.spec.version} ${v.state}`),
    [
      "1.0.0 deprecated",
      "2.0.0 active",
    ],
  );
  assert.throws(
    () => r.restore({ spec: { ...v1, title: "x" }, history: [] }),
    PublishError,
  );
});
