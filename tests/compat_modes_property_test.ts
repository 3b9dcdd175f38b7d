/**
 * Soundness of each compatibility mode: whenever `classifyForMode` calls a change non-major under
 * a mode, the mode's guarantee holds on values from generators that do not share the classifier's
 * reasoning (json-schema-faker, `arbitraryForSchema`, literals and mutations; see
 * `_schema_pairs.ts`):
 *
 * - backward: every value the old schema accepts, the new one accepts;
 * - forward: every value the new schema accepts, the old one accepts;
 * - full: both;
 * - a `patch` claims both directions whatever the mode;
 * - `-transitive`: the mode's guarantee against every version of a chain of three.
 *
 * For inputs, values use only the members their schema names (the contract inputs are classified
 * under); for outputs, any member (the mirror rule: consumers rely on what the output allows).
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  classifyForMode,
  type CompatibilityMode,
  compatibilityRule,
  type JsonSchema,
  validateSchema,
} from "../mod.ts";
import { applyEdits, editArb, type Obj, soupChange, toolSchema } from "./_random_schemas.ts";
import { acceptedValues, applyPositionedEdits, positionedSchema } from "./_schema_pairs.ts";

const RUNS = 120;
const BASE_MODES: CompatibilityMode[] = ["backward", "forward", "full"];

/** A random tool schema and a random sequence of one to three edits to it. */
const changeArb = fc
  .tuple(toolSchema, fc.array(editArb, { minLength: 1, maxLength: 3 }))
  .map(([before, edits]) => ({ before, ...applyEdits(before, edits) }));

/** The same with negative and co-located places, and edits that reach them. */
const positionedArb = fc
  .tuple(positionedSchema, fc.array(editArb, { minLength: 1, maxLength: 3 }))
  .map(([before, edits]) => ({
    before,
    ...applyPositionedEdits(before, edits),
  }));

/** A chain of three versions: a schema, then one to two edits, then one to two more. */
const chainArb = fc
  .tuple(
    toolSchema,
    fc.array(editArb, { minLength: 1, maxLength: 2 }),
    fc.array(editArb, { minLength: 1, maxLength: 2 }),
  )
  .map(([v1, e1, e2]) => {
    const v2 = applyEdits(v1, e1).schema;
    return { v1, v2, v3: applyEdits(v2, e2).schema };
  });

/**
 * The first value that breaks "`from` accepts it, so `to` does": values `from` accepts (by the
 * named-members contract unless `strict`), tried on `to`.
 */
function counterexample(
  from: unknown,
  to: unknown,
  seed: number,
  strict: boolean,
): unknown | undefined {
  for (
    const value of acceptedValues(from as Obj, to as Obj, {
      seed,
      n: 4,
      strict,
    })
  ) {
    if (validateSchema(to as JsonSchema, value).length) return value;
  }
  return undefined;
}

/**
 * Fails when values disprove what `classifyForMode(before, after)` claims under `mode`; returns
 * whether the claim was non-major (so that the property is seen to be exercised).
 */
function assertModeSound(
  before: unknown,
  after: unknown,
  mode: CompatibilityMode,
  seed: number,
  output = false,
  earlier: unknown[] = [],
): boolean {
  const result = classifyForMode(before as JsonSchema, after as JsonSchema, {
    mode,
    output,
    earlier: earlier.map((schema, i) => ({
      version: `1.${i}.0`,
      schema: schema as JsonSchema,
    })),
  });
  if (result.bump === "major") return false;
  const rule = compatibilityRule(mode);
  // Inputs: backward is "old values pass the new schema". Outputs mirror it: backward is "new
  // output values were allowed by the old schema".
  const olds = rule.transitive ? [...earlier, before] : [before];
  for (const [i, old] of olds.entries()) {
    const widenSafe: [unknown, unknown] = [old, after];
    const narrowSafe: [unknown, unknown] = [after, old];
    const checks: { name: string; pair: [unknown, unknown] }[] = [];
    if (rule.backward) {
      checks.push({ name: "backward", pair: output ? narrowSafe : widenSafe });
    }
    if (rule.forward) {
      checks.push({ name: "forward", pair: output ? widenSafe : narrowSafe });
    }
    if (result.bump === "patch" && old === before) {
      checks.push({ name: "patch (old → new)", pair: widenSafe });
      checks.push({ name: "patch (new → old)", pair: narrowSafe });
    }
    for (const { name, pair } of checks) {
      const bad = counterexample(pair[0], pair[1], seed + i, output);
      if (bad !== undefined) {
        assert.fail(
          `${
            output ? "output " : ""
          }classified ${result.bump} under ${mode}, yet the ${name} guarantee fails${
            old === before ? "" : ` against earlier version ${i}`
          } on ${JSON.stringify(bad)}\nchanges: ${JSON.stringify(result.changes, null, 1)}\nold: ${
            JSON.stringify(old)
          }\nnew: ${JSON.stringify(after)}`,
        );
      }
    }
  }
  return true;
}

