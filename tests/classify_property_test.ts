import assert from "node:assert/strict";
import fc from "fast-check";
import { classifySchemaChange, type JsonSchema, validateSchema } from "../mod.ts";
import { arbitraryForSchema, SchemaGenerationError } from "../testing.ts";
import { applyEdits, editArb, type Obj, shuffleKeys, toolSchema } from "./_random_schemas.ts";

const RUNS = 250;

/** A random tool schema and a random sequence of one to three edits to it. */
const changeArb = fc
  .tuple(toolSchema, fc.array(editArb, { minLength: 1, maxLength: 3 }))
  .map(([before, edits]) => ({ before, ...applyEdits(before, edits) }));

/**
 * Draws up to `n` values the old schema accepts (named properties only); `undefined` when the
 * generator cannot produce values for it (a contradictory random schema).
 */
function valuesOf(schema: Obj, g: fc.GeneratorValue, n: number): unknown[] | undefined {
  try {
    const arb = arbitraryForSchema(schema as JsonSchema);
    return Array.from({ length: n }, () => g(() => arb));
  } catch (e) {
    if (e instanceof SchemaGenerationError) return undefined;
    throw e;
  }
}

Deno.test("classifySchemaChange() is sound: a minor or patch change accepts every old value", () => {
  fc.assert(
    fc.property(changeArb, fc.gen(), ({ before, schema: after, ops }, g) => {
      const result = classifySchemaChange(before as JsonSchema, after as JsonSchema);
      if (result.bump === "major") return;
      const values = valuesOf(before, g, 4);
      for (const value of values ?? []) {
        const issues = validateSchema(after as JsonSchema, value);
        assert.deepEqual(
          issues,
          [],
          `classified ${result.bump} after ${ops.join(", ")}, yet the new schema rejects ${
            JSON.stringify(value)
          }\nchanges: ${JSON.stringify(result.changes, null, 1)}\nbefore: ${
            JSON.stringify(before)
          }\nafter: ${JSON.stringify(after)}`,
        );
      }
    }),
    { numRuns: RUNS },
  );
});

Deno.test("classifySchemaChange() calls a schema compared with itself patch with no changes", () => {
  fc.assert(
    fc.property(toolSchema, (s) => {
      assert.deepEqual(classifySchemaChange(s, s), { bump: "patch", changes: [] });
      assert.deepEqual(classifySchemaChange(s, structuredClone(s)), { bump: "patch", changes: [] });
    }),
    { numRuns: RUNS },
  );
});

Deno.test("classifySchemaChange() gives the same result whatever the key order", () => {
  fc.assert(
    fc.property(changeArb, fc.integer(), ({ before, schema: after }, seed) => {
      const expected = classifySchemaChange(before as JsonSchema, after as JsonSchema);
      const shuffled = classifySchemaChange(
        shuffleKeys(before, seed) as JsonSchema,
        shuffleKeys(after, seed + 1) as JsonSchema,
      );
      assert.deepEqual(shuffled, expected);
      assert.deepEqual(
        classifySchemaChange(before, shuffleKeys(before, seed) as JsonSchema),
        { bump: "patch", changes: [] },
      );
    }),
    { numRuns: RUNS },
  );
});

Deno.test("classifySchemaChange() returns the largest bump of its sorted, distinct changes", () => {
  const rank = { patch: 0, minor: 1, major: 2 };
  fc.assert(
    fc.property(changeArb, ({ before, schema: after }) => {
      const { bump, changes } = classifySchemaChange(before as JsonSchema, after as JsonSchema);
      assert.equal(rank[bump], Math.max(0, ...changes.map((c) => rank[c.bump])));
      const keys = changes.map((c) => `${c.path} ${c.kind} ${c.message}`);
      assert.equal(new Set(keys).size, keys.length);
      // A textual change always leaves at least one change that says what happened.
      if (JSON.stringify(before) !== JSON.stringify(after)) assert.ok(changes.length > 0);
    }),
    { numRuns: RUNS },
  );
});
