/**
 * Evidence for a breaking verdict: a value one schema accepts and the other rejects — for an
 * input change, a call the old contract took that the new one refuses. Real stored calls are tried
 * first; else values made from the accepting schema (its `enum`, `const`, `default` and
 * `examples`, its bounds, its formats, each optional property in turn), so the evidence is a
 * concrete value, never a claim. Every witness is checked by the validator before it is returned.
 * Bounded: at most `maxCandidates` made values and `maxStored` stored values are tried.
 *
 * @module
 */
import { isObject } from "../_object.ts";
import { createRefResolver, type RefResolver } from "../schema/resolve.ts";
import type { JsonSchema, PathSegment, SchemaIssue } from "../schema/types.ts";
import { parsePath } from "../schema/path.ts";
import { compileSchema } from "../schema/validate.ts";
import { UNSUPPORTED_KEYWORDS } from "../schema/keywords.ts";
import { checkSchema } from "../schema/check.ts";

/** A value one schema accepts and the other rejects. */
export interface Witness<T = unknown> {
  /** The value. */
  value: unknown;
  /** Where it came from: one of the candidates given (e.g. a stored call), or made here. */
  source: "candidate" | "generated";
  /** For a candidate: the candidate as given (a stored call, say). */
  candidate?: T;
  /** Why the rejecting schema rejects it: its first issue. */
  rejection: SchemaIssue;
}

/** Options for {@linkcode findWitness}. */
export interface FindWitnessOptions<T> {
  /** Values to try first, e.g. stored calls (`valueOf` picks the value). */
  candidates?: Iterable<T>;
  /** The value of a candidate. Default: the candidate itself. */
  valueOf?: (candidate: T) => unknown;
  /** How many candidates to try at most. Default 10,000. */
  maxStored?: number;
  /** How many made values to try at most. Default 5,000. */
  maxCandidates?: number;
  /**
   * Where in `accepting` the difference is (`$`-paths of schema nodes, e.g. the classifier's
   * major changes): values are made there first, inside an otherwise accepted value.
   */
  at?: readonly string[];
}

/**
 * A value `accepting` accepts and `rejecting` rejects: the first candidate that is one, else the
 * first made value that is one; `undefined` when none was found within the bounds (which proves
 * nothing: the verdict stands, without evidence).
 *
 * @param accepting The schema the value must satisfy (for an input change: the old one).
 * @param rejecting The schema that must reject it (for an input change: the new one).
 * @param options Candidates to try first, and the bounds.
 * @returns The witness, checked by the validator.
 *
 * @example
 * ```ts
 * import { findWitness } from "@tool-estate/core";
 * import assert from "node:assert/strict";
 * const v1 = { type: "object", properties: { currency: { enum: ["EUR", "GBP"] } } };
 * const v2 = { type: "object", properties: { currency: { enum: ["EUR"] } } };
 * const w = findWitness(v1, v2)!;
 * assert.deepEqual(w.value, { currency: "GBP" });
 * assert.equal(w.rejection.path, "$.currency");
 * ```
 */
export function findWitness<T = unknown>(
  accepting: JsonSchema,
  rejecting: JsonSchema,
  options: FindWitnessOptions<T> = {},
): Witness<T> | undefined {
  // Evidence is what the validator decides: where a schema uses a keyword it does not enforce
  // (`unevaluatedProperties`, …), its yes or no is not the schema's, and nothing is shown.
  if (!enforcesAll(accepting) || !enforcesAll(rejecting)) return undefined;
  const accepts = compileSchema(accepting);
  const rejects = compileSchema(rejecting);
  const valueOf = options.valueOf ?? ((c: T) => c as unknown);
  let tried = 0;
  for (const candidate of options.candidates ?? []) {
    if (tried++ >= (options.maxStored ?? 10_000)) break;
    const value = valueOf(candidate);
    if (accepts.isValid(value) && !rejects.isValid(value)) {
      return {
        value,
        source: "candidate",
        candidate,
        rejection: rejects(value)[0],
      };
    }
  }
  const made = new Values(accepting, options.maxCandidates ?? 5_000);
  const targeted = function* (): Generator<unknown> {
    for (const at of options.at ?? []) yield* made.at(accepting, at);
  };
  try {
    for (const value of chain(targeted(), made.of(accepting, 0))) {
      if (made.exhausted()) break;
      if (accepts.isValid(value) && !rejects.isValid(value)) {
        return { value, source: "generated", rejection: rejects(value)[0] };
      }
    }
  } catch (e) {
    // Making values for a deeply recursive schema can take long: past its work, no evidence.
    if (!(e instanceof OutOfWork)) throw e;
  }
  return undefined;
}

