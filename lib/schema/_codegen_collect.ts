/**
 * The issue collector as generated code: the same issues, paths, keywords, messages and schema
 * paths as the closures of `_compile.ts`, in one walk of the value at the speed of generated code.
 * `validateSchema` runs it on a value the boolean fast path rejected; the closures remain the
 * reference (and the fallback where generated code is not allowed). Tests check the two agree on
 * every case of the JSON-Schema-Test-Suite and on random values.
 *
 * Each schema object becomes `cN(x, d)`: it pushes issues onto `E` with their path relative to `x`
 * and returns whether the value is valid; a parent whose child failed puts the child's segment in
 * front of the issues the child added, so a valid value costs no path bookkeeping at all. Applicators that
 * only ask "does it match" (`anyOf`, `oneOf`, `not`, `if`, `contains`, `propertyNames`) call the
 * boolean functions `fN` of the fast path, as the closures call themselves with no issue list.
 */
import { codePoints, findDuplicate } from "./_values.ts";
import { jsonEqual } from "./_equal.ts";
import { multipleOfTest } from "./_decimal.ts";
import { compilePattern } from "./_regex.ts";
import { type Location, RefIndex } from "./_refs.ts";
import { isObject } from "../_object.ts";
import { Generator } from "./_codegen.ts";
import { plural, type RawIssue, show, typeName } from "./_compile_context.ts";
import { FORMAT_CHECKS } from "./formats.ts";
import { formatPath, formatSegment } from "./path.ts";
import type { JsonSchema, PathSegment } from "./types.ts";

/** A generated collector: the raw issues of a value (empty when it is valid). */
export type CollectCheck = (value: unknown) => RawIssue[];

const TYPE_CODE: Record<string, (x: string) => string> = {
  null: (x) => `${x} === null`,
  boolean: (x) => `typeof ${x} === "boolean"`,
  object: (x) => `(typeof ${x} === "object" && ${x} !== null && !Array.isArray(${x}))`,
  array: (x) => `Array.isArray(${x})`,
  number: (x) => `(typeof ${x} === "number" && Number.isFinite(${x}))`,
  integer: (x) => `Number.isInteger(${x})`,
  string: (x) => `typeof ${x} === "string"`,
};

const q = (s: string): string => JSON.stringify(s);

class CollectGenerator {
  readonly #index: RefIndex;
  readonly #fast: Generator;
  readonly #names = new Map<object, string>();
  readonly #functions: string[] = [];
  readonly #consts: unknown[];
  readonly #formats: boolean;

  constructor(root: JsonSchema, formats: boolean) {
    this.#index = new RefIndex(root);
    this.#consts = [];
    this.#fast = new Generator(root, formats, this.#consts);
    this.#formats = formats;
  }

  /** The constants the program reads as `K`. */
  consts(): unknown[] {
    return this.#consts;
  }

