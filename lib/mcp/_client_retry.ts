// The client's retry of a tools/call: which failures are worth another attempt, how long to wait
// before it, and whether a listed tool may run twice (a key is sent for one that may not).
import { ESTATE_ERROR_CODES, JsonRpcError } from "../jsonrpc/errors.ts";
import { PeerError } from "../jsonrpc/peer_error.ts";
import { isObject } from "../_object.ts";
import type { ListedTool } from "./protocol.ts";

/** HTTP statuses of a request that may be sent again: a gateway or a replica failing over. */
const RETRY_STATUSES: ReadonlySet<number> = new Set([0, 502, 503, 504]);

/**
 * Whether a failed attempt is retried: no answer in time (the call may have run: the key makes the
 * retry safe), the server's "the first call with this key is still running" (`-32050`), or an HTTP
 * request that got no answer or a gateway's or an unavailable replica's (status 0, 502, 503, 504 of
 * the transport's `StreamableHttpError`, known by its name and status so that the client core does
 * not depend on one transport).
 */
export function retryable(e: unknown): boolean {
  return (e instanceof PeerError && e.kind === "timeout") ||
    (e instanceof JsonRpcError && e.code === ESTATE_ERROR_CODES.IDEMPOTENCY_IN_PROGRESS) ||
    (e instanceof Error && e.name === "StreamableHttpError" &&
      RETRY_STATUSES.has((e as Error & { status?: number }).status ?? -1));
}

/**
 * How long to wait before attempt `attempt + 1`: the server's `retryAfterSeconds` when it said
 * (at most 30 s), else `base` doubling per attempt, at most 5 s.
 */
export function retryDelayMs(attempt: number, e: unknown, base: number): number {
  if (e instanceof JsonRpcError && isObject(e.data)) {
    const after = e.data.retryAfterSeconds;
    if (typeof after === "number" && after >= 0) return Math.min(after * 1000, 30_000);
  }
  return Math.min(base * 2 ** attempt, 5_000);
}

/**
 * Whether a tool may run twice with the same arguments: listed as read-only or idempotent
 * (`RETRYABLE` of its side-effect class, as its annotations say it). An unlisted tool may not.
 */
export function mayRunTwice(tool: ListedTool | undefined): boolean {
  const hints = tool?.annotations;
  return hints?.readOnlyHint === true || hints?.idempotentHint === true;
}
