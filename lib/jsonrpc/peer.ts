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
import type { JsonRpcMessage, JsonRpcNotification, JsonRpcParams } from "./types.ts";
import { isObject } from "../_object.ts";
import { OutgoingRequests } from "./_peer_outgoing.ts";
import { IncomingRequests } from "./_peer_incoming.ts";

import type {
  NotificationHandler,
  PeerCall,
  PeerOptions,
  PeerRequestOptions,
  PeerTimers,
  ProtocolErrorReport,
  RequestHandler,
} from "./peer_types.ts";

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
    transport.onclose = (reason) =>
      this.#shut(
        reason ? `the connection closed: ${reason.message}` : "the connection closed",
        reason,
      );
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
  #shut(message: string, cause?: Error): boolean {
    if (this.#closedWith !== undefined) return false;
    this.#closedWith = message;
    this.#outgoing.failAll(message, cause);
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
