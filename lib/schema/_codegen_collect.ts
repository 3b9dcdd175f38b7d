/**
 * The issue collector as generated code: the same issues, paths, keywords, messages and schema
 * paths as the closures of `_compile.ts`, in one walk of the value at the speed of generated code.
 * `validateSchema` runs it on every value, valid or not: one walk, which on a valid value costs
 * about what the boolean fast path (`isValid`) costs, and on an invalid one saves walking it twice.
 * The closures remain the reference (and the fallback where generated code is not allowed). Tests
 * check the two agree on every case of the JSON-Schema-Test-Suite and on random values.
 *
 * Each schema object becomes `cN(x, d)`: it pushes issues onto `E`, each in its final shape but for
 * its path, whose chain of segments relative to `x` goes in `S` beside it, and returns whether the
 * value is valid; a parent whose child failed puts the child's segment in front of the chains of
 * the issues the child added, so a valid value costs no path bookkeeping at all. A single issue
 * then only gets its path formatted; several are sorted (`_finish.ts`). Applicators that
 * only ask "does it match" (`anyOf`, `oneOf`, `not`, `if`, `contains`, `propertyNames`) call the
 * boolean functions `fN` of the fast path, as the closures call themselves with no issue list.
 *
 * Each keyword family writes its code in its own module (`_collect_type.ts`,
 * `_collect_applicator.ts`, `_collect_number.ts`, `_collect_string.ts`, `_collect_array.ts`,
 * `_collect_object.ts`); this module names the functions, reaches subschemas and writes the program.
 */
import { codePoints, findDuplicate } from "./_values.ts";
import { jsonEqual } from "./json_equal.ts";
import { type Location, RefIndex } from "./refs.ts";
import { isObject } from "../_object.ts";
import { Generator } from "./_codegen.ts";
import { type RawIssue, show, typeName } from "./_compile_context.ts";
import { type CollectSite, fseg, isLeafSchema, q } from "./_collect_context.ts";
import { collectType } from "./_collect_type.ts";
import { collectApplicators } from "./_collect_applicator.ts";
import { collectNumber } from "./_collect_number.ts";
import { collectString } from "./_collect_string.ts";
import { collectArray } from "./_collect_array.ts";
import { collectObject } from "./_collect_object.ts";
import { formatPath, formatSegment } from "./path.ts";
import { finishPaths, rawIssue } from "./_finish.ts";
import type { JsonSchema, PathSegment, SchemaIssue } from "./types.ts";

