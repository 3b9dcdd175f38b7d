/**
 * The classifier's soundness run at scale. Two sources of schema pairs:
 *
 * - this library's generators (the ones the property tests use): tool schemas with ordinary
 *   edits, schemas with negative and co-located places with edits that reach them (recursive
 *   `$ref`s into `$defs` among them), and keyword soup (`unevaluated*` and `dependentSchemas` in
 *   the mix);
 * - an independent one, `--suite`: the official JSON-Schema-Test-Suite (draft 2020-12, every
 *   keyword file and the optional ones, `unevaluated*`, `$ref` and `$dynamicRef` included), each
 *   schema replaced by another schema of the same file (both orders), at the root or placed under
 *   a property, in `items`, under `not`, in an `anyOf` beside `null`, or as `additionalProperties`;
 *   the values tried first are the suite's own instances of both schemas, placed the same way.
 *
 * Each pair is classified as an input change and as an output change, under a compatibility mode
 * taken in turn (`backward`, `forward`, `full`), and each claim is checked against the given
 * values, json-schema-faker, `arbitraryForSchema`, both schemas' literals and mutations of
 * accepted values. Prints pairs tried, the verdicts, values checked by source, the time, and every
 * pair that disproves a claim; exits 1 when there is one.
 *
 * With `--ajv`, ajv (draft 2020-12 with ajv-formats) decides which values a schema accepts instead
 * of this library's validator: it enforces `unevaluated*` and `$dynamicRef`, which the validator
 * does not. Where ajv and this library's validator disagree on a value that would disprove a claim,
 * @cfworker/json-schema decides: with ajv, the claim is disproved; else the value is listed as a
 * disagreement (ajv alone). A pair where ajv refuses either schema (a draft-07 form, a remote reference) is decided
 * by this library's validator on both sides, and counted.
 *
 *   deno task soundness [--pairs 3000] [--seed 1] [--values 4] [--ajv] [--suite [--suite-pairs N]]
 *     [--only 1,4]   (only those generators, 1-based: tool schemas, places, soup, the suite)
 */
import fc from "fast-check";
import { type JsonSchema, validateSchema } from "../mod.ts";
import {
  applyEdits,
  type Edit,
  editArb,
  type Obj,
  soupChange,
  toolSchema,
} from "../tests/_random_schemas.ts";
import {
  applyPositionedEdits,
  checkClaim,
  positionedSchema,
  useOracle,
  type ValueCounts,
} from "../tests/_schema_pairs.ts";
import { suitePairs } from "../tests/_suite_pairs.ts";
import { ajvTest, cfworkerAccepts as cfworker } from "../tests/_ajv_oracle.ts";
import { flag as parseFlag } from "../bench/_stats.ts";

function flag(name: string, fallback: number): number {
  return parseFlag(Deno.args, name, fallback);
}

const pairs = flag("pairs", 3000);
const seed = flag("seed", 1);
const n = flag("values", 4);
const suite = Deno.args.includes("--suite");
const suitePairs_ = flag("suite-pairs", 20_000);
const ours = (v: unknown, schema: JsonSchema): boolean => validateSchema(schema, v).length === 0;

/** Whether ajv decides the current pair (it takes both schemas), and whether it failed on a value. */
let ajvDecides = false;
let ajvFailed = false;
const useAjv = Deno.args.includes("--ajv");
if (useAjv) {
  useOracle((schema, value) => {
    const test = ajvDecides ? ajvTest(schema) : null;
    if (test) {
      try {
        return test(value);
      } catch {
        // ajv overflows its stack on some recursive schemas: the pair goes to this library.
        ajvFailed = true;
      }
    }
    return ours(value, schema);
  });
}

/**
 * `pairs` samples of `arb`, made a thousand at a time (each thousand from its own seed), so that
 * the pairs already checked, and the validators compiled for them, can be freed.
 */
function* chunked<T>(arb: fc.Arbitrary<T>): Generator<T> {
  for (let done = 0, chunk = 0; done < pairs; chunk++) {
    const n = Math.min(1000, pairs - done);
    yield* fc.sample(arb, { numRuns: n, seed: seed * 1_000 + chunk });
    done += n;
  }
}

/** Schemas from `schemas`, each with one to three edits applied by `apply`. */
function edited(
  schemas: fc.Arbitrary<Obj>,
  apply: (schema: Obj, edits: readonly Edit[]) => { schema: unknown; ops: string[] },
): fc.Arbitrary<Pair> {
  return fc.tuple(schemas, fc.array(editArb, { minLength: 1, maxLength: 3 })).map((
    [before, edits],
  ) => {
    const r = apply(before, edits);
    return { before, after: r.schema, ops: r.ops };
  });
}

type Pair = { before: unknown; after: unknown; ops: string[]; values?: unknown[] };

const generators: [string, () => Iterable<Pair>, number][] = [
  [
    "tool schemas, ordinary edits",
    () => chunked(edited(toolSchema, applyEdits)),
    pairs,
  ],
  [
    "negative and co-located places",
    () => chunked(edited(positionedSchema, applyPositionedEdits)),
    pairs,
  ],
  [
    "keyword soup",
    () => chunked(soupChange.map(([before, after]) => ({ before, after, ops: ["soup"] }))),
    pairs,
  ],
];

