/**
 * The JSON-RPC 2.0 message shapes, as they appear on the wire.
 *
 * @module
 */

/**
 * A request id: a string or an integer. JSON-RPC 2.0 discourages fractional ids and forbids
 * `null` in a request; this library rejects both, and integers beyond ±(2^53 − 1), which do not
 * survive a JSON round trip.
 */
export type JsonRpcId = string | number;

/** The `params` of a request or notification: by position (an array) or by name (an object). */
export type JsonRpcParams = readonly unknown[] | {
  readonly [name: string]: unknown;
};

/** A request: carries an `id` and expects exactly one response with the same id. */
export interface JsonRpcRequest {
  /** Always `"2.0"`. */
  jsonrpc: "2.0";
  /** The id the response will carry. */
  id: JsonRpcId;
  /** The method to call, e.g. `tools/call`. */
  method: string;
  /** The arguments, when there are any. */
  params?: JsonRpcParams;
}

/** A notification: has no `id` and is never answered, not even with an error. */
export interface JsonRpcNotification {
  /** Always `"2.0"`. */
  jsonrpc: "2.0";
  /** The method, e.g. `notifications/tools/list_changed`. */
  method: string;
  /** The arguments, when there are any. */
  params?: JsonRpcParams;
}

/** The wire shape of an error: the `error` member of an error response. */
export interface JsonRpcErrorObject {
  /** An integer code, e.g. `-32601` (see `ERROR_CODES`). */
  code: number;
  /** A short description of the error. */
  message: string;
  /** Anything more the sender wants to say, e.g. a list of validation issues. */
  data?: unknown;
}

/** A successful response: the `result` of the request with the same `id`. */
export interface JsonRpcSuccess {
  /** Always `"2.0"`. */
  jsonrpc: "2.0";
  /** The id of the request this answers. */
  id: JsonRpcId;
  /** The result; any JSON value, `null` included. */
  result: unknown;
}

/**
 * An error response. `id` is `null` only when the id of the request could not be determined
 * (a parse error, or an invalid request whose id was unreadable).
 */
export interface JsonRpcErrorResponse {
  /** Always `"2.0"`. */
  jsonrpc: "2.0";
  /** The id of the request this answers, or `null` when it could not be determined. */
  id: JsonRpcId | null;
  /** What went wrong. */
  error: JsonRpcErrorObject;
}

/** Either kind of response. */
export type JsonRpcResponse = JsonRpcSuccess | JsonRpcErrorResponse;

/** Any single JSON-RPC 2.0 message (batches are not supported). */
export type JsonRpcMessage =
  | JsonRpcRequest
  | JsonRpcNotification
  | JsonRpcResponse;
