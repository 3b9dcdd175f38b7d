/**
 * The generated collector's vocabulary, shared by its generator (`_codegen_collect.ts`) and its
 * keyword families (`_collect_<family>.ts`): the schema object a family writes code for, and how
 * it writes the code that reaches a subschema.
 *
 * The code a family writes runs inside `cN(x, d)`: `x` is the value, `d` the depth, `ok` the
 * verdict so far; `R(keyword, message, schemaPath)` reports an issue at `x` and `R1(...)` one at a
 * member of `x` (a last argument, the formatted segment: `fseg`), both returning false. A leaf
 * (a schema object with no subschema and nothing to say of a member: `isLeafSchema`) is
 * `cN(x, d, s)`, given the segment of `x` below its caller, and reports with `RS(s, ...)` (the
 * site's `report`): its caller then has no path to put in front. `M` is the depth limit and
 * `DM` its message; `K[i]` the constants; `HAS`, `EQ`, `CP`, `DUP`, `TN`, `SHOW`, `NA` the
 * helpers the program is given or defines.
 */
import { formatSegment } from "./path.ts";
import type { PathSegment } from "./types.ts";

/** A string as a JavaScript string literal. */
export const q = (s: string): string => JSON.stringify(s);

/**
 * The code of a path segment as issues carry it, formatted (`.name`, `[3]`, `["a b"]`), from the
 * code of the segment itself: a constant when the segment is one, else formatted when it runs
 * (`FS`, only on the way out of a failure).
 */
export function fseg(seg: string): string {
  if (seg.startsWith('"')) return q(formatSegment(JSON.parse(seg) as string));
  if (/^(0|[1-9][0-9]*)$/.test(seg)) return q(`[${seg}]`);
  return `FS(${seg})`;
}

/** One schema object the collector writes code for, as a keyword family sees it. */
export interface CollectSite {
  /** The schema object. */
  readonly s: Record<string, unknown>;
  /** Its schema path, e.g. `$.properties.amount`. */
  readonly spath: string;
  /** Whether `format` is asserted. */
  readonly formats: boolean;
  /**
   * The start of a call that reports an issue at `x`, to be followed by the keyword, message and
   * schema path and `)`: `R(`, or in a leaf's function `RS(s, `.
   */
  readonly report: string;
  /** Whether it has the keyword (as an own property). */
  has(keyword: string): boolean;
  /** The schema path of one of its keywords. */
  kw(keyword: string): string;
  /** A constant the code reads: the expression `K[i]`. */
  constant(value: unknown): string;
  /**
   * The boolean verdict of the subschema at `segs` below it, as an expression on `v` at depth
   * `dd` (the fast path's function: no issue is collected).
   */
  probe(schema: unknown, segs: PathSegment[], v: string, dd: string): string;
  /**
   * An expression that collects the issues of `v` against the subschema at `segs` in place (at
   * the current path) and is its validity. A `false` subschema reports `falseKeyword`.
   */
  inPlace(
    schema: unknown,
    segs: PathSegment[],
    falseKeyword: string,
    v: string,
    dd: string,
  ): string;
  /** As `inPlace`, for the target of a `$ref` one level deeper; undefined when it does not resolve. */
  refInPlace(ref: string): string | undefined;
  /**
   * Statements (each line starting with `indent`) that descend into `v` at the segment expression
   * `seg` with the depth guard, clearing `ok` on failure.
   */
  descend(
    schema: unknown,
    segs: PathSegment[],
    falseKeyword: string,
    v: string,
    seg: string,
    indent: string,
  ): string;
}

/**
 * The keywords a leaf may have: checks of the value itself and annotations. A schema object with
 * only these (and `x-` extensions) reaches no subschema and reports nothing at a member, so its
 * function can take its segment from its caller and report its issues there.
 */
const LEAF_KEYWORDS: ReadonlySet<string> = new Set([
  "type",
  "enum",
  "const",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "multipleOf",
  "minLength",
  "maxLength",
  "pattern",
  "format",
  "title",
  "description",
  "default",
  "examples",
  "$comment",
  "deprecated",
  "readOnly",
  "writeOnly",
  "contentMediaType",
  "contentEncoding",
]);

/** Whether a schema object is a leaf (`LEAF_KEYWORDS`). */
export function isLeafSchema(s: Record<string, unknown>): boolean {
  for (const k of Object.keys(s)) {
    if (!LEAF_KEYWORDS.has(k) && !k.startsWith("x-")) return false;
  }
  return true;
}
