/**
 * The fast path: a schema compiled to JavaScript source that only answers "valid or not", with
 * no paths and no issues: `isValid`, and the probes of the generated issue collector
 * (`_codegen_collect.ts`, whose program includes these functions). It must agree with the
 * collector and the closures (`_compile.ts`) on every value: the tests check them against each
 * other and the suite.
 *
 * Where the runtime forbids generated code (a Content-Security-Policy without `unsafe-eval`),
 * `generateValidator` returns undefined and the closures serve both purposes.
 */
import { jsonEqual } from "./json_equal.ts";
import { codePoints, findDuplicate } from "./_values.ts";
import { multipleOfTest } from "./decimal.ts";
import { compilePattern } from "./safe_pattern.ts";
import { type Location, RefIndex } from "./refs.ts";
import { isObject } from "../_object.ts";
import { FORMAT_CHECKS } from "./formats.ts";
import type { JsonSchema, PathSegment } from "./types.ts";

/** A generated validator: true when the value is valid. */
export type FastCheck = (value: unknown) => boolean;

/** What generated code may call: helpers and per-schema constants, by index. */
interface Runtime {
  consts: unknown[];
}

/** The test of each `type` name, as code on an expression. */
export const TYPE_CODE: Record<string, (x: string) => string> = {
  null: (x) => `${x} === null`,
  boolean: (x) => `typeof ${x} === "boolean"`,
  object: (x) => `(typeof ${x} === "object" && ${x} !== null && !Array.isArray(${x}))`,
  array: (x) => `Array.isArray(${x})`,
  number: (x) => `(typeof ${x} === "number" && Number.isFinite(${x}))`,
  integer: (x) => `Number.isInteger(${x})`,
  string: (x) => `typeof ${x} === "string"`,
};

/**
 * Whether an object schema names few enough properties (in `properties` and `required`) for its
 * checks to read each directly rather than loop over the keys a value has.
 */
export function isFew(names: readonly string[]): boolean {
  return names.length > 0 && names.length <= 4;
}

/** Generates the boolean functions `f0`, `f1`, ... of one schema document. */
export class Generator {
  readonly #index: RefIndex;
  readonly #names = new Map<object, string>();
  readonly #functions: string[] = [];
  readonly #consts: unknown[];
  readonly #formats: boolean;

  /**
   * @param root The schema document.
   * @param formats Whether `format` is asserted.
   * @param consts The constants array the program reads as `K` (shared with a collector).
   */
  constructor(root: JsonSchema, formats: boolean, consts: unknown[] = []) {
    this.#index = new RefIndex(root);
    this.#formats = formats;
    this.#consts = consts;
  }

  /** The source of every function generated so far. */
  functions(): string {
    return this.#functions.join("\n");
  }

