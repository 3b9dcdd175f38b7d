import assert from "node:assert/strict";
import fc from "fast-check";
import { type JsonSchema, validateSchema } from "../mod.ts";
import { arbitraryForSchema, SchemaGenerationError } from "../testing.ts";
import { applyEdits, editArb, type Obj, soupSchema, toolSchema } from "./_random_schemas.ts";

/** Samples values and asserts each one is valid. */
function assertAllValid(
  schema: JsonSchema,
  numRuns = 200,
  options = {},
): unknown[] {
  const values = fc.sample(arbitraryForSchema(schema, options), {
    numRuns,
    seed: 42,
  });
  for (const v of values) {
    assert.deepEqual(
      validateSchema(schema, v),
      [],
      `invalid value ${JSON.stringify(v)}`,
    );
  }
  return values;
}

/** The property names the schema names: `properties`, `required` and `dependentRequired`. */
function named(schema: Obj): Set<string> {
  const out = new Set<string>(Object.keys(schema.properties as Obj ?? {}));
  for (const r of schema.required as string[] ?? []) out.add(r);
  for (const deps of Object.values(schema.dependentRequired as Obj ?? {})) {
    for (const d of deps as string[]) out.add(d);
  }
  return out;
}

const payment: Obj = {
  type: "object",
  properties: {
    reference: { type: "string", pattern: "^PMT-[0-9]{3,6}$" },
    amount: {
      type: "number",
      exclusiveMinimum: 0,
      maximum: 1_000_000,
      multipleOf: 0.01,
    },
    currency: { enum: ["EUR", "GBP", "USD"] },
    valueDate: { type: "string", format: "date" },
    debtor: { $ref: "#/$defs/party" },
    legs: {
      type: "array",
      items: { $ref: "#/$defs/leg" },
      minItems: 1,
      maxItems: 3,
    },
    tags: {
      type: "array",
      items: { type: "string", maxLength: 5 },
      uniqueItems: true,
    },
    urgent: { type: "boolean", default: false },
  },
  required: ["reference", "amount", "currency", "legs"],
  additionalProperties: false,
  $defs: {
    party: {
      type: "object",
      properties: {
        name: { type: "string", minLength: 1, maxLength: 70 },
        email: { type: "string", format: "email" },
        iban: { type: "string", pattern: "^[A-Z]{2}[0-9]{2}[A-Z0-9]{10,30}$" },
      },
      required: ["name"],
      additionalProperties: false,
    },
    leg: {
      oneOf: [
        {
          type: "object",
          properties: { kind: { const: "sepa" }, iban: { type: "string" } },
          required: ["kind", "iban"],
        },
        {
          type: "object",
          properties: {
            kind: { const: "swift" },
            bic: { type: "string", minLength: 8, maxLength: 11 },
          },
          required: ["kind", "bic"],
        },
      ],
    },
  },
};

Deno.test("arbitraryForSchema() yields valid values for a realistic payment schema", () => {
  const values = assertAllValid(payment) as Obj[];
  const names = named(payment);
  for (const v of values) {
    for (const k of Object.keys(v)) assert.ok(names.has(k), k);
  }
});

Deno.test("arbitraryForSchema() uses only named properties, sometimes leaving optional ones out", () => {
  const schema = {
    type: "object",
    properties: { a: { type: "string" }, b: { type: "integer" } },
    required: ["a"],
  };
  const values = assertAllValid(schema) as Obj[];
  for (const v of values) {
    assert.deepEqual(Object.keys(v).filter((k) => k !== "a" && k !== "b"), []);
  }
  assert.ok(values.every((v) => "a" in v));
  assert.ok(values.some((v) => "b" in v) && values.some((v) => !("b" in v)));
});

