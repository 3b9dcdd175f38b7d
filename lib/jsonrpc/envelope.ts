/**
 * Reading JSON-RPC 2.0 messages: {@linkcode parseMessage} for text, {@linkcode validateEnvelope}
 * for an already parsed value.
 *
 * @module
 */

import { isObject } from "../_object.ts";
import { ERROR_CODES, JsonRpcError } from "./errors.ts";
import type {
  JsonRpcErrorObject,
  JsonRpcId,
  JsonRpcNotification,
  JsonRpcParams,
  JsonRpcRequest,
  JsonRpcResponse,
} from "./types.ts";
import {
  describe,
  errorObjectProblem,
  idProblem,
  isId,
  member,
  methodProblem,
  paramsProblem,
} from "./_rules.ts";

/**
 * A valid message and what kind it is. Only a `request` is ever answered.
 */
export type ClassifiedMessage =
  | { kind: "request"; message: JsonRpcRequest }
  | { kind: "notification"; message: JsonRpcNotification }
  | { kind: "response"; message: JsonRpcResponse };

function invalid(problem: string, requestId: JsonRpcId | null): JsonRpcError {
  return new JsonRpcError(
    ERROR_CODES.INVALID_REQUEST,
    `Invalid Request: ${problem}`,
    {
      requestId,
    },
  );
}

/**
 * Checks that a parsed JSON value is one JSON-RPC 2.0 message and says which kind.
 *
 * The returned message is a fresh object holding only the members JSON-RPC defines (`params`,
 * `result` and `error.data` are the values given, not copies). Batches (arrays) are not
 * supported: MCP removed them in revision 2025-06-18.
 *
 * @param value A value from `JSON.parse`.
 * @returns `{kind: "request" | "notification" | "response", message}`.
 * @throws {JsonRpcError} Code `-32600` (Invalid Request), saying what is wrong and where, when:
 *   the value is not an object (an array is a batch, which is not supported); `jsonrpc` is not
 *   exactly `"2.0"`; `method` is not a string; `params` is neither an object nor an array; a
 *   request's `id` is null, a float, a boolean, an object or an array; a message has both a
 *   method and a result or error; a response has both or neither of `result` and `error`, or a
 *   malformed `error`. The error's `requestId` is the message's id when that id was readable
 *   (a string or an integer), else `null`, so a server can answer with
 *   `makeError(error.requestId, error)`.
 *
 * @example
 * ```ts
 * import { JsonRpcError, validateEnvelope } from "@tool-estate/core";
 * import assert from "node:assert/strict";
 * const classified = validateEnvelope({ jsonrpc: "2.0", id: 1, method: "tools/list" });
 * assert.equal(classified.kind, "request");
 * assert.throws(
 *   () => validateEnvelope({ jsonrpc: "2.0", id: 1.5, method: "tools/list" }),
 *   (e: unknown) =>
 *     e instanceof JsonRpcError && e.code === -32600 &&
 *     e.message === "Invalid Request: id must be a string or an integer, got 1.5",
 * );
 * ```
 */
