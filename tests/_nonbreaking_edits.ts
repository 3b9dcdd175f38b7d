/**
 * Schema pairs whose verdict is known by construction, for measuring false majors and misses:
 * non-breaking edits (every value the old schema accepts through the members it names is accepted
 * by the new one) and breaking edits (some such value is rejected), applied to tool input schemas.
 *
 * The edits were written from the JSON Schema meaning of each keyword, not from the classifier:
 * widenings (a bound loosened or dropped, an `enum` extended, a `type` widened, `required`
 * shortened, `additionalProperties: false` dropped, `pattern`/`format` dropped), nested optional
 * properties added, wrapping (`X` → `anyOf: [X, Y]`, `anyOf: [X]`, `allOf: [X]`), `oneOf` →
 * `anyOf` over disjoint or overlapping branches, `$ref` indirection through `$defs`, and
 * annotation-only edits. Non-breaking edits only touch subschemas in positive places (reached
 * through `properties`, `items`, `anyOf`, `allOf` and `$defs`; never under `oneOf`, `not`, `if`
 * or `contains`), where accepting more cannot make the root reject more.
 *
 * Each pair is checked independently by {@linkcode verifyNonBreaking} / {@linkcode findWitness}:
 * values from json-schema-faker, validated by ajv (draft 2020-12).
 */
import Ajv2020 from "ajv/dist/2020.js";
import { generateSync } from "json-schema-faker";
import type { Obj } from "./_random_schemas.ts";
import { usesNamedMembersOnly } from "./_schema_pairs.ts";

export type { Obj };

/** A pair of schemas and the edits that made the second from the first. */
export interface EditedPair {
  before: Obj;
  after: Obj;
  ops: string[];
}

/** A small seeded generator (mulberry32). */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const isObj = (x: unknown): x is Obj => typeof x === "object" && x !== null && !Array.isArray(x);

/** A subschema, and the instance path that reaches it through `properties` only (if any). */
interface Site {
  schema: Obj;
  /** The property names from the root, when only `properties` lead here. */
  path?: string[];
}

/** Object subschemas in positive places (see the module doc), with their `properties` paths. */
export function positiveSites(root: Obj): Site[] {
  const out: Site[] = [];
  const seen = new Set<Obj>();
  const visit = (s: unknown, path: string[] | undefined): void => {
    if (!isObj(s) || seen.has(s)) return;
    seen.add(s);
    out.push({ schema: s, path });
    if (isObj(s.properties)) {
      for (const [k, v] of Object.entries(s.properties)) {
        visit(v, path && [...path, k]);
      }
    }
    visit(s.items, undefined);
    for (const kw of ["anyOf", "allOf"]) {
      if (Array.isArray(s[kw])) (s[kw] as unknown[]).forEach((b) => visit(b, undefined));
    }
    if (isObj(s.$defs)) Object.values(s.$defs).forEach((d) => visit(d, undefined));
  };
  visit(root, []);
  // A $defs entry that a oneOf branch, not or if refers to is not in a positive place.
  const negative = JSON.stringify(root).includes('"oneOf"') ||
    JSON.stringify(root).includes('"not"');
  return negative ? out.filter((x) => !isDefinition(root, x.schema)) : out;
}

function isDefinition(root: Obj, s: Obj): boolean {
  if (!isObj(root.$defs)) return false;
  const defs = Object.values(root.$defs);
  const inside = (x: unknown): boolean =>
    x === s || (typeof x === "object" && x !== null && Object.values(x).some(inside));
  return defs.some(inside);
}

type Random = () => number;
const pick = <T>(r: Random, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)];

/** An edit that rewrites one site in place; returns its name, or undefined when it does not fit. */
type SiteEdit = (s: Obj, r: Random, root: Obj) => string | undefined;

const LOWER = ["minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties"];
const UPPER = ["maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties"];
const OTHER_LEAVES: Obj[] = [
  { type: "null" },
  { type: "boolean" },
  { type: "string", maxLength: 2 },
  { type: "integer", minimum: 0 },
  { type: "array", items: { type: "string" } },
];

