import assert from "node:assert/strict";
import fc from "fast-check";
import {
  compileSchema,
  formatPath,
  isValid,
  type JsonSchema,
  parsePath,
  type SchemaIssue,
  validateSchema,
} from "../mod.ts";

const payment = {
  type: "object",
  properties: {
    amount: { type: "integer", minimum: 1 },
    currency: { type: "string", enum: ["EUR", "GBP", "USD"] },
    legs: {
      type: "array",
      items: {
        type: "object",
        properties: {
          amount: { type: "number", multipleOf: 0.01 },
          account: { type: "string" },
        },
        required: ["amount", "account"],
      },
    },
    "a b": { type: "string", maxLength: 2 },
  },
  required: ["amount", "currency"],
  additionalProperties: false,
} as const;

const brief = (issues: SchemaIssue[]): string[] => issues.map((i) => `${i.path} ${i.keyword}`);

Deno.test("validateSchema() returns every issue with $ paths, sorted", () => {
  const issues = validateSchema(payment, {
    amount: "12",
    legs: [{ amount: 1, account: "A" }, { amount: 0.071, account: 7 }, {}],
    "a b": "abc",
    zz: 1,
  });
  assert.deepEqual(brief(issues), [
    '$["a b"] maxLength',
    "$.amount type",
    "$.currency required",
    "$.legs[1].account type",
    "$.legs[1].amount multipleOf",
    "$.legs[2].account required",
    "$.legs[2].amount required",
    "$.zz additionalProperties",
  ]);
  const amount = issues.find((i) => i.path === "$.amount")!;
  assert.equal(amount.message, "expected integer, got string");
  assert.equal(amount.schemaPath, "$.properties.amount.type");
  assert.equal(
    issues.find((i) => i.keyword === "required")!.schemaPath,
    "$.required",
  );
});

Deno.test("validateSchema() returns nothing for a valid value", () => {
  assert.deepEqual(
    validateSchema(payment, {
      amount: 5,
      currency: "EUR",
      legs: [{ amount: 0.07, account: "x" }],
    }),
    [],
  );
});

Deno.test("validateSchema() sorts indexes numerically, names by code unit, a prefix first", () => {
  const schema = {
    type: "array",
    items: { type: "object", required: ["b", "B"] },
  };
  const value = Array.from({ length: 11 }, () => ({}));
  const paths = validateSchema(schema, value).map((i) => i.path);
  assert.deepEqual(paths.slice(0, 4), ["$[0].B", "$[0].b", "$[1].B", "$[1].b"]);
  assert.equal(paths[paths.length - 1], "$[10].b");
  const prefix = validateSchema({
    type: "object",
    properties: { a: { type: "object", required: ["x"], minProperties: 2 } },
  }, {
    a: {},
  });
  assert.deepEqual(brief(prefix), ["$.a minProperties", "$.a.x required"]);
});

Deno.test("validateSchema() reports a type mismatch once and checks nothing else on that value", () => {
  const schema = {
    type: "object",
    properties: {
      a: { type: "integer", minimum: 5, multipleOf: 2, enum: [6, 8] },
    },
  };
  assert.deepEqual(brief(validateSchema(schema, { a: "x" })), ["$.a type"]);
  const nested = {
    type: "object",
    required: ["x"],
    properties: { y: { type: "string" } },
  };
  assert.deepEqual(brief(validateSchema(nested, [1, 2])), ["$ type"]);
  // Two applicators that disagree on the type still give one type issue at the path.
  const twice = {
    allOf: [{ type: "string" }, { type: "string", minLength: 3 }],
  };
  assert.deepEqual(brief(validateSchema(twice, 5)), ["$ type"]);
});

Deno.test("validateSchema() uses the $ path notation for awkward keys", () => {
  const schema = {
    type: "object",
    required: ["a b", "ü", "$ok", "_x1", "1a", 'q"'],
  };
  assert.deepEqual(validateSchema(schema, {}).map((i) => i.path), [
    "$.$ok",
    '$["1a"]',
    "$._x1",
    '$["a b"]',
    '$["q\\""]',
    '$["ü"]',
  ]);
  for (const p of ["$.$ok", '$["1a"]', '$["q\\""]', "$.legs[1].amount", "$"]) {
    assert.equal(formatPath(parsePath(p)), p);
  }
});