Deno.test("arbitraryForSchema() adds unnamed properties only when asked and allowed", () => {
  const open = {
    type: "object",
    properties: { a: { type: "string" } },
    additionalProperties: { type: "integer" },
  };
  const values = assertAllValid(open, 200, { extraProperties: true }) as Obj[];
  assert.ok(values.some((v) => Object.keys(v).some((k) => k !== "a")));
  const closed = { ...open, additionalProperties: false };
  const closedValues = assertAllValid(closed, 100, {
    extraProperties: true,
  }) as Obj[];
  assert.ok(closedValues.every((v) => Object.keys(v).every((k) => k === "a")));
});

Deno.test("arbitraryForSchema() makes no unnamed property where a pattern covers every name, and ends", () => {
  // `a*` matches the empty string anywhere, so every name is covered: there is no extra member to
  // make (the name filter used to search for one forever).
  const covered = { patternProperties: { "a*": { type: "integer" }, "aaa*": { maximum: 20 } } };
  const values = assertAllValid(covered, 100, { extraProperties: true }) as Obj[];
  assert.equal(values.length, 100);
  // Where some names are free, extra members still come.
  const anchored = { type: "object", patternProperties: { "^a": { type: "integer" } } };
  const more = assertAllValid(anchored, 200, { extraProperties: true }) as Obj[];
  assert.ok(more.some((v) => Object.keys(v).some((k) => !k.startsWith("a"))));
});

Deno.test("arbitraryForSchema() generates every asserted format", () => {
  for (
    const format of [
      "date",
      "date-time",
      "time",
      "email",
      "uuid",
      "uri",
      "ipv4",
      "ipv6",
      "hostname",
    ]
  ) {
    assertAllValid({ type: "string", format }, 100);
  }
});

Deno.test("arbitraryForSchema() respects numeric bounds, exclusive ends and multipleOf", () => {
  assertAllValid({ type: "integer", exclusiveMinimum: 0, exclusiveMaximum: 3 });
  assertAllValid({ type: "integer", minimum: -7, maximum: 40, multipleOf: 5 });
  assertAllValid({ type: "integer", multipleOf: 0.5 });
  assertAllValid({
    type: "number",
    exclusiveMinimum: 0,
    maximum: 0.05,
    multipleOf: 0.01,
  });
  assertAllValid({ type: "number", minimum: 0.1, exclusiveMaximum: 0.2 });
  assertAllValid({ type: "number", minimum: 1e12 });
  assertAllValid({ type: "integer", maximum: -(2 ** 40) });
  const ints = assertAllValid({
    type: "integer",
    minimum: 1,
    maximum: 3,
  }) as number[];
  assert.deepEqual([...new Set(ints)].sort(), [1, 2, 3]);
});

Deno.test("arbitraryForSchema() respects string lengths in code points and patterns", () => {
  const values = assertAllValid({
    type: "string",
    minLength: 2,
    maxLength: 4,
  }) as string[];
  assert.ok(
    values.some((v) => [...v].length !== v.length),
    "some values have astral characters",
  );
  assertAllValid({ type: "string", pattern: "^[A-Z]{3}$" });
  assertAllValid({ type: "string", pattern: "[0-9]", maxLength: 3 });
  assertAllValid({ type: "string", format: "email", pattern: "\\.bank$" });
  assertAllValid({ type: "string", pattern: "^\\p{Lu}{3}$" });
  assertAllValid({ type: "string", pattern: "^[\\p{L}\\p{N} ]{2,8}$" });
});

Deno.test("arbitraryForSchema() handles arrays: tuples, draft-07 items, contains, uniqueness", () => {
  assertAllValid({
    type: "array",
    prefixItems: [{ type: "string" }, { type: "integer" }],
    items: false,
  });
  assertAllValid({
    type: "array",
    items: [{ type: "string" }],
    additionalItems: { type: "boolean" },
  });
  assertAllValid({
    type: "array",
    items: { type: "integer" },
    contains: { minimum: 10 },
    maxContains: 2,
  });
  const unique = assertAllValid({
    type: "array",
    items: { enum: ["a", "b", "c"] },
    uniqueItems: true,
    minItems: 2,
  }) as unknown[][];
  assert.ok(unique.every((v) => new Set(v).size === v.length));
});

