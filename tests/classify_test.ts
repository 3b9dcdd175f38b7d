import assert from "node:assert/strict";
import fc from "fast-check";
import {
  CLASSIFY_BUDGET_PER_NODE,
  classifyOutputSchemaChange,
  classifySchemaChange,
  DEFAULT_CLASSIFY_BUDGET,
  defaultClassifyBudget,
  type JsonSchema,
  SCHEMA_CHANGE_KINDS,
  type SchemaChangeClassification,
} from "../mod.ts";
import { applyEdits, editArb, toolSchema } from "./_random_schemas.ts";
import { recursiveSchema } from "./_recursive_schemas.ts";

type Obj = Record<string, unknown>;

/** A tool input schema: an object with the given properties and required names. */
function tool(properties: Obj, required: string[] = [], extra: Obj = {}): Obj {
  return { type: "object", properties, required, ...extra };
}

/** The changes as `path kind bump` lines, which is what most tests assert. */
function lines(r: SchemaChangeClassification): string[] {
  return r.changes.map((c) => `${c.path} ${c.kind} ${c.bump}`);
}

function classify(a: JsonSchema, b: JsonSchema): SchemaChangeClassification {
  const r = classifySchemaChange(a, b);
  // Every result keeps the invariants: the bump is the largest change bump, changes are known kinds.
  const rank = { patch: 0, minor: 1, major: 2 };
  const top = r.changes.reduce((m, c) => Math.max(m, rank[c.bump]), 0);
  assert.equal(rank[r.bump], top);
  for (const c of r.changes) {
    assert.ok(SCHEMA_CHANGE_KINDS.includes(c.kind), c.kind);
  }
  return r;
}

const payment = tool(
  {
    reference: { type: "string", description: "The payment reference." },
    amount: { type: "integer", minimum: 1 },
    currency: { enum: ["EUR", "GBP", "USD"] },
    note: { type: "string", maxLength: 140 },
  },
  ["reference", "amount"],
  { additionalProperties: false },
);

// --- identity -----------------------------------------------------------------------------

Deno.test("classifySchemaChange() calls an identical schema patch with no changes", () => {
  assert.deepEqual(classify(payment, structuredClone(payment)), {
    bump: "patch",
    changes: [],
  });
});

Deno.test("classifySchemaChange() ignores key order", () => {
  const reordered = {
    additionalProperties: false,
    required: ["reference", "amount"],
    properties: {
      note: { maxLength: 140, type: "string" },
      currency: { enum: ["EUR", "GBP", "USD"] },
      amount: { minimum: 1, type: "integer" },
      reference: { description: "The payment reference.", type: "string" },
    },
    type: "object",
  };
  assert.deepEqual(classify(payment, reordered), {
    bump: "patch",
    changes: [],
  });
});

// --- the six asymmetries ------------------------------------------------------------------

Deno.test("classifySchemaChange() calls an added required property major", () => {
  const next = tool({
    ...payment.properties as Obj,
    valueDate: { type: "string" },
  }, [
    "reference",
    "amount",
    "valueDate",
  ], { additionalProperties: false });
  const r = classify(payment, next);
  assert.equal(r.bump, "major");
  assert.deepEqual(r.changes, [{
    path: "$.properties.valueDate",
    kind: "required-added",
    bump: "major",
    message: "added required property valueDate: callers that omit it are now rejected",
  }]);
});

Deno.test("classifySchemaChange() calls a property no longer required minor", () => {
  const next = { ...payment, required: ["reference"] };
  const r = classify(payment, next);
  assert.equal(r.bump, "minor");
  assert.deepEqual(r.changes, [{
    path: "$.properties.amount",
    kind: "required-removed",
    bump: "minor",
    message: "property amount is no longer required: callers may now omit it",
  }]);
});

Deno.test("classifySchemaChange() calls a removed property major on a closed object", () => {
  const { note: _, ...rest } = payment.properties as Obj;
  const r = classify(payment, { ...payment, properties: rest });
  assert.equal(r.bump, "major");
  assert.deepEqual(r.changes, [{
    path: "$.properties.note",
    kind: "property-removed",
    bump: "major",
    message: "removed property note: callers that send it are now rejected",
  }]);
});

Deno.test("classifySchemaChange() calls a removed property major on an open object", () => {
  const open = tool({ a: { type: "string" }, b: { type: "integer" } });
  const r = classify(open, tool({ a: { type: "string" } }));
  assert.deepEqual(lines(r), ["$.properties.b property-removed major"]);
  assert.match(
    r.changes[0].message,
    /^removed property b: callers that send it/,
  );
});

Deno.test("classifySchemaChange() calls a removed required property major", () => {
  const props = { ...payment.properties as Obj };
  delete props.amount;
  const r = classify(payment, {
    ...payment,
    properties: props,
    required: ["reference"],
  });
  assert.deepEqual(lines(r), ["$.properties.amount property-removed major"]);
});

Deno.test("classifySchemaChange() calls an added optional property minor on a closed object", () => {
  const next = {
    ...payment,
    properties: { ...payment.properties as Obj, memo: { type: "string" } },
  };
  const r = classify(payment, next);
  assert.deepEqual(r.changes, [{
    path: "$.properties.memo",
    kind: "property-added",
    bump: "minor",
    message: "added optional property memo: callers may now send it",
  }]);
});

Deno.test("classifySchemaChange() calls an added optional property minor on an open object", () => {
  const r = classify(
    tool({ a: { type: "string" } }),
    tool({ a: { type: "string" }, b: {} }),
  );
  assert.deepEqual(lines(r), ["$.properties.b property-added minor"]);
});

Deno.test("classifySchemaChange() calls a narrowed enum major", () => {
  const next = {
    ...payment,
    properties: {
      ...payment.properties as Obj,
      currency: { enum: ["EUR", "GBP"] },
    },
  };
  const r = classify(payment, next);
  assert.deepEqual(r.changes, [{
    path: "$.properties.currency.enum",
    kind: "enum-narrowed",
    bump: "major",
    message: 'enum no longer allows "USD": callers that send it are now rejected',
  }]);
});

Deno.test("classifySchemaChange() calls a widened enum minor", () => {
  const next = {
    ...payment,
    properties: {
      ...payment.properties as Obj,
      currency: { enum: ["EUR", "GBP", "USD", "CHF"] },
    },
  };
  const r = classify(payment, next);
  assert.deepEqual(r.changes, [{
    path: "$.properties.currency.enum",
    kind: "enum-widened",
    bump: "minor",
    message: 'enum now also allows "CHF": callers may now send it',
  }]);
});

// --- optional <-> required ----------------------------------------------------------------

Deno.test("classifySchemaChange() calls optional to required major and required to optional minor", () => {
  const a = tool({ x: { type: "string" } }, []);
  const b = tool({ x: { type: "string" } }, ["x"]);
  assert.deepEqual(lines(classify(a, b)), [
    "$.properties.x required-added major",
  ]);
  assert.deepEqual(lines(classify(b, a)), [
    "$.properties.x required-removed minor",
  ]);
});