/** Thrown when making values took more steps than {@linkcode MAX_WORK}. */
class OutOfWork extends Error {}

/**
 * The most steps (values made at any depth, inner ones included) one search may take: made values
 * of a recursive schema nest, so counting only the values tried would not bound the work.
 */
const MAX_WORK = 200_000;

const UNSUPPORTED = new Set(UNSUPPORTED_KEYWORDS);

function enforcesAll(schema: JsonSchema): boolean {
  return !checkSchema(schema).some((issue) => UNSUPPORTED.has(issue.keyword));
}

function* chain<T>(...gens: Iterable<T>[]): Generator<T> {
  for (const g of gens) yield* g;
}

const FORMAT_SAMPLES: Record<string, string[]> = {
  date: ["2026-11-12"],
  "date-time": ["2026-11-12T09:30:00Z"],
  time: ["09:30:00Z"],
  email: ["user@example.com"],
  uri: ["https://example.com/a"],
  "uri-reference": ["/a"],
  uuid: ["3f2504e0-4f89-41d3-9a0c-0305e82c3301"],
  ipv4: ["192.0.2.1"],
  ipv6: ["2001:db8::1"],
  hostname: ["example.com"],
};

const MAX_DEPTH = 6;

/** How many values of one property (or item) an object (or array) is tried with. */
const VARIANTS = 40;

/** Makes values for a schema, deterministically, up to a count. */
class Values {
  readonly #resolve: RefResolver;
  readonly #max: number;
  #count = 0;
  #work = 0;
  readonly #firsts = new Map<JsonSchema, Map<number, unknown>>();

  readonly #root: JsonSchema;

  constructor(root: JsonSchema, max: number) {
    this.#resolve = createRefResolver(root);
    this.#root = root;
    this.#max = max;
  }

  exhausted(): boolean {
    return this.#count++ >= this.#max;
  }

  /** Counts one step of work; throws {@linkcode OutOfWork} past {@linkcode MAX_WORK}. */
  #step(): void {
    if (++this.#work > MAX_WORK) throw new OutOfWork();
  }

  /** Every value to try for a subschema: its own literals first, then by type. */
  *of(schema0: JsonSchema, depth: number): Generator<unknown> {
    for (const v of this.#of(schema0, depth)) {
      this.#step();
      yield v;
    }
  }

