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
import { ServerConnection } from "./_connection.ts";

// The transport interface and the in-memory pair are JSON-RPC's (the peer runs over them); they
// are re-exported here, where MCP code has always found them.
export { createLinkedTransports } from "../jsonrpc/transport.ts";
export type { Transport, TransportSendOptions } from "../jsonrpc/transport.ts";

/** Options for {@linkcode serveTransport}. */
export interface ServeTransportOptions {
  /** The server. */
  server: McpServer;
  /** The connection's transport. */
  transport: Transport;
  /** Who is on the other end (the transport authenticated them). */
  principal: Principal;
  /**
   * Whether the stateless revision 2026-07-28 is served too (see `classifyEra`), as stdio serves
   * it. Default false: every message is the session's, as in the handshake era.
   */
  stateless?: boolean;
}

/**
 * Serves one connection: its messages in the connection's session — the server's requests to
 * the client (sampling, elicitation, roots) go out on the transport and the client's answers come
 * back the same way — and, with `stateless: true`, 2026-07-28 requests statelessly for the
 * session's principal (see `classifyEra`). Handling errors never escape: the session closes with
 * the transport.
 *
 * @param options The server, the transport, the principal.
 * @returns The session.
 */
export function serveTransport(options: ServeTransportOptions): Session;
/**
 * Serves one connection.
 *
 * @param server The server.
 * @param transport The connection's transport.
 * @param principal Who is on the other end.
 * @returns The session.
 * @deprecated Pass one options object: `serveTransport({ server, transport, principal })`.
 */
export function serveTransport(
  server: McpServer,
  transport: Transport,
  principal: Principal,
): Session;
export function serveTransport(
  first: McpServer | ServeTransportOptions,
  transport?: Transport,
  principal?: Principal,
): Session {
  const options: ServeTransportOptions = "transport" in first && "principal" in first ? first : {
    server: first as McpServer,
    transport: transport!,
    principal: principal!,
  };
  const t = options.transport;
  let connection: ServerConnection | undefined = undefined;
  const send = (m: JsonRpcMessage): void => {
    t.send(m).catch(() => connection?.close());
  };
  connection = new ServerConnection(options.server, {
    principal: options.principal,
    send,
    stateless: options.stateless ?? false,
  });
  const open = connection;
  t.onmessage = (message) => {
    open.receive(message).then((response) => {
      if (response) send(response);
    }, () => {
      // receive() turns every failure into a response; nothing reaches here but a bug.
    });
  };
  t.onclose = () => open.close();
  return open.session;
}
