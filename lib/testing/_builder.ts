/**
 * Builds a fast-check arbitrary from a JSON Schema, keyword by keyword. Exact where it can be
 * (types, enums, bounds, lengths, required and optional properties, items, formats, patterns);
 * elsewhere it generates from an approximation and filters against the schema, within a budget.
 */
import fc from "fast-check";
import { canonicalJson } from "../schema/json_equal.ts";
import { DEFAULT_BASE, RefIndex } from "../schema/refs.ts";
import { compilePattern } from "../schema/safe_pattern.ts";
import { isObject } from "../_object.ts";
import { forEachSubschema } from "../schema/subschemas.ts";
import { formatPath } from "../schema/path.ts";
import type { JsonSchema, PathSegment } from "../schema/types.ts";
import { isValid } from "../schema/validate.ts";
import { BoundedFilter } from "./_bounded_filter.ts";
import { mergeSchemas } from "./_merge.ts";
import { numberArbitrary } from "./_numbers.ts";
import type { ScalarContext } from "./_scalar_context.ts";
import { stringArbitrary } from "./_strings.ts";
import { SchemaGenerationError } from "./generation_error.ts";

type Obj = Record<string, unknown>;
type Arb = fc.Arbitrary<unknown>;

/**
 * Names tried before extra members are generated: when none of them is free of the schema's
 * properties and patterns, no extra member is made.
 */
const EXTRA_NAME_PROBES: readonly string[] = ["x", "zz", "k9", "Extra", "_q", "-", "é", "0"];

/** The builder's settings, with defaults applied. */
export interface BuildSettings {
  maxRefDepth: number;
  extraProperties: boolean;
  maxArrayLength: number;
  maxAttempts: number;
}

const OBJECT_HINTS = [
  "properties",
  "required",
  "additionalProperties",
  "patternProperties",
  "minProperties",
  "maxProperties",
  "propertyNames",
  "dependentRequired",
  "dependentSchemas",
  "dependencies",
];
const ARRAY_HINTS = [
  "items",
  "prefixItems",
  "additionalItems",
  "contains",
  "minItems",
  "maxItems",
  "uniqueItems",
];
const STRING_HINTS = ["minLength", "maxLength", "pattern", "format"];
const NUMBER_HINTS = [
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "multipleOf",
];

/** The generator for one schema document. */
export class Builder {
  readonly #root: JsonSchema;
  readonly #index: RefIndex;
  readonly #settings: BuildSettings;
  readonly #checks = new WeakMap<object, ((v: unknown) => boolean) | null>();

  constructor(root: JsonSchema, settings: BuildSettings) {
    this.#root = root;
    this.#index = new RefIndex(root);
    this.#settings = settings;
  }

