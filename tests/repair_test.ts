import assert from "node:assert/strict";
import fc from "fast-check";
import { type JsonSchema, repairArguments, validateSchema } from "../mod.ts";

const schema = {
  type: "object",
  properties: {
    account: { type: "string" },
    amount: { type: "number" },
    count: { type: "integer" },
    urgent: { type: "boolean" },
    currency: { type: "string", enum: ["EUR", "GBP"], default: "EUR" },
    channel: { type: "string" },
    legs: {
      type: "array",
      items: { $ref: "#/$defs/leg" },
    },
  },
  required: ["account", "amount"],
  additionalProperties: false,
  $defs: {
    leg: {
      type: "object",
      properties: { amount: { type: "number" }, final: { type: "boolean" } },
      additionalProperties: false,
    },
  },
} as const;

Deno.test("repairArguments() coerces exact JSON-number strings where a number is wanted", () => {
  const out = repairArguments(schema, {
    account: "A1",
    amount: "42.50",
    count: "7",
    legs: [{ amount: "-1e3", final: "true" }],
  });
  assert.deepEqual(out.arguments, {
    account: "A1",
    amount: 42.5,
    count: 7,
    currency: "EUR",
    legs: [{ amount: -1000, final: true }],
  });
  assert.deepEqual(out.repairs.map((r) => `${r.kind} ${r.path}`), [
    "coerced $.amount",
    "coerced $.count",
    "coerced $.legs[0].amount",
    "coerced $.legs[0].final",
    "defaulted $.currency",
  ]);
  assert.deepEqual(out.issues, []);
});

Deno.test("repairArguments() refuses every ambiguous or lossy coercion", () => {
  for (
    const bad of [
      "",
      " 42",
      "42 ",
      "0x1A",
      "Infinity",
      "-Infinity",
      "NaN",
      "1e400",
      "+1",
      "01",
      "1.",
      ".5",
      "1_000",
      "١٢",
    ]
  ) {
    const out = repairArguments(schema, { account: "A", amount: bad });
    assert.equal(
      out.arguments && (out.arguments as Record<string, unknown>).amount,
      bad,
      bad,
    );
    assert.equal(
      out.repairs.filter((r) => r.kind === "coerced").length,
      0,
      bad,
    );
    assert.deepEqual(out.issues.map((i) => `${i.path} ${i.keyword}`), [
      "$.amount type",
    ], bad);
  }
  // Precision: 2^53 + 1 has no double; as an integer it would silently become 2^53.
  const big = repairArguments(schema, {
    account: "A",
    amount: 1,
    count: "9007199254740993",
  });
  assert.equal(
    (big.arguments as Record<string, unknown>).count,
    "9007199254740993",
  );
  // Digits a double cannot hold exactly.
  const lossy = repairArguments(schema, {
    account: "A",
    amount: "0.1000000000000000055511151231257827",
  });
  assert.equal(
    (lossy.arguments as Record<string, unknown>).amount,
    "0.1000000000000000055511151231257827",
  );
  // An integer wants no fraction.
  assert.equal(
    (repairArguments(schema, { account: "A", amount: 1, count: "1.5" })
      .arguments as Record<
        string,
        unknown
      >).count,
    "1.5",
  );
  // Never a number into a string, never "yes" into a boolean.
  const other = repairArguments(schema, {
    account: 12345,
    amount: 1,
    urgent: "yes",
  });
  assert.deepEqual(other.arguments, {
    account: 12345,
    amount: 1,
    urgent: "yes",
    currency: "EUR",
  });
  assert.deepEqual(other.issues.map((i) => `${i.path} ${i.keyword}`), [
    "$.account type",
    "$.urgent type",
  ]);
});

Deno.test("repairArguments() keeps a string where the schema also accepts strings", () => {
  const s = {
    type: "object",
    properties: { id: { type: ["string", "integer"] } },
  };
  assert.deepEqual(repairArguments(s, { id: "42" }).arguments, { id: "42" });
});

