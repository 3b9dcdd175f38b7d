/**
 * The recursive comparison of an old and a new subschema. `$ref`s are followed on both sides and
 * the changes they hold are reported where the reference sits. A pair already being compared
 * (a reference cycle) is assumed unchanged: the cycle's own changes are found on its first visit.
 */
import { jsonEqual } from "../schema/json_equal.ts";
import { isObject } from "../_object.ts";
import { forEachSubschema } from "../schema/subschemas.ts";
import {
  ANNOTATION_KEYWORDS,
  type CompareFamily,
  keywordsWhere,
  UNSUPPORTED_KEYWORDS,
} from "../schema/keywords.ts";
import type { JsonSchema, PathSegment } from "../schema/types.ts";
import { isValid } from "../schema/validate.ts";
import { type Change, change, downgrade, keepsValues, show, topBump } from "./_change.ts";
import { type Budget, CycleMemo } from "./_memo.ts";
import { compareApplicators, compareRewrapped } from "./_compare_applicator.ts";
import { compareArray } from "./_compare_array.ts";
import { compareObject } from "./_compare_object.ts";
import { compareUnevaluated } from "./_compare_unevaluated.ts";
import { compareEnum, compareNumeric, compareString, compareType } from "./_compare_scalar.ts";
import type { CompareContext, OldFacts } from "./_context.ts";
import { type Place, Places, type Step } from "./_places.ts";
import { acceptedDomain, typeKinds, type ValueKind } from "./_schema_facts.ts";
import { Side } from "./_side.ts";
import type { SchemaBump } from "./schema_change.ts";

type Obj = Record<string, unknown>;

/** Options for a {@linkcode Comparer}. */
export interface ComparerOptions {
  /** The bump for a changed `description` or `title`. */
  descriptionBump: SchemaBump;
  /**
   * Compare every value, not only values that use the properties the old schema names: adding a
   * property to an open object then narrows it (for outputs, where a consumer may get anything
   * the old contract allowed).
   */
  strict: boolean;
  /** The steps this comparison may take (shared by both directions of one classification). */
  budget: Budget;
}

/** The comparison engine for one old/new schema pair. */
export class Comparer implements CompareContext {
  readonly old: Side;
  readonly new: Side;
  readonly descriptionBump: SchemaBump;
  readonly #strict: boolean;
  readonly #places: Places;
  /** The instance place of the pair being compared. */
  #place: Place;
  readonly #ids = new WeakMap<object, number>();
  #nextId = 1;
  readonly #budget: Budget;
  /** How many changes were handed back so far. */
  #copied = 0;
  readonly #changes: CycleMemo<Change[]>;
  readonly #stable: CycleMemo<boolean>;

