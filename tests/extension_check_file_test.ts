import assert from "node:assert/strict";
import { type CheckContext, checkToolFile, type Range } from "../extension/src/check_file.ts";
import { ruleOf } from "../lib/report/mod.ts";
import {
  checkDraft,
  MAX_ISSUE_TEXT,
  MAX_ISSUES_BYTES,
  MAX_ISSUES_IN_RESPONSE,
  type StoredCall,
  ToolRegistry,
  type ToolSpec,
} from "../mod.ts";

const v1: ToolSpec = {
  name: "payments.lookup",
  version: "1.4.0",
  title: "Look up a payment",
  description:
    "Returns a wholesale payment's status by reference. Reads the payments system of record.",
  inputSchema: {
    type: "object",
    properties: { reference: { type: "string" }, currency: { type: "string" } },
    required: ["reference"],
  },
  sideEffect: "read",
  requiredScopes: ["payments:read"],
  dataClassification: "confidential",
  tenants: ["wholesale"],
  owner: "payments-platform",
};

function context(
  calls: StoredCall[] = [],
  extra: Partial<CheckContext> = {},
): CheckContext {
  const registry = new ToolRegistry({ storedCalls: () => calls });
  registry.publish(v1);
  return {
    check: (spec) => checkDraft(spec, registry),
    estateLabel: "corpus/",
    ...extra,
  };
}

/** The text a range covers. */
function slice(text: string, range: Range): string {
  const lines = text.split("\n");
  if (range.start.line === range.end.line) {
    return lines[range.start.line].slice(
      range.start.character,
      range.end.character,
    );
  }
  throw new Error("multi-line range");
}

const pretty = (spec: unknown): string => JSON.stringify(spec, null, 2) + "\n";

Deno.test("checkToolFile() puts version-too-low on the version value with the Set version fix", () => {
  const draft = {
    ...v1,
    version: "1.5.0",
    inputSchema: {
      type: "object",
      properties: { reference: { type: "string" } },
    },
  };
  const text = pretty(draft);
  const r = checkToolFile(text, context());
  const top = r.diagnostics[0];
  assert.equal(top.code, "version-too-low");
  assert.equal(top.severity, 1);
  assert.equal(top.source, "tool-estate");
  assert.equal(
    top.message,
    "change is major against payments.lookup@1.4.0 (published): removed property currency — version must be at least 2.0.0",
  );
  assert.equal(slice(text, top.range), '"1.5.0"');
  assert.deepEqual(top.data?.fix, {
    title: "Set version to 2.0.0",
    range: top.range,
    newText: '"2.0.0"',
  });
  // Only the version diagnostic carries a fix.
  assert.equal(r.diagnostics.filter((d) => d.data).length, 1);
});

Deno.test("checkToolFile() shows checkDraft's findings under their rule ids, with estate check's severities", () => {
  const draft = {
    ...v1,
    version: "1.5.0",
    inputSchema: {
      type: "object",
      properties: { reference: { type: "string" } },
    },
  };
  const r = checkToolFile(pretty(draft), context());
  const report = checkDraft(
    draft,
    (() => {
      const reg = new ToolRegistry();
      reg.publish(v1);
      return reg;
    })(),
  );
  const byMessage = (a: unknown[], b: unknown[]) => String(a[2]) < String(b[2]) ? -1 : 1;
  assert.deepEqual(
    r.diagnostics.map((d) => [d.severity, d.code, d.message]).sort(byMessage),
    report.findings.map((f) => [
      { error: 1, warning: 2, information: 3, hint: 3 }[f.severity],
      ruleOf(f),
      f.message,
    ]).sort(byMessage),
  );
  assert.deepEqual(r.report?.findings, report.findings);
});

Deno.test("checkToolFile() puts a removed property at properties and an added one at its key", () => {
  const draft = {
    ...v1,
    version: "2.0.0",
    inputSchema: {
      type: "object",
      properties: { reference: { type: "string" }, amount: { type: "number" } },
      required: ["reference"],
    },
  };
  const text = pretty(draft);
  const r = checkToolFile(text, context());
  const removed = r.diagnostics.find((d) => d.message.startsWith("removed property currency"))!;
  assert.equal(removed.severity, 2);
  assert.equal(slice(text, removed.range), '"properties"');
  const added = r.diagnostics.find((d) => d.message.startsWith("added optional property amount"))!;
  assert.equal(added.severity, 3);
  assert.equal(slice(text, added.range), '"amount"');
  const ok = r.diagnostics.find((d) => d.code === "version-ok")!;
  assert.equal(ok.severity, 3);
  assert.equal(
    ok.message,
    "major change against 1.4.0: version 2.0.0 is enough",
  );
  assert.equal(slice(text, ok.range), '"2.0.0"');
  assert.equal(ok.data, undefined);
});

