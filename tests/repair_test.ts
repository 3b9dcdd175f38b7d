import assert from "node:assert/strict";
import fc from "fast-check";
import { type JsonSchema, repairArguments } from "../mod.ts";

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
    assert.equal(out.arguments && (out.arguments as Record<string, unknown>).amount, bad, bad);
    assert.equal(out.repairs.filter((r) => r.kind === "coerced").length, 0, bad);
    assert.deepEqual(out.issues.map((i) => `${i.path} ${i.keyword}`), ["$.amount type"], bad);
  }
  // Precision: 2^53 + 1 has no double; as an integer it would silently become 2^53.
  const big = repairArguments(schema, { account: "A", amount: 1, count: "9007199254740993" });
  assert.equal((big.arguments as Record<string, unknown>).count, "9007199254740993");
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
    (repairArguments(schema, { account: "A", amount: 1, count: "1.5" }).arguments as Record<
      string,
      unknown
    >).count,
    "1.5",
  );
  // Never a number into a string, never "yes" into a boolean.
  const other = repairArguments(schema, { account: 12345, amount: 1, urgent: "yes" });
  assert.deepEqual(other.arguments, { account: 12345, amount: 1, urgent: "yes", currency: "EUR" });
  assert.deepEqual(other.issues.map((i) => `${i.path} ${i.keyword}`), [
    "$.account type",
    "$.urgent type",
  ]);
});

Deno.test("repairArguments() keeps a string where the schema also accepts strings", () => {
  const s = { type: "object", properties: { id: { type: ["string", "integer"] } } };
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
  const open = { type: "object", patternProperties: { "^x-": {} }, additionalProperties: false };
  assert.deepEqual(repairArguments(open, { "x-a": 1, b: 2 }).arguments, { "x-a": 1 });
});

Deno.test("repairArguments() fills from the schema default, then platform defaults, and never invents", () => {
  const out = repairArguments(schema, { amount: 1 }, {
    defaults: { channel: "agent", currency: "GBP" },
  });
  assert.deepEqual(out.arguments, { amount: 1, currency: "EUR", channel: "agent" });
  assert.deepEqual(out.issues.map((i) => `${i.path} ${i.keyword}`), ["$.account required"]);
  const byPath = repairArguments(schema, { account: "A", amount: 1, legs: [{}] }, {
    defaults: { "$.legs[0].final": false },
  });
  assert.deepEqual((byPath.arguments as { legs: unknown[] }).legs, [{ final: false }]);
});

Deno.test("repairArguments() never mutates its input", () => {
  const args = { account: "A", amount: "5", legs: [{ amount: "1", extra: true }], note: 1 };
  const before = JSON.stringify(args);
  const defaults = { channel: { nested: [1] } };
  repairArguments(schema, args, { defaults });
  assert.equal(JSON.stringify(args), before);
  const out = repairArguments(schema, { account: "A", amount: 1 }, { defaults });
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
    fc.array(fc.dictionary(fc.constantFrom("amount", "final", "extra"), argValue), {
      maxLength: 3,
    }),
  ),
);

Deno.test("repairArguments() repairs a platform default like a sent value (seed -750928052)", () => {
  const once = repairArguments(schema, { account: "A", amount: 1, legs: [{}] }, {
    defaults: { "$.legs[0].final": "false" },
  });
  assert.deepEqual((once.arguments as { legs: unknown[] }).legs, [{ final: false }]);
  assert.deepEqual(repairArguments(schema, once.arguments).repairs, []);
});

Deno.test("property: repair is idempotent", () => {
  fc.assert(
    fc.property(
      argsArb,
      fc.dictionary(fc.constantFrom("channel", "account", "$.legs[0].final"), argValue),
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
        if (!Object.hasOwn(args, k)) assert.equal(Object.hasOwn(repaired, k), false);
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
      fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }).map(String), fc.string()),
      (text) => {
        const out = repairArguments(s, { n: text, i: text }).arguments as Record<string, unknown>;
        for (const k of ["n", "i"]) {
          if (typeof out[k] === "number") assert.equal(out[k], JSON.parse(text));
          else assert.equal(out[k], text);
        }
      },
    ),
    { numRuns: 500 },
  );
});
