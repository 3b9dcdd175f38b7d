/**
 * The soundness oracle for the change classifier: schema pairs whose edits reach the places where
 * a wider subschema can reject more (`not`, `if`, `oneOf`, `contains` with `maxContains`,
 * `propertyNames`) and where several subschemas name the same property (`allOf`, `if`/`then`,
 * `dependentSchemas`, `contains` beside `items`, `patternProperties`, `$ref` into `$defs`), and
 * values that test a claim without sharing the classifier's reasoning: json-schema-faker (an
 * independent generator from npm), this library's `arbitraryForSchema`, literals of both schemas
 * at and around their bounds, and mutations of accepted values.
 *
 * The claims checked, for `classifySchemaChange(before, after)`:
 * - `minor` or `patch`: every value `before` accepts is accepted by `after`;
 * - `patch`: `before` and `after` accept exactly the same values;
 * in both cases over values whose object members are all named at their place in `before` — the
 * contract inputs are classified under (a caller relies on the properties the schema names).
 * With `strict`, values may carry any member (the contract outputs are classified under).
 */
import fc from "fast-check";
import { generateSync } from "json-schema-faker";
import {
  classifyForMode,
  classifyOutputSchemaChange,
  classifySchemaChange,
  type JsonSchema,
  validateSchema,
} from "../mod.ts";
import { arbitraryForSchema, SchemaGenerationError } from "../testing.ts";
import {
  applyEdits,
  DEFS,
  type Edit,
  leafSchema,
  type Obj,
  OPS,
  toolSchema,
} from "./_random_schemas.ts";

// --- schemas with negative and co-located places -------------------------------------------

const NAMES = ["amount", "currency", "reference", "kind", "note"];
const VALUES: unknown[] = ["EUR", "GBP", 0, 1, 2, 2.5, -1, true, null, "", "a"];
const small = fc.constantFrom(...VALUES);

/** A subschema that accepts nothing: a const outside its own enum. */
const empty = fc.tuple(small, small).filter(([a, b]) => JSON.stringify(a) !== JSON.stringify(b))
  .map(([a, b]) => ({ const: a, enum: [b] }));

/** A leaf, sometimes one that accepts nothing. */
const leafish: fc.Arbitrary<Obj> = fc.oneof(
  { arbitrary: leafSchema, weight: 5 },
  { arbitrary: empty, weight: 1 },
  { arbitrary: fc.constant({}), weight: 1 },
);

/** Places where accepting more can reject more at the root. */
const negativePlaces: fc.Arbitrary<Obj> = fc.oneof(
  leafish.map((s) => ({ not: s })),
  fc.tuple(leafish, leafish, leafish).map(([i, t, e]) => ({ if: i, then: t, else: e })),
  fc.tuple(leafish, leafish).map(([a, b]) => ({ oneOf: [a, b] })),
  fc.tuple(leafish, fc.constantFrom(0, 1), fc.constantFrom(0, 1, 2)).map(([c, min, max]) => ({
    type: "array",
    items: { type: ["integer", "string", "null", "boolean", "number"] },
    contains: c,
    minContains: min,
    maxContains: Math.max(min, max),
    maxItems: 4,
  })),
  fc.constantFrom<Obj>(
    { maxLength: 3 },
    { enum: ["amount", "kind"] },
    { pattern: "^[a-k]+$" },
    { const: "a", enum: ["b"] },
  ).map((p) => ({ type: "object", propertyNames: p })),
  fc.constant({ not: { $ref: "#/$defs/money" } }),
);

/**
 * An object whose property `name` is also named by subschemas beside it: an `allOf` branch, a
 * `then`, a dependent schema, `contains` beside `items`, or a matching pattern.
 */
const colocated: fc.Arbitrary<Obj> = fc
  .tuple(fc.constantFrom(...NAMES), leafish, leafish, fc.nat({ max: 5 }), fc.boolean())
  .map(([name, a, b, how, required]) => {
    const base: Obj = { type: "object", properties: { [name]: a } };
    if (required) base.required = [name];
    switch (how) {
      case 0:
        return { ...base, allOf: [{ properties: { [name]: b } }] };
      case 1:
        return { type: "object", allOf: [{ properties: { [name]: a } }, { properties: {} }] };
      case 2:
        return { ...base, if: { required: ["kind"] }, then: { properties: { [name]: b } } };
      case 3:
        return { ...base, dependentSchemas: { kind: { properties: { [name]: b } } } };
      case 4:
        return {
          type: "array",
          items: { type: "object", properties: { [name]: a } },
          contains: { type: "object" },
          maxItems: 3,
        };
      default:
        return { ...base, patternProperties: { [`^${name.slice(0, 2)}`]: b } };
    }
  });

