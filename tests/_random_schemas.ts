/**
 * Random tool schemas and random edits to them, for the property tests of the change classifier
 * and the value generator. The schemas look like real tool input schemas (objects of strings,
 * amounts, enums, arrays, nested objects, unions and `$ref`s) and are satisfiable by construction,
 * with a few deliberate exceptions that the generator must report rather than loop on.
 */
import fc from "fast-check";

export type Obj = Record<string, unknown>;

const NAMES = [
  "amount",
  "currency",
  "reference",
  "iban",
  "note",
  "tags",
  "legs",
  "kind",
  "limit",
];
const PATTERNS = [
  "^[A-Z]{3}$",
  "^[a-z0-9]+$",
  "^PMT-[0-9]{3,6}$",
  "[0-9]",
  "^[A-Z]{2}[0-9]{2}",
];
const FORMATS = [
  "date",
  "date-time",
  "email",
  "uuid",
  "uri",
  "ipv4",
  "ipv6",
  "hostname",
  "time",
];
const VALUES: unknown[] = [
  "EUR",
  "GBP",
  "USD",
  "CHF",
  0,
  1,
  2.5,
  true,
  false,
  null,
  "",
  { a: 1 },
];

function clean(o: Obj): Obj {
  return Object.fromEntries(
    Object.entries(o).filter(([, v]) => v !== undefined),
  );
}

const maybe = <T>(a: fc.Arbitrary<T>): fc.Arbitrary<T | undefined> =>
  fc.option(a, { nil: undefined, freq: 2 });

/** A string schema: lengths, or a pattern, or a format (never two of them, so it is satisfiable). */
export const stringSchema: fc.Arbitrary<Obj> = fc.oneof(
  fc.tuple(
    maybe(fc.integer({ min: 0, max: 3 })),
    maybe(fc.integer({ min: 0, max: 8 })),
  ).map((
    [min, extra],
  ) =>
    clean({
      type: "string",
      minLength: min,
      maxLength: extra === undefined ? undefined : (min ?? 0) + extra,
    })
  ),
  fc.constantFrom(...PATTERNS).map((pattern) => ({ type: "string", pattern })),
  fc.constantFrom(...FORMATS).map((format) => ({ type: "string", format })),
);

/** An integer schema with a non-empty range (inclusive or exclusive ends) and maybe a multipleOf. */
export const integerSchema: fc.Arbitrary<Obj> = fc
  .tuple(
    maybe(fc.integer({ min: -50, max: 50 })),
    maybe(fc.integer({ min: 12, max: 200 })),
    fc.boolean(),
    fc.boolean(),
    maybe(fc.constantFrom(2, 5, 10)),
  )
  .map(([lo, width, exLo, exHi, m]) =>
    clean({
      type: "integer",
      [exLo ? "exclusiveMinimum" : "minimum"]: lo,
      [exHi ? "exclusiveMaximum" : "maximum"]: width === undefined ? undefined : (lo ?? 0) + width,
      multipleOf: m,
    })
  );

/** A number schema: an amount with two decimals, a rate, or any number. */
export const numberSchema: fc.Arbitrary<Obj> = fc
  .tuple(
    maybe(fc.constantFrom(0, -1, 0.5, 10)),
    maybe(fc.constantFrom(1, 100, 1e6)),
    fc.boolean(),
    maybe(fc.constantFrom(0.01, 0.5, 0.25)),
  )
  .map(([lo, width, exclusive, m]) =>
    clean({
      type: "number",
      [exclusive ? "exclusiveMinimum" : "minimum"]: lo,
      maximum: width === undefined ? undefined : (lo ?? 0) + width,
      multipleOf: m,
    })
  );

