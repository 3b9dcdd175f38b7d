/**
 * Builders for JSON-RPC 2.0 messages. Each checks its inputs, so what it returns is valid on the
 * wire. There is deliberately no builder that answers a notification: {@linkcode makeResult}
 * and {@linkcode makeError} take the request's id, never a message.
 *
 * @module
 */

import { isObject } from "../_object.ts";
import { JsonRpcError } from "./errors.ts";
import type {
  JsonRpcErrorObject,
  JsonRpcErrorResponse,
  JsonRpcId,
  JsonRpcNotification,
  JsonRpcParams,
  JsonRpcRequest,
  JsonRpcSuccess,
} from "./types.ts";
import { errorObjectProblem, idProblem, methodProblem, paramsProblem } from "./_rules.ts";

function check(fn: string, problem: string | undefined): void {
  if (problem !== undefined) throw new TypeError(`${fn}(): ${problem}`);
}

/** The parts of a request, for {@linkcode makeRequest}. */
export interface RequestParts {
  /** The id the response will carry: a string or an integer. */
  id: JsonRpcId;
  /** The method to call. */
  method: string;
  /** The arguments, by position (array) or by name (object); omitted when undefined. */
  params?: JsonRpcParams;
}

/**
 * Builds a request.
 *
 * @param parts The id the response will carry (a string or an integer), the method, and the
 *   arguments by position (array) or by name (object), omitted when undefined.
 * @returns The request.
 * @throws {TypeError} When `id` is null, a float, or not a string or a number; when `method` is
 *   not a string; when `params` is neither an object nor an array.
 *
 * @example
 * ```ts
 * import { makeRequest } from "@tool-estate/core";
 * import assert from "node:assert/strict";
 * assert.deepEqual(makeRequest({ id: 7, method: "tools/list" }), { jsonrpc: "2.0", id: 7, method: "tools/list" });
 * assert.throws(() => makeRequest({ id: 1.5, method: "tools/list" }), TypeError);
 * ```
 */
export function makeRequest(parts: RequestParts): JsonRpcRequest;
/**
 * Builds a request from its parts given one by one.
 *
 * @deprecated Give the parts as one object: `makeRequest({ id, method, params })`.
 *
 * @param id The id the response will carry: a string or an integer.
 * @param method The method to call.
 * @param params The arguments, by position (array) or by name (object); omitted when undefined.
 * @returns The request.
 * @throws {TypeError} When `id` is null, a float, or not a string or a number; when `method` is
 *   not a string; when `params` is neither an object nor an array.
 *
 * @example
 * ```ts
 * import { makeRequest } from "@tool-estate/core";
 * import assert from "node:assert/strict";
 * assert.deepEqual(makeRequest(7, "tools/list"), { jsonrpc: "2.0", id: 7, method: "tools/list" });
 * ```
 */
export function makeRequest(
  id: JsonRpcId,
  method: string,
  params?: JsonRpcParams,
): JsonRpcRequest;
export function makeRequest(
  first: RequestParts | JsonRpcId,
  ...rest: [method?: string, params?: JsonRpcParams]
): JsonRpcRequest {
  // One object whose shape is not an id: the parts. Anything else is the deprecated positional
  // form, whose id check says what is wrong with it.
  const { id, method, params } = rest.length === 0 && isObject(first)
    ? first as RequestParts
    : { id: first as JsonRpcId, method: rest[0] as string, params: rest[1] };
  check("makeRequest", idProblem(id));
  check("makeRequest", methodProblem(method));
  check("makeRequest", paramsProblem(params));
  return params === undefined
    ? { jsonrpc: "2.0", id, method }
    : { jsonrpc: "2.0", id, method, params };
}

/**
 * Builds a notification: a message with no id, which the receiver never answers.
 *
 * @param method The method, e.g. `notifications/tools/list_changed`.
 * @param params The arguments, by position (array) or by name (object); omitted when undefined.
 * @returns The notification.
 * @throws {TypeError} When `method` is not a string or `params` is neither an object nor an
 *   array.
 *
 * @example
 * ```ts
 * import { makeNotification } from "@tool-estate/core";
 * import assert from "node:assert/strict";
 * const n = makeNotification("notifications/tools/list_changed");
 * assert.deepEqual(n, { jsonrpc: "2.0", method: "notifications/tools/list_changed" });
 * assert.equal("id" in n, false);
 * ```
 */
export function makeNotification(
  method: string,
  params?: JsonRpcParams,
): JsonRpcNotification {
  check("makeNotification", methodProblem(method));
  check("makeNotification", paramsProblem(params));
  return params === undefined ? { jsonrpc: "2.0", method } : { jsonrpc: "2.0", method, params };
}

/**
 * Builds a successful response to the request with id `id`.
 *
 * @param id The id of the request being answered.
 * @param result The result: any JSON value, `null` included.
 * @returns The response.
 * @throws {TypeError} When `id` is not a string or an integer, or `result` is undefined (which
 *   JSON cannot carry; use `null`).
 *
 * @example
 * ```ts
 * import { makeResult } from "@tool-estate/core";
 * import assert from "node:assert/strict";
 * assert.deepEqual(makeResult("a1", { tools: [] }), {
 *   jsonrpc: "2.0",
 *   id: "a1",
 *   result: { tools: [] },
 * });
 * ```
 */
export function makeResult(id: JsonRpcId, result: unknown): JsonRpcSuccess {
  check("makeResult", idProblem(id));
  if (result === undefined) {
    throw new TypeError(
      "makeResult(): result must not be undefined (JSON cannot carry it; use null)",
    );
  }
  return { jsonrpc: "2.0", id, result };
}

/**
 * Builds an error response to the request with id `id`, or with `null` when that id could not
 * be determined (a parse error, an unreadable invalid request). For an error thrown by
 * `parseMessage` or `validateEnvelope`, pass `error.requestId`.
 *
 * @param id The id of the request being answered, or `null` when it is unknown.
 * @param error A {@linkcode JsonRpcError} or a wire error object `{code, message, data?}`.
 * @returns The response.
 * @throws {TypeError} When `id` is neither null, a string nor an integer, or `error` has no
 *   integer `code` or no string `message`.
 *
 * @example
 * ```ts
 * import { ERROR_CODES, JsonRpcError, makeError } from "@tool-estate/core";
 * import assert from "node:assert/strict";
 * const error = new JsonRpcError(ERROR_CODES.METHOD_NOT_FOUND, "Method not found: tools/nope");
 * assert.deepEqual(makeError(3, error), {
 *   jsonrpc: "2.0",
 *   id: 3,
 *   error: { code: -32601, message: "Method not found: tools/nope" },
 * });
 * ```
 */
export function makeError(
  id: JsonRpcId | null,
  error: JsonRpcError | JsonRpcErrorObject,
): JsonRpcErrorResponse {
  if (id !== null) check("makeError", idProblem(id));
  const object = error instanceof JsonRpcError ? error.toJSON() : error;
  check("makeError", errorObjectProblem(object));
  const wire: JsonRpcErrorObject = object.data === undefined
    ? { code: object.code, message: object.message }
    : { code: object.code, message: object.message, data: object.data };
  return { jsonrpc: "2.0", id, error: wire };
}