/**
 * A tool input schema with negative and co-located places among ordinary properties, sometimes
 * with `$defs` the places refer to.
 */
export const positionedSchema: fc.Arbitrary<Obj> = fc
  .tuple(
    toolSchema,
    fc.uniqueArray(
      fc.tuple(fc.constantFrom("p", "q", "r", "s"), fc.oneof(negativePlaces, colocated)),
      {
        minLength: 1,
        maxLength: 3,
        selector: ([n]) => n,
      },
    ),
    fc.option(colocated, { nil: undefined }),
    fc.constantFrom<unknown>(undefined, undefined, false, { type: "string" }),
  )
  .map(([root, extra, rootPlace, unevaluated]) => {
    const properties = { ...(root.properties as Obj), ...Object.fromEntries(extra) };
    const out: Obj = { ...root, properties, $defs: structuredClone(DEFS) };
    // What unevaluatedProperties rejects depends on every co-located subschema's evaluations.
    if (unevaluated !== undefined) out.unevaluatedProperties = unevaluated;
    if (rootPlace && rootPlace.type === "object") {
      // The root itself gets co-located subschemas (allOf, then, dependentSchemas, patterns).
      for (const [k, v] of Object.entries(rootPlace)) {
        if (k === "properties") Object.assign(properties, v as Obj);
        else if (k !== "type" && k !== "required") out[k] = v;
      }
    }
    return out;
  });

/** Edits that reach the places above; the ordinary edits reach them too. */
export const POSITION_OPS: Record<string, (s: Obj, k: number, root: Obj) => void> = {
  /** A property some other subschema names, added here. */
  addNamedElsewhere(s, k, root) {
    const named = [...namesIn(root)].filter((n) => !Object.hasOwn(s.properties as Obj ?? {}, n));
    if (!named.length) return;
    const name = named[k % named.length];
    const leaves: Obj[] = [{ type: "string" }, { type: "number" }, {}, { maximum: 0 }, {
      const: "EUR",
    }];
    s.properties = {
      ...(s.properties as Obj ?? {}),
      [name]: structuredClone(leaves[(k >> 3) % 5]),
    };
  },
  /** A subschema that accepts nothing. */
  makeEmpty(s, k) {
    for (const key of Object.keys(s)) if (key !== "$defs") delete s[key];
    s.const = VALUES[k % VALUES.length];
    s.enum = [VALUES[(k + 1) % VALUES.length]];
  },
  /** The enum beside a const removed (widens an empty subschema). */
  dropEnumBesideConst(s) {
    if ("const" in s && "enum" in s) delete s.enum;
    else if (Array.isArray(s.enum) && s.enum.length) s.const = s.enum[0];
  },
  /** Wrapped in a double negation: the same values. */
  wrapInNotNot(s) {
    const copy = structuredClone(s);
    delete copy.$defs;
    for (const key of Object.keys(s)) if (key !== "$defs") delete s[key];
    s.not = { not: copy };
  },
  /** maxContains added, loosened or removed. */
  maxContains(s, k) {
    if (!("contains" in s)) return;
    if (typeof s.maxContains === "number" && k % 2) delete s.maxContains;
    else s.maxContains = k % 3;
  },
  /** An if/then added to an object. */
  addIfThen(s, k) {
    if (s.type !== "object" || "if" in s) return;
    const names = Object.keys(s.properties as Obj ?? {});
    if (!names.length) return;
    const name = names[k % names.length];
    s.if = { required: [name] };
    s.then = { properties: { [name]: { type: k % 2 ? "string" : "number" } } };
  },
};