/** An enum (sometimes typed), a const, a boolean or a null. */
export const choiceSchema: fc.Arbitrary<Obj> = fc.oneof(
  fc.uniqueArray(fc.constantFrom(...VALUES), {
    minLength: 1,
    maxLength: 4,
    selector: (v) => JSON.stringify(v),
  })
    .map((values) => ({ enum: values })),
  fc.uniqueArray(fc.constantFrom("EUR", "GBP", "USD", "CHF"), {
    minLength: 1,
    maxLength: 4,
  })
    .map((values) => ({ type: "string", enum: values })),
  fc.constantFrom(...VALUES).map((v) => ({ const: v })),
  fc.constant({ type: "boolean" }),
  fc.constant({ type: "null" }),
);

/** A leaf: a schema with no subschemas. */
export const leafSchema: fc.Arbitrary<Obj> = fc.oneof(
  { arbitrary: stringSchema, weight: 3 },
  { arbitrary: integerSchema, weight: 2 },
  { arbitrary: numberSchema, weight: 2 },
  { arbitrary: choiceSchema, weight: 2 },
);

function objectOf(sub: fc.Arbitrary<Obj>): fc.Arbitrary<Obj> {
  return fc
    .tuple(
      fc.uniqueArray(fc.tuple(fc.constantFrom(...NAMES), sub), {
        minLength: 1,
        maxLength: 4,
        selector: ([n]) => n,
      }),
      fc.array(fc.boolean(), { minLength: 4, maxLength: 4 }),
      fc.constantFrom<unknown>(undefined, undefined, false, true, {
        type: "string",
      }),
    )
    .map(([entries, req, additional]) =>
      clean({
        type: "object",
        properties: Object.fromEntries(entries),
        required: entries.map(([n]) => n).filter((_, i) => req[i]),
        additionalProperties: additional,
      })
    );
}

function arrayOf(sub: fc.Arbitrary<Obj>): fc.Arbitrary<Obj> {
  return fc
    .tuple(
      sub,
      maybe(fc.integer({ min: 0, max: 1 })),
      maybe(fc.integer({ min: 1, max: 4 })),
      fc.boolean(),
    )
    .map(([items, min, max, unique]) =>
      clean({
        type: "array",
        items,
        minItems: min,
        maxItems: max,
        // Unique items only over an open string schema, where duplicates are rare.
        uniqueItems: unique && items.type === "string" && !items.pattern && !items.format
          ? true
          : undefined,
      })
    );
}

/** A oneOf whose branches are disjoint: different types, or a `kind` discriminator. */
const oneOfSchema: fc.Arbitrary<Obj> = fc.oneof(
  fc.tuple(stringSchema, integerSchema).map(([a, b]) => ({ oneOf: [a, b] })),
  fc.tuple(
    stringSchema,
    fc.constant({ type: "boolean" }),
    fc.constant({ type: "null" }),
  ).map((
    bs,
  ) => ({ oneOf: bs })),
  fc.tuple(leafSchema, leafSchema).map(([a, b]) => ({
    oneOf: [
      {
        type: "object",
        properties: { kind: { const: "sepa" }, iban: a },
        required: ["kind", "iban"],
      },
      {
        type: "object",
        properties: { kind: { const: "swift" }, bic: b },
        required: ["kind"],
      },
    ],
  })),
);

/** The `$defs` every random root carries: a money object and a recursive tree node. */
export const DEFS: Obj = {
  money: {
    type: "object",
    properties: {
      amount: { type: "number", exclusiveMinimum: 0, multipleOf: 0.01 },
      currency: { enum: ["EUR", "GBP", "USD"] },
    },
    required: ["amount", "currency"],
  },
  node: {
    type: "object",
    properties: {
      name: { type: "string", maxLength: 8 },
      children: { type: "array", items: { $ref: "#/$defs/node" }, maxItems: 2 },
    },
    required: ["name"],
  },
};

