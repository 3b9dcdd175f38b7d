/**
 * The classifier's soundness run at scale: thousands of schema pairs from the three generators
 * the property tests use (tool schemas with ordinary edits, schemas with negative and co-located
 * places with edits that reach them, and keyword soup), each classified as an input change
 * (`classifySchemaChange`) and as an output change (`classifyOutputSchemaChange`), and each claim
 * checked against values from json-schema-faker, `arbitraryForSchema`, both schemas' literals and
 * mutations of accepted values. Prints pairs tried, how many were compatible, values checked by
 * source, the time, and every pair that disproves a claim; exits 1 when there is one.
 *
 * With `--ajv`, ajv (draft 2020-12, formats not asserted) decides which values a schema accepts
 * instead of this library's validator: it enforces `unevaluated*`, which the validator does not.
 *
 *   deno task soundness [--pairs 3000] [--seed 1] [--values 4] [--ajv]
 */
import fc from "fast-check";
import {
  classifyOutputSchemaChange,
  classifySchemaChange,
  type JsonSchema,
  validateSchema,
} from "../mod.ts";
import { applyEdits, editArb, type Obj, soupChange, toolSchema } from "../tests/_random_schemas.ts";
import {
  applyPositionedEdits,
  checkClaim,
  positionedSchema,
  useOracle,
  type ValueCounts,
} from "../tests/_schema_pairs.ts";
import Ajv2020 from "ajv/dist/2020.js";

function flag(name: string, fallback: number): number {
  const i = Deno.args.indexOf(`--${name}`);
  if (i === -1) return fallback;
  const v = Number(Deno.args[i + 1]);
  if (!Number.isInteger(v) || v <= 0) {
    console.error(`--${name} needs a positive integer, got ${Deno.args[i + 1]}`);
    Deno.exit(2);
  }
  return v;
}

const pairs = flag("pairs", 3000);
const seed = flag("seed", 1);
const n = flag("values", 4);
if (Deno.args.includes("--ajv")) {
  // ajv's CommonJS default export has no construct signature under Deno's types.
  // deno-lint-ignore no-explicit-any
  const ajv = new (Ajv2020 as any)({ strict: false, validateFormats: false });
  const compiled = new WeakMap<object, (v: unknown) => boolean>();
  useOracle((schema, value) => {
    if (typeof schema === "boolean") return schema;
    let test = compiled.get(schema);
    if (!test) {
      try {
        const validate = ajv.compile(schema) as (v: unknown) => boolean;
        test = (v) => validate(v);
      } catch {
        // A schema ajv does not take (malformed, or a draft-07 form): this library's reading.
        test = (v) => validateSchema(schema, v).length === 0;
      }
      compiled.set(schema, test);
    }
    return test(value);
  });
}

type Pair = { before: unknown; after: unknown; ops: string[] };

const generators: [string, fc.Arbitrary<Pair>][] = [
  [
    "tool schemas, ordinary edits",
    fc.tuple(toolSchema, fc.array(editArb, { minLength: 1, maxLength: 3 })).map((
      [before, edits],
    ) => {
      const r = applyEdits(before, edits);
      return { before, after: r.schema, ops: r.ops };
    }),
  ],
  [
    "negative and co-located places",
    fc.tuple(positionedSchema, fc.array(editArb, { minLength: 1, maxLength: 3 })).map((
      [before, edits],
    ) => {
      const r = applyPositionedEdits(before, edits);
      return { before, after: r.schema, ops: r.ops };
    }),
  ],
  ["keyword soup", soupChange.map(([before, after]) => ({ before, after, ops: ["soup"] }))],
];

let failures = 0;
const started = performance.now();
console.log(
  `classifier soundness: ${pairs} pairs per generator, seed ${seed}, ${n} values per source`,
);
for (const [name, arb] of generators) {
  for (const output of [false, true]) {
    const t0 = performance.now();
    const stats = { checked: 0, counts: { faker: 0, arbitrary: 0, mutated: 0 } as ValueCounts };
    const bumps = { patch: 0, minor: 0, major: 0 };
    const classify = output ? classifyOutputSchemaChange : classifySchemaChange;
    let i = 0;
    for (const pair of fc.sample(arb, { numRuns: pairs, seed })) {
      i++;
      bumps[classify(pair.before as JsonSchema, pair.after as JsonSchema).bump]++;
      const bad = checkClaim(pair.before as Obj, pair.after as Obj, {
        seed: seed * 100_003 + i,
        n,
        output,
        stats,
      });
      if (bad) {
        failures++;
        console.log(
          `UNSOUND (${name}, ${output ? "output" : "input"}, pair ${i}, ${pair.ops.join(", ")}): ` +
            `classified ${bad.bump}, yet ${
              bad.how === "rejected" ? "the new schema rejects" : "only the new schema accepts"
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
      }): ${pairs} pairs (${bumps.patch} patch, ${bumps.minor} minor, ${bumps.major} major), ` +
        `${stats.checked} values checked (faker ${stats.counts.faker}, arbitraryForSchema ${stats.counts.arbitrary}, ` +
        `literals and mutations ${stats.counts.mutated}), ${s} s`,
    );
  }
}
console.log(
  `${failures === 0 ? "no unsound pair" : `${failures} unsound pairs`} in ${
    ((performance.now() - started) / 1000).toFixed(1)
  } s`,
);
if (failures) Deno.exit(1);