  *#of(schema0: JsonSchema, depth: number): Generator<unknown> {
    const schema = this.#resolve(schema0);
    if (schema === true || schema === undefined) {
      yield* ["x", 0, true, null, {}, []];
      return;
    }
    if (!isObject(schema)) return;
    if ("const" in schema) yield schema.const;
    if (Array.isArray(schema.enum)) yield* schema.enum;
    if ("default" in schema) yield schema.default;
    if (Array.isArray(schema.examples)) yield* schema.examples;
    if (depth > MAX_DEPTH) return;
    for (const key of ["anyOf", "oneOf"] as const) {
      if (Array.isArray(schema[key])) {
        for (const branch of schema[key] as JsonSchema[]) {
          yield* this.of(branch, depth + 1);
        }
      }
    }
    if (Array.isArray(schema.allOf)) {
      for (const part of schema.allOf as JsonSchema[]) {
        yield* this.of(part, depth + 1);
      }
    }
    const types = Array.isArray(schema.type)
      ? schema.type as string[]
      : typeof schema.type === "string"
      ? [schema.type]
      : guessTypes(schema);
    for (const type of types) yield* this.ofType(type, schema, depth);
  }

  *ofType(
    type: string,
    s: Record<string, unknown>,
    depth: number,
  ): Generator<unknown> {
    switch (type) {
      case "string":
        yield* strings(s);
        return;
      case "integer":
      case "number":
        yield* numbers(s, type === "integer");
        return;
      case "boolean":
        yield* [true, false];
        return;
      case "null":
        yield null;
        return;
      case "array":
        yield* this.arrays(s, depth);
        return;
      case "object":
        yield* this.objects(s, depth);
        return;
    }
  }

  readonly #checks = new Map<JsonSchema, (v: unknown) => boolean>();

  /** The first value of a schema's own keywords, without its `allOf`. */
  #ownFirst(schema: Record<string, unknown>, depth: number): unknown {
    const { allOf: _, ...own } = schema;
    return this.first(own, depth);
  }

  /**
   * Whether a subschema accepts a value, when that can be told on its own (a subschema with a
   * `$ref` in it is not compiled apart from its root: anything passes here, the root decides).
   */
  accepts(schema: JsonSchema, value: unknown): boolean {
    let check = this.#checks.get(schema);
    if (!check) {
      check = this.#checkOf(schema);
      this.#checks.set(schema, check);
    }
    return check(value);
  }

  #checkOf(schema: JsonSchema): (v: unknown) => boolean {
    const root = this.#root;
    let standalone: JsonSchema = schema;
    if (schema !== root && JSON.stringify(schema ?? null).includes('"$ref"')) {
      // Its references to the root's definitions resolve beside it; any other makes it unknown.
      if (!isObject(root) || !(isObject(root.$defs) || isObject(root.definitions))) {
        return () => true;
      }
      standalone = {
        ...(isObject(root.$defs) ? { $defs: root.$defs } : {}),
        ...(isObject(root.definitions) ? { definitions: root.definitions } : {}),
        allOf: [schema],
      };
    }
    try {
      const compiled = compileSchema(standalone);
      compiled.isValid(null);
      return (v) => compiled.isValid(v);
    } catch {
      return () => true;
    }
  }

  /**
   * The first value a subschema's generator gives that it accepts (`null` when none does); made
   * once per subschema and depth.
   */
  first(schema: JsonSchema, depth: number): unknown {
    let byDepth = this.#firsts.get(schema);
    if (!byDepth) this.#firsts.set(schema, byDepth = new Map());
    if (byDepth.has(depth)) return structuredClone(byDepth.get(depth));
    const found = this.#first(schema, depth);
    byDepth.set(depth, found);
    return structuredClone(found);
  }

  #first(schema: JsonSchema, depth: number): unknown {
    let fallback: unknown = null, n = 0;
    for (const v of this.of(schema, depth + 1)) {
      if (n++ === 0) fallback = v;
      if (this.accepts(schema, v)) return v;
      if (n >= 200) break;
    }
    return fallback;
  }

  /**
   * Values that differ at one schema node: an accepted value of the root with, at the instance
   * place that node governs, each value made for that node.
   */
  *at(root: JsonSchema, schemaPath: string): Generator<unknown> {
    let segments: PathSegment[];
    try {
      segments = parsePath(schemaPath);
    } catch {
      return;
    }
    // The instance path, and the subschema governing it, along the schema path.
    const instance: PathSegment[] = [];
    let sub: JsonSchema = this.#resolve(root);
    for (let i = 0; i < segments.length; i++) {
      if (!isObject(sub)) break;
      const k = segments[i];
      const next = segments[i + 1];
      if (k === "properties" && typeof next === "string" && isObject(sub.properties)) {
        instance.push(next);
        sub = this.#resolve((sub.properties as Record<string, JsonSchema>)[next]);
        i++;
      } else if (k === "items" && sub.items !== undefined && !Array.isArray(sub.items)) {
        instance.push(Array.isArray(sub.prefixItems) ? sub.prefixItems.length : 0);
        sub = this.#resolve(sub.items as JsonSchema);
      } else if (
        k === "prefixItems" && typeof next === "number" && Array.isArray(sub.prefixItems)
      ) {
        instance.push(next);
        sub = this.#resolve(sub.prefixItems[next] as JsonSchema);
        i++;
      } else if (k === "additionalProperties" && sub.additionalProperties !== undefined) {
        instance.push("extra");
        sub = this.#resolve(sub.additionalProperties as JsonSchema);
      } else if (
        (k === "anyOf" || k === "oneOf" || k === "allOf") && typeof next === "number" &&
        Array.isArray(sub[k])
      ) {
        sub = this.#resolve((sub[k] as JsonSchema[])[next]);
        i++;
      } else break;
    }
    const base = this.first(root, 0);
    const current = valueAt(base, instance);
    let n = 0;
    for (const v of this.of(sub, 0)) {
      // An object keeps what the rest of the schema asked of the place (the other `allOf` parts).
      const copy = place(
        base,
        instance,
        isObject(v) && isObject(current) ? { ...current, ...v } : v,
      );
      if (copy !== undefined) yield copy;
      if (++n >= 200) break;
    }
  }

  *objects(s: Record<string, unknown>, depth: number): Generator<unknown> {
    const props = isObject(s.properties) ? s.properties as Record<string, JsonSchema> : {};
    const required = Array.isArray(s.required) ? s.required as string[] : [];
    const base: Record<string, unknown> = {};
    for (const name of required) {
      base[name] = this.first(props[name] ?? true, depth);
    }
    yield { ...base };
    // Each property in turn, with each value its schema gives; then everything at once.
    for (const [name, sub] of Object.entries(props)) {
      let n = 0;
      for (const v of this.of(sub, depth + 1)) {
        yield { ...base, [name]: v };
        if (++n >= VARIANTS) break;
      }
    }
    const all = { ...base };
    for (const [name, sub] of Object.entries(props)) {
      all[name] = this.first(sub, depth);
    }
    yield all;
    if (s.additionalProperties !== false && s.unevaluatedProperties !== false) {
      for (const v of ["x", 1, true, null, {}, []]) yield { ...base, extra: v };
    }
  }

  *arrays(s: Record<string, unknown>, depth: number): Generator<unknown> {
    const items = (s.items ?? true) as JsonSchema;
    const prefix = Array.isArray(s.prefixItems) ? s.prefixItems as JsonSchema[] : [];
    const head = prefix.map((p) => this.first(p, depth));
    const min = typeof s.minItems === "number" ? s.minItems : 0;
    yield head.length >= min ? head : [...head, ...Array(min - head.length).fill(null)];
    let n = 0;
    for (const v of this.of(items, depth + 1)) {
      const arr = [...head, v];
      while (arr.length < min) arr.push(v);
      yield arr;
      if (++n >= VARIANTS) break;
    }
  }
}