Deno.test("validateSchema() handles JavaScript's type traps", () => {
  assert.equal(isValid({ type: "object" }, null), false);
  assert.equal(isValid({ type: "object" }, []), false);
  assert.equal(isValid({ type: "array" }, {}), false);
  assert.equal(isValid({ type: "integer" }, true), false);
  assert.equal(isValid({ type: "integer" }, 1.5), false);
  assert.equal(isValid({ type: "integer" }, 1.0), true);
  assert.equal(isValid({ type: "number" }, 5), true);
  assert.equal(isValid({ type: "number" }, NaN), false);
  assert.equal(isValid({ type: "number" }, Infinity), false);
  assert.equal(isValid({ type: "integer" }, Infinity), false);
  assert.equal(isValid({ type: "string" }, undefined), false);
  assert.equal(
    validateSchema({ type: "number" }, NaN)[0].message,
    "expected number, got non-finite number",
  );
});

Deno.test("validateSchema() counts string length in code points", () => {
  assert.equal(isValid({ type: "string", maxLength: 1 }, "😀"), true);
  assert.equal(isValid({ type: "string", minLength: 2 }, "😀"), false);
  assert.equal(isValid({ type: "string", maxLength: 2 }, "😀😀😀"), false);
  assert.equal(isValid({ type: "string", minLength: 3 }, "a😀b"), true);
});

Deno.test("validateSchema() compares enum, const and uniqueItems by deep JSON equality", () => {
  assert.equal(
    isValid({ enum: [{ a: 1, b: [1, 2] }] }, { b: [1, 2], a: 1 }),
    true,
  );
  assert.equal(isValid({ enum: [false] }, 0), false);
  assert.equal(isValid({ enum: [0] }, false), false);
  assert.equal(
    isValid({ const: { x: [1, { y: null }] } }, { x: [1, { y: null }] }),
    true,
  );
  assert.equal(isValid({ const: 1 }, 1.0), true);
  assert.equal(isValid({ const: [1] }, [true]), false);
  assert.equal(
    isValid({ uniqueItems: true }, [{ a: 1, b: 2 }, { b: 2, a: 1 }]),
    false,
  );
  assert.equal(isValid({ uniqueItems: true }, [0, false, null, "0"]), true);
  assert.equal(
    validateSchema({ uniqueItems: true }, [1, 2, 1])[0].message,
    "items [0] and [2] are equal; items must be unique",
  );
});

Deno.test("validateSchema() decides multipleOf exactly for decimals", () => {
  assert.equal(isValid({ multipleOf: 0.01 }, 0.07), true);
  assert.equal(isValid({ multipleOf: 0.01 }, 19.99), true);
  assert.equal(isValid({ multipleOf: 0.01 }, 0.071), false);
  assert.equal(isValid({ multipleOf: 0.1 }, 0.3), true);
  assert.equal(isValid({ multipleOf: 3 }, 1e300), false);
  assert.equal(isValid({ multipleOf: 1e-7 }, 3e-7), true);
  assert.equal(
    isValid({ type: "integer", multipleOf: 0.123456789 }, 1e308),
    false,
  );
});

Deno.test("validateSchema() treats __proto__, constructor and toString as ordinary keys", () => {
  const value = JSON.parse(
    '{"__proto__": {"polluted": true}, "constructor": 5}',
  );
  const schema = {
    type: "object",
    properties: {
      __proto__: { type: "string" },
      constructor: { type: "string" },
    },
    required: ["__proto__", "constructor", "toString"],
  };
  // An object literal would set the prototype; build the schema the way JSON does.
  const realSchema = JSON.parse(
    JSON.stringify(schema).replace(
      '"properties":{',
      '"properties":{"__proto__":{"type":"string"},',
    ),
  );
  assert.deepEqual(brief(validateSchema(realSchema, value)), [
    "$.__proto__ type",
    "$.constructor type",
    "$.toString required",
  ]);
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
  const closed = { type: "object", additionalProperties: false };
  assert.deepEqual(brief(validateSchema(closed, value)), [
    "$.__proto__ additionalProperties",
    "$.constructor additionalProperties",
  ]);
  assert.deepEqual(
    validateSchema({ type: "object", required: ["hasOwnProperty"] }, {}).map((
      i,
    ) => i.path),
    ["$.hasOwnProperty"],
  );
});

