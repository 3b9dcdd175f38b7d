/**
 * Instance places of the old schema: which old subschemas apply to the same part of a value, and
 * which property names they rely on there.
 *
 * The classifier's contract for inputs is that a caller relies on the properties the old schema
 * names — but a property is named at an instance location, not in one subschema: the root, its
 * `allOf` branches, `if`/`then`/`else`, `dependentSchemas` and every `$ref` target that applies to
 * the same object all name properties of that one object. A place is that set of co-located old
 * subschemas. Adding `properties.a` in one of them narrows `a` when another already names it, so
 * the object comparer asks its place whether a name is relied on before it calls an addition
 * minor.
 *
 * Places are conservative: a subschema under `not`, or in an `anyOf` branch a value may not take,
 * still counts as naming its properties (more names relied on means more changes found major,
 * never fewer). Under `contains` every name counts: `contains` tests items that callers built for
 * `items`, so it names nothing on their behalf.
 */
import { compilePattern } from "../schema/safe_pattern.ts";
import { isObject } from "../_object.ts";
import type { Side } from "./_side.ts";

/** How the instance location moves from a subschema to one of its subschemas. */
export type Step =
  | { member: string }
  | "unnamed-member"
  | "item"
  | "contains"
  | "property-name";

/** A set of co-located old subschemas, and what they rely on. */
export interface Place {
  /** A key identifying the place (its members and strictness), for memoization. */
  readonly key: string;
  /** Whether every property name counts as relied on here. */
  readonly strict: boolean;
  /** Whether callers may rely on a property of this name at this place. */
  relies(name: string): boolean;
  /** How many old subschemas at this place have keyword `kw` (`unevaluatedProperties`, ...). */
  count(kw: string): number;
}

type Obj = Record<string, unknown>;

/** The in-place applicators: their subschemas apply to the same instance as the schema. */
const IN_PLACE_SINGLE = ["not", "if", "then", "else"];
const IN_PLACE_ARRAY = ["allOf", "anyOf", "oneOf"];
const IN_PLACE_MAP = ["dependentSchemas", "dependencies"];

/** The places of one old schema document, computed on demand and kept. */
export class Places {
  readonly #side: Side;
  readonly #ids = new WeakMap<object, number>();
  #next = 1;
  readonly #byKey = new Map<string, PlaceImpl>();
  /** The place of the document root. */
  readonly root: Place;

  constructor(side: Side) {
    this.#side = side;
    this.root = this.#place([side.root], false);
  }

  /** The place reached from `from` by `step`. */
  step(from: Place, step: Step): Place {
    const at = from as PlaceImpl;
    const memo = at.steps.get(stepKey(step));
    if (memo) return memo;
    const children: unknown[] = [];
    for (const s of at.members) children.push(...childrenOf(s, step));
    const next = this.#place(children, at.strict || step === "contains");
    at.steps.set(stepKey(step), next);
    return next;
  }

  #id(o: object): number {
    let id = this.#ids.get(o);
    if (id === undefined) {
      id = this.#next++;
      this.#ids.set(o, id);
    }
    return id;
  }

  /** The place made of `seeds` and every subschema that applies in place with them. */
  #place(seeds: unknown[], strict: boolean): PlaceImpl {
    const members: Obj[] = [];
    const seen = new Set<object>();
    const visit = (s: unknown): void => {
      if (!isObject(s) || seen.has(s)) return;
      seen.add(s);
      members.push(s);
      if (typeof s.$ref === "string") visit(this.#side.lookup(s));
      for (const kw of IN_PLACE_SINGLE) visit(s[kw]);
      for (const kw of IN_PLACE_ARRAY) {
        if (Array.isArray(s[kw])) (s[kw] as unknown[]).forEach(visit);
      }
      for (const kw of IN_PLACE_MAP) {
        if (isObject(s[kw])) Object.values(s[kw] as Obj).forEach(visit);
      }
    };
    seeds.forEach(visit);
    const ids = members.map((m) => this.#id(m)).sort((a, b) => a - b);
    const key = `${strict ? "!" : ""}${ids.join(",")}`;
    let place = this.#byKey.get(key);
    if (!place) {
      place = new PlaceImpl(key, strict, members);
      this.#byKey.set(key, place);
    }
    return place;
  }
}