function guessTypes(s: Record<string, unknown>): string[] {
  if ("properties" in s || "required" in s || "additionalProperties" in s) {
    return ["object"];
  }
  if ("items" in s || "prefixItems" in s) return ["array"];
  if ("pattern" in s || "minLength" in s || "maxLength" in s || "format" in s) {
    return ["string"];
  }
  if ("minimum" in s || "maximum" in s || "multipleOf" in s) return ["number"];
  return ["string", "integer", "number", "boolean", "null", "object", "array"];
}

function* strings(s: Record<string, unknown>): Generator<string> {
  if (typeof s.format === "string") yield* FORMAT_SAMPLES[s.format] ?? [];
  if (typeof s.pattern === "string") {
    const sample = patternSample(s.pattern);
    if (sample !== undefined) yield sample;
  }
  const min = typeof s.minLength === "number" ? s.minLength : 0;
  const max = typeof s.maxLength === "number" ? s.maxLength : Infinity;
  for (const n of [min, Math.max(min, 1), Math.min(max, min + 8), max]) {
    if (Number.isFinite(n) && n <= 10_000) yield "a".repeat(n);
  }
  yield* ["example", "EUR", "ABC-123", "0", "x y"];
  if (Number.isFinite(max) && max < 10_000) yield "a".repeat(max + 1);
}

