/**
 * Output schemas are contracts too, by the mirror rule: the new output schema must allow only
 * values the old one allowed. Classified by `classifyOutputSchemaChange`, enforced by `publish`,
 * reported by `checkDraft` (so by `estate check` and the editor) at `outputSchema` paths.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { checkToolFile } from "../extension/src/check_file.ts";
import { runCli } from "../lib/cli/main.ts";
import {
  checkDraft,
  classifyOutputSchemaChange,
  type JsonSchema,
  PublishError,
  ToolRegistry,
  type ToolSpec,
  validateSchema,
} from "../mod.ts";

const output = {
  type: "object",
  properties: {
    status: { enum: ["HELD", "RELEASED"] },
    amount: { type: "number", minimum: 0 },
    note: { type: "string" },
  },
  required: ["status", "amount"],
};

const v1: ToolSpec = {
  name: "payments.lookup",
  version: "1.0.0",
  title: "Look up a payment",
  description: "Returns a wholesale payment's status by reference.",
  inputSchema: {
    type: "object",
    properties: { reference: { type: "string" } },
  },
  outputSchema: output,
  sideEffect: "read",
  requiredScopes: [],
  dataClassification: "internal",
  tenants: [],
  owner: "payments-platform",
};

function withOutput(edit: (o: Record<string, unknown>) => void): JsonSchema {
  const o = structuredClone(output) as Record<string, unknown>;
  edit(o);
  return o;
}

const props = (o: Record<string, unknown>) =>
  o.properties as Record<string, Record<string, unknown>>;

Deno.test("classifyOutputSchemaChange() calls narrowing an output minor and widening it major", () => {
  const cases: [string, JsonSchema, "patch" | "minor" | "major", unknown?][] = [
    [
      "an enum value removed",
      withOutput((o) => (props(o).status.enum = ["HELD"])),
      "minor",
    ],
    [
      "an enum value added",
      withOutput((
        o,
      ) => (props(o).status.enum = ["HELD", "RELEASED", "RETURNED"])),
      "major",
      { status: "RETURNED", amount: 1 },
    ],
    [
      "a required output field removed",
      withOutput((o) => (o.required = ["status"])),
      "major",
      {
        status: "HELD",
      },
    ],
    [
      "a field made required",
      withOutput((o) => (o.required = ["status", "amount", "note"])),
      "minor",
    ],
    [
      "a bound tightened",
      withOutput((o) => (props(o).amount.minimum = 10)),
      "minor",
    ],
    [
      "a bound loosened",
      withOutput((o) => delete props(o).amount.minimum),
      "major",
      {
        status: "HELD",
        amount: -1,
      },
    ],
    [
      "a type widened",
      withOutput((o) => (props(o).note.type = ["string", "null"])),
      "major",
      {
        status: "HELD",
        amount: 1,
        note: null,
      },
    ],
    [
      "the object closed",
      withOutput((o) => (o.additionalProperties = false)),
      "minor",
    ],
    [
      "a description changed",
      withOutput((o) => (props(o).note.description = "Free text")),
      "patch",
    ],
  ];
  for (const [what, after, bump, witness] of cases) {
    const r = classifyOutputSchemaChange(output, after);
    assert.equal(r.bump, bump, `${what}: ${JSON.stringify(r.changes)}`);
    if (witness !== undefined) {
      // The new output allows a value the old one did not: a consumer may now receive it.
      assert.deepEqual(validateSchema(after, witness), [], what);
      assert.notDeepEqual(validateSchema(output, witness), [], what);
    }
  }
});

Deno.test("classifyOutputSchemaChange() calls an added output schema minor and a removed one major", () => {
  assert.equal(classifyOutputSchemaChange(undefined, output).bump, "minor");
  assert.equal(classifyOutputSchemaChange(output, undefined).bump, "major");
  assert.deepEqual(classifyOutputSchemaChange(undefined, undefined), {
    bump: "patch",
    changes: [],
  });
});

Deno.test("classifyOutputSchemaChange() reports the edits at their paths with what they mean for consumers", () => {
  const r = classifyOutputSchemaChange(
    output,
    withOutput((
      o,
    ) => (props(o).status.enum = ["HELD", "RELEASED", "RETURNED"])),
  );
  assert.deepEqual(r.changes, [{
    path: "$.properties.status.enum",
    kind: "enum-widened",
    bump: "major",
    message:
      'enum now also allows "RETURNED": consumers may now receive values the old output schema did not allow',
  }]);
});

Deno.test("publish refuses a widened output schema published as a patch, and names its path", () => {
  const registry = new ToolRegistry();
  registry.publish(v1);
  const wider = {
    ...v1,
    version: "1.0.1",
    outputSchema: withOutput((
      o,
    ) => (props(o).status.enum = ["HELD", "RELEASED", "RETURNED"])),
  };
  assert.throws(
    () => registry.publish(wider),
    (e: unknown) =>
      e instanceof PublishError && e.refusal === "bump-too-small" &&
      e.message.includes("outputSchema.properties.status.enum") &&
      e.message.includes("publish 2.0.0") && e.outputChanges.length === 1,
  );
  assert.equal(
    registry.publish({ ...wider, version: "2.0.0" }).status,
    "published",
  );
  // Narrowing is a compatible change; removing the output schema is not.
  const narrower = {
    ...v1,
    version: "2.1.0",
    outputSchema: withOutput((o) => (props(o).status.enum = ["HELD"])),
  };
  const plan = registry.plan(narrower);
  assert.equal(plan.outputBump, "minor");
  assert.equal(plan.bump, "minor");
  registry.publish(narrower);
  const { outputSchema: _, ...withoutOutput } = narrower;
  const gone = registry.plan({ ...withoutOutput, version: "2.2.0" });
  assert.equal(gone.bump, "major");
  assert.deepEqual(gone.refusals.map((r) => r.refusal), ["bump-too-small"]);
});

Deno.test("checkDraft() reports output changes at outputSchema, and the editor puts them there", () => {
  const registry = new ToolRegistry();
  registry.publish(v1);
  const draft = {
    ...v1,
    version: "1.1.0",
    outputSchema: withOutput((o) => (o.required = ["status"])),
  };
  const report = checkDraft(draft, registry);
  assert.equal(report.ok, false);
  assert.equal(report.bump, "major");
  assert.match(
    report.findings[0].message,
    /outputSchema\.properties\.amount|no longer required/,
  );
  const finding = report.findings.find((f) => f.code === "output-change");
  assert.deepEqual(finding?.target, {
    field: "outputSchema",
    path: "$.properties.amount",
  });
  const text = JSON.stringify(draft, null, 2) + "\n";
  const file = checkToolFile(text, {
    check: (spec) => checkDraft(spec, registry),
    estateLabel: "x/",
  });
  // The editor names it by its rule, as estate check does: the change's kind.
  const d = file.diagnostics.find((x) => x.code === finding?.kind);
  assert.ok(d, JSON.stringify(file.diagnostics));
  const line = text.split("\n")[d.range.start.line];
  // On the amount property inside outputSchema, not the one of inputSchema (there is none).
  assert.equal(
    line.slice(d.range.start.character, d.range.end.character),
    '"amount"',
  );
  const before = text.slice(
    0,
    text.split("\n").slice(0, d.range.start.line).join("\n").length,
  );
  assert.ok(before.includes('"outputSchema"'));
});

Deno.test("estate check prints output changes under outputSchema and fails a widened output", async () => {
  const dir = await Deno.makeTempDir({ prefix: "estate-output-" });
  try {
    const tools = path.join(dir, "corpus/tools/payments.lookup");
    fs.mkdirSync(tools, { recursive: true });
    fs.writeFileSync(path.join(dir, "corpus/principals.json"), "[]\n");
    fs.writeFileSync(
      path.join(tools, "1.0.0.json"),
      JSON.stringify(v1, null, 2) + "\n",
    );
    fs.writeFileSync(
      path.join(tools, "lifecycle.json"),
      JSON.stringify({
        "1.0.0": [{ state: "active", at: "2026-11-01T00:00:00.000Z" }],
      }) + "\n",
    );
    const draft = {
      ...v1,
      version: "1.0.1",
      outputSchema: withOutput((o) => (o.required = [])),
    };
    fs.writeFileSync(
      path.join(dir, "lookup.tool.json"),
      JSON.stringify(draft, null, 2) + "\n",
    );
    let out = "";
    const code = await runCli(["check", "lookup.tool.json"], {
      stdout: (t) => (out += t),
      stderr: (t) => (out += t),
      isTerminal: false,
      cwd: dir,
    });
    assert.equal(code, 1, out);
    assert.match(
      out,
      /outputSchema \$\.properties\.status: outputSchema: property status is no longer required/,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