/** Non-breaking edits at a positive site. */
export const NON_BREAKING: Record<string, SiteEdit> = {
  addNestedOptional(s) {
    if (s.type !== "object" || !isObj(s.properties) || s.patternProperties) return undefined;
    s.properties = {
      ...s.properties,
      zz_added: {
        type: "object",
        description: "added later",
        properties: { note: { type: "string" }, level: { type: "integer", minimum: 0 } },
        required: ["note"],
      },
    };
    return "nested optional property added";
  },
  loosenBound(s, r) {
    const lo = LOWER.filter((k) => typeof s[k] === "number");
    const hi = UPPER.filter((k) => typeof s[k] === "number");
    if (!lo.length && !hi.length) return undefined;
    if (hi.length && (r() < 0.5 || !lo.length)) {
      const k = pick(r, hi);
      if (r() < 0.3) delete s[k];
      else s[k] = (s[k] as number) + 1 + Math.floor(r() * 10);
      return `${k} raised`;
    }
    const k = pick(r, lo);
    if (r() < 0.3 || (k !== "minimum" && k !== "exclusiveMinimum" && s[k] === 0)) delete s[k];
    else s[k] = (s[k] as number) - 1 - Math.floor(r() * 3);
    if (["minLength", "minItems", "minProperties"].includes(k) && (s[k] as number) < 0) {
      delete s[k];
    }
    return `${k} lowered`;
  },
  extendEnum(s, r) {
    if (!Array.isArray(s.enum)) return undefined;
    const v = pick(r, ["ZZZ", "other", 999, 12.5, null]);
    if (s.enum.some((x: unknown) => JSON.stringify(x) === JSON.stringify(v))) return undefined;
    s.enum = [...s.enum, v];
    if (
      typeof s.type === "string" && typeof v !== s.type &&
      !(s.type === "number" && typeof v === "number")
    ) {
      s.type = [s.type, v === null ? "null" : typeof v === "number" ? "number" : "string"];
    }
    return "enum extended";
  },
  constToEnum(s, r) {
    if (!("const" in s)) return undefined;
    s.enum = [s.const, pick(r, ["ZZZ", 999, null])];
    delete s.const;
    return "const became an enum with one more value";
  },
  widenType(s, r) {
    if (s.type === "integer" && r() < 0.5) {
      s.type = "number";
      return "integer widened to number";
    }
    if (typeof s.type === "string" && s.type !== "null") {
      s.type = [s.type, "null"];
      if (Array.isArray(s.enum)) s.enum = [...s.enum, null];
      return "type widened with null";
    }
    return undefined;
  },
  dropRequired(s, r) {
    if (!Array.isArray(s.required) || !s.required.length) return undefined;
    const name = pick(r, s.required);
    s.required = s.required.filter((n: unknown) => n !== name);
    if (!(s.required as unknown[]).length) delete s.required;
    return "required removed";
  },
  openObject(s) {
    if (s.additionalProperties !== false) return undefined;
    delete s.additionalProperties;
    return "additionalProperties false removed";
  },
  dropPatternOrFormat(s) {
    for (const k of ["pattern", "format", "multipleOf", "uniqueItems"]) {
      if (k in s) {
        delete s[k];
        return `${k} removed`;
      }
    }
    return undefined;
  },
  wrapAnyOf(s, r) {
    if (!Object.keys(s).length || "anyOf" in s || "$defs" in s) return undefined;
    const inner = { ...s };
    const outer: Obj = {};
    // Sometimes the annotation moves out to the wrapper.
    if (typeof inner.description === "string" && r() < 0.5) {
      outer.description = inner.description;
      delete inner.description;
    }
    const branches = r() < 0.2
      ? [inner]
      : r() < 0.5
      ? [inner, structuredClone(pick(r, OTHER_LEAVES))]
      : [structuredClone(pick(r, OTHER_LEAVES)), inner];
    for (const k of Object.keys(s)) delete s[k];
    Object.assign(s, outer, { anyOf: branches });
    return `wrapped in anyOf with ${branches.length} branches`;
  },
  wrapAllOf(s) {
    if (!Object.keys(s).length || "allOf" in s || "$defs" in s) return undefined;
    const inner = { ...s };
    for (const k of Object.keys(s)) delete s[k];
    s.allOf = [inner];
    return "wrapped in allOf";
  },
  oneOfToAnyOf(s) {
    if (!Array.isArray(s.oneOf) || "anyOf" in s) return undefined;
    s.anyOf = s.oneOf;
    delete s.oneOf;
    return "oneOf became anyOf";
  },
  moveToDefs(s, r, root) {
    if (s === root || !Object.keys(s).length || "$ref" in s || "$defs" in s) return undefined;
    const defs = (root.$defs ??= {}) as Obj;
    const name = `moved${Object.keys(defs).length}_${Math.floor(r() * 1000)}`;
    defs[name] = { ...s };
    for (const k of Object.keys(s)) delete s[k];
    s.$ref = `#/$defs/${name}`;
    return "subschema moved to $defs and referenced";
  },
  annotate(s, r) {
    const k = pick(r, ["description", "title", "examples", "$comment"]);
    s[k] = k === "examples" ? ["e.g."] : `${String(s[k] ?? "")} (reworded)`;
    return `${k} edited`;
  },
};

