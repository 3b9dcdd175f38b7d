/**
 * One MCP session as the HTTP transport keeps it: the server session, the principal it belongs
 * to, its standalone (GET) stream, the notifications waiting for that stream, and the response
 * stream of each in-flight request.
 *
 * @module
 */
import type { JsonRpcId, JsonRpcNotification, JsonRpcRequest } from "../../jsonrpc/types.ts";
import type { Session } from "../server.ts";
import type { HttpRequestInfo } from "./bearer_tokens.ts";
import type { SseWriter } from "./_sse_writer.ts";

/** Where the notifications about one in-flight request go (its POST's response). */
export interface RequestChannel {
  /**
   * Sends a notification (or a server→client request) on the request's own response, switching
   * it to SSE if need be.
   */
  notify(message: JsonRpcNotification | JsonRpcRequest): void;
}

/** The most notifications kept for a session while it has no GET stream open. */
export const MAX_QUEUED_NOTIFICATIONS = 64;

/** A session's transport-side state. */
export class HttpSession {
  /** The `Mcp-Session-Id`. */
  readonly id: string;
  /** The principal id the session was opened for. */
  readonly principalId: string;
  /** The server's session (set right after the server opens it). */
  session!: Session;
  /** What the latest request on the session authenticated with (re-checked by `reauthenticate`). */
  credentials!: HttpRequestInfo;
  /** When the session was last used (ms since the epoch). */
  lastSeen: number;
  /** The order of its last use among all sessions' (higher: more recent), for eviction. */
  lastUse = 0;
  /** True once the session ended (DELETE, expiry, server close). */
  ended = false;
  /** How many of its requests are being handled (a busy session never expires). */
  busy = 0;
  #stream: SseWriter | undefined;
  #queue: (JsonRpcNotification | JsonRpcRequest)[] = [];
  readonly #requests = new Map<JsonRpcId, RequestChannel>();

  /**
   * Makes the state for a new session.
   *
   * @param id The session id.
   * @param principalId Whose session it is.
   * @param now The current time.
   */
  constructor(id: string, principalId: string, now: number) {
    this.id = id;
    this.principalId = principalId;
    this.lastSeen = now;
  }

  /** Whether it may be ended to make room: no request in flight, no GET stream open. */
  get idle(): boolean {
    return this.busy === 0 && !this.listening;
  }

  /** Whether a GET stream is open. */
  get listening(): boolean {
    return this.#stream !== undefined && !this.#stream.ended;
  }

  /**
   * Routes a notification (or a request to the client: sampling, elicitation, roots) from the
   * server: one that belongs to an in-flight request (progress, logs, a request made on its
   * behalf) goes on that request's response; anything else on the GET stream, or into a bounded
   * queue until one opens (a `list_changed` already queued is not queued twice; past the bound the
   * oldest is dropped).
   *
   * @param message The notification.
   * @param relatedRequestId The request it belongs to, if any.
   */
  notify(message: JsonRpcNotification | JsonRpcRequest, relatedRequestId?: JsonRpcId): void {
    if (this.ended) return;
    if (relatedRequestId !== undefined) {
      const channel = this.#requests.get(relatedRequestId);
      if (channel) channel.notify(message);
      return; // about a request that is no longer in flight: nowhere to go
    }
    if (this.#stream && this.#stream.send(message)) return;
    const repeated = message.params === undefined &&
      this.#queue.some((q) => q.method === message.method && q.params === undefined);
    if (repeated) return;
    this.#queue.push(message);
    if (this.#queue.length > MAX_QUEUED_NOTIFICATIONS) this.#queue.shift();
  }

  /**
   * Attaches a GET stream, ending the previous one (a message goes on one stream only, and a
   * client reconnecting before the server noticed the old stream drop is not locked out), and
   * flushes the queue onto it.
   *
   * @param stream The opened stream.
   */
  attach(stream: SseWriter): void {
    const previous = this.#stream;
    this.#stream = stream;
    previous?.end();
    stream.onEnd(() => {
      if (this.#stream === stream) this.#stream = undefined;
    });
    const queued = this.#queue;
    this.#queue = [];
    for (const m of queued) this.notify(m);
  }

  /**
   * Sends the notifications that belong to a request to its channel until released.
   *
   * @param id The request's id.
   * @param channel Its response.
   * @returns Releases the id (idempotent); undefined when the id is already in flight.
   */
  routeRequest(id: JsonRpcId, channel: RequestChannel): (() => void) | undefined {
    if (this.#requests.has(id)) return undefined;
    this.#requests.set(id, channel);
    return () => {
      if (this.#requests.get(id) === channel) this.#requests.delete(id);
    };
  }

  /** Ends the GET stream and drops the queue; the caller closes the server session. */
  end(): void {
    this.ended = true;
    this.#queue = [];
    this.#requests.clear();
    this.#stream?.end();
    this.#stream = undefined;
  }
}
