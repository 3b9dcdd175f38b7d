/**
 * One MCP session as the HTTP transport keeps it: the server session, the principal it belongs
 * to, its standalone (GET) stream, the notifications waiting for that stream, and which request
 * stream each progress token belongs to.
 *
 * @module
 */
import type { JsonRpcId, JsonRpcNotification } from "../../jsonrpc/types.ts";
import type { Session } from "../server.ts";
import type { SseWriter } from "./_sse_writer.ts";

/** Where the notifications about one in-flight request go (its POST's response). */
export interface RequestChannel {
  /** Sends a notification on the request's own response, switching it to SSE if need be. */
  notify(message: JsonRpcNotification): void;
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
  /** When the session was last used (ms since the epoch). */
  lastSeen: number;
  /** True once the session ended (DELETE, expiry, server close). */
  ended = false;
  /** How many of its requests are being handled (a busy session never expires). */
  busy = 0;
  #stream: SseWriter | undefined;
  #queue: JsonRpcNotification[] = [];
  readonly #progress = new Map<JsonRpcId, RequestChannel>();

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

  /** Whether a GET stream is open. */
  get listening(): boolean {
    return this.#stream !== undefined && !this.#stream.ended;
  }

  /**
   * Routes a notification from the server: progress for an in-flight request goes on that
   * request's response; anything else on the GET stream, or into a bounded queue until one opens
   * (a `list_changed` already queued is not queued twice; past the bound the oldest is dropped).
   *
   * @param message The notification.
   */
  notify(message: JsonRpcNotification): void {
    if (this.ended) return;
    if (message.method === "notifications/progress") {
      const params = message.params as Record<string, unknown> | undefined;
      const channel = this.#progress.get(params?.progressToken as JsonRpcId);
      if (channel) channel.notify(message);
      return; // progress for no in-flight request has nowhere to go
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
   * Sends the progress notifications for a request's token to its channel until released.
   *
   * @param token The request's `_meta.progressToken`.
   * @param channel Its response.
   * @returns Releases the token (idempotent); undefined when the token is already in use.
   */
  routeProgress(token: JsonRpcId, channel: RequestChannel): (() => void) | undefined {
    if (this.#progress.has(token)) return undefined;
    this.#progress.set(token, channel);
    return () => {
      if (this.#progress.get(token) === channel) this.#progress.delete(token);
    };
  }

  /** Ends the GET stream and drops the queue; the caller closes the server session. */
  end(): void {
    this.ended = true;
    this.#queue = [];
    this.#progress.clear();
    this.#stream?.end();
    this.#stream = undefined;
  }
}
