/**
 * The shapes around {@linkcode JsonRpcPeer}: its options and timers, a call in flight, progress,
 * the context and signature of request and notification handlers, and what it reports instead of
 * throwing. Apart from `peer.ts` so that its two halves (`_peer_outgoing.ts`, `_peer_incoming.ts`)
 * can name them without importing the peer.
 *
 * @module
 */
import type { JsonRpcError } from "./errors.ts";
import type { JsonRpcId, JsonRpcMessage, JsonRpcParams, JsonRpcResponse } from "./types.ts";

/** One progress update: `progress` grows with each; `total` when known. */
export interface Progress {
  /** How far along (only ever increases). */
  progress: number;
  /** The value `progress` will reach, when known. */
  total?: number;
  /** What is happening. */
  message?: string;
}

/** Options for one request (see {@linkcode JsonRpcPeer.request}). */
export interface PeerRequestOptions {
  /**
   * Cancels the request: the other side is told (`notifications/cancelled`, or the transport's
   * own means) and the request rejects with a {@linkcode PeerError} of kind `cancelled`.
   */
  signal?: AbortSignal;
  /**
   * How long to wait for the answer, in milliseconds (`Infinity`: no limit); then the request
   * rejects with a {@linkcode PeerError} of kind `timeout`. Default the peer's
   * `requestTimeoutMs`.
   */
  timeoutMs?: number;
  /**
   * Receives the other side's progress notifications for this request: the request is sent with
   * `_meta.progressToken` (its id), so its params must be an object.
   */
  onProgress?: (progress: Progress) => void;
  /** The incoming request this one is sent on behalf of (see {@linkcode TransportSendOptions}). */
  relatedRequestId?: JsonRpcId;
}

/** A request sent with {@linkcode JsonRpcPeer.start}: its id, and its outcome to come. */
export interface PeerCall {
  /** The request's id. */
  readonly id: JsonRpcId;
  /**
   * The answer's `result`. Rejects with a {@linkcode JsonRpcError} when the other side answered
   * with an error, a {@linkcode PeerError} when there was no answer, or the transport's own error
   * when the request could not be sent.
   */
  readonly result: Promise<unknown>;
  /**
   * Stops waiting without telling the other side (because the other side ended the request
   * itself): `result` rejects with a {@linkcode PeerError} of kind `cancelled` and this message.
   * Does nothing once the request has settled.
   */
  abandon(message: string): void;
}

/** What a request handler is given besides the params. */
export interface RequestContext {
  /** The request's id. */
  readonly id: JsonRpcId;
  /** The request's method. */
  readonly method: string;
  /**
   * Aborted when the other side cancels the request (`notifications/cancelled`) or the peer
   * closes; whatever the handler returns after that is not sent.
   */
  readonly signal: AbortSignal;
  /** The request's `_meta.progressToken`, when it asked for progress. */
  readonly progressToken: JsonRpcId | undefined;
  /**
   * Sends `notifications/progress` for this request — only when it carried a progress token,
   * only while it runs, and only when `progress` is greater than the last value sent.
   */
  progress(update: Progress): void;
  /** Sends a notification related to this request (a Streamable HTTP server sends it on its stream). */
  notify(method: string, params?: JsonRpcParams): Promise<void>;
  /** Sends a request related to this one to the other side (e.g. a server asking its client). */
  request(
    method: string,
    params?: JsonRpcParams,
    options?: PeerRequestOptions,
  ): Promise<unknown>;
}

/**
 * Handles one request: returns its result (`undefined` is sent as `{}`), or throws a
 * {@linkcode JsonRpcError} to answer with it. Any other throw is answered `-32603` Internal error
 * (and reported to `onProtocolError`; the details never cross the wire).
 */
export type RequestHandler = (
  params: JsonRpcParams | undefined,
  context: RequestContext,
) => unknown;

/** Handles one notification (never answered). A throw is reported to `onProtocolError`. */
export type NotificationHandler = (
  params: JsonRpcParams | undefined,
  context: { readonly method: string },
) => void | Promise<void>;

/** Something the peer ignored or could not do, told to `onProtocolError`. */
export type ProtocolErrorReport =
  /** A message that is not valid JSON-RPC (answered, unless `answerInvalid` is false). */
  | { kind: "invalid-message"; error: JsonRpcError; message: unknown }
  /** A response to no request this peer waits for (late, cancelled, timed out or unknown). */
  | { kind: "unknown-response"; message: JsonRpcResponse }
  /** A handler (or an `onProgress` callback) threw something other than a `JsonRpcError`. */
  | { kind: "handler-failed"; method: string; error: unknown }
  /** A response or notification could not be sent. */
  | { kind: "send-failed"; message: JsonRpcMessage; error: unknown };

/** Setting and clearing one timer (see {@linkcode PeerOptions.timers}). */
export interface PeerTimers {
  /** Calls `fn` once after `ms` milliseconds; returns a handle for `clearTimeout`. */
  setTimeout(fn: () => void, ms: number): unknown;
  /** Cancels a timer set with `setTimeout`. */
  clearTimeout(handle: unknown): void;
}

/** Options for a {@linkcode JsonRpcPeer}. */
export interface PeerOptions {
  /** How long a request waits for its answer, in milliseconds (`Infinity`: no limit). Default 30 s. */
  requestTimeoutMs?: number;
  /**
   * Whether a request that times out is also cancelled on the other side
   * (`notifications/cancelled`, as MCP says a sender SHOULD). Default true.
   */
  cancelOnTimeout?: boolean;
  /**
   * Whether an invalid message is answered with the `-32600` error JSON-RPC prescribes. Its id is
   * echoed only when the message has a `method` (a request gone wrong); a broken response is
   * answered with id `null`, so the answer is never taken for the answer to one of the other
   * side's own requests. Default true.
   */
  answerInvalid?: boolean;
  /** Told about what the peer ignores or cannot do; see {@linkcode ProtocolErrorReport}. */
  onProtocolError?: (report: ProtocolErrorReport) => void;
  /** The timers. Default the platform's `setTimeout`/`clearTimeout`. Tests pass their own. */
  timers?: PeerTimers;
}
