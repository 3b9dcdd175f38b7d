/**
 * Resumable SSE streams of one session (revisions 2025-03-26 to 2025-11-25, "Resumability and
 * Redelivery"). Every event a stream sends gets an id naming the stream and its place in it,
 * `<stream>-<seq>` (unique within the session, so the id alone tells which stream it belongs to),
 * and is kept for a while in a bounded per-session buffer. A client whose connection dropped GETs
 * with `Last-Event-ID` and receives the rest of that stream, and only of that stream.
 *
 * @module
 */
import type { JsonRpcMessage } from "../../jsonrpc/types.ts";
import type { SseWriter } from "./_sse_writer.ts";

/** The bounds of one session's replay buffer. */
export interface ReplayLimits {
  /** Events kept, all the session's streams together; 0 turns resumability off (no event ids). */
  readonly maxEvents: number;
  /** Bytes of event data kept, all streams together. */
  readonly maxBytes: number;
  /**
   * How long events stay resumable, in milliseconds: a POST stream's after its request was
   * answered, a GET stream's after each was sent.
   */
  readonly windowMs: number;
}

/** One event kept for replay. */
interface Kept {
  readonly seq: number;
  /** The message's JSON text. */
  readonly data: string;
  readonly bytes: number;
  /** When it was sent (ms since the epoch). */
  readonly at: number;
  /** Its place among all the session's events, for evicting the oldest first. */
  readonly order: number;
}

const encoder = new TextEncoder();

/**
 * One logical SSE stream: a POST's answer, or the session's standalone (GET) stream. It outlives
 * its connections: a GET with `Last-Event-ID` attaches a new connection and replays what the old
 * one may have missed.
 */
export class ReplayStream {
  /** The stream's number within the session (the part of its event ids before the `-`). */
  readonly number: number;
  /** True for the session's standalone (GET) stream, false for a POST's answer. */
  readonly standalone: boolean;
  /** @internal The events kept, oldest first. */
  readonly kept: Kept[] = [];
  /** @internal The highest sequence number no longer kept (0 while nothing was evicted). */
  lost = 0;
  /** @internal When the stream was completed (its request answered), if it was. */
  completedAt: number | undefined;
  readonly #log: ReplayLog;
  #seq = 0;
  #writer: SseWriter | undefined;

  /**
   * Makes a stream (use {@linkcode ReplayLog.open}).
   *
   * @param log The session's buffer.
   * @param number The stream's number.
   * @param standalone Whether it is the session's GET stream.
   */
  constructor(log: ReplayLog, number: number, standalone: boolean) {
    this.#log = log;
    this.number = number;
    this.standalone = standalone;
  }

  /** The sequence number of the stream's latest event (0 before the first). */
  get seq(): number {
    return this.#seq;
  }

  /** Whether a connection is attached and still open. */
  get connected(): boolean {
    return this.#writer !== undefined && !this.#writer.ended;
  }

