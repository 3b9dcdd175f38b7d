import assert from "node:assert/strict";
import fc from "fast-check";
import { classifyOutputSchemaChange, classifySchemaChange, type JsonSchema } from "../mod.ts";
import {
  applyEdits,
  editArb,
  type Obj,
  shuffleKeys,
  soupChange,
  toolSchema,
} from "./_random_schemas.ts";
import { applyPositionedEdits, checkClaim, positionedSchema } from "./_schema_pairs.ts";

const RUNS = 250;

/** A random tool schema and a random sequence of one to three edits to it. */
const changeArb = fc
  .tuple(toolSchema, fc.array(editArb, { minLength: 1, maxLength: 3 }))
  .map(([before, edits]) => ({ before, ...applyEdits(before, edits) }));

/**
 * A tool schema with negative places (`not`, `if`, `oneOf`, `contains` with `maxContains`,
 * `propertyNames`) and co-located ones (`allOf`, `then`, `dependentSchemas`, `contains` beside
 * `items`, patterns, `$ref`s), and edits that reach them.
 */
const positionedArb = fc
  .tuple(positionedSchema, fc.array(editArb, { minLength: 1, maxLength: 3 }))
  .map(([before, edits]) => ({
    before,
    ...applyPositionedEdits(before, edits),
  }));

/**
 * Fails with the pair when values disprove the classification. Values come from
 * json-schema-faker, `arbitraryForSchema`, both schemas' literals and mutations of accepted values,
 * drawn from a seed rather than `fc.gen()` so that shrinking a counterexample shrinks the schemas.
 */
function assertSound(
  before: unknown,
  after: unknown,
  seed: number,
  ops: string[] = [],
): boolean {
  const bad = checkClaim(before as Obj, after as Obj, { seed, n: 4 });
  if (bad) {
    const result = classifySchemaChange(
      before as JsonSchema,
      after as JsonSchema,
    );
    assert.fail(
      `classified ${bad.bump}${ops.length ? ` after ${ops.join(", ")}` : ""}, yet the new schema ${
        bad.how === "rejected" ? "rejects" : "accepts (and the old one rejects)"
      } ${JSON.stringify(bad.value)}\nchanges: ${
        JSON.stringify(result.changes, null, 1)
      }\nbefore: ${JSON.stringify(before)}\nafter: ${JSON.stringify(after)}`,
    );
  }
  return classifySchemaChange(before as JsonSchema, after as JsonSchema)
    .bump !== "major";
}

Deno.test("classifySchemaChange() is sound: a minor change accepts every old value, a patch exactly the old values", () => {
  let compatible = 0;
  fc.assert(
    fc.property(
      changeArb,
      fc.integer(),
      ({ before, schema: after, ops }, seed) => {
        if (assertSound(before, after, seed, ops)) compatible++;
      },
    ),
    { numRuns: RUNS },
  );
  // The law must be exercised by compatible edits, not only skip major ones.
  assert.ok(
    compatible > RUNS / 4,
    `only ${compatible} compatible edits were tried`,
  );
});

Deno.test("classifySchemaChange() is sound on edits in negative and co-located places", () => {
  let compatible = 0;
  fc.assert(
    fc.property(
      positionedArb,
      fc.integer(),
      ({ before, schema: after, ops }, seed) => {
        if (assertSound(before, after, seed, ops)) compatible++;
      },
    ),
    { numRuns: RUNS },
  );
  assert.ok(
    compatible > RUNS / 5,
    `only ${compatible} compatible edits were tried`,
  );
});

Deno.test("classifyOutputSchemaChange() is sound: a minor output change allows only old values, a patch exactly the old values", () => {
  let compatible = 0;
  for (const arb of [changeArb, positionedArb]) {
    fc.assert(
      fc.property(arb, fc.integer(), ({ before, schema: after, ops }, seed) => {
        const bad = checkClaim(before, after, { seed, n: 4, output: true });
        if (bad) {
          assert.fail(
            `output classified ${bad.bump} after ${ops.join(", ")}, yet the new output schema ${
              bad.how === "accepted" ? "allows (and the old one does not)" : "rejects"
            } ${JSON.stringify(bad.value)}\nchanges: ${
              JSON.stringify(
                classifyOutputSchemaChange(before, after).changes,
                null,
                1,
              )
            }\nbefore: ${JSON.stringify(before)}\nafter: ${JSON.stringify(after)}`,
          );
        }
        if (classifyOutputSchemaChange(before, after).bump !== "major") {
          compatible++;
        }
      }),
      { numRuns: RUNS / 2 },
    );
  }
  assert.ok(
    compatible > RUNS / 5,
    `only ${compatible} compatible output edits were tried`,
  );
});

Deno.test("classifyOutputSchemaChange() is sound on small schemas that mix every keyword", () => {
  fc.assert(
    fc.property(soupChange, fc.integer(), ([before, after], seed) => {
      const bad = checkClaim(before as Obj, after as Obj, {
        seed,
        n: 4,
        output: true,
      });
      assert.equal(bad, undefined, JSON.stringify({ bad, before, after }));
    }),
    { numRuns: RUNS },
  );
});

Deno.test("classifySchemaChange() is sound on small schemas that mix every keyword", () => {
  fc.assert(
    fc.property(soupChange, fc.integer(), ([before, after], seed) => {
      assertSound(before, after, seed);
    }),
    { numRuns: RUNS },
  );
});

Deno.test("classifySchemaChange() calls a schema compared with itself patch with no changes", () => {
  fc.assert(
    fc.property(toolSchema, (s) => {
      assert.deepEqual(classifySchemaChange(s, s), {
        bump: "patch",
        changes: [],
      });
      assert.deepEqual(classifySchemaChange(s, structuredClone(s)), {
        bump: "patch",
        changes: [],
      });
    }),
    { numRuns: RUNS },
  );
});

Deno.test("classifySchemaChange() gives the same result whatever the key order", () => {
  fc.assert(
    fc.property(changeArb, fc.integer(), ({ before, schema: after }, seed) => {
      const expected = classifySchemaChange(
        before as JsonSchema,
        after as JsonSchema,
      );
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
          Object.keys(x).sort().map((
            k,
          ) => [k, (x as Record<string, unknown>)[k]]),
        )
        : x,
  );
}

Deno.test("classifySchemaChange() returns the largest bump of its sorted, distinct changes", () => {
  const rank = { patch: 0, minor: 1, major: 2 };
  fc.assert(
    fc.property(changeArb, ({ before, schema: after }) => {
      const { bump, changes } = classifySchemaChange(
        before as JsonSchema,
        after as JsonSchema,
      );
      assert.equal(
        rank[bump],
        Math.max(0, ...changes.map((c) => rank[c.bump])),
      );
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