Deno.test("classifySchemaChange() treats a name only in required as named", () => {
  // The old schema names `a` through required alone (any value); typing it rejects old values.
  const a = { type: "object", required: ["a"] };
  const b = {
    type: "object",
    properties: { a: { type: "number" } },
    required: ["a"],
  };
  assert.deepEqual(lines(classify(a, b)), [
    "$.properties.a.type type-narrowed major",
  ]);
  assert.deepEqual(lines(classify(b, a)), [
    "$.properties.a.type type-widened minor",
  ]);
});

// --- types ----------------------------------------------------------------------------------

Deno.test("classifySchemaChange() calls integer to number minor and number to integer major", () => {
  const i = tool({ n: { type: "integer" } }),
    n = tool({ n: { type: "number" } });
  const up = classify(i, n), down = classify(n, i);
  assert.deepEqual(lines(up), ["$.properties.n.type type-widened minor"]);
  assert.equal(
    up.changes[0].message,
    "type widened from integer to number: callers may now send fractional numbers",
  );
  assert.deepEqual(lines(down), ["$.properties.n.type type-narrowed major"]);
  assert.match(
    down.changes[0].message,
    /fractional numbers such as 1\.5 are now rejected/,
  );
});

Deno.test("classifySchemaChange() calls a type added to a list minor and removed major", () => {
  const one = tool({ v: { type: ["string"] } }),
    two = tool({ v: { type: ["string", "null"] } });
  assert.deepEqual(lines(classify(one, two)), [
    "$.properties.v.type type-widened minor",
  ]);
  const r = classify(two, one);
  assert.deepEqual(lines(r), ["$.properties.v.type type-narrowed major"]);
  assert.match(
    r.changes[0].message,
    /no longer allows null: callers that send a null/,
  );
});

Deno.test("classifySchemaChange() calls a type written as a one-item list patch", () => {
  const r = classify(
    tool({ v: { type: "string" } }),
    tool({ v: { type: ["string"] } }),
  );
  assert.deepEqual(lines(r), ["$.properties.v.type rewritten patch"]);
});

Deno.test("classifySchemaChange() calls a type added next to an enum patch when every value has it", () => {
  const r = classify(
    tool({ c: { enum: ["EUR", "GBP"] } }),
    tool({ c: { type: "string", enum: ["EUR", "GBP"] } }),
  );
  assert.deepEqual(lines(r), ["$.properties.c.type type-narrowed patch"]);
  const mixed = classify(
    tool({ c: { enum: ["EUR", 1] } }),
    tool({ c: { type: "string", enum: ["EUR", 1] } }),
  );
  assert.deepEqual(lines(mixed), ["$.properties.c.type type-narrowed major"]);
});

// --- numeric bounds -------------------------------------------------------------------------

Deno.test("classifySchemaChange() calls added and tightened numeric bounds major", () => {
  const base = tool({ n: { type: "number", minimum: 0, maximum: 100 } });
  const cases: [Obj, string][] = [
    [
      { type: "number", minimum: 1, maximum: 100 },
      "$.properties.n.minimum bound-tightened major",
    ],
    [
      { type: "number", minimum: 0, maximum: 99 },
      "$.properties.n.maximum bound-tightened major",
    ],
    [
      { type: "number", exclusiveMinimum: 0, maximum: 100 },
      "$.properties.n.exclusiveMinimum bound-tightened major",
    ],
    [
      { type: "number", minimum: 0, exclusiveMaximum: 100 },
      "$.properties.n.exclusiveMaximum bound-tightened major",
    ],
  ];
  for (const [next, expected] of cases) {
    assert.deepEqual(
      lines(classify(base, tool({ n: next }))),
      [expected],
      JSON.stringify(next),
    );
  }
  const added = classify(tool({ n: { type: "number" } }), base);
  assert.deepEqual(lines(added), [
    "$.properties.n.maximum bound-tightened major",
    "$.properties.n.minimum bound-tightened major",
  ]);
  assert.equal(
    added.changes[1].message,
    "minimum 0 added: callers that send values below 0 are now rejected",
  );
});

Deno.test("classifySchemaChange() calls removed and loosened numeric bounds minor", () => {
  const base = tool({
    n: { type: "number", exclusiveMinimum: 0, maximum: 100 },
  });
  assert.deepEqual(
    lines(
      classify(base, tool({ n: { type: "number", minimum: 0, maximum: 100 } })),
    ),
    ["$.properties.n.minimum bound-loosened minor"],
  );
  assert.deepEqual(
    lines(
      classify(
        base,
        tool({ n: { type: "number", exclusiveMinimum: 0, maximum: 101 } }),
      ),
    ),
    ["$.properties.n.maximum bound-loosened minor"],
  );
  assert.deepEqual(lines(classify(base, tool({ n: { type: "number" } }))), [
    "$.properties.n.exclusiveMinimum bound-loosened minor",
    "$.properties.n.maximum bound-loosened minor",
  ]);
});

Deno.test("classifySchemaChange() compares exclusive and inclusive integer bounds exactly", () => {
  const a = tool({ n: { type: "integer", minimum: 1, maximum: 9 } });
  const b = tool({
    n: { type: "integer", exclusiveMinimum: 0, exclusiveMaximum: 10 },
  });
  assert.equal(classify(a, b).bump, "patch");
  assert.equal(classify(b, a).bump, "patch");
  assert.deepEqual(lines(classify(a, b)), [
    "$.properties.n.exclusiveMaximum rewritten patch",
    "$.properties.n.exclusiveMinimum rewritten patch",
  ]);
  // On numbers the same edit rejects 0.5: minimum 1 is tighter than exclusiveMinimum 0.
  const c = tool({ n: { type: "number", exclusiveMinimum: 0 } });
  assert.deepEqual(
    lines(classify(c, tool({ n: { type: "number", minimum: 1 } }))),
    [
      "$.properties.n.minimum bound-tightened major",
    ],
  );
});

Deno.test("classifySchemaChange() keeps the tighter of minimum and exclusiveMinimum", () => {
  const a = tool({ n: { type: "number", minimum: 5, exclusiveMinimum: 0 } });
  const b = tool({ n: { type: "number", minimum: 5, exclusiveMinimum: 3 } });
  assert.equal(classify(a, b).bump, "patch");
});

Deno.test("classifySchemaChange() compares multipleOf by divisibility", () => {
  const m = (x?: number) => tool({ n: { type: "number", ...(x ? { multipleOf: x } : {}) } });
  assert.deepEqual(lines(classify(m(10), m(5))), [
    "$.properties.n.multipleOf bound-loosened minor",
  ]);
  assert.deepEqual(lines(classify(m(5), m(10))), [
    "$.properties.n.multipleOf bound-tightened major",
  ]);
  assert.deepEqual(lines(classify(m(0.02), m(0.01))), [
    "$.properties.n.multipleOf bound-loosened minor",
  ]);
  assert.deepEqual(lines(classify(m(0.01), m(0.03))), [
    "$.properties.n.multipleOf bound-tightened major",
  ]);
  assert.deepEqual(lines(classify(m(), m(0.01))), [
    "$.properties.n.multipleOf bound-tightened major",
  ]);
  assert.deepEqual(lines(classify(m(0.01), m())), [
    "$.properties.n.multipleOf bound-loosened minor",
  ]);
  // Every integer is a multiple of 0.5.
  const i = tool({ n: { type: "integer" } });
  assert.equal(
    classify(i, tool({ n: { type: "integer", multipleOf: 0.5 } })).bump,
    "patch",
  );
});

