/**
 * Reading Server-Sent Events (the WHATWG `text/event-stream` format) from text that arrives in
 * arbitrary chunks. Runtime-free: the client transport feeds it what `fetch` reads.
 *
 * @module
 */

/** One dispatched event. */
export interface SseEvent {
  /** The `event:` field, `"message"` when absent. */
  event: string;
  /** The `data:` lines joined with `\n`. */
  data: string;
  /** The last `id:` seen on the stream, if any. */
  id?: string;
}

/**
 * An incremental SSE decoder: `push` text as it arrives and get the events it completes.
 * Lines end in `\r\n`, `\n` or `\r` (a `\r` at the end of one chunk and a `\n` at the start of the
 * next are one line end); lines starting with `:` are comments; an event is dispatched at a blank
 * line and only when it had data.
 */
export class SseDecoder {
  #buffer = "";
  #skipLf = false;
  #data: string[] = [];
  #event = "";
  #id: string | undefined;
  #lastEventId: string | undefined;
  #retry: number | undefined;

  /**
   * Decodes a chunk of text.
   *
   * @param text The next chunk.
   * @returns The events completed by this chunk, in order.
   */
  push(text: string): SseEvent[] {
    const events: SseEvent[] = [];
    let input = this.#buffer + text;
    if (this.#skipLf && input.startsWith("\n")) input = input.slice(1);
    this.#skipLf = false;
    let start = 0;
    for (let i = 0; i < input.length; i++) {
      const c = input.charCodeAt(i);
      if (c !== 10 && c !== 13) continue;
      this.#line(input.slice(start, i), events);
      if (c === 13) {
        if (i + 1 < input.length) {
          if (input.charCodeAt(i + 1) === 10) i++;
        } else {
          this.#skipLf = true;
        }
      }
      start = i + 1;
    }
    this.#buffer = input.slice(start);
    return events;
  }

  /** Characters received that do not make a full line yet (a reader can bound it). */
  get pending(): number {
    return this.#buffer.length;
  }

  /**
   * The stream's last event id, as a reconnection sends it in `Last-Event-ID`: the latest `id:`
   * field as of the latest blank line, even one that ended an event without data (a priming
   * event); undefined before any, `""` after an empty `id:` (then no header is sent).
   */
  get lastEventId(): string | undefined {
    return this.#lastEventId;
  }

  /** The reconnection delay the server asked for with `retry:`, in milliseconds, if it did. */
  get retry(): number | undefined {
    return this.#retry;
  }

  #line(line: string, events: SseEvent[]): void {
    if (line === "") {
      if (this.#id !== undefined) this.#lastEventId = this.#id;
      if (this.#data.length > 0) {
        const event: SseEvent = {
          event: this.#event || "message",
          data: this.#data.join("\n"),
        };
        if (this.#id !== undefined) event.id = this.#id;
        events.push(event);
      }
      this.#data = [];
      this.#event = "";
      return;
    }
    if (line.startsWith(":")) return;
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "data") this.#data.push(value);
    else if (field === "event") this.#event = value;
    else if (field === "id" && !value.includes("\0")) this.#id = value;
    else if (field === "retry" && /^[0-9]+$/.test(value)) {
      this.#retry = Number(value);
    }
  }
}
