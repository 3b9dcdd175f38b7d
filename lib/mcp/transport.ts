/**
 * Transports: how JSON-RPC messages move between a client and a server. A transport is a tiny
 * interface; `createLinkedTransports` links two in memory (for tests and embedding), and
 * `serveTransport` connects any transport to a server session.
 *
 * @module
 */
import type { JsonRpcId, JsonRpcMessage } from "../jsonrpc/types.ts";
import type { Principal } from "../estate/spec.ts";
import type { McpServer, Session } from "./server.ts";

/** One end of a message channel. */
export interface Transport {
  /** Sends one message to the other end. */
  send(message: JsonRpcMessage): Promise<void>;
  /** Called with each message that arrives (a parsed JSON value, not yet validated). */
  onmessage?: (message: unknown) => void;
  /** Called once when the channel closes, from either end. */
  onclose?: () => void;
  /** Closes the channel. */
  close(): Promise<void>;
  /**
   * Cancels an outstanding request by the transport's own means (a Streamable HTTP client closes
   * the request's response stream, which a 2026-07-28 server takes as cancellation).
   *
   * @param id The request's id.
   * @returns True when the transport cancelled it; false (or no method) means the client should
   *   send `notifications/cancelled`.
   */
  cancel?(id: JsonRpcId): boolean;
}

/**
 * Two transports linked in memory: what one sends, the other receives (asynchronously, and as a
 * JSON round trip, so values that are not JSON never cross).
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

/**
 * Serves one connection: each message that arrives is handled by the server in the session, and
 * the response (if any) and the session's notifications are sent back. Handling errors never
 * escape: the session closes with the transport.
 *
 * @param server The server.
 * @param transport The connection's transport.
 * @param principal Who is on the other end (the transport authenticated them).
 * @returns The session.
 */
export function serveTransport(
  server: McpServer,
  transport: Transport,
  principal: Principal,
): Session {
  const send = (m: JsonRpcMessage): void => {
    transport.send(m).catch(() => server.closeSession(session));
  };
  const session = server.openSession({ principal, notify: send });
  transport.onmessage = (message) => {
    server.handle(message, session).then((response) => {
      if (response) send(response);
    }, () => {
      // handle() turns every failure into a response; nothing reaches here but a bug.
    });
  };
  transport.onclose = () => server.closeSession(session);
  return session;
}
