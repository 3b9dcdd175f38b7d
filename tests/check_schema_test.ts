import assert from "node:assert/strict";
import { checkSchema, isValid, type SchemaIssue, validateSchema } from "../mod.ts";

const brief = (issues: SchemaIssue[]): string[] => issues.map((i) => `${i.path} ${i.keyword}`);

Deno.test("checkSchema() accepts a schema the validator fully enforces", () => {
  assert.deepEqual(
    checkSchema({
      $schema: "https://json-schema.org/draft/2020-12/schema",
      type: "object",
      title: "Lookup",
      properties: {
        reference: {
          type: "string",
          pattern: "^PMT-[0-9]+$",
          description: "payment reference",
        },
        legs: { type: "array", items: { $ref: "#/$defs/leg" } },
      },
      required: ["reference"],
      additionalProperties: false,
      $defs: {
        leg: {
          type: "object",
          properties: { amount: { type: "number", multipleOf: 0.01 } },
        },
      },
      "x-owner-note": "extension annotations are allowed",
    }),
    [],
  );
});

Deno.test("checkSchema() reports a root that is not type object, for a tool input schema only", () => {
  assert.deepEqual(brief(checkSchema({ type: "string" })), ["$ type"]);
  assert.deepEqual(brief(checkSchema(true)), ["$ type"]);
  assert.deepEqual(checkSchema({ type: "string" }, { toolInput: false }), []);
});

Deno.test("checkSchema() reports unknown and unsupported keywords at their nodes", () => {
  const issues = checkSchema({
    type: "object",
    properties: { a: { type: "string", maxlength: 3 } },
    unevaluatedProperties: false,
    $defs: { d: { $dynamicRef: "#x" } },
  });
  assert.deepEqual(brief(issues), [
    "$.$defs.d.$dynamicRef $dynamicRef",
    "$.properties.a.maxlength maxlength",
    "$.unevaluatedProperties unevaluatedProperties",
  ]);
  assert.match(issues[1].message, /unknown keyword maxlength/);
  assert.match(issues[2].message, /unsupported keyword unevaluatedProperties/);
});

Deno.test("checkSchema() reports remote and dangling $ref", () => {
  const issues = checkSchema({
    type: "object",
    properties: {
      a: { $ref: "https://example.com/a.json" },
      b: { $ref: "#/$defs/missing" },
      c: { $ref: "#/$defs/ok" },
    },
    $defs: { ok: { type: "string" } },
  });
  assert.deepEqual(brief(issues), [
    "$.properties.a.$ref $ref",
    "$.properties.b.$ref $ref",
  ]);
  assert.match(issues[0].message, /remote \$ref/);
  assert.match(issues[1].message, /dangling \$ref/);
});

Deno.test("checkSchema() reports patterns it cannot run safely, and invalid ones", () => {
  const issues = checkSchema({
    type: "object",
    properties: {
      a: { type: "string", pattern: "^(?=x)y" },
      b: { type: "string", pattern: "(" },
    },
    patternProperties: { "(a)\\1": { type: "string" } },
  });
  assert.deepEqual(brief(issues), [
    '$.patternProperties["(a)\\\\1"] pattern',
    "$.properties.a.pattern pattern",
    "$.properties.b.pattern pattern",
  ]);
  assert.match(issues[1].message, /lookahead/);
  assert.match(issues[2].message, /invalid regular expression/);
  // A catastrophic pattern is fine: it runs on the linear-time engine.
  assert.deepEqual(
    checkSchema({ type: "object", properties: { a: { pattern: "^(a+)+$" } } }),
    [],
  );
});

Deno.test("checkSchema() reports keyword values of the wrong shape", () => {
  const issues = checkSchema({
    type: "object",
    required: "amount",
    properties: {
      n: {
        type: "decimal",
        minimum: "0",
        maxLength: -1,
        exclusiveMinimum: true,
        multipleOf: 0,
      },
    },
  });
  assert.deepEqual(brief(issues), [
    "$.properties.n.exclusiveMinimum exclusiveMinimum",
    "$.properties.n.maxLength maxLength",
    "$.properties.n.minimum minimum",
    "$.properties.n.multipleOf multipleOf",
    "$.properties.n.type type",
    "$.required required",
  ]);
  assert.match(issues[0].message, /draft-04/);
});

Deno.test("a $ref cycle that never moves in the value: checkSchema reports it, and the compiled schema accepts nothing, at once", () => {
  // Each level of `a` tries two branches that both lead back to `a` on the same value: without
  // the rule, testing a number doubles its work at every level.
  const loop = {
    type: "object",
    properties: { n: { $ref: "#/$defs/a" } },
    $defs: {
      a: { anyOf: [{ type: "string" }, { $ref: "#/$defs/b" }, { $ref: "#/$defs/a" }] },
      b: { allOf: [{ $ref: "#/$defs/a" }] },
    },
  };
  const issues = checkSchema(loop);
  assert.deepEqual(brief(issues), ["$.$defs.b.allOf[0].$ref $ref"]);
  assert.match(issues[0].message, /refers back to \$\.\$defs\.a without moving/);
  assert.match(issues[0].message, /\$\.\$defs\.a → \$\.\$defs\.a\.anyOf\[1\] → \$\.\$defs\.b/);
  for (const value of [{ n: 1 }, { n: "x" }, {}, 1]) {
    assert.equal(isValid(loop, value), false);
    assert.deepEqual(
      validateSchema(loop, value).map((i) => `${i.path} ${i.keyword} ${i.schemaPath}`),
      ["$ $ref $.$defs.b.allOf[0].$ref"],
    );
  }
  // `not`, `if`/`then`/`else` and `dependentSchemas` test the same value too; a bare `$ref: "#"`
  // at the root is the shortest cycle.
  for (
    const s of [
      { $ref: "#" },
      { $defs: { a: { not: { $ref: "#/$defs/a" } } }, properties: { x: { $ref: "#/$defs/a" } } },
      { if: true, then: { $ref: "#" } },
      { dependentSchemas: { a: { $ref: "#" } } },
    ]
  ) {
    assert.equal(checkSchema(s, { toolInput: false }).length, 1, JSON.stringify(s));
    assert.equal(isValid(s, {}), false, JSON.stringify(s));
  }
  // Recursion through a member or an item ends with the value: no issue.
  const tree = {
    type: "object",
    properties: {
      children: { type: "array", items: { $ref: "#" } },
      parent: { anyOf: [{ type: "null" }, { $ref: "#" }] },
    },
  };
  assert.deepEqual(checkSchema(tree), []);
  assert.equal(isValid(tree, { children: [{ parent: null }, { parent: { children: [] } }] }), true);
});
