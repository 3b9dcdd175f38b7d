/**
 * Facts about one subschema that the classifier reasons with: which kinds of JSON value it can
 * accept (an over-approximation), the finite set of values an `enum`/`const` allows, and whether
 * two subschemas provably accept no common value.
 */
import { jsonEqual } from "../schema/json_equal.ts";
import { isObject } from "../_object.ts";
import { keywordsWhere } from "../schema/keywords.ts";
import type { JsonSchema } from "../schema/types.ts";
import { isValid } from "../schema/validate.ts";
import { isAnnotation, type Side } from "./_side.ts";
import type { ValueKind } from "./_value_kind.ts";

export type { ValueKind } from "./_value_kind.ts";

/** Every kind of JSON value. */
export const ALL_KINDS: readonly ValueKind[] = [
  "null",
  "boolean",
  "integer",
  "fraction",
  "string",
  "array",
  "object",
];

/** The kinds a JSON `type` name allows. */
export const TYPE_KINDS: Readonly<Record<string, readonly ValueKind[]>> = {
  null: ["null"],
  boolean: ["boolean"],
  integer: ["integer"],
  number: ["integer", "fraction"],
  string: ["string"],
  array: ["array"],
  object: ["object"],
};

/** The kind of a JSON value. */
export function kindOf(v: unknown): ValueKind {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  if (typeof v === "number") {
    return Number.isInteger(v) ? "integer" : "fraction";
  }
  if (typeof v === "boolean") return "boolean";
  if (typeof v === "string") return "string";
  return "object";
}

/** The kinds a `type` keyword allows; `undefined` when absent or malformed. */
export function typeKeywordKinds(t: unknown): Set<ValueKind> | undefined {
  const names = typeof t === "string" ? [t] : Array.isArray(t) ? t : undefined;
  if (!names) return undefined;
  const out = new Set<ValueKind>();
  for (const n of names) {
    const kinds = typeof n === "string" ? TYPE_KINDS[n] : undefined;
    if (!kinds) return undefined;
    for (const c of kinds) out.add(c);
  }
  return out;
}

/** Names a set of kinds the way `type` would: `number` for both numeric kinds. */
export function kindNames(kinds: Iterable<ValueKind>): string[] {
  const set = new Set(kinds);
  const out: string[] = [];
  for (const c of ALL_KINDS) {
    if (!set.has(c)) continue;
    if (c === "integer") out.push(set.has("fraction") ? "number" : "integer");
    else if (c === "fraction") {
      if (!set.has("integer")) out.push("non-integer number");
    } else out.push(c);
  }
  return out;
}

function intersect(a: Set<ValueKind>, b: Iterable<ValueKind>): Set<ValueKind> {
  const bs = new Set(b);
  return new Set([...a].filter((c) => bs.has(c)));
}

/**
 * The kinds of value a schema may accept: an over-approximation from `type`, `const`, `enum`,
 * `$ref`, `allOf`, `anyOf` and `oneOf`. A kind not in the set is certainly rejected.
 */
export function typeKinds(
  side: Side,
  s: unknown,
  seen: Set<object> = new Set(),
): Set<ValueKind> {
  if (s === false) return new Set();
  if (!isObject(s)) return new Set(ALL_KINDS);
  if (seen.has(s)) return new Set(ALL_KINDS);
  // An answer reached inside a cycle may be wider than need be, never narrower: safe to keep.
  const known = side.kinds.get(s);
  if (known) return known;
  seen.add(s);
  let out = new Set<ValueKind>(ALL_KINDS);
  const t = typeKeywordKinds(s.type);
  if (t) out = intersect(out, t);
  if (Object.hasOwn(s, "const")) out = intersect(out, [kindOf(s.const)]);
  if (Array.isArray(s.enum)) out = intersect(out, s.enum.map(kindOf));
  if (typeof s.$ref === "string") {
    const target = side.target(s);
    if (target !== undefined) {
      out = intersect(out, typeKinds(side, target, seen));
    }
  }
  if (Array.isArray(s.allOf)) {
    for (const b of s.allOf) out = intersect(out, typeKinds(side, b, seen));
  }
  for (const kw of ["anyOf", "oneOf"]) {
    const branches = s[kw];
    if (!Array.isArray(branches)) continue;
    const union = new Set<ValueKind>();
    for (const b of branches) {
      for (const c of typeKinds(side, b, seen)) union.add(c);
    }
    out = intersect(out, union);
  }
  seen.delete(s);
  side.kinds.set(s, out);
  return out;
}

/** The values `const`/`enum` allow (deduplicated), or `undefined` when neither is present. */
export function finiteDomain(s: JsonSchema): unknown[] | undefined {
  if (!isObject(s)) return s === false ? [] : undefined;
  let d: unknown[] | undefined;
  if (Object.hasOwn(s, "const")) d = [s.const];
  if (Array.isArray(s.enum)) {
    const e = s.enum;
    d = d ? d.filter((v) => e.some((w) => jsonEqual(v, w))) : e;
  }
  if (!d) return undefined;
  const out: unknown[] = [];
  for (const v of d) if (!out.some((w) => jsonEqual(v, w))) out.push(v);
  return out;
}

