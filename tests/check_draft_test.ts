/**
 * `checkDraft()`: the report behind `estate check` and the editor's diagnostics — one finding per
 * thing a publish would refuse (errors) or a person should look at (warnings, information, hints),
 * each at the place in the draft it belongs.
 */
import assert from "node:assert/strict";
import {
  CallIndex,
  checkDraft,
  type DraftReport,
  type StoredCall,
  ToolRegistry,
  type ToolSpec,
} from "../mod.ts";

const NOW = () => new Date("2026-11-30T12:00:00Z");

/** `payments.lookup` at a version: `reference` required, `currency` optional. */
function lookup(version: string, changes: Partial<ToolSpec> = {}): ToolSpec {
  return {
    name: "payments.lookup",
    version,
    title: "Look up a payment",
    description: "Returns a wholesale payment's status by reference. Reads the payments system.",
    inputSchema: {
      type: "object",
      properties: {
        reference: { type: "string" },
        currency: { type: "string" },
      },
      required: ["reference"],
    },
    sideEffect: "read",
    requiredScopes: ["payments:read"],
    dataClassification: "confidential",
    tenants: ["wholesale"],
    owner: "payments-platform",
    ...changes,
  };
}

function call(
  version: string,
  args: unknown,
  principal = "ops-bot",
): StoredCall {
  return {
    version,
    arguments: args,
    principal,
    at: "2026-11-01T09:00:00.000Z",
  };
}

function estate(
  calls: StoredCall[] = [],
  ...published: ToolSpec[]
): ToolRegistry {
  const registry = new ToolRegistry({ now: NOW, storedCalls: () => calls });
  for (const spec of published) registry.publish(spec);
  return registry;
}

const codes = (report: DraftReport): string[] => report.findings.map((f) => f.code);

Deno.test("checkDraft() of a first version with a clean description finds nothing and is ok", () => {
  const report = checkDraft(lookup("1.0.0"), estate());
  assert.equal(report.ok, true);
  assert.deepEqual(report.findings, []);
  assert.equal(report.name, "payments.lookup");
  assert.equal(report.version, "1.0.0");
  assert.equal(report.baseline, undefined);
  assert.equal(report.minimumVersion, undefined);
  assert.equal(report.bump, "patch");
  assert.deepEqual(report.rejected, { count: 0, byNode: [] });
});

Deno.test("checkDraft() calls a version too low for a major change an error at the version, and each change a warning at its node", () => {
  const registry = estate([], lookup("1.4.0"));
  const draft = lookup("1.5.0", {
    inputSchema: {
      type: "object",
      properties: { reference: { type: "string" } },
      required: ["reference"],
    },
  });
  const report = checkDraft(draft, registry);
  assert.equal(report.ok, false);
  assert.equal(report.bump, "major");
  assert.equal(report.minimumVersion, "2.0.0");
  assert.deepEqual(report.baseline, { version: "1.4.0", state: "active" });
  assert.deepEqual(report.findings[0], {
    severity: "error",
    code: "version-too-low",
    target: { field: "version" },
    message:
      "change is major against payments.lookup@1.4.0 (published): removed property currency — version must be at least 2.0.0",
  });
  const change = report.findings.find((f) => f.code === "change")!;
  assert.equal(change.severity, "warning");
  assert.deepEqual(change.target, {
    field: "inputSchema",
    path: "$.properties.currency",
  });
  // The same draft at the version the report asks for has no error left.
  const fixed = checkDraft({ ...draft, version: "2.0.0" }, registry);
  assert.equal(fixed.ok, true);
  assert.equal(
    fixed.findings.find((f) => f.code === "version-ok")?.message,
    "major change against 1.4.0: version 2.0.0 is enough",
  );
});