// --- lengths, counts, uniqueness ------------------------------------------------------------

Deno.test("classifySchemaChange() treats length, item and property counts as bounds", () => {
  const cases: [Obj, Obj, string][] = [
    [
      { type: "string" },
      { type: "string", maxLength: 5 },
      "maxLength bound-tightened major",
    ],
    [
      { type: "string", maxLength: 5 },
      { type: "string" },
      "maxLength bound-loosened minor",
    ],
    [
      { type: "string", minLength: 1 },
      { type: "string", minLength: 2 },
      "minLength bound-tightened major",
    ],
    [
      { type: "string", minLength: 2 },
      { type: "string", minLength: 0 },
      "minLength bound-loosened minor",
    ],
    [
      { type: "array" },
      { type: "array", minItems: 1 },
      "minItems bound-tightened major",
    ],
    [
      { type: "array", maxItems: 3 },
      { type: "array", maxItems: 4 },
      "maxItems bound-loosened minor",
    ],
    [
      { type: "array" },
      { type: "array", uniqueItems: true },
      "uniqueItems bound-tightened major",
    ],
    [
      { type: "array", uniqueItems: true },
      { type: "array" },
      "uniqueItems bound-loosened minor",
    ],
    [
      { type: "object" },
      { type: "object", maxProperties: 2 },
      "maxProperties bound-tightened major",
    ],
    [
      { type: "object", minProperties: 1 },
      { type: "object" },
      "minProperties bound-loosened minor",
    ],
    [
      { type: "array", contains: { type: "string" } },
      { type: "array", contains: { type: "string" }, minContains: 2 },
      "minContains bound-tightened major",
    ],
    [
      { type: "array", contains: { type: "string" }, maxContains: 2 },
      { type: "array", contains: { type: "string" } },
      "maxContains bound-loosened minor",
    ],
  ];
  for (const [a, b, expected] of cases) {
    assert.deepEqual(lines(classify(tool({ v: a }), tool({ v: b }))), [
      `$.properties.v.${expected}`,
    ], `${JSON.stringify(a)} -> ${JSON.stringify(b)}`);
  }
});

Deno.test("classifySchemaChange() calls uniqueItems false and absent the same", () => {
  const r = classify(
    tool({ v: { type: "array" } }),
    tool({ v: { type: "array", uniqueItems: false } }),
  );
  assert.deepEqual(lines(r), ["$.properties.v.uniqueItems rewritten patch"]);
});

// --- pattern, format, const -----------------------------------------------------------------

Deno.test("classifySchemaChange() calls a pattern added or changed major and removed minor", () => {
  const s = (p?: string) => tool({ r: { type: "string", ...(p ? { pattern: p } : {}) } });
  assert.deepEqual(lines(classify(s(), s("^PMT-"))), [
    "$.properties.r.pattern pattern-added major",
  ]);
  assert.deepEqual(lines(classify(s("^PMT-"), s())), [
    "$.properties.r.pattern pattern-removed minor",
  ]);
  // Even a pattern that accepts more is major: regex inclusion is not decided.
  const r = classify(s("^PMT-[0-9]+$"), s("^PMT-"));
  assert.deepEqual(lines(r), ["$.properties.r.pattern pattern-changed major"]);
  assert.match(
    r.changes[0].message,
    /inclusion between regular expressions is not decided/,
  );
});

Deno.test("classifySchemaChange() calls a format added or changed major and removed minor", () => {
  const s = (f?: string) => tool({ d: { type: "string", ...(f ? { format: f } : {}) } });
  assert.deepEqual(lines(classify(s(), s("date"))), [
    "$.properties.d.format format-added major",
  ]);
  assert.deepEqual(lines(classify(s("date"), s())), [
    "$.properties.d.format format-removed minor",
  ]);
  assert.deepEqual(lines(classify(s("date"), s("date-time"))), [
    "$.properties.d.format format-changed major",
  ]);
});

Deno.test("classifySchemaChange() compares const as a one-value enum", () => {
  const c = (v: Obj) => tool({ k: v });
  const r = classify(c({ const: "sepa" }), c({ const: "swift" }));
  assert.deepEqual(r.changes, [{
    path: "$.properties.k.const",
    kind: "const-changed",
    bump: "major",
    message: 'const changed from "sepa" to "swift": callers that send "sepa" are now rejected',
  }]);
  assert.deepEqual(lines(classify(c({ const: "sepa" }), c({}))), [
    "$.properties.k.const const-removed minor",
  ]);
  assert.deepEqual(lines(classify(c({}), c({ const: "sepa" }))), [
    "$.properties.k.const const-changed major",
  ]);
  assert.deepEqual(
    lines(classify(c({ const: "sepa" }), c({ enum: ["sepa", "swift"] }))),
    [
      "$.properties.k.enum enum-widened minor",
    ],
  );
  assert.deepEqual(
    lines(classify(c({ const: "sepa" }), c({ enum: ["sepa"] }))),
    [
      "$.properties.k.enum rewritten patch",
    ],
  );
});

Deno.test("classifySchemaChange() compares enum values by JSON equality, 0 not false", () => {
  const r = classify(
    tool({ v: { enum: [0, { a: 1, b: 2 }] } }),
    tool({ v: { enum: [false, { b: 2, a: 1 }] } }),
  );
  assert.deepEqual(lines(r), [
    "$.properties.v.enum enum-narrowed major",
    "$.properties.v.enum enum-widened minor",
  ]);
  assert.match(r.changes[0].message, /no longer allows 0:/);
});

// --- patch-level rewrites -------------------------------------------------------------------

Deno.test("classifySchemaChange() calls reordered enum and required patch", () => {
  const a = tool({ c: { enum: ["EUR", "GBP"] }, x: {} }, ["c", "x"]);
  const b = tool({ c: { enum: ["GBP", "EUR"] }, x: {} }, ["x", "c"]);
  const r = classify(a, b);
  assert.equal(r.bump, "patch");
  assert.deepEqual(lines(r), [
    "$.properties.c.enum enum-reordered patch",
    "$.required required-reordered patch",
  ]);
});

Deno.test("classifySchemaChange() calls description, title, examples and $comment patch", () => {
  const a = tool({ r: { type: "string", description: "Reference." } });
  const b = {
    ...tool({
      r: {
        type: "string",
        description: "The payment reference.",
        examples: ["PMT-1"],
      },
    }),
    title: "Lookup",
    $comment: "v2",
  };
  const r = classify(a, b);
  assert.equal(r.bump, "patch");
  assert.deepEqual(lines(r), [
    "$.$comment annotation-changed patch",
    "$.properties.r.description annotation-changed patch",
    "$.properties.r.examples annotation-changed patch",
    "$.title annotation-changed patch",
  ]);
});

