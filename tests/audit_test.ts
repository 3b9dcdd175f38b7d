/**
 * The audit log's pure core (lib/estate/audit.ts, audit_checkpoint.ts): the chain, what
 * `verifyAuditChain` names for each kind of tampering, signed checkpoints with keys in PEM and JWK,
 * redaction (no credentials, no classified argument values), and the server's call decisions as
 * events (lib/mcp/_call_audit.ts), through `callTool` itself.
 */
import assert from "node:assert/strict";
import { createHash, generateKeyPairSync } from "node:crypto";
import {
  auditArguments,
  type AuditEvent,
  auditHashText,
  type AuditRecord,
  type AuditSettings,
  EMPTY_AUDIT_HEAD,
  estateConfigProblems,
  generateAuditKeys,
  importAuditKey,
  normalizeAuditEvent,
  sealAudit,
  sealAuditWith,
  signAuditCheckpoint,
  verifyAuditChain,
} from "../mod.ts";
import { CALL_DECISIONS, callAuditEvents } from "../lib/mcp/_call_audit.ts";
import { callTool } from "../lib/mcp/_call_tool.ts";
import type { Caller, ServerCore } from "../lib/mcp/_server_core.ts";
import { RequestStateSeal } from "../lib/mcp/_request_state.ts";
import { memoryIdempotencyStore } from "../lib/estate/idempotency.ts";
import type { RequestContext } from "../lib/jsonrpc/peer_types.ts";
import { estate, OPERATOR, RETAIL } from "./_mcp_fixtures.ts";

const T0 = Date.parse("2026-12-01T09:00:00.000Z");

/** `n` events at one-minute steps, of assorted kinds. */
function events(n: number): AuditEvent[] {
  const kinds = ["publish", "deprecate", "call", "approval"] as const;
  return Array.from({ length: n }, (_, i) => ({
    kind: kinds[i % kinds.length],
    at: new Date(T0 + i * 60_000).toISOString(),
    principal: i % 2 ? "ana" : "ben",
    tool: "fx.quote",
    version: "1.0.0",
    detail: { i },
  }));
}

async function chain(n: number): Promise<AuditRecord[]> {
  return await sealAudit(EMPTY_AUDIT_HEAD, events(n));
}

async function broken(records: AuditRecord[], options = {}) {
  const verdict = await verifyAuditChain(records, options);
  assert.equal(verdict.ok, false, "expected a broken chain");
  return verdict as Extract<typeof verdict, { ok: false }>;
}

Deno.test("sealAudit() chains records: seq from 1, prev the predecessor's hash, hash over the canonical JSON", async () => {
  const records = await chain(3);
  assert.deepEqual(records.map((r) => r.seq), [1, 2, 3]);
  assert.equal(records[0].prev, "0".repeat(64));
  assert.equal(records[1].prev, records[0].hash);
  assert.equal(records[2].prev, records[1].hash);
  // The hash is SHA-256 of the canonical JSON of every field but hash, as any platform computes it.
  for (const r of records) {
    assert.equal(r.hash, createHash("sha256").update(auditHashText(r)).digest("hex"));
  }
  // Key order does not matter: the text is canonical.
  const shuffled = Object.fromEntries(Object.entries(records[1]).reverse()) as AuditRecord;
  assert.equal(auditHashText(shuffled), auditHashText(records[1]));
  // A synchronous hash gives the same chain (the folder store's).
  const sync = sealAuditWith(EMPTY_AUDIT_HEAD, events(3), {
    sha256: (t) => createHash("sha256").update(t, "utf8").digest("hex"),
  });
  assert.deepEqual(sync, records);
  // Appending after a head continues the chain.
  const more = await sealAudit(records[2], events(1));
  assert.equal(more[0].seq, 4);
  assert.equal(more[0].prev, records[2].hash);
  const verdict = await verifyAuditChain([...records, ...more]);
  assert.deepEqual(verdict, {
    ok: true,
    records: 4,
    head: { seq: 4, hash: more[0].hash },
    checkpoints: 0,
    signed: false,
  });
});

Deno.test("verifyAuditChain() names an edited record", async () => {
  const records = await chain(5);
  records[2] = { ...records[2], detail: { i: 99 } };
  const v = await broken(records);
  assert.equal(v.reason, "edited");
  assert.equal(v.seq, 3);
  assert.equal(v.index, 2);
  assert.match(v.message, /record 3 .* does not match its hash: it was edited/);
});

