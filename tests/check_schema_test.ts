import assert from "node:assert/strict";
import { checkSchema, type SchemaIssue } from "../mod.ts";

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