Deno.test("repairArguments() drops forbidden properties, __proto__ included, without pollution", () => {
  const args = JSON.parse(
    '{"account":"A","amount":1,"__proto__":{"polluted":true},"note":"x","legs":[{"amount":1,"extra":2}]}',
  );
  const out = repairArguments(schema, args);
  assert.deepEqual(out.repairs.map((r) => `${r.kind} ${r.path}`), [
    "dropped $.__proto__",
    "dropped $.note",
    "dropped $.legs[0].extra",
    "defaulted $.currency",
  ]);
  assert.equal(Object.hasOwn(out.arguments as object, "__proto__"), false);
  assert.equal(Object.getPrototypeOf(out.arguments), Object.prototype);
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
  assert.deepEqual(out.issues, []);
  // Open objects keep unknown properties; patternProperties keep what they match.
  const open = {
    type: "object",
    patternProperties: { "^x-": {} },
    additionalProperties: false,
  };
  assert.deepEqual(repairArguments(open, { "x-a": 1, b: 2 }).arguments, {
    "x-a": 1,
  });
});

Deno.test("repairArguments() fills from the schema default, then platform defaults, and never invents", () => {
  const out = repairArguments(schema, { amount: 1 }, {
    defaults: { channel: "agent", currency: "GBP" },
  });
  assert.deepEqual(out.arguments, {
    amount: 1,
    currency: "EUR",
    channel: "agent",
  });
  assert.deepEqual(out.issues.map((i) => `${i.path} ${i.keyword}`), [
    "$.account required",
  ]);
  const byPath = repairArguments(schema, {
    account: "A",
    amount: 1,
    legs: [{}],
  }, {
    defaults: { "$.legs[0].final": false },
  });
  assert.deepEqual((byPath.arguments as { legs: unknown[] }).legs, [{
    final: false,
  }]);
});

Deno.test("repairArguments() never mutates its input", () => {
  const args = {
    account: "A",
    amount: "5",
    legs: [{ amount: "1", extra: true }],
    note: 1,
  };
  const before = JSON.stringify(args);
  const defaults = { channel: { nested: [1] } };
  repairArguments(schema, args, { defaults });
  assert.equal(JSON.stringify(args), before);
  const out = repairArguments(schema, { account: "A", amount: 1 }, {
    defaults,
  });
  (out.arguments as { channel: { nested: number[] } }).channel.nested.push(2);
  assert.deepEqual(defaults.channel.nested, [1]);
});

// ---------------------------------------------------------------- properties

const argValue = fc.oneof(
  fc.jsonValue({ maxDepth: 2 }),
  fc.constantFrom(
    "42",
    "-0.5",
    "1e3",
    "true",
    "false",
    "",
    " 1",
    "0x10",
    "9007199254740993",
    "1e400",
    "NaN",
  ),
);
const argsArb = fc.dictionary(
  fc.constantFrom(
    "account",
    "amount",
    "count",
    "urgent",
    "currency",
    "channel",
    "legs",
    "note",
    "__proto__",
  ),
  fc.oneof(
    argValue,
    fc.array(
      fc.dictionary(fc.constantFrom("amount", "final", "extra"), argValue),
      {
        maxLength: 3,
      },
    ),
  ),
);

Deno.test("repairArguments() repairs a platform default like a sent value (seed -750928052)", () => {
  const once = repairArguments(
    schema,
    { account: "A", amount: 1, legs: [{}] },
    {
      defaults: { "$.legs[0].final": "false" },
    },
  );
  assert.deepEqual((once.arguments as { legs: unknown[] }).legs, [{
    final: false,
  }]);
  assert.deepEqual(repairArguments(schema, once.arguments).repairs, []);
});