/** Breaking edits at a site reached through `properties` only; each names its witness's shape. */
export const BREAKING: Record<string, SiteEdit> = {
  removeClosedProperty(s, r) {
    if (s.additionalProperties !== false || !isObj(s.properties)) return undefined;
    const names = Object.keys(s.properties);
    if (!names.length) return undefined;
    const name = pick(r, names);
    delete s.properties[name];
    if (Array.isArray(s.required)) s.required = s.required.filter((n: unknown) => n !== name);
    return "property removed from a closed object";
  },
  narrowEnum(s, r) {
    if (!Array.isArray(s.enum) || s.enum.length < 2) return undefined;
    const i = Math.floor(r() * s.enum.length);
    s.enum = s.enum.filter((_: unknown, j: number) => j !== i);
    return "enum value removed";
  },
  addRequired(s, r) {
    if (s.type !== "object" || !isObj(s.properties)) return undefined;
    const optional = Object.keys(s.properties).filter((n) =>
      !(Array.isArray(s.required) && s.required.includes(n))
    );
    const name = optional.length && r() < 0.6 ? pick(r, optional) : "zz_required";
    if (name === "zz_required") s.properties = { ...s.properties, zz_required: { type: "string" } };
    s.required = [...(Array.isArray(s.required) ? s.required : []), name];
    return "property made required";
  },
  tightenBound(s, r) {
    if (s.type === "string") {
      s.maxLength = typeof s.maxLength === "number" ? Math.max(0, s.maxLength - 1) : 3;
      if (typeof s.minLength === "number" && s.minLength > (s.maxLength as number)) {
        s.minLength = s.maxLength;
      }
      return "maxLength lowered";
    }
    if (s.type === "integer" || s.type === "number") {
      if (r() < 0.5 && typeof s.maximum === "number") s.maximum = s.maximum - 1;
      else s.minimum = typeof s.minimum === "number" ? s.minimum + 1 : 1000;
      return "numeric bound tightened";
    }
    if (s.type === "array") {
      s.maxItems = typeof s.maxItems === "number" ? Math.max(0, s.maxItems - 1) : 0;
      return "maxItems lowered";
    }
    return undefined;
  },
  narrowType(s) {
    if (s.type === "number") {
      s.type = "integer";
      return "number narrowed to integer";
    }
    if (Array.isArray(s.type) && s.type.length > 1) {
      s.type = s.type.slice(1);
      return "a type removed";
    }
    return undefined;
  },
  anyOfToOneOfOverlapping(s) {
    if (s.type !== "string" || "anyOf" in s || "oneOf" in s) return undefined;
    s.oneOf = [{ maxLength: 64 }, { minLength: 0 }];
    return "oneOf over overlapping branches added";
  },
  addPattern(s) {
    if (s.type !== "string" || "pattern" in s || "enum" in s || "const" in s) return undefined;
    s.pattern = "^[0-9]+$";
    return "pattern added";
  },
};

/**
 * Applies 1 to `count` non-breaking edits to a copy of `base` at random positive sites.
 * `prepare` may first give the base an overlapping or disjoint `oneOf` for `oneOf` → `anyOf`.
 */
export function nonBreakingPair(base: Obj, seed: number, count = 2): EditedPair | undefined {
  const r = rng(seed);
  const before = structuredClone(base);
  // Some pairs start from a base with a oneOf at a property, disjoint or overlapping.
  if (r() < 0.25 && isObj(before.properties)) {
    const disjoint = r() < 0.5;
    before.properties = {
      ...before.properties,
      zz_choice: {
        oneOf: disjoint
          ? [{ type: "string", maxLength: 8 }, { type: "integer" }]
          : [{ type: "string", maxLength: 8 }, { type: "string", pattern: "^a" }],
      },
    };
  }
  const after = structuredClone(before);
  const ops: string[] = [];
  const edits = Object.keys(NON_BREAKING);
  const n = 1 + Math.floor(r() * count);
  for (let tries = 0; ops.length < n && tries < 30; tries++) {
    const sites = positiveSites(after);
    // oneOf → anyOf sites are under properties (not in the positive walk below a oneOf).
    const oneOfs = sites.filter((x) => Array.isArray(x.schema.oneOf));
    const name = pick(r, edits);
    const site = name === "oneOfToAnyOf" && oneOfs.length ? pick(r, oneOfs) : pick(r, sites);
    const done = NON_BREAKING[name](site.schema, r, after);
    if (done) ops.push(done);
  }
  return ops.length ? { before, after, ops } : undefined;
}