/** Keywords that test a value on their own, with no subschema and no reference. */
export const LEAF_KEYWORDS: readonly string[] = keywordsWhere((d) => d.leaf === true);

const leafCache = new WeakMap<object, JsonSchema>();

/** The schema made of a schema's leaf keywords only. */
export function leafPart(s: JsonSchema): JsonSchema {
  if (!isObject(s)) return s;
  let leaf = leafCache.get(s);
  if (!leaf) {
    const o: Record<string, unknown> = {};
    for (const k of LEAF_KEYWORDS) if (Object.hasOwn(s, k)) o[k] = s[k];
    leaf = o;
    leafCache.set(s, leaf);
  }
  return leaf;
}

/**
 * The values of a schema's `enum`/`const` that also pass its leaf keywords: a superset of what the
 * schema accepts, or `undefined` when that is not a finite set.
 */
export function acceptedDomain(s: JsonSchema): unknown[] | undefined {
  const d = finiteDomain(s);
  if (!d) return undefined;
  const leaf = leafPart(s);
  return d.filter((v) => isValid(leaf, v));
}

/** Whether a schema accepts every value: `true`, or an object with annotations only. */
export function isTriviallyTrue(s: unknown): boolean {
  if (s === true || s === undefined) return true;
  if (!isObject(s)) return false;
  return Object.keys(s).every(isAnnotation);
}

interface Interval {
  lo: number;
  loExcl: boolean;
  hi: number;
  hiExcl: boolean;
}

function interval(s: Record<string, unknown>): Interval {
  const out: Interval = {
    lo: -Infinity,
    loExcl: false,
    hi: Infinity,
    hiExcl: false,
  };
  if (typeof s.minimum === "number") out.lo = s.minimum;
  if (typeof s.exclusiveMinimum === "number" && s.exclusiveMinimum >= out.lo) {
    out.lo = s.exclusiveMinimum;
    out.loExcl = true;
  }
  if (typeof s.maximum === "number") out.hi = s.maximum;
  if (typeof s.exclusiveMaximum === "number" && s.exclusiveMaximum <= out.hi) {
    out.hi = s.exclusiveMaximum;
    out.hiExcl = true;
  }
  return out;
}

function below(a: Interval, b: Interval): boolean {
  return a.hi < b.lo || (a.hi === b.lo && (a.hiExcl || b.loExcl));
}

/**
 * Whether two subschemas of one document provably accept no common value: disjoint kinds,
 * disjoint finite domains, disjoint numeric ranges, or (for objects) a property both require
 * whose schemas are disjoint — a discriminator.
 */
export function provablyDisjoint(
  side: Side,
  a: unknown,
  b: unknown,
  depth = 0,
): boolean {
  if (depth > 4) return false;
  const ra = side.resolve(a), rb = side.resolve(b);
  if (ra.unresolved !== undefined || rb.unresolved !== undefined) return false;
  const x = ra.schema, y = rb.schema;
  if (x === false || y === false) return true;
  if (!isObject(x) || !isObject(y)) return false;
  const tx = typeKinds(side, x), ty = typeKinds(side, y);
  const common = intersect(tx, ty);
  if (common.size === 0) return true;
  const dx = acceptedDomain(x), dy = acceptedDomain(y);
  const accepts = (
    s: Record<string, unknown>,
    d: unknown[] | undefined,
    t: Set<ValueKind>,
    v: unknown,
  ) =>
    t.has(kindOf(v)) && isValid(leafPart(s), v) &&
    (!d || d.some((w) => jsonEqual(v, w)));
  if (dx && dx.every((v) => !accepts(y, dy, ty, v))) return true;
  if (dy && dy.every((v) => !accepts(x, dx, tx, v))) return true;
  const only = (kinds: ValueKind[]) => [...common].every((c) => kinds.includes(c));
  if (only(["integer", "fraction"])) {
    const ix = interval(x), iy = interval(y);
    if (below(ix, iy) || below(iy, ix)) return true;
  }
  if (only(["object"])) {
    const rx = Array.isArray(x.required) ? x.required : [];
    const ry = Array.isArray(y.required) ? y.required : [];
    const px = isObject(x.properties) ? x.properties : {};
    const py = isObject(y.properties) ? y.properties : {};
    for (const k of rx) {
      if (typeof k !== "string") continue;
      if (ry.includes(k) && Object.hasOwn(px, k) && Object.hasOwn(py, k)) {
        if (provablyDisjoint(side, px[k], py[k], depth + 1)) return true;
      }
      if (forbids(y, py, k)) return true;
    }
    for (const k of ry) {
      if (typeof k === "string" && forbids(x, px, k)) return true;
    }
  }
  return false;
}

/** Whether an object schema rejects every object that has property `k`. */
function forbids(
  s: Record<string, unknown>,
  props: Record<string, unknown>,
  k: string,
): boolean {
  if (Object.hasOwn(props, k)) return props[k] === false;
  return s.additionalProperties === false && !isObject(s.patternProperties);
}
