// How a `tools/call` ended, as a host's repair loop needs to know it: a result is ok or a tool
// error, or carries rejected arguments (SEP-1303's `isError` result with the issues); an error
// answer is rejected arguments (`-32602` with the issues, before 2025-11-25) or a protocol error.

import { ERROR_CODES, ESTATE_ERROR_CODES, type JsonRpcError } from "../jsonrpc/errors.ts";
import { isObject } from "../_object.ts";
import type { SchemaIssue } from "../schema/types.ts";
import type { CallToolResult } from "./protocol.ts";
import { DEPRECATION_META_KEY, type DeprecationNotice } from "../estate/deprecation.ts";

/** How a `tools/call` ended, as a host's repair loop needs to know it. */
export type CallOutcome =
  | { kind: "ok"; result: CallToolResult; deprecation?: DeprecationNotice }
  /** The tool ran and failed: an observation for the model. */
  | {
    kind: "tool-error";
    result: CallToolResult;
    message: string;
    /** The version called is deprecated: what the server said of it. */
    deprecation?: DeprecationNotice;
  }
  /**
   * The arguments were rejected before the tool ran, with the issues sorted — every one, or (from
   * a server that limits its answers, as this library's does) the first ones and in `omitted` how
   * many more there are.
   */
  | {
    kind: "invalid-arguments";
    issues: SchemaIssue[];
    via: "protocol-error" | "tool-result";
    /** How many issues the server left out of its answer; 0 when none (absent: not told). */
    omitted?: number;
  }
  /**
   * The server's call limits refused the call (`-32029`); nothing ran. Try again after
   * `retryAfterSeconds`.
   */
  | {
    kind: "rate-limited";
    message: string;
    /** Whole seconds until the limit's window ends (the server's, else 1). */
    retryAfterSeconds: number;
    /** The limit, in the server's words, when it said. */
    limit?: string;
  }
  /** Any other JSON-RPC error (unknown tool, bad params, internal error). */
  | { kind: "protocol-error"; code: number; message: string; data?: unknown };

/** The `omitted` count an invalid-arguments answer carries beside its issues; 0 when absent. */
function omittedOf(data: Record<string, unknown>): number {
  const n = data.omitted;
  return typeof n === "number" && Number.isSafeInteger(n) && n > 0 ? n : 0;
}

function looksLikeIssues(v: unknown): v is SchemaIssue[] {
  return Array.isArray(v) &&
    v.every((i) => isObject(i) && typeof i.path === "string" && typeof i.keyword === "string");
}

/**
 * Where an invalid-arguments tool error carries its issues when the tool has an `outputSchema`:
 * clients (the official SDK among them) check any `structuredContent` against that schema, so the
 * issues go under this `_meta` key instead.
 */
export const ISSUES_META_KEY = "dev.tool-estate/issues";

/** The deprecation notice a result carries in its `_meta`, when it is well formed. */
export function noticeOf(result: CallToolResult): DeprecationNotice | undefined {
  const n = isObject(result._meta) ? result._meta[DEPRECATION_META_KEY] : undefined;
  return isObject(n) && typeof n.tool === "string" && typeof n.version === "string" &&
      typeof n.deprecatedAt === "string"
    ? n as unknown as DeprecationNotice
    : undefined;
}

/** The outcome of a call the server answered with a result. */
export function resultOutcome(result: CallToolResult): CallOutcome {
  const deprecation = noticeOf(result);
  const told = deprecation ? { deprecation } : {};
  if (!result.isError) return { kind: "ok", result, ...told };
  // The issues ride in structuredContent, or — for a tool with an outputSchema, whose
  // structuredContent clients check against it — under the estate's _meta key.
  const meta = isObject(result._meta) ? result._meta[ISSUES_META_KEY] : undefined;
  const carrier = isObject(result.structuredContent) &&
      looksLikeIssues(result.structuredContent.issues)
    ? result.structuredContent
    : isObject(meta) && looksLikeIssues(meta.issues)
    ? meta
    : undefined;
  if (carrier) {
    const issues = carrier.issues as SchemaIssue[];
    return {
      kind: "invalid-arguments",
      issues,
      via: "tool-result",
      omitted: omittedOf(carrier),
    };
  }
  const text = (result.content ?? []).filter((c) => c.type === "text").map((
    c,
  ) => (c as { text: string }).text).join("\n");
  return { kind: "tool-error", result, message: text, ...told };
}

/** The outcome of a call the server answered with an error. */
export function errorOutcome(error: JsonRpcError): CallOutcome {
  const data = isObject(error.data) ? error.data : {};
  const issues = data.issues;
  if (error.code === ERROR_CODES.INVALID_PARAMS && looksLikeIssues(issues)) {
    return {
      kind: "invalid-arguments",
      issues,
      via: "protocol-error",
      omitted: omittedOf(data),
    };
  }
  if (error.code === ESTATE_ERROR_CODES.RATE_LIMITED) {
    const after = data.retryAfterSeconds;
    return {
      kind: "rate-limited",
      message: error.message,
      retryAfterSeconds: typeof after === "number" && Number.isFinite(after) && after > 0
        ? Math.ceil(after)
        : 1,
      ...(typeof data.limit === "string" ? { limit: data.limit } : {}),
    };
  }
  return {
    kind: "protocol-error",
    code: error.code,
    message: error.message,
    data: error.data,
  };
}