Deno.test("classifySchemaChange() calls a description change minor when asked to", () => {
  const a = tool({ r: { type: "string", description: "Reference." } });
  const b = tool({ r: { type: "string", description: "Payment reference." } });
  const r = classifySchemaChange(a, b, { descriptionBump: "minor" });
  assert.deepEqual(lines(r), [
    "$.properties.r.description annotation-changed minor",
  ]);
});

Deno.test("classifySchemaChange() calls a changed default minor", () => {
  const a = tool({ limit: { type: "integer", default: 10 } });
  const r = classify(a, tool({ limit: { type: "integer", default: 20 } }));
  assert.deepEqual(r.changes, [{
    path: "$.properties.limit.default",
    kind: "default-changed",
    bump: "minor",
    message: "default changed from 10 to 20: callers that omit it now get 20",
  }]);
  assert.deepEqual(lines(classify(a, tool({ limit: { type: "integer" } }))), [
    "$.properties.limit.default default-changed minor",
  ]);
});

Deno.test("classifySchemaChange() treats x- extension keywords as annotations", () => {
  const r = classify(tool({}), { ...tool({}), "x-owner": "payments-team" });
  assert.deepEqual(lines(r), ['$["x-owner"] annotation-changed patch']);
});

// --- objects: additionalProperties, patternProperties, propertyNames, dependencies ----------

Deno.test("classifySchemaChange() calls closing an object major and opening it minor", () => {
  const open = tool({ a: { type: "string" } });
  const closed = tool({ a: { type: "string" } }, [], {
    additionalProperties: false,
  });
  const r = classify(open, closed);
  assert.deepEqual(r.changes, [{
    path: "$.additionalProperties",
    kind: "additional-properties-narrowed",
    bump: "major",
    message:
      "additionalProperties set to false: callers that send properties the schema does not name are now rejected",
  }]);
  assert.deepEqual(lines(classify(closed, open)), [
    "$.additionalProperties additional-properties-widened minor",
  ]);
  assert.equal(
    classify(tool({}, [], { additionalProperties: true }), tool({})).bump,
    "patch",
  );
});

Deno.test("classifySchemaChange() compares schema-valued additionalProperties", () => {
  const s = (ap: unknown) => tool({}, [], { additionalProperties: ap });
  assert.deepEqual(
    lines(classify(s({ type: "string" }), s({ type: ["string", "number"] }))),
    [
      "$.additionalProperties.type type-widened minor",
    ],
  );
  assert.deepEqual(lines(classify(s(true), s({ type: "string" }))), [
    "$.additionalProperties.type type-narrowed major",
  ]);
  assert.deepEqual(lines(classify(s(false), s({ type: "string" }))), [
    "$.additionalProperties additional-properties-widened minor",
  ]);
});

Deno.test("classifySchemaChange() compares patternProperties", () => {
  const s = (pp: Obj, extra: Obj = {}) => tool({}, [], { patternProperties: pp, ...extra });
  assert.deepEqual(
    lines(
      classify(
        s({ "^x-": { type: "string" } }),
        s({ "^x-": { type: "string", maxLength: 9 } }),
      ),
    ),
    ['$.patternProperties["^x-"].maxLength bound-tightened major'],
  );
  // On a closed object a new pattern only lets more properties in.
  assert.deepEqual(
    lines(
      classify(
        tool({}, [], { additionalProperties: false }),
        s({ "^x-": {} }, { additionalProperties: false }),
      ),
    ),
    ['$.patternProperties["^x-"] additional-properties-widened minor'],
  );
  // On an open object a restrictive new pattern rejects unnamed properties callers may send.
  assert.equal(
    classify(tool({}), s({ "^x-": { type: "string" } })).bump,
    "major",
  );
});

Deno.test("classifySchemaChange() compares propertyNames", () => {
  const s = (pn?: Obj) => tool({}, [], pn ? { propertyNames: pn } : {});
  assert.deepEqual(lines(classify(s(), s({ maxLength: 8 }))), [
    "$.propertyNames.maxLength bound-tightened major",
  ]);
  assert.deepEqual(lines(classify(s({ maxLength: 8 }), s())), [
    "$.propertyNames.maxLength bound-loosened minor",
  ]);
});

Deno.test("classifySchemaChange() compares dependentRequired and draft-07 dependencies", () => {
  const s = (deps: Obj, kw = "dependentRequired") =>
    tool({ a: {}, b: {}, c: {} }, [], { [kw]: deps });
  assert.deepEqual(lines(classify(s({ a: ["b"] }), s({ a: ["b", "c"] }))), [
    "$.dependentRequired.a dependency-added major",
  ]);
  assert.deepEqual(lines(classify(s({ a: ["b", "c"] }), s({ a: ["b"] }))), [
    "$.dependentRequired.a dependency-removed minor",
  ]);
  assert.deepEqual(
    lines(classify(s({ a: ["b"] }, "dependencies"), s({ a: ["b"] }))),
    [
      "$.dependentRequired.a rewritten patch",
    ],
  );
  assert.deepEqual(
    lines(
      classify(
        s({ a: { required: ["b"] } }, "dependentSchemas"),
        s({}, "dependentSchemas"),
      ),
    ),
    ["$.dependentSchemas.a dependency-removed minor"],
  );
  assert.deepEqual(
    lines(
      classify(
        s({ a: { maxProperties: 3 } }, "dependentSchemas"),
        s({ a: { maxProperties: 2 } }, "dependentSchemas"),
      ),
    ),
    ["$.dependentSchemas.a.maxProperties bound-tightened major"],
  );
});

// --- arrays ---------------------------------------------------------------------------------

Deno.test("classifySchemaChange() reports changes inside items where they bite", () => {
  const legs = (leg: Obj) => tool({ legs: { type: "array", items: leg } });
  const a = legs(tool({ amount: { type: "number" } }, ["amount"]));
  const b = legs(tool({ amount: { type: "number", minimum: 0 } }, ["amount"]));
  assert.deepEqual(lines(classify(a, b)), [
    "$.properties.legs.items.properties.amount.minimum bound-tightened major",
  ]);
  assert.deepEqual(lines(classify(b, a)), [
    "$.properties.legs.items.properties.amount.minimum bound-loosened minor",
  ]);
});

Deno.test("classifySchemaChange() compares prefixItems position by position", () => {
  const t = (prefix: unknown[], items?: unknown) => ({
    type: "array",
    prefixItems: prefix,
    ...(items === undefined ? {} : { items }),
  });
  assert.deepEqual(
    lines(
      classify(
        t([{ type: "string" }, { type: "integer" }]),
        t([{ type: "string" }, { type: "number" }]),
      ),
    ),
    [
      "$.prefixItems[1].type type-widened minor",
    ],
  );
  assert.deepEqual(
    lines(classify(t([{ type: "string" }], false), t([{ type: "string" }]))),
    [
      "$.items schema-opened minor",
    ],
  );
  assert.deepEqual(
    lines(classify(t([{ type: "string" }]), t([{ type: "string" }], false))),
    [
      "$.items schema-closed major",
    ],
  );
  // Draft-07: an items array with additionalItems.
  const d7 = (extra: unknown) => ({
    type: "array",
    items: [{ type: "string" }],
    additionalItems: extra,
  });
  assert.deepEqual(lines(classify(d7(false), d7(true))), [
    "$.additionalItems schema-opened minor",
  ]);
});