  constructor(oldSchema: JsonSchema, newSchema: JsonSchema, options: ComparerOptions) {
    this.old = new Side(oldSchema);
    this.new = new Side(newSchema);
    this.descriptionBump = options.descriptionBump;
    this.#strict = options.strict;
    this.#places = new Places(this.old);
    this.#place = this.#places.root;
    this.#budget = options.budget;
    this.#changes = new CycleMemo<Change[]>(
      [],
      (r, assumed) => bumpOf(r) === bumpOf(assumed),
      echoes,
      options.budget,
    );
    this.#stable = new CycleMemo(true, (r, assumed) => r === assumed, (r) => r, options.budget);
  }

  relies(name: string): boolean {
    return this.#strict || this.#place.relies(name);
  }

  strict(): boolean {
    return this.#strict || this.#place.strict;
  }

  watchers(kw: "unevaluatedProperties" | "unevaluatedItems"): number {
    return this.#place.count(kw);
  }

  #id(x: unknown): string {
    if (typeof x !== "object" || x === null) return JSON.stringify(x) ?? "true";
    let id = this.#ids.get(x);
    if (id === undefined) {
      id = this.#nextId++;
      this.#ids.set(x, id);
    }
    return String(id);
  }

  compare(o: unknown, n: unknown, step?: Step): Change[] {
    const outer = this.#place;
    const place = step === undefined ? outer : this.#places.step(outer, step);
    const key = `${this.#id(o)}:${this.#id(n)}@${place.key}`;
    this.#place = place;
    try {
      let found = this.#changes.run(key, () => this.#comparePair(o, n));
      // A subschema reached along very many paths (`$ref`s into `$ref`s) would list its changes
      // again at each: past COPY_LIMIT changes handed back, only echoes that carry the bump.
      if (this.#copied > COPY_LIMIT && found.length > 3) found = echoes(found);
      // Each change handed back is copied by the caller: that is the work to count.
      this.#copied += found.length;
      this.#budget.spend(found.length);
      return found;
    } finally {
      this.#place = outer;
    }
  }

  #comparePair(o: unknown, n: unknown): Change[] {
    if (jsonEqual(o, n) && this.#sameTargets(o, n)) return [];
    const ro = this.old.resolve(o), rn = this.new.resolve(n);
    if (ro.unresolved !== undefined || rn.unresolved !== undefined) {
      const which = ro.unresolved ?? rn.unresolved;
      return [change(
        [],
        "undecidable",
        "major",
        `cannot follow $ref ${show(which)}: callers may be affected by what it refers to`,
      )];
    }
    let os = ro.schema, ns = rn.schema;
    // A single-branch combinator on one side only compares as its branch, nested ones too
    // (`allOf: [{ allOf: [X] }]` is X): unwrapped until nothing changes, a few levels at most.
    for (let level = 0; level < 8; level++) {
      const before = [os, ns];
      for (const kw of ["allOf", "anyOf", "oneOf"]) {
        if (isObject(os) && isObject(ns) && Object.hasOwn(os, kw) !== Object.hasOwn(ns, kw)) {
          if (Object.hasOwn(os, kw)) os = this.old.unwrapSingleBranch(os, kw) ?? os;
          else ns = this.new.unwrapSingleBranch(ns, kw) ?? ns;
        }
      }
      if (before[0] === os && before[1] === ns) break;
    }
    const rewrapped = isObject(os) && isObject(ns) ? compareRewrapped(this, os, ns) : undefined;
    return cap(rewrapped ?? this.#compareResolved(os, ns));
  }

  /** Whether every `$ref` under two equal subschemas leads to equal targets on both sides. */
  #sameTargets(o: unknown, n: unknown): boolean {
    if (!isObject(o) || !isObject(n)) return true;
    return this.#stable.run(`${this.#id(o)}:${this.#id(n)}`, () => {
      if (typeof o.$ref === "string") {
        const a = this.old.target(o), b = this.new.target(n);
        if (a === undefined || b === undefined) return a === b;
        if (!jsonEqual(a, b) || !this.#sameTargets(a, b)) return false;
      }
      let same = true;
      forEachSubschema(o as JsonSchema, (sub, segs) => {
        if (same) same = this.#sameTargets(sub, at(n, segs));
      });
      return same;
    });
  }

  #compareResolved(o: JsonSchema, n: JsonSchema): Change[] {
    if (o === false) {
      return n === false ? [] : [
        change(
          [],
          "schema-opened",
          "minor",
          "this subschema was false and now accepts values: callers may now send them",
        ),
      ];
    }
    if (n === false) {
      return [change(
        [],
        "schema-closed",
        "major",
        "this subschema is now false: callers that send any value here are now rejected",
      )];
    }
    const O: Obj = o === true ? {} : o, N: Obj = n === true ? {} : n;
    if (!isObject(O) || !isObject(N)) {
      return [change([], "undecidable", "major", "a subschema is neither an object nor a boolean")];
    }
    const kinds = typeKinds(this.old, O), newKinds = typeKinds(this.new, N);
    const facts: OldFacts = {
      kinds,
      integerOnly: kinds.has("integer") && !kinds.has("fraction"),
      domain: acceptedDomain(O),
      newKinds,
      newIntegerOnly: newKinds.has("integer") && !newKinds.has("fraction"),
    };
    const out: Change[] = [...this.#annotations(O, N)];
    for (const compare of Object.values(COMPARERS)) out.push(...compare(this, O, N, facts));
    out.push(...unknownKeywords(O, N));
    const domain = facts.domain;
    return out.map((c) => {
      if (c.bump !== "major" || c.check === undefined || !domain) return c;
      const check = c.check;
      return domain.every((v) => isValid(check, v))
        ? downgrade(c, "no value the old schema's enum or const allows is affected", !!c.narrows)
        : c;
    });
  }

  #annotations(o: Obj, n: Obj): Change[] {
    const out: Change[] = [];
    const keys = new Set([...ANNOTATIONS, ...Object.keys(o), ...Object.keys(n)]);
    for (const k of [...keys].sort()) {
      const isAnno = ANNOTATIONS.includes(k) || k.startsWith("x-");
      if (!isAnno || k === "$defs" || k === "definitions") continue;
      const a = o[k], b = n[k];
      if (jsonEqual(a, b)) continue;
      const what = a === undefined
        ? `${k} added`
        : b === undefined
        ? `${k} removed`
        : `${k} changed`;
      if (k === "default") {
        const consequence = b === undefined
          ? `callers that omit it no longer get ${show(a)}`
          : `callers that omit it now get ${show(b)}`;
        out.push(
          change(
            [k],
            "default-changed",
            "minor",
            `default ${
              a === undefined
                ? `${show(b)} added`
                : b === undefined
                ? `${show(a)} removed`
                : `changed from ${show(a)} to ${show(b)}`
            }: ${consequence}`,
          ),
        );
        continue;
      }
      const prompt = k === "description" || k === "title";
      out.push(change(
        [k],
        "annotation-changed",
        prompt ? this.descriptionBump : "patch",
        prompt
          ? `${what}: no accepted value changes, but a model reads it when choosing and calling the tool`
          : `${what}: no accepted value changes`,
      ));
    }
    return out;
  }
}