Deno.test("arbitraryForSchema() handles applicators: allOf, anyOf, oneOf, if/then/else, not", () => {
  assertAllValid({
    allOf: [
      {
        type: "object",
        properties: { a: { type: "string" } },
        required: ["a"],
      },
      {
        properties: { a: { maxLength: 3 }, b: { type: "integer" } },
        required: ["b"],
      },
    ],
  });
  assertAllValid({
    anyOf: [{ type: "string", format: "uuid" }, {
      type: "integer",
      minimum: 0,
    }],
  });
  assertAllValid({
    oneOf: [{ type: "integer" }, { type: "number", minimum: 0.5 }],
  });
  assertAllValid({
    type: "object",
    properties: {
      kind: { enum: ["sepa", "fps"] },
      iban: { type: "string" },
      sortCode: { type: "string" },
    },
    required: ["kind"],
    if: { properties: { kind: { const: "sepa" } } },
    then: { required: ["iban"] },
    else: { required: ["sortCode"] },
  });
  assertAllValid({ type: ["string", "null"], not: { const: "" } });
});

Deno.test("arbitraryForSchema() follows required names through patternProperties and dependencies", () => {
  assertAllValid({
    type: "object",
    required: ["x-trace"],
    patternProperties: { "^x-": { type: "string", format: "uuid" } },
    additionalProperties: false,
  });
  const values = assertAllValid({
    type: "object",
    properties: {
      card: { type: "string" },
      cvc: { type: "string", pattern: "^[0-9]{3}$" },
    },
    dependentRequired: { card: ["cvc"] },
  }) as Obj[];
  assert.ok(values.some((v) => "card" in v));
});

Deno.test("arbitraryForSchema() bounds recursion through $ref with maxRefDepth", () => {
  const tree = {
    $ref: "#/$defs/node",
    $defs: {
      node: {
        type: "object",
        properties: {
          name: { type: "string" },
          children: { type: "array", items: { $ref: "#/$defs/node" } },
        },
        required: ["name"],
      },
    },
  };
  const depth = (v: unknown): number => {
    const kids = (v as Obj).children as unknown[] | undefined;
    return 1 + Math.max(0, ...(kids ?? []).map(depth));
  };
  const values = assertAllValid(tree, 100, { maxRefDepth: 3 });
  assert.ok(values.every((v) => depth(v) <= 3));
  assert.ok(values.some((v) => depth(v) >= 2));
});

Deno.test("arbitraryForSchema() throws SchemaGenerationError for a schema that accepts nothing", () => {
  const cases: [JsonSchema, RegExp][] = [
    [false, /\$: the schema is false/],
    [{ type: "integer", minimum: 5, maximum: 1 }, /no number satisfies/],
    [
      { type: "integer", exclusiveMinimum: 0, exclusiveMaximum: 1 },
      /no number satisfies/,
    ],
    [
      { type: "string", minLength: 5, maxLength: 2 },
      /minLength is above its maxLength/,
    ],
    [{ type: "string", enum: [1, 2] }, /no value of its enum/],
    [{ allOf: [{ type: "string" }, { type: "integer" }] }, /share no value/],
    [
      { type: "object", properties: { a: false }, required: ["a"] },
      /\$\.properties\.a: the schema is false/,
    ],
    [
      { type: "object", required: ["a"], additionalProperties: false },
      /\$\.properties\.a/,
    ],
    [
      { type: "object", minProperties: 2, properties: { a: {} } },
      /minProperties 2/,
    ],
    [{ $ref: "#/$defs/missing" }, /cannot resolve \$ref/],
    [{ type: "string", pattern: "(a)\\1" }, /pattern cannot be run/],
  ];
  for (const [schema, message] of cases) {
    assert.throws(() => arbitraryForSchema(schema), (e: unknown) => {
      assert.ok(e instanceof SchemaGenerationError, String(e));
      assert.match(e.message, message);
      return true;
    }, JSON.stringify(schema));
  }
});