for (const mode of BASE_MODES) {
  Deno.test(`classifyForMode() is sound under ${mode}: a non-major input change keeps the ${mode} guarantee`, () => {
    let compatible = 0;
    for (const arb of [changeArb, positionedArb]) {
      fc.assert(
        fc.property(arb, fc.integer(), ({ before, schema: after }, seed) => {
          if (assertModeSound(before, after, mode, seed)) compatible++;
        }),
        { numRuns: RUNS },
      );
    }
    // The law must be exercised by changes the mode allows, not only skip major ones.
    assert.ok(
      compatible > RUNS / 5,
      `only ${compatible} compatible changes under ${mode}`,
    );
  });

  Deno.test(`classifyForMode() is sound under ${mode} for outputs (the mirror rule)`, () => {
    let compatible = 0;
    for (const arb of [changeArb, positionedArb]) {
      fc.assert(
        fc.property(arb, fc.integer(), ({ before, schema: after }, seed) => {
          if (assertModeSound(before, after, mode, seed, true)) compatible++;
        }),
        { numRuns: RUNS },
      );
    }
    assert.ok(
      compatible > RUNS / 5,
      `only ${compatible} compatible output changes under ${mode}`,
    );
  });

  Deno.test(`classifyForMode() is sound under ${mode} on small schemas that mix every keyword`, () => {
    fc.assert(
      fc.property(soupChange, fc.integer(), ([before, after], seed) => {
        assertModeSound(before, after, mode, seed);
        assertModeSound(before, after, mode, seed, true);
      }),
      { numRuns: RUNS },
    );
  });

  const transitive = `${mode}-transitive` as CompatibilityMode;
  Deno.test(`classifyForMode() is sound under ${transitive}: the guarantee holds against every version of a chain of three`, () => {
    let compatible = 0;
    fc.assert(
      fc.property(chainArb, fc.integer(), ({ v1, v2, v3 }, seed) => {
        if (assertModeSound(v2, v3, transitive, seed, false, [v1])) {
          compatible++;
        }
        assertModeSound(v2, v3, transitive, seed, true, [v1]);
      }),
      { numRuns: RUNS },
    );
    assert.ok(
      compatible > RUNS / 10,
      `only ${compatible} compatible chains under ${transitive}`,
    );
  });
}

Deno.test("classifyForMode() under full is major exactly when backward or forward is", () => {
  fc.assert(
    fc.property(changeArb, ({ before, schema: after }) => {
      for (const output of [false, true]) {
        const bump = (mode: CompatibilityMode) =>
          classifyForMode(before as JsonSchema, after as JsonSchema, {
            mode,
            output,
          }).bump;
        const eitherMajor = bump("backward") === "major" ||
          bump("forward") === "major";
        assert.equal(bump("full") === "major", eitherMajor);
      }
    }),
    { numRuns: RUNS },
  );
});

Deno.test("classifyForMode() under forward is backward with the roles swapped, as to what breaks", () => {
  fc.assert(
    fc.property(changeArb, ({ before, schema: after }) => {
      const forward = classifyForMode(
        before as JsonSchema,
        after as JsonSchema,
        {
          mode: "forward",
        },
      );
      const swapped = classifyForMode(
        after as JsonSchema,
        before as JsonSchema,
        {
          mode: "backward",
        },
      );
      assert.equal(forward.bump === "major", swapped.bump === "major");
    }),
    { numRuns: RUNS },
  );
});
