/**
 * JSON-RPC 2.0: the message shapes, builders that check their inputs, a strict reader that
 * classifies a message as request, notification or response, and the wire error codes.
 *
 * @module
 */

export type {
  JsonRpcErrorObject,
  JsonRpcErrorResponse,
  JsonRpcId,
  JsonRpcMessage,
  JsonRpcNotification,
  JsonRpcParams,
  JsonRpcRequest,
  JsonRpcResponse,
  JsonRpcSuccess,
} from "./types.ts";
export { ERROR_CODES, JsonRpcError, MCP_ERROR_CODES } from "./errors.ts";
export type { JsonRpcErrorOptions } from "./errors.ts";
export {
  makeError,
  makeNotification,
  makeRequest,
  makeResult,
  type RequestParts,
} from "./messages.ts";
export { parseMessage, validateEnvelope } from "./envelope.ts";
export type { ClassifiedMessage } from "./envelope.ts";