Deno.test("property: repair is idempotent", () => {
  fc.assert(
    fc.property(
      argsArb,
      fc.dictionary(
        fc.constantFrom("channel", "account", "$.legs[0].final"),
        argValue,
      ),
      (args, defaults) => {
        const once = repairArguments(schema, args, { defaults });
        const twice = repairArguments(schema, once.arguments, { defaults });
        assert.deepEqual(twice.arguments, once.arguments);
        assert.deepEqual(twice.repairs, []);
        assert.deepEqual(twice.issues, once.issues);
      },
    ),
    { numRuns: 400 },
  );
});

Deno.test("property: repair never invents a required value and never changes a valid call", () => {
  fc.assert(
    fc.property(argsArb, (args) => {
      const out = repairArguments(schema, args);
      const repaired = out.arguments as Record<string, unknown>;
      // Required properties without a default are present only if the caller sent them.
      for (const k of ["account", "amount"]) {
        if (!Object.hasOwn(args, k)) {
          assert.equal(Object.hasOwn(repaired, k), false);
        }
      }
      // Every value that is present came from the caller, or from a schema default.
      for (const k of Object.keys(repaired)) {
        assert.ok(Object.hasOwn(args, k) || k === "currency", k);
      }
      const clean = repairArguments(schema, repaired);
      assert.deepEqual(clean.repairs, []);
    }),
    { numRuns: 400 },
  );
});

Deno.test("property: a coerced value always parses back to the string it came from", () => {
  const s: JsonSchema = {
    type: "object",
    properties: { n: { type: "number" }, i: { type: "integer" } },
  };
  fc.assert(
    fc.property(
      fc.oneof(
        fc.double({ noNaN: true, noDefaultInfinity: true }).map(String),
        fc.string(),
      ),
      (text) => {
        const out = repairArguments(s, { n: text, i: text })
          .arguments as Record<string, unknown>;
        for (const k of ["n", "i"]) {
          if (typeof out[k] === "number") {
            assert.equal(out[k], JSON.parse(text));
          } else assert.equal(out[k], text);
        }
      },
    ),
    { numRuns: 500 },
  );
});

// ---------------------------------------------------------------- input that is not JSON

/** Equal as JSON values: numbers by value (so -0 equals 0), arrays by position, objects by key. */
function sameJson(a: unknown, b: unknown): boolean {
  if (typeof a !== typeof b) return false;
  if (typeof a !== "object" || a === null || b === null) return a === b;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const plain = (o: object) =>
    Array.isArray(o)
      ? Object.getPrototypeOf(o) === Array.prototype
      : [Object.prototype, null].includes(Object.getPrototypeOf(o));
  if (!plain(a) || !plain(b as object)) return false;
  const ka = Object.keys(a), kb = Object.keys(b as object);
  if (ka.length !== kb.length) return false;
  if (Array.isArray(a) && ka.length !== a.length) return false; // holes
  return ka.every((k, i) =>
    k === kb[i] &&
    sameJson(
      (a as Record<string, unknown>)[k],
      (b as Record<string, unknown>)[k],
    )
  );
}

/** The oracle: `x` is JSON when `JSON.stringify` carries it over unchanged. */
function isJson(x: unknown): boolean {
  let text: string | undefined;
  try {
    text = JSON.stringify(x);
  } catch {
    return false; // a cycle or a bigint
  }
  return text !== undefined && sameJson(JSON.parse(text), x);
}

const open = { type: "object" } as const;

