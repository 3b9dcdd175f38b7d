/**
 * {@linkcode JsonRpcPeer}: one end of a JSON-RPC 2.0 conversation over a {@linkcode Transport},
 * in both directions. It sends requests and waits for their answers (ids never reused, timeouts,
 * cancellation, progress), sends notifications, and dispatches the requests and notifications
 * that arrive to handlers, answering each request exactly once. An MCP client and an MCP server
 * are each one peer with their own handlers.
 *
 * Cancellation and progress follow MCP: `notifications/cancelled` (`{requestId, reason}`) and
 * `notifications/progress` (`{progressToken, progress, total?, message?}`, the token sent as the
 * request's `_meta.progressToken`), in both directions.
 *
 * Two kinds of failure are kept apart: a {@linkcode JsonRpcError} is the answer the other side
 * sent; a {@linkcode PeerError} (`timeout`, `cancelled`, `closed`) means there was no answer. What
 * the peer ignores (an invalid message, an answer to no request it sent, a handler that threw) is
 * reported to `onProtocolError`, never thrown.
 *
 * @module
 */
import { validateEnvelope } from "./envelope.ts";
import type { JsonRpcError } from "./errors.ts";
import { makeError, makeNotification } from "./messages.ts";
import { PeerError } from "./peer_error.ts";
import type { Transport, TransportSendOptions } from "./transport.ts";
import type {
  JsonRpcId,
  JsonRpcMessage,
  JsonRpcNotification,
  JsonRpcParams,
  JsonRpcResponse,
} from "./types.ts";
import { isObject } from "../_object.ts";
import { OutgoingRequests } from "./_peer_outgoing.ts";
import { IncomingRequests } from "./_peer_incoming.ts";

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

