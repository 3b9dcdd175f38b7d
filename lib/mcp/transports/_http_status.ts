/**
 * Every HTTP status the Streamable HTTP transport answers with, in one table: the transport's own
 * refusals (what HTTP decides before a message reaches the server: the path, the method, the
 * headers, the body, the session) and the outcome of each served message (what the server
 * decided, `Outcome`), per era. Nothing else in the transport names a status.
 *
 * @module
 */
import type { OutcomeKind } from "../outcome.ts";

/** What the transport refuses before a message reaches the server. */
export type HttpRefusal =
  | "host-refused"
  | "wrong-path"
  | "method-not-allowed"
  | "not-acceptable"
  | "unsupported-media-type"
  | "body-too-large"
  | "body-timeout"
  | "body-unreadable"
  | "parse-error"
  | "invalid-envelope"
  | "idempotency-key-mismatch"
  | "unsupported-version-header"
  | "no-session"
  | "unknown-session"
  | "other-principal"
  | "sessions-full"
  | "connections-full"
  | "headers-timeout"
  | "unauthorized"
  | "authenticator-failed"
  | "authorization-unavailable"
  | "internal-error";

/** The status of each refusal. */
export const REFUSAL_STATUS: Readonly<Record<HttpRefusal, number>> = {
  "host-refused": 403,
  "wrong-path": 404,
  "method-not-allowed": 405,
  "not-acceptable": 406,
  "unsupported-media-type": 415,
  "body-too-large": 413,
  "body-timeout": 408,
  "body-unreadable": 400,
  "parse-error": 400,
  "invalid-envelope": 400,
  "idempotency-key-mismatch": 400,
  "unsupported-version-header": 400,
  "no-session": 400,
  "unknown-session": 404,
  "other-principal": 403,
  "sessions-full": 503,
  "connections-full": 503,
  "headers-timeout": 408,
  "unauthorized": 401,
  "authenticator-failed": 500,
  "authorization-unavailable": 503,
  "internal-error": 500,
};

/** The status line of a refusal answered on the raw socket (before HTTP parsing is done). */
export function statusLine(refusal: "connections-full" | "headers-timeout"): string {
  const status = REFUSAL_STATUS[refusal];
  return `${status} ${status === 503 ? "Service Unavailable" : "Request Timeout"}`;
}

/**
 * The status of a served message, by its outcome and era. A session's JSON-RPC errors travel in a
 * 200 answer; the stateless revision (2026-07-28) answers the refusals of its envelope checks with
 * 4xx. A step-up is 403 in both: the transport answers it with the bearer challenge. A call
 * beyond a limit is 429 in both, with `Retry-After`, and the JSON-RPC error as its body. An
 * idempotency key reused with other arguments is 422 and a key whose first call still runs is 409
 * (with `Retry-After`) in the stateless revision, as the IETF Idempotency-Key draft has them.
 */
export const OUTCOME_STATUS: Readonly<
  Record<OutcomeKind, { readonly handshake: number; readonly stateless: number }>
> = {
  "answered": { handshake: 200, stateless: 200 },
  "accepted": { handshake: 202, stateless: 202 },
  "unanswered": { handshake: 200, stateless: 200 },
  "invalid": { handshake: 200, stateless: 400 },
  "header-mismatch": { handshake: 200, stateless: 400 },
  "unsupported-version": { handshake: 200, stateless: 400 },
  "not-found": { handshake: 200, stateless: 404 },
  "missing-capability": { handshake: 200, stateless: 400 },
  "step-up": { handshake: 403, stateless: 403 },
  "rate-limited": { handshake: 429, stateless: 429 },
  "idempotency-conflict": { handshake: 200, stateless: 422 },
  "in-progress": { handshake: 200, stateless: 409 },
  "failed": { handshake: 200, stateless: 200 },
};

/** The answers with no body: a preflight and an ended session (`DELETE`). */
export const NO_CONTENT = 204;
