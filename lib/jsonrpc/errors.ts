/**
 * Wire error codes and {@linkcode JsonRpcError}.
 *
 * @module
 */

import type { JsonRpcErrorObject, JsonRpcId } from "./types.ts";
import { describe, isId } from "./_rules.ts";

/**
 * The error codes JSON-RPC 2.0 reserves (the range `-32768..-32000` is reserved for the
 * protocol; application codes belong outside it).
 *
 * @example
 * ```ts
 * import { ERROR_CODES } from "@tool-estate/core";
 * import assert from "node:assert/strict";
 * assert.equal(ERROR_CODES.METHOD_NOT_FOUND, -32601);
 * ```
 */
export const ERROR_CODES: {
  /** The text received was not valid JSON. */
  readonly PARSE_ERROR: -32700;
  /** The JSON received is not a valid JSON-RPC 2.0 message. */
  readonly INVALID_REQUEST: -32600;
  /** The method does not exist or is not available (to this caller). */
  readonly METHOD_NOT_FOUND: -32601;
  /** The method's parameters are invalid. */
  readonly INVALID_PARAMS: -32602;
  /** An internal error in the receiver. */
  readonly INTERNAL_ERROR: -32603;
} = Object.freeze(
  {
    PARSE_ERROR: -32700,
    INVALID_REQUEST: -32600,
    METHOD_NOT_FOUND: -32601,
    INVALID_PARAMS: -32602,
    INTERNAL_ERROR: -32603,
  } as const,
);

/**
 * Error codes the Model Context Protocol defines on top of JSON-RPC's own. Kept apart from
 * {@linkcode ERROR_CODES}: these mean something only between MCP peers.
 *
 * @example
 * ```ts
 * import { MCP_ERROR_CODES } from "@tool-estate/core";
 * import assert from "node:assert/strict";
 * assert.equal(MCP_ERROR_CODES.RESOURCE_NOT_FOUND, -32002);
 * ```
 */
export const MCP_ERROR_CODES: {
  /**
   * `resources/read` of an unknown URI, up to revision 2025-11-25. Revision 2026-07-28 answers
   * with `-32602` instead, and clients should accept both.
   */
  readonly RESOURCE_NOT_FOUND: -32002;
  /** The HTTP headers disagree with the message body (2026-07-28). */
  readonly HEADER_MISMATCH: -32020;
  /** The server needs a capability the client did not declare (2026-07-28). */
  readonly MISSING_REQUIRED_CLIENT_CAPABILITY: -32021;
  /** The request's protocol version is not supported; `data` lists the supported ones (2026-07-28). */
  readonly UNSUPPORTED_PROTOCOL_VERSION: -32022;
  /** URL-mode elicitation is required before the request can proceed (2025-11-25). */
  readonly URL_ELICITATION_REQUIRED: -32042;
} = Object.freeze(
  {
    RESOURCE_NOT_FOUND: -32002,
    HEADER_MISMATCH: -32020,
    MISSING_REQUIRED_CLIENT_CAPABILITY: -32021,
    UNSUPPORTED_PROTOCOL_VERSION: -32022,
    URL_ELICITATION_REQUIRED: -32042,
  } as const,
);

/**
 * Error codes tool-estate answers with where neither JSON-RPC nor MCP defines one, in JSON-RPC's
 * range for implementation-defined server errors (`-32000..-32099`), clear of the codes MCP uses
 * there. Kept apart from {@linkcode ERROR_CODES} and {@linkcode MCP_ERROR_CODES}: they mean
 * something only to an estate's callers.
 *
 * @example
 * ```ts
 * import { ESTATE_ERROR_CODES } from "@tool-estate/core";
 * import assert from "node:assert/strict";
 * assert.equal(ESTATE_ERROR_CODES.RATE_LIMITED, -32029);
 * assert.equal(ESTATE_ERROR_CODES.IDEMPOTENCY_IN_PROGRESS, -32050);
 * ```
 */