Deno.test("repairArguments() refuses input that is not JSON instead of turning it into something valid", () => {
  const cyclic: Record<string, unknown> = { a: 1 };
  cyclic.self = cyclic;
  // deno-lint-ignore no-sparse-arrays
  const sparse = [1, , 3];
  class Amount {
    value = 1;
  }
  const cases: [unknown, string, RegExp][] = [
    [{ amount: NaN }, "$.amount", /NaN is not a JSON value/],
    [{ amount: Infinity }, "$.amount", /Infinity is not a JSON value/],
    [{ amount: -Infinity }, "$.amount", /-Infinity is not a JSON value/],
    [{ x: () => 1 }, "$.x", /a function is not a JSON value/],
    [{ x: Symbol("s") }, "$.x", /a symbol is not a JSON value/],
    [{ x: 10n }, "$.x", /bigint 10n is not a JSON value/],
    [{ legs: [1, undefined] }, "$.legs[1]", /undefined is not a JSON value/],
    [{ x: undefined }, "$.x", /undefined is not a JSON value/],
    [{ legs: sparse }, "$.legs[1]", /an array hole is not a JSON value/],
    [{ at: new Date(0) }, "$.at", /a Date is not a JSON value/],
    [{ m: new Map([["a", 1]]) }, "$.m", /a Map is not a JSON value/],
    [{ a: new Amount() }, "$.a", /an? Amount is not a JSON value/],
    [{ n: new Number(1) }, "$.n", /a Number is not a JSON value/],
    [cyclic, "$.self", /a cycle is not a JSON value/],
    [() => ({}), "$", /a function is not a JSON value/],
    [undefined, "$", /undefined is not a JSON value/],
  ];
  for (const [args, where, message] of cases) {
    for (const s of [open, schema]) {
      const out = repairArguments(s, args);
      const label = `${where} ${message}`;
      assert.deepEqual(out.repairs, [], label);
      assert.equal(
        out.arguments,
        args,
        `${label}: refused input is handed back as it is`,
      );
      const json = out.issues.filter((i) => i.keyword === "json");
      assert.equal(json.length, 1, `${label}: ${JSON.stringify(out.issues)}`);
      assert.equal(json[0].path, where, label);
      assert.match(json[0].message, message);
    }
  }
  // -0 is JSON (JSON.parse("-0") gives it): repaired like any number.
  assert.deepEqual(
    repairArguments(schema, { account: "A", amount: -0 }).issues,
    [],
  );
});

Deno.test("repairArguments() refuses a platform default that is not JSON, naming it", () => {
  assert.throws(
    () => repairArguments(schema, { amount: 1 }, { defaults: { account: NaN } }),
    (e: unknown) =>
      e instanceof TypeError &&
      /defaults\["account"\]: NaN is not a JSON value/.test(e.message),
  );
});

const notJson = fc.oneof(
  fc.constantFrom(
    NaN,
    Infinity,
    -Infinity,
    undefined,
    () => 1,
    Symbol("s"),
    7n,
    new Date(0),
  ),
  fc.constantFrom(
    new Map(),
    new Set([1]),
    new Uint8Array(2),
    new Number(1),
    /x/,
  ),
);

Deno.test("property: repair either returns a JSON value that validates, or refuses", () => {
  const anything = fc.anything({
    maxDepth: 3,
    withBigInt: true,
    withBoxedValues: true,
    withDate: true,
    withMap: true,
    withSet: true,
    withNullPrototype: true,
    withObjectString: true,
    withSparseArray: true,
    withTypedArray: true,
  });
  const value = fc.oneof(
    anything,
    notJson,
    fc.array(fc.oneof(anything, notJson), { maxLength: 3 }),
  );
  const argsArb = fc.oneof(
    fc.dictionary(
      fc.constantFrom(
        "account",
        "amount",
        "count",
        "urgent",
        "currency",
        "legs",
        "note",
      ),
      value,
    ),
    value,
  );
  fc.assert(
    fc.property(
      argsArb,
      fc.constantFrom<JsonSchema>(schema, open, {}, true),
      (args, s) => {
        const out = repairArguments(s, args);
        if (!isJson(args)) {
          assert.ok(
            out.issues.some((i) => i.keyword === "json"),
            "non-JSON input is refused",
          );
          assert.deepEqual(out.repairs, []);
        }
        if (out.issues.length === 0) {
          assert.ok(isJson(out.arguments), "what repair lets through is JSON");
          const wire = JSON.parse(JSON.stringify(out.arguments));
          assert.deepEqual(
            validateSchema(s, wire),
            [],
            "and it validates as it will be sent",
          );
        }
      },
    ),
    { numRuns: 1000 },
  );
});
