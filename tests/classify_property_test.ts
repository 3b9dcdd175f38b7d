import assert from "node:assert/strict";
import fc from "fast-check";
import { classifySchemaChange, type JsonSchema, validateSchema } from "../mod.ts";
import { arbitraryForSchema, SchemaGenerationError } from "../testing.ts";
import {
  applyEdits,
  editArb,
  type Obj,
  shuffleKeys,
  soupChange,
  toolSchema,
} from "./_random_schemas.ts";

const RUNS = 250;

/** A random tool schema and a random sequence of one to three edits to it. */
const changeArb = fc
  .tuple(toolSchema, fc.array(editArb, { minLength: 1, maxLength: 3 }))
  .map(([before, edits]) => ({ before, ...applyEdits(before, edits) }));

/**
 * Draws `n` values the old schema accepts (named properties only) from a seed; `undefined` when
 * the generator cannot produce values for it (a contradictory random schema). Values come from a
 * seed rather than `fc.gen()` so that shrinking a counterexample shrinks the schemas and ends.
 */
function valuesOf(schema: Obj, seed: number, n: number): unknown[] | undefined {
  try {
    return fc.sample(arbitraryForSchema(schema as JsonSchema), { numRuns: n, seed });
  } catch (e) {
    if (e instanceof SchemaGenerationError) return undefined;
    throw e;
  }
}

Deno.test("classifySchemaChange() is sound: a minor or patch change accepts every old value", () => {
  let compatible = 0;
  fc.assert(
    fc.property(changeArb, fc.integer(), ({ before, schema: after, ops }, seed) => {
      const result = classifySchemaChange(before as JsonSchema, after as JsonSchema);
      if (result.bump === "major") return;
      compatible++;
      for (const value of valuesOf(before, seed, 6) ?? []) {
        const issues = validateSchema(after as JsonSchema, value);
        if (issues.length) {
          assert.fail(
            `classified ${result.bump} after ${ops.join(", ")}, yet the new schema rejects ${
              JSON.stringify(value)
            }: ${JSON.stringify(issues)}\nchanges: ${
              JSON.stringify(result.changes, null, 1)
            }\nbefore: ${JSON.stringify(before)}\nafter: ${JSON.stringify(after)}`,
          );
        }
      }
    }),
    { numRuns: RUNS },
  );
  // The law must be exercised by compatible edits, not only skip major ones.
  assert.ok(compatible > RUNS / 4, `only ${compatible} compatible edits were tried`);
});

Deno.test("classifySchemaChange() is sound on small schemas that mix every keyword", () => {
  fc.assert(
    fc.property(soupChange, fc.integer(), ([before, after], seed) => {
      const result = classifySchemaChange(before as JsonSchema, after as JsonSchema);
      if (result.bump === "major") return;
      for (const value of valuesOf(before as Obj, seed, 6) ?? []) {
        const issues = validateSchema(after as JsonSchema, value);
        if (issues.length) {
          assert.fail(
            `classified ${result.bump}, yet the new schema rejects ${JSON.stringify(value)}: ${
              JSON.stringify(issues)
            }\nchanges: ${JSON.stringify(result.changes, null, 1)}\nbefore: ${
              JSON.stringify(before)
            }\nafter: ${JSON.stringify(after)}`,
          );
        }
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

/** JSON text with every object's keys sorted: equal for values that differ only in key order. */
function canonical(v: unknown): string {
  return JSON.stringify(
    v,
    (_k, x) =>
      x !== null && typeof x === "object" && !Array.isArray(x)
        ? Object.fromEntries(
          Object.keys(x).sort().map((k) => [k, (x as Record<string, unknown>)[k]]),
        )
        : x,
  );
}

Deno.test("classifySchemaChange() returns the largest bump of its sorted, distinct changes", () => {
  const rank = { patch: 0, minor: 1, major: 2 };
  fc.assert(
    fc.property(changeArb, ({ before, schema: after }) => {
      const { bump, changes } = classifySchemaChange(before as JsonSchema, after as JsonSchema);
      assert.equal(rank[bump], Math.max(0, ...changes.map((c) => rank[c.bump])));
      const keys = changes.map((c) => `${c.path} ${c.kind} ${c.message}`);
      assert.equal(new Set(keys).size, keys.length);
      // A textual change always leaves at least one change that says what happened; keys merely
      // in another order are no change at all (seed -592035728: two swapExclusive edits).
      if (canonical(before) !== canonical(after)) assert.ok(changes.length > 0);
      else assert.deepEqual(changes, []);
    }),
    { numRuns: RUNS },
  );
});
