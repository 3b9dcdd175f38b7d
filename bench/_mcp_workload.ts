/**
 * The validator benchmarks' calls: a seeded, interleaved call log over a workload's tools, about
 * 15% of the calls carrying one mistake an agent makes (missing required, wrong type, extra key,
 * bad enum, pattern, format, out of range), made wherever the tool's schema allows it.
 *
 * Everything is deterministic for a given seed.
 *
 * @module
 */
import type { JsonSchema } from "../mod.ts";
import type { Args, WorkloadTool } from "./_mcp_tools.ts";
import { cumulative, Rand } from "./_rand.ts";

type Obj = Record<string, unknown>;

/** One generated call. */
export interface Call {
  /** Index of the tool in its workload. */
  tool: number;
  /** The arguments as JSON text (what arrives on the wire). */
  text: string;
  /** The arguments, parsed from `text`. */
  args: Args;
  /** The mistake made on purpose, if any (the validators decide whether it is invalid). */
  mistake?: Mistake;
}

/** The mistakes agents make, as the generator makes them. */
export type Mistake =
  | "missing required"
  | "wrong type"
  | "extra key"
  | "bad enum"
  | "pattern"
  | "format"
  | "out of range";

/** A place in a value where a mistake can be made: its parent, key, and governing schema. */
interface Site {
  parent: Obj | unknown[];
  key: string | number;
  schema: Obj;
  /** How deep the value sits: 1 for an argument, 2 for a member of one, … */
  depth: number;
}

/** An object in a value, with its schema and depth (0 for the arguments themselves). */
interface ObjectSite {
  value: Obj;
  schema: Obj;
  depth: number;
}

/** How often each mistake is made, among those a call allows. */
const MISTAKE_WEIGHTS: Record<Mistake, number> = {
  "missing required": 20,
  "wrong type": 25,
  "extra key": 15,
  "bad enum": 12,
  "pattern": 10,
  "format": 12,
  "out of range": 6,
};

/** Follows a local `$ref` (`#/$defs/x`, `#/definitions/x`). */
function deref(s: Obj, root: Obj): Obj {
  const ref = s.$ref;
  if (typeof ref !== "string" || !ref.startsWith("#/")) return s;
  let at: unknown = root;
  for (const seg of ref.slice(2).split("/")) at = (at as Obj)[seg];
  return at as Obj;
}

/** Every (value, schema) pair under `properties` and `items`, depth first. */
function sites(
  value: unknown,
  s: Obj,
  root: Obj,
  out: { values: Site[]; objects: ObjectSite[] },
  depth = 0,
): void {
  s = deref(s, root);
  if (Array.isArray(value)) {
    if (s.items && typeof s.items === "object" && !Array.isArray(s.items)) {
      value.forEach((v, i) => {
        const is = deref(s.items as Obj, root);
        out.values.push({ parent: value, key: i, schema: is, depth: depth + 1 });
        sites(v, is, root, out, depth + 1);
      });
    }
    return;
  }
  if (value === null || typeof value !== "object") return;
  const obj = value as Obj;
  out.objects.push({ value: obj, schema: s, depth });
  const props = (s.properties ?? {}) as Record<string, Obj>;
  for (const [k, v] of Object.entries(obj)) {
    const ps = props[k];
    if (!ps) continue;
    const d = deref(ps, root);
    out.values.push({ parent: obj, key: k, schema: d, depth: depth + 1 });
    sites(v, d, root, out, depth + 1);
  }
}

/** The nested sites only (a member of an argument or deeper), when `deep` and there are any. */
function confine(
  found: { values: Site[]; objects: ObjectSite[] },
  deep: boolean,
): { values: Site[]; objects: ObjectSite[] } {
  if (!deep) return found;
  const values = found.values.filter((s) => s.depth >= 2);
  const objects = found.objects.filter((o) => o.depth >= 1);
  return values.length || objects.length ? { values, objects } : found;
}

const get = (site: Site): unknown => (site.parent as Obj)[site.key as string];
const set = (site: Site, v: unknown) => ((site.parent as Obj)[site.key as string] = v);

/** What an agent sends instead of a value of the right type. */
function wrongType(v: unknown, r: Rand): unknown {
  if (typeof v === "number") return String(v); // "3" for 3
  if (typeof v === "boolean") return r.pick([String(v), v ? 1 : 0]); // "true", 1
  if (typeof v === "string") {
    return /^\d+$/.test(v) ? Number(v) : r.pick([[v], null, 42]); // ["x"] for "x"
  }
  if (Array.isArray(v)) return v.map(String).join(","); // "a,b" for ["a","b"]
  return JSON.stringify(v); // a stringified object
}