/** A generated collector: the raw issues of a value (empty when it is valid). */
export type CollectCheck = (value: unknown) => RawIssue[];

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
  #probe(
    schema: unknown,
    loc: Location,
    segs: PathSegment[],
    v: string,
    dd: string,
  ): string {
    const fn = this.#fast.fn(schema, this.#locOf(schema, loc, segs));
    return fn === "acceptAny" ? "true" : fn === "rejectAny" ? "false" : `${fn}(${v}, ${dd})`;
  }

  /**
   * An expression that collects the issues of `v` against a subschema in place (at the current
   * path and depth) and is its validity. A `false` subschema reports `falseKeyword`.
   */
  #inPlace(
    schema: unknown,
    loc: Location,
    falseKeyword: string,
    v: string,
    dd: string,
  ): string {
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
    const fn = this.cfn(schema, loc);
    return isLeafSchema(schema) ? `${fn}(${v}, ${dd}, "")` : `${fn}(${v}, ${dd})`;
  }

  /** The name of the collecting function of `schema`, generating it on first use. */
  cfn(schema: Record<string, unknown>, loc: Location): string {
    const known = this.#names.get(schema);
    if (known) return known;
    const name = `c${this.#names.size}`;
    this.#names.set(schema, name);
    const leaf = isLeafSchema(schema);
    const body = this.#body(this.#site(schema, loc, leaf ? "RS(s, " : "R("));
    this.#functions.push(
      `function ${name}(x, d${leaf ? ", s" : ""}) {\n  let ok = true;\n${body}\n  return ok;\n}`,
    );
    return name;
  }

  /** The schema object at `loc`, as its keyword families write code for it. */
  #site(s: Record<string, unknown>, loc: Location, report: string): CollectSite {
    const spath = formatPath(loc.segments);
    return {
      s,
      spath,
      formats: this.#formats,
      report,
      has: (k) => Object.hasOwn(s, k),
      kw: (k) => spath + formatSegment(k),
      constant: (value) => this.#const(value),
      probe: (schema, segs, v, dd) => this.#probe(schema, loc, segs, v, dd),
      inPlace: (schema, segs, falseKeyword, v, dd) =>
        this.#inPlace(
          schema,
          this.#locOf(schema, loc, segs),
          falseKeyword,
          v,
          dd,
        ),
      refInPlace: (ref) => {
        const target = this.#index.resolve(ref, loc);
        return target &&
          this.#inPlace(target.schema, target.location, "false", "x", "d + 1");
      },
      descend: (schema, segs, falseKeyword, v, seg, indent) => {
        const f = fseg(seg);
        // A leaf at a constant segment reports its issues there: nothing to put in front.
        if (isObject(schema) && isLeafSchema(schema) && f.startsWith('"')) {
          const fn = this.cfn(schema, this.#locOf(schema, loc, segs));
          return `${indent}if (d >= M) ok = R1("depth", DM, ${q(spath)}, ${f});\n` +
            `${indent}else if (!${fn}(${v}, d + 1, ${f})) ok = false;`;
        }
        const sub = this.#inPlace(
          schema,
          this.#locOf(schema, loc, segs),
          falseKeyword,
          v,
          "d + 1",
        );
        // The path is built only on failure: the issues the child added get its segment in front.
        return `${indent}if (d >= M) ok = R1("depth", DM, ${q(spath)}, ${f});\n` +
          `${indent}else { const e = E.length; if (!(${sub})) { ok = false; PRE(e, ${f}); } }`;
      },
    };
  }

  /** One schema object's code, by family, in the order the closures run them. */
  #body(site: CollectSite): string {
    const out = [...collectType(site), ...collectApplicators(site)];
    const numeric = collectNumber(site);
    const strings = collectString(site);
    const arrays = collectArray(site);
    const objects = collectObject(site);
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

  /**
   * The whole program: both sets of functions and the entry points. `raw`: a collector of raw
   * issues (segments, unsorted). `final`: `validate`, the boolean check first (a value it accepts
   * costs nothing more) and then the collector, whose issues come out final, and `isValid`.
   */
  program(root: JsonSchema, loc: Location, mode: "raw" | "final"): string {
    const entry = this.#inPlace(root, loc, "false", "x", "0");
    const valid = this.#probe(root, loc, [], "x", "0");
    const exits = mode === "raw"
      ? `return (x) => {
  E = NONE;
  ${entry};
  const out = E;
  E = NONE;
  return out.map((o) => RAW(o));
};`
      : `return {
  isValid: (x) => ${valid},
  validate: (x) => {
    E = NONE;
    const ok = ${entry};
    const out = E;
    if (out === NONE) return ok ? [] : NOTHING();
    E = NONE;
    if (out.length === 1) {
      out[0].path = "$" + out[0].path;
      return out;
    }
    return FIN(out);
  },
};`;
    return `"use strict";
const NONE = [];
// The issues, each in its final shape but for its path, which holds the formatted segments below
// the value (built outward as the walk unwinds, "$" put in front at the end).
let E = NONE;
const DM = "nested more than " + M + " levels deep; not validated further";
function R(keyword, message, schemaPath) {
  const issue = { path: "", keyword, message, schemaPath };
  if (E === NONE) E = [issue];
  else E.push(issue);
  return false;
}
function R1(keyword, message, schemaPath, seg) {
  const issue = { path: seg, keyword, message, schemaPath };
  if (E === NONE) E = [issue];
  else E.push(issue);
  return false;
}
function RS(seg, keyword, message, schemaPath) {
  const issue = { path: seg, keyword, message, schemaPath };
  if (E === NONE) E = [issue];
  else E.push(issue);
  return false;
}
// "property \"k\" is not allowed", kept per name: the names an agent gets wrong repeat.
const NAS = new Map();
function NA(k) {
  let m = NAS.get(k);
  if (m === undefined) {
    m = "property " + SHOW(k) + " is not allowed";
    if (NAS.size >= 256) NAS.clear();
    NAS.set(k, m);
  }
  return m;
}
function PRE(from, seg) {
  for (let i = from; i < E.length; i++) E[i].path = seg + E[i].path;
}
// An own-key test V8 folds away where it can (a key of a for-in over the object, a name its map
// has): Object.hasOwn passed in as a parameter is an opaque call each time.
const OHP = Object.prototype.hasOwnProperty;
function HAS(o, k) { return OHP.call(o, k); }
function acceptAny() { return true; }
function rejectAny() { return false; }
${this.#fast.functions()}
${this.#functions.join("\n")}
${exits}`;
  }
}

/**
 * Generates the issue collector for a schema document (raw issues: segments, unsorted), or
 * undefined where the runtime does not allow generated code.
 */
export function generateCollector(
  root: JsonSchema,
  options: { formats: boolean; maxDepth: number },
): CollectCheck | undefined {
  return generate(root, options, "raw") as CollectCheck | undefined;
}

/** What `validateSchema` runs: every issue of a value, final, and a yes or no. */
export interface GeneratedForms {
  /** The final issues (sorted, paths formatted); empty when the value is valid. */
  validate: (value: unknown) => SchemaIssue[];
  /** Whether the value is valid. */
  isValid: (value: unknown) => boolean;
}

/**
 * The forms behind `validateSchema` and `isValid`, in one generated program: `validate` runs the
 * boolean check first, and only a value it rejects is walked for its issues, which come out
 * final (a single issue needs no sort: it only gets its path). `nothing` is what `validate` says
 * when the check rejects a value in which the walk finds no issue (a bug).
 */
export function generateForms(
  root: JsonSchema,
  options: { formats: boolean; maxDepth: number; nothing: () => SchemaIssue[] },
): GeneratedForms | undefined {
  return generate(root, options, "final") as GeneratedForms | undefined;
}

function generate(
  root: JsonSchema,
  options: { formats: boolean; maxDepth: number; nothing?: () => SchemaIssue[] },
  mode: "raw" | "final",
): unknown {
  const gen = new CollectGenerator(root, options.formats);
  const index = new RefIndex(root);
  const code = gen.program(
    root,
    index.locationOf(root) ?? { base: "", segments: [] },
    mode,
  );
  let factory: (...args: unknown[]) => unknown;
  try {
    factory = new Function(
      "K",
      "M",
      "EQ",
      "CP",
      "DUP",
      "TN",
      "SHOW",
      "FS",
      "RAW",
      "FIN",
      "NOTHING",
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
    codePoints,
    findDuplicate,
    typeName,
    show,
    formatSegment,
    rawIssue,
    finishPaths,
    options.nothing,
  );
}