const { schema: nested } = fc.letrec<{ schema: Obj }>((tie) => ({
  schema: fc.oneof(
    { depthSize: "small", maxDepth: 3 },
    { arbitrary: leafSchema, weight: 6 },
    { arbitrary: objectOf(tie("schema")), weight: 2 },
    { arbitrary: arrayOf(tie("schema")), weight: 2 },
    {
      arbitrary: fc.tuple(tie("schema"), tie("schema")).map(([a, b]) => ({
        anyOf: [a, b],
      })),
      weight: 1,
    },
    { arbitrary: oneOfSchema, weight: 1 },
    {
      arbitrary: fc.tuple(objectOf(leafSchema), objectOf(leafSchema)).map(
        ([a, b]) => {
          // Branches that name different properties, as when a schema is assembled from parts.
          const taken = Object.keys(a.properties as Obj);
          const props = Object.entries(b.properties as Obj).filter(([n]) => !taken.includes(n));
          const second = {
            type: "object",
            properties: Object.fromEntries(props),
            required: (b.required as string[]).filter((n) => !taken.includes(n)),
          };
          return {
            allOf: [clean({ ...a, additionalProperties: undefined }), second],
          };
        },
      ),
      weight: 1,
    },
    {
      arbitrary: fc.constantFrom({ $ref: "#/$defs/money" }, {
        $ref: "#/$defs/node",
      }),
      weight: 1,
    },
  ),
}));

/** A tool input schema: a root object of random properties, with `$defs`. */
export const toolSchema: fc.Arbitrary<Obj> = fc
  .tuple(objectOf(nested), fc.boolean())
  .map((
    [root, withDefs],
  ) => (withDefs ? { ...root, $defs: structuredClone(DEFS) } : root))
  .map((root) =>
    // A root without $defs cannot keep $refs: point them at an inline copy instead.
    "$defs" in root ? root : JSON.parse(
      JSON.stringify(root).replaceAll(
        '{"$ref":"#/$defs/money"}',
        JSON.stringify(DEFS.money),
      )
        .replaceAll(
          '{"$ref":"#/$defs/node"}',
          '{"type":"object","properties":{"name":{"type":"string"}}}',
        ),
    )
  );

// --- edits --------------------------------------------------------------------------------

/** Every object subschema of a schema, including `$defs` entries (mutable, in place). */
export function subschemas(root: Obj): Obj[] {
  const out: Obj[] = [];
  const visit = (s: unknown): void => {
    if (typeof s !== "object" || s === null || Array.isArray(s)) return;
    const o = s as Obj;
    out.push(o);
    for (const kw of ["items", "additionalProperties", "not", "contains"]) {
      visit(o[kw]);
    }
    for (const kw of ["anyOf", "oneOf", "allOf", "prefixItems"]) {
      if (Array.isArray(o[kw])) (o[kw] as unknown[]).forEach(visit);
    }
    for (const kw of ["properties", "$defs", "patternProperties"]) {
      if (o[kw] && typeof o[kw] === "object") {
        Object.values(o[kw] as Obj).forEach(visit);
      }
    }
  };
  visit(root);
  return out;
}

type Op = (s: Obj, k: number, root: Obj) => void;

const pick = <T>(xs: readonly T[], k: number): T => xs[k % xs.length];
const NUMERIC_BOUNDS = [
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
];
const BOUNDS: Record<string, string[]> = {
  integer: NUMERIC_BOUNDS,
  number: NUMERIC_BOUNDS,
  string: ["minLength", "maxLength"],
  array: ["minItems", "maxItems"],
  object: ["minProperties", "maxProperties"],
};

/** The bound keywords that apply to a subschema's type. */
const boundsOf = (
  s: Obj,
): string[] => (typeof s.type === "string" ? BOUNDS[s.type] ?? [] : []);

const LEAVES: Obj[] = [
  { type: "string" },
  { type: "integer", minimum: 0 },
  { type: "number" },
  { enum: ["EUR", "GBP"] },
  { type: "boolean" },
  { type: "string", format: "date" },
  {},
];