/** Every property name a schema names anywhere. */
function namesIn(root: unknown, out = new Set<string>()): Set<string> {
  if (Array.isArray(root)) root.forEach((x) => namesIn(x, out));
  else if (typeof root === "object" && root !== null) {
    const o = root as Obj;
    if (o.properties && typeof o.properties === "object" && !Array.isArray(o.properties)) {
      for (const k of Object.keys(o.properties)) out.add(k);
    }
    for (const v of Object.values(o)) namesIn(v, out);
  }
  return out;
}

/** Applies ordinary and positional edits (both kinds in one list) to a copy of a schema. */
export function applyPositionedEdits(
  schema: Obj,
  edits: readonly Edit[],
): { schema: Obj; ops: string[] } {
  const ordinary = Object.keys(OPS).length;
  const positional = Object.keys(POSITION_OPS);
  let copy = structuredClone(schema);
  const ops: string[] = [];
  for (const e of edits) {
    if (e.op % (ordinary + positional.length * 2) < ordinary) {
      const r = applyEdits(copy, [e]);
      copy = r.schema;
      ops.push(...r.ops);
      continue;
    }
    const name = positional[e.op % positional.length];
    const nodes = objectNodes(copy);
    for (let i = 0; i < nodes.length; i++) {
      const before = JSON.stringify(copy);
      POSITION_OPS[name](objectNodes(copy)[(e.at + i) % nodes.length], e.k, copy);
      if (JSON.stringify(copy) !== before) break;
    }
    ops.push(name);
  }
  return { schema: copy, ops };
}

/** Every subschema object, in every place a schema can hold one. */
function objectNodes(root: Obj): Obj[] {
  const out: Obj[] = [];
  const visit = (s: unknown): void => {
    if (typeof s !== "object" || s === null || Array.isArray(s)) return;
    const o = s as Obj;
    out.push(o);
    for (
      const kw of [
        "items",
        "additionalProperties",
        "not",
        "contains",
        "if",
        "then",
        "else",
        "propertyNames",
      ]
    ) {
      visit(o[kw]);
    }
    for (const kw of ["anyOf", "oneOf", "allOf", "prefixItems"]) {
      if (Array.isArray(o[kw])) (o[kw] as unknown[]).forEach(visit);
    }
    for (const kw of ["properties", "$defs", "patternProperties", "dependentSchemas"]) {
      if (o[kw] && typeof o[kw] === "object") Object.values(o[kw] as Obj).forEach(visit);
    }
  };
  visit(root);
  return out;
}

// --- values -------------------------------------------------------------------------------

/** Resolves the `#/...` references the random schemas use. */
function deref(root: Obj, s: unknown): unknown {
  if (typeof s !== "object" || s === null || typeof (s as Obj).$ref !== "string") return s;
  const ref = (s as Obj).$ref as string;
  if (!ref.startsWith("#")) return undefined;
  let node: unknown = root;
  for (const raw of ref.slice(1).split("/").filter(Boolean)) {
    const key = raw.replaceAll("~1", "/").replaceAll("~0", "~");
    node = typeof node === "object" && node !== null ? (node as Obj)[key] : undefined;
  }
  return node;
}

/** The subschemas that apply in place with these (in-place applicators and references). */
function inPlace(root: Obj, seeds: unknown[]): Obj[] {
  const out: Obj[] = [];
  const seen = new Set<unknown>();
  const visit = (s: unknown, depth: number): void => {
    if (typeof s !== "object" || s === null || Array.isArray(s) || seen.has(s) || depth > 20) {
      return;
    }
    seen.add(s);
    const o = s as Obj;
    out.push(o);
    if (typeof o.$ref === "string") visit(deref(root, o), depth + 1);
    for (const kw of ["not", "if", "then", "else"]) visit(o[kw], depth + 1);
    for (const kw of ["allOf", "anyOf", "oneOf"]) {
      if (Array.isArray(o[kw])) (o[kw] as unknown[]).forEach((x) => visit(x, depth + 1));
    }
    for (const kw of ["dependentSchemas", "dependencies"]) {
      const d = o[kw];
      if (d && typeof d === "object" && !Array.isArray(d)) {
        Object.values(d as Obj).forEach((x) => visit(x, depth + 1));
      }
    }
  };
  seeds.forEach((s) => visit(s, 0));
  return out;
}

function patternMatches(p: string, name: string): boolean {
  try {
    return new RegExp(p, "u").test(name);
  } catch {
    return true;
  }
}