Deno.test("verifyAuditChain() names a record edited and re-hashed by the one after it (unlinked)", async () => {
  const records = await chain(5);
  const edited = { ...records[2], principal: "mallory" };
  edited.hash = createHash("sha256").update(auditHashText(edited)).digest("hex");
  records[2] = edited;
  const v = await broken(records);
  assert.equal(v.reason, "unlinked");
  assert.equal(v.seq, 4);
});

Deno.test("verifyAuditChain() names deleted records: a gap in seq", async () => {
  const records = await chain(6);
  const one = await broken([...records.slice(0, 2), ...records.slice(3)]);
  assert.equal(one.reason, "deleted");
  assert.equal(one.seq, 3);
  assert.match(one.message, /record 3 is missing/);
  const two = await broken([...records.slice(0, 2), ...records.slice(4)]);
  assert.equal(two.reason, "deleted");
  assert.match(two.message, /records 3 to 4 are missing/);
  // The record deleted last before the end is a gap too.
  const last = await broken([...records.slice(0, 4), records[5]]);
  assert.equal(last.reason, "deleted");
  assert.equal(last.seq, 5);
  // Deleted and renumbered: the chain does not link.
  const renumbered = await sealAudit(EMPTY_AUDIT_HEAD, events(2));
  const rest = records.slice(3).map((r, i) => ({ ...r, seq: 3 + i }));
  const v = await broken([...renumbered, ...rest]);
  assert.ok(v.reason === "edited" || v.reason === "unlinked", v.reason);
});

Deno.test("verifyAuditChain() names reordered records", async () => {
  const records = await chain(5);
  const swapped = [records[0], records[2], records[1], records[3], records[4]];
  const v = await broken(swapped);
  assert.equal(v.reason, "reordered");
  assert.equal(v.seq, 2);
  const repeated = await broken([records[0], records[1], records[1], records[2]]);
  assert.equal(repeated.reason, "reordered");
});

Deno.test("verifyAuditChain() names a truncated log: a signed checkpoint beyond the end, or a head that changed", async () => {
  const { privatePem, publicPem } = await generateAuditKeys();
  const privateKey = await importAuditKey(privatePem, "sign");
  const publicKey = await importAuditKey(publicPem, "verify");
  const records = await chain(6);
  const checkpoint = await signAuditCheckpoint(records[4], {
    privateKey,
    at: "2026-12-02T00:00:00.000Z",
  });
  const whole = await verifyAuditChain(records, { checkpoints: [checkpoint], publicKey });
  assert.equal(whole.ok, true);
  assert.equal(whole.ok && whole.signed, true);
  // Without a checkpoint a cut end cannot be told.
  assert.equal((await verifyAuditChain(records.slice(0, 3))).ok, true);
  const cut = await broken(records.slice(0, 3), { checkpoints: [checkpoint], publicKey });
  assert.equal(cut.reason, "truncated");
  assert.equal(cut.seq, 5);
  assert.match(cut.message, /signed record 5, but the log ends at record 3: it was truncated/);
  // Cut and written again from record 4: record 5 exists, but it is not the one signed.
  const rewritten = [...records.slice(0, 3), ...await sealAudit(records[2], events(3))];
  const again = await broken(rewritten, { checkpoints: [checkpoint], publicKey });
  assert.equal(again.reason, "truncated");
  assert.equal(again.seq, 5);
  assert.match(again.message, /written again/);
  // A checkpoint not signed by the key (forged, or its seq moved) is named.
  const forged = await broken(records, { checkpoints: [{ ...checkpoint, seq: 6 }], publicKey });
  assert.equal(forged.reason, "signature");
  const other = await importAuditKey((await generateAuditKeys()).publicPem, "verify");
  assert.equal(
    (await broken(records, { checkpoints: [checkpoint], publicKey: other })).reason,
    "signature",
  );
});

Deno.test("verifyAuditChain() names a malformed record", async () => {
  const records = await chain(3);
  const v = await broken([records[0], { ...records[1], seq: "2" } as unknown as AuditRecord]);
  assert.equal(v.reason, "malformed");
  assert.equal(v.seq, 2);
});

