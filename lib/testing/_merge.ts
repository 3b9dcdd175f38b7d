/**
 * Merges the branches of an `allOf` into one schema to generate from. The merge is exact for the
 * common keywords (types, enums, bounds, required, properties); where two branches use a keyword
 * in ways it cannot combine (two patterns, two `anyOf`s, ...) it keeps the first, and the caller
 * filters generated values against the original schema.
 */
import { jsonEqual } from "../schema/json_equal.ts";
import { isMultipleOf } from "../schema/decimal.ts";
import { isObject } from "../_object.ts";

type Obj = Record<string, unknown>;

const TYPE_NAMES = [
  "null",
  "boolean",
  "object",
  "array",
  "number",
  "integer",
  "string",
];

function typeSet(t: unknown): Set<string> | undefined {
  const names = typeof t === "string" ? [t] : Array.isArray(t) ? t : undefined;
  if (!names) return undefined;
  const out = new Set<string>();
  for (const n of names) {
    if (typeof n !== "string" || !TYPE_NAMES.includes(n)) return undefined;
    out.add(n);
  }
  return out;
}

function intersectTypes(a: unknown, b: unknown): unknown[] | undefined {
  const x = typeSet(a), y = typeSet(b);
  if (!x || !y) return undefined;
  const out: string[] = [];
  for (const t of x) {
    if (y.has(t)) out.push(t);
    else if (t === "integer" && y.has("number")) out.push("integer");
    else if (t === "number" && y.has("integer")) out.push("integer");
  }
  return [...new Set(out)];
}

const LOWER = [
  "minimum",
  "exclusiveMinimum",
  "minLength",
  "minItems",
  "minProperties",
  "minContains",
];
const UPPER = [
  "maximum",
  "exclusiveMaximum",
  "maxLength",
  "maxItems",
  "maxProperties",
  "maxContains",
];
const MAPS = [
  "properties",
  "patternProperties",
  "dependentSchemas",
  "$defs",
  "definitions",
];

/** The result of a merge: one schema, or why the branches contradict each other. */
export type Merged = { schema: Obj; contradiction?: undefined } | {
  contradiction: string;
};

/** Merges schemas that all apply to the same value (the branches of an `allOf`). */
export function mergeSchemas(parts: readonly Obj[]): Merged {
  const out: Obj = {};
  for (const part of parts) {
    for (const [k, v] of Object.entries(part)) {
      if (!Object.hasOwn(out, k) || jsonEqual(out[k], v)) {
        out[k] = v;
        continue;
      }
      const cur = out[k];
      if (k === "type") {
        const t = intersectTypes(cur, v);
        if (t && t.length === 0) {
          return {
            contradiction: `types ${JSON.stringify(cur)} and ${JSON.stringify(v)} share no value`,
          };
        }
        if (t) out[k] = t;
      } else if (k === "const") {
        return {
          contradiction: `const ${JSON.stringify(cur)} and ${JSON.stringify(v)} differ`,
        };
      } else if (k === "enum" && Array.isArray(cur) && Array.isArray(v)) {
        const both = cur.filter((x) => v.some((y) => jsonEqual(x, y)));
        if (!both.length) return { contradiction: "the enums share no value" };
        out[k] = both;
      } else if (
        LOWER.includes(k) && typeof cur === "number" && typeof v === "number"
      ) {
        out[k] = Math.max(cur, v);
      } else if (
        UPPER.includes(k) && typeof cur === "number" && typeof v === "number"
      ) {
        out[k] = Math.min(cur, v);
      } else if (k === "required" && Array.isArray(cur) && Array.isArray(v)) {
        out[k] = [...new Set([...cur, ...v])];
      } else if (k === "uniqueItems") {
        out[k] = cur === true || v === true;
      } else if (
        k === "multipleOf" && typeof cur === "number" && typeof v === "number"
      ) {
        if (isMultipleOf(v, cur)) out[k] = v;
        else if (!isMultipleOf(cur, v)) out[k] = cur;
      } else if (MAPS.includes(k) && isObject(cur) && isObject(v)) {
        const m: Obj = { ...cur };
        for (const [name, sub] of Object.entries(v)) {
          m[name] = Object.hasOwn(m, name) && !jsonEqual(m[name], sub)
            ? { allOf: [m[name], sub] }
            : sub;
        }
        out[k] = m;
      } else if (k === "dependentRequired" && isObject(cur) && isObject(v)) {
        const m: Obj = { ...cur };
        for (const [name, deps] of Object.entries(v)) {
          const prev = Array.isArray(m[name]) ? m[name] as unknown[] : [];
          m[name] = [
            ...new Set([...prev, ...(Array.isArray(deps) ? deps : [])]),
          ];
        }
        out[k] = m;
      } else if (
        (k === "items" || k === "additionalProperties" ||
          k === "additionalItems" ||
          k === "propertyNames") && !Array.isArray(cur) && !Array.isArray(v)
      ) {
        out[k] = cur === false || v === false ? false : { allOf: [cur, v] };
      } else if (
        k === "prefixItems" && Array.isArray(cur) && Array.isArray(v)
      ) {
        const n = Math.max(cur.length, v.length);
        out[k] = Array.from(
          { length: n },
          (_, i) =>
            i < cur.length && i < v.length
              ? { allOf: [cur[i], v[i]] }
              : i < cur.length
              ? cur[i]
              : v[i],
        );
      }
      // Anything else keeps the first branch's value; the caller filters against the original.
    }
  }
  return { schema: out };
}
