import { type Check, Compiler, type Ctx, type RawIssue } from "./_compile.ts";
import { generateValidator } from "./_codegen.ts";
import { comparePathSegments, compareStrings, formatPath } from "./path.ts";
import type { JsonSchema, SchemaIssue } from "./types.ts";

/** Options for {@linkcode validateSchema}. */
export interface ValidateOptions {
  /**
   * Assert `format` (date, date-time, time, email, uri, uuid, ipv4, ipv6, hostname); unknown
   * formats always pass. Default `true`. Set `false` for draft 2020-12's annotation-only reading.
   */
  formatAssertion?: boolean;
  /** How many levels of nesting (values and `$ref`s) are validated before a `depth` issue. Default 1000. */
  maxDepth?: number;
}

/** A schema's compiled forms: the issue collector, and fast validators per option set. */
interface Compiled {
  collect: Check;
  fast: Map<string, (value: unknown) => boolean>;
}

const cache = new WeakMap<object, Compiled>();

/** The compiled forms of a schema, cached by the schema object's identity. */
function compiledFor(schema: JsonSchema): Compiled {
  if (typeof schema !== "object" || schema === null) {
    return { collect: new Compiler(schema).root(schema), fast: new Map() };
  }
  let c = cache.get(schema);
  if (!c) {
    c = { collect: new Compiler(schema).root(schema), fast: new Map() };
    cache.set(schema, c);
  }
  return c;
}

/** The boolean validator: generated code where allowed, else the collector in stop-early mode. */
function fastFor(
  schema: JsonSchema,
  c: Compiled,
  formats: boolean,
  maxDepth: number,
): (v: unknown) => boolean {
  const key = `${formats}:${maxDepth}`;
  let f = c.fast.get(key);
  if (!f) {
    f = generateValidator(schema, { formats, maxDepth }) ??
      ((value) => c.collect(value, { issues: null, path: [], depth: 0, maxDepth, formats }));
    c.fast.set(key, f);
  }
  return f;
}

/**
 * Validates a value against a JSON Schema (draft 2020-12, with draft-07 forms) and returns
 * **all** issues, sorted: by path segment by segment (indexes numerically, names by code unit, a
 * prefix first), then keyword, then message. A type mismatch gives one issue at its path and
 * nothing below it; a missing required property is reported at the property's own path.
 *
 * The schema is compiled once and cached by identity: validate many values against the same
 * schema object. Nothing is fetched: a `$ref` outside the schema gives a `$ref` issue.
 *
 * @param schema The schema.
 * @param value The value, e.g. a tool call's arguments.
 * @param options Format assertion and depth limit.
 * @returns The issues; empty when the value is valid.
 *
 * @example
 * ```ts
 * import { validateSchema } from "@tool-estate/core";
 * import assert from "node:assert/strict";
 *
 * const schema = {
 *   type: "object",
 *   properties: { amount: { type: "integer", minimum: 1 }, currency: { type: "string" } },
 *   required: ["amount", "currency"],
 * };
 * const issues = validateSchema(schema, { amount: "12" });
 * assert.deepEqual(issues.map((i) => `${i.path} ${i.keyword}`), ["$.amount type", "$.currency required"]);
 * ```
 */
export function validateSchema(
  schema: JsonSchema,
  value: unknown,
  options: ValidateOptions = {},
): SchemaIssue[] {
  const c = compiledFor(schema);
  const maxDepth = options.maxDepth ?? 1000;
  const formats = options.formatAssertion ?? true;
  // Most calls are valid: answer those from the fast path, and collect issues only for the rest.
  if (fastFor(schema, c, formats, maxDepth)(value)) return [];
  const ctx: Ctx = { issues: [], path: [], depth: 0, maxDepth, formats };
  c.collect(value, ctx);
  const issues = finish(ctx.issues!);
  if (issues.length === 0) {
    // The two validators disagree: a bug. Fail closed rather than let the value through.
    return [{
      path: "$",
      keyword: "schema",
      message: "value rejected; the validator found no detail",
      schemaPath: "$",
    }];
  }
  return issues;
}

/**
 * Whether a value satisfies a schema; the fast path of {@linkcode validateSchema}, which stops
 * at the first failure.
 *
 * @param schema The schema.
 * @param value The value.
 * @param options Format assertion and depth limit.
 * @returns `true` when {@linkcode validateSchema} would return no issues.
 *
 * @example
 * ```ts
 * import { isValid } from "@tool-estate/core";
 * import assert from "node:assert/strict";
 * assert.equal(isValid({ type: "integer" }, true), false);
 * assert.equal(isValid({ type: "number" }, 5), true);
 * ```
 */
export function isValid(
  schema: JsonSchema,
  value: unknown,
  options: ValidateOptions = {},
): boolean {
  return fastFor(
    schema,
    compiledFor(schema),
    options.formatAssertion ?? true,
    options.maxDepth ?? 1000,
  )(value);
}

function compareRaw(a: RawIssue, b: RawIssue): number {
  return comparePathSegments(a.segs, b.segs) || compareStrings(a.keyword, b.keyword) ||
    compareStrings(a.message, b.message) || compareStrings(a.schemaPath, b.schemaPath);
}

function isPrefix(prefix: RawIssue["segs"], of: RawIssue["segs"]): boolean {
  if (prefix.length > of.length) return false;
  for (let i = 0; i < prefix.length; i++) if (prefix[i] !== of[i]) return false;
  return true;
}

/** Sorts, removes duplicates, and keeps a type mismatch the only issue at and below its path. */
function finish(raw: RawIssue[]): SchemaIssue[] {
  raw.sort(compareRaw);
  const out: SchemaIssue[] = [];
  const typed: RawIssue["segs"][] = [];
  for (const r of raw) if (r.keyword === "type") typed.push(r.segs);
  let last: RawIssue | undefined;
  for (const r of raw) {
    if (last && compareRaw(last, r) === 0) continue;
    if (
      typed.some((t) => isPrefix(t, r.segs) && (r.keyword !== "type" || t.length < r.segs.length))
    ) {
      continue;
    }
    if (
      r.keyword === "type" && out.length && last?.keyword === "type" &&
      comparePathSegments(last.segs, r.segs) === 0
    ) {
      continue;
    }
    last = r;
    out.push({
      path: formatPath(r.segs),
      keyword: r.keyword,
      message: r.message,
      schemaPath: r.schemaPath,
    });
  }
  return out;
}