Deno.test("importAuditKey() reads PKCS #8 / SPKI PEM (from OpenSSL-style files) and JWK; a private key's file verifies too", async () => {
  const pair = generateKeyPairSync("ed25519");
  const privatePem = pair.privateKey.export({ type: "pkcs8", format: "pem" }) as string;
  const publicPem = pair.publicKey.export({ type: "spki", format: "pem" }) as string;
  const privateJwk = JSON.stringify(pair.privateKey.export({ format: "jwk" }));
  const publicJwk = JSON.stringify(pair.publicKey.export({ format: "jwk" }));
  const head = { seq: 7, hash: "b".repeat(64) };
  for (const signing of [privatePem, privateJwk]) {
    const checkpoint = await signAuditCheckpoint(head, {
      privateKey: await importAuditKey(signing, "sign"),
    });
    for (const verifying of [publicPem, publicJwk, privatePem, privateJwk]) {
      const records = [] as AuditRecord[];
      const v = await verifyAuditChain(records, {
        checkpoints: [checkpoint],
        publicKey: await importAuditKey(verifying, "verify"),
      });
      // The signature verifies; the checkpoint lies beyond this empty log.
      assert.equal(v.ok ? "ok" : v.reason, "truncated");
    }
  }
  await assert.rejects(importAuditKey(publicPem, "sign"), /signing needs a PRIVATE KEY/);
  await assert.rejects(importAuditKey(publicJwk, "sign"), /public key/);
  await assert.rejects(importAuditKey("hello", "verify"), /neither a JWK nor PEM/);
  const rsa = generateKeyPairSync("rsa", { modulusLength: 1024 });
  await assert.rejects(
    importAuditKey(JSON.stringify(rsa.publicKey.export({ format: "jwk" })), "verify"),
    /not an Ed25519 key/,
  );
});

Deno.test("normalizeAuditEvent() drops every field named like a credential, at any depth; refuses what is not an event", () => {
  const e = normalizeAuditEvent({
    kind: "call",
    detail: {
      token: "s3cr3t",
      headers: { Authorization: "Bearer abc", accept: "json" },
      list: [{ accessToken: "x", requestState: "y", ok: 1 }],
      note: "fine",
    },
  }, () => new Date(T0));
  assert.deepEqual(e.detail, { headers: { accept: "json" }, list: [{ ok: 1 }], note: "fine" });
  assert.equal(e.at, "2026-12-01T09:00:00.000Z");
  assert.throws(
    () => normalizeAuditEvent({ kind: "nope" as "call" }, () => new Date()),
    /kind must be one of/,
  );
  assert.throws(
    () => normalizeAuditEvent({ kind: "call", detail: { n: NaN } }, () => new Date()),
    /detail is not JSON/,
  );
});

Deno.test("auditArguments(): values for public and internal tools; nothing, or only a SHA-256, for confidential and restricted", async () => {
  const args = { reference: "PMT-000042", iban: "DE89370400440532013000" };
  assert.deepEqual(await auditArguments("public", args), { arguments: args });
  assert.deepEqual(await auditArguments("internal", { ...args, token: "t" }), { arguments: args });
  for (const c of ["confidential", "restricted"] as const) {
    assert.deepEqual(await auditArguments(c, args), {});
    assert.deepEqual(await auditArguments(c, args, { classifiedArguments: "omit" }), {});
    const digested = await auditArguments(c, args, { classifiedArguments: "sha256" });
    assert.deepEqual(Object.keys(digested), ["argumentsSha256"]);
    // The digest of the canonical JSON: key order does not change it.
    assert.deepEqual(
      await auditArguments(c, { iban: args.iban, reference: args.reference }, {
        classifiedArguments: "sha256",
      }),
      digested,
    );
  }
  assert.deepEqual(estateConfigProblems({ audit: { classifiedArguments: "sha256" } }), []);
  assert.deepEqual(estateConfigProblems({ audit: { classifiedArguments: "values", x: 1 } }), [
    'audit.classifiedArguments must be omit or sha256, got "values"',
    "unknown field audit.x",
  ]);
});

Deno.test("callAuditEvents(): every outcome has a decision; a confirmation comes first", async () => {
  assert.deepEqual(
    Object.entries(CALL_DECISIONS).filter(([, d]) => d === "refused").map(([o]) => o).sort(),
    ["declined", "insufficient-scope", "invalid-arguments", "key-refused"],
  );
  const got = await callAuditEvents({
    principal: "ops",
    tool: "payments.release",
    version: "1.0.0",
    outcome: "ok",
    durationMs: 3,
    at: "2026-12-01T09:00:00.000Z",
    arguments: { reference: "PMT-000042" },
    confirmation: { by: "ops", at: "2026-12-01T09:00:01.000Z", action: "accept" },
  }, "restricted");
  assert.deepEqual(got.map((e) => [e.kind, e.detail?.decision]), [
    ["confirmation", undefined],
    ["call", "allowed"],
  ]);
  assert.equal(JSON.stringify(got).includes("PMT-000042"), false);
});

