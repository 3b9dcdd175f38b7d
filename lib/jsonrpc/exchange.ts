/**
 * A JsonRpcPeer driven one message at a time: `exchange(message)` hands the peer one message
 * and resolves with the peer's answer to it — for a server whose callers pass it messages and
 * want the response back (`McpServer.handle`), rather than a transport it owns. Everything else
 * the peer sends (notifications, its own requests to the other side) goes to `send`, with the
 * request it belongs to. Ids in use, cancellation (`notifications/cancelled`), progress, the
 * requests this side sends and their timeouts are the peer's, as on any transport.
 *
 * @module
 */

import { JsonRpcPeer } from "./peer.ts";
import type { PeerOptions, RequestHandler } from "./peer_types.ts";
import type { Transport } from "./transport.ts";
import type { JsonRpcId, JsonRpcMessage, JsonRpcResponse } from "./types.ts";
import { isObject } from "../_object.ts";

/** Options for a {@linkcode PeerExchange}. */
export interface ExchangeOptions {
  /**
   * Sends what the peer sends besides its answers: notifications, and its requests to the other
   * side, each with the request it belongs to.
   */
  send: (message: JsonRpcMessage, relatedRequestId?: JsonRpcId) => void;
  /** Handles every request (see `JsonRpcPeer.onOtherRequest`). */
  handler: RequestHandler;
  /** The peer's options (timeouts of its own requests, the protocol-error hook). */
  peer?: PeerOptions;
}

function isResponse(message: JsonRpcMessage): message is JsonRpcResponse {
  return !Object.hasOwn(message, "method") &&
    (Object.hasOwn(message, "result") || Object.hasOwn(message, "error"));
}

/** A peer answering one message at a time. */
export class PeerExchange {
  /** The peer: send requests to the other side with it (`request`), close it with `close`. */
  readonly peer: JsonRpcPeer;
  readonly #transport: Transport;
  readonly #waiting = new Map<
    JsonRpcId,
    (response: JsonRpcResponse | undefined) => void
  >();

  constructor(options: ExchangeOptions) {
    this.#transport = {
      send: (message, sendOptions) => {
        if (isResponse(message) && message.id !== null) {
          const answer = this.#waiting.get(message.id);
          if (answer) {
            this.#waiting.delete(message.id);
            answer(message);
            return Promise.resolve();
          }
        }
        options.send(message, sendOptions?.relatedRequestId);
        return Promise.resolve();
      },
      close: () => {
        this.#transport.onclose?.();
        return Promise.resolve();
      },
    };
    this.peer = new JsonRpcPeer(this.#transport, {
      answerInvalid: false,
      ...options.peer,
    });
    this.peer.onOtherRequest(async (params, context) => {
      try {
        return await options.handler(params, context);
      } finally {
        // Cancelled, or the peer closed: the peer sends no answer, so the exchange ends empty.
        if (context.signal.aborted) this.#unanswered(context.id);
      }
    });
  }

  /**
   * Whether a request with this id is being handled.
   *
   * @param id The id.
   * @returns True while its answer is awaited.
   */
  busy(id: JsonRpcId): boolean {
    return this.#waiting.has(id);
  }

  /**
   * Hands the peer one valid JSON-RPC message (check the envelope first, and that a request's id
   * is not {@linkcode PeerExchange.busy}).
   *
   * @param message The message.
   * @returns The answer to a request; undefined for a notification or a response, and for a
   *   request that was cancelled or outlived the peer.
   */
  exchange(message: JsonRpcMessage): Promise<JsonRpcResponse | undefined> {
    const receive = this.#transport.onmessage;
    if (!receive || this.peer.closed) return Promise.resolve(undefined);
    const id = isObject(message) && Object.hasOwn(message, "method")
      ? (message as { id?: JsonRpcId }).id
      : undefined;
    if (id === undefined || id === null) {
      receive(message);
      return Promise.resolve(undefined);
    }
    const answered = new Promise<JsonRpcResponse | undefined>((resolve) => {
      this.#waiting.set(id, resolve);
    });
    receive(message);
    return answered;
  }

  /**
   * Cancels a request being handled, as the other side's `notifications/cancelled` would: its
   * signal aborts and it gets no answer.
   *
   * @param id The request's id.
   * @param reason Why.
   */
  cancel(id: JsonRpcId, reason?: unknown): void {
    this.#transport.onmessage?.({
      jsonrpc: "2.0",
      method: "notifications/cancelled",
      params: reason === undefined ? { requestId: id } : { requestId: id, reason },
    });
  }

  /**
   * Closes the peer: its own requests fail (`PeerError` closed), the requests being handled are
   * aborted, and each exchange ends without an answer once its handler returns.
   *
   * @param reason What the waiting requests are told.
   */
  close(reason: string): void {
    void this.peer.close(reason);
  }

  #unanswered(id: JsonRpcId): void {
    const answer = this.#waiting.get(id);
    if (!answer) return;
    this.#waiting.delete(id);
    answer(undefined);
  }
}