/**
 * Whether every object member in `value` is named (by `properties`, `required`, the dependency
 * keywords, or a matching `patternProperties`) by some subschema of `root` that applies at its
 * place: the values a caller may send under the named-property contract.
 */
export function usesNamedMembersOnly(root: Obj, value: unknown): boolean {
  const walk = (schemas: unknown[], v: unknown, depth: number): boolean => {
    if (depth > 30) return true;
    const group = inPlace(root, schemas);
    if (Array.isArray(v)) {
      const items: unknown[] = [];
      for (const s of group) {
        for (const kw of ["items", "prefixItems", "additionalItems", "contains"]) {
          const x = s[kw];
          if (Array.isArray(x)) items.push(...x);
          else if (x !== undefined) items.push(x);
        }
      }
      return v.every((item) => walk(items, item, depth + 1));
    }
    if (typeof v !== "object" || v === null) return true;
    const names = new Set<string>();
    const patterns: string[] = [];
    for (const s of group) {
      if (s.properties && typeof s.properties === "object") {
        for (const k of Object.keys(s.properties)) names.add(k);
      }
      if (Array.isArray(s.required)) { for (const k of s.required) names.add(String(k)); }
      for (const kw of ["dependentRequired", "dependentSchemas", "dependencies"]) {
        const d = s[kw];
        if (!d || typeof d !== "object") continue;
        for (const [k, x] of Object.entries(d as Obj)) {
          names.add(k);
          if (Array.isArray(x)) { for (const y of x) names.add(String(y)); }
        }
      }
      if (s.patternProperties && typeof s.patternProperties === "object") {
        patterns.push(...Object.keys(s.patternProperties));
      }
    }
    for (const [k, x] of Object.entries(v as Obj)) {
      if (!names.has(k) && !patterns.some((p) => patternMatches(p, k))) return false;
      const children: unknown[] = [];
      for (const s of group) {
        let governed = false;
        const props = s.properties as Obj | undefined;
        if (props && Object.hasOwn(props, k)) {
          children.push(props[k]);
          governed = true;
        }
        const pats = s.patternProperties as Obj | undefined;
        for (const [p, sub] of Object.entries(pats ?? {})) {
          if (patternMatches(p, k)) {
            children.push(sub);
            governed = true;
          }
        }
        if (!governed && s.additionalProperties !== undefined) {
          children.push(s.additionalProperties);
        }
      }
      if (!walk(children, x, depth + 1)) return false;
    }
    return true;
  };
  return walk([root], value, 0);
}

/** Every literal a schema holds: bounds, enum and const values, defaults (its "boundary" pool). */
function literals(schema: unknown, out: unknown[] = []): unknown[] {
  if (Array.isArray(schema)) schema.forEach((x) => literals(x, out));
  else if (typeof schema === "object" && schema !== null) {
    for (const [k, v] of Object.entries(schema as Obj)) {
      if (k === "const") out.push(v);
      else if (k === "enum" && Array.isArray(v)) out.push(...v);
      else if (typeof v === "number") {
        if (/Length$/.test(k)) {
          out.push("x".repeat(v), "x".repeat(v + 1), "x".repeat(Math.max(0, v - 1)));
        } else if (/Items$/.test(k) || /Contains$/.test(k)) out.push(new Array(v).fill(0));
        else out.push(v, v + 1, v - 1, v + 0.5, v - 0.5, v * 2, v / 2);
      } else literals(v, out);
    }
  }
  return out;
}

const GENERIC: unknown[] = [
  0,
  1,
  -1,
  1.5,
  "",
  "EUR",
  "PMT-000123",
  "2026-11-30",
  true,
  false,
  null,
  [],
  {},
  [0],
  {
    a: 1,
  },
];

/** A small deterministic random source. */
function rng(seed: number): () => number {
  let x = (seed >>> 0) || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 2 ** 32;
  };
}