Deno.test("checkDraft() hints that a version is enough, and says when the schema did not change", () => {
  const registry = estate([], lookup("1.0.0"));
  const same = checkDraft(
    lookup("1.0.1", { title: "Look up one payment" }),
    registry,
  );
  assert.equal(same.ok, true);
  assert.deepEqual(same.findings, [{
    severity: "hint",
    code: "version-ok",
    target: { field: "version" },
    message: "patch change against 1.0.0 (no schema change): version 1.0.1 is enough",
  }]);
  const added = lookup("1.1.0", {
    inputSchema: {
      type: "object",
      properties: {
        reference: { type: "string" },
        currency: { type: "string" },
        account: { type: "string" },
      },
      required: ["reference"],
    },
  });
  const minor = checkDraft(added, registry);
  assert.equal(minor.ok, true);
  assert.equal(minor.bump, "minor");
  assert.deepEqual(codes(minor), ["change", "version-ok"]); // information before the hint
  const change = minor.findings[0];
  assert.equal(change.severity, "information");
  assert.deepEqual(change.target, {
    field: "inputSchema",
    path: "$.properties.account",
  });
});

Deno.test("checkDraft() calls a published version with different content immutable, and an older version not newer", () => {
  const registry = estate([], lookup("1.0.0"), lookup("1.2.0"));
  const rewritten = checkDraft(
    lookup("1.0.0", { title: "Rewritten" }),
    registry,
  );
  assert.equal(rewritten.ok, false);
  assert.deepEqual(rewritten.findings, [{
    severity: "error",
    code: "immutable",
    target: { field: "version" },
    message:
      "payments.lookup@1.0.0 is already published with different content; published versions are immutable — use 1.2.1 (a patch change against 1.2.0)",
  }]);
  const older = checkDraft(lookup("1.1.0", { title: "Older" }), registry);
  assert.equal(older.ok, false);
  assert.deepEqual(older.findings, [{
    severity: "error",
    code: "not-newer",
    target: { field: "version" },
    message:
      "1.1.0 is not newer than payments.lookup@1.2.0, the newest published version — use 1.2.1 (a patch change against it)",
  }]);
});

Deno.test("checkDraft() of a version already published as it is finds nothing", () => {
  const report = checkDraft(lookup("1.0.0"), estate([], lookup("1.0.0")));
  assert.equal(report.ok, true);
  assert.deepEqual(report.findings, []);
  assert.deepEqual(report.baseline, { version: "1.0.0", state: "active" });
});

Deno.test("checkDraft() names the baseline's state when it is not active", () => {
  const registry = estate([], lookup("1.0.0"));
  registry.deprecate("payments.lookup", "1.0.0");
  const draft = lookup("1.0.1", {
    inputSchema: {
      type: "object",
      properties: { reference: { type: "string" } },
    },
  });
  const report = checkDraft(draft, registry);
  assert.deepEqual(report.baseline, { version: "1.0.0", state: "deprecated" });
  assert.match(
    report.findings[0].message,
    /^change is major against payments\.lookup@1\.0\.0 \(deprecated\): /,
  );
});

Deno.test("checkDraft() puts stored calls a non-major version rejects at the node that rejects them", () => {
  const calls = [
    call("1.0.0", { reference: "PMT-1" }),
    call("1.0.0", { reference: "PMT-2", account: "DE89" }),
    call("1.0.0", { reference: "PMT-3", account: 370_400_440 }),
    call("2.0.0", { reference: "PMT-4", account: 1 }), // another major line: not replayed
  ];
  const registry = estate(calls, lookup("1.0.0"));
  // Declaring a property the open object took already is a minor change on paper; the stored
  // calls show a caller who sends it as a number.
  const withAccount = (required: string[]): ToolSpec =>
    lookup("1.1.0", {
      inputSchema: {
        type: "object",
        properties: {
          reference: { type: "string" },
          currency: { type: "string" },
          account: { type: "string" },
        },
        required,
      },
    });
  const report = checkDraft(withAccount(["reference"]), registry);
  assert.equal(report.bump, "minor");
  assert.equal(report.ok, false);
  assert.equal(report.rejected.count, 1);
  assert.deepEqual(report.findings.filter((f) => f.severity === "error"), [{
    severity: "error",
    code: "rejected-calls",
    target: { field: "inputSchema", path: "$.properties.account" },
    message: "1 stored call is rejected here: $.account expected string, got integer",
  }]);
  // A keyword of the object itself is reported at the object: `required` at the root.
  const required = checkDraft(withAccount(["reference", "account"]), registry);
  const atRoot = required.findings.find((f) =>
    f.code === "rejected-calls" && f.message.endsWith("is required")
  )!;
  assert.deepEqual(atRoot.target, { field: "inputSchema", path: "$" });
  assert.equal(
    atRoot.message,
    "1 stored call is rejected here: $.account is required",
  );
});

