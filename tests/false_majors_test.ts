import assert from "node:assert/strict";
import { baseSchemas, ourCounts, runFalseMajors } from "../bench/_false_majors.ts";
import { breakingPair, findBreakingValue, nonBreakingPair } from "./_nonbreaking_edits.ts";

/** A fixed-seed run of `bench/false_majors.ts`: random tool schemas, no corpus (no file reads). */
const run = await runFalseMajors(baseSchemas(40, 11, []), { pairs: 150, seed: 11, values: 4 });

Deno.test("classifySchemaChange() calls at most 5 % of generated non-breaking edits major", () => {
  const n = run.nonBreaking.verdicts.length;
  assert.ok(n >= 100, `only ${n} non-breaking pairs kept`);
  const { falseMajors } = ourCounts(run);
  assert.ok(
    falseMajors / n <= 0.05,
    `${falseMajors} / ${n} false majors:\n${
      run.falseMajors.map((f) => `${f.pair.ops.join(", ")}: ${f.changes.join("; ")}`).join("\n")
    }`,
  );
});

Deno.test("classifySchemaChange() misses no generated breaking edit", () => {
  assert.ok(run.breaking.verdicts.length >= 100);
  assert.deepEqual(run.missed.map((m) => m.pair.ops), []);
});

Deno.test("the generated non-breaking edits survive the independent check; breaking ones have witnesses", () => {
  // The generator is non-breaking by construction: no faker value checked by ajv disproves it.
  assert.equal(run.nonBreaking.dropped, 0);
  // A breaking edit is kept only with a witness; most have one.
  assert.ok(run.breaking.dropped < run.breaking.verdicts.length / 5);
});

Deno.test("findBreakingValue() finds a value the old schema accepts and the new one rejects", () => {
  const before = { type: "object", properties: { c: { enum: ["EUR", "GBP"] } }, required: ["c"] };
  const after = { type: "object", properties: { c: { enum: ["EUR"] } }, required: ["c"] };
  const w = findBreakingValue(before, after, 1);
  assert.deepEqual(w, { value: { c: "GBP" } });
  assert.equal(findBreakingValue(after, before, 1), undefined);
});

Deno.test("the edit generators are deterministic for a seed", () => {
  const [base] = baseSchemas(1, 3, []);
  assert.deepEqual(nonBreakingPair(base, 5), nonBreakingPair(base, 5));
  assert.deepEqual(breakingPair(base, 5), breakingPair(base, 5));
});