/** A copy of `v` with one random place changed: a leaf replaced, a member added or dropped, an item duplicated. */
function mutate(v: unknown, pool: unknown[], names: string[], random: () => number): unknown {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)];
  const here = (): unknown => structuredClone(pick(pool));
  if (Array.isArray(v)) {
    const out = structuredClone(v);
    const r = random();
    if (out.length && r < 0.4) {
      out[Math.floor(random() * out.length)] = mutate(out[0], pool, names, random);
    } else if (out.length && r < 0.6) out.push(structuredClone(out[0]));
    else if (out.length && r < 0.8) out.pop();
    else out.push(here());
    return out;
  }
  if (typeof v === "object" && v !== null) {
    const out = structuredClone(v) as Obj;
    const keys = Object.keys(out);
    const r = random();
    if (keys.length && r < 0.5) {
      const k = pick(keys);
      out[k] = mutate(out[k], pool, names, random);
    } else if (keys.length && r < 0.7) delete out[pick(keys)];
    else if (names.length) out[pick(names)] = here();
    return out;
  }
  return here();
}

/** How the values for one schema were found, for the run's figures. */
export interface ValueCounts {
  /** Values the caller gave (the test suite's instances). */
  given?: number;
  faker: number;
  arbitrary: number;
  mutated: number;
}

/** Whether a schema accepts a value: this library's validator unless a test sets another. */
let accepts = (schema: JsonSchema, value: unknown): boolean =>
  validateSchema(schema, value).length === 0;

/**
 * Makes the soundness checks ask `oracle` whether a schema accepts a value (an independent
 * validator, such as ajv, that enforces `unevaluated*`).
 *
 * @param oracle The validator.
 */
export function useOracle(oracle: (schema: JsonSchema, value: unknown) => boolean): void {
  accepts = oracle;
}

/**
 * Values `schema` accepts, from `extra` (values given by the caller, such as the test suite's
 * instances), json-schema-faker, `arbitraryForSchema`, literals of `schema` and `other`, and
 * mutations of those: at most `n` of each generated source, deduplicated. With `strict`, members
 * the schema does not name are kept; otherwise values must use named members only.
 */
export function acceptedValues(
  schema: Obj,
  other: Obj,
  options: {
    seed: number;
    n: number;
    strict?: boolean;
    counts?: ValueCounts;
    extra?: readonly unknown[];
    /** Decides acceptance instead of the validator set by `useOracle`. */
    oracle?: (schema: JsonSchema, value: unknown) => boolean;
  },
): unknown[] {
  const { seed, n } = options;
  const test = options.oracle ?? accepts;
  const valid = (v: unknown): boolean =>
    v !== undefined && test(schema as JsonSchema, v) &&
    (options.strict || usesNamedMembersOnly(schema, v));
  const seen = new Set<string>();
  const out: unknown[] = [];
  const add = (v: unknown, source: keyof ValueCounts): void => {
    if (!valid(v)) return;
    const key = JSON.stringify(v);
    if (seen.has(key)) return;
    seen.add(key);
    out.push(v);
    if (options.counts) options.counts[source] = (options.counts[source] ?? 0) + 1;
  };
  for (const v of options.extra ?? []) add(v, "given");
  for (let i = 0; i < n; i++) {
    try {
      add(
        generateSync(schema, {
          seed: seed + i,
          optionalsProbability: [0, 0.5, 1][i % 3],
          maxDepth: 4,
          refDepth: 2,
        }),
        "faker",
      );
    } catch {
      // json-schema-faker gives up on some schemas (contradictions, deep recursion): skip.
    }
  }
  try {
    for (
      const v of fc.sample(
        arbitraryForSchema(schema as JsonSchema, { extraProperties: options.strict }),
        { numRuns: n, seed },
      )
    ) {
      add(v, "arbitrary");
    }
  } catch (e) {
    if (!(e instanceof SchemaGenerationError)) throw e;
  }
  const pool = [...literals(schema), ...literals(other), ...GENERIC];
  const names = [...namesIn(schema), ...namesIn(other)];
  const random = rng(seed);
  const bases = out.length ? [...out] : [undefined];
  for (let i = 0; i < n * 4; i++) {
    const base = bases[i % bases.length];
    add(
      base === undefined
        ? structuredClone(pool[Math.floor(random() * pool.length)])
        : mutate(base, pool, names, random),
      "mutated",
    );
  }
  return out;
}

/** A claim the classifier made that a value disproves. */
export interface Unsound {
  bump: "patch" | "minor";
  value: unknown;
  /** `rejected`: the new schema rejects a value the old accepts; `accepted`: it accepts one the old rejects. */
  how: "rejected" | "accepted";
}

