/**
 * One connection's server side, either era — what a transport that carries whole conversations
 * (stdio, `serveTransport`) hands its messages to. Each message is classified once
 * (`classifyEra`): the handshake era is served in the connection's session (whose peer keeps its
 * requests, cancellation, progress and the server's own requests to the client); 2026-07-28
 * requests are served statelessly, for the session's principal, by a peer of the connection's
 * own (which keeps their ids, so `notifications/cancelled` reaches them).
 *
 * @module
 */
import type { OutcomeNotes } from "./outcome.ts";
import { PeerExchange } from "../jsonrpc/exchange.ts";
import { validateEnvelope } from "../jsonrpc/envelope.ts";
import { JsonRpcError } from "../jsonrpc/errors.ts";
import { makeError } from "../jsonrpc/messages.ts";
import type { JsonRpcId, JsonRpcMessage, JsonRpcResponse } from "../jsonrpc/types.ts";
import type { Principal } from "../estate/spec.ts";
import { CORES } from "./_server_core.ts";
import { statelessRequests } from "./_server_rev2026_07_28.ts";
import { classifyEra } from "./era.ts";
import type { McpServer } from "./server.ts";
import type { Session } from "./session.ts";

/** Options for a {@linkcode ServerConnection}. */
export interface ServerConnectionOptions {
  /** Who is on the other end (the transport authenticated them, or the operator says). */
  principal: Principal;
  /** Sends a message to the client: notifications, and the server's requests to it. */
  send: (message: JsonRpcMessage) => void;
  /** Whether 2026-07-28 requests are served (statelessly); otherwise every message is the session's. */
  stateless: boolean;
}

/** One connection served in both eras. */
export class ServerConnection {
  /** The connection's handshake-era session. */
  readonly session: Session;
  readonly #server: McpServer;
  readonly #send: (message: JsonRpcMessage) => void;
  readonly #stateless: PeerExchange;
  /** The `subscriptions/listen` requests running statelessly: they end when the connection stops. */
  readonly #listens = new Set<JsonRpcId>();
  readonly #bothEras: boolean;
  /** What the stateless requests' steps noted (stdio has no answer but the response). */
  readonly #outcomes: OutcomeNotes = new Map();

  /**
   * Opens the connection's session.
   *
   * @param server The server.
   * @param options The principal, and how to reach the client.
   */
  constructor(server: McpServer, options: ServerConnectionOptions) {
    this.#server = server;
    this.#bothEras = options.stateless;
    const core = CORES.get(server);
    if (!core) throw new TypeError("a ServerConnection needs an McpServer");
    const send = options.send;
    this.#send = send;
    this.session = server.openSession({
      principal: options.principal,
      notify: (m) => send(m),
      request: (m) => send(m),
    });
    this.#stateless = new PeerExchange({
      send: (m) => send(m),
      // The session's principal: it follows McpServer.updatePrincipal.
      handler: statelessRequests(core, {
        principal: () => this.session.principal,
        notify: (m) => send(m),
        outcomes: this.#outcomes,
      }),
    });
  }

  /**
   * Serves one parsed message.
   *
   * @param value A value from `JSON.parse`.
   * @returns The response to send; undefined for a notification, a response, or a cancelled
   *   request.
   */
  async receive(value: unknown): Promise<JsonRpcResponse | undefined> {
    const stateless = this.#stateless;
    const era = this.#bothEras
      ? classifyEra(value, { isStatelessRequest: (id) => stateless.busy(id) })
      : "handshake";
    if (era === "handshake") {
      return await this.#server.handle(value, this.session);
    }
    let classified;
    try {
      classified = validateEnvelope(value);
    } catch (e) {
      if (e instanceof JsonRpcError) return makeError(e.requestId, e);
      throw e;
    }
    if (classified.kind !== "request") {
      return await stateless.exchange(classified.message);
    }
    const request = classified.message;
    if (stateless.busy(request.id)) {
      // Served, but not through the peer: it cannot be cancelled by its id.
      return await this.#server.handleStateless(request, {
        principal: this.session.principal,
        notify: (m) => this.#send(m),
      });
    }
    const listen = request.method === "subscriptions/listen";
    if (listen) this.#listens.add(request.id);
    try {
      return await stateless.exchange(request);
    } finally {
      if (listen) this.#listens.delete(request.id);
      this.#outcomes.delete(request.id); // stdio answers with the response alone
    }
  }

  /** Ends the connection's `subscriptions/listen` streams (the connection is stopping). */
  endListens(): void {
    for (const id of [...this.#listens]) {
      this.#stateless.cancel(id, "the connection is closing");
    }
  }

  /** Closes the session and stops the stateless requests still running. */
  close(): void {
    this.#server.closeSession(this.session);
    this.#stateless.close("the connection closed");
  }
}
