/**
 * Laws of the keyword table (lib/schema/keywords.ts `KEYWORDS`): every keyword the validator
 * enforces has a comparer and a generator, each comparer family has its function, the derived
 * lists agree with the table, and a change to each enforced keyword is noticed by its comparer.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { classifySchemaChange, isValid, type JsonSchema } from "../mod.ts";
import { arbitraryForSchema } from "../testing.ts";
import {
  ENFORCED_KEYWORDS,
  type EnforcedKeyword,
  KEYWORDS,
  UNSUPPORTED_KEYWORDS,
  type ValueKeyword,
} from "../lib/schema/keywords.ts";
import { COMPARERS } from "../lib/compat/_compare.ts";

/** For each enforced keyword: a schema using it, and one with it changed. */
const EXAMPLES: Record<EnforcedKeyword, [JsonSchema, JsonSchema]> = {
  $ref: [{ $ref: "#/$defs/a", $defs: { a: { type: "string" } } }, {
    $ref: "#/$defs/a",
    $defs: { a: { type: "integer" } },
  }],
  additionalItems: [{ items: [{}], additionalItems: { type: "string" } }, {
    items: [{}],
    additionalItems: false,
  }],
  additionalProperties: [{ additionalProperties: { type: "string" } }, {
    additionalProperties: false,
  }],
  allOf: [{ allOf: [{ type: "string" }] }, { allOf: [{ type: "integer" }] }],
  anyOf: [{ anyOf: [{ type: "string" }, { type: "null" }] }, { anyOf: [{ type: "string" }] }],
  const: [{ const: 1 }, { const: 2 }],
  contains: [{ contains: { type: "string" } }, { contains: { const: "x" } }],
  dependencies: [{ dependencies: { a: ["b"] } }, { dependencies: { a: ["b", "c"] } }],
  dependentRequired: [{ dependentRequired: { a: ["b"] } }, {
    dependentRequired: { a: ["b", "c"] },
  }],
  dependentSchemas: [{ dependentSchemas: { a: { required: ["b"] } } }, {
    dependentSchemas: { a: { required: ["b", "c"] } },
  }],
  else: [{ if: { type: "string" }, else: { type: "integer" } }, {
    if: { type: "string" },
    else: { type: "null" },
  }],
  enum: [{ enum: [1, 2] }, { enum: [1] }],
  exclusiveMaximum: [{ exclusiveMaximum: 5 }, { exclusiveMaximum: 4 }],
  exclusiveMinimum: [{ exclusiveMinimum: 5 }, { exclusiveMinimum: 6 }],
  format: [{ type: "string" }, { type: "string", format: "uuid" }],
  if: [{ if: { type: "string" }, then: { minLength: 2 } }, {
    if: { type: "string", minLength: 1 },
    then: { minLength: 2 },
  }],
  items: [{ items: { type: "string" } }, { items: { type: "integer" } }],
  maxContains: [{ contains: { type: "string" }, maxContains: 3 }, {
    contains: { type: "string" },
    maxContains: 2,
  }],
  maxItems: [{ maxItems: 3 }, { maxItems: 2 }],
  maxLength: [{ maxLength: 3 }, { maxLength: 2 }],
  maxProperties: [{ maxProperties: 3 }, { maxProperties: 2 }],
  maximum: [{ maximum: 3 }, { maximum: 2 }],
  minContains: [{ contains: { type: "string" }, minContains: 1 }, {
    contains: { type: "string" },
    minContains: 2,
  }],
  minItems: [{ minItems: 1 }, { minItems: 2 }],
  minLength: [{ minLength: 1 }, { minLength: 2 }],
  minProperties: [{ minProperties: 1 }, { minProperties: 2 }],
  minimum: [{ minimum: 1 }, { minimum: 2 }],
  multipleOf: [{ multipleOf: 2 }, { multipleOf: 4 }],
  not: [{ not: { type: "string" } }, { not: { type: "integer" } }],
  oneOf: [{ oneOf: [{ type: "string" }, { type: "null" }] }, { oneOf: [{ type: "string" }] }],
  pattern: [{ type: "string", pattern: "^a" }, { type: "string", pattern: "^b" }],
  patternProperties: [{ patternProperties: { "^a": { type: "string" } } }, {
    patternProperties: { "^a": { type: "integer" } },
  }],
  prefixItems: [{ prefixItems: [{ type: "string" }] }, { prefixItems: [{ type: "integer" }] }],
  properties: [{ properties: { a: { type: "string" } } }, {
    properties: { a: { type: "integer" } },
  }],
  propertyNames: [{ propertyNames: { maxLength: 3 } }, { propertyNames: { maxLength: 2 } }],
  required: [{ properties: { a: {} } }, { properties: { a: {} }, required: ["a"] }],
  then: [{ if: { type: "string" }, then: { minLength: 1 } }, {
    if: { type: "string" },
    then: { minLength: 2 },
  }],
  type: [{ type: "string" }, { type: "integer" }],
  uniqueItems: [{ type: "array" }, { type: "array", uniqueItems: true }],
};

Deno.test("KEYWORDS: every enforced keyword has a comparer and a generator", () => {
  for (const [k, d] of Object.entries(KEYWORDS)) {
    if (!d.enforced) continue;
    assert.notEqual(d.compare, "none", `${k} has no comparer`);
    assert.notEqual(d.generate, "none", `${k} has no generator`);
  }
});

Deno.test("KEYWORDS: each comparer family named in the table has its function", () => {
  for (const [k, d] of Object.entries(KEYWORDS)) {
    if (d.compare === "none") continue;
    assert.equal(typeof COMPARERS[d.compare], "function", `${k}: family ${d.compare}`);
  }
});

Deno.test("KEYWORDS: the keyword lists are derived from the table", () => {
  const all = Object.keys(KEYWORDS) as ValueKeyword[];
  assert.deepEqual([...ENFORCED_KEYWORDS].sort(), all.filter((k) => KEYWORDS[k].enforced).sort());
  assert.deepEqual(
    [...UNSUPPORTED_KEYWORDS].sort(),
    all.filter((k) => !KEYWORDS[k].enforced).sort(),
  );
});

Deno.test("KEYWORDS: a change to every enforced keyword is noticed and made major", () => {
  for (const k of ENFORCED_KEYWORDS as EnforcedKeyword[]) {
    const [before, after] = EXAMPLES[k];
    const r = classifySchemaChange(before, after);
    assert.equal(r.bump, "major", `${k}: ${JSON.stringify(r.changes)}`);
  }
});

Deno.test("KEYWORDS: the generator produces values for every enforced keyword", () => {
  for (const k of ENFORCED_KEYWORDS as EnforcedKeyword[]) {
    for (const schema of EXAMPLES[k]) {
      for (const v of fc.sample(arbitraryForSchema(schema), { numRuns: 5, seed: 1 })) {
        assert.ok(isValid(schema, v), `${k}: ${JSON.stringify(v)} for ${JSON.stringify(schema)}`);
      }
    }
  }
});

Deno.test("KEYWORDS: a keyword with no comparer is undecidable when it changes, never no change", () => {
  for (const [k, d] of Object.entries(KEYWORDS)) {
    if (d.compare !== "none") continue;
    const r = classifySchemaChange({ type: "object" }, { type: "object", [k]: "#x" });
    assert.equal(r.bump, "major", k);
    assert.ok(r.changes.some((c) => c.kind === "undecidable" && c.message.includes(k)), k);
  }
});