  /** A constant the generated code reads as `K[i]`. */
  #const(value: unknown): string {
    this.#consts.push(value);
    return `K[${this.#consts.length - 1}]`;
  }

  /**
   * The name of the function that validates `schema`, generating it on first use: `acceptAny` for the
   * `true` schema and `rejectAny` for any other that is not an object (`false`), the two functions every
   * program defines; a caller writes them as the literals `true` and `false` where it can.
   */
  fn(schema: unknown, loc: Location): string {
    if (schema === true) return "acceptAny";
    if (!isObject(schema)) return "rejectAny";
    const known = this.#names.get(schema);
    if (known) return known;
    const name = `f${this.#names.size}`;
    this.#names.set(schema, name);
    const body = this.#body(schema, loc);
    this.#functions.push(
      `function ${name}(x, d) {\n${body}\n  return true;\n}`,
    );
    return name;
  }

  #sub(schema: unknown, loc: Location, segs: PathSegment[]): string {
    const child = isObject(schema) ? this.#index.locationOf(schema) : undefined;
    return this.fn(
      schema,
      child ?? { base: loc.base, segments: [...loc.segments, ...segs] },
    );
  }

  /** A call that goes one level deeper, failing (like the closures) past the depth limit. */
  #deeper(fn: string, x: string): string {
    if (fn === "acceptAny") return "true";
    if (fn === "rejectAny") return "false";
    return `(d < M && ${fn}(${x}, d + 1))`;
  }

  #body(s: Record<string, unknown>, loc: Location): string {
    const out: string[] = [];
    const has = (k: string): boolean => Object.hasOwn(s, k);
    const fail = (cond: string): void => {
      out.push(`  if (${cond}) return false;`);
    };

    if (has("type")) {
      const names = (Array.isArray(s.type) ? s.type : [s.type]).filter((
        t,
      ): t is string => typeof t === "string" && Object.hasOwn(TYPE_CODE, t));
      fail(
        names.length ? `!(${names.map((t) => TYPE_CODE[t]("x")).join(" || ")})` : "true",
      );
    }

    if (Array.isArray(s.enum)) {
      const values = s.enum;
      const prims = values.filter((v) => v === null || typeof v !== "object");
      const comps = values.filter((v) => v !== null && typeof v === "object");
      const tests: string[] = [];
      if (prims.length > 0 && prims.length <= 16) {
        tests.push(...prims.map((p) => `x === ${JSON.stringify(p)}`));
      } else if (prims.length) {
        tests.push(`${this.#const(new Set(prims))}.has(x)`);
      }
      if (comps.length) {
        tests.push(
          `(typeof x === "object" && ${this.#const(comps)}.some((c) => EQ(c, x)))`,
        );
      }
      fail(tests.length ? `!(${tests.join(" || ")})` : "true");
    }
    if (has("const")) {
      const c = s.const;
      fail(
        c === null || typeof c !== "object"
          ? `x !== ${JSON.stringify(c)}`
          : `!EQ(${this.#const(c)}, x)`,
      );
    }
    if (typeof s.$ref === "string") {
      const target = this.#index.resolve(s.$ref, loc);
      fail(
        target ? `!${this.#deeper(this.fn(target.schema, target.location), "x")}` : "true",
      );
    }
    if (Array.isArray(s.allOf)) {
      s.allOf.forEach((sub, i) => fail(`!${this.#call(this.#sub(sub, loc, ["allOf", i]))}`));
    }
    if (Array.isArray(s.anyOf)) {
      const calls = s.anyOf.map((sub, i) => this.#call(this.#sub(sub, loc, ["anyOf", i])));
      fail(`!(${calls.join(" || ") || "false"})`);
    }
    if (Array.isArray(s.oneOf)) {
      const calls = s.oneOf.map((sub, i) => this.#call(this.#sub(sub, loc, ["oneOf", i])));
      out.push(`  { let n = 0;`);
      for (const c of calls) out.push(`    if (${c} && ++n > 1) return false;`);
      out.push(`    if (n !== 1) return false; }`);
    }
    if (has("not")) fail(this.#call(this.#sub(s.not, loc, ["not"])));
    if (has("if") && (has("then") || has("else"))) {
      const cond = this.#call(this.#sub(s.if, loc, ["if"]));
      const then = has("then") ? this.#call(this.#sub(s.then, loc, ["then"])) : "true";
      const otherwise = has("else") ? this.#call(this.#sub(s.else, loc, ["else"])) : "true";
      fail(`!(${cond} ? ${then} : ${otherwise})`);
    }

    const numeric = this.#numeric(s);
    const strings = this.#strings(s);
    const arrays = this.#arrays(s, loc);
    const objects = this.#objects(s, loc);
    const blocks: string[] = [];
    if (numeric.length) {
      blocks.push(`if (typeof x === "number") {\n${numeric.join("\n")}\n  }`);
    }
    if (strings.length) {
      blocks.push(`if (typeof x === "string") {\n${strings.join("\n")}\n  }`);
    }
    if (arrays.length) {
      blocks.push(`if (Array.isArray(x)) {\n${arrays.join("\n")}\n  }`);
    }
    if (objects.length) {
      blocks.push(
        `if (typeof x === "object" && x !== null && !Array.isArray(x)) {\n${
          objects.join("\n")
        }\n  }`,
      );
    }
    if (blocks.length) out.push("  " + blocks.join(" else "));
    return out.join("\n");
  }

  #call(fn: string): string {
    return fn === "acceptAny" ? "true" : fn === "rejectAny" ? "false" : `${fn}(x, d)`;
  }

  #numeric(s: Record<string, unknown>): string[] {
    const out: string[] = [];
    const bound = (k: string, op: string): void => {
      if (typeof s[k] === "number" && Number.isFinite(s[k])) {
        out.push(`    if (x ${op} ${s[k]}) return false;`);
      }
    };
    bound("minimum", "<");
    bound("maximum", ">");
    bound("exclusiveMinimum", "<=");
    bound("exclusiveMaximum", ">=");
    if (typeof s.multipleOf === "number" && s.multipleOf > 0) {
      out.push(
        `    if (Number.isFinite(x) && !${
          this.#const(multipleOfTest(s.multipleOf))
        }(x)) return false;`,
      );
    }
    return out;
  }

  #strings(s: Record<string, unknown>): string[] {
    const out: string[] = [];
    if (typeof s.minLength === "number") {
      out.push(
        `    if (x.length < ${2 * s.minLength} && CP(x) < ${s.minLength}) return false;`,
      );
    }
    if (typeof s.maxLength === "number") {
      out.push(
        `    if (x.length > ${s.maxLength} && CP(x) > ${s.maxLength}) return false;`,
      );
    }
    if (typeof s.pattern === "string") {
      const c = compilePattern(s.pattern);
      out.push(
        c.ok ? `    if (!${this.#const(c.pattern)}.test(x)) return false;` : "    return false;",
      );
    }
    if (
      this.#formats && typeof s.format === "string" &&
      Object.hasOwn(FORMAT_CHECKS, s.format)
    ) {
      out.push(
        `    if (!${this.#const(FORMAT_CHECKS[s.format])}(x)) return false;`,
      );
    }
    return out;
  }

  #arrays(s: Record<string, unknown>, loc: Location): string[] {
    const out: string[] = [];
    const prefix = Array.isArray(s.prefixItems)
      ? s.prefixItems.map((sub, i) => this.#sub(sub, loc, ["prefixItems", i]))
      : Array.isArray(s.items)
      ? s.items.map((sub, i) => this.#sub(sub, loc, ["items", i]))
      : [];
    let rest: string | undefined;
    if (Object.hasOwn(s, "items") && !Array.isArray(s.items)) {
      rest = this.#sub(s.items, loc, ["items"]);
    } else if (Array.isArray(s.items) && Object.hasOwn(s, "additionalItems")) {
      rest = this.#sub(s.additionalItems, loc, ["additionalItems"]);
    }
    prefix.forEach((fn, i) =>
      out.push(
        `    if (x.length > ${i} && !${this.#deeper(fn, `x[${i}]`)}) return false;`,
      )
    );
    if (rest !== undefined && rest !== "acceptAny") {
      out.push(
        `    for (let i = ${prefix.length}; i < x.length; i++) if (!${
          this.#deeper(rest, "x[i]")
        }) return false;`,
      );
    }
    if (Object.hasOwn(s, "contains")) {
      const fn = this.#sub(s.contains, loc, ["contains"]);
      const min = typeof s.minContains === "number" ? s.minContains : 1;
      const max = typeof s.maxContains === "number" ? s.maxContains : Infinity;
      out.push(
        `    { let n = 0; for (let i = 0; i < x.length; i++) if (${this.#deeper(fn, "x[i]")}) n++;`,
      );
      out.push(
        `      if (n < ${min}${max === Infinity ? "" : ` || n > ${max}`}) return false; }`,
      );
    }
    if (typeof s.minItems === "number") {
      out.push(`    if (x.length < ${s.minItems}) return false;`);
    }
    if (typeof s.maxItems === "number") {
      out.push(`    if (x.length > ${s.maxItems}) return false;`);
    }
    if (s.uniqueItems === true) out.push(`    if (DUP(x)) return false;`);
    return out;
  }

  /**
   * The object keywords. Cost follows the value's size, not the schema's: one loop over the keys
   * the value has dispatches each to its property check (a `switch` on the name), counts the
   * required names it meets, and applies `patternProperties`, `additionalProperties` and
   * `propertyNames` in the same pass. Reading every declared property instead (`x.a`, `x.b`, ...)
   * sends each read to V8's slow path once calls carry many different sets of optional keys.
   */
  #objects(s: Record<string, unknown>, loc: Location): string[] {
    const out: string[] = [];
    const props = isObject(s.properties) ? s.properties : {};
    const required = Array.isArray(s.required)
      ? [
        ...new Set(
          s.required.filter((k): k is string => typeof k === "string"),
        ),
      ]
      : [];
    const patterns = isObject(s.patternProperties) ? Object.keys(s.patternProperties) : [];
    const hasAdditional = Object.hasOwn(s, "additionalProperties");
    const hasNames = Object.hasOwn(s, "propertyNames");
    const names = [...new Set([...Object.keys(props), ...required])];
    if (isFew(names) && !patterns.length && !hasNames) {
      out.push(...this.#fewProperties(s, loc, props, required));
    } else if (names.length || patterns.length || hasAdditional || hasNames) {
      const req = new Set(required);
      if (required.length) out.push(`    let r = 0;`);
      out.push(`    for (const k in x) {`);
      out.push(`      if (!HAS(x, k)) continue;`);
      out.push(`      const v = x[k];`);
      if (hasNames) {
        const fn = this.#sub(s.propertyNames, loc, ["propertyNames"]);
        out.push(
          `      if (!${this.#call(fn).replace("(x, d)", "(k, d)")}) return false;`,
        );
      }
      // A JSON value is never undefined: a key holding undefined counts as absent.
      out.push(`      let m = true;`);
      if (names.length) {
        out.push(`      switch (k) {`);
        for (const k of names) {
          const body: string[] = [];
          if (req.has(k)) body.push(`if (v !== undefined) r++;`);
          if (Object.hasOwn(props, k)) {
            const fn = this.#sub(props[k], loc, ["properties", k]);
            if (fn !== "acceptAny") {
              body.push(
                `if (v !== undefined && !${this.#deeper(fn, "v")}) return false;`,
              );
            }
          }
          // A name only `required` lists is not one `properties` names: it stays unmatched.
          if (!Object.hasOwn(props, k)) body.push(`m = false;`);
          out.push(
            `        case ${JSON.stringify(k)}: ${body.join(" ")} break;`,
          );
        }
        out.push(`        default: m = false;`);
        out.push(`      }`);
      } else out.push(`      m = false;`);
      for (const p of patterns) {
        const c = compilePattern(p);
        if (!c.ok) {
          out.push(`      return false;`);
          continue;
        }
        const fn = this.#sub(
          (s.patternProperties as Record<string, unknown>)[p],
          loc,
          [
            "patternProperties",
            p,
          ],
        );
        out.push(
          `      if (${this.#const(c.pattern)}.test(k)) { m = true; if (!${
            this.#deeper(fn, "v")
          }) return false; }`,
        );
      }
      if (hasAdditional) {
        const fn = this.#sub(s.additionalProperties, loc, [
          "additionalProperties",
        ]);
        if (fn !== "acceptAny") {
          out.push(`      if (!m && !${this.#deeper(fn, "v")}) return false;`);
        }
      }
      out.push(`    }`);
      if (required.length) {
        out.push(`    if (r !== ${required.length}) return false;`);
      }
    }
    for (
      const key of ["dependentRequired", "dependencies", "dependentSchemas"]
    ) {
      const deps = s[key];
      if (!isObject(deps)) continue;
      for (const [name, d] of Object.entries(deps)) {
        const trigger = `HAS(x, ${JSON.stringify(name)})`;
        if (Array.isArray(d) && key !== "dependentSchemas") {
          const needs = d.filter((k): k is string => typeof k === "string").map(
            (k) => `!HAS(x, ${JSON.stringify(k)})`,
          );
          if (needs.length) {
            out.push(
              `    if (${trigger} && (${needs.join(" || ")})) return false;`,
            );
          }
        } else if (
          key !== "dependentRequired" && (typeof d === "boolean" || isObject(d))
        ) {
          const fn = this.#sub(d, loc, [key, name]);
          out.push(`    if (${trigger} && !${this.#call(fn)}) return false;`);
        }
      }
    }
    if (typeof s.minProperties === "number") {
      out.push(
        `    if (Object.keys(x).length < ${s.minProperties}) return false;`,
      );
    }
    if (typeof s.maxProperties === "number") {
      out.push(
        `    if (Object.keys(x).length > ${s.maxProperties}) return false;`,
      );
    }
    return out;
  }

  /**
   * The object keywords of a schema that names a few properties and no patterns: each named
   * property read directly (an own-key test only for a value that is there), then, for
   * `additionalProperties`, one loop over the keys that are not named. On small objects this is
   * well ahead of looping over every key, and a tool of two or three arguments sends few key sets.
   */
  #fewProperties(
    s: Record<string, unknown>,
    loc: Location,
    props: Record<string, unknown>,
    required: string[],
  ): string[] {
    const out: string[] = [];
    const req = new Set(required);
    for (const [i, k] of Object.keys(props).entries()) {
      const fn = this.#sub(props[k], loc, ["properties", k]);
      const name = JSON.stringify(k);
      if (fn === "acceptAny" && !req.has(k)) continue;
      out.push(`    const p${i} = x[${name}];`);
      const present = `p${i} !== undefined && HAS(x, ${name})`;
      if (fn === "acceptAny") out.push(`    if (!(${present})) return false;`);
      else if (req.has(k)) {
        out.push(`    if (!(${present}) || !${this.#deeper(fn, `p${i}`)}) return false;`);
      } else out.push(`    if (${present} && !${this.#deeper(fn, `p${i}`)}) return false;`);
    }
    for (const k of required) {
      if (Object.hasOwn(props, k)) continue;
      const name = JSON.stringify(k);
      out.push(`    if (!(HAS(x, ${name}) && x[${name}] !== undefined)) return false;`);
    }
    if (Object.hasOwn(s, "additionalProperties")) {
      const fn = this.#sub(s.additionalProperties, loc, ["additionalProperties"]);
      if (fn !== "acceptAny") {
        const named = Object.keys(props).map((k) => `k === ${JSON.stringify(k)}`);
        out.push(`    for (const k in x) {`);
        if (named.length) out.push(`      if (${named.join(" || ")}) continue;`);
        out.push(`      if (HAS(x, k) && !${this.#deeper(fn, "x[k]")}) return false;`);
        out.push(`    }`);
      }
    }
    return out;
  }

  /** The whole program: the functions, and the entry point. */
  source(rootFn: string): { code: string; runtime: Runtime } {
    const code = `"use strict";
// An own-key test V8 folds away where it can (a key of a for-in over the object, a name its map
// has): Object.hasOwn passed in as a parameter is an opaque call each time.
const OHP = Object.prototype.hasOwnProperty;
function HAS(o, k) { return OHP.call(o, k); }
function acceptAny() { return true; }
function rejectAny() { return false; }
${this.#functions.join("\n")}
return (x) => ${rootFn}(x, 0);`;
    return { code, runtime: { consts: this.#consts } };
  }
}

/**
 * Generates the boolean validator for a schema document, or undefined where the runtime does not
 * allow generated code.
 */
export function generateValidator(
  root: JsonSchema,
  options: { formats: boolean; maxDepth: number },
): FastCheck | undefined {
  const gen = new Generator(root, options.formats);
  const index = new RefIndex(root);
  const rootFn = gen.fn(
    root,
    index.locationOf(root) ?? { base: "", segments: [] },
  );
  const { code, runtime } = gen.source(rootFn);
  let factory: (...args: unknown[]) => FastCheck;
  try {
    factory = new Function(
      "K",
      "M",
      "EQ",
      "CP",
      "DUP",
      code,
    ) as typeof factory;
  } catch {
    return undefined;
  }
  return factory(
    runtime.consts,
    options.maxDepth,
    jsonEqual,
    codePoints,
    (a: unknown[]) => findDuplicate(a) !== undefined,
  );
}
