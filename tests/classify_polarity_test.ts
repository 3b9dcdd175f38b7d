/**
 * The classifier in non-monotone positions (`not`, `if`, `oneOf`, `contains` with `maxContains`)
 * and where several subschemas apply to the same object (`allOf`, `if`/`then`,
 * `dependentSchemas`, `contains` beside `items`): each case is a pair whose old schema accepts a
 * value the new one rejects, or a pair whose values are exactly the same.
 */
import assert from "node:assert/strict";
import { classifySchemaChange, type JsonSchema, validateSchema } from "../mod.ts";

/** Asserts the bump, and for a breaking pair that the witness proves it. */
function expect(
  before: JsonSchema,
  after: JsonSchema,
  bump: "patch" | "minor" | "major",
  witness?: unknown,
): void {
  const r = classifySchemaChange(before, after);
  assert.equal(r.bump, bump, JSON.stringify(r.changes, null, 1));
  if (witness !== undefined) {
    assert.deepEqual(
      validateSchema(before, witness),
      [],
      "the witness passes the old schema",
    );
    assert.notDeepEqual(
      validateSchema(after, witness),
      [],
      "the witness fails the new schema",
    );
  }
}

Deno.test("classifySchemaChange() calls widening an empty subschema under not major", () => {
  // {"const":1,"enum":[2]} accepts nothing, so the old schema accepts 1; the new one rejects it.
  expect({ not: { const: 1, enum: [2] } }, { not: { const: 1 } }, "major", 1);
});

Deno.test("classifySchemaChange() calls widening an empty subschema in a positive place minor, not patch", () => {
  expect({ const: 1, enum: [2] }, { const: 1 }, "minor");
  expect(
    { type: "object", properties: { a: { const: 1, enum: [2] } } },
    { type: "object", properties: { a: { const: 1 } } },
    "minor",
  );
});

Deno.test("classifySchemaChange() calls a changed multipleOf under not major even when the old enum hides it", () => {
  // {enum: [6, 3], multipleOf: 2} accepts 6 only; with multipleOf 3 it accepts 6 and 3.
  expect(
    { enum: [6, 3], multipleOf: 2 },
    { enum: [6, 3], multipleOf: 3 },
    "minor",
  );
  expect(
    { not: { enum: [6, 3], multipleOf: 2 } },
    { not: { enum: [6, 3], multipleOf: 3 } },
    "major",
    3,
  );
});

Deno.test("classifySchemaChange() calls a bound edit on an absent kind patch only when neither side has that kind", () => {
  // Neither side accepts numbers: the numeric keyword is inert.
  expect({ not: { type: "string", minimum: 5 } }, {
    not: { type: "string", minimum: 3 },
  }, "patch");
  // The new side accepts numbers through the edit's own type change.
  expect(
    { not: { type: "string", maximum: 5 } },
    { not: { type: ["string", "number"], maximum: 3 } },
    "major",
    2,
  );
});

Deno.test("classifySchemaChange() calls widening an if major", () => {
  expect(
    { if: { const: 1, enum: [2] }, then: false },
    { if: { const: 1 }, then: false },
    "major",
    1,
  );
});

Deno.test("classifySchemaChange() calls widening one oneOf branch into another major", () => {
  expect(
    { oneOf: [{ type: "integer" }, { const: 1.5, enum: [2] }] },
    { oneOf: [{ type: "integer" }, { const: 2 }] },
    "major",
    2 + 0, // 2 matched only the integer branch; now it matches both
  );
});

Deno.test("classifySchemaChange() calls widening contains major when maxContains bounds it", () => {
  expect(
    {
      type: "array",
      contains: { const: 1, enum: [2] },
      minContains: 0,
      maxContains: 0,
    },
    { type: "array", contains: { const: 1 }, minContains: 0, maxContains: 0 },
    "major",
    [1],
  );
});

Deno.test("classifySchemaChange() calls a property added beside an allOf branch that names it major", () => {
  const before = {
    type: "object",
    allOf: [{ properties: { a: { type: "number" } } }],
  };
  const after = { ...before, properties: { a: { type: "string" } } };
  expect(before, after, "major", { a: 1 });
  // Naming it without constraining it is no narrowing.
  expect(
    before,
    { ...before, properties: { a: { description: "A" } } },
    "patch",
  );
});

Deno.test("classifySchemaChange() calls a property added in an allOf branch beside the root's major", () => {
  const before = {
    type: "object",
    properties: { a: { type: "number" } },
    allOf: [{ required: [] }],
  };
  const after = {
    type: "object",
    properties: { a: { type: "number" } },
    allOf: [{ required: [], properties: { a: { minimum: 5 } } }],
  };
  expect(before, after, "major", { a: 1 });
});