  /**
   * Makes `writer` the stream's connection, ending the previous one (a message goes out on one
   * connection only); sends it the kept events after `after`, then ends it when the stream is
   * complete.
   *
   * @param writer The opened connection.
   * @param after The sequence number the client has (0: from the start).
   */
  attach(writer: SseWriter, after: number): void {
    const previous = this.#writer;
    this.#writer = writer;
    if (previous !== writer) previous?.end();
    writer.onEnd(() => {
      if (this.#writer === writer) this.#writer = undefined;
    });
    for (const e of this.kept) {
      if (e.seq > after) writer.send(e.data, this.#id(e.seq));
    }
    if (this.completedAt !== undefined) this.disconnect();
  }

  /**
   * Sends a priming event (id `<stream>-0`, empty data) on the connection, when the stream is
   * resumable: the client then has a `Last-Event-ID` before any message arrived.
   */
  prime(): void {
    if (this.#log.resumable) this.#writer?.prime(this.#id(0));
  }

  /**
   * Sends a message: kept for replay (when resumable) and written on the connection, if open.
   *
   * @param message The message.
   * @returns Whether it was written or kept: false only when it went nowhere.
   */
  send(message: JsonRpcMessage): boolean {
    const data = JSON.stringify(message);
    if (!this.#log.resumable) return this.#writer?.send(data) ?? false;
    const seq = ++this.#seq;
    this.#log.keep(this, seq, data);
    this.#writer?.send(data, this.#id(seq));
    return true;
  }

  /** Marks the stream complete (its request answered, or cancelled) and ends its connection. */
  complete(): void {
    this.completedAt = this.#log.now();
    this.disconnect();
    this.#log.completed(this);
  }

  /** Ends the connection, if any; the stream stays resumable. */
  disconnect(): void {
    const writer = this.#writer;
    this.#writer = undefined;
    writer?.end();
  }

  #id(seq: number): string {
    return `${this.number}-${seq}`;
  }
}

/** Where a `Last-Event-ID` leads: a stream, and the sequence number the client has. */
export interface Resumption {
  /** The stream the id belongs to. */
  readonly stream: ReplayStream;
  /** The id's sequence number: events after it are replayed. */
  readonly after: number;
}

/**
 * One session's resumable streams and the bounded buffer of their events. Bounds: at most
 * `maxEvents` events and `maxBytes` bytes in all (past them, whole completed streams go first,
 * then the oldest events of any stream), and events stay only `windowMs` after their POST stream
 * completed or, on a GET stream, after they were sent. Time-based eviction happens whenever the
 * buffer is used: no timers.
 */
export class ReplayLog {
  readonly #limits: ReplayLimits;
  readonly #now: () => number;
  readonly #streams = new Map<number, ReplayStream>();
  #next = 1;
  #order = 0;
  #events = 0;
  #bytes = 0;
  #closed = false;

  /**
   * Makes an empty buffer.
   *
   * @param limits Its bounds.
   * @param now The clock (tests pass their own).
   */
  constructor(limits: ReplayLimits, now: () => number = Date.now) {
    this.#limits = limits;
    this.#now = now;
  }

  /** Whether events get ids and are kept (`maxEvents` above 0). */
  get resumable(): boolean {
    return this.#limits.maxEvents > 0;
  }

  /** How many events are kept, all streams together. */
  get size(): number {
    return this.#events;
  }

  /** How many bytes of event data are kept, all streams together. */
  get bytes(): number {
    return this.#bytes;
  }

  /** The current time, on the buffer's clock. */
  now(): number {
    return this.#now();
  }

  /**
   * Opens a new stream.
   *
   * @param standalone True for the session's GET stream, false for a POST's answer.
   * @returns The stream, with no connection yet.
   */
  open(standalone: boolean): ReplayStream {
    const stream = new ReplayStream(this, this.#next++, standalone);
    if (this.resumable && !this.#closed) {
      this.#streams.set(stream.number, stream);
    }
    return stream;
  }

  /**
   * Finds the stream a `Last-Event-ID` names, if the events after it are all still kept.
   *
   * @param lastEventId The header's value.
   * @returns The stream and the place in it; undefined for an id that is malformed, of another
   *   session, of a stream no longer kept, or from before events that were evicted.
   */
  find(lastEventId: string): Resumption | undefined {
    if (!this.resumable || this.#closed) return undefined;
    this.#prune();
    const m = /^([0-9]{1,15})-([0-9]{1,15})$/.exec(lastEventId.trim());
    if (!m) return undefined;
    const stream = this.#streams.get(Number(m[1]));
    const after = Number(m[2]);
    if (!stream || after > stream.seq || after < stream.lost) return undefined;
    return { stream, after };
  }

  /** Drops every stream and event; nothing is kept afterwards (the session ended). */
  close(): void {
    this.#closed = true;
    this.#streams.clear();
    this.#events = 0;
    this.#bytes = 0;
  }

  /** @internal Keeps one event of `stream`, then enforces the bounds. */
  keep(stream: ReplayStream, seq: number, data: string): void {
    if (this.#closed || this.#streams.get(stream.number) !== stream) {
      stream.lost = seq; // not kept: a resumption from before it must not skip it
      return;
    }
    const bytes = encoder.encode(data).length;
    stream.kept.push({
      seq,
      data,
      bytes,
      at: this.#now(),
      order: ++this.#order,
    });
    this.#events++;
    this.#bytes += bytes;
    this.#prune();
  }

  /** @internal Called when `stream` completed: one with nothing kept is dropped at once. */
  completed(stream: ReplayStream): void {
    if (stream.kept.length === 0) this.#drop(stream);
    this.#prune();
  }

  #prune(): void {
    const cutoff = this.#now() - this.#limits.windowMs;
    for (const s of [...this.#streams.values()]) {
      if (s.completedAt !== undefined) {
        if (s.completedAt <= cutoff) this.#drop(s);
      } else if (s.standalone) {
        while (s.kept.length > 0 && s.kept[0].at <= cutoff) this.#evictHead(s);
        if (s.kept.length === 0 && !s.connected) this.#drop(s); // nothing left to resume
      }
    }
    while (
      this.#events > this.#limits.maxEvents ||
      this.#bytes > this.#limits.maxBytes
    ) {
      let completed: ReplayStream | undefined;
      let oldest: ReplayStream | undefined;
      for (const s of this.#streams.values()) {
        if (s.completedAt !== undefined) {
          if (!completed || s.completedAt < completed.completedAt!) {
            completed = s;
          }
        } else if (
          s.kept.length > 0 &&
          (!oldest || s.kept[0].order < oldest.kept[0].order)
        ) {
          oldest = s;
        }
      }
      if (completed) this.#drop(completed);
      else if (oldest) this.#evictHead(oldest);
      else break;
    }
  }

  #evictHead(s: ReplayStream): void {
    const e = s.kept.shift()!;
    s.lost = e.seq;
    this.#events--;
    this.#bytes -= e.bytes;
  }

  #drop(s: ReplayStream): void {
    if (this.#streams.get(s.number) !== s) return;
    this.#streams.delete(s.number);
    for (const e of s.kept) {
      this.#events--;
      this.#bytes -= e.bytes;
    }
    s.kept.length = 0;
  }
}