  #const(value: unknown): string {
    this.#consts.push(value);
    return `K[${this.#consts.length - 1}]`;
  }

  #locOf(schema: unknown, loc: Location, segs: PathSegment[]): Location {
    const child = isObject(schema) ? this.#index.locationOf(schema) : undefined;
    return child ?? { base: loc.base, segments: [...loc.segments, ...segs] };
  }

  /** The boolean function of a subschema (for probes), as an expression on `v` at depth `dd`. */
  #probe(schema: unknown, loc: Location, segs: PathSegment[], v: string, dd: string): string {
    const fn = this.#fast.fn(schema, this.#locOf(schema, loc, segs));
    return fn === "T" ? "true" : fn === "F" ? "false" : `${fn}(${v}, ${dd})`;
  }

  /**
   * An expression that collects the issues of `v` against a subschema in place (at the current
   * path and depth) and is its validity. A `false` subschema reports `falseKeyword`.
   */
  #inPlace(schema: unknown, loc: Location, falseKeyword: string, v: string, dd: string): string {
    if (schema === true) return "true";
    const spath = formatPath(loc.segments);
    if (schema === false) {
      const message = falseKeyword === "false" ? "no value is allowed here" : "not allowed";
      return `R(${q(falseKeyword)}, ${q(message)}, ${q(spath)})`;
    }
    if (!isObject(schema)) {
      return `R("schema", ${
        q(`the schema at ${spath} is not an object or boolean; nothing validates against it`)
      }, ${q(spath)})`;
    }
    return `${this.cfn(schema, loc)}(${v}, ${dd})`;
  }

  /** Statements that descend into `v` at `seg` with the depth guard, clearing `ok` on failure. */
  #descend(
    schema: unknown,
    loc: Location,
    segs: PathSegment[],
    falseKeyword: string,
    v: string,
    seg: string,
    parentSpath: string,
    indent: string,
  ): string {
    const sub = this.#inPlace(schema, this.#locOf(schema, loc, segs), falseKeyword, v, "d + 1");
    // The path is built only on failure: the issues the child added get its segment in front.
    return `${indent}if (d >= M) ok = R1("depth", DM, ${q(parentSpath)}, ${seg});\n` +
      `${indent}else { const e = E.length; if (!(${sub})) { ok = false; PRE(e, ${seg}); } }`;
  }

  /** The name of the collecting function of `schema`, generating it on first use. */
  cfn(schema: Record<string, unknown>, loc: Location): string {
    const known = this.#names.get(schema);
    if (known) return known;
    const name = `c${this.#names.size}`;
    this.#names.set(schema, name);
    const body = this.#body(schema, loc);
    this.#functions.push(`function ${name}(x, d) {\n  let ok = true;\n${body}\n  return ok;\n}`);
    return name;
  }

  #body(s: Record<string, unknown>, loc: Location): string {
    const out: string[] = [];
    const spath = formatPath(loc.segments);
    const kw = (k: string): string => spath + formatSegment(k);
    const has = (k: string): boolean => Object.hasOwn(s, k);
    const fail = (cond: string, keyword: string, message: string, where: string): void => {
      out.push(`  if (${cond}) ok = R(${q(keyword)}, ${q(message)}, ${q(where)});`);
    };

    if (has("type")) {
      const names = (Array.isArray(s.type) ? s.type : [s.type]).filter((t): t is string =>
        typeof t === "string" && Object.hasOwn(TYPE_CODE, t)
      );
      const cond = names.length ? `!(${names.map((t) => TYPE_CODE[t]("x")).join(" || ")})` : "true";
      out.push(
        `  if (${cond}) return R("type", ${
          q(`expected ${names.join(" or ")}`)
        } + ", got " + TN(x), ${q(kw("type"))});`,
      );
    }

    if (has("enum") && Array.isArray(s.enum)) {
      const values = s.enum as unknown[];
      const prims = values.filter((v) => v === null || typeof v !== "object");
      const comps = values.filter((v) => v !== null && typeof v === "object");
      const message = `must be one of ${values.slice(0, 10).map(show).join(", ")}${
        values.length > 10 ? ", ..." : ""
      }`;
      const tests: string[] = [];
      if (prims.length) tests.push(`${this.#const(new Set(prims))}.has(x)`);
      if (comps.length) {
        tests.push(
          `(typeof x === "object" && x !== null && ${this.#const(comps)}.some((c) => EQ(c, x)))`,
        );
      }
      fail(tests.length ? `!(${tests.join(" || ")})` : "true", "enum", message, kw("enum"));
    }
    if (has("const")) {
      fail(
        `!EQ(${this.#const(s.const)}, x)`,
        "const",
        `must be equal to ${show(s.const)}`,
        kw("const"),
      );
    }
    if (typeof s.$ref === "string") {
      const where = kw("$ref");
      const target = this.#index.resolve(s.$ref, loc);
      if (!target) {
        const message = `cannot resolve $ref ${
          show(s.$ref)
        }: only references inside this schema are followed`;
        out.push(`  ok = R("$ref", ${q(message)}, ${q(where)});`);
      } else {
        const sub = this.#inPlace(target.schema, target.location, "false", "x", "d + 1");
        out.push(`  if (d >= M) ok = R("depth", DM, ${q(where)});`);
        out.push(`  else if (!(${sub})) ok = false;`);
      }
    }
    if (Array.isArray(s.allOf)) {
      s.allOf.forEach((sub, i) => {
        out.push(
          `  if (!(${
            this.#inPlace(sub, this.#locOf(sub, loc, ["allOf", i]), "false", "x", "d")
          })) ok = false;`,
        );
      });
    }
    if (Array.isArray(s.anyOf)) {
      const branches = s.anyOf;
      const probes = branches.map((b, i) => this.#probe(b, loc, ["anyOf", i], "x", "d"));
      const branchTypes = branches.map((b) =>
        isObject(b) && Object.keys(b).length === 1 && typeof b.type === "string"
          ? b.type
          : undefined
      );
      const allTyped = branchTypes.every((t) => t !== undefined);
      const message = allTyped
        ? `${q(`expected ${branchTypes.join(" or ")}, got `)} + TN(x)`
        : q(`must match at least one of the ${branches.length} schemas in anyOf`);
      out.push(
        `  if (!(${probes.join(" || ") || "false"})) ok = R("anyOf", ${message}, ${
          q(kw("anyOf"))
        });`,
      );
    }
    if (Array.isArray(s.oneOf)) {
      const probes = s.oneOf.map((b, i) => this.#probe(b, loc, ["oneOf", i], "x", "d"));
      out.push(`  { const m = [];`);
      probes.forEach((p, i) => out.push(`    if (${p}) m.push(${i});`));
      out.push(
        `    if (m.length !== 1) ok = R("oneOf", ${
          q(`must match exactly one of the ${probes.length} schemas in oneOf; `)
        } + (m.length === 0 ? "matched none" : "matched schemas " + m.join(" and ")), ${
          q(kw("oneOf"))
        }); }`,
      );
    }
    if (has("not")) {
      fail(
        this.#probe(s.not, loc, ["not"], "x", "d"),
        "not",
        "must not match the schema in not",
        kw("not"),
      );
    }
    if (has("if") && (has("then") || has("else"))) {
      const cond = this.#probe(s.if, loc, ["if"], "x", "d");
      const then = has("then")
        ? this.#inPlace(s.then, this.#locOf(s.then, loc, ["then"]), "then", "x", "d")
        : "true";
      const otherwise = has("else")
        ? this.#inPlace(s.else, this.#locOf(s.else, loc, ["else"]), "else", "x", "d")
        : "true";
      out.push(`  if (!(${cond} ? ${then} : ${otherwise})) ok = false;`);
    }

    const numeric = this.#numeric(s, kw);
    const strings = this.#strings(s, kw);
    const arrays = this.#arrays(s, loc, spath, kw);
    const objects = this.#objects(s, loc, spath, kw);
    const blocks: string[] = [];
    if (numeric.length) blocks.push(`if (typeof x === "number") {\n${numeric.join("\n")}\n  }`);
    if (strings.length) blocks.push(`if (typeof x === "string") {\n${strings.join("\n")}\n  }`);
    if (arrays.length) blocks.push(`if (Array.isArray(x)) {\n${arrays.join("\n")}\n  }`);
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

  #numeric(s: Record<string, unknown>, kw: (k: string) => string): string[] {
    const out: string[] = [];
    const bound = (k: string, op: string, text: string): void => {
      if (typeof s[k] !== "number") return;
      const b = s[k] as number;
      out.push(
        `    if (x ${op} ${b}) ok = R(${q(k)}, ${q(`must be ${text} ${b}`)}, ${q(kw(k))});`,
      );
    };
    bound("minimum", "<", ">=");
    bound("maximum", ">", "<=");
    bound("exclusiveMinimum", "<=", ">");
    bound("exclusiveMaximum", ">=", "<");
    if (typeof s.multipleOf === "number" && s.multipleOf > 0) {
      out.push(
        `    if (Number.isFinite(x) && !${this.#const(multipleOfTest(s.multipleOf))}(x)) ok = R(${
          q("multipleOf")
        }, ${q(`must be a multiple of ${s.multipleOf}`)}, ${q(kw("multipleOf"))});`,
      );
    }
    return out;
  }

  #strings(s: Record<string, unknown>, kw: (k: string) => string): string[] {
    const out: string[] = [];
    if (typeof s.minLength === "number") {
      const n = s.minLength;
      out.push(
        `    if (!(x.length >= ${2 * n} || CP(x) >= ${n})) ok = R("minLength", ${
          q(`must be at least ${plural(n, "character")} long`)
        }, ${q(kw("minLength"))});`,
      );
    }
    if (typeof s.maxLength === "number") {
      const n = s.maxLength;
      out.push(
        `    if (!(x.length <= ${n} || CP(x) <= ${n})) ok = R("maxLength", ${
          q(`must be at most ${plural(n, "character")} long`)
        }, ${q(kw("maxLength"))});`,
      );
    }
    if (typeof s.pattern === "string") {
      const src = s.pattern;
      const c = compilePattern(src);
      out.push(
        c.ok
          ? `    if (!${this.#const(c.pattern)}.test(x)) ok = R("pattern", ${
            q(`must match pattern ${src}`)
          }, ${q(kw("pattern"))});`
          : `    ok = R("pattern", ${
            q(`pattern ${src} cannot be run safely (${c.reason}); value rejected`)
          }, ${q(kw("pattern"))});`,
      );
    }
    if (this.#formats && typeof s.format === "string" && Object.hasOwn(FORMAT_CHECKS, s.format)) {
      out.push(
        `    if (!${this.#const(FORMAT_CHECKS[s.format])}(x)) ok = R("format", ${
          q(`must be a valid ${s.format}`)
        }, ${q(kw("format"))});`,
      );
    }
    return out;
  }

  #arrays(
    s: Record<string, unknown>,
    loc: Location,
    spath: string,
    kw: (k: string) => string,
  ): string[] {
    const out: string[] = [];
    const has = (k: string): boolean => Object.hasOwn(s, k);
    const prefix: { schema: unknown; segs: PathSegment[]; kw: string }[] = Array.isArray(
        s.prefixItems,
      )
      ? s.prefixItems.map((x, i) => ({ schema: x, segs: ["prefixItems", i], kw: "prefixItems" }))
      : Array.isArray(s.items)
      ? s.items.map((x, i) => ({ schema: x, segs: ["items", i], kw: "items" }))
      : [];
    let rest: { schema: unknown; segs: PathSegment[]; kw: string } | undefined;
    if (has("items") && !Array.isArray(s.items)) {
      rest = { schema: s.items, segs: ["items"], kw: "items" };
    } else if (Array.isArray(s.items) && has("additionalItems")) {
      rest = { schema: s.additionalItems, segs: ["additionalItems"], kw: "additionalItems" };
    }
    prefix.forEach((p, i) => {
      out.push(`    if (x.length > ${i}) {`);
      out.push(this.#descend(p.schema, loc, p.segs, p.kw, `x[${i}]`, `${i}`, spath, "      "));
      out.push(`    }`);
    });
    if (rest) {
      out.push(`    for (let i = ${prefix.length}; i < x.length; i++) {`);
      out.push(this.#descend(rest.schema, loc, rest.segs, rest.kw, "x[i]", "i", spath, "      "));
      out.push(`    }`);
    }
    if (has("contains")) {
      const probe = this.#probe(s.contains, loc, ["contains"], "x[i]", "d");
      const min = typeof s.minContains === "number" ? s.minContains : 1;
      const max = typeof s.maxContains === "number" ? s.maxContains : Infinity;
      const minKw = "minContains" in s ? "minContains" : "contains";
      const minWhere = "minContains" in s ? kw("minContains") : kw("contains");
      out.push(`    { let n = 0; for (let i = 0; i < x.length; i++) if (${probe}) n++;`);
      out.push(
        `      if (n < ${min}) ok = R(${q(minKw)}, ${
          q(`must contain at least ${plural(min, "item")} matching contains; found `)
        } + n, ${q(minWhere)});`,
      );
      if (max !== Infinity) {
        out.push(
          `      else if (n > ${max}) ok = R("maxContains", ${
            q(`must contain at most ${plural(max, "item")} matching contains; found `)
          } + n, ${q(kw("maxContains"))});`,
        );
      }
      out.push(`    }`);
    }
    if (typeof s.minItems === "number") {
      out.push(
        `    if (x.length < ${s.minItems}) ok = R("minItems", ${
          q(`must have at least ${plural(s.minItems, "item")}`)
        }, ${q(kw("minItems"))});`,
      );
    }
    if (typeof s.maxItems === "number") {
      out.push(
        `    if (x.length > ${s.maxItems}) ok = R("maxItems", ${
          q(`must have at most ${plural(s.maxItems, "item")}`)
        }, ${q(kw("maxItems"))});`,
      );
    }
    if (s.uniqueItems === true) {
      out.push(
        `    { const p = DUP(x); if (p) ok = R("uniqueItems", "items [" + p[0] + "] and [" + p[1] + "] are equal; items must be unique", ${
          q(kw("uniqueItems"))
        }); }`,
      );
    }
    return out;
  }

  #objects(
    s: Record<string, unknown>,
    loc: Location,
    spath: string,
    kw: (k: string) => string,
  ): string[] {
    const out: string[] = [];
    const has = (k: string): boolean => Object.hasOwn(s, k);
    const props = isObject(s.properties) ? s.properties : {};
    const propNames = Object.keys(props);
    const required = Array.isArray(s.required)
      ? [...new Set(s.required.filter((k): k is string => typeof k === "string"))]
      : [];
    const req = new Set(required);
    const patterns = isObject(s.patternProperties) ? Object.keys(s.patternProperties) : [];
    const hasAdditional = has("additionalProperties");
    const hasNames = has("propertyNames");
    const names = [...new Set([...propNames, ...required])];
    if (names.length || patterns.length || hasAdditional || hasNames) {
      if (required.length) out.push(`    let r = 0;`);
      // Own keys only: a plain object (or one with no prototype) needs no own-key test per key
      // while Object.prototype has no enumerable property; anything else gets one.
      out.push(`    const own = PLAIN(x);`);
      out.push(`    for (const k in x) {`);
      out.push(`      if (!own && !HAS(x, k)) continue;`);
      out.push(`      const v = x[k];`);
      if (hasNames) {
        const probe = this.#probe(s.propertyNames, loc, ["propertyNames"], "k", "d");
        out.push(
          `      if (!(${probe})) ok = R1("propertyNames", "property name " + SHOW(k) + " does not match propertyNames", ${
            q(kw("propertyNames"))
          }, k);`,
        );
      }
      out.push(`      let m = true;`);
      if (names.length) {
        out.push(`      switch (k) {`);
        for (const k of names) {
          out.push(`        case ${q(k)}:`);
          if (req.has(k)) out.push(`          if (v !== undefined) r++;`);
          if (Object.hasOwn(props, k)) {
            out.push(`          if (v !== undefined) {`);
            out.push(
              this.#descend(
                props[k],
                loc,
                ["properties", k],
                "false",
                "v",
                "k",
                spath,
                "            ",
              ),
            );
            out.push(`          }`);
          } else out.push(`          m = false;`);
          out.push(`          break;`);
        }
        out.push(`        default: m = false;`);
        out.push(`      }`);
      } else out.push(`      m = false;`);
      for (const p of patterns) {
        const c = compilePattern(p);
        const sub = (s.patternProperties as Record<string, unknown>)[p];
        if (!c.ok) {
          out.push(
            `      ok = R1("patternProperties", ${
              q(`pattern ${p} cannot be run safely (${c.reason}); value rejected`)
            }, ${q(kw("patternProperties"))}, k); m = true;`,
          );
          continue;
        }
        out.push(`      if (${this.#const(c.pattern)}.test(k)) {`);
        out.push(`        m = true;`);
        out.push(
          this.#descend(sub, loc, ["patternProperties", p], "false", "v", "k", spath, "        "),
        );
        out.push(`      }`);
      }
      if (hasAdditional) {
        if (s.additionalProperties === false) {
          out.push(
            `      if (!m) ok = R1("additionalProperties", "property " + SHOW(k) + " is not allowed", ${
              q(kw("additionalProperties"))
            }, k);`,
          );
        } else {
          out.push(`      if (!m) {`);
          out.push(
            this.#descend(
              s.additionalProperties,
              loc,
              ["additionalProperties"],
              "additionalProperties",
              "v",
              "k",
              spath,
              "        ",
            ),
          );
          out.push(`      }`);
        }
      }
      out.push(`    }`);
      if (required.length) {
        out.push(`    if (r !== ${required.length}) {`);
        for (const k of required) {
          const present = `(HAS(x, ${q(k)}) && x[${q(k)}] !== undefined)`;
          out.push(
            `      if (!${present}) ok = R1("required", "required property is missing", ${
              q(kw("required"))
            }, ${q(k)});`,
          );
        }
        out.push(`    }`);
      }
    }
    for (const key of ["dependentRequired", "dependencies", "dependentSchemas"]) {
      const deps = s[key];
      if (!isObject(deps)) continue;
      for (const [name, d] of Object.entries(deps)) {
        if (Array.isArray(d) && key !== "dependentSchemas") {
          const where = kw(key) + formatSegment(name);
          const needs = d.filter((k): k is string => typeof k === "string");
          if (!needs.length) continue;
          out.push(`    if (HAS(x, ${q(name)})) {`);
          for (const k of needs) {
            out.push(
              `      if (!HAS(x, ${q(k)})) ok = R1("dependentRequired", ${
                q(`required when ${show(name)} is present`)
              }, ${q(where)}, ${q(k)});`,
            );
          }
          out.push(`    }`);
        } else if (key !== "dependentRequired" && (typeof d === "boolean" || isObject(d))) {
          const sub = this.#inPlace(d, this.#locOf(d, loc, [key, name]), "false", "x", "d");
          out.push(`    if (HAS(x, ${q(name)}) && !(${sub})) ok = false;`);
        }
      }
    }
    if (typeof s.minProperties === "number") {
      out.push(
        `    if (Object.keys(x).length < ${s.minProperties}) ok = R("minProperties", ${
          q(`must have at least ${plural(s.minProperties, "property")}`.replace(
            "propertys",
            "properties",
          ))
        }, ${q(kw("minProperties"))});`,
      );
    }
    if (typeof s.maxProperties === "number") {
      out.push(
        `    if (Object.keys(x).length > ${s.maxProperties}) ok = R("maxProperties", ${
          q(`must have at most ${plural(s.maxProperties, "property")}`.replace(
            "propertys",
            "properties",
          ))
        }, ${q(kw("maxProperties"))});`,
      );
    }
    return out;
  }

  /** The whole program: both sets of functions and the entry point. */
  program(root: JsonSchema, loc: Location, precheck: boolean): string {
    const entry = this.#inPlace(root, loc, "false", "x", "0");
    // With precheck, the boolean check answers first: `null` for a value it accepts.
    const first = precheck ? `if (${this.#probe(root, loc, [], "x", "0")}) return null;` : "";
    return `"use strict";
const NONE = [];
let E = NONE;
const DM = "nested more than " + M + " levels deep; not validated further";
// An issue's path is a chain [segment, rest] built outward as the walk unwinds, and made an
// array once, at the end: no array grows while the walk goes on.
function R(keyword, message, schemaPath) {
  const issue = { segs: null, keyword, message, schemaPath };
  if (E === NONE) E = [issue];
  else E.push(issue);
  return false;
}
function R1(keyword, message, schemaPath, seg) {
  const issue = { segs: [seg, null], keyword, message, schemaPath };
  if (E === NONE) E = [issue];
  else E.push(issue);
  return false;
}
function PRE(from, seg) {
  for (let i = from; i < E.length; i++) E[i].segs = [seg, E[i].segs];
}
const OP = Object.prototype;
function PLAIN(x) {
  const p = Object.getPrototypeOf(x);
  if (p === null) return true;
  if (p !== OP) return false;
  for (const _ in OP) return false;
  return true;
}
function SEGS(chain) {
  if (chain === null) return [];
  if (chain[1] === null) return [chain[0]];
  const out = [];
  for (let c = chain; c !== null; c = c[1]) out.push(c[0]);
  return out;
}
function T() { return true; }
function F() { return false; }
${this.#fast.functions()}
${this.#functions.join("\n")}
return (x) => {
  ${first}
  E = NONE;
  ${entry};
  const out = E;
  E = NONE;
  for (let i = 0; i < out.length; i++) out[i].segs = SEGS(out[i].segs);
  return out;
};`;
  }
}