/** A server core whose audit sink keeps what it is given. */
function auditedCore(settings: AuditSettings = {}): { core: ServerCore; audited: AuditEvent[] } {
  const audited: AuditEvent[] = [];
  const keys = memoryIdempotencyStore();
  let t = T0;
  return {
    core: {
      options: {
        registry: estate(),
        handlerFor: () => (args) => ({ echoed: args }),
        limiter: {
          admit: ({ principal }: { principal: string }) =>
            principal === RETAIL.id
              ? {
                limit: "policy.search: 1 call an hour",
                calls: 1,
                per: "hour",
                retryAfterSeconds: 60,
                resetsAt: "2026-12-01T10:00:00.000Z",
              }
              : undefined,
        } as never,
        audit: { append: (e) => audited.push(e), settings: () => settings },
      },
      pageSize: 50,
      now: () => (t += 10),
      closed: new AbortController().signal,
      addListener: () => () => {},
      requestStates: () => new RequestStateSeal(new Uint8Array(32)),
      idempotency: () => keys,
    },
    audited,
  };
}

function caller(principal: typeof OPERATOR, token?: string): Caller {
  return {
    principal: token ? { ...principal, token } as typeof OPERATOR : principal,
    protocolVersion: "2025-11-25",
    clientCapabilities: {},
    notify: () => {},
    logLevel: undefined,
    tools: undefined,
    outcomes: new Map(),
  };
}

function context(id: number): RequestContext {
  return {
    id,
    method: "tools/call",
    signal: new AbortController().signal,
    progressToken: undefined,
    progress: () => {},
    notify: () => Promise.resolve(),
    request: () => Promise.reject(new Error("no client in this test")),
  };
}

/** Lets the sink's asynchronous hand-over finish. */
const settle = () => new Promise((r) => setTimeout(r, 20));

Deno.test("the server hands each call decision to its audit sink: allowed, refused, rate-limited; no token, no restricted argument values", async () => {
  const { core, audited } = auditedCore();
  const call = (principal: typeof OPERATOR, params: Record<string, unknown>, id: number) =>
    callTool(core, { caller: caller(principal, "tok-SECRET-123"), params, context: context(id) })
      .catch(() => undefined);
  // Allowed: a restricted write (its arguments never recorded) and an internal read (recorded).
  await call(OPERATOR, { name: "payments.release", arguments: { reference: "PMT-424242" } }, 1);
  await call(OPERATOR, { name: "policy.search", arguments: { reference: "PMT-000001" } }, 2);
  // Refused: a hidden tool, and invalid arguments.
  await call(RETAIL, { name: "payments.release", arguments: { reference: "PMT-777777" } }, 3);
  await call(OPERATOR, { name: "policy.search", arguments: { reference: 1 } }, 4);
  // Rate-limited: the limiter refuses the retail agent.
  await call(RETAIL, { name: "policy.search", arguments: { reference: "PMT-000002" } }, 5);
  await settle();
  const calls = audited.filter((e) => e.kind === "call");
  assert.deepEqual(
    calls.map((e) => [e.principal, e.tool, e.detail?.decision, e.detail?.outcome]).sort(),
    [
      ["retail-agent", "payments.release", "refused", "hidden-tool"],
      ["retail-agent", "policy.search", "rate-limited", "rate-limited"],
      ["wholesale-operator", "payments.release", "allowed", "ok"],
      ["wholesale-operator", "policy.search", "allowed", "ok"],
      ["wholesale-operator", "policy.search", "refused", "invalid-arguments"],
    ].sort(),
  );
  const text = JSON.stringify(audited);
  assert.equal(text.includes("tok-SECRET-123"), false);
  assert.equal(text.includes("PMT-424242"), false); // restricted: no values
  assert.equal(text.includes("PMT-777777"), false); // a refused call's arguments are not kept
  assert.equal(text.includes("PMT-000001"), true); // internal: as sent
  // With the estate's say-so, a restricted tool's arguments are recorded as a SHA-256 only.
  const digest = auditedCore({ classifiedArguments: "sha256" });
  await callTool(digest.core, {
    caller: caller(OPERATOR),
    params: { name: "payments.release", arguments: { reference: "PMT-424242" } },
    context: context(9),
  });
  await settle();
  const [released] = digest.audited;
  assert.match(String(released.detail?.argumentsSha256), /^[0-9a-f]{64}$/);
  assert.equal(JSON.stringify(digest.audited).includes("PMT-424242"), false);
});