if (suite) {
  const list = suitePairs(seed, suitePairs_);
  generators.push([
    "JSON-Schema-Test-Suite pairs (independent)",
    () => list,
    list.length,
  ]);
}

/** `--only 1,3`: run only those generators (1-based, in the order above). */
const onlyArg = Deno.args.indexOf("--only");
const only = onlyArg === -1
  ? undefined
  : new Set(Deno.args[onlyArg + 1].split(",").map((x) => Number(x) - 1));

const MODES = ["backward", "forward", "full"] as const;
let failures = 0;
let refused = 0;
let disagreements = 0;
const started = performance.now();
console.log(
  `classifier soundness: ${pairs} pairs per generator${
    suite ? `, ${suitePairs_} from the test suite` : ""
  }, seed ${seed}, ${n} values per source, ${
    useAjv ? "ajv 2020-12 with ajv-formats decides acceptance" : "this library's validator decides"
  }`,
);
for (const [g, [name, pairsOf, count]] of generators.entries()) {
  if (only && !only.has(g)) continue;
  for (const output of [false, true]) {
    const t0 = performance.now();
    const stats = {
      checked: 0,
      counts: { given: 0, faker: 0, arbitrary: 0, mutated: 0 } as ValueCounts,
    };
    const bumps = { patch: 0, minor: 0, major: 0 };
    let i = 0;
    for (const pair of pairsOf()) {
      i++;
      const mode = MODES[i % MODES.length];
      const claim = {
        seed: seed * 100_003 + i,
        n,
        output,
        mode,
        extra: pair.values,
        stats,
        onBump: (b: "patch" | "minor" | "major") => bumps[b]++,
      };
      ajvDecides = useAjv && ajvTest(pair.before as JsonSchema) !== null &&
        ajvTest(pair.after as JsonSchema) !== null;
      ajvFailed = false;
      let bad = checkClaim(pair.before as Obj, pair.after as Obj, claim);
      if (useAjv && (!ajvDecides || ajvFailed)) {
        refused++;
        if (ajvFailed) {
          ajvDecides = false;
          bumps[bad?.bump ?? "major"]--;
          bad = checkClaim(pair.before as Obj, pair.after as Obj, claim);
        }
      }
      if (bad && ajvDecides) {
        // Where the validators disagree on the value, one of them is wrong about it, not
        // necessarily the classifier: a third one (@cfworker/json-schema) decides. Where it sides
        // with ajv, the claim is disproved; else ajv alone says so, listed apart to read by hand.
        const [b, a] = [pair.before as JsonSchema, pair.after as JsonSchema];
        const v = bad.value;
        const [ajvB, ajvA] = [ajvTest(b)!(v), ajvTest(a)!(v)];
        if (ajvB !== ours(v, b) || ajvA !== ours(v, a)) {
          const [cfB, cfA] = [cfworker(b, v), cfworker(a, v)];
          if (cfB !== ajvB || cfA !== ajvA) {
            disagreements++;
            console.log(
              `VALIDATORS DISAGREE (${name}, ${output ? "output" : "input"}, ${mode}, pair ${i}, ${
                pair.ops.join(", ")
              }) on ${
                JSON.stringify(v)
              }: ajv ${ajvB}/${ajvA}, @cfworker/json-schema ${cfB}/${cfA}, ` +
                `this library ${ours(v, b)}/${ours(v, a)} (before/after accepts)\n  before: ${
                  JSON.stringify(b)
                }\n  after:  ${JSON.stringify(a)}`,
            );
            continue;
          }
        }
      }
      if (bad) {
        failures++;
        console.log(
          `UNSOUND (${name}, ${output ? "output" : "input"}, ${mode}, pair ${i}, ${
            pair.ops.join(", ")
          }): classified ${bad.bump}, yet ${
            bad.how === "rejected" ? "the new schema rejects" : "the old schema rejects"
          } ${JSON.stringify(bad.value)}\n  before: ${JSON.stringify(pair.before)}\n  after:  ${
            JSON.stringify(pair.after)
          }`,
        );
      }
    }
    const s = ((performance.now() - t0) / 1000).toFixed(1);
    console.log(
      `${name} (${
        output ? "output" : "input"
      }): ${count} pairs (${bumps.patch} patch, ${bumps.minor} minor, ` +
        `${bumps.major} major), ${stats.checked} values checked (given ${stats.counts.given}, ` +
        `faker ${stats.counts.faker}, arbitraryForSchema ${stats.counts.arbitrary}, literals and ` +
        `mutations ${stats.counts.mutated}), ${s} s`,
    );
  }
}
console.log(
  `${failures === 0 ? "no unsound pair" : `${failures} unsound pairs`} in ${
    ((performance.now() - started) / 1000).toFixed(1)
  } s${
    useAjv
      ? ` (${refused} pair classifications ajv refused a schema of: decided by this library's validator)`
      : ""
  }`,
);
if (failures) Deno.exit(1);