export function validateEnvelope(value: unknown): ClassifiedMessage {
  if (Array.isArray(value)) {
    throw invalid(
      "batches (JSON arrays of messages) are not supported; send each message on its own",
      null,
    );
  }
  if (!isObject(value)) {
    throw invalid(
      `a message must be a JSON object, got ${describe(value)}`,
      null,
    );
  }
  const id = member(value, "id");
  const requestId = isId(id) ? id : null;
  const jsonrpc = member(value, "jsonrpc");
  if (jsonrpc !== "2.0") {
    throw invalid(
      jsonrpc === undefined
        ? 'jsonrpc is missing; it must be "2.0"'
        : `jsonrpc must be "2.0", got ${describe(jsonrpc)}`,
      requestId,
    );
  }
  const method = member(value, "method");
  const result = member(value, "result");
  const error = member(value, "error");

  if (method !== undefined) {
    const problem = methodProblem(method) ??
      paramsProblem(member(value, "params"));
    if (problem !== undefined) throw invalid(problem, requestId);
    if (result !== undefined || error !== undefined) {
      throw invalid(
        `a message with a method (a request or notification) cannot also have ${
          result !== undefined ? "a result" : "an error"
        }`,
        requestId,
      );
    }
    const params = member(value, "params") as JsonRpcParams | undefined;
    if (id === undefined) {
      const message: JsonRpcNotification = params === undefined
        ? { jsonrpc: "2.0", method: method as string }
        : { jsonrpc: "2.0", method: method as string, params };
      return { kind: "notification", message };
    }
    if (id === null) {
      throw invalid(
        "id must not be null in a request (omit the id to send a notification)",
        null,
      );
    }
    const idIssue = idProblem(id);
    if (idIssue !== undefined) throw invalid(idIssue, null);
    const message: JsonRpcRequest = params === undefined
      ? { jsonrpc: "2.0", id: id as JsonRpcId, method: method as string }
      : {
        jsonrpc: "2.0",
        id: id as JsonRpcId,
        method: method as string,
        params,
      };
    return { kind: "request", message };
  }

  if (result === undefined && error === undefined) {
    throw invalid(
      "a message needs a method (a request or notification) or exactly one of result and " +
        "error (a response)",
      requestId,
    );
  }
  if (result !== undefined && error !== undefined) {
    throw invalid(
      "a response must have exactly one of result and error, got both",
      requestId,
    );
  }
  if (id === undefined) {
    throw invalid(
      "a response must have an id (null only in an error response to an unreadable request)",
      null,
    );
  }
  if (error !== undefined) {
    if (id !== null) {
      const idIssue = idProblem(id);
      if (idIssue !== undefined) throw invalid(idIssue, null);
    }
    const errorIssue = errorObjectProblem(error);
    if (errorIssue !== undefined) throw invalid(errorIssue, requestId);
    const e = error as Record<string, unknown>;
    const data = member(e, "data");
    const wire: JsonRpcErrorObject = data === undefined
      ? { code: e.code as number, message: e.message as string }
      : { code: e.code as number, message: e.message as string, data };
    return {
      kind: "response",
      message: { jsonrpc: "2.0", id: id as JsonRpcId | null, error: wire },
    };
  }
  if (id === null) {
    throw invalid("id must not be null in a successful response", null);
  }
  const idIssue = idProblem(id);
  if (idIssue !== undefined) throw invalid(idIssue, null);
  return {
    kind: "response",
    message: { jsonrpc: "2.0", id: id as JsonRpcId, result },
  };
}

/**
 * Parses one JSON-RPC 2.0 message from text, then checks it with {@linkcode validateEnvelope}.
 *
 * @param text The JSON text of one message, e.g. one line of a stdio transport.
 * @returns `{kind: "request" | "notification" | "response", message}`.
 * @throws {JsonRpcError} Code `-32700` (Parse error) when `text` is not JSON, with `requestId`
 *   `null`; code `-32600` (Invalid Request) for everything {@linkcode validateEnvelope} rejects.
 * @throws {TypeError} When `text` is not a string.
 *
 * @example
 * ```ts
 * import { JsonRpcError, parseMessage } from "@tool-estate/core";
 * import assert from "node:assert/strict";
 * const { kind, message } = parseMessage('{"jsonrpc":"2.0","method":"notifications/initialized"}');
 * assert.equal(kind, "notification");
 * assert.equal(message.jsonrpc, "2.0");
 * assert.throws(
 *   () => parseMessage("{not json"),
 *   (e: unknown) => e instanceof JsonRpcError && e.code === -32700 && e.requestId === null,
 * );
 * ```
 */
export function parseMessage(text: string): ClassifiedMessage {
  if (typeof text !== "string") {
    throw new TypeError(
      `parseMessage(): text must be a string, got ${describe(text)}`,
    );
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (cause) {
    const detail = cause instanceof Error ? cause.message : String(cause);
    throw new JsonRpcError(ERROR_CODES.PARSE_ERROR, `Parse error: ${detail}`, {
      cause,
    });
  }
  return validateEnvelope(value);
}