/** A fresh copy of one of the leaves edits insert. */
const leaf = (k: number): Obj => structuredClone(pick(LEAVES, k));

/** Edits to one subschema, about half of them widening. Each mutates in place. */
export const OPS: Record<string, Op> = {
  addOptionalProperty(s, k) {
    s.properties = {
      ...(s.properties as Obj ?? {}),
      [`${pick(NAMES, k)}_new`]: leaf(k >> 3),
    };
  },
  addRequiredProperty(s, k) {
    const name = `${pick(NAMES, k)}_req`;
    s.properties = { ...(s.properties as Obj ?? {}), [name]: leaf(k >> 3) };
    s.required = [...(s.required as string[] ?? []), name];
  },
  removeProperty(s, k) {
    const names = Object.keys(s.properties as Obj ?? {});
    if (!names.length) return;
    const name = pick(names, k);
    delete (s.properties as Obj)[name];
    if (Array.isArray(s.required)) {
      s.required = s.required.filter((r) => r !== name);
    }
  },
  makeRequired(s, k) {
    const names = Object.keys(s.properties as Obj ?? {});
    if (names.length) {
      s.required = [
        ...new Set([...(s.required as string[] ?? []), pick(names, k)]),
      ];
    }
  },
  makeOptional(s, k) {
    if (Array.isArray(s.required) && s.required.length) {
      const name = pick(s.required, k);
      s.required = s.required.filter((r) => r !== name);
    }
  },
  reorderRequired(s) {
    if (Array.isArray(s.required)) s.required = [...s.required].reverse();
  },
  enumAdd(s, k) {
    if (Array.isArray(s.enum)) {
      const v = pick(VALUES, k);
      if (!s.enum.some((x) => JSON.stringify(x) === JSON.stringify(v))) {
        s.enum = [...s.enum, v];
      }
    }
  },
  enumRemove(s, k) {
    if (Array.isArray(s.enum) && s.enum.length > 1) {
      s.enum = s.enum.filter((_, i) => i !== k % (s.enum as []).length);
    }
  },
  enumReorder(s) {
    if (Array.isArray(s.enum)) s.enum = [...s.enum].reverse();
  },
  constChange(s, k) {
    if ("const" in s) s.const = pick(VALUES, k);
  },
  constRemove(s) {
    delete s.const;
  },
  integerToNumber(s) {
    if (s.type === "integer") s.type = "number";
  },
  numberToInteger(s) {
    if (s.type === "number") s.type = "integer";
  },
  addNullType(s) {
    if (typeof s.type === "string") s.type = [s.type, "null"];
  },
  removeType(s) {
    if (Array.isArray(s.type) && s.type.length > 1) s.type = s.type.slice(1);
    else delete s.type;
  },
  setType(s, k) {
    s.type = pick([
      "string",
      "integer",
      "number",
      "object",
      "array",
      "boolean",
      "null",
    ], k);
  },
  boundRemove(s, k) {
    const present = boundsOf(s).filter((kw) => typeof s[kw] === "number");
    if (present.length) delete s[pick(present, k)];
  },
  boundLoosen(s, k) {
    const present = boundsOf(s).filter((kw) => typeof s[kw] === "number");
    if (!present.length) return;
    const kw = pick(present, k);
    const v = s[kw] as number, d = (k >> 4) % 3 + 1;
    s[kw] = kw.startsWith("min") || kw === "exclusiveMinimum" ? Math.max(0, v - d) : v + d;
  },
  boundTighten(s, k) {
    const kws = boundsOf(s);
    if (!kws.length) return;
    const kw = pick(kws, k), d = (k >> 4) % 3 + 1;
    const isLower = (x: string) => x.startsWith("min") || x === "exclusiveMinimum";
    const counts = !NUMERIC_BOUNDS.includes(kw);
    if (typeof s[kw] === "number") {
      const v = s[kw] as number;
      s[kw] = isLower(kw) ? v + d : counts ? Math.max(0, v - d) : v - d;
      return;
    }
    // A new bound near the opposite one (or near 0), so that it rejects some old values.
    const other = kws.find((o) => typeof s[o] === "number" && isLower(o) !== isLower(kw));
    const base = other ? s[other] as number : 0;
    s[kw] = isLower(kw) ? base + d : counts ? base + d : base + 5 * d;
  },
  swapExclusive(s) {
    for (
      const [a, b] of [["minimum", "exclusiveMinimum"], [
        "maximum",
        "exclusiveMaximum",
      ]]
    ) {
      if (typeof s[a] === "number") {
        s[b] = s[a];
        delete s[a];
      } else if (typeof s[b] === "number") {
        s[a] = s[b];
        delete s[b];
      }
    }
  },
  multipleOf(s, k) {
    if (s.type !== "integer" && s.type !== "number") return;
    const m = typeof s.multipleOf === "number" ? s.multipleOf : undefined;
    if (m === undefined) s.multipleOf = pick([2, 0.5, 0.01, 3], k);
    else if (k % 3 === 0) delete s.multipleOf;
    else s.multipleOf = k % 3 === 1 ? m * 2 : m / 2;
  },
  uniqueItems(s) {
    if (s.uniqueItems === true) delete s.uniqueItems;
    else if (s.type === "array") s.uniqueItems = true;
  },
  pattern(s, k) {
    if (s.type !== "string") return;
    if (typeof s.pattern === "string" && k % 2) delete s.pattern;
    else s.pattern = pick(PATTERNS, k);
  },
  format(s, k) {
    if (s.type !== "string") return;
    if (typeof s.format === "string" && k % 2) delete s.format;
    else s.format = pick(FORMATS, k);
  },
  additionalProperties(s, k) {
    const next = pick<unknown>([undefined, false, true, { type: "string" }, {
      type: ["string", "number"],
    }], k);
    if (next === undefined) delete s.additionalProperties;
    else s.additionalProperties = next;
  },
  anyOfAddBranch(s, k) {
    if (Array.isArray(s.anyOf)) s.anyOf = [...s.anyOf, leaf(k)];
    else if (Array.isArray(s.oneOf)) s.oneOf = [...s.oneOf, leaf(k)];
  },
  anyOfRemoveBranch(s, k) {
    for (const kw of ["anyOf", "oneOf", "allOf"]) {
      const bs = s[kw];
      if (Array.isArray(bs) && bs.length > 1) {
        s[kw] = bs.filter((_, i) => i !== k % bs.length);
      }
    }
  },
  closeProperty(s, k) {
    const names = Object.keys(s.properties as Obj ?? {});
    if (names.length) (s.properties as Obj)[pick(names, k)] = false;
  },
  addAnyOf(s, k) {
    if (!("anyOf" in s)) s.anyOf = [leaf(k), leaf(k >> 2)];
  },
  wrapInAnyOf(s, k) {
    const copy = structuredClone(s);
    for (const key of Object.keys(s)) if (key !== "$defs") delete s[key];
    s.anyOf = [copy, leaf(k)];
    delete (copy as Obj).$defs;
  },
  wrapInAllOf(s, k) {
    const copy = structuredClone(s);
    for (const key of Object.keys(s)) if (key !== "$defs") delete s[key];
    delete (copy as Obj).$defs;
    s.allOf = k % 2
      ? [copy]
      : [copy, pick<Obj>([{}, { minLength: 1 }, { maxProperties: 3 }], k >> 1)];
  },
  not(s, k) {
    if ("not" in s && k % 2) delete s.not;
    else s.not = pick<Obj>([{ type: "null" }, { const: "EUR" }, {}], k);
  },
  annotate(s, k) {
    const kw = pick([
      "description",
      "title",
      "examples",
      "$comment",
      "default",
      "x-owner",
      "deprecated",
    ], k);
    s[kw] = kw === "examples"
      ? [k]
      : kw === "deprecated"
      ? true
      : kw === "default"
      ? k
      : `text ${k}`;
  },
  loosenToAnything(s) {
    for (const key of Object.keys(s)) if (key !== "$defs") delete s[key];
  },
  replaceWithLeaf(s, k) {
    for (const key of Object.keys(s)) if (key !== "$defs") delete s[key];
    Object.assign(s, structuredClone(leaf(k)));
  },
  inlineRef(s, _k, root) {
    if (typeof s.$ref === "string" && root.$defs) {
      const name = s.$ref.replace("#/$defs/", "");
      const target = (root.$defs as Obj)[name];
      if (target && name !== "node") {
        delete s.$ref;
        Object.assign(s, structuredClone(target));
      }
    }
  },
};

