/**
 * {@linkcode PeerError}: why a request ended without an answer — kept apart from
 * {@linkcode JsonRpcError}, the answer the other side sent.
 *
 * @module
 */
import type { JsonRpcId } from "./types.ts";

/**
 * Why a request ended without an answer: it ran out of time, it was cancelled (by this side, or
 * abandoned because the other side ended it), or the connection closed.
 */
export type PeerErrorKind = "timeout" | "cancelled" | "closed";

/** Options for {@linkcode PeerError}. */
export interface PeerErrorOptions {
  /** The request's method, when the error ends a request. */
  method?: string;
  /** The request's id, when the error ends a request that was sent. */
  requestId?: JsonRpcId;
  /** The underlying reason (an abort reason, a transport error), kept for logs. */
  cause?: unknown;
}

/**
 * A request that ended on this side without an answer from the other: never sent, never received.
 * A JSON-RPC error the other side answered with is a {@linkcode JsonRpcError} instead.
 *
 * @example
 * ```ts
 * import { PeerError } from "@tool-estate/core";
 * import assert from "node:assert/strict";
 * const error = new PeerError("timeout", "request tools/list timed out after 50 ms", {
 *   method: "tools/list",
 *   requestId: 3,
 * });
 * assert.equal(error.kind, "timeout");
 * assert.equal(error.name, "PeerError");
 * ```
 */
export class PeerError extends Error {
  /** Why the request ended. */
  readonly kind: PeerErrorKind;
  /** The request's method, when the error ends a request. */
  readonly method?: string;
  /** The request's id, when it was sent. */
  readonly requestId?: JsonRpcId;

  /**
   * Makes the error.
   *
   * @param kind Why the request ended.
   * @param message What ended, and why (e.g. `request tools/list was cancelled`).
   * @param options The request's method and id, and the cause.
   */
  constructor(
    kind: PeerErrorKind,
    message: string,
    options: PeerErrorOptions = {},
  ) {
    super(
      message,
      options.cause === undefined ? undefined : { cause: options.cause },
    );
    this.name = "PeerError";
    this.kind = kind;
    if (options.method !== undefined) this.method = options.method;
    if (options.requestId !== undefined) this.requestId = options.requestId;
  }
}
