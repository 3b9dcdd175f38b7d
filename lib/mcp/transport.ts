/**
 * Transports: how JSON-RPC messages move between a client and a server. A transport is a tiny
 * interface; `createLinkedTransports` links two in memory (for tests and embedding), and
 * `serveTransport` connects any transport to a server session.
 *
 * @module
 */
import type { JsonRpcMessage } from "../jsonrpc/types.ts";
import type { Transport } from "../jsonrpc/transport.ts";
import type { Principal } from "../estate/spec.ts";
import type { McpServer, Session } from "./server.ts";

// The transport interface and the in-memory pair are JSON-RPC's (the peer runs over them); they
// are re-exported here, where MCP code has always found them.
export { createLinkedTransports } from "../jsonrpc/transport.ts";
export type { Transport, TransportSendOptions } from "../jsonrpc/transport.ts";

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