Deno.test("classifySchemaChange() compares contains", () => {
  const s = (c?: Obj) => ({ type: "array", ...(c ? { contains: c } : {}) });
  assert.deepEqual(lines(classify(s(), s({ type: "string" }))), [
    "$.contains constraint-added major",
  ]);
  assert.deepEqual(lines(classify(s({ type: "string" }), s())), [
    "$.contains constraint-removed minor",
  ]);
  assert.deepEqual(
    lines(classify(s({ type: "string" }), s({ type: ["string", "null"] }))),
    [
      "$.contains.type type-widened minor",
    ],
  );
});

// --- applicators ----------------------------------------------------------------------------

Deno.test("classifySchemaChange() calls an added anyOf branch minor and a removed one major", () => {
  const a = tool({
    id: { anyOf: [{ type: "string", format: "uuid" }, { type: "integer" }] },
  });
  const b = tool({
    id: {
      anyOf: [{ type: "string", format: "uuid" }, { type: "integer" }, {
        type: "null",
      }],
    },
  });
  assert.deepEqual(lines(classify(a, b)), [
    "$.properties.id.anyOf[2] branch-added minor",
  ]);
  assert.deepEqual(lines(classify(b, a)), [
    "$.properties.id.anyOf[2] branch-removed major",
  ]);
});

Deno.test("classifySchemaChange() pairs reordered and changed anyOf branches", () => {
  const a = tool({
    v: { anyOf: [{ type: "string", maxLength: 3 }, { type: "integer" }] },
  });
  const reordered = tool({
    v: { anyOf: [{ type: "integer" }, { type: "string", maxLength: 3 }] },
  });
  assert.equal(classify(a, reordered).bump, "patch");
  const widened = tool({
    v: { anyOf: [{ type: "string", maxLength: 5 }, { type: "integer" }] },
  });
  assert.deepEqual(lines(classify(a, widened)), [
    "$.properties.v.anyOf[0].maxLength bound-loosened minor",
  ]);
  assert.deepEqual(lines(classify(widened, a)), [
    "$.properties.v.anyOf[0].maxLength bound-tightened major",
  ]);
});

Deno.test("classifySchemaChange() calls a oneOf branch added minor only when provably disjoint", () => {
  const a = tool({ v: { oneOf: [{ type: "string" }, { type: "integer" }] } });
  const disjoint = tool({
    v: {
      oneOf: [{ type: "string" }, { type: "integer" }, { type: "boolean" }],
    },
  });
  assert.deepEqual(lines(classify(a, disjoint)), [
    "$.properties.v.oneOf[2] branch-added minor",
  ]);
  // A number branch overlaps the integer branch: 5 matched one branch and now matches two.
  const overlapping = tool({
    v: { oneOf: [{ type: "string" }, { type: "integer" }, { type: "number" }] },
  });
  const r = classify(a, overlapping);
  assert.deepEqual(lines(r), [
    "$.properties.v.oneOf[2] branch-added minor",
    "$.properties.v.oneOf[2] undecidable major",
  ]);
  assert.match(r.changes[1].message, /not provably disjoint from branch 1/);
});

Deno.test("classifySchemaChange() recognises a discriminated oneOf branch as disjoint", () => {
  const leg = (kind: string, extra: Obj) =>
    tool({ kind: { const: kind }, ...extra }, ["kind", ...Object.keys(extra)]);
  const a = tool({
    leg: {
      oneOf: [
        leg("sepa", { iban: { type: "string" } }),
        leg("swift", { bic: { type: "string" } }),
      ],
    },
  });
  const b = tool({
    leg: {
      oneOf: [
        leg("sepa", { iban: { type: "string" } }),
        leg("swift", { bic: { type: "string" } }),
        leg("fps", { sortCode: { type: "string" } }),
      ],
    },
  });
  assert.deepEqual(lines(classify(a, b)), [
    "$.properties.leg.oneOf[2] branch-added minor",
  ]);
});

Deno.test("classifySchemaChange() calls a widened oneOf branch major unless disjoint", () => {
  const a = tool({
    v: {
      oneOf: [{ type: "integer", maximum: 10 }, {
        type: "integer",
        minimum: 20,
      }],
    },
  });
  const ok = tool({
    v: {
      oneOf: [{ type: "integer", maximum: 15 }, {
        type: "integer",
        minimum: 20,
      }],
    },
  });
  assert.equal(classify(a, ok).bump, "minor");
  const overlap = tool({
    v: {
      oneOf: [{ type: "integer", maximum: 25 }, {
        type: "integer",
        minimum: 20,
      }],
    },
  });
  assert.equal(classify(a, overlap).bump, "major");
});

Deno.test("classifySchemaChange() calls an added allOf constraint major and a removed one minor", () => {
  const a = tool({ r: { allOf: [{ type: "string" }] } });
  const b = tool({ r: { allOf: [{ type: "string" }, { minLength: 3 }] } });
  assert.deepEqual(lines(classify(a, b)), [
    "$.properties.r.allOf[1].minLength bound-tightened major",
  ]);
  assert.deepEqual(lines(classify(b, a)), [
    "$.properties.r.allOf[1].minLength bound-loosened minor",
  ]);
});

Deno.test("classifySchemaChange() calls a changed not undecidable and major", () => {
  const s = (not?: Obj) => tool({ v: not ? { not } : {} });
  const r = classify(s({ type: "null" }), s({ type: "string" }));
  assert.deepEqual(lines(r), ["$.properties.v.not undecidable major"]);
  assert.deepEqual(lines(classify(s(), s({ type: "null" }))), [
    "$.properties.v.not constraint-added major",
  ]);
  assert.deepEqual(lines(classify(s({ type: "null" }), s())), [
    "$.properties.v.not constraint-removed minor",
  ]);
});

Deno.test("classifySchemaChange() compares then and else when if is unchanged, else is undecidable", () => {
  const s = (cond: Obj, then: Obj) => ({
    ...tool({ kind: {}, iban: {} }),
    if: cond,
    then,
  });
  const cond = { properties: { kind: { const: "sepa" } }, required: ["kind"] };
  assert.deepEqual(
    lines(classify(s(cond, { required: [] }), s(cond, { required: ["iban"] }))),
    [
      "$.then.properties.iban required-added major",
    ],
  );
  const other = { properties: { kind: { const: "fps" } }, required: ["kind"] };
  assert.deepEqual(
    lines(
      classify(
        s(cond, { required: ["iban"] }),
        s(other, { required: ["iban"] }),
      ),
    ),
    [
      "$.if undecidable major",
    ],
  );
});