Deno.test("checkToolFile() puts rejected stored calls at the schema node that rejects them", () => {
  const calls: StoredCall[] = [
    {
      version: "1.4.0",
      arguments: { reference: "PMT-1" },
      principal: "ops",
      at: "2026-11-01T00:00:00Z",
    },
    {
      version: "1.4.0",
      arguments: { reference: "PMT-2" },
      principal: "ops",
      at: "2026-11-02T00:00:00Z",
    },
  ];
  const draft = {
    ...v1,
    version: "1.5.0",
    inputSchema: {
      type: "object",
      properties: {
        reference: { type: "string" },
        currency: { type: "string" },
        amount: {
          type: "object",
          properties: { value: { type: "number" } },
          required: ["value"],
        },
      },
      required: ["reference", "currency"],
    },
  };
  const text = pretty(draft);
  const r = checkToolFile(text, context(calls));
  const rejected = r.diagnostics.find((d) => d.code === "rejected-calls")!;
  assert.equal(
    rejected.message,
    "2 stored calls are rejected here: $.currency is required",
  );
  assert.equal(rejected.severity, 1);
  assert.equal(slice(text, rejected.range), '"inputSchema"');
  assert.match(r.versionHover!, /2 stored calls of the 1\.x line are rejected/);
});

Deno.test("checkToolFile() turns a spec parseToolSpec refuses into spec errors at the fields", () => {
  const { owner: _o, ...rest } = { ...v1, sideEffect: "sometimes" };
  const text = pretty(rest);
  const r = checkToolFile(text, context());
  assert.deepEqual(
    r.diagnostics.map((d) => [d.code, d.message, slice(text, d.range)]),
    [
      ["spec", "owner is required", "{"],
      [
        "spec",
        'sideEffect must be one of read, idempotent-write, write, irreversible, got "sometimes"',
        '"sometimes"',
      ],
    ],
  );
  assert.equal(r.status.severity, "error");
  assert.equal(r.status.text, "not a valid tool spec (2 problems)");
  assert.equal(r.versionHover, undefined);
});

Deno.test("checkToolFile() reports invalid JSON as estate check does: unreadable at the first syntax error", () => {
  const r = checkToolFile('{ "name": "payments.lookup", ', {
    ...context(),
    fileLabel: "a.tool.json",
  });
  assert.deepEqual(
    r.diagnostics.map((d) => [d.severity, d.code, d.message, d.range.start]),
    [[
      1,
      "unreadable",
      "a.tool.json is not valid JSON: property name expected at line 1 column 30",
      { line: 0, character: 29 },
    ]],
  );
  assert.equal(r.status.text, "not valid JSON");
});

Deno.test("checkToolFile() warns on version when the estate could not be loaded, and still checks the schema", () => {
  const draft = {
    ...v1,
    inputSchema: { type: "object", $ref: "#/$defs/missing" },
  };
  const text = pretty(draft);
  const r = checkToolFile(text, {
    check: (spec) => checkDraft(spec, new ToolRegistry()),
    estateLabel: "corpus/",
    estateProblem: "Cannot open the estate /w/corpus: no such folder",
  });
  const estate = r.diagnostics.find((d) => d.code === "estate")!;
  assert.equal(estate.severity, 2);
  assert.equal(
    estate.message,
    "not checked against the estate: Cannot open the estate /w/corpus: no such folder",
  );
  assert.equal(slice(text, estate.range), '"1.4.0"');
  const schema = r.diagnostics.find((d) => d.code === "schema")!;
  assert.equal(slice(text, schema.range), '"#/$defs/missing"');
  assert.equal(r.status.text, "payments.lookup: new tool, 1 error");
  assert.match(r.status.detail, /estate not loaded/);
});

Deno.test("checkToolFile() reports an estate that fails during the check at version", () => {
  const r = checkToolFile(pretty({ ...v1, version: "1.5.0" }), {
    check: () => {
      throw new Error("corpus/tools/payments.lookup/calls.jsonl:3: not JSON");
    },
    estateLabel: "corpus/",
  });
  assert.deepEqual(r.diagnostics.map((d) => [d.code, d.severity, d.message]), [
    [
      "estate",
      1,
      "the estate could not be read: corpus/tools/payments.lookup/calls.jsonl:3: not JSON",
    ],
  ]);
  assert.equal(r.status.text, "estate unreadable");
});

