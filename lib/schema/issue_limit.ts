/**
 * How much of a list of issues an answer carries. A value can have any number of issues (a 1 MB
 * request with 92,000 forbidden keys has 92,000), but an answer — a `-32602` error, an `isError`
 * result, a CLI report, an editor's diagnostics — carries at most the first
 * {@linkcode MAX_ISSUES_IN_RESPONSE} of them, in their sorted order, each text cut at
 * {@linkcode MAX_ISSUE_TEXT} characters, together at most {@linkcode MAX_ISSUES_BYTES} bytes of
 * JSON, and says how many it left out. The same input always gives the same answer.
 *
 * @module
 */
import type { SchemaIssue } from "./types.ts";

/** The most issues (or findings, or diagnostics) one answer carries. */
export const MAX_ISSUES_IN_RESPONSE = 100;

/**
 * The longest text an issue in an answer carries, per field (`path`, `keyword`, `message`,
 * `schemaPath`), in UTF-16 code units; longer text ends in `…`.
 */
export const MAX_ISSUE_TEXT = 200;

/** The most bytes the carried issues take together, as UTF-8 JSON (an array of them). */
export const MAX_ISSUES_BYTES = 32_768;

/** The issues an answer carries, and how many it left out. */
export interface LimitedIssues {
  /** The first issues, in the order given, each text cut at {@linkcode MAX_ISSUE_TEXT}. */
  issues: SchemaIssue[];
  /** How many issues were left out (after the carried ones). */
  omitted: number;
}

/** Options for {@linkcode limitList}. */
export interface LimitOptions<T> {
  /** The most items kept. Default {@linkcode MAX_ISSUES_IN_RESPONSE}. */
  max?: number;
  /** The most bytes the kept items take as UTF-8 JSON. Default {@linkcode MAX_ISSUES_BYTES}. */
  maxBytes?: number;
  /** Makes an item small enough to carry (cuts its texts); default: the item as it is. */
  shorten?: (item: T) => T;
}

/** A list cut to what an answer carries. */
export interface LimitedList<T> {
  /** The first items, in the order given, shortened. */
  items: T[];
  /** How many items were left out. */
  omitted: number;
}

/**
 * A text cut to `max` UTF-16 code units, ending in `…` when cut (never inside a surrogate pair).
 *
 * @param text The text.
 * @param max The most code units kept, `…` included. Default {@linkcode MAX_ISSUE_TEXT}.
 * @returns The text, or its cut start.
 *
 * @example
 * ```ts
 * import { shortenText } from "@tool-estate/core";
 * import assert from "node:assert/strict";
 * assert.equal(shortenText("abcdef", 4), "abc…");
 * assert.equal(shortenText("abc", 4), "abc");
 * ```
 */
export function shortenText(
  text: string,
  max: number = MAX_ISSUE_TEXT,
): string {
  if (text.length <= max) return text;
  let end = Math.max(0, max - 1);
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--; // keep a surrogate pair whole
  return text.slice(0, end) + "…";
}

/** The UTF-8 length of a string that `JSON.stringify` made (lone surrogates are escaped). */
function utf8Length(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}

/**
 * The first items of a list that fit an answer: at most `max` of them, shortened, together at
 * most `maxBytes` bytes of JSON (the first item is always kept), and how many were left out.
 *
 * @param items The items, in the order the answer shows them.
 * @param options The limits and how to shorten an item.
 * @returns The kept items and the count of the rest.
 *
 * @example
 * ```ts
 * import { limitList } from "@tool-estate/core";
 * import assert from "node:assert/strict";
 * const limited = limitList(["a", "b", "c"], { max: 2 });
 * assert.deepEqual(limited, { items: ["a", "b"], omitted: 1 });
 * ```
 */
export function limitList<T>(
  items: readonly T[],
  options: LimitOptions<T> = {},
): LimitedList<T> {
  const max = options.max ?? MAX_ISSUES_IN_RESPONSE;
  const maxBytes = options.maxBytes ?? MAX_ISSUES_BYTES;
  const kept: T[] = [];
  let bytes = 2; // the array's brackets
  for (const item of items) {
    if (kept.length >= max) break;
    const small = options.shorten ? options.shorten(item) : item;
    const size = utf8Length(JSON.stringify(small) ?? "null") +
      (kept.length ? 1 : 0);
    if (kept.length && bytes + size > maxBytes) break;
    kept.push(small);
    bytes += size;
  }
  return { items: kept, omitted: items.length - kept.length };
}

/**
 * An issue with each text cut at {@linkcode MAX_ISSUE_TEXT}.
 *
 * @param issue The issue.
 * @returns A new issue, or the same one when nothing needed cutting.
 */
export function shortenIssue(issue: SchemaIssue): SchemaIssue {
  const path = shortenText(issue.path), keyword = shortenText(issue.keyword);
  const message = shortenText(issue.message),
    schemaPath = shortenText(issue.schemaPath);
  if (
    path === issue.path && keyword === issue.keyword &&
    message === issue.message &&
    schemaPath === issue.schemaPath
  ) return issue;
  return { path, keyword, message, schemaPath };
}

/**
 * The issues an answer carries: the first {@linkcode MAX_ISSUES_IN_RESPONSE} in the order given
 * (pass them sorted, as {@linkcode validateSchema} returns them), each text cut at
 * {@linkcode MAX_ISSUE_TEXT}, together at most {@linkcode MAX_ISSUES_BYTES} bytes of JSON — and
 * how many were left out. The MCP server's invalid-arguments answers (both shapes, both eras),
 * `estate`'s output and the editor's diagnostics are all cut this way.
 *
 * @param issues The issues, sorted.
 * @returns The carried issues and the count of the rest.
 *
 * @example
 * ```ts
 * import { limitIssues, MAX_ISSUES_IN_RESPONSE, validateSchema } from "@tool-estate/core";
 * import assert from "node:assert/strict";
 *
 * const schema = { type: "object", additionalProperties: false };
 * const args = Object.fromEntries(Array.from({ length: 250 }, (_, i) => [`k${i}`, i]));
 * const { issues, omitted } = limitIssues(validateSchema(schema, args));
 * assert.equal(issues.length, MAX_ISSUES_IN_RESPONSE);
 * assert.equal(omitted, 150);
 * assert.equal(issues[0].path, "$.k0");
 * ```
 */
export function limitIssues(issues: readonly SchemaIssue[]): LimitedIssues {
  const { items, omitted } = limitList(issues, { shorten: shortenIssue });
  return { issues: items, omitted };
}