Deno.test("classifySchemaChange() calls a property added in then where the root names it major", () => {
  expect(
    {
      type: "object",
      properties: { a: {} },
      if: { required: ["b"] },
      then: {},
    },
    {
      type: "object",
      properties: { a: {} },
      if: { required: ["b"] },
      then: { properties: { a: { type: "string" } } },
    },
    "major",
    { a: 1, b: 0 },
  );
});

Deno.test("classifySchemaChange() calls a property added in a dependent schema where the root names it major", () => {
  for (const kw of ["dependentSchemas", "dependencies"]) {
    expect(
      {
        type: "object",
        properties: { a: { type: "number" } },
        [kw]: { b: {} },
      },
      {
        type: "object",
        properties: { a: { type: "number" } },
        [kw]: { b: { properties: { a: { maximum: 0 } } } },
      },
      "major",
      { a: 1, b: true },
    );
  }
});

Deno.test("classifySchemaChange() calls a property added where a pattern already matches it major", () => {
  expect(
    { type: "object", patternProperties: { "^a": { type: "number" } } },
    {
      type: "object",
      patternProperties: { "^a": { type: "number" } },
      properties: { ab: { type: "integer" } },
    },
    "major",
    { ab: 1.5 },
  );
});

Deno.test("classifySchemaChange() calls a property added inside contains major", () => {
  expect(
    { type: "array", contains: { type: "object" } },
    {
      type: "array",
      contains: { type: "object", properties: { a: { type: "string" } } },
    },
    "major",
    [{ a: 1 }],
  );
  // Beside items that name it, too.
  expect(
    {
      type: "array",
      items: { type: "object", properties: { a: {} } },
      contains: { type: "object" },
    },
    {
      type: "array",
      items: { type: "object", properties: { a: {} } },
      contains: { type: "object", properties: { a: { type: "string" } } },
    },
    "major",
    [{ a: 1 }],
  );
});

Deno.test("classifySchemaChange() still calls an optional property nobody names minor", () => {
  expect(
    { type: "object", properties: { a: { type: "number" } } },
    {
      type: "object",
      properties: { a: { type: "number" }, b: { type: "string" } },
    },
    "minor",
  );
  // Named in a sibling object elsewhere is not named here.
  expect(
    {
      type: "object",
      properties: {
        x: { type: "object" },
        y: { type: "object", properties: { b: {} } },
      },
    },
    {
      type: "object",
      properties: {
        x: { type: "object", properties: { b: { type: "string" } } },
        y: { type: "object", properties: { b: {} } },
      },
    },
    "minor",
  );
});

Deno.test("classifySchemaChange() calls integer multipleOf 1.5 and 3 the same values", () => {
  expect({ type: "integer", multipleOf: 1.5 }, {
    type: "integer",
    multipleOf: 3,
  }, "patch");
  expect({ type: "integer", multipleOf: 3 }, {
    type: "integer",
    multipleOf: 1.5,
  }, "patch");
  expect({ type: "integer", multipleOf: 0.5 }, { type: "integer" }, "patch");
  expect({ type: "integer", multipleOf: 6 }, {
    type: "integer",
    multipleOf: 1.5,
  }, "minor");
  expect(
    { type: "integer", multipleOf: 1.5 },
    { type: "integer", multipleOf: 2 },
    "major",
    3,
  );
});

Deno.test("classifySchemaChange() calls a single-branch anyOf, allOf or oneOf the same values as its branch", () => {
  const x = { type: "string", maxLength: 8 };
  for (const kw of ["anyOf", "allOf", "oneOf"]) {
    expect(x, { [kw]: [x] }, "patch");
    expect({ [kw]: [x] }, x, "patch");
    expect({ not: x }, { not: { [kw]: [x] } }, "patch");
    expect(x, { [kw]: [{ ...x, maxLength: 4 }] }, "major", "abcdefg");
  }
  expect(
    { type: "object", properties: { a: { type: "integer" } } },
    { allOf: [{ type: "object", properties: { a: { type: "integer" } } }] },
    "patch",
  );
});

Deno.test("classifySchemaChange() calls minContains 0 removed major even when the old enum allows an empty array", () => {
  // Found by the soundness run (keyword soup, seed 20261130, pair 1404).
  expect(
    { contains: true, minContains: 0, enum: [null, [], {}] },
    { contains: true, enum: [null, [], {}] },
    "major",
    [],
  );
});