Deno.test("checkToolFile() hover on version lists the baseline and every change", () => {
  const draft = {
    ...v1,
    version: "1.5.0",
    inputSchema: {
      type: "object",
      properties: { reference: { type: "string" }, amount: { type: "number" } },
      required: ["reference"],
    },
  };
  const r = checkToolFile(pretty(draft), context());
  assert.equal(
    r.versionHover,
    [
      "**payments.lookup@1.5.0** against **payments.lookup@1.4.0** (published), the newest published version in `corpus/`",
      "",
      "**Error:** change is major against payments.lookup@1.4.0 (published): removed property currency — version must be at least 2.0.0",
      "",
      "Changes (2), **major** overall:",
      "",
      "- `$.properties.amount` minor: added optional property amount: callers may now send it",
      "- `$.properties.currency` **major**: removed property currency: callers that send it can no longer rely on it being understood",
    ].join("\n"),
  );
});

Deno.test("checkToolFile() status names the baseline and the result", () => {
  const status = (spec: unknown) => checkToolFile(pretty(spec), context()).status;
  assert.deepEqual(status({ ...v1, version: "1.4.1" }), {
    text: "against 1.4.0: patch, ok",
    detail: "baseline payments.lookup@1.4.0 (published) in the estate corpus/",
    severity: "information",
  });
  assert.equal(
    status({ ...v1, version: "1.4.1", inputSchema: { type: "object" } }).text,
    "against 1.4.0: major, needs 2.0.0",
  );
  assert.equal(status(v1).text, "against 1.4.0: published, unchanged");
  assert.equal(
    status({ ...v1, title: "Changed" }).text,
    "against 1.4.0: version already published",
  );
  assert.equal(
    status({ ...v1, version: "1.3.0" }).text,
    "against 1.4.0: version not newer",
  );
  assert.equal(
    status({ ...v1, name: "payments.new" }).text,
    "payments.new: new tool",
  );
});

Deno.test("checkToolFile() shows at most 100 diagnostics and one saying how many more, each message cut", () => {
  const properties: Record<string, unknown> = {
    ...(v1.inputSchema as { properties: object }).properties,
  };
  for (let i = 0; i < 150; i++) {
    properties[`note${String(i).padStart(3, "0")}`] = { type: "string" };
  }
  const draft = {
    ...v1,
    version: "1.5.0",
    inputSchema: { ...v1.inputSchema as object, properties },
  };
  const text = pretty(draft);
  const r = checkToolFile(text, context());
  assert.equal(r.report!.findings.length, 151); // 150 added properties and the version hint
  assert.equal(r.diagnostics.length, MAX_ISSUES_IN_RESPONSE + 1);
  assert.ok(
    new TextEncoder().encode(JSON.stringify(r.diagnostics)).length <=
      MAX_ISSUES_BYTES + 1024,
  );
  const last = r.diagnostics.at(-1)!;
  assert.equal(last.code, "omitted");
  assert.equal(last.message, "and 51 more findings, not shown here");
  assert.equal(last.severity, 3); // the worst of those left out: information
  // The version-ok on version comes first (by place, as estate check orders), then note000….
  assert.equal(slice(text, last.range), '"note099"');
  assert.equal(r.status.severity, "information");
  // The hover lists the first 100 changes and says how many more.
  const hover = r.versionHover!.split("\n");
  assert.equal(
    hover.filter((l) => l.startsWith("- `")).length,
    MAX_ISSUES_IN_RESPONSE,
  );
  assert.equal(hover.at(-1), "- … and 50 more changes");
});

Deno.test("checkToolFile() shows at most 100 spec problems, and the status says how many there are", () => {
  const spec: Record<string, unknown> = { ...v1 };
  for (let i = 0; i < 150; i++) {
    spec[`extra${String(i).padStart(3, "0")}${"x".repeat(500)}`] = 1;
  }
  const r = checkToolFile(pretty(spec), context());
  // Long messages: the byte budget, not the count, decides how many fit.
  const kept = r.diagnostics.length - 1;
  assert.ok(kept > 0 && kept <= MAX_ISSUES_IN_RESPONSE, `${kept}`);
  const size = new TextEncoder().encode(JSON.stringify(r.diagnostics)).length;
  assert.ok(size <= MAX_ISSUES_BYTES + 1024, `${size} bytes`);
  assert.ok(r.diagnostics.every((d) => d.message.length <= MAX_ISSUE_TEXT));
  assert.match(r.diagnostics[0].message, /^unknown field extra000x+…$/);
  assert.equal(
    r.diagnostics.at(-1)!.message,
    `and ${150 - kept} more problems, not shown here`,
  );
  assert.equal(r.status.text, "not a valid tool spec (150 problems)");
  assert.ok(
    r.status.detail.length < MAX_ISSUES_BYTES,
    `${r.status.detail.length}`,
  );
  assert.match(r.status.detail, /; and \d+ more$/);
});
