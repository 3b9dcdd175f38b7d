import type { PathSegment, SchemaIssue } from "./types.ts";

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** Formatted name segments, by name. */
const NAMES = new Map<string, string>();

/**
 * Formats path segments in the `$` notation.
 *
 * @param segments Property names and array indexes from the root down.
 * @returns The path, e.g. `$.legs[1].amount` or `$["a b"]`.
 *
 * @example
 * ```ts
 * import { formatPath } from "@tool-estate/core";
 * import assert from "node:assert/strict";
 * assert.equal(formatPath(["legs", 1, "amount"]), "$.legs[1].amount");
 * assert.equal(formatPath(["a b"]), '$["a b"]');
 * ```
 */
export function formatPath(segments: readonly PathSegment[]): string {
  let out = "$";
  for (const s of segments) out += formatSegment(s);
  return out;
}

/**
 * Formats one segment: `.name`, `[3]` or `["a b"]`.
 *
 * @param segment A property name or an array index.
 * @returns The segment as it appears in a `$` path.
 */
export function formatSegment(segment: PathSegment): string {
  if (typeof segment === "number") return `[${segment}]`;
  let text = NAMES.get(segment);
  if (text === undefined) {
    text = IDENTIFIER.test(segment) ? `.${segment}` : `[${JSON.stringify(segment)}]`;
    // Names are mostly a schema's own property names: a small cache, cleared when it fills up.
    if (NAMES.size >= 4096) NAMES.clear();
    NAMES.set(segment, text);
  }
  return text;
}

/**
 * Parses a `$` path back into its segments; the inverse of {@linkcode formatPath}.
 *
 * @param path A path such as `$.legs[1]["a b"]`.
 * @returns The segments.
 * @throws {SyntaxError} When the text is not a `$` path.
 *
 * @example
 * ```ts
 * import { parsePath } from "@tool-estate/core";
 * import assert from "node:assert/strict";
 * assert.deepEqual(parsePath('$.legs[1]["a b"]'), ["legs", 1, "a b"]);
 * ```
 */
export function parsePath(path: string): PathSegment[] {
  if (!path.startsWith("$")) {
    throw new SyntaxError(
      `Invalid path ${JSON.stringify(path)}: must start with $`,
    );
  }
  const out: PathSegment[] = [];
  let i = 1;
  while (i < path.length) {
    const c = path[i];
    if (c === ".") {
      const m = /^[A-Za-z_$][A-Za-z0-9_$]*/.exec(path.slice(i + 1));
      if (!m) {
        throw new SyntaxError(
          `Invalid path ${JSON.stringify(path)}: bad name at offset ${i}`,
        );
      }
      out.push(m[0]);
      i += 1 + m[0].length;
    } else if (c === "[" && path[i + 1] === '"') {
      // A JSON string: find its end, honouring escapes.
      let j = i + 2;
      while (j < path.length && path[j] !== '"') j += path[j] === "\\" ? 2 : 1;
      if (path[j + 1] !== "]") {
        throw new SyntaxError(
          `Invalid path ${JSON.stringify(path)}: unterminated key at offset ${i}`,
        );
      }
      out.push(JSON.parse(path.slice(i + 1, j + 1)) as string);
      i = j + 2;
    } else if (c === "[") {
      const m = /^\[(0|[1-9][0-9]*)\]/.exec(path.slice(i));
      if (!m) {
        throw new SyntaxError(
          `Invalid path ${JSON.stringify(path)}: bad index at offset ${i}`,
        );
      }
      out.push(Number(m[1]));
      i += m[0].length;
    } else {
      throw new SyntaxError(
        `Invalid path ${JSON.stringify(path)}: unexpected ${JSON.stringify(c)} at offset ${i}`,
      );
    }
  }
  return out;
}

/**
 * Compares two segment lists: segment by segment (indexes numerically and before names, names by
 * UTF-16 code unit), a prefix before its extensions.
 *
 * @param a First path's segments.
 * @param b Second path's segments.
 * @returns Negative, zero or positive, as for `Array.prototype.sort`.
 */
export function comparePathSegments(
  a: readonly PathSegment[],
  b: readonly PathSegment[],
): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a[i], y = b[i];
    if (x === y) continue;
    if (typeof x === "number") {
      if (typeof y === "number") return x - y;
      return -1;
    }
    if (typeof y === "number") return 1;
    return x < y ? -1 : 1;
  }
  return a.length - b.length;
}

/** Code-unit string comparison (no locale), for deterministic sorting. */
export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Sorts issues deterministically: by path (see {@linkcode comparePathSegments}), then keyword,
 * then message, then schema path. Returns a new array; the input is not changed.
 *
 * @param issues Issues in any order.
 * @returns The same issues, sorted.
 */
export function sortIssues(issues: readonly SchemaIssue[]): SchemaIssue[] {
  const keyed = issues.map((issue) => ({ issue, segs: parsePath(issue.path) }));
  keyed.sort((x, y) =>
    comparePathSegments(x.segs, y.segs) ||
    compareStrings(x.issue.keyword, y.issue.keyword) ||
    compareStrings(x.issue.message, y.issue.message) ||
    compareStrings(x.issue.schemaPath, y.issue.schemaPath)
  );
  return keyed.map((k) => k.issue);
}
