/**
 * The closures' vocabulary, shared by the compiler (`_compile.ts`) and its keyword families
 * (`_compile_<family>.ts`): a compiled check, the state of one run of it over a value, the issue
 * it reports before its path is formatted, and the schema object a family compiles.
 */
import type { PathSegment } from "./types.ts";

/** An issue before its path is formatted. */
export interface RawIssue {
  segs: PathSegment[];
  keyword: string;
  message: string;
  schemaPath: string;
}

/** One run of a compiled check: where the value walk is, and where issues go (`null`: stop at the first). */
export interface CheckRun {
  issues: RawIssue[] | null;
  path: PathSegment[];
  depth: number;
  maxDepth: number;
  formats: boolean;
}

/** A compiled (sub)schema: true when the value is valid; issues go to `ctx.issues`. */
export type Check = (v: unknown, ctx: CheckRun) => boolean;

/** The check of the `true` schema (and of an absent `then` or `else`). */
export const ALWAYS: Check = () => true;

/**
 * One schema object being compiled, as a keyword family sees it: its keywords, where it sits, and
 * how to compile what it holds.
 */
export interface SchemaSite {
  /** The schema object. */
  readonly s: Record<string, unknown>;
  /** Its schema path, e.g. `$.properties.amount`. */
  readonly spath: string;
  /** Whether it has the keyword (as an own property). */
  has(keyword: string): boolean;
  /** The schema path of one of its keywords, e.g. `$.properties.amount.minimum`. */
  kw(keyword: string): string;
  /** Compiles the subschema at `segs` below it; a `false` subschema reports `falseKeyword`. */
  sub(schema: unknown, segs: PathSegment[], falseKeyword?: string): Check;
  /** Compiles the target of a `$ref` in it, or undefined when the reference does not resolve. */
  resolve(ref: string): Check | undefined;
  /** Validates a child value one level down (at `seg`), with the depth guard. */
  descend(
    check: Check,
    value: unknown,
    seg: PathSegment,
    ctx: CheckRun,
  ): boolean;
}

/** Records an issue (unless the run only asks for a verdict) and fails. */
export function report(
  ctx: CheckRun,
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

/** The run for a subschema whose verdict counts but whose issues do not (`anyOf`, `not`, ...). */
export function probe(ctx: CheckRun): CheckRun {
  return ctx.issues === null ? ctx : { ...ctx, issues: null };
}

/** The issue of a value nested deeper than the run allows. */
export function tooDeep(
  ctx: CheckRun,
  where: string,
  seg?: PathSegment,
): false {
  return report(
    ctx,
    "depth",
    `nested more than ${ctx.maxDepth} levels deep; not validated further`,
    where,
    seg,
  );
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

/** A value as a message shows it: JSON, cut at 60 characters. */
export function show(v: unknown): string {
  const s = JSON.stringify(v) ?? String(v);
  return s.length > 60 ? s.slice(0, 57) + "..." : s;
}

/** `1 item`, `2 items`. */
export function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}