function* numbers(
  s: Record<string, unknown>,
  integer: boolean,
): Generator<number> {
  const out: number[] = [0, 1, -1, 10, 100, 1_000_000];
  for (
    const k of ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"]
  ) {
    const v = s[k];
    if (typeof v === "number") out.push(v, v + 1, v - 1);
  }
  if (typeof s.multipleOf === "number") {
    out.push(s.multipleOf, 2 * s.multipleOf);
  }
  if (!integer) out.push(0.5, 1.25, 0.001, 1 / 3);
  yield* out;
}

/**
 * A string a simple pattern matches: literals, escapes (`\\d`, `\\w`, `\\s`, `\\.`), classes
 * (`[A-Z0-9_-]`) and quantifiers (`?`, `*`, `+`, `{n}`, `{n,m}`), anchored or not; `undefined` for
 * anything else (groups, alternation, lookaround). The validator checks it before it is used.
 */
export function patternSample(pattern: string): string | undefined {
  let out = "";
  let i = pattern.startsWith("^") ? 1 : 0;
  const end = pattern.endsWith("$") && !pattern.endsWith("\\$")
    ? pattern.length - 1
    : pattern.length;
  while (i < end) {
    let atom: string;
    const c = pattern[i];
    if (c === "\\") {
      const e = pattern[i + 1];
      atom = e === "d"
        ? "1"
        : e === "w"
        ? "a"
        : e === "s"
        ? " "
        : /[A-Za-z]/.test(e ?? "")
        ? ""
        : e ?? "";
      if (atom === "" && e !== undefined) return undefined;
      i += 2;
    } else if (c === "[") {
      const close = pattern.indexOf("]", i + 1);
      if (close < 0 || pattern[i + 1] === "^") return undefined;
      const body = pattern.slice(i + 1, close).replace(/^\\/, "");
      atom = body[0] === "\\" ? (body[1] === "d" ? "1" : body[1] === "w" ? "a" : body[1]) : body[0];
      if (atom === undefined) return undefined;
      i = close + 1;
    } else if ("()|".includes(c)) {
      return undefined;
    } else {
      atom = c === "." ? "a" : c;
      i++;
    }
    const q = /^(\?|\*|\+|\{(\d+)(?:,(\d*))?\})/.exec(pattern.slice(i, end));
    let times = 1;
    if (q) {
      times = q[1] === "?" || q[1] === "*" ? 0 : q[1] === "+" ? 1 : Number(q[2]);
      i += q[1].length;
    }
    out += atom.repeat(times);
  }
  return out;
}

/** A copy of `base` with `value` at `path` (containers made as needed); `undefined` if impossible. */
function place(base: unknown, path: readonly PathSegment[], value: unknown): unknown {
  if (path.length === 0) return value;
  const [head, ...rest] = path;
  if (typeof head === "number") {
    const arr = Array.isArray(base) ? [...base] : [];
    while (arr.length < head) arr.push(arr[0] ?? null);
    arr[head] = place(arr[head], rest, value);
    return arr;
  }
  const obj = isObject(base) ? { ...base } : {};
  obj[head] = place(obj[head], rest, value);
  return obj;
}

function valueAt(value: unknown, path: readonly PathSegment[]): unknown {
  let v = value;
  for (const seg of path) {
    if (typeof seg === "number") v = Array.isArray(v) ? v[seg] : undefined;
    else v = isObject(v) ? v[seg] : undefined;
  }
  return v;
}