/** How one keyword family compares a pair of resolved subschemas. */
type FamilyComparer = (ctx: CompareContext, o: Obj, n: Obj, facts: OldFacts) => Change[];

/**
 * The comparer of each keyword family of `KEYWORDS` (lib/schema/keywords.ts), in the order their
 * changes are listed. A keyword whose family is `none` has none: changing it is undecidable.
 */
export const COMPARERS: Readonly<Record<Exclude<CompareFamily, "none">, FamilyComparer>> = {
  // `$ref`s are followed before the pair is compared (Side.resolve): nothing is left to compare.
  reference: () => [],
  type: (_, o, n, facts) => compareType(o, n, facts),
  enum: (_, o, n, facts) => compareEnum(o, n, facts),
  numeric: (_, o, n, facts) =>
    family(compareNumeric(o, n, facts), facts, ["integer", "fraction"], "numbers"),
  string: (_, o, n, facts) => family(compareString(o, n), facts, ["string"], "strings"),
  array: (ctx, o, n, facts) => family(compareArray(ctx, o, n), facts, ["array"], "arrays"),
  object: (ctx, o, n, facts) => family(compareObject(ctx, o, n), facts, ["object"], "objects"),
  applicator: (ctx, o, n) => compareApplicators(ctx, o, n),
  unevaluated: (ctx, o, n) => compareUnevaluated(ctx, o, n),
};

const ANNOTATIONS: readonly string[] = ANNOTATION_KEYWORDS;
/** Keywords a comparer decides, and annotations: a change to any other is undecidable. */
const KNOWN = new Set([
  ...keywordsWhere((d) => d.compare !== "none"),
  ...ANNOTATION_KEYWORDS,
]);
const UNSUPPORTED = new Set(UNSUPPORTED_KEYWORDS);