/** Applies one breaking edit at a site reached through `properties` only. */
export function breakingPair(base: Obj, seed: number): EditedPair | undefined {
  const r = rng(seed);
  const before = structuredClone(base);
  const after = structuredClone(before);
  const edits = Object.keys(BREAKING);
  for (let tries = 0; tries < 30; tries++) {
    const sites = positiveSites(after).filter((x) => x.path !== undefined);
    const site = pick(r, sites);
    const done = BREAKING[pick(r, edits)](site.schema, r, after);
    if (done) return { before, after, ops: [done] };
  }
  return undefined;
}

// --- the independent check ------------------------------------------------------------------

// deno-lint-ignore no-explicit-any
const ajv = new (Ajv2020 as any)({ strict: false, validateFormats: false });

/** Whether ajv (draft 2020-12) accepts `value` under `schema`. */
export function ajvAccepts(schema: Obj, value: unknown): boolean {
  return ajv.validate(schema, value) as boolean;
}

/**
 * Values `schema` accepts through the members it names: json-schema-faker's, validated by ajv.
 * `tweak` values (each faker value with one member set to a literal of either schema) are added.
 */
export function sampleValues(schema: Obj, other: Obj, seed: number, n: number): unknown[] {
  const out: unknown[] = [];
  const seen = new Set<string>();
  const add = (v: unknown) => {
    const key = JSON.stringify(v);
    if (v === undefined || seen.has(key)) return;
    if (!ajvAccepts(schema, v) || !usesNamedMembersOnly(schema, v)) return;
    seen.add(key);
    out.push(v);
  };
  const base: unknown[] = [];
  for (let i = 0; i < n; i++) {
    try {
      const v = generateSync(schema, {
        seed: seed + i,
        optionalsProbability: [1, 0.5, 0][i % 3],
        maxDepth: 4,
        refDepth: 2,
      });
      base.push(v);
      add(v);
    } catch {
      // json-schema-faker gives up on some schemas: skip.
    }
  }
  // Values at the edges the edits move: every literal of both schemas, put at each member.
  const lits = literals(schema).concat(literals(other));
  for (const v of base) {
    for (const tweaked of tweaks(v, lits)) add(tweaked);
  }
  return out;
}

function literals(s: unknown, out: unknown[] = []): unknown[] {
  if (Array.isArray(s)) s.forEach((x) => literals(x, out));
  else if (isObj(s)) {
    for (const [k, v] of Object.entries(s)) {
      if (k === "enum" && Array.isArray(v)) out.push(...v);
      else if (k === "const") out.push(v);
      else if (typeof v === "number" && /^(min|max|exclusive)/.test(k)) {
        out.push(v, v - 1, v + 1, "x".repeat(Math.max(0, Math.min(v, 80))));
      } else literals(v, out);
    }
  }
  return out;
}

/** `v` with one member (at any depth) replaced by each literal, or removed. */
function tweaks(v: unknown, lits: unknown[], depth = 0): unknown[] {
  if (!isObj(v) || depth > 3) return [];
  const out: unknown[] = [];
  for (const k of Object.keys(v)) {
    const { [k]: _gone, ...rest } = v;
    out.push(rest);
    for (const l of lits) out.push({ ...v, [k]: l });
    for (const inner of tweaks(v[k], lits, depth + 1)) out.push({ ...v, [k]: inner });
  }
  return out.slice(0, 200);
}

/**
 * A value `before` accepts (through the members it names) that `after` rejects, per ajv;
 * undefined when none of the sampled values is one.
 */
export function findBreakingValue(
  before: Obj,
  after: Obj,
  seed: number,
  n = 6,
): { value: unknown } | undefined {
  for (const v of sampleValues(before, after, seed, n)) {
    if (!ajvAccepts(after, v)) return { value: v };
  }
  return undefined;
}