class PlaceImpl implements Place {
  readonly key: string;
  readonly strict: boolean;
  readonly members: Obj[];
  readonly steps = new Map<string, PlaceImpl>();
  #names: Set<string> | undefined;
  #patterns: string[] | undefined;

  constructor(key: string, strict: boolean, members: Obj[]) {
    this.key = key;
    this.strict = strict;
    this.members = members;
  }

  count(kw: string): number {
    return this.members.filter((m) => Object.hasOwn(m, kw)).length;
  }

  relies(name: string): boolean {
    if (this.strict) return true;
    if (!this.#names) this.#collect();
    if (this.#names!.has(name)) return true;
    return this.#patterns!.some((p) => {
      const c = compilePattern(p);
      return !c.ok || c.pattern.test(name);
    });
  }

  #collect(): void {
    const names = new Set<string>();
    const patterns: string[] = [];
    for (const s of this.members) {
      if (isObject(s.properties)) {
        for (const k of Object.keys(s.properties)) names.add(k);
      }
      if (Array.isArray(s.required)) {
        for (const k of s.required) if (typeof k === "string") names.add(k);
      }
      for (
        const kw of ["dependentRequired", "dependentSchemas", "dependencies"]
      ) {
        const d = s[kw];
        if (!isObject(d)) continue;
        for (const [k, v] of Object.entries(d)) {
          names.add(k);
          if (Array.isArray(v)) {
            for (const x of v) if (typeof x === "string") names.add(x);
          }
        }
      }
      if (isObject(s.patternProperties)) {
        patterns.push(...Object.keys(s.patternProperties));
      }
    }
    this.#names = names;
    this.#patterns = patterns;
  }
}

function stepKey(step: Step): string {
  return typeof step === "string" ? step : `.${step.member}`;
}

/** The subschemas of `s` that apply to the instance reached by `step`. */
function childrenOf(s: Obj, step: Step): unknown[] {
  const out: unknown[] = [];
  if (step === "item" || step === "contains") {
    for (
      const kw of [
        "items",
        "prefixItems",
        "additionalItems",
        "contains",
        "unevaluatedItems",
      ]
    ) {
      const v = s[kw];
      if (Array.isArray(v)) out.push(...v);
      else if (v !== undefined) out.push(v);
    }
  } else if (step === "property-name") {
    if (s.propertyNames !== undefined) out.push(s.propertyNames);
  } else if (step === "unnamed-member") {
    // A member the comparing subschema does not name: any member subschema may apply to it.
    if (isObject(s.properties)) out.push(...Object.values(s.properties));
    if (isObject(s.patternProperties)) {
      out.push(...Object.values(s.patternProperties));
    }
    if (s.additionalProperties !== undefined) out.push(s.additionalProperties);
    if (s.unevaluatedProperties !== undefined) {
      out.push(s.unevaluatedProperties);
    }
  } else {
    const name = step.member;
    let governed = false;
    if (isObject(s.properties) && Object.hasOwn(s.properties, name)) {
      out.push(s.properties[name]);
      governed = true;
    }
    if (isObject(s.patternProperties)) {
      for (const [p, sub] of Object.entries(s.patternProperties)) {
        const c = compilePattern(p);
        if (!c.ok || c.pattern.test(name)) {
          out.push(sub);
          governed = true;
        }
      }
    }
    if (!governed && s.additionalProperties !== undefined) {
      out.push(s.additionalProperties);
    }
    if (s.unevaluatedProperties !== undefined) {
      out.push(s.unevaluatedProperties);
    }
  }
  return out;
}