/** One random edit: which subschema, which operation, and a number the operation draws from. */
export interface Edit {
  at: number;
  op: number;
  k: number;
}

export const editArb: fc.Arbitrary<Edit> = fc.record({
  at: fc.nat(),
  op: fc.nat(),
  k: fc.nat({ max: 1 << 12 }),
});

const OP_NAMES = Object.keys(OPS);

/** Applies edits to a copy of a schema; returns the copy and the names of the operations. */
export function applyEdits(
  schema: Obj,
  edits: readonly Edit[],
): { schema: Obj; ops: string[] } {
  const copy = structuredClone(schema);
  const ops: string[] = [];
  for (const e of edits) {
    const name = OP_NAMES[e.op % OP_NAMES.length];
    const count = subschemas(copy).length;
    // Start at the chosen subschema and move on until the operation changes something.
    for (let i = 0; i < count; i++) {
      const before = JSON.stringify(copy);
      const nodes = subschemas(copy);
      OPS[name](nodes[(e.at + i) % nodes.length], e.k, copy);
      if (JSON.stringify(copy) !== before) break;
    }
    ops.push(name);
  }
  return { schema: copy, ops };
}

/** A copy of a JSON value with every object's keys in a shuffled order (from `seed`). */
export function shuffleKeys(v: unknown, seed: number): unknown {
  let x = seed >>> 0 || 1;
  const next = () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 2 ** 32;
  };
  const walk = (u: unknown): unknown => {
    if (Array.isArray(u)) return u.map(walk);
    if (typeof u !== "object" || u === null) return u;
    const entries = Object.entries(u as Obj);
    for (let i = entries.length - 1; i > 0; i--) {
      const j = Math.floor(next() * (i + 1));
      [entries[i], entries[j]] = [entries[j], entries[i]];
    }
    return Object.fromEntries(entries.map(([k, w]) => [k, walk(w)]));
  };
  return walk(v);
}