Deno.test("validateSchema() asserts the supported formats and passes unknown ones", () => {
  const ok: [string, string][] = [
    ["date", "2024-02-29"],
    ["date-time", "2026-11-30T09:15:00Z"],
    ["time", "23:59:60Z"],
    ["email", "ops@bank.example"],
    ["uri", "https://bank.example/payments?ref=PMT-771#top"],
    ["uuid", "3fa85f64-5717-4562-b3fc-2c963f66afa6"],
    ["ipv4", "10.0.0.1"],
    ["ipv6", "2001:db8::1"],
    ["hostname", "payments.bank.example"],
    ["x-unknown", "anything"],
  ];
  const bad: [string, string][] = [
    ["date", "2023-02-29"],
    ["date-time", "2026-11-30 09:15:00Z"],
    ["time", "12:00:60Z"],
    ["email", "ops@@bank"],
    ["uri", "not a uri"],
    ["uuid", "3fa85f64-5717-4562-b3fc-2c963f66afa"],
    ["ipv4", "10.0.0.01"],
    ["ipv6", "2001:db8:::1"],
    ["hostname", "-bad.example"],
  ];
  for (const [format, s] of ok) {
    assert.deepEqual(validateSchema({ format }, s), [], `${format} ${s}`);
  }
  for (const [format, s] of bad) {
    assert.equal(
      validateSchema({ format }, s)[0]?.keyword,
      "format",
      `${format} ${s}`,
    );
  }
  assert.equal(
    isValid({ format: "date" }, "nope", { formatAssertion: false }),
    true,
  );
  assert.equal(isValid({ format: "date" }, 42), true);
});

Deno.test("validateSchema() follows local $ref to $defs and definitions, and never fetches", () => {
  const schema = {
    type: "object",
    properties: {
      a: { $ref: "#/$defs/money" },
      b: { $ref: "#/definitions/money" },
      c: { $ref: "https://x.example/s.json" },
    },
    $defs: { money: { type: "number", minimum: 0 } },
    definitions: { money: { type: "number", maximum: 10 } },
  };
  assert.deepEqual(brief(validateSchema(schema, { a: -1, b: 11, c: 1 })), [
    "$.a minimum",
    "$.b maximum",
    "$.c $ref",
  ]);
  assert.deepEqual(
    validateSchema(schema, { a: -1 })[0].schemaPath,
    "$.$defs.money.minimum",
  );
});

Deno.test("validateSchema() applies the combinators and conditionals", () => {
  const s = {
    anyOf: [{ type: "string" }, { type: "integer" }],
  };
  assert.equal(
    validateSchema(s, true)[0].message,
    "expected string or integer, got boolean",
  );
  const one = { oneOf: [{ type: "integer" }, { minimum: 2 }] };
  assert.equal(isValid(one, 1), true);
  assert.match(validateSchema(one, 3)[0].message, /matched schemas 0 and 1/);
  assert.equal(isValid({ not: { type: "string" } }, "x"), false);
  const cond = {
    type: "object",
    if: { properties: { kind: { const: "sepa" } }, required: ["kind"] },
    then: { required: ["iban"] },
    else: { required: ["account"] },
  };
  assert.deepEqual(brief(validateSchema(cond, { kind: "sepa" })), [
    "$.iban required",
  ]);
  assert.deepEqual(brief(validateSchema(cond, { kind: "swift" })), [
    "$.account required",
  ]);
  const deps = {
    dependentRequired: { iban: ["bic"] },
    dependentSchemas: { bic: { required: ["bank"] } },
  };
  assert.deepEqual(brief(validateSchema(deps, { iban: "x" })), [
    "$.bic dependentRequired",
  ]);
  assert.deepEqual(brief(validateSchema(deps, { bic: "y" })), [
    "$.bank required",
  ]);
  const arr = {
    prefixItems: [{ type: "string" }],
    items: false,
    contains: { const: 1 },
    minContains: 1,
  };
  assert.deepEqual(brief(validateSchema(arr, ["a", 2])), [
    "$ minContains",
    "$[1] items",
  ]);
  const names = {
    propertyNames: { pattern: "^[a-z]+$" },
    patternProperties: { "^x": { type: "integer" } },
  };
  assert.deepEqual(brief(validateSchema(names, { Bad: 1, xa: "s" })), [
    "$.Bad propertyNames",
    "$.xa type",
  ]);
});

