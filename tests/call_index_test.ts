import assert from "node:assert/strict";
import fc from "fast-check";
import { CallIndex, type JsonSchema, replayCalls, type StoredCall } from "../mod.ts";
import { EstateDir } from "../lib/store/mod.ts";
import { applyEdits, editArb, type Obj, soupSchema } from "./_random_schemas.ts";

const estate = EstateDir.open(new URL("../corpus/", import.meta.url).pathname);

/** The corpus's calls of a tool plus some broken ones (non-objects, wrong types, extra keys). */
function callsOf(name: string): StoredCall[] {
  const calls = [...estate.readCalls(name)];
  const broken: StoredCall[] = [
    {
      version: "1.0.0",
      arguments: null,
      principal: "x",
      at: "2026-01-01T00:00:00Z",
    },
    {
      version: "1.0.0",
      arguments: [1, 2],
      principal: "x",
      at: "2026-01-01T00:00:00Z",
    },
    {
      version: "2.0.0",
      arguments: { reference: 42, extra: true },
      principal: "y",
      at: "2026-01-01T00:00:00Z",
    },
    {
      version: "1.1.0",
      arguments: {},
      principal: "z",
      at: "2026-01-01T00:00:00Z",
    },
    {
      version: "not-semver",
      arguments: {},
      principal: "z",
      at: "2026-01-01T00:00:00Z",
    },
  ];
  return [
    ...broken.slice(0, 2),
    ...calls.slice(0, 150),
    ...broken.slice(2),
    ...calls.slice(150),
  ];
}

Deno.test("CallIndex.rejections() equals replayCalls() for every tool's newest schema, per major line", () => {
  for (const name of estate.registry.names()) {
    const calls = callsOf(name);
    const index = new CallIndex(calls);
    const schema = estate.registry.versions(name).at(-1)!.spec.inputSchema;
    for (const major of [undefined, 1, 2]) {
      assert.deepEqual(
        index.rejections(schema, { major }),
        replayCalls(schema, calls, { major }),
        `${name} ${major}`,
      );
    }
  }
});

Deno.test("property: CallIndex.rejections() equals replayCalls() under random edits, edit after edit", () => {
  const names = estate.registry.names();
  const indexes = new Map(
    names.map((
      n,
    ) => [n, { calls: callsOf(n), index: new CallIndex(callsOf(n)) }]),
  );
  fc.assert(
    fc.property(
      fc.constantFrom(...names),
      fc.array(fc.array(editArb, { minLength: 1, maxLength: 3 }), {
        minLength: 1,
        maxLength: 4,
      }),
      fc.constantFrom(undefined, 1, 2),
      (name, rounds, major) => {
        const { calls, index } = indexes.get(name)!;
        let schema = estate.registry.versions(name).at(-1)!.spec
          .inputSchema as Obj;
        for (const edits of rounds) {
          schema = applyEdits(schema, edits).schema;
          assert.deepEqual(
            index.rejections(schema as JsonSchema, { major, sample: 5 }),
            replayCalls(schema as JsonSchema, calls, { major, sample: 5 }),
          );
        }
      },
    ),
    { numRuns: 150 },
  );
});

Deno.test("CallIndex answers edit after edit on one index, and back again", () => {
  const calls: StoredCall[] = Array.from({ length: 2000 }, (_, i) => ({
    version: "1.0.0",
    arguments: { a: i, b: `v${i % 7}`, c: i % 2 === 0 },
    principal: "p",
    at: "2026-01-01T00:00:00Z",
  }));
  const index = new CallIndex(calls);
  const base = {
    type: "object",
    properties: {
      a: { type: "integer" },
      b: { type: "string" },
      c: { type: "boolean" },
    },
    required: ["a"],
  };
  assert.equal(index.rejections(base).count, 0);
  const edited = {
    ...base,
    properties: {
      ...base.properties,
      b: { type: "string", enum: ["v1", "v2"] },
    },
  };
  const r = index.rejections(edited);
  assert.equal(
    r.count,
    calls.filter((c) => !["v1", "v2"].includes((c.arguments as { b: string }).b)).length,
  );
  assert.deepEqual(r, replayCalls(edited, calls));
  assert.deepEqual(index.rejections(base), replayCalls(base, calls));
  const closed = {
    ...edited,
    additionalProperties: false,
    properties: { a: base.properties.a, b: edited.properties.b },
  };
  assert.deepEqual(index.rejections(closed), replayCalls(closed, calls));
});

