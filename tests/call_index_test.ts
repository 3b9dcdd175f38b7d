import assert from "node:assert/strict";
import fc from "fast-check";
import { CallIndex, type JsonSchema, replayCalls, type StoredCall } from "../mod.ts";
import { EstateDir } from "../lib/store/mod.ts";
import { applyEdits, editArb, type Obj } from "./_random_schemas.ts";

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
