/**
 * How JSON-RPC messages move between two peers: a tiny {@linkcode Transport} interface, and
 * {@linkcode createLinkedTransports}, two transports linked in memory (for tests and embedding).
 * A transport only moves messages; ids, pending requests, cancellation, progress and timeouts
 * belong to the {@linkcode JsonRpcPeer} above it.
 *
 * @module
 */
import type { JsonRpcId, JsonRpcMessage } from "./types.ts";

/** What a sender tells the transport about one message (see {@linkcode Transport.send}). */
export interface TransportSendOptions {
  /**
   * The incoming request this message belongs to, for a notification or request sent while
   * handling it (progress, a server→client request). A Streamable HTTP server sends such a message
   * on that request's response stream; other transports ignore it.
   */
  relatedRequestId?: JsonRpcId;
}

/**
 * One end of a message channel.
 *
 * A transport delivers what arrives asynchronously: `onmessage` is never called synchronously
 * by `send` (before `send` has returned its promise), so a sender can note a request's id before
 * anything answering it arrives.
 */
export interface Transport {
  /**
   * Sends one message to the other end.
   *
   * @param message The message.
   * @param options What the message belongs to; a transport may ignore it.
   */
  send(message: JsonRpcMessage, options?: TransportSendOptions): Promise<void>;
  /** Called with each message that arrives (a parsed JSON value, not yet validated). */
  onmessage?: (message: unknown) => void;
  /**
   * Called once when the channel closes, from either end; with the reason when the transport
   * closed it for one (a message too large, say), which the waiting requests fail with.
   */
  onclose?: (reason?: Error) => void;
  /** Closes the channel. */
  close(): Promise<void>;
  /**
   * Cancels an outstanding request by the transport's own means (a Streamable HTTP client closes
   * the request's response stream, which a 2026-07-28 server takes as cancellation).
   *
   * @param id The request's id.
   * @returns True when the transport cancelled it; false (or no method) means the peer should
   *   send `notifications/cancelled`.
   */
  cancel?(id: JsonRpcId): boolean;
}

/**
 * Two transports linked in memory: what one sends, the other receives (asynchronously, and as a
 * JSON round trip, so values that are not JSON never cross). Closing either end closes both.
 *
 * @returns The two ends.
 *
 * @example
 * ```ts
 * import { createLinkedTransports } from "@tool-estate/core";
 * import assert from "node:assert/strict";
 * const [a, b] = createLinkedTransports();
 * const got = new Promise((resolve) => (b.onmessage = resolve));
 * await a.send({ jsonrpc: "2.0", method: "ping", id: 1 });
 * assert.deepEqual(await got, { jsonrpc: "2.0", method: "ping", id: 1 });
 * ```
 */
export function createLinkedTransports(): [Transport, Transport] {
  let closed = false;
  const make = (): Transport & { peer?: Transport } => ({
    send(message) {
      if (closed) return Promise.reject(new Error("transport is closed"));
      const text = JSON.stringify(message);
      const peer = this.peer!;
      queueMicrotask(() => {
        if (!closed) peer.onmessage?.(JSON.parse(text));
      });
      return Promise.resolve();
    },
    close() {
      if (!closed) {
        closed = true;
        queueMicrotask(() => {
          a.onclose?.();
          b.onclose?.();
        });
      }
      return Promise.resolve();
    },
  });
  const a = make(), b = make();
  a.peer = b;
  b.peer = a;
  return [a, b];
}