/**
 * The most changes kept for one subschema pair. A `$ref` reused along many paths (a DAG of
 * definitions) would otherwise report the same change at exponentially many places.
 */
const MAX_CHANGES_PER_SUBSCHEMA = 200;

const RANK = { major: 2, minor: 1, patch: 0 } as const;

/** Keeps the first changes of the largest bumps, so the overall bump is unchanged. */
function cap(changes: Change[]): Change[] {
  if (changes.length <= MAX_CHANGES_PER_SUBSCHEMA) return changes;
  return changes
    .map((c, i) => ({ c, i }))
    .sort((x, y) => RANK[y.c.bump] - RANK[x.c.bump] || x.i - y.i)
    .slice(0, MAX_CHANGES_PER_SUBSCHEMA)
    .sort((x, y) => x.i - y.i)
    .map((x) => x.c);
}

/** Reads the value at a path of segments inside a JSON value. */
function at(v: unknown, segs: readonly PathSegment[]): unknown {
  let cur = v;
  for (const s of segs) {
    if (cur === null || typeof cur !== "object") return undefined;
    cur = (cur as Record<string | number, unknown>)[s];
  }
  return cur;
}

/**
 * Keeps a keyword family's changes, or lowers them when the old schema accepts no value of that
 * kind: no old value is affected. They are `patch` only when the new schema accepts no value of
 * that kind either (or the change only tightens), else `minor`: the new schema may accept values
 * of that kind the old one did not.
 */
function family(changes: Change[], facts: OldFacts, kinds: ValueKind[], noun: string): Change[] {
  if (kinds.some((k) => facts.kinds.has(k))) return changes;
  const newHasNone = !kinds.some((k) => facts.newKinds.has(k));
  return changes.map((c) =>
    downgrade(
      c,
      `no value the old schema accepts is affected (it accepts no ${noun})`,
      newHasNone || !!c.narrows,
    )
  );
}

function unknownKeywords(o: Obj, n: Obj): Change[] {
  const out: Change[] = [];
  const keys = [...new Set([...Object.keys(o), ...Object.keys(n)])].sort();
  for (const k of keys) {
    if (KNOWN.has(k) || k.startsWith("x-") || jsonEqual(o[k], n[k])) continue;
    const what = !Object.hasOwn(o, k) ? "added" : !Object.hasOwn(n, k) ? "removed" : "changed";
    out.push(change(
      [k],
      "undecidable",
      "major",
      UNSUPPORTED.has(k)
        ? `keyword ${k} ${what}; it is not enforced by this library's validator and the classifier cannot tell which callers it affects`
        : `unknown keyword ${k} ${what}: the classifier cannot tell which callers it affects`,
    ));
  }
  return out;
}

/** The largest bump of a list of changes, `none` for no change (which a `patch` is not). */
function bumpOf(changes: readonly Change[]): string {
  return changes.length ? topBump(changes) : "none";
}

/** Changes handed back in full, per classification, before a long list is cut to its echoes. */
const COPY_LIMIT = 5_000;

/**
 * What a `$ref` cycle's pair is assumed to be where the cycle comes back to it, once its first
 * result refuted "unchanged": the first of its changes of each bump, marked as echoes — enough to
 * carry the bump (a change handed up is copied at every level, so not all of them).
 */
function echoes(changes: readonly Change[]): Change[] {
  const out: Change[] = [];
  for (const bump of ["major", "minor", "patch"] as const) {
    // One that changes values where there is one: what a negative place (`not`) asks of them.
    const c = changes.find((x) => x.bump === bump && !keepsValues(x)) ??
      changes.find((x) => x.bump === bump);
    if (c) out.push({ segs: c.segs, kind: c.kind, bump: c.bump, message: c.message, echo: true });
  }
  return out;
}
