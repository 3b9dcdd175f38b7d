/**
 * JSON-RPC 2.0: the message shapes, builders that check their inputs, a strict reader that
 * classifies a message as request, notification or response, the wire error codes, the
 * transport interface, and the peer that runs a conversation over a transport.
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
export { ERROR_CODES, ESTATE_ERROR_CODES, JsonRpcError, MCP_ERROR_CODES } from "./errors.ts";
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
export { createLinkedTransports } from "./transport.ts";
export type { Transport, TransportSendOptions } from "./transport.ts";
export { JsonRpcPeer } from "./peer.ts";
export type {
  NotificationHandler,
  PeerCall,
  PeerOptions,
  PeerRequestOptions,
  PeerTimers,
  Progress,
  ProtocolErrorReport,
  RequestContext,
  RequestHandler,
} from "./peer_types.ts";
export { PeerError } from "./peer_error.ts";
export type { PeerErrorKind, PeerErrorOptions } from "./peer_error.ts";
