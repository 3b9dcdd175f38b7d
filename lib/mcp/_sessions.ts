/**
 * The sessions one server opened: their state behind the public {@linkcode Session}, and the
 * table the server instance owns — every session it opened (another server's are unknown to it)
 * and which of them are open.
 *
 * @module
 */
import type { McpTool, Principal } from "../estate/spec.ts";
import { PeerExchange } from "../jsonrpc/exchange.ts";
import type { RequestContext } from "../jsonrpc/peer_types.ts";
import type { JsonRpcParams } from "../jsonrpc/types.ts";
import type { Caller } from "./_server_core.ts";
import type { Implementation } from "./protocol.ts";
import type { OpenSessionOptions, Session, SessionState } from "./session.ts";
import type { LogLevel, Notify } from "./tool_handler.ts";

/** A session's state: what the handshake negotiated, and what it serves the client by. */
export interface SessionImpl extends Session, Caller {
  principal: Principal;
  state: SessionState;
  protocolVersion: string | undefined;
  clientInfo: Implementation | undefined;
  clientCapabilities: Record<string, unknown> | undefined;
  notify: Notify;
  /** The least severe log level the client wants (none set: everything). */
  logLevel: LogLevel;
  /** Resource URIs the client subscribed to. */
  subscriptions: Set<string>;
  /** The principal's `tools/list` entries, until the estate changes (pages reuse it). */
  tools: McpTool[] | undefined;
  /** What the principal could see when last told: `name@version` joined. */
  visible: string;
  /**
   * The session's JSON-RPC peer, driven one message at a time by `McpServer.handle`: the requests
   * being served (ids in use, cancellation, progress), and the requests the server sends the
   * client (sampling, elicitation, roots) with their timeouts.
   */
  exchange: PeerExchange;
  /** Whether the transport gave the session a channel for requests to the client. */
  readonly canRequest: boolean;
}

/** Serves one request of a session (the handshake era's method table). */
export type SessionRequestHandler = (
  session: SessionImpl,
  request: { params: JsonRpcParams | undefined; context: RequestContext },
) => unknown;

function randomId(): string {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** The sessions one server opened. */
export class SessionTable {
  /** Every session opened here, open or closed. */
  readonly #own = new WeakMap<Session, SessionImpl>();
  /** The open ones. */
  readonly #open = new Set<SessionImpl>();

  /**
   * Opens a session.
   *
   * @param options Who is connected, how to reach them, the id.
   * @param serve Serves its requests.
   * @returns The new session, state `new`.
   */
  open(options: OpenSessionOptions, serve: SessionRequestHandler): SessionImpl {
    const s: SessionImpl = {
      id: options.id ?? randomId(),
      principal: options.principal,
      state: "new",
      protocolVersion: undefined,
      clientInfo: undefined,
      clientCapabilities: undefined,
      notify: options.notify,
      logLevel: "debug",
      subscriptions: new Set(),
      tools: undefined,
      visible: "",
      exchange: new PeerExchange({
        send: (message, related) => {
          if ("method" in message && "id" in message) {
            options.request?.(message, related);
          } else if ("method" in message) options.notify(message, related);
        },
        handler: (params, context) => serve(s, { params, context }),
        peer: { requestTimeoutMs: options.requestTimeoutMs },
      }),
      canRequest: options.request !== undefined,
      outcomes: new Map(),
    };
    this.#own.set(s, s);
    this.#open.add(s);
    return s;
  }

  /**
   * A session this table opened, open or closed.
   *
   * @param session What the caller holds.
   * @returns Its state; undefined for a session another table opened (or anything else).
   */
  get(session: Session): SessionImpl | undefined {
    return this.#own.get(session);
  }

  /**
   * Closes a session: its requests are aborted, and it is no longer open.
   *
   * @param s The session.
   */
  close(s: SessionImpl): void {
    s.state = "closed";
    s.exchange.close("the session is closed");
    this.#open.delete(s);
  }

  /** How many are open. */
  get size(): number {
    return this.#open.size;
  }

  /** The open sessions, in the order they opened. */
  [Symbol.iterator](): IterableIterator<SessionImpl> {
    return this.#open.values();
  }
}