Deno.test("validateSchema() accepts boolean schemas and draft-07 forms", () => {
  assert.deepEqual(validateSchema(true, { any: 1 }), []);
  assert.deepEqual(brief(validateSchema(false, 1)), ["$ false"]);
  const d7 = {
    items: [{ type: "string" }],
    additionalItems: { type: "integer" },
  };
  assert.deepEqual(brief(validateSchema(d7, ["a", "b"])), ["$[1] type"]);
  const deps = { dependencies: { a: ["b"], c: { required: ["d"] } } };
  assert.deepEqual(brief(validateSchema(deps, { a: 1, c: 1 })), [
    "$.b dependentRequired",
    "$.d required",
  ]);
});

Deno.test("validateSchema() runs a catastrophic pattern in linear time", () => {
  const schema = { type: "string", pattern: "^(a+)+$" };
  assert.equal(isValid(schema, "a".repeat(26) + "!"), false);
  assert.equal(isValid(schema, "a".repeat(100_000) + "!"), false);
  assert.equal(isValid(schema, "aaaa"), true);
  const email = {
    type: "string",
    pattern:
      "^([a-zA-Z0-9])(([\\-.]|[_]+)?([a-zA-Z0-9]+))*(@){1}[a-z0-9]+[.]{1}(([a-z]{2,3})|([a-z]{2,3}[.]{1}[a-z]{2,3}))$",
  };
  assert.equal(isValid(email, "a".repeat(50_000) + "@"), false);
});

Deno.test("validateSchema() rejects, with a pattern issue, a pattern no linear engine can run", () => {
  const issues = validateSchema({ type: "string", pattern: "^(a)\\1$" }, "aa");
  assert.equal(issues.length, 1);
  assert.equal(issues[0].keyword, "pattern");
  assert.match(issues[0].message, /backreference/);
});

Deno.test("validateSchema() returns a depth issue for 100,000 nested arrays, never a stack overflow", () => {
  let deep: unknown[] = [];
  for (let i = 0; i < 100_000; i++) deep = [deep];
  const schema = {
    $defs: { a: { type: "array", items: { $ref: "#/$defs/a" } } },
    $ref: "#/$defs/a",
  };
  const issues = validateSchema(schema, deep);
  assert.equal(issues.length, 1);
  assert.equal(issues[0].keyword, "depth");
  assert.equal(isValid(schema, deep), false);
  // A reference cycle that consumes no input is refused before any value is tested.
  const loop = validateSchema({ $ref: "#" }, 1);
  assert.deepEqual(loop.map((i) => `${i.path} ${i.keyword}`), ["$ $ref"]);
  assert.match(loop[0].message, /refers back to \$ without moving/);
  // Within the limit, the recursive schema validates.
  let ok: unknown[] = [];
  for (let i = 0; i < 100; i++) ok = [ok];
  assert.deepEqual(validateSchema(schema, ok), []);
});

Deno.test("validateSchema() compiles once per schema object and stays correct across values", () => {
  const schema: JsonSchema = {
    type: "object",
    properties: { n: { type: "integer" } },
  };
  for (let i = 0; i < 3; i++) {
    assert.deepEqual(validateSchema(schema, { n: i }), []);
    assert.deepEqual(brief(validateSchema(schema, { n: "x" })), ["$.n type"]);
  }
});