// --- keyword soup ---------------------------------------------------------------------------

const small = fc.constantFrom(0, 1, 2, 3);
const soupValue = fc.constantFrom<unknown>(
  0,
  1,
  2,
  1.5,
  "a",
  "b",
  "",
  true,
  null,
  [],
  {},
);

/**
 * Small schemas of up to three keywords drawn from every supported keyword, nested: not realistic,
 * but they reach combinations (`contains` with counts, `patternProperties`, `propertyNames`,
 * `if`/`then`/`else`, `not`, tuples) that tool schemas rarely show.
 */
export const soupSchema: fc.Arbitrary<unknown> = fc.letrec<{ s: unknown }>((tie) => ({
  s: fc.oneof(
    { maxDepth: 3, depthSize: "small" },
    { weight: 1, arbitrary: fc.constantFrom<unknown>(true, false, {}) },
    {
      weight: 6,
      arbitrary: fc.record({
        type: fc.constantFrom<unknown>(
          "integer",
          "number",
          "string",
          "boolean",
          "null",
          "array",
          "object",
          ["integer", "string"],
          ["number", "null"],
        ),
        minimum: small,
        maximum: fc.constantFrom(2, 3, 5),
        exclusiveMinimum: small,
        exclusiveMaximum: fc.constantFrom(1, 3, 5),
        multipleOf: fc.constantFrom(1, 2, 0.5),
        minLength: small,
        maxLength: fc.constantFrom(1, 3, 5),
        pattern: fc.constantFrom("^a", "b", "^[ab]*$"),
        format: fc.constantFrom("date", "email"),
        enum: fc.uniqueArray(soupValue, {
          minLength: 1,
          maxLength: 3,
          selector: (v) => JSON.stringify(v),
        }),
        const: soupValue,
        items: tie("s"),
        prefixItems: fc.array(tie("s"), { maxLength: 2 }),
        contains: tie("s"),
        minContains: small,
        maxContains: fc.constantFrom(1, 2, 3),
        minItems: small,
        maxItems: fc.constantFrom(1, 2, 4),
        uniqueItems: fc.boolean(),
        properties: fc.dictionary(fc.constantFrom("a", "b", "c"), tie("s"), {
          maxKeys: 3,
        }),
        required: fc.subarray(["a", "b", "c"]),
        additionalProperties: tie("s"),
        patternProperties: fc.dictionary(
          fc.constantFrom("^a", "^b", "c$"),
          tie("s"),
          {
            maxKeys: 2,
          },
        ),
        propertyNames: fc.constantFrom<unknown>({ maxLength: 1 }, {
          enum: ["a", "b"],
        }, {
          pattern: "^[ab]$",
        }),
        dependentRequired: fc.dictionary(
          fc.constantFrom("a", "b"),
          fc.subarray(["a", "b", "c"]),
          {
            maxKeys: 2,
          },
        ),
        minProperties: small,
        maxProperties: fc.constantFrom(1, 2, 3),
        dependentSchemas: fc.dictionary(fc.constantFrom("a", "b"), tie("s"), { maxKeys: 2 }),
        unevaluatedProperties: tie("s"),
        unevaluatedItems: tie("s"),
        anyOf: fc.array(tie("s"), { minLength: 1, maxLength: 3 }),
        oneOf: fc.array(tie("s"), { minLength: 1, maxLength: 3 }),
        allOf: fc.array(tie("s"), { minLength: 1, maxLength: 2 }),
        not: tie("s"),
        if: tie("s"),
        then: tie("s"),
        else: tie("s"),
        default: soupValue,
      }, { requiredKeys: [] }).chain((o) =>
        fc.shuffledSubarray(Object.keys(o), { minLength: 0, maxLength: 3 })
          .map((keys) => Object.fromEntries(keys.map((k) => [k, (o as Obj)[k]])))
      ),
    },
  ),
})).s;

function objectsIn(x: unknown, out: Obj[] = []): Obj[] {
  if (typeof x !== "object" || x === null || Array.isArray(x)) return out;
  out.push(x as Obj);
  for (const v of Object.values(x as Obj)) {
    if (Array.isArray(v)) v.forEach((y) => objectsIn(y, out));
    else if (typeof v === "object" && v) {
      objectsIn(v, out);
      for (const w of Object.values(v as Obj)) objectsIn(w, out);
    }
  }
  return out;
}

/**
 * A keyword-soup schema and an edit of it: one keyword somewhere inside deleted, or replaced by
 * another random schema.
 */
export const soupChange: fc.Arbitrary<[unknown, unknown]> = fc
  .tuple(soupSchema, soupSchema, fc.nat(), fc.nat(), fc.boolean())
  .map(([before, other, i, j, remove]): [unknown, unknown] => {
    const after = structuredClone(before);
    const nodes = objectsIn(after).filter((n) => Object.keys(n).length > 0);
    if (!nodes.length) return [before, other];
    const node = nodes[i % nodes.length];
    const keys = Object.keys(node);
    const key = keys[j % keys.length];
    if (remove) delete node[key];
    else node[key] = structuredClone(other);
    return [before, after];
  });
