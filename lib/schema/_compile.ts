/**
 * Compiles a schema once into a tree of closures; validating a value then walks only the value.
 * Issues carry raw path segments; `validate.ts` formats, filters and sorts them.
 */
import { jsonEqual } from "./_equal.ts";
import { multipleOfTest } from "./_decimal.ts";
import { codePoints, findDuplicate } from "./_values.ts";
import { compilePattern, type SafePattern } from "./_regex.ts";
import { type Location, RefIndex } from "./_refs.ts";
import { isObject } from "../_object.ts";
import { FORMAT_CHECKS } from "./formats.ts";
import { formatPath, formatSegment } from "./path.ts";
import type { JsonSchema, PathSegment } from "./types.ts";

/** An issue before its path is formatted. */
export interface RawIssue {
  segs: PathSegment[];
  keyword: string;
  message: string;
  schemaPath: string;
}

/** Per-run state: where the value walk is, and where issues go (`null`: stop at the first). */
export interface Ctx {
  issues: RawIssue[] | null;
  path: PathSegment[];
  depth: number;
  maxDepth: number;
  formats: boolean;
}

/** A compiled (sub)schema: true when the value is valid; issues go to `ctx.issues`. */
export type Check = (v: unknown, ctx: Ctx) => boolean;

function report(
  ctx: Ctx,
  keyword: string,
  message: string,
  schemaPath: string,
  seg?: PathSegment,
): false {
  if (ctx.issues) {
    const segs = seg === undefined ? ctx.path.slice() : [...ctx.path, seg];
    ctx.issues.push({ segs, keyword, message, schemaPath });
  }
  return false;
}

function probe(ctx: Ctx): Ctx {
  return ctx.issues === null ? ctx : { ...ctx, issues: null };
}

/** The JSON type name of a value, for messages. */
export function typeName(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  if (typeof v === "number") {
    if (!Number.isFinite(v)) return "non-finite number";
    return Number.isInteger(v) ? "integer" : "number";
  }
  return typeof v;
}

const TYPE_TESTS: Record<string, (v: unknown) => boolean> = {
  null: (v) => v === null,
  boolean: (v) => typeof v === "boolean",
  object: (v) => typeof v === "object" && v !== null && !Array.isArray(v),
  array: (v) => Array.isArray(v),
  number: (v) => typeof v === "number" && Number.isFinite(v),
  integer: (v) => Number.isInteger(v),
  string: (v) => typeof v === "string",
};