// ---------------------------------------------------------------- properties

/** Re-creates a JSON value with every object's keys in a shuffled order. */
function shuffled(v: unknown, rand: () => number): unknown {
  if (Array.isArray(v)) return v.map((x) => shuffled(x, rand));
  if (v === null || typeof v !== "object") return v;
  const keys = Object.keys(v);
  for (let i = keys.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [keys[i], keys[j]] = [keys[j], keys[i]];
  }
  const out: Record<string, unknown> = {};
  for (const k of keys) {
    Object.defineProperty(out, k, {
      value: shuffled((v as Record<string, unknown>)[k], rand),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}

Deno.test("property: the same value with shuffled keys gives byte-identical issues", () => {
  fc.assert(
    fc.property(fc.jsonValue(), fc.jsonValue(), fc.integer(), (a, b, seed) => {
      let x = seed;
      const rand = () => ((x = ((x * 1103515245 + 12345) >>> 0) % 2147483648) /
        2147483648);
      const value = {
        amount: a,
        currency: b,
        legs: [a, b, { amount: b, account: a }],
        extra: a,
      };
      const one = JSON.stringify(validateSchema(payment, value));
      const two = JSON.stringify(
        validateSchema(payment, shuffled(value, rand)),
      );
      return one === two;
    }),
    { numRuns: 300 },
  );
});

const TYPES = [
  "null",
  "boolean",
  "object",
  "array",
  "number",
  "integer",
  "string",
] as const;

Deno.test("property: a type mismatch gives exactly one issue at its path", () => {
  const keywordsFor = fc.record({
    minimum: fc.integer(),
    maxLength: fc.nat(5),
    minItems: fc.nat(3),
    required: fc.array(fc.string(), { maxLength: 3 }),
    enum: fc.array(fc.jsonValue(), { minLength: 1, maxLength: 3 }),
    pattern: fc.constantFrom("^a", "b$", "^(x+)+$"),
  }, { requiredKeys: [] });
  fc.assert(
    fc.property(
      fc.constantFrom(...TYPES),
      keywordsFor,
      fc.jsonValue(),
      (type, extra, value) => {
        const schema = {
          type: "object",
          properties: { field: { type, ...extra } },
        };
        if (isValid({ type }, value)) return true;
        const issues = validateSchema(schema, { field: value });
        return issues.length === 1 && issues[0].path === "$.field" &&
          issues[0].keyword === "type";
      },
    ),
    { numRuns: 500 },
  );
});

Deno.test("property: validateSchema() and isValid() agree, and neither throws on any JSON value", () => {
  const schemas: JsonSchema[] = [payment, {
    type: "array",
    uniqueItems: true,
    items: { anyOf: [{ type: "string" }, { type: "object" }] },
  }];
  fc.assert(
    fc.property(
      fc.constantFrom(...schemas),
      fc.jsonValue(),
      (schema, value) => (validateSchema(schema, value).length === 0) === isValid(schema, value),
    ),
    { numRuns: 500 },
  );
});

Deno.test("property: the generated fast path and the issue collector agree on every suite schema", async () => {
  const { loadSuite, suitePresent } = await import("./_suite.ts");
  const { Compiler } = await import("../lib/schema/_compile.ts");
  const { generateValidator } = await import("../lib/schema/_codegen.ts");
  if (!suitePresent()) return;
  const cases = loadSuite().cases.filter((c) => !c.skip);
  const compiled = new Map<
    unknown,
    { fast: (v: unknown) => boolean; collect: (v: unknown) => boolean }
  >();
  const both = (schema: unknown) => {
    let c = compiled.get(schema);
    if (!c) {
      const s = schema as JsonSchema;
      const collector = new Compiler(s).root(s);
      const fast = generateValidator(s, { formats: true, maxDepth: 1000 })!;
      const collect = (v: unknown) => {
        const issues: unknown[] = [];
        const ok = collector(v, {
          issues: issues as never,
          path: [],
          depth: 0,
          maxDepth: 1000,
          formats: true,
        });
        assert.equal(
          ok,
          issues.length === 0,
          "the collector's answer matches what it collected",
        );
        return ok;
      };
      c = { fast, collect };
      compiled.set(schema, c);
    }
    return c;
  };
  // Every suite case's own data, then random values against every suite schema.
  for (const c of cases) {
    const { fast, collect } = both(c.schema);
    assert.equal(
      fast(c.data),
      collect(c.data),
      `${c.file} :: ${c.group} :: ${c.description}`,
    );
  }
  const schemas = [...new Set(cases.map((c) => c.schema))];
  fc.assert(
    fc.property(
      fc.constantFrom(...schemas),
      fc.jsonValue({ maxDepth: 3 }),
      (schema, value) => {
        const { fast, collect } = both(schema);
        return fast(value) === collect(value);
      },
    ),
    { numRuns: 3000 },
  );
});

Deno.test("property: the generated issue collector reports exactly what the collecting closures report", async () => {
  const { loadSuite, suitePresent } = await import("./_suite.ts");
  const { Compiler } = await import("../lib/schema/_compile.ts");
  const { generateCollector } = await import(
    "../lib/schema/_codegen_collect.ts"
  );
  const { soupSchema, toolSchema } = await import("./_random_schemas.ts");
  const { nearValues, positionedSchema } = await import("./_schema_pairs.ts");
  const key = (
    i: {
      segs: unknown[];
      keyword: string;
      message: string;
      schemaPath: string;
    },
  ) => JSON.stringify([i.segs, i.keyword, i.message, i.schemaPath]);
  const compiled = new Map<
    unknown,
    { gen: (v: unknown) => string[]; ref: (v: unknown) => string[] }
  >();
  const both = (schema: unknown, maxDepth = 1000) => {
    let c = compiled.get(schema);
    if (!c) {
      const s = schema as JsonSchema;
      const closures = new Compiler(s).root(s);
      const generated = generateCollector(s, { formats: true, maxDepth })!;
      c = {
        gen: (v) => generated(v).map(key).sort(),
        ref: (v) => {
          const issues: never[] = [];
          closures(v, { issues, path: [], depth: 0, maxDepth, formats: true });
          return (issues as Parameters<typeof key>[0][]).map(key).sort();
        },
      };
      compiled.set(schema, c);
    }
    return c;
  };
  const check = (schema: unknown, value: unknown, where: string) => {
    const { gen, ref } = both(schema);
    assert.deepEqual(gen(value), ref(value), where);
  };
  if (suitePresent()) {
    const cases = loadSuite().cases.filter((c) => !c.skip);
    for (const c of cases) {
      check(c.schema, c.data, `${c.file} :: ${c.group} :: ${c.description}`);
    }
    const schemas = [...new Set(cases.map((c) => c.schema))];
    fc.assert(
      fc.property(
        fc.constantFrom(...schemas),
        fc.jsonValue({ maxDepth: 3 }),
        (schema, value) => {
          check(schema, value, JSON.stringify({ schema, value }));
        },
      ),
      { numRuns: 3000 },
    );
  }
  // Tool schemas and keyword soup, with values near them: generated from the schema, then broken.
  fc.assert(
    fc.property(
      fc.oneof(toolSchema, positionedSchema, soupSchema),
      fc.jsonValue({ maxDepth: 4 }),
      fc.integer(),
      (schema, value, seed) => {
        check(schema, value, JSON.stringify({ schema, value }));
        for (const v of nearValues(schema as Record<string, unknown>, seed)) {
          check(schema, v, JSON.stringify({ schema, v }));
        }
      },
    ),
    { numRuns: 400 },
  );
  // At the depth limit the two say the same too.
  const deep = { type: "array", items: { $ref: "#" } };
  let v: unknown = [];
  for (let i = 0; i < 30; i++) v = [v, v];
  compiled.delete(deep);
  const { gen, ref } = both(deep, 5);
  assert.deepEqual(gen(v), ref(v));
});

Deno.test("property: validateSchema's final issues are the collecting closures' issues, sorted and filtered", async () => {
  // The generated program makes its issues final itself (a single issue only gets its path; several
  // are parsed back, sorted and filtered): the same list the closures' raw issues give once finished.
  const { Compiler } = await import("../lib/schema/_compile.ts");
  const { finishRaw } = await import("../lib/schema/_finish.ts");
  const { soupSchema, toolSchema } = await import("./_random_schemas.ts");
  const { nearValues, positionedSchema } = await import("./_schema_pairs.ts");
  const reference = (schema: JsonSchema, value: unknown) => {
    const issues: never[] = [];
    new Compiler(schema).root(schema)(value, {
      issues,
      path: [],
      depth: 0,
      maxDepth: 1000,
      formats: true,
    });
    return finishRaw(issues);
  };
  fc.assert(
    fc.property(
      fc.oneof(toolSchema, positionedSchema, soupSchema),
      fc.jsonValue({ maxDepth: 4 }),
      fc.integer(),
      (schema, value, seed) => {
        const s = schema as JsonSchema;
        for (const v of [value, ...nearValues(schema as Record<string, unknown>, seed)]) {
          assert.deepEqual(validateSchema(s, v), reference(s, v), JSON.stringify({ schema, v }));
          assert.deepEqual(compileSchema(s)(v), reference(s, v));
        }
      },
    ),
    { numRuns: 300 },
  );
});

Deno.test("property: the one-scan uri check answers as the check by the grammar's parts", async () => {
  const { isUri, isUriByParts } = await import("../lib/schema/formats.ts");
  const piece = fc.constantFrom(
    ..."aZ09:/?#@[]%.-_~!$&'()*+,;=F é".split(""),
    "https://",
    "x+y.z-1:",
    "mailto:",
    "[::1]",
    "[v1.x]",
    ":8080",
    "user:pw@",
    "%41",
    "%4",
    "example.com",
    "\u{1F600}",
  );
  fc.assert(
    fc.property(fc.array(piece, { maxLength: 10 }), (parts) => {
      const s = parts.join("");
      assert.equal(isUri(s), isUriByParts(s), JSON.stringify(s));
    }),
    { numRuns: 20000 },
  );
});

Deno.test("property: the one-scan hostname and email checks answer as the RFC grammars' regular expressions", async () => {
  const { isHostname, isEmail } = await import("../lib/schema/formats.ts");
  // The grammars as regular expressions (what the checks were before they became scans).
  const label = "[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?";
  const hostname = new RegExp(`^${label}(?:\\.${label})*$`);
  const atext = "[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+";
  const dotAtom = new RegExp(`^${atext}(?:\\.${atext})*$`);
  const byRegex = {
    hostname: (s: string) => s.length > 0 && s.length <= 253 && hostname.test(s),
    dotAtom: (s: string) => dotAtom.test(s),
  };
  const piece = fc.constantFrom(
    ...'aZ09.-_@!#~é"[] '.split(""),
    "example",
    ".com",
    "x".repeat(62),
    "a-",
    "-a",
    "..",
    "\u{1F600}",
    "[127.0.0.1]",
  );
  fc.assert(
    fc.property(fc.array(piece, { maxLength: 8 }), fc.array(piece, { maxLength: 8 }), (a, b) => {
      const host = b.join(""), local = a.join("");
      assert.equal(isHostname(host), byRegex.hostname(host), JSON.stringify(host));
      const mail = `${local}@${host}`;
      // The local part as a dot-atom (a quoted one and an address literal keep their own checks).
      if (!local.startsWith('"') && !host.startsWith("[") && !local.includes("@")) {
        assert.equal(
          isEmail(mail),
          local.length > 0 && local.length <= 64 && byRegex.dotAtom(local) &&
            byRegex.hostname(host),
          JSON.stringify(mail),
        );
      }
    }),
    { numRuns: 20000 },
  );
});
