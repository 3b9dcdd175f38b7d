/**
 * Writing one Server-Sent Events stream to a `node:http` response: JSON-RPC messages as
 * `message` events (with an event id when the stream is resumable), keep-alive comments on a
 * timer, and a hard stop when the client reads too slowly.
 *
 * @module
 */
import type { ServerResponse } from "node:http";
import type { JsonRpcMessage } from "../../jsonrpc/types.ts";

/** What a stream may hold unsent before the client is deemed stuck and the stream is cut. */
const MAX_BUFFERED_BYTES = 4 * 1024 * 1024;

/** One SSE stream: opened with {@linkcode SseWriter.open}, ended with {@linkcode SseWriter.end}. */
export class SseWriter {
  readonly #res: ServerResponse;
  readonly #keepAliveMs: number;
  #timer: ReturnType<typeof setInterval> | undefined;
  #ended = false;
  #onEnd: (() => void)[] = [];

  /**
   * Wraps a response (nothing is written yet).
   *
   * @param res The response to stream on.
   * @param keepAliveMs How often to send a keep-alive comment; 0 for never.
   */
  constructor(res: ServerResponse, keepAliveMs: number) {
    this.#res = res;
    this.#keepAliveMs = keepAliveMs;
    res.once("close", () => this.#finish());
  }

  /**
   * Sends the status line and headers and starts the keep-alive timer.
   *
   * @param headers Extra headers (CORS, `Mcp-Session-Id`).
   */
  open(headers: Record<string, string>): void {
    if (this.ended) {
      this.#finish(); // the client left before the stream started
      return;
    }
    this.#res.writeHead(200, {
      ...headers,
      "content-type": "text/event-stream",
      "cache-control": "no-cache, no-transform",
      "x-accel-buffering": "no",
    });
    this.#res.flushHeaders();
    if (this.#keepAliveMs > 0) {
      this.#timer = setInterval(
        () => this.comment("keep-alive"),
        this.#keepAliveMs,
      );
    }
  }

  /** True once the stream ended, from either side. */
  get ended(): boolean {
    return this.#ended || this.#res.destroyed || this.#res.writableEnded;
  }

  /**
   * Sends one message as a `message` event.
   *
   * @param message The message, or its JSON text.
   * @param id The event's id (for `Last-Event-ID`), if the stream is resumable.
   * @returns False when the stream has ended and the message was not sent.
   */
  send(message: JsonRpcMessage | string, id?: string): boolean {
    const data = typeof message === "string" ? message : JSON.stringify(message);
    return this.#write(
      `event: message\n${id === undefined ? "" : `id: ${id}\n`}data: ${data}\n\n`,
    );
  }

  /**
   * Sends a priming event (SEP-1699): an id and empty data, so the client has a `Last-Event-ID` to
   * resume from before any message arrived. Its type is `priming`, not `message`: a client takes the
   * id of every event (the official SDKs, this library's client), and one that parses each
   * `message` event's data as JSON without skipping empty data (the AI SDK's MCP client 2.0.99,
   * VS Code's POST handler) passes over an event of another type instead of failing on it.
   *
   * @param id The event id.
   * @returns False when the stream has ended.
   */
  prime(id: string): boolean {
    return this.#write(`id: ${id}\nevent: priming\ndata: \n\n`);
  }

  /**
   * Sends a comment line (clients ignore it; it shows the stream is alive).
   *
   * @param text The comment, without newlines.
   */
  comment(text: string): void {
    this.#write(`: ${text}\n\n`);
  }

  /**
   * Registers a callback for when the stream ends, from either side.
   *
   * @param callback Called once.
   */
  onEnd(callback: () => void): void {
    if (this.#ended) callback();
    else this.#onEnd.push(callback);
  }

  /** Ends the stream (a no-op when it already ended). */
  end(): void {
    if (!this.ended) this.#res.end();
    this.#finish();
  }

  #write(text: string): boolean {
    if (this.ended) return false;
    if (this.#res.writableLength > MAX_BUFFERED_BYTES) {
      this.#res.destroy();
      this.#finish();
      return false;
    }
    this.#res.write(text);
    return true;
  }

  #finish(): void {
    if (this.#ended) return;
    this.#ended = true;
    clearInterval(this.#timer);
    this.#timer = undefined;
    const callbacks = this.#onEnd;
    this.#onEnd = [];
    for (const f of callbacks) f();
  }
}