export const ESTATE_ERROR_CODES: {
  /**
   * A `tools/call` beyond one of the estate's call limits; nothing ran. `data` names the limit
   * and `retryAfterSeconds` (HTTP answers 429 with `Retry-After`).
   */
  readonly RATE_LIMITED: -32029;
  /**
   * A call with this idempotency key is still running (on this replica or another); nothing was
   * run. Retryable: `data.retryAfterSeconds` says when to ask again.
   */
  readonly IDEMPOTENCY_IN_PROGRESS: -32050;
  /**
   * The first call with this idempotency key started and never reported an outcome within its
   * lease (its replica died); it was not run again, and will not be. Not retryable.
   */
  readonly IDEMPOTENCY_OUTCOME_UNKNOWN: -32051;
} = Object.freeze(
  {
    RATE_LIMITED: -32029,
    IDEMPOTENCY_IN_PROGRESS: -32050,
    IDEMPOTENCY_OUTCOME_UNKNOWN: -32051,
  } as const,
);

/** Options for {@linkcode JsonRpcError}. */
export interface JsonRpcErrorOptions {
  /** Sent as the error object's `data` member. */
  data?: unknown;
  /**
   * The id of the request this error answers, when it is known; `null` (the default) when it
   * could not be determined. {@linkcode validateEnvelope} fills this in for an invalid message
   * whose `id` was still readable.
   */
  requestId?: JsonRpcId | null;
  /** The underlying error, kept as `cause` for logs; never sent. */
  cause?: unknown;
}

/**
 * An error that crosses the wire as a JSON-RPC error object.
 *
 * `message` is the text sent; {@linkcode JsonRpcError.prototype.toJSON} gives the wire shape.
 * `requestId` says which request to answer: a server replies with
 * `makeError(error.requestId, error)`.
 *
 * @example
 * ```ts
 * import { ERROR_CODES, JsonRpcError } from "@tool-estate/core";
 * import assert from "node:assert/strict";
 * const error = new JsonRpcError(ERROR_CODES.INVALID_PARAMS, "amount must be an integer", {
 *   data: [{ path: "$.amount", keyword: "type" }],
 * });
 * assert.deepEqual(error.toJSON(), {
 *   code: -32602,
 *   message: "amount must be an integer",
 *   data: [{ path: "$.amount", keyword: "type" }],
 * });
 * assert.equal(error.requestId, null);
 * ```
 */
export class JsonRpcError extends Error {
  /** The integer error code, e.g. `-32601`. */
  readonly code: number;
  /** The `data` member, if any. */
  readonly data?: unknown;
  /** The id of the request this error answers, or `null` when it could not be determined. */
  readonly requestId: JsonRpcId | null;

  /**
   * Makes an error.
   *
   * @param code An integer code: one of {@linkcode ERROR_CODES}, or an application code
   *   outside `-32768..-32000`.
   * @param message A short description, sent as is.
   * @param options `data` to send, the `requestId` being answered, a `cause` to keep.
   * @throws {TypeError} When `code` is not an integer, `message` not a string, or `requestId`
   *   neither a string, an integer nor `null`.
   */
  constructor(
    code: number,
    message: string,
    options: JsonRpcErrorOptions = {},
  ) {
    if (!Number.isSafeInteger(code)) {
      throw new TypeError(
        `JsonRpcError: code must be an integer, got ${describe(code)}`,
      );
    }
    if (typeof message !== "string") {
      throw new TypeError(
        `JsonRpcError: message must be a string, got ${describe(message)}`,
      );
    }
    const requestId = options.requestId ?? null;
    if (requestId !== null && !isId(requestId)) {
      throw new TypeError(
        `JsonRpcError: requestId must be a string, an integer or null, got ${describe(requestId)}`,
      );
    }
    super(
      message,
      options.cause === undefined ? undefined : { cause: options.cause },
    );
    this.name = "JsonRpcError";
    this.code = code;
    if (options.data !== undefined) this.data = options.data;
    this.requestId = requestId;
  }

  /**
   * The wire shape: `{code, message}`, plus `data` when there is any.
   *
   * @returns A plain object, ready for `JSON.stringify` or `makeError`.
   */
  toJSON(): JsonRpcErrorObject {
    return this.data === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, data: this.data };
  }
}
