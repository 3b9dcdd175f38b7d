/**
 * What serving one message came to, beside the JSON-RPC answer: the server decides it once, as it
 * serves the message, and a transport maps it to its own terms (the HTTP transport to a status and
 * headers, by one table) instead of deciding the message again.
 *
 * @module
 */
import { ERROR_CODES, MCP_ERROR_CODES } from "../jsonrpc/errors.ts";
import type { JsonRpcId, JsonRpcResponse } from "../jsonrpc/types.ts";
import type { DeprecationNotice } from "../estate/deprecation.ts";
import type { LimitRefusal } from "../estate/limits.ts";

/** The step-up a call needs: the version it reached and the scopes its credential lacks. */
export interface ScopeChallenge {
  /** The tool's name. */
  tool: string;
  /** The version the call reached. */
  version: string;
  /** The action scopes the credential lacks (`callScopes` it does not carry). */
  missing: string[];
  /**
   * Every scope the call needs: the version's `requiredScopes` (to see it) and `callScopes` (to
   * run it), so that a token asked for with just these still sees the tool.
   */
  needed: string[];
}

/**
 * What happened to one message.
 *
 * - `answered`: a request got its result (a tool's `isError` result included), or an error a
 *   method raised while serving it (a resource that does not exist, a bad cursor, …).
 * - `accepted`: a notification or a response; nothing is answered.
 * - `unanswered`: a request cancelled, or outlived by its session or server; it gets no answer.
 * - `invalid`: the request's envelope or params were refused before any method ran (`-32600`,
 *   `-32602`).
 * - `header-mismatch`: the transport's headers disagree with the body (`-32020`).
 * - `unsupported-version`: the request's protocol revision is not served (`-32022`).
 * - `not-found`: the method does not exist in the request's revision (`-32601`).
 * - `missing-capability`: the call needs a capability the client did not declare (`-32021`).
 * - `step-up`: a `tools/call` reached a version whose action scopes the credential lacks; the
 *   challenge names them. Nothing ran. A transport with a step-up answer of its own (HTTP's 403)
 *   gives it instead of the response, a tool error naming the scopes.
 * - `rate-limited`: a `tools/call` beyond one of the estate's call limits (`-32029`); nothing ran.
 *   The refusal says which limit and when to try again (HTTP: 429 with `Retry-After`).
 * - `idempotency-conflict`: a `tools/call`'s idempotency key was used before with another tool,
 *   version or arguments (`-32602`); nothing ran.
 * - `in-progress`: the first `tools/call` with this idempotency key is still running (`-32050`);
 *   nothing ran again; ask again after `retryAfterSeconds`.
 * - `failed`: the server failed (`-32603`); the details stay on the server.
 */
export type Outcome =
  | {
    readonly kind: "answered";
    /** A call that reached a deprecated version: what its caller is told. */
    readonly deprecation?: DeprecationNotice;
    /** A `tools/call` answered with the stored outcome of its idempotency key, not run again. */
    readonly replayed?: boolean;
  }
  | { readonly kind: "accepted" }
  | { readonly kind: "unanswered" }
  | { readonly kind: "invalid" }
  | { readonly kind: "header-mismatch" }
  | { readonly kind: "unsupported-version" }
  | { readonly kind: "not-found" }
  | { readonly kind: "missing-capability" }
  | { readonly kind: "step-up"; readonly challenge: ScopeChallenge }
  | { readonly kind: "rate-limited"; readonly refusal: LimitRefusal }
  | { readonly kind: "idempotency-conflict" }
  | { readonly kind: "in-progress"; readonly retryAfterSeconds: number }
  | { readonly kind: "failed" };

/** The kinds of {@linkcode Outcome}. */
export type OutcomeKind = Outcome["kind"];

/** One message served: the answer to send (none for a notification) and what happened. */
export interface Served {
  /** The response; undefined for a notification, a response, or a request left unanswered. */
  readonly response: JsonRpcResponse | undefined;
  /** What happened. */
  readonly outcome: Outcome;
}

/**
 * The outcome a response shows by itself, where the server reported none while serving it: no
 * response is `unanswered`, `-32603` is `failed`, a missing client capability is
 * `missing-capability`, anything else `answered` (an error a method raised is its answer).
 *
 * @param response The response, if any.
 * @returns The outcome.
 */
export function answeredOutcome(response: JsonRpcResponse | undefined): Outcome {
  if (response === undefined) return { kind: "unanswered" };
  if (!("error" in response)) return { kind: "answered" };
  switch (response.error.code) {
    case ERROR_CODES.INTERNAL_ERROR:
      return { kind: "failed" };
    case MCP_ERROR_CODES.MISSING_REQUIRED_CLIENT_CAPABILITY:
      return { kind: "missing-capability" };
    default:
      return { kind: "answered" };
  }
}

/**
 * Where the server notes the outcome a request reached while it is served, by request id: the
 * steps that decide one (the envelope, the step-up) note it; whatever serves the message reads it
 * once the answer is in.
 */
export type OutcomeNotes = Map<JsonRpcId, Outcome>;
