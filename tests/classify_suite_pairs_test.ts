/**
 * The classifier's soundness on pairs it had no part in making: schemas of the official
 * JSON-Schema-Test-Suite replaced by others of the same file, at six places
 * (`tests/_suite_pairs.ts`), each classified as an input and an output change under `backward`,
 * `forward` and `full`, and each claim tried with the suite's own instances, json-schema-faker,
 * `arbitraryForSchema` and mutations. Acceptance is decided by ajv (draft 2020-12, ajv-formats),
 * which enforces `unevaluated*`; where ajv and this library's validator disagree on a value that
 * would disprove a claim, @cfworker/json-schema decides. The large run is
 * `deno task soundness --ajv --suite`.
 */
import assert from "node:assert/strict";
import { ajvTest as ajv, cfworkerAccepts } from "./_ajv_oracle.ts";
import { type JsonSchema, validateSchema } from "../mod.ts";
import { checkClaim } from "./_schema_pairs.ts";
import { suitePairs } from "./_suite_pairs.ts";
import { suitePresent } from "./_suite.ts";

type Obj = Record<string, unknown>;

const ours = (schema: JsonSchema, v: unknown): boolean => validateSchema(schema, v).length === 0;
/** cfworker's verdict; it must give one. */
function cfworker(schema: JsonSchema, v: unknown): boolean {
  const verdict = cfworkerAccepts(schema, v);
  assert.notEqual(
    verdict,
    undefined,
    `@cfworker/json-schema could not test ${JSON.stringify(schema)}`,
  );
  return verdict!;
}

Deno.test({
  name: "the official test suite's schemas, paired and placed: no unsound claim (ajv decides)",
  ignore: !suitePresent(),
  fn() {
    const modes = ["backward", "forward", "full"] as const;
    let claims = 0, decided = 0;
    const pairs = suitePairs(20261203, 600);
    assert.equal(pairs.length, 600);
    pairs.forEach((pair, i) => {
      const [b, a] = [pair.before as JsonSchema, pair.after as JsonSchema];
      if (!ajv(b) || !ajv(a)) return;
      decided++;
      for (const output of [false, true]) {
        let stack = false;
        const oracle = (s: JsonSchema, v: unknown): boolean => {
          try {
            return ajv(s)!(v);
          } catch {
            // ajv overflows its stack on a few recursive schemas: this library decides.
            stack = true;
            return ours(s, v);
          }
        };
        const bad = checkClaim(pair.before as Obj, pair.after as Obj, {
          seed: i,
          n: 3,
          output,
          mode: modes[i % 3],
          extra: pair.values,
          oracle,
          onBump: (bump) => bump !== "major" && claims++,
        });
        if (!bad || stack) continue;
        // A value the validators disagree on: the third one decides.
        const v = bad.value;
        const split = ajv(b)!(v) !== ours(b, v) || ajv(a)!(v) !== ours(a, v);
        const sidesWithAjv = cfworker(b, v) === ajv(b)!(v) && cfworker(a, v) === ajv(a)!(v);
        assert.ok(
          split && !sidesWithAjv,
          `${pair.ops.join(", ")} (${output ? "output" : "input"}, ${
            modes[i % 3]
          }): classified ${bad.bump}, ` +
            `yet ${JSON.stringify(v)} says otherwise\n  before: ${JSON.stringify(b)}\n  after:  ${
              JSON.stringify(a)
            }`,
        );
      }
    });
    // Most pairs are decided by ajv, and many claims were tried.
    assert.ok(decided > 450, `${decided} pairs decided by ajv`);
    assert.ok(claims > 100, `${claims} non-major claims checked`);
  },
});
