/**
 * An issue list made final: sorted by path segment by segment, then a type issue before any other
 * at the same path, then keyword, message and schema path; duplicates removed; a type mismatch
 * the only issue at and below its path; every path formatted. The closures' issues arrive with
 * their segments (`finishRaw`); the generated collector's arrive in their final shape with the
 * segment chain of each path beside them (`finishChains`), and a single issue needs no sort.
 */
import type { RawIssue } from "./_compile_context.ts";
import { comparePathSegments, compareStrings, formatPath, formatSegment } from "./path.ts";
import type { PathSegment, SchemaIssue } from "./types.ts";

/**
 * A path below a value as the generated collector builds it while the walk unwinds: the first
 * segment, then the rest (`null` at the value itself). No array grows while the walk goes on.
 */
export type Chain = [PathSegment, Chain] | null;

/** The segments of a chain, outermost first. */
export function chainSegments(chain: Chain): PathSegment[] {
  const out: PathSegment[] = [];
  for (let c = chain; c !== null; c = c[1]) out.push(c[0]);
  return out;
}

/** A chain as a `$` path, with no intermediate array. */
export function chainPath(chain: Chain): string {
  let out = "$";
  for (let c = chain; c !== null; c = c[1]) out += formatSegment(c[0]);
  return out;
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
 * The generated collector's issues made final. `issues[i]` is in its final shape but for its
 * path, whose segments are `chains[i]`; a single issue only gets its path.
 */
export function finishChains(issues: SchemaIssue[], chains: Chain[]): SchemaIssue[] {
  if (issues.length === 1) {
    if (chains[0] !== null) issues[0].path = chainPath(chains[0]);
    return issues;
  }
  return finishRaw(issues.map((issue, i) => ({
    segs: chainSegments(chains[i]),
    keyword: issue.keyword,
    message: issue.message,
    schemaPath: issue.schemaPath,
  })));
}
