/**
 * The server directory in the registry: exactly one server serves a tool name, a different record
 * under a registered id only as an update, events like a publish's — and publish refuses a spec
 * that names a server the estate does not record, or one whose record does not list it.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  checkDraft,
  type EstateEvent,
  parseServerRecord,
  PublishError,
  type ServerRecord,
  ServerRecordError,
  ServerRegistrationError,
  ToolRegistry,
  type ToolSpec,
} from "../mod.ts";

const HASH = "a".repeat(64);

function record(
  id: string,
  tools: string[],
  changes: Partial<ServerRecord> = {},
): ServerRecord {
  return {
    id,
    owner: `${id}-team`,
    description: `The ${id} MCP server.`,
    upstream: {
      kind: "http",
      url: `https://${id}.internal:8443/mcp`,
      identity: { spiffeId: `spiffe://bank.example/${id}` },
    },
    tools,
    ...changes,
  };
}

function spec(name: string, changes: Partial<ToolSpec> = {}): ToolSpec {
  return {
    name,
    version: "1.0.0",
    title: "A tool",
    description: "Returns a customer's profile by id. Reads the customer relationship system.",
    inputSchema: {
      type: "object",
      properties: { id: { type: "string" } },
      required: ["id"],
    },
    sideEffect: "read",
    requiredScopes: ["crm:read"],
    dataClassification: "confidential",
    tenants: [],
    owner: "crm-team",
    ...changes,
  };
}

function refusal(fn: () => unknown): ServerRegistrationError {
  try {
    fn();
  } catch (e) {
    assert.ok(
      e instanceof ServerRegistrationError,
      `expected a ServerRegistrationError, got ${e}`,
    );
    return e;
  }
  assert.fail("expected a refusal");
}

Deno.test("registerServer() records a server and serverFor() answers which one serves a name; undefined is in-process", () => {
  const r = new ToolRegistry();
  const result = r.registerServer(
    record("crm", ["crm.customer.get", "crm.customer.search"]),
  );
  assert.equal(result.status, "registered");
  assert.equal(r.serverFor("crm.customer.get")?.id, "crm");
  assert.equal(r.serverFor("crm.customer.search")?.id, "crm");
  assert.equal(r.serverFor("payments.release"), undefined);
  assert.equal(r.server("crm")?.owner, "crm-team");
  assert.equal(r.server("nope"), undefined);
  r.registerServer(record("payments", ["payments.release"]));
  assert.deepEqual(r.servers().map((s) => s.id), ["crm", "payments"]);
});

Deno.test("registerServer() refuses a record listing a name another server serves, naming both, and changes nothing", () => {
  const r = new ToolRegistry();
  r.registerServer(record("payments", ["payments.release", "payments.lookup"]));
  const e = refusal(() =>
    r.registerServer(
      record("crm", [
        "crm.customer.get",
        "payments.release",
        "payments.lookup",
      ]),
    )
  );
  assert.equal(e.refusal, "tool-served-elsewhere");
  assert.equal(e.server, "crm");
  assert.deepEqual(e.conflicts, [
    { tool: "payments.release", server: "payments" },
    { tool: "payments.lookup", server: "payments" },
  ]);
  assert.equal(
    e.message,
    "Cannot register server crm: it lists payments.release, which server payments serves; payments.lookup, which server payments serves; exactly one server serves a tool name (remove them from one of the records)",
  );
  assert.equal(r.server("crm"), undefined);
  assert.equal(r.serverFor("payments.release")?.id, "payments");
  assert.equal(r.serverFor("crm.customer.get"), undefined);
  // An update may not take a name either.
  r.registerServer(record("crm", ["crm.customer.get"]));
  const update = refusal(() =>
    r.registerServer(record("crm", ["crm.customer.get", "payments.release"]), {
      update: true,
    })
  );
  assert.equal(update.refusal, "tool-served-elsewhere");
  assert.deepEqual(r.server("crm")?.tools, ["crm.customer.get"]);
});

Deno.test("registerServer() refuses a different record under a registered id unless it is an update; the same record is unchanged", () => {
  const r = new ToolRegistry();
  const events: EstateEvent[] = [];
  r.subscribe((e) => events.push(e));
  r.registerServer(record("crm", ["crm.customer.get"]));
  assert.equal(
    r.registerServer(record("crm", ["crm.customer.get"])).status,
    "unchanged",
  );
  const changed = record("crm", ["crm.customer.get", "crm.customer.search"], {
    owner: "crm-platform",
  });
  const e = refusal(() => r.registerServer(changed));
  assert.equal(e.refusal, "changed-without-update");
  assert.deepEqual(e.changed, ["owner", "tools"]);
  assert.match(
    e.message,
    /^Cannot register server crm: a different record is registered under crm \(it differs in owner, tools\); register it as an update/,
  );
  assert.equal(r.server("crm")?.owner, "crm-team");
  const updated = r.registerServer(changed, { update: true });
  assert.equal(updated.status, "updated");
  assert.equal(r.serverFor("crm.customer.search")?.id, "crm");
  // An update that drops a name frees it for another server.
  r.registerServer(
    record("crm", ["crm.customer.search"], { owner: "crm-platform" }),
    {
      update: true,
    },
  );
  assert.equal(r.serverFor("crm.customer.get"), undefined);
  assert.equal(
    r.registerServer(record("crm2", ["crm.customer.get"])).status,
    "registered",
  );
  assert.deepEqual(events.map((e) => `${e.type} ${e.name}`), [
    "server-registered crm",
    "server-updated crm",
    "server-updated crm",
    "server-registered crm2",
  ]);
  assert.ok(events.every((e) => e.version === ""));
});

Deno.test("registerServer() keeps a frozen copy: changing the caller's object afterwards changes nothing", () => {
  const r = new ToolRegistry();
  const mine = record("crm", ["crm.customer.get"]);
  const kept = r.registerServer(mine).record;
  mine.tools.push("payments.release");
  mine.owner = "mallory";
  assert.equal(r.serverFor("payments.release"), undefined);
  assert.equal(r.server("crm")?.owner, "crm-team");
  assert.ok(Object.isFrozen(kept) && Object.isFrozen(kept.tools));
  assert.throws(() => (kept.tools as string[]).push("x"));
});

Deno.test("registerServer() refuses an invalid record with every problem, naming its fields", () => {
  const r = new ToolRegistry();
  assert.throws(
    () =>
      r.registerServer({
        id: "Bad Id",
        owner: "",
        upstream: { kind: "ftp" },
        tools: [],
      }),
    (e: unknown) =>
      e instanceof ServerRecordError && /id "Bad Id"/.test(e.message) &&
      /owner must be a non-empty string/.test(e.message) &&
      /upstream.kind must be "stdio" or "http"/.test(e.message) &&
      /tools must list/.test(e.message),
  );
  assert.deepEqual(r.servers(), []);
});

Deno.test("parseServerRecord() refuses two estate names served as one upstream name", () => {
  assert.throws(
    () =>
      parseServerRecord(
        record("crm", ["crm.a", "crm.b"], {
          upstreamNames: { "crm.a": "get", "crm.b": "get" },
        }),
      ),
    /upstreamNames: crm\.a and crm\.b would both be the server's "get"/,
  );
  assert.throws(
    () =>
      parseServerRecord(
        record("crm", ["crm.a", "get"], { upstreamNames: { "crm.a": "get" } }),
      ),
    /crm\.a and get would both be the server's "get"/,
  );
  const ok = parseServerRecord(
    record("crm", ["crm.a", "crm.b"], {
      upstreamNames: { "crm.a": "a", "crm.b": "b" },
    }),
  );
  assert.deepEqual(ok.upstreamNames, { "crm.a": "a", "crm.b": "b" });
  const stdio = parseServerRecord(
    record("everything", ["everything.echo"], {
      upstream: {
        kind: "stdio",
        command: "node",
        args: ["server.js"],
        sha256: HASH,
      },
    }),
  );
  assert.equal(stdio.upstream.kind, "stdio");
});

Deno.test("publish refuses a spec naming a server the estate does not record, or one whose record does not list it", () => {
  const r = new ToolRegistry();
  let e: unknown;
  try {
    r.publish(spec("crm.customer.get", { server: "crm" }));
  } catch (caught) {
    e = caught;
  }
  assert.ok(e instanceof PublishError);
  assert.equal(e.refusal, "unknown-server");
  assert.equal(
    e.message,
    "Cannot publish crm.customer.get@1.0.0: it names server crm, which the estate does not record (it records no servers); register the server first (servers/crm.json)",
  );
  r.registerServer(record("crm", ["crm.customer.search"]));
  r.registerServer(record("customer-data", ["crm.customer.get"]));
  assert.throws(
    () => r.publish(spec("crm.customer.get", { server: "crm" })),
    (e: unknown) =>
      e instanceof PublishError && e.refusal === "server-does-not-list" &&
      e.message ===
        "Cannot publish crm.customer.get@1.0.0: it names server crm, whose record does not list crm.customer.get (server customer-data serves it); add crm.customer.get to the record's tools, or name the server that serves it",
  );
  assert.throws(
    () => r.publish(spec("crm.customer.get", { server: "nope" })),
    /which the estate does not record \(it records crm, customer-data\)/,
  );
  assert.deepEqual(r.names(), []);
  const published = r.publish(
    spec("crm.customer.get", { server: "customer-data" }),
  );
  assert.equal(published.status, "published");
  assert.equal(r.latest("crm.customer.get")?.server, "customer-data");
  // A spec without a server is not checked against the directory: which server serves a name is
  // always the directory's answer.
  assert.equal(r.publish(spec("crm.customer.search")).status, "published");
  assert.equal(r.serverFor("crm.customer.search")?.id, "crm");
});

Deno.test("checkDraft() reports a server refusal as an error at the server field", () => {
  const r = new ToolRegistry();
  r.registerServer(record("crm", ["crm.customer.search"]));
  const report = checkDraft(spec("crm.customer.get", { server: "crm" }), r);
  assert.equal(report.ok, false);
  assert.deepEqual(report.findings.map((f) => [f.severity, f.code, f.target]), [
    ["error", "server", { field: "server" }],
  ]);
  assert.equal(
    report.findings[0].message,
    "names server crm, whose record does not list crm.customer.get; add crm.customer.get to the record's tools, or name the server that serves it",
  );
  assert.equal(
    checkDraft(spec("crm.customer.search", { server: "crm" }), r).ok,
    true,
  );
});

Deno.test("restoreServers() replaces the servers with records as stored, telling subscribers of changes only when asked", () => {
  const r = new ToolRegistry();
  const events: string[] = [];
  r.subscribe((e) => events.push(`${e.type} ${e.name}`));
  r.restoreServers([record("a", ["t.a"]), record("b", ["t.b"])]);
  assert.deepEqual(events, []);
  assert.equal(r.serverFor("t.b")?.id, "b");
  // Another process moved t.b from b to c and changed a's owner.
  r.restoreServers([
    record("a", ["t.a"], { owner: "x" }),
    record("b", ["t.x"]),
    record("c", ["t.b"]),
  ], {
    emit: true,
  });
  assert.deepEqual(events, [
    "server-updated a",
    "server-updated b",
    "server-registered c",
  ]);
  assert.equal(r.serverFor("t.b")?.id, "c");
  assert.throws(
    () => r.restoreServers([record("a", ["t.a"]), record("z", ["t.a"])]),
    ServerRegistrationError,
  );
  assert.equal(r.server("z"), undefined, "on error nothing changes");
  assert.equal(r.serverFor("t.b")?.id, "c");
});

Deno.test("property: whatever is registered in whatever order, every name is served by at most one server, the one whose record lists it", () => {
  const id = fc.constantFrom("a", "b", "c", "d");
  const tool = fc.constantFrom("t.1", "t.2", "t.3", "t.4", "t.5");
  const step = fc.record({
    id,
    tools: fc.uniqueArray(tool, { minLength: 1, maxLength: 3 }),
    owner: fc.constantFrom("x", "y"),
    update: fc.boolean(),
  });
  fc.assert(
    fc.property(fc.array(step, { maxLength: 12 }), (steps) => {
      const r = new ToolRegistry();
      for (const s of steps) {
        const before = JSON.stringify(r.servers());
        try {
          r.registerServer(record(s.id, s.tools, { owner: s.owner }), {
            update: s.update,
          });
        } catch (e) {
          assert.ok(e instanceof ServerRegistrationError);
          assert.equal(
            JSON.stringify(r.servers()),
            before,
            "a refusal changes nothing",
          );
        }
        const listing = new Map<string, string[]>();
        for (const server of r.servers()) {
          for (const t of server.tools) {
            listing.set(t, [...listing.get(t) ?? [], server.id]);
          }
        }
        for (const t of ["t.1", "t.2", "t.3", "t.4", "t.5"]) {
          const ids = listing.get(t) ?? [];
          assert.ok(ids.length <= 1, `${t} is listed by ${ids}`);
          assert.equal(r.serverFor(t)?.id, ids[0]);
        }
      }
    }),
    { numRuns: 300 },
  );
});