Deno.test("arbitraryForSchema() throws SchemaGenerationError for a required recursion beyond maxRefDepth", () => {
  const endless = {
    $ref: "#/$defs/a",
    $defs: {
      a: {
        type: "object",
        properties: { next: { $ref: "#/$defs/a" } },
        required: ["next"],
      },
    },
  };
  assert.throws(() => arbitraryForSchema(endless), SchemaGenerationError);
});

Deno.test("arbitraryForSchema() throws SchemaGenerationError when a filtered keyword rejects every candidate", () => {
  const arb = arbitraryForSchema(
    { type: "boolean", not: { type: "boolean" } },
    {
      maxAttempts: 20,
    },
  );
  assert.throws(() => fc.sample(arb, 1), (e: unknown) => {
    assert.ok(e instanceof SchemaGenerationError);
    assert.match(e.message, /20 candidates in a row failed not/);
    return true;
  });
});

Deno.test("arbitraryForSchema() is deterministic for a seed", () => {
  const a = fc.sample(arbitraryForSchema(payment as JsonSchema), {
    numRuns: 20,
    seed: 7,
  });
  const b = fc.sample(arbitraryForSchema(payment as JsonSchema), {
    numRuns: 20,
    seed: 7,
  });
  assert.deepEqual(a, b);
});

/** Values from a seed (not `fc.gen()`), so that a failing case shrinks the schema and ends. */
function sample(schema: Obj, seed: number, n: number): unknown[] {
  return fc.sample(arbitraryForSchema(schema as JsonSchema), {
    numRuns: n,
    seed,
  });
}

Deno.test("arbitraryForSchema() yields only valid values for random tool schemas", () => {
  fc.assert(
    fc.property(toolSchema, fc.integer(), (schema, seed) => {
      const names = named(schema);
      for (const value of sample(schema, seed, 5)) {
        assert.deepEqual(
          validateSchema(schema as JsonSchema, value),
          [],
          JSON.stringify(value),
        );
        if (schema.type === "object") {
          for (const k of Object.keys(value as Obj)) {
            assert.ok(names.has(k), `unnamed property ${k}`);
          }
        }
      }
    }),
    { numRuns: 200 },
  );
});

Deno.test("arbitraryForSchema() yields valid values or a clear error for randomly edited schemas", () => {
  const edited = fc
    .tuple(toolSchema, fc.array(editArb, { minLength: 1, maxLength: 4 }))
    .map(([s, edits]) => applyEdits(s, edits).schema);
  fc.assert(
    fc.property(edited, fc.integer(), (schema, seed) => {
      let values: unknown[];
      try {
        values = sample(schema, seed, 3);
      } catch (e) {
        if (e instanceof SchemaGenerationError) return;
        throw e;
      }
      for (const value of values) {
        assert.deepEqual(
          validateSchema(schema as JsonSchema, value),
          [],
          JSON.stringify(value),
        );
      }
    }),
    { numRuns: 200 },
  );
});

Deno.test("arbitraryForSchema() yields valid values or a clear error for schemas that mix every keyword", () => {
  let generated = 0;
  fc.assert(
    fc.property(soupSchema, fc.integer(), (schema, seed) => {
      let values: unknown[];
      try {
        values = fc.sample(
          arbitraryForSchema(schema as JsonSchema, { maxAttempts: 50 }),
          {
            numRuns: 3,
            seed,
          },
        );
      } catch (e) {
        if (e instanceof SchemaGenerationError) return;
        throw e;
      }
      generated++;
      for (const value of values) {
        assert.deepEqual(
          validateSchema(schema as JsonSchema, value),
          [],
          JSON.stringify(value),
        );
      }
    }),
    { numRuns: 300 },
  );
  assert.ok(
    generated > 150,
    `only ${generated} of 300 schemas could be generated for`,
  );
});
