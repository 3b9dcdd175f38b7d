/**
 * The design's central law, over the shipped example estate: for each tool, random edits of its
 * newest published schema; whenever classifySchemaChange calls an edit minor or patch, every
 * stored call of that major line validates under the edited schema. An edit the classifier gets
 * wrong is a classifier bug: keep the seed that found it as a regression case below.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  classifySchemaChange,
  type JsonSchema,
  type StoredCall,
  validateSchema,
  Version,
} from "../mod.ts";
import { EstateDir } from "../lib/store/mod.ts";
import { applyEdits, editArb, type Obj } from "./_random_schemas.ts";

const CORPUS = new URL("../corpus/", import.meta.url).pathname;
const estate = EstateDir.open(CORPUS);

function callsOfNewestLine(
  name: string,
): { schema: JsonSchema; calls: StoredCall[] } {
  const newest = estate.registry.versions(name).at(-1)!;
  const major = Version.parse(newest.spec.version).major;
  const calls = [...estate.readCalls(name)].filter((c) => Version.parse(c.version).major === major);
  return { schema: newest.spec.inputSchema, calls };
}

Deno.test("the shipped corpus: every tool's stored calls of its newest major line validate under its newest schema", () => {
  for (const name of estate.registry.names()) {
    const { schema, calls } = callsOfNewestLine(name);
    assert.ok(calls.length > 50, `${name} has stored calls`);
    for (const c of calls) {
      assert.deepEqual(
        validateSchema(schema, c.arguments),
        [],
        `${name} ${JSON.stringify(c)}`,
      );
    }
  }
});

Deno.test("law: an edit classified minor or patch accepts every stored call of the shipped corpus", () => {
  const names = estate.registry.names();
  const lines = new Map(names.map((n) => [n, callsOfNewestLine(n)]));
  let compatible = 0;
  fc.assert(
    fc.property(
      fc.constantFrom(...names),
      fc.array(editArb, { minLength: 1, maxLength: 4 }),
      (name, edits) => {
        const { schema, calls } = lines.get(name)!;
        const edited = applyEdits(schema as Obj, edits).schema;
        const { bump, changes } = classifySchemaChange(schema, edited);
        if (bump === "major") return true;
        compatible++;
        for (const c of calls) {
          const issues = validateSchema(edited, c.arguments);
          if (issues.length) {
            assert.fail(
              `${name}: classified ${bump} (${
                changes.map((x) => x.message).join("; ")
              }) but rejects ${JSON.stringify(c.arguments)}: ${JSON.stringify(issues)}`,
            );
          }
        }
        return true;
      },
    ),
    { numRuns: 400 },
  );
  // The property must exercise compatible edits, not only skip major ones.
  assert.ok(compatible > 50, `only ${compatible} compatible edits were tried`);
});
