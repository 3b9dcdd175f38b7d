/**
 * Every witness shown is a fact by a validator we did not write: for random tool schemas and
 * random edits that the classifier calls major, the value `findWitness` returns (and the evidence
 * `breakingCall` puts in a finding) is accepted by the schema it must satisfy and rejected by the
 * other one according to ajv (draft 2020-12, with ajv-formats asserting formats as ours does).
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import Ajv2020Module from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import {
  breakingCall,
  checkSchema,
  classifyOutputSchemaChange,
  classifySchemaChange,
  findWitness,
  type JsonSchema,
  UNSUPPORTED_KEYWORDS,
} from "../mod.ts";
import { applyEdits, editArb, toolSchema } from "./_random_schemas.ts";
import { applyPositionedEdits, positionedSchema } from "./_schema_pairs.ts";

// deno-lint-ignore no-explicit-any
const Ajv2020 = (Ajv2020Module as any).default ?? Ajv2020Module;
// deno-lint-ignore no-explicit-any
const addFormats = (addFormatsModule as any).default ?? addFormatsModule;
// strict off: the random schemas use keywords in every position a schema allows. Formats are
// asserted, as the estate's validator asserts them (ajv-formats' full mode).
const ajv = new Ajv2020({ strict: false, allErrors: false });
addFormats(ajv, { mode: "full" });

function ajvAccepts(schema: JsonSchema, value: unknown): boolean {
  return ajv.validate(schema as object, value) as boolean;
}

const pairs = fc.oneof(
  fc.tuple(toolSchema, fc.array(editArb, { minLength: 1, maxLength: 3 }))
    .map(([before, edits]) => ({ before, after: applyEdits(before, edits).schema })),
  fc.tuple(positionedSchema, fc.array(editArb, { minLength: 1, maxLength: 3 }))
    .map(([before, edits]) => ({ before, after: applyPositionedEdits(before, edits).schema })),
);

Deno.test("findWitness: every witness of a major input change is accepted by the old schema and rejected by the new one, by ajv", () => {
  let shown = 0, rejecting = 0;
  fc.assert(
    fc.property(pairs, ({ before, after }) => {
      const c = classifySchemaChange(before, after);
      const major = c.changes.filter((x) => x.bump === "major");
      if (!major.length) return;
      // A major verdict that claims a rejection (not one about meaning, such as a property no
      // longer named in an open object) should come with evidence.
      // A schema with a keyword the validator does not enforce gets no witness (its verdict is
      // not the validator's to prove): those are left out of the count.
      const enforced = [before, after].every((s) =>
        !checkSchema(s).some((i) => UNSUPPORTED_KEYWORDS.includes(i.keyword))
      );
      if (enforced && major.some((x) => /now rejected/.test(x.message))) rejecting++;
      const w = findWitness(before, after, { at: major.map((x) => x.path) });
      if (!w) return;
      shown++;
      assert.equal(ajvAccepts(before, w.value), true, `old rejects ${JSON.stringify(w.value)}`);
      assert.equal(ajvAccepts(after, w.value), false, `new accepts ${JSON.stringify(w.value)}`);
    }),
    { numRuns: 400, seed: 23 },
  );
  // The search finds evidence for most rejecting major verdicts of these generators (about 60 %
  // of these deliberately tangled schemas; nearly all on the corpus's), not a lucky few.
  assert.ok(
    rejecting > 50 && shown > rejecting / 2,
    `${shown} witnesses for ${rejecting} rejecting major verdicts`,
  );
});

Deno.test("breakingCall: the evidence of a major output change is a result the new schema allows and the old one rules out, by ajv", () => {
  let shown = 0;
  fc.assert(
    fc.property(pairs, ({ before, after }) => {
      const out = classifyOutputSchemaChange(before, after);
      if (out.bump !== "major") return;
      const b = breakingCall({
        mode: "backward",
        old: { inputSchema: { type: "object" }, outputSchema: before },
        draft: { inputSchema: { type: "object" }, outputSchema: after },
        changes: { input: [], output: out.changes },
      });
      if (!b) return;
      shown++;
      assert.equal(b.field, "outputSchema");
      assert.equal(ajvAccepts(after, b.value), true);
      assert.equal(ajvAccepts(before, b.value), false);
    }),
    { numRuns: 300, seed: 7 },
  );
  assert.ok(shown > 20, `${shown} output witnesses`);
});

Deno.test("breakingCall: a stored call the old schema accepts and the new one rejects comes first, with when and by whom", () => {
  const old = { type: "object", properties: { currency: { enum: ["EUR", "GBP"] } } };
  const draft = { type: "object", properties: { currency: { enum: ["EUR"] } } };
  const calls = [
    {
      version: "1.0.0",
      arguments: { currency: "EUR" },
      principal: "a",
      at: "2026-11-01T00:00:00Z",
    },
    {
      version: "1.2.0",
      arguments: { currency: "GBP" },
      principal: "retail-agent",
      at: "2026-11-12T10:00:00Z",
    },
  ];
  const b = breakingCall({
    mode: "backward",
    old: { inputSchema: old },
    draft: { inputSchema: draft },
    changes: { input: classifySchemaChange(old, draft).changes, output: [] },
    calls: () => calls,
  })!;
  assert.deepEqual(b.call, {
    principal: "retail-agent",
    at: "2026-11-12T10:00:00Z",
    version: "1.2.0",
  });
  assert.equal(
    b.message,
    'the call of 2026-11-12 by retail-agent (to 1.2.0) with {"currency":"GBP"} would now be rejected: $.currency must be one of "EUR"',
  );
  assert.equal(ajvAccepts(old, b.value), true);
  assert.equal(ajvAccepts(draft, b.value), false);
});
