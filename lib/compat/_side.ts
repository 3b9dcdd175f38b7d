/**
 * One side (old or new) of a classification: the schema document, its `$ref` index, and the
 * resolution of a subschema's `$ref` into one schema with the reference's siblings applied.
 */
import { ANNOTATION_KEYWORDS, KEYWORDS } from "../schema/keywords.ts";
import { DEFAULT_BASE, RefIndex } from "../schema/refs.ts";
import { isObject } from "../_object.ts";
import type { JsonSchema, PathSegment } from "../schema/types.ts";
import type { ValueKind } from "./_value_kind.ts";

const ANNOTATIONS = new Set(ANNOTATION_KEYWORDS);

/** Whether a keyword never changes which values a schema accepts. */
export function isAnnotation(keyword: string): boolean {
  return ANNOTATIONS.has(keyword) || keyword.startsWith("x-");
}

/** Keywords whose meaning depends on their neighbours, by the group they belong to. */
const GROUP: Readonly<Record<string, string>> = Object.fromEntries(
  Object.entries(KEYWORDS).flatMap(([k, d]) => d.group ? [[k, d.group]] : []),
);

/** A subschema with its `$ref` followed, or the reference that could not be followed. */
export type Resolution = { schema: JsonSchema; unresolved?: undefined } | {
  unresolved: string;
};

/** A schema document being compared. */
export class Side {
  readonly root: JsonSchema;
  readonly index: RefIndex;
  /** Locations of every `$ref` target followed, to tell unused definitions apart. */
  readonly referenced: PathSegment[][] = [];
  /** The kinds of value each subschema may accept, kept by `typeKinds`. */
  readonly kinds: WeakMap<object, Set<ValueKind>> = new WeakMap();

  constructor(root: JsonSchema) {
    this.root = root;
    this.index = new RefIndex(root);
  }

  /** The target of `s.$ref`, resolved from where `s` sits in this document. */
  target(s: Record<string, unknown>): JsonSchema | undefined {
    if (typeof s.$ref !== "string") return undefined;
    const from = this.index.locationOf(s) ??
      { base: DEFAULT_BASE, segments: [] };
    const t = this.index.resolve(s.$ref, from);
    if (!t) return undefined;
    this.referenced.push(t.location.segments);
    return t.schema;
  }

  /** The target of `s.$ref` without recording it as followed (for facts about places). */
  lookup(s: Record<string, unknown>): JsonSchema | undefined {
    if (typeof s.$ref !== "string") return undefined;
    const from = this.index.locationOf(s) ??
      { base: DEFAULT_BASE, segments: [] };
    return this.index.resolve(s.$ref, from)?.schema;
  }

  /**
   * Follows `$ref`s until a schema without one. A reference's siblings apply with its target
   * (draft 2020-12): they are merged into the target when no constraint keyword is on both sides,
   * else the target becomes one more `allOf` branch. Annotations at the reference win.
   */
  resolve(s: unknown, seen: Set<object> = new Set()): Resolution {
    return this.#follow(s, seen);
  }

  /**
   * `s` with a single-branch `allOf`, `anyOf` or `oneOf` keyword `kw` merged in (it accepts
   * exactly what its branch accepts), so `{"anyOf": [X]}` compares as `X`; undefined when the
   * branch and the rest share a keyword group, disagree on an annotation, or cannot be followed.
   */
  unwrapSingleBranch(s: JsonSchema, kw: string): JsonSchema | undefined {
    if (
      !isObject(s) || !Array.isArray(s[kw]) || (s[kw] as unknown[]).length !== 1
    ) {
      return undefined;
    }
    const b = this.#follow((s[kw] as unknown[])[0], new Set());
    if (b.unresolved !== undefined) return undefined;
    const rest: Record<string, unknown> = { ...s };
    delete rest[kw];
    const branch = b.schema;
    if (branch === true) return rest;
    if (branch === false) return false;
    if (!isObject(branch) || Object.hasOwn(branch, "$id")) return undefined;
    for (const [k, v] of Object.entries(branch)) {
      // Annotations on both sides that differ would hide a change: keep the branch apart.
      if (isAnnotation(k) && Object.hasOwn(rest, k) && rest[k] !== v) {
        return undefined;
      }
    }
    const there = groups(rest);
    if ([...groups(branch)].some((g) => there.has(g))) return undefined;
    return { ...branch, ...rest };
  }

  #follow(s: unknown, seen: Set<object>): Resolution {
    if (!isObject(s) || typeof s.$ref !== "string") {
      return { schema: s as JsonSchema };
    }
    if (seen.has(s)) return { unresolved: `${s.$ref} (a cycle of references)` };
    seen.add(s);
    const raw = this.target(s);
    if (raw === undefined) return { unresolved: s.$ref };
    const t = this.#follow(raw, seen);
    if (t.unresolved !== undefined) return t;
    const siblings: Record<string, unknown> = {};
    let constraining = false;
    for (const [k, v] of Object.entries(s)) {
      if (k === "$ref") continue;
      siblings[k] = v;
      if (!isAnnotation(k)) constraining = true;
    }
    const target = t.schema;
    if (target === false) return { schema: false };
    if (target === true) return { schema: siblings };
    if (!constraining) return { schema: { ...target, ...siblings } };
    // Keywords that read each other (additionalProperties reads properties, ...) clash as a group.
    const there = groups(target);
    const clash = [...groups(siblings)].some((g) => there.has(g));
    if (!clash) return { schema: { ...target, ...siblings } };
    const allOf = Array.isArray(siblings.allOf) ? [...siblings.allOf, raw] : [raw];
    return { schema: { ...siblings, allOf } };
  }
}

/** The constraint groups of a schema's keywords (keywords that read each other form one group). */
function groups(s: Record<string, unknown>): Set<string> {
  return new Set(
    Object.keys(s).filter((k) => !isAnnotation(k)).map((k) => GROUP[k] ?? k),
  );
}