const BAD_FORMATS: Record<string, ((v: string) => string)[]> = {
  "date-time": [
    (v) => v.replace(/(Z|[+-]\d\d:\d\d|\.\d+Z|\.\d+[+-]\d\d:\d\d)$/, ""), // no time zone
    (v) => v.slice(0, 10), // a date, not a date-time
    (v) => v.replace("T", " "), // Python's str(datetime)
    (v) => v.replace(/(Z|\.\d+Z)$/, "+00:00").replace(/([+-]\d\d):(\d\d)$/, "$1$2"), // strftime's %z
    (v) => v.replace(/^(\d{4})-(\d\d)-(\d\d)/, "$3/$2/$1"), // 31/12/2026T…
    () => "tomorrow 10am",
  ],
  "date": [
    (v) => v.replaceAll("-", "/"),
    (v) => `${v}T00:00:00Z`,
    (v) => `${v.slice(0, 4)}-02-30`, // no such day
    (v) => v.replace(/-0(\d)-/, "-$1-"), // 2026-5-01
  ],
  "email": [(v) => v.replace("@", " at "), (v) => v.split("@")[0], (v) => `<${v}>`],
  "uri": [(v) => v.replace(/^https?:\/\//, ""), () => "README.md", (v) => v.replace("/", " /")],
  "uuid": [(v) => v.replaceAll("-", ""), (v) => `{${v}}`, (v) => v.slice(0, 30)],
};

function violatesPattern(pattern: string, v: string, r: Rand): string | undefined {
  const re = new RegExp(pattern, "u");
  const tries = [
    (s: string) => `${s} `, // a trailing space
    (s: string) => s.length > 1 ? `${s.slice(0, 1)} ${s.slice(1)}` : `${s} x`,
    (s: string) => s.toLowerCase() === s ? s.toUpperCase() : s.toLowerCase(),
    (s: string) => `${s}/..`,
    (s: string) => s.slice(0, 1),
    (s: string) => `${s}!`,
  ];
  for (const t of r.some(tries, tries.length)) {
    const bad = t(v);
    if (!re.test(bad)) return bad;
  }
  return undefined;
}

const NEAR_MISS: [RegExp, string][] = [[/_(\w)/, "$1"], [/([a-z])([A-Z])/, "$1_$2"], [/s$/, ""], [
  /$/,
  "s",
]];

/**
 * Makes one mistake in `args` (in place), chosen among those the schema allows for this call;
 * returns which, or undefined when none applies (e.g. a tool with no arguments). With `deep`, the
 * mistake is made inside an argument (below the top level) where the call has such a place.
 */
export function makeMistake(
  args: Args,
  schema: JsonSchema,
  r: Rand,
  deep = false,
): Mistake | undefined {
  const root = schema as Obj;
  const all = { values: [] as Site[], objects: [] as ObjectSite[] };
  sites(args, root, root, all);
  const found = confine(all, deep);
  const options = new Map<Mistake, () => boolean>();
  const withRequired = found.objects.filter((o) =>
    ((o.schema.required ?? []) as string[]).some((k) => k in o.value)
  );
  if (withRequired.length) {
    options.set("missing required", () => {
      const o = r.pick(withRequired);
      delete o.value[r.pick(((o.schema.required ?? []) as string[]).filter((k) => k in o.value))];
      return true;
    });
  }
  const typed = found.values.filter((s) => typeof s.schema.type === "string");
  if (typed.length) {
    options.set("wrong type", () => {
      const s = r.pick(typed);
      set(s, wrongType(get(s), r));
      return true;
    });
  }
  const closed = found.objects.filter((o) => o.schema.additionalProperties === false);
  if (closed.length) {
    options.set("extra key", () => {
      const o = r.pick(closed);
      const declared = Object.keys((o.schema.properties ?? {}) as Obj);
      const base = r.pick(Object.keys(o.value).length ? Object.keys(o.value) : declared);
      for (const [from, to] of r.some(NEAR_MISS, NEAR_MISS.length)) {
        const name = base.replace(from, to);
        if (!declared.includes(name)) {
          o.value[name] = o.value[base] ?? true;
          return true;
        }
      }
      o.value[`${base}_hint`] = "see above";
      return true;
    });
  }
  const enums = found.values.filter((s) =>
    Array.isArray(s.schema.enum) && typeof get(s) === "string"
  );
  if (enums.length) {
    options.set("bad enum", () => {
      const s = r.pick(enums);
      const v = get(s) as string;
      const cased = v === v.toUpperCase()
        ? v.toLowerCase()
        : v.charAt(0).toUpperCase() + v.slice(1);
      set(s, (s.schema.enum as unknown[]).includes(cased) ? `${v}s` : cased);
      return true;
    });
  }
  const patterned = found.values.filter((s) =>
    typeof s.schema.pattern === "string" && typeof get(s) === "string"
  );
  if (patterned.length) {
    options.set("pattern", () => {
      const s = r.pick(patterned);
      const bad = violatesPattern(s.schema.pattern as string, get(s) as string, r);
      if (bad === undefined) return false;
      set(s, bad);
      return true;
    });
  }
  const formatted = found.values.filter((s) =>
    typeof s.schema.format === "string" && s.schema.format in BAD_FORMATS &&
    typeof get(s) === "string"
  );
  if (formatted.length) {
    options.set("format", () => {
      const s = r.pick(formatted);
      set(s, r.pick(BAD_FORMATS[s.schema.format as string])(get(s) as string));
      return true;
    });
  }
  const ranged = found.values.filter((s) =>
    (typeof s.schema.maximum === "number" && typeof get(s) === "number") ||
    (typeof s.schema.minimum === "number" && typeof get(s) === "number") ||
    (typeof s.schema.maxItems === "number" && Array.isArray(get(s))) ||
    (typeof s.schema.minLength === "number" && typeof get(s) === "string")
  );
  if (ranged.length) {
    options.set("out of range", () => {
      const s = r.pick(ranged);
      const v = get(s);
      if (typeof v === "number") {
        set(
          s,
          typeof s.schema.maximum === "number"
            ? (s.schema.maximum as number) * 5 + 1
            : (s.schema.minimum as number) - 1,
        );
      } else if (Array.isArray(v)) {
        set(
          s,
          Array.from(
            { length: (s.schema.maxItems as number) + 1 },
            (_, i) => `${v[0] ?? "x"}-${i}`,
          ),
        );
      } else set(s, "");
      return true;
    });
  }
  const kinds = [...options.keys()];
  const cum = cumulative(kinds.map((k) => MISTAKE_WEIGHTS[k]));
  for (let attempt = 0; attempt < 4 && kinds.length; attempt++) {
    const kind = kinds[r.weighted(cum)];
    if (options.get(kind)!()) return kind;
  }
  return undefined;
}

/** Options for {@linkcode makeCalls}. */
export interface MakeCallsOptions {
  /** Calls per tool. */
  perTool: number;
  /** The share of calls given a mistake, 0 to 1, for every tool or per tool. Default 0.15. */
  mistakes?: number | readonly number[];
  /**
   * The share of mistakes made inside an argument (below the top level) when the call has such a
   * place, 0 to 1. Default 0: wherever the schema allows, all places alike.
   */
  deep?: number;
  /** Seed. Default 11. */
  seed?: number;
}

/**
 * `perTool` calls for each tool, in a seeded shuffled order (as a call log interleaves tools),
 * about `mistakes` of them with one mistake each.
 */
export function makeCalls(tools: readonly WorkloadTool[], options: MakeCallsOptions): Call[] {
  const r = new Rand(options.seed ?? 11);
  const share = options.mistakes ?? 0.15;
  const out: Call[] = [];
  const left = tools.map(() => options.perTool);
  let total = options.perTool * tools.length;
  while (total > 0) {
    // Draw the next tool in proportion to its remaining calls: an interleaved log.
    let x = r.int(0, total - 1), t = 0;
    while (x >= left[t]) x -= left[t++];
    left[t]--;
    total--;
    const args = tools[t].args(r);
    const p = typeof share === "number" ? share : share[t];
    const mistake = r.chance(p)
      ? makeMistake(args, tools[t].schema, r, options.deep ? r.chance(options.deep) : false)
      : undefined;
    const text = JSON.stringify(args);
    out.push({ tool: t, text, args: JSON.parse(text), mistake });
  }
  return out;
}

/** How many distinct sets of top-level keys the calls to tool `t` send. */
export function distinctKeySets(calls: readonly Call[], t: number): number {
  const seen = new Set<string>();
  for (const c of calls) if (c.tool === t) seen.add(Object.keys(c.args).sort().join("\u0000"));
  return seen.size;
}
