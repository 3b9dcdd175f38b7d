/**
 * Where a client stands in one SSE stream across its connections (revisions 2025-03-26 to
 * 2025-11-25, "Resumability and Redelivery"): the `Last-Event-ID` to resume from, the `retry`
 * delay the server asked for, and the event ids already seen, so that an event a server sends
 * again on a later connection reaches the client once. Runtime-free.
 *
 * @module
 */
import { SseDecoder, type SseEvent } from "./_sse_parser.ts";

/** How many event ids a cursor remembers, to drop events replayed twice. */
const MAX_REMEMBERED_IDS = 1024;

/** What one chunk of a connection brought. */
export interface CursorChunk {
  /** Its events, less those already seen on an earlier connection of the stream. */
  readonly events: SseEvent[];
  /** Whether anything new arrived: an event id not seen before, or a message. */
  readonly progressed: boolean;
}

/** One SSE stream as a client reads it, over one or more connections. */
export class SseCursor {
  #decoder = new SseDecoder();
  #connection = 0;
  #lastEventId: string | undefined;
  #retry: number | undefined;
  /** Each id seen, and the connection it first arrived on (oldest first). */
  readonly #seen = new Map<string, number>();

  /** The id to send in `Last-Event-ID` when reconnecting; undefined when there is none. */
  get lastEventId(): string | undefined {
    return this.#lastEventId;
  }

  /** The reconnection delay the server asked for (`retry:`), in milliseconds, if it did. */
  get retry(): number | undefined {
    return this.#retry;
  }

  /** Characters of the current connection that do not make a full line yet. */
  get pending(): number {
    return this.#decoder.pending;
  }

  /** Starts reading a new connection of the stream (the id and the retry delay carry over). */
  connect(): void {
    this.#connection++;
    this.#decoder = new SseDecoder();
  }

  /**
   * Decodes a chunk of the current connection.
   *
   * @param text The chunk.
   * @returns The events it completes, less replays of events seen on an earlier connection, and
   *   whether it brought anything new.
   */
  push(text: string): CursorChunk {
    const events: SseEvent[] = [];
    let progressed = false;
    for (const e of this.#decoder.push(text)) {
      if (e.id !== undefined && e.id !== "") {
        const first = this.#seen.get(e.id);
        if (first !== undefined && first < this.#connection) continue; // sent again: drop
        if (first === undefined) {
          progressed = this.#remember(e.id) || progressed;
        }
      }
      if (e.data !== "") progressed = true;
      events.push(e);
    }
    const id = this.#decoder.lastEventId;
    if (id !== undefined) {
      this.#lastEventId = id === "" ? undefined : id;
      if (id !== "" && !this.#seen.has(id)) {
        progressed = this.#remember(id) || progressed;
      }
    }
    this.#retry = this.#decoder.retry ?? this.#retry;
    return { events, progressed };
  }

  #remember(id: string): boolean {
    this.#seen.set(id, this.#connection);
    if (this.#seen.size > MAX_REMEMBERED_IDS) {
      this.#seen.delete(this.#seen.keys().next().value!);
    }
    return true;
  }
}