  #error(path: PathSegment[], reason: string): SchemaGenerationError {
    return new SchemaGenerationError(formatPath(path), reason);
  }

  /** Keeps values that `accept`; gives up with a clear error after the attempt budget. */
  filter(
    arb: Arb,
    accept: (v: unknown) => boolean,
    path: PathSegment[],
    what: string,
  ): Arb {
    const attempts = this.#settings.maxAttempts;
    return new BoundedFilter(
      arb,
      accept,
      attempts,
      () => this.#error(path, `${attempts} candidates in a row failed ${what}`),
    );
  }

  /**
   * The validity test for a subschema on its own, when its `$ref`s (if any) all point into the
   * root's `$defs`/`definitions`; `undefined` otherwise (the root filter still applies).
   */
  check(s: unknown): ((v: unknown) => boolean) | undefined {
    if (!isObject(s)) return s === false ? () => false : () => true;
    if (s === this.#root) return (v) => isValid(this.#root, v);
    const cached = this.#checks.get(s);
    if (cached !== undefined) return cached ?? undefined;
    let refs = false, local = true;
    const seen = new Set<object>();
    const scan = (x: JsonSchema) => {
      if (!isObject(x) || seen.has(x)) return;
      seen.add(x);
      if (typeof x.$ref === "string") {
        refs = true;
        if (!/^#\/(\$defs|definitions)\//.test(x.$ref)) local = false;
      }
      forEachSubschema(x, scan);
    };
    scan(s);
    let test: ((v: unknown) => boolean) | null = null;
    if (local) {
      const root = isObject(this.#root) ? this.#root : {};
      const wrapper: Obj = refs
        ? {
          ...s,
          ...(Object.hasOwn(root, "$defs") ? { $defs: root.$defs } : {}),
          ...(Object.hasOwn(root, "definitions") ? { definitions: root.definitions } : {}),
        }
        : s;
      test = (v) => isValid(wrapper as JsonSchema, v);
    }
    this.#checks.set(s, test);
    return test ?? undefined;
  }

  #scalarContext(path: PathSegment[]): ScalarContext {
    return {
      filter: (arb, accept, what) => this.filter(arb, accept, path, what),
      fail: (reason) => this.#error(path, reason),
    };
  }

  #filtered(arb: Arb, s: unknown, path: PathSegment[], what: string): Arb {
    const test = this.check(s);
    return test ? this.filter(arb, test, path, what) : arb;
  }

  /** An arbitrary for the values of subschema `s`, found at `path`, `depth` `$ref`s deep. */
  build(s: unknown, path: PathSegment[], depth: number): Arb {
    if (s === true || s === undefined) return fc.jsonValue({ maxDepth: 2 });
    if (s === false) {
      throw this.#error(path, "the schema is false and accepts no value");
    }
    if (!isObject(s)) throw this.#error(path, "not a schema");
    if (typeof s.$ref === "string" || Array.isArray(s.allOf)) {
      return this.#filtered(
        this.buildAll([s], path, depth),
        s,
        path,
        "allOf or $ref",
      );
    }
    return this.#plain(s, path, depth);
  }

  /** An arbitrary for values satisfying all of `parts`, merged after following their `$ref`s. */
  buildAll(parts: unknown[], path: PathSegment[], depth: number): Arb {
    const flat: Obj[] = [];
    let deepest = depth;
    const flatten = (p: unknown, d: number): void => {
      if (p === true || p === undefined) return;
      if (p === false) {
        throw this.#error(
          path,
          "an allOf branch is false and accepts no value",
        );
      }
      if (!isObject(p)) throw this.#error(path, "not a schema");
      const { $ref, allOf, ...rest } = p;
      if (typeof $ref === "string") {
        if (d >= this.#settings.maxRefDepth) {
          throw this.#error(
            path,
            `$ref ${$ref} recurses deeper than maxRefDepth ${this.#settings.maxRefDepth}`,
          );
        }
        const from = this.#index.locationOf(p) ??
          { base: DEFAULT_BASE, segments: [] };
        const target = this.#index.resolve($ref, from);
        if (!target) throw this.#error(path, `cannot resolve $ref ${$ref}`);
        deepest = Math.max(deepest, d + 1);
        flatten(target.schema, d + 1);
      } else if ($ref !== undefined) {
        rest.$ref = $ref;
      }
      if (Array.isArray(allOf)) { for (const b of allOf) flatten(b, d); }
      else if (allOf !== undefined) rest.allOf = allOf;
      flat.push(rest);
    };
    for (const p of parts) flatten(p, depth);
    const merged = mergeSchemas(flat);
    if (merged.contradiction !== undefined) {
      throw this.#error(path, merged.contradiction);
    }
    return this.#plain(merged.schema, path, deepest);
  }

  /** A schema without `$ref`/`allOf` at its top. */
  #plain(s: Obj, path: PathSegment[], depth: number): Arb {
    for (const kw of ["anyOf", "oneOf"]) {
      const branches = s[kw];
      if (!Array.isArray(branches)) continue;
      const { [kw]: _, ...base } = s;
      const arbs: Arb[] = [];
      const reasons: string[] = [];
      branches.forEach((b, i) => {
        try {
          arbs.push(this.buildAll([base, b], [...path, kw, i], depth));
        } catch (e) {
          if (!(e instanceof SchemaGenerationError)) throw e;
          reasons.push(e.message);
        }
      });
      if (!arbs.length) {
        throw this.#error(
          path,
          `no branch of ${kw} can be generated (${reasons.join("; ")})`,
        );
      }
      return this.#filtered(fc.oneof(...arbs), s, path, kw);
    }
    if (Object.hasOwn(s, "if")) {
      const { if: cond, then: yes, else: no, ...base } = s;
      const arbs: Arb[] = [];
      for (const parts of [[base, cond, yes], [base, no]]) {
        try {
          arbs.push(this.buildAll(parts, path, depth));
        } catch (e) {
          if (!(e instanceof SchemaGenerationError)) throw e;
        }
      }
      if (!arbs.length) {
        throw this.#error(
          path,
          "neither the then nor the else branch can be generated",
        );
      }
      return this.#filtered(fc.oneof(...arbs), s, path, "if/then/else");
    }
    if (Object.hasOwn(s, "not")) {
      const { not: _, ...base } = s;
      return this.#filtered(this.#plain(base, path, depth), s, path, "not");
    }
    const domain = Object.hasOwn(s, "const")
      ? [s.const]
      : Array.isArray(s.enum)
      ? s.enum
      : undefined;
    if (domain) {
      const test = this.check(s);
      const ok = test ? domain.filter(test) : domain;
      if (!ok.length) {
        throw this.#error(
          path,
          "no value of its enum or const passes its other keywords",
        );
      }
      return fc.constantFrom(...ok);
    }
    return this.#byType(s, path, depth);
  }

  #byType(s: Obj, path: PathSegment[], depth: number): Arb {
    let types: string[];
    const hints = new Set<string>();
    if (typeof s.type === "string") types = [s.type];
    else if (Array.isArray(s.type)) {
      types = s.type.filter((t): t is string => typeof t === "string");
    } else {
      types = [
        "null",
        "boolean",
        "integer",
        "number",
        "string",
        "array",
        "object",
      ];
      const has = (kws: string[]) => kws.some((k) => Object.hasOwn(s, k));
      if (has(OBJECT_HINTS)) hints.add("object");
      if (has(ARRAY_HINTS)) hints.add("array");
      if (has(STRING_HINTS)) hints.add("string");
      if (has(NUMBER_HINTS)) hints.add("number");
    }
    if (types.includes("number")) types = types.filter((t) => t !== "integer");
    const arbs: fc.WeightedArbitrary<unknown>[] = [];
    const reasons: string[] = [];
    for (const t of new Set(types)) {
      try {
        arbs.push({
          arbitrary: this.#ofType(t, s, path, depth),
          weight: hints.size && !hints.has(t) ? 1 : 10,
        });
      } catch (e) {
        if (!(e instanceof SchemaGenerationError)) throw e;
        reasons.push(e.message);
      }
    }
    if (!arbs.length) {
      throw this.#error(
        path,
        reasons.length ? reasons.join("; ") : "type allows no value",
      );
    }
    return fc.oneof(...arbs);
  }

  #ofType(t: string, s: Obj, path: PathSegment[], depth: number): Arb {
    switch (t) {
      case "null":
        return fc.constant(null);
      case "boolean":
        return fc.boolean();
      case "integer":
        return numberArbitrary(s, true, this.#scalarContext(path));
      case "number":
        return numberArbitrary(s, false, this.#scalarContext(path));
      case "string":
        return stringArbitrary(s, this.#scalarContext(path));
      case "array":
        return this.#arrays(s, path, depth);
      case "object":
        return this.#objects(s, path, depth);
      default:
        throw this.#error(path, `unknown type ${JSON.stringify(t)}`);
    }
  }

  #arrays(s: Obj, path: PathSegment[], depth: number): Arb {
    const prefix: unknown[] = Array.isArray(s.prefixItems)
      ? s.prefixItems
      : Array.isArray(s.items)
      ? s.items
      : [];
    const prefixKw = Array.isArray(s.prefixItems) ? "prefixItems" : "items";
    let rest: unknown = true, restKw = "items";
    if (Object.hasOwn(s, "items") && !Array.isArray(s.items)) rest = s.items;
    else if (Array.isArray(s.items)) {
      rest = Object.hasOwn(s, "additionalItems") ? s.additionalItems : true;
      restKw = "additionalItems";
    }
    const minItems = typeof s.minItems === "number" ? s.minItems : 0;
    const maxItems = typeof s.maxItems === "number" ? s.maxItems : Infinity;
    const prefixArbs: Arb[] = [];
    for (let i = 0; i < prefix.length; i++) {
      try {
        prefixArbs.push(this.build(prefix[i], [...path, prefixKw, i], depth));
      } catch (e) {
        if (!(e instanceof SchemaGenerationError) || i < minItems) throw e;
        break;
      }
    }
    const p = prefixArbs.length;
    let restArb: Arb | undefined;
    if (p === prefix.length) {
      try {
        restArb = this.build(rest, [...path, restKw], depth);
      } catch (e) {
        if (!(e instanceof SchemaGenerationError) || minItems > p) throw e;
      }
    }
    const cap = Math.min(
      maxItems,
      restArb ? Math.max(minItems, p) + this.#settings.maxArrayLength : p,
    );
    if (minItems > cap) {
      throw this.#error(path, `cannot generate ${minItems} items`);
    }
    const restMin = Math.max(0, minItems - p), restMax = Math.max(0, cap - p);
    let restItems: fc.Arbitrary<unknown[]> = fc.constant([]);
    if (restArb && restMax > 0) {
      restItems = s.uniqueItems === true && p === 0
        ? fc.uniqueArray(restArb, {
          minLength: restMin,
          maxLength: restMax,
          selector: canonicalJson,
        })
        : fc.array(restArb, { minLength: restMin, maxLength: restMax });
    }
    let arb: fc.Arbitrary<unknown[]> = fc
      .tuple(
        fc.tuple(...prefixArbs),
        restItems,
        fc.integer({ min: Math.min(minItems, p), max: p }),
      )
      .map((
        [head, tail, cut],
      ) => (tail.length ? [...head, ...tail] : head.slice(0, cut)));
    if (Object.hasOwn(s, "contains")) {
      const minC = typeof s.minContains === "number" ? s.minContains : 1;
      const maxC = typeof s.maxContains === "number" ? s.maxContains : Infinity;
      if (minC > 0 && minC <= maxC) {
        try {
          const matching = this.buildAll([rest, s.contains], [
            ...path,
            "contains",
          ], depth);
          const extra = fc.array(matching, {
            minLength: minC,
            maxLength: Math.min(maxC, minC + 2),
          });
          arb = fc.tuple(arb, extra).map((
            [a, c],
          ) => (a.length >= prefix.length ? [...a, ...c] : a));
        } catch (e) {
          // No item can match contains after the prefix: the filter below decides.
          if (!(e instanceof SchemaGenerationError)) throw e;
        }
      }
    }
    const needsCheck = s.uniqueItems === true || Object.hasOwn(s, "contains");
    return needsCheck ? this.#filtered(arb, s, path, "uniqueItems or contains") : arb;
  }

  #objects(s: Obj, path: PathSegment[], depth: number): Arb {
    const props = isObject(s.properties) ? s.properties : {};
    const pats = isObject(s.patternProperties) ? s.patternProperties : {};
    const additional = Object.hasOwn(s, "additionalProperties") ? s.additionalProperties : true;
    const required = Array.isArray(s.required)
      ? [
        ...new Set(
          s.required.filter((k): k is string => typeof k === "string"),
        ),
      ]
      : [];
    const depRequired = new Map<string, string[]>();
    for (const kw of ["dependentRequired", "dependencies"]) {
      const d = s[kw];
      if (!isObject(d)) continue;
      for (const [k, v] of Object.entries(d)) {
        if (Array.isArray(v)) {
          depRequired.set(k, [
            ...(depRequired.get(k) ?? []),
            ...v.filter((x) => typeof x === "string"),
          ]);
        }
      }
    }
    const names = [
      ...new Set([
        ...Object.keys(props),
        ...required,
        ...[...depRequired.values()].flat(),
      ]),
    ];
    const governing = (name: string): unknown[] => {
      const out: unknown[] = [];
      if (Object.hasOwn(props, name)) out.push(props[name]);
      let matched = false;
      for (const [p, sub] of Object.entries(pats)) {
        const c = compilePattern(p);
        if (c.ok && c.pattern.test(name)) {
          out.push(sub);
          matched = true;
        }
      }
      if (!Object.hasOwn(props, name) && !matched) out.push(additional);
      return out;
    };
    const usable: string[] = [];
    const arbs: Arb[] = [];
    for (const name of names) {
      const at = [...path, "properties", name];
      try {
        const parts = governing(name);
        arbs.push(
          parts.length === 1 ? this.build(parts[0], at, depth) : this.buildAll(parts, at, depth),
        );
        usable.push(name);
      } catch (e) {
        if (!(e instanceof SchemaGenerationError) || required.includes(name)) {
          throw e;
        }
      }
    }
    const optional = usable.filter((k) => !required.includes(k));
    const minP = typeof s.minProperties === "number" ? s.minProperties : 0;
    const maxP = typeof s.maxProperties === "number" ? s.maxProperties : Infinity;
    if (required.length > maxP) {
      throw this.#error(path, "it requires more properties than maxProperties");
    }
    let extras: fc.Arbitrary<[string, unknown][]> = fc.constant([]);
    if (this.#settings.extraProperties && additional !== false) {
      try {
        const value = this.build(
          additional,
          [...path, "additionalProperties"],
          depth,
        );
        const unnamed = (k: string): boolean =>
          !names.includes(k) && k !== "__proto__" &&
          Object.keys(pats).every((p) => {
            const c = compilePattern(p);
            return c.ok && !c.pattern.test(k);
          });
        // A pattern may match every name (`a*` matches the empty string anywhere): then there is
        // no extra member to make, and a filter would search for one forever.
        if (EXTRA_NAME_PROBES.some(unnamed)) {
          const key = this.filter(
            fc.string({ minLength: 1, maxLength: 8 }),
            (k) => unnamed(k as string),
            path,
            "to be a name no property or pattern of the schema covers",
          ) as fc.Arbitrary<string>;
          extras = fc.uniqueArray(fc.tuple(key, value), {
            maxLength: 2,
            selector: ([k]) => k,
          });
        }
      } catch (e) {
        if (!(e instanceof SchemaGenerationError)) throw e;
      }
    } else if (usable.length < minP) {
      throw this.#error(
        path,
        `minProperties ${minP} needs properties the schema does not name`,
      );
    }
    const arb = fc
      .tuple(
        fc.tuple(...arbs),
        fc.array(fc.boolean(), {
          minLength: optional.length,
          maxLength: optional.length,
        }),
        extras,
      )
      .map(([values, mask, extra]) => {
        const present = new Set(required);
        optional.forEach((k, i) => mask[i] && present.add(k));
        // Honour dependentRequired: a present property brings the ones it depends on.
        for (let grew = true; grew;) {
          grew = false;
          for (const k of present) {
            for (const d of depRequired.get(k) ?? []) {
              if (!present.has(d) && usable.includes(d)) {
                present.add(d);
                grew = true;
              }
            }
          }
        }
        for (const k of optional) {
          if (present.size + extra.length < minP) present.add(k);
        }
        const entries: [string, unknown][] = [];
        usable.forEach((k, i) => present.has(k) && entries.push([k, values[i]]));
        return Object.fromEntries([...entries, ...extra]);
      });
    const needsCheck = [
      "propertyNames",
      "dependentSchemas",
      "dependencies",
      "dependentRequired",
      "minProperties",
      "maxProperties",
    ]
      .some((k) => Object.hasOwn(s, k));
    return needsCheck ? this.#filtered(arb, s, path, "the object keywords") : arb;
  }
}