/** Twelve keys; a call sends any subset of them, so nearly every call has a key set of its own. */
const SCATTERED_KEYS = ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l"];
const scatteredValue = fc.constantFrom<unknown>(
  0,
  1,
  2.5,
  -3,
  "",
  "ab",
  "abcdef",
  "EUR",
  true,
  null,
  [],
  [1, "x"],
  { a: 1 },
);
const scatteredCalls: fc.Arbitrary<StoredCall[]> = fc.array(
  fc.record({
    major: fc.constantFrom(1, 2),
    args: fc.oneof(
      { weight: 30, arbitrary: fc.dictionary(fc.constantFrom(...SCATTERED_KEYS), scatteredValue) },
      { weight: 1, arbitrary: fc.constantFrom<unknown>(null, [1], "text", 7) },
    ),
  }).map(({ major, args }) => ({
    version: `${major}.0.0`,
    arguments: args,
    principal: "p",
    at: "2026-01-01T00:00:00Z",
  })),
  { minLength: 1, maxLength: 150 },
);
/**
 * A root object schema of the shapes the index takes apart (key-set keywords, properties of
 * keyword soup, `$defs` two properties may share) and, now and then, one it replays whole.
 */
const scatteredSchema: fc.Arbitrary<JsonSchema> = fc.record({
  properties: fc.dictionary(
    fc.constantFrom(...SCATTERED_KEYS),
    fc.oneof(
      { weight: 4, arbitrary: soupSchema },
      { weight: 1, arbitrary: fc.constant({ $ref: "#/$defs/shared" }) },
    ),
  ),
  shared: soupSchema,
  required: fc.subarray(SCATTERED_KEYS),
  additionalProperties: fc.constantFrom<unknown>(undefined, true, false, { type: "string" }),
  minProperties: fc.option(fc.integer({ min: 0, max: 6 }), { nil: undefined }),
  maxProperties: fc.option(fc.integer({ min: 0, max: 8 }), { nil: undefined }),
  dependentRequired: fc.option(
    fc.dictionary(
      fc.constantFrom(...SCATTERED_KEYS),
      fc.subarray(SCATTERED_KEYS, { maxLength: 3 }),
      {
        maxKeys: 3,
      },
    ),
    { nil: undefined },
  ),
}).map(({ shared, ...s }) => {
  const schema: Record<string, unknown> = { type: "object", $defs: { shared } };
  for (const [k, v] of Object.entries(s)) if (v !== undefined) schema[k] = v;
  return schema as JsonSchema;
});

Deno.test("property: CallIndex.rejections() equals replayCalls() on scattered key sets, schema after schema", () => {
  fc.assert(
    fc.property(
      scatteredCalls,
      fc.array(scatteredSchema, { minLength: 1, maxLength: 5 }),
      fc.constantFrom(undefined, 1, 2),
      fc.integer({ min: 0, max: 4 }),
      (calls, schemas, major, sample) => {
        const index = new CallIndex(calls);
        // Each schema, then back to an earlier one: the index answers from what it kept.
        for (const schema of [...schemas, schemas[0], ...schemas.slice(1, 2)]) {
          assert.deepEqual(
            index.rejections(schema, { major, sample }),
            replayCalls(schema, calls, { major, sample }),
          );
        }
      },
    ),
    { numRuns: 100 },
  );
});