/**
 * Checks one classification against values: returns the first value that disproves it, or
 * undefined, and adds to `stats` how many values were tried. The claim is `classifyForMode`'s
 * under `mode` (default `backward`). For inputs, `backward` claims every value `before` accepts
 * (naming only members it names) is accepted by `after`, and `forward` the same from `after` to
 * `before`; for outputs (`output: true`), `backward` claims every value `after` allows was allowed
 * by `before`, members it does not name included, and `forward` the mirror. `full` claims both, and
 * a `patch` claims both under any mode. `extra` values (the test suite's instances) are tried
 * first, wherever the sending schema accepts them.
 */
export function checkClaim(
  before: Obj,
  after: Obj,
  options: {
    seed: number;
    n: number;
    output?: boolean;
    mode?: "backward" | "forward" | "full";
    extra?: readonly unknown[];
    stats?: { checked: number; counts: ValueCounts };
    /** Called with the verdict, before any value is tried. */
    onBump?: (bump: "patch" | "minor" | "major") => void;
    /** Decides acceptance instead of the validator set by `useOracle`. */
    oracle?: (schema: JsonSchema, value: unknown) => boolean;
  },
): Unsound | undefined {
  const test = options.oracle ?? accepts;
  const output = options.output ?? false;
  const mode = options.mode ?? "backward";
  const { bump } = mode === "backward"
    ? (output
      ? classifyOutputSchemaChange(before as JsonSchema, after as JsonSchema)
      : classifySchemaChange(before as JsonSchema, after as JsonSchema))
    : classifyForMode(before as JsonSchema, after as JsonSchema, { mode, output });
  options.onBump?.(bump);
  if (bump === "major") return undefined;
  const counts = options.stats?.counts;
  // The directions the claim covers: values the first schema accepts, the second must accept.
  // Inputs: what old callers send must still pass (backward). Outputs: what the new tool returns
  // must be something the old contract allowed (backward).
  const backward: [Obj, Obj, "rejected" | "accepted"] = output
    ? [after, before, "accepted"]
    : [before, after, "rejected"];
  const forward: [Obj, Obj, "rejected" | "accepted"] = output
    ? [before, after, "rejected"]
    : [after, before, "accepted"];
  const directions = bump === "patch" || mode === "full"
    ? [backward, forward]
    : mode === "forward"
    ? [forward]
    : [backward];
  let seed = options.seed;
  for (const [from, to, how] of directions) {
    // A backward patch claims the way back for inputs only for members both schemas name: a
    // caller of the old contract never sent the others.
    const namedInBoth = !output && mode === "backward" && from === after;
    const sent = acceptedValues(from, to, {
      seed: seed++,
      n: options.n,
      strict: output,
      counts,
      extra: options.extra,
      oracle: options.oracle,
    }).filter((v) => !namedInBoth || usesNamedMembersOnly(before, v));
    if (options.stats) options.stats.checked += sent.length;
    for (const value of sent) {
      if (!test(to as JsonSchema, value)) return { bump, value, how };
    }
  }
  return undefined;
}

/**
 * Values near a schema, valid or not: what json-schema-faker and `arbitraryForSchema` generate for
 * it, and mutations of those — for tests that need invalid values deep inside valid ones.
 */
export function nearValues(schema: Obj, seed: number, n = 3): unknown[] {
  const out: unknown[] = [];
  for (let i = 0; i < n; i++) {
    try {
      out.push(generateSync(schema, { seed: seed + i, maxDepth: 4, refDepth: 2 }));
    } catch {
      // json-schema-faker gives up on some schemas: skip.
    }
  }
  try {
    out.push(...fc.sample(arbitraryForSchema(schema as JsonSchema, { extraProperties: true }), {
      numRuns: n,
      seed,
    }));
  } catch (e) {
    if (!(e instanceof SchemaGenerationError)) throw e;
  }
  const pool = [...literals(schema), ...GENERIC];
  const names = [...namesIn(schema)];
  const random = rng(seed);
  const bases = out.filter((v) => v !== undefined);
  for (let i = 0; i < n * 3 && bases.length; i++) {
    out.push(mutate(bases[i % bases.length], pool, names, random));
  }
  return out.filter((v) => v !== undefined);
}