const PLATFORM_TIMERS: PeerTimers = {
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/**
 * One end of a JSON-RPC 2.0 conversation. It takes over the transport's `onmessage` and
 * `onclose`.
 *
 * @example
 * ```ts
 * import { createLinkedTransports, JsonRpcError, JsonRpcPeer, PeerError } from "@tool-estate/core";
 * import assert from "node:assert/strict";
 *
 * const [a, b] = createLinkedTransports();
 * const client = new JsonRpcPeer(a);
 * const server = new JsonRpcPeer(b);
 * server.onRequest("add", (params) => {
 *   const { x, y } = params as { x: number; y: number };
 *   return { sum: x + y };
 * });
 * // Either side may ask: here the server asks the client.
 * client.onRequest("roots/list", () => ({ roots: [] }));
 *
 * assert.deepEqual(await client.request("add", { x: 2, y: 3 }), { sum: 5 });
 * assert.deepEqual(await server.request("roots/list"), { roots: [] });
 * await assert.rejects(
 *   client.request("nope"),
 *   (e) => e instanceof JsonRpcError && e.code === -32601,
 * );
 * await assert.rejects(
 *   client.request("add", { x: 1, y: 1 }, { signal: AbortSignal.abort() }),
 *   (e) => e instanceof PeerError && e.kind === "cancelled",
 * );
 * await client.close();
 * ```
 */
export class JsonRpcPeer {
  readonly #transport: Transport;
  readonly #options: PeerOptions;
  readonly #outgoing: OutgoingRequests;
  readonly #incoming: IncomingRequests;
  readonly #requestHandlers = new Map<string, RequestHandler>();
  readonly #notificationHandlers = new Map<string, NotificationHandler>();
  readonly #closeListeners = new Set<() => void>();
  #otherRequests: RequestHandler | undefined;
  #otherNotifications: NotificationHandler | undefined;
  #closedWith: string | undefined;

  /**
   * Makes a peer on a transport and starts receiving.
   *
   * @param transport The connection; the peer takes over its `onmessage` and `onclose`.
   * @param options Timeouts, how invalid messages are answered, the protocol-error hook, timers.
   */
  constructor(transport: Transport, options: PeerOptions = {}) {
    this.#transport = transport;
    this.#options = options;
    const sendQuietly = (
      message: JsonRpcMessage,
      opts?: TransportSendOptions,
    ): void => this.#sendQuietly(message, opts);
    this.#outgoing = new OutgoingRequests({
      transport,
      timers: options.timers ?? PLATFORM_TIMERS,
      timeoutMs: options.requestTimeoutMs ?? 30_000,
      cancelOnTimeout: options.cancelOnTimeout ?? true,
      sendQuietly,
      closedWith: () => this.#closedWith,
    });
    this.#incoming = new IncomingRequests({
      sendQuietly,
      report: (report) => this.#report(report),
      related: (id) => ({
        notify: (method, params) => this.notify(method, params, { relatedRequestId: id }),
        request: (method, params, opts) =>
          this.request(method, params, { ...opts, relatedRequestId: id }),
      }),
    });
    transport.onmessage = (message) => this.#receive(message);
    transport.onclose = () => this.#shut("the connection closed");
  }

  /** Whether the peer is closed (by {@linkcode JsonRpcPeer.close} or the transport). */
  get closed(): boolean {
    return this.#closedWith !== undefined;
  }

  /** How many requests this peer sent still wait for an answer. */
  get pendingRequests(): number {
    return this.#outgoing.size;
  }

  /** How many requests from the other side are being handled. */
  get activeRequests(): number {
    return this.#incoming.size;
  }

  /**
   * Sends a request and waits for its answer.
   *
   * @param method The method.
   * @param params Its params (an object, or an array).
   * @param options Cancellation, timeout, progress.
   * @returns The answer's `result`.
   * @throws {JsonRpcError} When the other side answered with an error (its code, message, data).
   * @throws {PeerError} When there was no answer: `timeout`, `cancelled` (`signal` aborted) or
   *   `closed` (the peer or the connection closed first).
   * @throws {TypeError} When the method, params or timeout are not valid.
   * @throws {Error} The transport's own error when the request could not be sent.
   */
  request(
    method: string,
    params?: JsonRpcParams,
    options: PeerRequestOptions = {},
  ): Promise<unknown> {
    return this.start(method, params, options).result;
  }

  /**
   * Sends a request, and returns at once with its id and its outcome to come — for a caller that
   * needs the id while the request runs (a subscription keyed by it) or may
   * {@linkcode PeerCall.abandon} it.
   *
   * @param method The method.
   * @param params Its params.
   * @param options Cancellation, timeout, progress.
   * @returns The call.
   */
  start(
    method: string,
    params?: JsonRpcParams,
    options: PeerRequestOptions = {},
  ): PeerCall {
    return this.#outgoing.start(method, params, options);
  }

  /**
   * Sends a notification (never answered).
   *
   * @param method The method.
   * @param params Its params.
   * @param options The incoming request it belongs to, if any.
   * @returns Resolves once the transport took it.
   * @throws {PeerError} Of kind `closed` when the peer is closed.
   * @throws {TypeError} When the method or params are not valid.
   */
  notify(
    method: string,
    params?: JsonRpcParams,
    options: TransportSendOptions = {},
  ): Promise<void> {
    if (this.#closedWith !== undefined) {
      return Promise.reject(
        new PeerError("closed", this.#closedWith, { method }),
      );
    }
    try {
      return this.#transport.send(makeNotification(method, params), options);
    } catch (e) {
      return Promise.reject(e);
    }
  }

  /**
   * Handles the requests for one method (replacing any handler it had). Requests for a method
   * with no handler (and no {@linkcode JsonRpcPeer.onOtherRequest}) are answered `-32601`.
   *
   * @param method The method.
   * @param handler Its handler.
   * @returns A function that removes the handler.
   */
  onRequest(method: string, handler: RequestHandler): () => void {
    this.#requestHandlers.set(method, handler);
    return () => {
      if (this.#requestHandlers.get(method) === handler) {
        this.#requestHandlers.delete(method);
      }
    };
  }

  /**
   * Handles the requests for every method that has no handler of its own (`context.method` says
   * which).
   *
   * @param handler The handler, or undefined to answer them `-32601` again.
   */
  onOtherRequest(handler: RequestHandler | undefined): void {
    this.#otherRequests = handler;
  }

  /**
   * Handles the notifications for one method (replacing any handler it had). The peer acts on
   * `notifications/cancelled` and `notifications/progress` itself first; a handler for them is
   * called after.
   *
   * @param method The method.
   * @param handler Its handler.
   * @returns A function that removes the handler.
   */
  onNotification(method: string, handler: NotificationHandler): () => void {
    this.#notificationHandlers.set(method, handler);
    return () => {
      if (this.#notificationHandlers.get(method) === handler) {
        this.#notificationHandlers.delete(method);
      }
    };
  }

  /**
   * Handles the notifications for every method that has no handler of its own.
   *
   * @param handler The handler, or undefined to drop them again.
   */
  onOtherNotification(handler: NotificationHandler | undefined): void {
    this.#otherNotifications = handler;
  }

  /**
   * Calls `listener` once when the peer closes (by {@linkcode JsonRpcPeer.close} or the
   * transport), after the requests still waiting have failed.
   *
   * @param listener The listener.
   * @returns A function that removes it.
   */
  onClose(listener: () => void): () => void {
    this.#closeListeners.add(listener);
    return () => this.#closeListeners.delete(listener);
  }

  /**
   * Closes the peer, then its transport. Requests still waiting reject with a
   * {@linkcode PeerError} of kind `closed` carrying `message`; requests being handled are aborted
   * and not answered. Does nothing when the peer is already closed.
   *
   * @param message What the waiting requests are told. Default `the peer is closed`.
   */
  async close(message = "the peer is closed"): Promise<void> {
    if (!this.#shut(message)) return;
    await this.#transport.close();
  }

  /** Marks the peer closed; false when it already was. */
  #shut(message: string): boolean {
    if (this.#closedWith !== undefined) return false;
    this.#closedWith = message;
    this.#outgoing.failAll(message);
    this.#incoming.abortAll(new PeerError("closed", message));
    for (const listener of [...this.#closeListeners]) {
      try {
        listener();
      } catch (error) {
        this.#report({ kind: "handler-failed", method: "close", error });
      }
    }
    return true;
  }

  #receive(value: unknown): void {
    if (this.#closedWith !== undefined) return;
    let classified;
    try {
      classified = validateEnvelope(value);
    } catch (e) {
      const error = e as JsonRpcError;
      this.#report({ kind: "invalid-message", error, message: value });
      if (this.#options.answerInvalid ?? true) {
        const request = isObject(value) && Object.hasOwn(value, "method");
        this.#sendQuietly(makeError(request ? error.requestId : null, error));
      }
      return;
    }
    switch (classified.kind) {
      case "response":
        if (!this.#outgoing.answer(classified.message)) {
          this.#report({
            kind: "unknown-response",
            message: classified.message,
          });
        }
        return;
      case "request": {
        const r = classified.message;
        this.#incoming.handle(
          r,
          this.#requestHandlers.get(r.method) ?? this.#otherRequests,
        );
        return;
      }
      case "notification":
        this.#notification(classified.message);
    }
  }

  #notification(n: JsonRpcNotification): void {
    const params = isObject(n.params) ? n.params : {};
    try {
      if (n.method === "notifications/cancelled") {
        this.#incoming.cancelled(params);
      } else if (n.method === "notifications/progress") {
        this.#outgoing.progress(params);
      }
    } catch (error) {
      this.#report({ kind: "handler-failed", method: n.method, error });
    }
    const handler = this.#notificationHandlers.get(n.method) ??
      this.#otherNotifications;
    if (!handler) return;
    try {
      const done = handler(n.params, { method: n.method });
      if (done instanceof Promise) {
        done.catch((error) => this.#report({ kind: "handler-failed", method: n.method, error }));
      }
    } catch (error) {
      this.#report({ kind: "handler-failed", method: n.method, error });
    }
  }

  #sendQuietly(message: JsonRpcMessage, options?: TransportSendOptions): void {
    if (this.#closedWith !== undefined) return;
    const failed = (error: unknown): void => this.#report({ kind: "send-failed", message, error });
    try {
      this.#transport.send(message, options).catch(failed);
    } catch (error) {
      failed(error);
    }
  }

  #report(report: ProtocolErrorReport): void {
    try {
      this.#options.onProtocolError?.(report);
    } catch {
      // a hook that throws must not break the conversation
    }
  }
}
