/**
 * An issue list made final: sorted by path segment by segment, then a type issue before any other
 * at the same path, then keyword, message and schema path; duplicates removed; a type mismatch
 * the only issue at and below its path; every path formatted. The closures' issues arrive with
 * their segments (`finishRaw`); the generated collector's in their final shape, each path the
 * formatted segments below the value (`finishPaths`, which parses them back to sort them; a single
 * issue needs no sort).
 */
import type { RawIssue } from "./_compile_context.ts";
import { comparePathSegments, compareStrings, formatPath, parsePath } from "./path.ts";
import type { SchemaIssue } from "./types.ts";

/**
 * An issue of the generated collector, whose path holds the formatted segments below the value
 * (`.a[0]`), as a raw issue.
 */
export function rawIssue(issue: SchemaIssue): RawIssue {
  return {
    segs: parsePath("$" + issue.path),
    keyword: issue.keyword,
    message: issue.message,
    schemaPath: issue.schemaPath,
  };
}

/** Path, then a type issue before any other at the same path, then keyword, message, schema path. */
function compareRaw(a: RawIssue, b: RawIssue): number {
  return comparePathSegments(a.segs, b.segs) ||
    (a.keyword === b.keyword ? 0 : a.keyword === "type" ? -1 : b.keyword === "type" ? 1 : 0) ||
    compareStrings(a.keyword, b.keyword) ||
    compareStrings(a.message, b.message) ||
    compareStrings(a.schemaPath, b.schemaPath);
}

function isPrefix(prefix: RawIssue["segs"], of: RawIssue["segs"]): boolean {
  if (prefix.length > of.length) return false;
  for (let i = 0; i < prefix.length; i++) if (prefix[i] !== of[i]) return false;
  return true;
}

/**
 * Sorts, removes duplicates, and keeps a type mismatch the only issue at and below its path, in
 * one pass after the sort: a path's descendants sort right after it, and its type issue first.
 */
export function finishRaw(raw: RawIssue[]): SchemaIssue[] {
  if (raw.length === 1) {
    const r = raw[0];
    return [{
      path: formatPath(r.segs),
      keyword: r.keyword,
      message: r.message,
      schemaPath: r.schemaPath,
    }];
  }
  raw.sort(compareRaw);
  const out: SchemaIssue[] = [];
  let last: RawIssue | undefined;
  let typed: RawIssue["segs"] | undefined;
  for (const r of raw) {
    if (last && compareRaw(last, r) === 0) continue;
    last = r;
    if (typed && isPrefix(typed, r.segs)) continue;
    if (r.keyword === "type") typed = r.segs;
    out.push({
      path: formatPath(r.segs),
      keyword: r.keyword,
      message: r.message,
      schemaPath: r.schemaPath,
    });
  }
  return out;
}

/**
 * The generated collector's issues made final (two or more: a single one only needs its "$"). Each
 * is in its final shape but for its path, which holds the formatted segments below the value.
 */
export function finishPaths(issues: SchemaIssue[]): SchemaIssue[] {
  return finishRaw(issues.map(rawIssue));
}