Deno.test("classifySchemaChange() calls an unknown keyword change undecidable and major", () => {
  const r = classify(tool({}), { ...tool({}), $dynamicRef: "#meta" });
  assert.deepEqual(lines(r), ["$.$dynamicRef undecidable major"]);
  assert.match(r.changes[0].message, /not enforced by this library's validator/);
  const r2 = classify(tool({ a: {} }), tool({ a: { discriminator: "kind" } }));
  assert.deepEqual(lines(r2), [
    "$.properties.a.discriminator undecidable major",
  ]);
  assert.match(r2.changes[0].message, /unknown keyword discriminator added/);
});

// --- $ref -----------------------------------------------------------------------------------

const money = (currencies: string[]) => ({
  type: "object",
  properties: { amount: { type: "number" }, currency: { enum: currencies } },
  required: ["amount", "currency"],
});

Deno.test("classifySchemaChange() follows $ref and reports at every place that refers to it", () => {
  const s = (currencies: string[]) => ({
    ...tool({
      debit: { $ref: "#/$defs/money" },
      credit: { $ref: "#/$defs/money" },
    }),
    $defs: { money: money(currencies) },
  });
  const r = classify(s(["EUR", "GBP"]), s(["EUR"]));
  assert.deepEqual(lines(r), [
    "$.properties.credit.properties.currency.enum enum-narrowed major",
    "$.properties.debit.properties.currency.enum enum-narrowed major",
  ]);
});

Deno.test("classifySchemaChange() follows draft-07 definitions and inlined targets", () => {
  const byRef = {
    ...tool({ m: { $ref: "#/definitions/money" } }),
    definitions: { money: money(["EUR"]) },
  };
  const inline = tool({ m: money(["EUR"]) });
  assert.equal(classify(byRef, inline).bump, "patch");
  assert.equal(classify(inline, byRef).bump, "patch");
  assert.equal(
    classify(byRef, tool({ m: money(["EUR", "GBP"]) })).bump,
    "minor",
  );
});

Deno.test("classifySchemaChange() applies a $ref's siblings with its target", () => {
  const a = {
    ...tool({ m: { $ref: "#/$defs/code" } }),
    $defs: { code: { type: "string" } },
  };
  const b = {
    ...tool({ m: { $ref: "#/$defs/code", maxLength: 3 } }),
    $defs: { code: { type: "string" } },
  };
  assert.deepEqual(lines(classify(a, b)), [
    "$.properties.m.maxLength bound-tightened major",
  ]);
});

Deno.test("classifySchemaChange() terminates on recursive schemas and finds changes in the cycle", () => {
  const tree = (max: number) => ({
    $ref: "#/$defs/node",
    $defs: {
      node: {
        type: "object",
        properties: {
          name: { type: "string", maxLength: max },
          children: { type: "array", items: { $ref: "#/$defs/node" } },
        },
        required: ["name"],
      },
    },
  });
  assert.deepEqual(classify(tree(10), tree(10)), {
    bump: "patch",
    changes: [],
  });
  const r = classify(tree(10), tree(5));
  assert.equal(r.bump, "major");
  assert.ok(
    lines(r).includes("$.properties.name.maxLength bound-tightened major"),
    lines(r).join("\n"),
  );
  assert.equal(classify(tree(5), tree(10)).bump, "minor");
});

Deno.test("classifySchemaChange() calls an unresolvable $ref change undecidable", () => {
  const r = classify(
    tool({ m: { type: "string" } }),
    tool({ m: { $ref: "https://example.com/m.json" } }),
  );
  assert.deepEqual(lines(r), ["$.properties.m undecidable major"]);
});

Deno.test("classifySchemaChange() calls a change to an unused definition patch", () => {
  const a = { ...tool({}), $defs: { unused: { type: "string" } } };
  const b = { ...tool({}), $defs: { unused: { type: "integer" } } };
  assert.deepEqual(lines(classify(a, b)), [
    "$.$defs.unused definition-changed patch",
  ]);
});

// --- boolean schemas, inapplicable keywords -------------------------------------------------

Deno.test("classifySchemaChange() compares boolean schemas", () => {
  assert.deepEqual(lines(classify(tool({ v: true }), tool({ v: false }))), [
    "$.properties.v schema-closed major",
  ]);
  assert.deepEqual(lines(classify(tool({ v: false }), tool({ v: {} }))), [
    "$.properties.v schema-opened minor",
  ]);
  assert.equal(classify(tool({ v: true }), tool({ v: {} })).bump, "patch");
  assert.equal(classify(true, {}).bump, "patch");
});

Deno.test("classifySchemaChange() calls a keyword for a type the old schema rejects patch", () => {
  const r = classify(
    tool({ r: { type: "string" } }),
    tool({ r: { type: "string", minimum: 3 } }),
  );
  assert.deepEqual(lines(r), ["$.properties.r.minimum bound-tightened patch"]);
  assert.match(r.changes[0].message, /it accepts no numbers/);
});

Deno.test("classifySchemaChange() calls a bound that every enum value meets patch", () => {
  const r = classify(
    tool({ n: { enum: [1, 2, 3] } }),
    tool({ n: { enum: [1, 2, 3], maximum: 3 } }),
  );
  assert.deepEqual(lines(r), ["$.properties.n.maximum bound-tightened patch"]);
  const r2 = classify(
    tool({ n: { enum: [1, 2, 3] } }),
    tool({ n: { enum: [1, 2, 3], maximum: 2 } }),
  );
  assert.deepEqual(lines(r2), ["$.properties.n.maximum bound-tightened major"]);
});

// --- order ----------------------------------------------------------------------------------

Deno.test("classifySchemaChange() sorts changes by path, then kind", () => {
  const a = tool({
    b: { type: "string" },
    a: { type: "integer" },
    c: { enum: [1, 2] },
  }, ["b"]);
  const b = tool({ a: { type: "number", maximum: 9 }, c: { enum: [1] } }, [
    "a",
  ]);
  const r = classify(a, b);
  assert.deepEqual(lines(r), [
    "$.properties.a required-added major",
    "$.properties.a.maximum bound-tightened major",
    "$.properties.a.type type-widened minor",
    "$.properties.b property-removed major",
    "$.properties.c.enum enum-narrowed major",
  ]);
});

// --- unevaluated* ------------------------------------------------------------------------------

Deno.test("classifySchemaChange() calls a dependentSchemas removed beside unevaluatedProperties undecidable", () => {
  // {"a":1,"b":1} passed (the dependent schema evaluated a) and is now rejected.
  const before = {
    properties: { b: {} },
    dependentSchemas: { b: { properties: { a: true } } },
    unevaluatedProperties: false,
  };
  const after = { properties: { b: {} }, unevaluatedProperties: false };
  for (const compatibility of ["backward", "forward", "full"] as const) {
    for (const classifyIt of [classifySchemaChange, classifyOutputSchemaChange]) {
      const r = classifyIt(before, after, { compatibility });
      assert.equal(r.bump, "major", `${classifyIt.name} ${compatibility}`);
    }
  }
  const r = classifySchemaChange(before, after);
  const u = r.changes.find((c) => c.kind === "undecidable");
  assert.equal(u?.path, "$.dependentSchemas");
  assert.match(u!.message, /dependentSchemas changed beside unevaluatedProperties/);
});

Deno.test("classifySchemaChange() calls prefixItems removed beside unevaluatedItems: false undecidable", () => {
  // [1] passed (prefixItems evaluated it) and is now rejected.
  const before = { prefixItems: [{}], unevaluatedItems: false };
  const after = { unevaluatedItems: false };
  const r = classifySchemaChange(before, after);
  assert.equal(r.bump, "major");
  assert.deepEqual(r.changes.map((c) => `${c.path} ${c.kind}`), ["$.prefixItems undecidable"]);
  assert.match(r.changes[0].message, /beside unevaluatedItems/);
  // Read the other way (outputs: the new schema allows fewer values) it is a narrowing, not patch.
  assert.equal(classifyOutputSchemaChange(before, after).bump, "minor");
  assert.equal(classifySchemaChange(before, after, { compatibility: "forward" }).bump, "minor");
});

Deno.test("classifySchemaChange() decides unevaluatedProperties where what it sees only grows", () => {
  const s = (props: Record<string, unknown>) => ({
    properties: props,
    unevaluatedProperties: false,
  });
  assert.equal(classifySchemaChange(s({ a: {} }), s({ a: {}, b: {} })).bump, "minor");
  assert.equal(
    classifySchemaChange(s({ a: { type: "string" } }), s({ a: {} })).bump,
    "minor",
  );
  assert.equal(classifySchemaChange(s({ a: {} }), s({ a: { type: "string" } })).bump, "major");
  // The keyword itself: removed widens, added narrows, its subschema compared as one.
  assert.equal(classifySchemaChange(s({ a: {} }), { properties: { a: {} } }).bump, "minor");
  assert.equal(classifySchemaChange({ properties: { a: {} } }, s({ a: {} })).bump, "major");
  assert.equal(
    classifySchemaChange(
      { properties: { a: {} }, unevaluatedProperties: { type: "string" } },
      { properties: { a: {} }, unevaluatedProperties: {} },
    ).bump,
    "minor",
  );
});

Deno.test("classifySchemaChange() calls an inner unevaluatedProperties removed under an outer one undecidable", () => {
  const before = { allOf: [{ unevaluatedProperties: true }], unevaluatedProperties: false };
  const after = { allOf: [{}], unevaluatedProperties: false };
  const r = classifySchemaChange(before, after);
  assert.equal(r.bump, "major");
  assert.equal(r.changes[0].path, "$.allOf[0].unevaluatedProperties");
});

Deno.test("classifySchemaChange() calls an anyOf branch narrowed beside unevaluatedProperties undecidable", () => {
  // {"a":1}: branch 0 passed and evaluated a; narrowed, it fails, and a is unevaluated.
  const s = (a: unknown) => ({
    anyOf: [{ properties: { a } }, { required: [] }],
    unevaluatedProperties: false,
  });
  assert.equal(classifySchemaChange(s({}), s({ type: "string" })).bump, "major");
  // Under not, a change beside unevaluatedProperties is undecidable too.
  const n = (p: Record<string, unknown>) => ({
    not: { properties: p, unevaluatedProperties: false },
  });
  assert.equal(classifySchemaChange(n({ a: {} }), n({})).bump, "major");
});

// --- cost ---------------------------------------------------------------------------------------

/** `recursiveSchema` with the "additional" anyOf, and its last node's `maxProperties`. */
function recursive(depth: number, width: number, maxProperties: number): Obj {
  return recursiveSchema(depth, width, maxProperties - 5, "additional") as Obj;
}

Deno.test("classifySchemaChange() past its step budget is undecidable, saying so", () => {
  const r = classifySchemaChange(recursive(6, 4, 5), recursive(6, 4, 6));
  assert.equal(r.bump, "major");
  assert.deepEqual(r.changes.map((c) => `${c.path} ${c.kind}`), ["$ undecidable"]);
  assert.match(r.changes[0].message, /budget was exceeded \(more than \d+ comparison steps/);
  // Deterministic: the same inputs, the same verdict; a small budget reached on a small schema.
  assert.deepEqual(classifySchemaChange(recursive(6, 4, 5), recursive(6, 4, 6)), r);
  const small = classifySchemaChange(recursive(2, 1, 5), recursive(2, 1, 6), { budget: 3 });
  assert.match(small.changes[0].message, /budget was exceeded/);
  assert.equal(classifySchemaChange(recursive(2, 1, 5), recursive(2, 1, 6)).bump, "minor");
  assert.match(
    classifyOutputSchemaChange(recursive(6, 4, 5), recursive(6, 4, 6)).changes[0].message,
    /budget was exceeded/,
  );
  // With a larger budget the same change is decided: the cycle rounds find it minor.
  assert.equal(
    classifySchemaChange(recursive(6, 4, 5), recursive(6, 4, 6), { budget: 1_000_000 }).bump,
    "minor",
  );
});

Deno.test("the default step budget grows with the schemas, and ordinary schemas never reach it", () => {
  const one = { type: "object", properties: { a: { type: "string" } } };
  // Three objects each: the root, its properties, a.
  assert.equal(
    defaultClassifyBudget(one, one),
    DEFAULT_CLASSIFY_BUDGET + CLASSIFY_BUDGET_PER_NODE * 6,
  );
  const wide = {
    type: "object",
    properties: Object.fromEntries(
      Array.from({ length: 500 }, (_, i) => [`p${i}`, { type: "string" }]),
    ),
  };
  assert.ok(defaultClassifyBudget(wide, wide) > DEFAULT_CLASSIFY_BUDGET + 20 * 1000);
  // 500 properties, each narrowed: decided (major), not cut off by the budget (at most 200
  // changes are listed per subschema).
  const narrowed = structuredClone(wide);
  for (const p of Object.values(narrowed.properties)) (p as Obj).maxLength = 3;
  const r = classifySchemaChange(wide, narrowed);
  assert.equal(r.bump, "major");
  assert.equal(r.changes.length, 200);
  assert.ok(r.changes.every((c) => c.kind === "bound-tightened"), JSON.stringify(r.changes[0]));
  // The random tool schemas of the property tests, with edits: none reaches the budget.
  for (
    const [before, edits] of fc.sample(
      fc.tuple(toolSchema, fc.array(editArb, { minLength: 1, maxLength: 3 })),
      { numRuns: 300, seed: 23 },
    )
  ) {
    const after = applyEdits(before, edits).schema;
    for (
      const c of [classifySchemaChange(before, after), classifyOutputSchemaChange(before, after)]
    ) {
      assert.ok(
        !c.changes.some((x) => /budget was exceeded/.test(x.message)),
        JSON.stringify(before),
      );
    }
  }
});

// --- issue 23: wrapping in anyOf, oneOf → anyOf --------------------------------------------

const code = { type: "string", maxLength: 5 };
const count = { type: "integer" };

Deno.test("classifySchemaChange() calls wrapping a subschema as anyOf: [X, Y] minor", () => {
  const r = classify(tool({ a: code }), tool({ a: { anyOf: [code, count] } }));
  assert.equal(r.bump, "minor");
  assert.deepEqual(lines(r), ["$.properties.a.anyOf[1] branch-added minor"]);
  // The wrapped schema may come second, reached through a $ref, with an annotation moved out.
  const moved = classify(
    tool({ a: { ...code, description: "A code." } }),
    {
      ...tool({ a: { description: "A code.", anyOf: [count, { $ref: "#/$defs/code" }] } }),
      $defs: { code },
    },
  );
  assert.equal(moved.bump, "minor");
  assert.deepEqual(lines(moved), ["$.properties.a.anyOf[0] branch-added minor"]);
});

Deno.test("classifySchemaChange() calls wrapping the root object as anyOf minor", () => {
  const r = classify(payment, { anyOf: [payment, { type: "null" }] });
  assert.equal(r.bump, "minor");
});

Deno.test("classifySchemaChange() calls anyOf: [X] and oneOf: [X] → X patch", () => {
  assert.equal(classify(tool({ a: code }), tool({ a: { anyOf: [code] } })).bump, "patch");
  assert.equal(classify(tool({ a: { oneOf: [code] } }), tool({ a: code })).bump, "patch");
});

Deno.test("classifySchemaChange() calls wrapping a branch that accepts less major", () => {
  const r = classify(tool({ a: code }), tool({ a: { anyOf: [{ ...code, maxLength: 3 }, count] } }));
  assert.equal(r.bump, "major");
  const sibling = classify(tool({ a: code }), tool({ a: { minLength: 1, anyOf: [code, count] } }));
  assert.equal(sibling.bump, "major");
});

Deno.test("classifySchemaChange() calls wrapping as disjoint oneOf: [X, Y] minor, overlapping major", () => {
  const disjoint = classify(tool({ a: code }), tool({ a: { oneOf: [code, count] } }));
  assert.equal(disjoint.bump, "minor");
  assert.deepEqual(lines(disjoint), [
    "$.properties.a.oneOf rewritten patch",
    "$.properties.a.oneOf[1] branch-added minor",
  ]);
  const overlapping = classify(
    tool({ a: code }),
    tool({ a: { oneOf: [code, { type: "string" }] } }),
  );
  assert.equal(overlapping.bump, "major");
});

Deno.test("classifySchemaChange() calls oneOf → anyOf patch over disjoint branches, minor over overlapping ones", () => {
  const disjoint = classify(
    tool({ a: { oneOf: [code, count] } }),
    tool({ a: { anyOf: [code, count] } }),
  );
  assert.equal(disjoint.bump, "patch");
  assert.deepEqual(lines(disjoint), ["$.properties.a.oneOf rewritten patch"]);
  const overlap = [{ type: "string" }, { maxLength: 3 }];
  const r = classify({ oneOf: overlap }, { anyOf: overlap });
  assert.equal(r.bump, "minor");
  assert.deepEqual(lines(r), ["$.oneOf constraint-removed minor"]);
  // Widened branches on top of the rewrite stay minor; a narrowed one is major.
  assert.equal(classify({ oneOf: overlap }, { anyOf: [{ type: "string" }, {}] }).bump, "minor");
  assert.equal(
    classify({ oneOf: overlap }, { anyOf: [{ type: "string" }, { maxLength: 2 }] }).bump,
    "major",
  );
});

Deno.test("classifySchemaChange() calls anyOf → oneOf patch over disjoint branches, major over overlapping ones", () => {
  assert.equal(classify({ anyOf: [code, count] }, { oneOf: [code, count] }).bump, "patch");
  const overlap = [{ type: "string" }, { maxLength: 3 }];
  assert.equal(classify({ anyOf: overlap }, { oneOf: overlap }).bump, "major");
});

Deno.test("classifySchemaChange() keeps wrapping and oneOf → anyOf major in negative places", () => {
  const overlap = [{ type: "string" }, { maxLength: 3 }];
  const cases: [string, Obj, Obj][] = [
    ["under not", { not: code }, { not: { anyOf: [code, count] } }],
    ["oneOf → anyOf under not", { not: { oneOf: overlap } }, { not: { anyOf: overlap } }],
    ["in if", { if: code, then: { minLength: 2 } }, {
      if: { anyOf: [code, count] },
      then: { minLength: 2 },
    }],
    ["oneOf → anyOf in if", { if: { oneOf: overlap }, then: count }, {
      if: { anyOf: overlap },
      then: count,
    }],
    ["in a oneOf branch it now overlaps", { oneOf: [code, { type: "number" }] }, {
      oneOf: [{ anyOf: [code, count] }, { type: "number" }],
    }],
    ["under contains with maxContains", { type: "array", contains: code, maxContains: 1 }, {
      type: "array",
      contains: { anyOf: [code, count] },
      maxContains: 1,
    }],
  ];
  for (const [name, before, after] of cases) {
    const r = classify(before, after);
    assert.equal(r.bump, "major", name);
    assert.ok(r.changes.some((c) => c.kind === "undecidable"), name);
  }
  // The same edits in positive places, for contrast.
  assert.equal(
    classify({ type: "array", contains: code }, {
      type: "array",
      contains: { anyOf: [code, count] },
    }).bump,
    "minor",
  );
  assert.equal(
    classify({ oneOf: [code, { type: "number" }] }, {
      oneOf: [{ anyOf: [code, { type: "boolean" }] }, { type: "number" }],
    }).bump,
    "minor",
  );
  // A oneOf → anyOf over disjoint branches keeps the values, so it is patch even under not.
  assert.equal(
    classify({ not: { oneOf: [code, count] } }, { not: { anyOf: [code, count] } }).bump,
    "patch",
  );
});

Deno.test("classifySchemaChange() keeps wrapping beside unevaluatedProperties undecidable", () => {
  const r = classify(
    { type: "object", properties: { a: code }, unevaluatedProperties: false },
    { anyOf: [{ type: "object", properties: { a: code } }, count], unevaluatedProperties: false },
  );
  assert.equal(r.bump, "major");
  assert.deepEqual(lines(r), ["$ undecidable major"]);
});

Deno.test("classifyOutputSchemaChange() calls wrapping and oneOf → anyOf major, anyOf → oneOf minor", () => {
  const overlap = [{ type: "string" }, { maxLength: 3 }];
  assert.equal(
    classifyOutputSchemaChange(tool({ a: code }), tool({ a: { anyOf: [code, count] } })).bump,
    "major",
  );
  assert.equal(classifyOutputSchemaChange({ oneOf: overlap }, { anyOf: overlap }).bump, "major");
  assert.equal(classifyOutputSchemaChange({ anyOf: overlap }, { oneOf: overlap }).bump, "minor");
  assert.equal(
    classifyOutputSchemaChange({ oneOf: [code, count] }, { anyOf: [code, count] }).bump,
    "patch",
  );
});

Deno.test("classifySchemaChange() unwraps nested single-branch allOf on one side: same values, no major", () => {
  const x = { type: "object", properties: { a: { type: "string" } } };
  assert.notEqual(classifySchemaChange(x, { allOf: [{ allOf: [x] }] }).bump, "major");
  assert.notEqual(classifySchemaChange({ allOf: [{ allOf: [x] }] }, x).bump, "major");
  const narrowed = { type: "object", properties: { a: { type: "string", maxLength: 2 } } };
  assert.equal(classifySchemaChange(x, { allOf: [{ allOf: [narrowed] }] }).bump, "major");
});