function show(v: unknown): string {
  const s = JSON.stringify(v) ?? String(v);
  return s.length > 60 ? s.slice(0, 57) + "..." : s;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

const ALWAYS: Check = () => true;

/** Compiles every subschema of one document, following its `$ref`s. */
export class Compiler {
  readonly #index: RefIndex;
  readonly #memo = new Map<object, Check>();

  constructor(root: JsonSchema) {
    this.#index = new RefIndex(root);
  }

  /** Compiles the document's root. */
  root(root: JsonSchema): Check {
    return this.compile(root, this.#index.locationOf(root) ?? { base: "", segments: [] }, "false");
  }

  /** Compiles one subschema at `loc`; `falseKeyword` names the keyword a `false` schema reports as. */
  compile(schema: JsonSchema | unknown, loc: Location, falseKeyword: string): Check {
    const spath = formatPath(loc.segments);
    if (schema === true) return ALWAYS;
    if (schema === false) {
      const message = falseKeyword === "false" ? "no value is allowed here" : "not allowed";
      return (_v, ctx) => report(ctx, falseKeyword, message, spath);
    }
    if (!isObject(schema)) {
      const message =
        `the schema at ${spath} is not an object or boolean; nothing validates against it`;
      return (_v, ctx) => report(ctx, "schema", message, spath);
    }
    const known = this.#memo.get(schema);
    if (known) return known;
    // A placeholder for recursive references met while this schema is being built.
    const slot: { check?: Check } = {};
    this.#memo.set(schema, (v, ctx) => slot.check!(v, ctx));
    slot.check = this.#build(schema, loc, spath);
    this.#memo.set(schema, slot.check);
    return slot.check;
  }

  #sub(schema: unknown, loc: Location, segs: PathSegment[], falseKeyword = "false"): Check {
    const child = typeof schema === "object" && schema !== null
      ? this.#index.locationOf(schema as JsonSchema)
      : undefined;
    return this.compile(
      schema,
      child ?? { base: loc.base, segments: [...loc.segments, ...segs] },
      falseKeyword,
    );
  }

  #build(s: Record<string, unknown>, loc: Location, spath: string): Check {
    const kw = (k: string): string => spath + formatSegment(k);
    const has = (k: string): boolean => Object.hasOwn(s, k);
    const generic: Check[] = [];
    const numeric: Check[] = [];
    const strings: Check[] = [];
    const arrays: Check[] = [];
    const objects: Check[] = [];

    // type
    let typeTest: ((v: unknown) => boolean) | undefined;
    let typeMessage = "";
    if (has("type")) {
      const names = (Array.isArray(s.type) ? s.type : [s.type]).filter((t): t is string =>
        typeof t === "string" && Object.hasOwn(TYPE_TESTS, t)
      );
      const tests = names.map((t) => TYPE_TESTS[t]);
      typeTest = tests.length === 1 ? tests[0] : (v) => {
        for (let i = 0; i < tests.length; i++) if (tests[i](v)) return true;
        return false;
      };
      typeMessage = `expected ${names.join(" or ")}`;
    }

    // enum / const
    if (has("enum") && Array.isArray(s.enum)) {
      const values = s.enum as unknown[];
      const primitives = new Set(values.filter((x) => x === null || typeof x !== "object"));
      const composites = values.filter((x) => x !== null && typeof x === "object");
      const message = `must be one of ${values.slice(0, 10).map(show).join(", ")}${
        values.length > 10 ? ", ..." : ""
      }`;
      const where = kw("enum");
      generic.push((v, ctx) => {
        if (v === null || typeof v !== "object") {
          if (primitives.has(v)) return true;
        } else if (composites.some((c) => jsonEqual(c, v))) return true;
        return report(ctx, "enum", message, where);
      });
    }
    if (has("const")) {
      const c = s.const;
      const message = `must be equal to ${show(c)}`;
      const where = kw("const");
      generic.push((v, ctx) => jsonEqual(c, v) || report(ctx, "const", message, where));
    }

    // $ref
    if (typeof s.$ref === "string") {
      const ref = s.$ref;
      const where = kw("$ref");
      const target = this.#index.resolve(ref, loc);
      if (!target) {
        const message = `cannot resolve $ref ${
          show(ref)
        }: only references inside this schema are followed`;
        generic.push((_v, ctx) => report(ctx, "$ref", message, where));
      } else {
        const check = this.compile(target.schema, target.location, "false");
        generic.push(this.#deeper(check, where));
      }
    }

    // applicators
    if (Array.isArray(s.allOf)) {
      const checks = s.allOf.map((x, i) => this.#sub(x, loc, ["allOf", i]));
      generic.push((v, ctx) => {
        let ok = true;
        for (const c of checks) {
          if (!c(v, ctx)) {
            ok = false;
            if (!ctx.issues) return false;
          }
        }
        return ok;
      });
    }
    if (Array.isArray(s.anyOf)) {
      const branches = s.anyOf;
      const checks = branches.map((x, i) => this.#sub(x, loc, ["anyOf", i]));
      const where = kw("anyOf");
      // When every branch fails on `type` alone, say which types would do.
      const branchTypes = branches.map((b) =>
        isObject(b) && Object.keys(b).length === 1 && typeof b.type === "string"
          ? b.type
          : undefined
      );
      const allTyped = branchTypes.every((t) => t !== undefined);
      generic.push((v, ctx) => {
        const p = probe(ctx);
        for (const c of checks) if (c(v, p)) return true;
        const message = allTyped
          ? `expected ${branchTypes.join(" or ")}, got ${typeName(v)}`
          : `must match at least one of the ${branches.length} schemas in anyOf`;
        return report(ctx, "anyOf", message, where);
      });
    }
    if (Array.isArray(s.oneOf)) {
      const checks = s.oneOf.map((x, i) => this.#sub(x, loc, ["oneOf", i]));
      const where = kw("oneOf");
      generic.push((v, ctx) => {
        const p = probe(ctx);
        const matched: number[] = [];
        for (let i = 0; i < checks.length; i++) {
          if (checks[i](v, p)) matched.push(i);
          if (matched.length > 1 && !ctx.issues) return false;
        }
        if (matched.length === 1) return true;
        const detail = matched.length === 0
          ? "matched none"
          : `matched schemas ${matched.join(" and ")}`;
        return report(
          ctx,
          "oneOf",
          `must match exactly one of the ${checks.length} schemas in oneOf; ${detail}`,
          where,
        );
      });
    }
    if (has("not")) {
      const check = this.#sub(s.not, loc, ["not"]);
      const where = kw("not");
      generic.push((v, ctx) =>
        !check(v, probe(ctx)) || report(ctx, "not", "must not match the schema in not", where)
      );
    }
    if (has("if") && (has("then") || has("else"))) {
      const cond = this.#sub(s.if, loc, ["if"]);
      const then = has("then") ? this.#sub(s.then, loc, ["then"], "then") : ALWAYS;
      const otherwise = has("else") ? this.#sub(s.else, loc, ["else"], "else") : ALWAYS;
      generic.push((v, ctx) => cond(v, probe(ctx)) ? then(v, ctx) : otherwise(v, ctx));
    }

    // numbers
    const bound = (k: string, fails: (v: number, b: number) => boolean, text: string): void => {
      if (typeof s[k] !== "number") return;
      const b = s[k] as number;
      const message = `must be ${text} ${b}`;
      const where = kw(k);
      numeric.push((v, ctx) => !fails(v as number, b) || report(ctx, k, message, where));
    };
    bound("minimum", (v, b) => v < b, ">=");
    bound("maximum", (v, b) => v > b, "<=");
    bound("exclusiveMinimum", (v, b) => v <= b, ">");
    bound("exclusiveMaximum", (v, b) => v >= b, "<");
    if (typeof s.multipleOf === "number" && s.multipleOf > 0) {
      const m = s.multipleOf;
      const message = `must be a multiple of ${m}`;
      const where = kw("multipleOf");
      const test = multipleOfTest(m);
      numeric.push((v, ctx) =>
        !Number.isFinite(v as number) || test(v as number) ||
        report(ctx, "multipleOf", message, where)
      );
    }

    // strings
    if (typeof s.minLength === "number") {
      const n = s.minLength;
      const message = `must be at least ${plural(n, "character")} long`;
      const where = kw("minLength");
      strings.push((v, ctx) => {
        const t = v as string;
        return t.length >= 2 * n || codePoints(t) >= n || report(ctx, "minLength", message, where);
      });
    }
    if (typeof s.maxLength === "number") {
      const n = s.maxLength;
      const message = `must be at most ${plural(n, "character")} long`;
      const where = kw("maxLength");
      strings.push((v, ctx) => {
        const t = v as string;
        return t.length <= n || codePoints(t) <= n || report(ctx, "maxLength", message, where);
      });
    }
    if (typeof s.pattern === "string") {
      const src = s.pattern;
      const where = kw("pattern");
      const compiled = compilePattern(src);
      if (compiled.ok) {
        const re: SafePattern = compiled.pattern;
        const message = `must match pattern ${src}`;
        strings.push((v, ctx) => re.test(v as string) || report(ctx, "pattern", message, where));
      } else {
        const message = `pattern ${src} cannot be run safely (${compiled.reason}); value rejected`;
        strings.push((_v, ctx) => report(ctx, "pattern", message, where));
      }
    }
    if (typeof s.format === "string" && Object.hasOwn(FORMAT_CHECKS, s.format)) {
      const name = s.format;
      const test = FORMAT_CHECKS[name];
      const message = `must be a valid ${name}`;
      const where = kw("format");
      strings.push((v, ctx) =>
        !ctx.formats || test(v as string) || report(ctx, "format", message, where)
      );
    }

    // arrays
    const prefix = Array.isArray(s.prefixItems)
      ? s.prefixItems.map((x, i) => this.#sub(x, loc, ["prefixItems", i], "prefixItems"))
      : Array.isArray(s.items)
      ? s.items.map((x, i) => this.#sub(x, loc, ["items", i], "items"))
      : [];
    let rest: Check | undefined;
    if (has("items") && !Array.isArray(s.items)) rest = this.#sub(s.items, loc, ["items"], "items");
    else if (Array.isArray(s.items) && has("additionalItems")) {
      rest = this.#sub(s.additionalItems, loc, ["additionalItems"], "additionalItems");
    }
    if (prefix.length || rest) {
      const r = rest;
      arrays.push((v, ctx) => {
        const a = v as unknown[];
        let ok = true;
        for (let i = 0; i < a.length; i++) {
          const c = i < prefix.length ? prefix[i] : r;
          if (!c) break;
          if (!this.#descend(c, a[i], i, ctx, spath)) {
            ok = false;
            if (!ctx.issues) return false;
          }
        }
        return ok;
      });
    }
    if (has("contains")) {
      const check = this.#sub(s.contains, loc, ["contains"]);
      const min = typeof s.minContains === "number" ? s.minContains : 1;
      const max = typeof s.maxContains === "number" ? s.maxContains : Infinity;
      const where = kw("contains");
      arrays.push((v, ctx) => {
        const a = v as unknown[];
        const p = probe(ctx);
        let n = 0;
        for (let i = 0; i < a.length; i++) {
          p.path.push(i);
          if (check(a[i], p)) n++;
          p.path.pop();
        }
        if (n < min) {
          return report(
            ctx,
            "minContains" in s ? "minContains" : "contains",
            `must contain at least ${plural(min, "item")} matching contains; found ${n}`,
            "minContains" in s ? kw("minContains") : where,
          );
        }
        if (n > max) {
          return report(
            ctx,
            "maxContains",
            `must contain at most ${plural(max, "item")} matching contains; found ${n}`,
            kw("maxContains"),
          );
        }
        return true;
      });
    }
    if (typeof s.minItems === "number") {
      const n = s.minItems;
      const message = `must have at least ${plural(n, "item")}`;
      const where = kw("minItems");
      arrays.push((v, ctx) =>
        (v as unknown[]).length >= n || report(ctx, "minItems", message, where)
      );
    }
    if (typeof s.maxItems === "number") {
      const n = s.maxItems;
      const message = `must have at most ${plural(n, "item")}`;
      const where = kw("maxItems");
      arrays.push((v, ctx) =>
        (v as unknown[]).length <= n || report(ctx, "maxItems", message, where)
      );
    }
    if (s.uniqueItems === true) {
      const where = kw("uniqueItems");
      arrays.push((v, ctx) => {
        const dup = findDuplicate(v as unknown[]);
        return !dup ||
          report(
            ctx,
            "uniqueItems",
            `items [${dup[0]}] and [${dup[1]}] are equal; items must be unique`,
            where,
          );
      });
    }

    // objects: one loop over the keys the value has (its cost follows the value, not the schema)
    const props = isObject(s.properties) ? s.properties : undefined;
    const propChecks = new Map<string, Check>(
      props ? Object.keys(props).map((k) => [k, this.#sub(props[k], loc, ["properties", k])]) : [],
    );
    const req = Array.isArray(s.required)
      ? [...new Set(s.required.filter((k): k is string => typeof k === "string"))]
      : [];
    const reqSet = new Set(req);
    const whereRequired = kw("required");
    const patterns = isObject(s.patternProperties)
      ? Object.entries(s.patternProperties).map(([src, sub]) => ({
        src,
        re: compilePattern(src),
        check: this.#sub(sub, loc, ["patternProperties", src]),
      }))
      : [];
    const additional = has("additionalProperties")
      ? this.#sub(s.additionalProperties, loc, ["additionalProperties"], "additionalProperties")
      : undefined;
    const names = has("propertyNames")
      ? this.#sub(s.propertyNames, loc, ["propertyNames"])
      : undefined;
    if (propChecks.size || req.length || patterns.length || additional || names) {
      const whereNames = kw("propertyNames");
      const wherePatterns = kw("patternProperties");
      const additionalFalse = s.additionalProperties === false;
      const whereAdditional = kw("additionalProperties");
      objects.push((v, ctx) => {
        const o = v as Record<string, unknown>;
        let ok = true;
        let seen = 0;
        for (const k of Object.keys(o)) {
          // A JSON value is never `undefined`: a key holding it counts as absent.
          const x = o[k];
          if (x !== undefined && reqSet.has(k)) seen++;
          if (names && !names(k, probe(ctx))) {
            ok = report(
              ctx,
              "propertyNames",
              `property name ${show(k)} does not match propertyNames`,
              whereNames,
              k,
            );
            if (!ctx.issues) return false;
          }
          const check = propChecks.get(k);
          let matched = check !== undefined;
          if (check && x !== undefined && !this.#descend(check, x, k, ctx, spath)) {
            ok = false;
            if (!ctx.issues) return false;
          }
          for (const p of patterns) {
            if (!p.re.ok) {
              ok = report(
                ctx,
                "patternProperties",
                `pattern ${p.src} cannot be run safely (${p.re.reason}); value rejected`,
                wherePatterns,
                k,
              );
              matched = true;
              continue;
            }
            if (p.re.pattern.test(k)) {
              matched = true;
              if (!this.#descend(p.check, x, k, ctx, spath)) ok = false;
            }
          }
          if (!matched && additional) {
            if (additionalFalse) {
              ok = report(
                ctx,
                "additionalProperties",
                `property ${show(k)} is not allowed`,
                whereAdditional,
                k,
              );
            } else if (!this.#descend(additional, x, k, ctx, spath)) ok = false;
          }
          if (!ok && !ctx.issues) return false;
        }
        if (seen !== req.length) {
          // Some required name is missing: say which, in the order `required` lists them.
          for (const k of req) {
            if (!Object.hasOwn(o, k) || o[k] === undefined) {
              ok = report(ctx, "required", "required property is missing", whereRequired, k);
              if (!ctx.issues) return false;
            }
          }
        }
        return ok;
      });
    }
    const depReq: [string, string[], string][] = [];
    const depSchemas: [string, Check][] = [];
    for (const key of ["dependentRequired", "dependencies", "dependentSchemas"]) {
      const deps = s[key];
      if (!isObject(deps)) continue;
      for (const [name, d] of Object.entries(deps)) {
        if (Array.isArray(d) && key !== "dependentSchemas") {
          depReq.push([
            name,
            d.filter((x): x is string => typeof x === "string"),
            kw(key) + formatSegment(name),
          ]);
        } else if (key !== "dependentRequired" && (typeof d === "boolean" || isObject(d))) {
          depSchemas.push([name, this.#sub(d, loc, [key, name])]);
        }
      }
    }
    if (depReq.length || depSchemas.length) {
      objects.push((v, ctx) => {
        const o = v as Record<string, unknown>;
        let ok = true;
        for (const [name, needs, where] of depReq) {
          if (!Object.hasOwn(o, name)) continue;
          for (const k of needs) {
            if (!Object.hasOwn(o, k)) {
              ok = report(
                ctx,
                "dependentRequired",
                `required when ${show(name)} is present`,
                where,
                k,
              );
            }
          }
        }
        for (const [name, c] of depSchemas) {
          if (Object.hasOwn(o, name) && !c(o, ctx)) ok = false;
        }
        return ok;
      });
    }
    if (typeof s.minProperties === "number") {
      const n = s.minProperties;
      const where = kw("minProperties");
      objects.push((v, ctx) =>
        Object.keys(v as object).length >= n ||
        report(
          ctx,
          "minProperties",
          `must have at least ${plural(n, "property")}`.replace("propertys", "properties"),
          where,
        )
      );
    }
    if (typeof s.maxProperties === "number") {
      const n = s.maxProperties;
      const where = kw("maxProperties");
      objects.push((v, ctx) =>
        Object.keys(v as object).length <= n ||
        report(
          ctx,
          "maxProperties",
          `must have at most ${plural(n, "property")}`.replace("propertys", "properties"),
          where,
        )
      );
    }

    return assemble({
      typeTest,
      typeMessage,
      typeWhere: kw("type"),
      generic,
      numeric,
      strings,
      arrays,
      objects,
    });
  }

  /** Validates a child value one level down, with the depth guard. */
  #descend(check: Check, value: unknown, seg: PathSegment, ctx: Ctx, spath: string): boolean {
    if (ctx.depth >= ctx.maxDepth) return tooDeep(ctx, spath, seg);
    ctx.path.push(seg);
    ctx.depth++;
    const ok = check(value, ctx);
    ctx.depth--;
    ctx.path.pop();
    return ok;
  }

  /** Follows a `$ref` with the depth guard (a reference cycle that consumes no input ends here). */
  #deeper(check: Check, where: string): Check {
    return (v, ctx) => {
      if (ctx.depth >= ctx.maxDepth) return tooDeep(ctx, where);
      ctx.depth++;
      const ok = check(v, ctx);
      ctx.depth--;
      return ok;
    };
  }
}

function tooDeep(ctx: Ctx, where: string, seg?: PathSegment): false {
  return report(
    ctx,
    "depth",
    `nested more than ${ctx.maxDepth} levels deep; not validated further`,
    where,
    seg,
  );
}

interface Parts {
  typeTest: ((v: unknown) => boolean) | undefined;
  typeMessage: string;
  typeWhere: string;
  generic: Check[];
  numeric: Check[];
  strings: Check[];
  arrays: Check[];
  objects: Check[];
}

function runAll(checks: Check[], v: unknown, ctx: Ctx): boolean {
  let ok = true;
  for (let i = 0; i < checks.length; i++) {
    if (!checks[i](v, ctx)) {
      ok = false;
      if (!ctx.issues) return false;
    }
  }
  return ok;
}

function assemble(p: Parts): Check {
  const { typeTest, typeMessage, typeWhere, generic, numeric, strings, arrays, objects } = p;
  return (v, ctx) => {
    if (typeTest && !typeTest(v)) {
      return report(ctx, "type", `${typeMessage}, got ${typeName(v)}`, typeWhere);
    }
    let ok = generic.length === 0 || runAll(generic, v, ctx);
    if (!ok && !ctx.issues) return false;
    if (typeof v === "number") {
      if (numeric.length && !runAll(numeric, v, ctx)) ok = false;
    } else if (typeof v === "string") {
      if (strings.length && !runAll(strings, v, ctx)) ok = false;
    } else if (Array.isArray(v)) {
      if (arrays.length && !runAll(arrays, v, ctx)) ok = false;
    } else if (typeof v === "object" && v !== null) {
      if (objects.length && !runAll(objects, v, ctx)) ok = false;
    }
    return ok;
  };
}
