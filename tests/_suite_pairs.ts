/**
 * An independent source of schema pairs for the classifier's soundness checks: the official
 * JSON-Schema-Test-Suite (draft 2020-12, every keyword file and the optional ones), each schema
 * replaced by another schema of the same file, at the root or placed under a property, in
 * `items`, under `not`, in an `anyOf` beside `null`, or as `additionalProperties`. Neither the
 * schemas nor the edits are this library's; the suite's own instances come with each pair.
 *
 * @module
 */
import { SUITE_DIR } from "./_suite.ts";

type Obj = Record<string, unknown>;

/** A pair of schemas and the values to try first. */
export interface SuitePair {
  before: unknown;
  after: unknown;
  /** The file and the place. */
  ops: string[];
  /** The suite's instances of both schemas, placed as the schemas are. */
  values: unknown[];
}

/** The official suite's schemas, by file, each with the instances its tests give. */
export function suiteSchemas(): Map<string, { schema: unknown; data: unknown[] }[]> {
  const dir = SUITE_DIR;
  const files: string[] = [];
  const walk = (rel: string): void => {
    for (const e of Deno.readDirSync(new URL(rel, dir))) {
      if (e.isDirectory) walk(`${rel}${e.name}/`);
      else if (e.name.endsWith(".json")) files.push(`${rel}${e.name}`);
    }
  };
  walk("");
  const out = new Map<string, { schema: unknown; data: unknown[] }[]>();
  for (const file of files.sort()) {
    const groups = JSON.parse(Deno.readTextFileSync(new URL(file, dir))) as {
      schema: unknown;
      tests: { data: unknown }[];
    }[];
    out.set(file, groups.map((g) => ({ schema: g.schema, data: g.tests.map((t) => t.data) })));
  }
  return out;
}

/** The schema without its root `$schema` (the dialect, which a subschema may not name). */
function dialectless(schema: unknown): unknown {
  if (typeof schema !== "object" || schema === null) return schema;
  const { $schema: _, ...rest } = schema as Obj;
  return rest;
}

/** Whether a schema may be placed below a root: no references, ids or anchors that need the root. */
function placeable(schema: unknown): boolean {
  return !/"\$(ref|id|anchor|dynamicRef|dynamicAnchor|recursiveRef|recursiveAnchor|schema)"/.test(
    JSON.stringify(schema),
  );
}

/** Where an independent pair's schemas are put, and its instances with them. */
const PLACES: { name: string; schema: (s: unknown) => unknown; value: (v: unknown) => unknown }[] =
  [
    { name: "root", schema: (s) => s, value: (v) => v },
    {
      name: "property",
      schema: (s) => ({ type: "object", properties: { p: s }, required: ["p"] }),
      value: (v) => ({ p: v }),
    },
    { name: "items", schema: (s) => ({ type: "array", items: s }), value: (v) => [v, v] },
    { name: "not", schema: (s) => ({ not: s }), value: (v) => v },
    {
      name: "anyOf beside null",
      schema: (s) => ({ anyOf: [s, { type: "null" }] }),
      value: (v) => v,
    },
    {
      name: "additionalProperties",
      schema: (s) => ({ properties: { a: { type: "integer" } }, additionalProperties: s }),
      value: (v) => ({ a: 1, x: v }),
    },
  ];

/**
 * Pairs of the official suite's schemas from one file (both orders, each with itself too), at the
 * places above, shuffled by `seed`: the first `count`. Each pair's `values` are the suite's
 * instances of both schemas, placed the same way.
 */
export function suitePairs(seed: number, count: number): SuitePair[] {
  const all: SuitePair[] = [];
  for (const [file, groups] of suiteSchemas()) {
    for (const a of groups) {
      for (const b of groups) {
        for (const place of PLACES) {
          const [sa, sb] = place.name === "root"
            ? [a.schema, b.schema]
            : [dialectless(a.schema), dialectless(b.schema)];
          if (place.name !== "root" && !(placeable(sa) && placeable(sb))) continue;
          all.push({
            before: place.schema(structuredClone(sa)),
            after: place.schema(structuredClone(sb)),
            ops: [`${file} at ${place.name}`],
            values: [...a.data, ...b.data].map(place.value),
          });
        }
      }
    }
  }
  let x = seed >>> 0 || 1;
  const random = () => ((x = (x * 1_103_515_245 + 12_345) >>> 0) / 2 ** 32);
  for (let i = all.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [all[i], all[j]] = [all[j], all[i]];
  }
  return all.slice(0, count);
}
