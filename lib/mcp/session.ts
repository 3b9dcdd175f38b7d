/**
 * A handshake-era session as the server's users see it: one connection's state — who is
 * connected, where it is in the handshake, and what was negotiated.
 *
 * @module
 */
import type { Principal } from "../estate/spec.ts";
import type { Implementation } from "./protocol.ts";
import type { JsonRpcId, JsonRpcRequest } from "../jsonrpc/types.ts";
import type { Notify } from "./tool_handler.ts";

/** Where a session is in the handshake. */
export type SessionState = "new" | "initializing" | "ready" | "closed";

/** One connection's state: who is connected, and what was negotiated. */
export interface Session {
  /** A unique id (also the HTTP `Mcp-Session-Id`). */
  readonly id: string;
  /**
   * Who is connected: the id is fixed for the session; the scopes, tenant and clearance follow
   * `McpServer.updatePrincipal`.
   */
  readonly principal: Principal;
  /** The handshake state. */
  readonly state: SessionState;
  /** The negotiated revision, after `initialize`. */
  readonly protocolVersion: string | undefined;
  /** What the client said about itself. */
  readonly clientInfo: Implementation | undefined;
  /** The client's declared capabilities. */
  readonly clientCapabilities: Record<string, unknown> | undefined;
}

/** Options for `McpServer.openSession`: who is connected, and how to reach them. */
export interface OpenSessionOptions {
  /** Who is connected (the transport authenticated them, or the operator says). */
  principal: Principal;
  /** Sends the session's notifications to the client. */
  notify: Notify;
  /** The session's id. Default: 128 random bits, hex. */
  id?: string;
  /**
   * Sends the server's requests to the client (`sampling/createMessage`, `elicitation/create`,
   * `roots/list`), each with the client request it is made on behalf of; the client's answers
   * come back through `McpServer.handle`. Without it the session cannot ask its client anything:
   * such a request fails at once. The transports (`serveTransport`, stdio, HTTP) set it.
   */
  request?: (message: JsonRpcRequest, relatedRequestId?: JsonRpcId) => void;
  /**
   * How long a request to the client waits for its answer, in milliseconds (`Infinity`: no limit).
   * Default 30 s; a request may ask for longer (a user answering an elicitation).
   */
  requestTimeoutMs?: number;
}
