/**
 * Writing HTTP answers: JSON bodies, JSON-RPC error bodies for refused requests, and the answer
 * to one POSTed request — JSON, or an SSE stream once a notification about the request must go
 * out before its response.
 *
 * @module
 */
import type { ServerResponse } from "node:http";
import { Buffer } from "node:buffer";
import { ERROR_CODES } from "../../jsonrpc/errors.ts";
import type {
  JsonRpcId,
  JsonRpcMessage,
  JsonRpcNotification,
  JsonRpcRequest,
  JsonRpcResponse,
} from "../../jsonrpc/types.ts";
import { SseWriter } from "./_sse_writer.ts";
import type { RequestChannel } from "./_http_session.ts";
import type { ReplayStream } from "./_sse_replay.ts";

/**
 * Writes a complete JSON answer (a no-op when an answer was already started).
 *
 * @param res The response.
 * @param status The HTTP status.
 * @param body The value to send as JSON.
 * @param headers Extra headers.
 */
export function writeJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  if (res.headersSent || res.writableEnded || res.destroyed) return;
  const text = JSON.stringify(body);
  res.writeHead(status, {
    ...headers,
    "content-type": "application/json",
    "content-length": String(Buffer.byteLength(text, "utf8")),
  });
  res.end(text);
}

/** Options for {@linkcode writeRefusal}. */
export interface RefusalOptions {
  /** The id of the request refused, when it was read; `null` otherwise. */
  id?: JsonRpcId | null;
  /** The JSON-RPC code. Default `-32600` (Invalid Request). */
  code?: number;
  /** Extra headers. */
  headers?: Record<string, string>;
}

/**
 * Refuses a request: the HTTP status with a JSON-RPC error response as the body.
 *
 * @param res The response.
 * @param status The HTTP status, e.g. 404.
 * @param message What is wrong and what to do, e.g. `Not Found: session … ended`.
 * @param options The request id, the code, extra headers.
 */
export function writeRefusal(
  res: ServerResponse,
  status: number,
  message: string,
  options: RefusalOptions = {},
): void {
  writeJson(res, status, {
    jsonrpc: "2.0",
    id: options.id ?? null,
    error: { code: options.code ?? ERROR_CODES.INVALID_REQUEST, message },
  }, options.headers);
}

/**
 * The answer to one POSTed request. It stays JSON unless a notification about the request (its
 * progress) is sent before the response: then it becomes an SSE stream carrying those
 * notifications and, last, the response. In a session the stream is resumable: its events carry
 * ids and are kept, and they keep being kept after the connection drops, for a GET with
 * `Last-Event-ID` to pick up.
 */
export class PostReply implements RequestChannel {
  readonly #res: ServerResponse;
  readonly #keepAliveMs: number;
  readonly #headers: Record<string, string>;
  readonly #resumable: ((writer: SseWriter) => ReplayStream) | undefined;
  #sse: SseWriter | undefined;
  #replay: ReplayStream | undefined;

  /**
   * Prepares the answer (nothing is written yet).
   *
   * @param res The response.
   * @param headers Headers for the answer (CORS, `Mcp-Session-Id`).
   * @param keepAliveMs The keep-alive interval, should it become a stream.
   * @param resumable Opens the resumable stream, should it become one (the session's
   *   `openStream`); without it the stream's events carry no ids.
   */
  constructor(
    res: ServerResponse,
    headers: Record<string, string>,
    keepAliveMs: number,
    resumable?: (writer: SseWriter) => ReplayStream,
  ) {
    this.#res = res;
    this.#headers = headers;
    this.#keepAliveMs = keepAliveMs;
    this.#resumable = resumable;
  }

  /**
   * Sends a notification about the request, switching the answer to SSE on the first one.
   *
   * @param message The notification.
   */
  notify(message: JsonRpcNotification | JsonRpcRequest): void {
    this.#send(message);
  }

  /**
   * Ends the answer with the response: as JSON, or as the last event of the stream. A request
   * with no response (the client cancelled it) gets an empty stream.
   *
   * @param response The response, if any.
   * @param headers Headers decided only now (the new session's id on `initialize`).
   */
  finish(
    response: JsonRpcResponse | undefined,
    headers: Record<string, string> = {},
    status = 200,
  ): void {
    if (this.#sse === undefined && response !== undefined) {
      writeJson(this.#res, status, response, { ...this.#headers, ...headers });
      return;
    }
    const stream = this.#stream(headers);
    if (response !== undefined) this.#send(response);
    this.#replay?.complete();
    stream.end();
  }

  #send(message: JsonRpcMessage): void {
    const stream = this.#stream();
    if (this.#replay) this.#replay.send(message);
    else stream.send(message);
  }

  #stream(headers: Record<string, string> = {}): SseWriter {
    if (this.#sse === undefined) {
      this.#sse = new SseWriter(this.#res, this.#keepAliveMs);
      if (!this.#res.headersSent) {
        this.#sse.open({ ...this.#headers, ...headers });
      }
      this.#replay = this.#resumable?.(this.#sse);
    }
    return this.#sse;
  }
}
