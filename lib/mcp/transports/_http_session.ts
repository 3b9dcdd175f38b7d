/**
 * One MCP session as the HTTP transport keeps it: the server session, the principal it belongs
 * to, its standalone (GET) stream, the notifications waiting for that stream, the response
 * stream of each in-flight request, and the replay buffer that makes its streams resumable.
 *
 * @module
 */
import type { JsonRpcId, JsonRpcNotification, JsonRpcRequest } from "../../jsonrpc/types.ts";
import type { Session } from "../server.ts";
import type { HttpRequestInfo } from "./bearer_tokens.ts";
import type { SseWriter } from "./_sse_writer.ts";
import { type ReplayLimits, ReplayLog, type ReplayStream } from "./_sse_replay.ts";

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
  /** The session's resumable streams and the events kept for them. */
  readonly replay: ReplayLog;
  #stream: ReplayStream | undefined;
  #queue: (JsonRpcNotification | JsonRpcRequest)[] = [];
  readonly #requests = new Map<JsonRpcId, RequestChannel>();

  /**
   * Makes the state for a new session.
   *
   * @param id The session id.
   * @param principalId Whose session it is.
   * @param now The current time.
   * @param replay The bounds of its replay buffer (`maxEvents` 0: streams are not resumable).
   */
  constructor(
    id: string,
    principalId: string,
    now: number,
    replay: ReplayLimits = { maxEvents: 0, maxBytes: 0, windowMs: 0 },
  ) {
    this.id = id;
    this.principalId = principalId;
    this.lastSeen = now;
    this.replay = new ReplayLog(replay);
  }

  /** Whether it may be ended to make room: no request in flight, no GET stream open. */
  get idle(): boolean {
    return this.busy === 0 && !this.listening;
  }

  /** Whether a GET stream is open. */
  get listening(): boolean {
    return this.#stream?.connected ?? false;
  }

  /**
   * Opens a resumable stream for a POST's answer on its connection, primed with an event id
   * when the client's revision expects one.
   *
   * @param writer The opened connection.
   * @returns The stream: send the answer's messages through it, and complete it.
   */
  openStream(writer: SseWriter): ReplayStream {
    const stream = this.replay.open(false);
    stream.attach(writer, 0);
    if (this.#primes) stream.prime();
    return stream;
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
  notify(
    message: JsonRpcNotification | JsonRpcRequest,
    relatedRequestId?: JsonRpcId,
  ): void {
    if (this.ended) return;
    if (relatedRequestId !== undefined) {
      const channel = this.#requests.get(relatedRequestId);
      if (channel) channel.notify(message);
      return; // about a request that is no longer in flight: nowhere to go
    }
    if (this.#stream?.connected && this.#stream.send(message)) return; // written, or kept
    const repeated = message.params === undefined &&
      this.#queue.some((q) => q.method === message.method && q.params === undefined);
    if (repeated) return;
    this.#queue.push(message);
    if (this.#queue.length > MAX_QUEUED_NOTIFICATIONS) this.#queue.shift();
  }

  /**
   * Attaches a GET connection. With a `Last-Event-ID` of a POST's stream still kept, it
   * continues that stream: the events after the id, then the rest of the request's messages,
   * ending after its response. Otherwise it becomes the session's standalone stream, ending the
   * previous one's connection (a message goes on one connection only, and a client reconnecting
   * before the server noticed the old connection drop is not locked out): a `Last-Event-ID` of a
   * standalone stream still kept continues it after the id; none, or one unknown, malformed or
   * whose later events were evicted, starts a fresh stream without replay. Then the queued
   * notifications go out.
   *
   * @param writer The opened connection.
   * @param lastEventId The request's `Last-Event-ID`, if any.
   * @returns Whether an earlier stream was resumed.
   */
  attach(writer: SseWriter, lastEventId?: string): boolean {
    const found = lastEventId === undefined ? undefined : this.replay.find(lastEventId);
    if (found && !found.stream.standalone) {
      found.stream.attach(writer, found.after);
      return true;
    }
    const stream = found?.stream ?? this.replay.open(true);
    const previous = this.#stream;
    this.#stream = stream;
    if (previous !== stream) previous?.disconnect();
    stream.attach(writer, found?.after ?? 0);
    if (!found && this.#primes) stream.prime();
    const queued = this.#queue;
    this.#queue = [];
    for (const m of queued) this.notify(m);
    return found !== undefined;
  }

  /**
   * Sends the notifications that belong to a request to its channel until released.
   *
   * @param id The request's id.
   * @param channel Its response.
   * @returns Releases the id (idempotent); undefined when the id is already in flight.
   */
  routeRequest(
    id: JsonRpcId,
    channel: RequestChannel,
  ): (() => void) | undefined {
    if (this.#requests.has(id)) return undefined;
    this.#requests.set(id, channel);
    return () => {
      if (this.#requests.get(id) === channel) this.#requests.delete(id);
    };
  }

  /** Ends the GET stream and drops the queue and the replay buffer; the caller closes the server session. */
  end(): void {
    this.ended = true;
    this.#queue = [];
    this.#requests.clear();
    this.#stream?.disconnect();
    this.#stream = undefined;
    this.replay.close();
  }

  /**
   * Whether streams start with a priming event: only for revision 2025-11-25 and later (older
   * clients may fail on its empty data).
   */
  get #primes(): boolean {
    return (this.session?.protocolVersion ?? "") >= "2025-11-25";
  }
}