/**
 * Generates the issue collector for a schema document, or undefined where the runtime does not
 * allow generated code.
 */
export function generateCollector(
  root: JsonSchema,
  options: { formats: boolean; maxDepth: number },
): CollectCheck | undefined {
  return generate(root, { ...options, precheck: false }) as CollectCheck | undefined;
}

/**
 * The collector behind `validateSchema`: the generated boolean check answers first (`null`: the
 * value is valid), and only a value it rejects is walked for its issues — in one generated
 * program, so each schema's entry point calls its own functions directly.
 */
export function generateCheckedCollector(
  root: JsonSchema,
  options: { formats: boolean; maxDepth: number },
): ((value: unknown) => RawIssue[] | null) | undefined {
  return generate(root, { ...options, precheck: true });
}

function generate(
  root: JsonSchema,
  options: { formats: boolean; maxDepth: number; precheck: boolean },
): ((value: unknown) => RawIssue[] | null) | undefined {
  const gen = new CollectGenerator(root, options.formats);
  const index = new RefIndex(root);
  const code = gen.program(
    root,
    index.locationOf(root) ?? { base: "", segments: [] },
    options.precheck,
  );
  let factory: (...args: unknown[]) => (value: unknown) => RawIssue[] | null;
  try {
    factory = new Function(
      "K",
      "M",
      "EQ",
      "HAS",
      "CP",
      "DUP",
      "TN",
      "SHOW",
      code,
    ) as typeof factory;
  } catch {
    return undefined;
  }
  // The constants are complete once the program is generated.
  return factory(
    gen.consts(),
    options.maxDepth,
    jsonEqual,
    Object.hasOwn,
    codePoints,
    findDuplicate,
    typeName,
    show,
  );
}