Deno.test("checkDraft() with a CallIndex replay reports exactly what it reports with the stored calls streamed", () => {
  const calls = Array.from(
    { length: 50 },
    (_, i) =>
      call(
        "1.0.0",
        i % 7 === 0 ? { reference: `PMT-${i}`, currency: "eur" } : { reference: `PMT-${i}` },
      ),
  );
  const registry = estate(calls, lookup("1.0.0"));
  const index = new CallIndex(calls);
  const draft = lookup("1.1.0", {
    inputSchema: {
      type: "object",
      properties: {
        reference: { type: "string", maxLength: 5 },
        currency: { type: "string", pattern: "^[A-Z]{3}$" },
      },
      required: ["reference"],
    },
  });
  const streamed = checkDraft(draft, registry);
  assert.ok(streamed.rejected.count > 0);
  assert.deepEqual(
    checkDraft(draft, registry, {
      replay: (schema, line) => index.rejections(schema, line),
    }),
    streamed,
  );
});

Deno.test("checkDraft() reports what checkSchema refuses as errors at the schema node", () => {
  const draft = lookup("1.0.0", {
    inputSchema: {
      type: "object",
      properties: { reference: { type: "string" } },
      unevaluatedProperties: false,
    },
  });
  const report = checkDraft(draft, estate());
  assert.equal(report.ok, false);
  const schema = report.findings.filter((f) => f.code === "schema");
  assert.equal(schema.length, 1);
  assert.equal(schema[0].severity, "error");
  assert.deepEqual(schema[0].target, {
    field: "inputSchema",
    path: "$.unevaluatedProperties",
  });
});

Deno.test("checkDraft() makes a description naming a tool some principals may not see an error, and platform metadata a warning", () => {
  const registry = estate([], lookup("1.0.0"));
  const transfers = (description: string): ToolSpec => ({
    ...lookup("1.0.0"),
    name: "retail.transfers.lookup",
    description,
    requiredScopes: ["transfers:read"],
    tenants: ["retail"],
  });
  const naming = checkDraft(
    transfers(
      "Reads retail transfers. For wholesale payments use payments.lookup.",
    ),
    registry,
  );
  assert.equal(naming.ok, false);
  assert.deepEqual(codes(naming), ["hidden-tool"]);
  assert.deepEqual(naming.findings[0].target, { field: "description" });
  assert.match(
    naming.findings[0].message,
    /^description names payments\.lookup, which a principal who sees this tool may not see/,
  );
  const noisy = checkDraft(
    transfers("Reads retail transfers. Requires scope transfers:read."),
    registry,
  );
  assert.equal(noisy.ok, true, "a warning does not fail the check");
  assert.deepEqual(noisy.findings.map((f) => [f.severity, f.code]), [
    ["warning", "description"],
    ["warning", "description"],
  ]);
});

Deno.test("checkDraft() lists errors first, then warnings, information and hints", () => {
  const registry = estate([], lookup("1.0.0"));
  // A major change (removed currency, new optional account) at a minor version, with metadata in
  // the description: an error, a warning for the removal and the description, information for
  // the addition.
  const draft = lookup("1.1.0", {
    description: "Returns a payment's status. Owned by payments-platform.",
    inputSchema: {
      type: "object",
      properties: {
        reference: { type: "string" },
        account: { type: "string" },
      },
      required: ["reference"],
    },
  });
  const report = checkDraft(draft, registry);
  const severities = report.findings.map((f) => f.severity);
  const rank = { error: 0, warning: 1, information: 2, hint: 3 };
  assert.deepEqual(
    severities,
    [...severities].sort((a, b) => rank[a] - rank[b]),
  );
  assert.deepEqual(
    new Set(severities),
    new Set(["error", "warning", "information"]),
  );
  assert.equal(report.findings[0].code, "version-too-low");
});
