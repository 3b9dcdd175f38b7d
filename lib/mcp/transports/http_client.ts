/**
 * The Streamable HTTP transport, client side: a {@linkcode Transport} that POSTs each message to
 * an MCP endpoint, reads JSON or SSE answers, keeps the session id and negotiated revision, and
 * listens on the session's GET stream for server notifications. Uses the global `fetch` only.
 *
 * A plain transport: it moves messages and keeps nothing per request but the response streams
 * still open, so that `cancel(id)` can close one. Ids, waiting, timeouts, progress and
 * cancellation belong to the peer above it (`JsonRpcPeer`, under `McpClient`).
 *
 * @module
 */
import { maxMessageBytes, MessageTooLargeError } from "./message_limit.ts";
import { isObject } from "../../_object.ts";
import type { JsonRpcId, JsonRpcMessage } from "../../jsonrpc/types.ts";
import type { Transport } from "../transport.ts";
import { SseCursor } from "./_sse_cursor.ts";
import { headerValue, META } from "../_client_era.ts";
import { isMcpMethod, MCP_METHODS } from "../methods.ts";

/** Options for a {@linkcode StreamableHttpError}. */
export interface StreamableHttpErrorOptions {
  /** The underlying error, if any. */
  cause?: unknown;
}

/** An HTTP answer the transport could not use: its status, and the server's message. */
export class StreamableHttpError extends Error {
  /** The HTTP status, or 0 when no answer arrived (network failure). */
  readonly status: number;

  /**
   * Makes the error.
   *
   * @param status The HTTP status (0 for none).
   * @param message What failed, where, and what to do.
   * @param options The underlying error, if any.
   */
  constructor(
    status: number,
    message: string,
    options: StreamableHttpErrorOptions = {},
  ) {
    super(message, options);
    this.name = "StreamableHttpError";
    this.status = status;
  }

  /** True when the server ended the session (404): a new session (a new client) is needed. */
  get sessionEnded(): boolean {
    return this.status === 404;
  }
}

export type { HttpAuthorizer, HttpChallenge } from "../../oauth/authorizer.ts";
import type { HttpAuthorizer } from "../../oauth/authorizer.ts";

/** Options for a {@linkcode StreamableHttpClientTransport}. */
export interface StreamableHttpClientOptions {
  /**
   * The largest message taken from the server, in bytes: a JSON answer past it is not read on and
   * its request fails with `MessageTooLargeError`; an SSE line past it ends the stream. Default
   * 16 MiB.
   */
  maxMessageBytes?: number;
  /** Sent as `Authorization: Bearer <token>`. */
  token?: string;
  /**
   * Authorizes every request, in place of `token` (e.g. an `OAuthClient`). A request refused
   * with 401, or with 403 `insufficient_scope`, is sent again once the authorizer obtained new
   * credentials: at most twice (a 401, then a 403 for more scopes). A DELETE ending the session
   * is never sent again.
   */
  auth?: HttpAuthorizer;
  /** Further headers for every request. */
  headers?: Record<string, string>;
  /** Open the session's GET stream (for `list_changed`) after initialization. Default true. */
  listen?: boolean;
  /**
   * How many times in a row a stream is reopened after failing: the GET stream, and a request's
   * answer stream being resumed (an attempt that brings nothing new counts). Default 5.
   */
  maxReconnects?: number;
  /**
   * The first delay before reopening a stream whose server gave no `retry`, doubled each time
   * up to 30 s. Default 1000 ms.
   */
  reconnectDelayMs?: number;
  /** How long `close()` waits for the server to answer the DELETE. Default 5000 ms. */
  closeTimeoutMs?: number;
  /** The `fetch` to use. Default the global one. */
  fetch?: typeof fetch;
  /** Told about failures that reach no request: the GET stream giving up, the session ending. */
  onerror?: (error: Error) => void;
}

/** The longest reconnection delay a server's `retry:` is followed to, in milliseconds. */
const MAX_RETRY_MS = 60_000;

/** A handshake-era request whose answer is an SSE stream, resumed until its response arrived. */
interface Awaiting {
  readonly id: JsonRpcId;
  /** Its response was delivered (a second one is dropped). */
  answered: boolean;
  /** Aborted when the response arrived, the request was cancelled, or the transport closed. */
  readonly stop: AbortController;
}

/** How reading one connection of an SSE stream ended. */
interface ReadOutcome {
  /** Anything at all arrived (an event or a comment). */
  readonly received: boolean;
  /** Something new arrived: an event id not seen before, or a message. */
  readonly progressed: boolean;
  /** It was stopped on purpose (aborted, answered, a line too long): not to be resumed. */
  readonly stopped: boolean;
}

const NOTHING: ReadOutcome = {
  received: false,
  progressed: false,
  stopped: false,
};

/** The JSON-RPC response id of a message, if it is a response. */
function responseId(message: unknown): JsonRpcId | undefined {
  if (
    !isObject(message) || "method" in message ||
    !("result" in message || "error" in message)
  ) {
    return undefined;
  }
  const id = message.id;
  return typeof id === "string" || typeof id === "number" ? id : undefined;
}

/** The 2026-07-28 headers a message needs (none for a handshake-era message). */
function statelessHeaders(
  message: JsonRpcMessage,
): Record<string, string> | undefined {
  if (!("method" in message) || !isObject(message.params)) return undefined;
  const meta = message.params._meta;
  const version = isObject(meta) ? meta[META.protocolVersion] : undefined;
  if (typeof version !== "string") return undefined;
  const h: Record<string, string> = {
    "mcp-protocol-version": version,
    "mcp-method": message.method,
  };
  const param = isMcpMethod(message.method) ? MCP_METHODS[message.method].named : undefined;
  const named = param === undefined ? undefined : message.params[param];
  if (typeof named === "string") h["mcp-name"] = headerValue(named);
  return h;
}

/** The JSON-RPC error response in a refusal's body, when it answers request `id`. */
function errorResponseFor(text: string, id: JsonRpcId): unknown {
  try {
    const body = JSON.parse(text);
    if (isObject(body) && body.id === id && isObject(body.error)) return body;
  } catch {
    // not JSON
  }
  return undefined;
}

/** The server's own message from a JSON-RPC error body, if the body is one. */
function serverMessage(text: string): string | undefined {
  try {
    const body = JSON.parse(text);
    if (
      isObject(body) && isObject(body.error) &&
      typeof body.error.message === "string"
    ) {
      return body.error.message;
    }
  } catch {
    // not JSON
  }
  return text.trim() === "" ? undefined : text.trim().slice(0, 500);
}

/**
 * A client transport for one Streamable HTTP MCP session (revisions 2025-03-26 to 2025-11-25).
 *
 * Each message is one POST with `Accept: application/json, text/event-stream`; after
 * `initialize` every request carries `Mcp-Session-Id` (from the answer's header) and
 * `MCP-Protocol-Version` (read from the `initialize` result as it passes through). Answers in
 * JSON or SSE are delivered to `onmessage`. After `notifications/initialized` it opens the GET
 * stream and reopens it (with backoff, at most `maxReconnects` times in a row) when it drops;
 * a server without one (405) is fine. When the server answers 404 for the session, `send`
 * rejects with a {@linkcode StreamableHttpError} whose `sessionEnded` is true and the transport
 * closes: start a new session with a new transport. `close()` ends the session with DELETE.
 *
 * @example
 * ```ts
 * import { StreamableHttpClientTransport } from "@tool-estate/core/http";
 * import assert from "node:assert/strict";
 * const transport = new StreamableHttpClientTransport("http://127.0.0.1:1/mcp", { token: "t" });
 * assert.equal(transport.sessionId, undefined);
 * await transport.close();
 * ```
 */
export class StreamableHttpClientTransport implements Transport {
  /** Called with each message that arrives. */
  onmessage?: (message: unknown) => void;
  /** Called once when the transport closes. */
  onclose?: () => void;
  readonly #url: string;
  readonly #options: StreamableHttpClientOptions;
  /** The largest message read from the server (a JSON answer, an SSE line). */
  readonly #maxBytes: number;
  readonly #fetch: typeof fetch;
  readonly #controllers = new Set<AbortController>();
  readonly #tasks = new Set<Promise<void>>();
  readonly #streams = new Map<JsonRpcId, AbortController>();
  readonly #awaiting = new Map<JsonRpcId, Awaiting>();
  readonly #wakers = new Set<() => void>();
  #sessionId: string | undefined;
  #protocolVersion: string | undefined;
  #initializeId: JsonRpcId | undefined;
  #closed = false;
  #listening = false;

  /**
   * Makes the transport (nothing is sent yet).
   *
   * @param url The MCP endpoint, e.g. `http://127.0.0.1:3000/mcp`.
   * @param options The token, extra headers, GET-stream behaviour.
   */
  constructor(url: string | URL, options: StreamableHttpClientOptions = {}) {
    this.#url = String(url);
    this.#options = options;
    this.#maxBytes = maxMessageBytes(options.maxMessageBytes, "StreamableHttpClientTransport");
    const base = options.fetch ?? fetch;
    this.#fetch = options.auth ? authorizedFetch(base, options.auth) : base;
  }

  /** The session id the server assigned, once `initialize` was answered. */
  get sessionId(): string | undefined {
    return this.#sessionId;
  }

  /** The negotiated revision, once `initialize` was answered. */
  get protocolVersion(): string | undefined {
    return this.#protocolVersion;
  }

  /**
   * POSTs one message. Resolves once the server accepted it; a response arriving as SSE is
   * delivered to `onmessage` as it is read.
   *
   * @param message The message.
   * @throws {StreamableHttpError} When the server refuses it (the status and the server's
   *   message), the session ended (404), or the server cannot be reached (status 0).
   */
  async send(message: JsonRpcMessage): Promise<void> {
    if (this.#closed) {
      throw new StreamableHttpError(
        0,
        `the transport to ${this.#url} is closed`,
      );
    }
    const method = "method" in message ? message.method : undefined;
    const isInitialize = method === "initialize" && "id" in message;
    if (isInitialize) this.#initializeId = (message as { id: JsonRpcId }).id;
    const stateless = statelessHeaders(message);
    const requestId: JsonRpcId | undefined =
      method !== undefined && "id" in message && message.id !== null ? message.id : undefined;
    const controller = this.#track(new AbortController());
    // A 2026-07-28 request is cancelled by closing its connection, from the moment it is sent:
    // while the server works on a JSON answer as much as while it streams (see cancel()).
    if (requestId !== undefined && stateless) this.#streams.set(requestId, controller);
    const finished = (): void => {
      this.#controllers.delete(controller);
      if (requestId !== undefined && this.#streams.get(requestId) === controller) {
        this.#streams.delete(requestId);
      }
    };
    let res: Response;
    try {
      res = await this.#fetch(this.#url, {
        method: "POST",
        headers: {
          ...this.#headers(!isInitialize && !stateless),
          ...stateless,
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
        },
        body: JSON.stringify(message),
        signal: controller.signal,
      });
    } catch (e) {
      finished();
      if (e instanceof StreamableHttpError) throw e; // authorization failed
      throw new StreamableHttpError(
        0,
        `POST ${this.#url} failed: ${e instanceof Error ? e.message : e}`,
        { cause: e },
      );
    }
    const sessionId = res.headers.get("mcp-session-id");
    if (isInitialize && res.ok && sessionId) this.#sessionId = sessionId;
    if (
      !res.ok && (stateless || res.status === 429) && requestId !== undefined &&
      res.status !== 401 && res.status !== 403
    ) {
      // 2026-07-28 answers a refused request with its JSON-RPC error (400 -32022, 404 -32601),
      // and either era a call beyond a limit (429 -32029): deliver it, so the client sees the code
      // (era detection depends on it) and the limit's data.
      finished();
      const text = await res.text().catch(() => "");
      const answer = errorResponseFor(text, requestId);
      if (answer !== undefined) {
        this.#deliver(answer);
        return;
      }
      const detail = serverMessage(text);
      throw new StreamableHttpError(
        res.status,
        `POST ${method} to ${this.#url} was refused with HTTP ${res.status}${
          detail ? `: ${detail}` : ""
        }`,
      );
    }
    if (!res.ok) {
      finished();
      throw await this.#refused(res, `POST ${method ?? "a response"}`);
    }
    const type = (res.headers.get("content-type") ?? "").split(";")[0].trim()
      .toLowerCase();
    if (res.status === 202 || res.body === null) {
      await res.body?.cancel();
      finished();
    } else if (type === "application/json") {
      let value: unknown;
      try {
        value = JSON.parse(await readCapped(res, this.#maxBytes, `POST ${this.#url}`));
      } catch (e) {
        if (e instanceof MessageTooLargeError) throw e;
        throw new StreamableHttpError(
          res.status,
          `POST ${this.#url}: the answer is not JSON`,
          {
            cause: e,
          },
        );
      } finally {
        finished();
      }
      this.#deliver(value);
    } else if (type === "text/event-stream") {
      // Only a 2026-07-28 server takes a closed stream as cancellation (a handshake-era one does not);
      // only a handshake-era stream is resumed (2026-07-28 has no resumption).
      let awaiting: Awaiting | undefined;
      if (requestId !== undefined && !stateless) {
        awaiting = {
          id: requestId,
          answered: false,
          stop: new AbortController(),
        };
        this.#awaiting.set(requestId, awaiting);
      }
      this.#spawn(
        this.#answer(res.body, controller, awaiting, method!).finally(() => {
          if (this.#streams.get(requestId!) === controller) {
            this.#streams.delete(requestId!);
          }
          if (awaiting && this.#awaiting.get(awaiting.id) === awaiting) {
            this.#awaiting.delete(awaiting.id);
          }
        }),
      );
    } else {
      await res.body.cancel();
      this.#controllers.delete(controller);
      throw new StreamableHttpError(
        res.status,
        `POST ${this.#url}: unexpected Content-Type ${JSON.stringify(type)}`,
      );
    }
    if (
      method === "notifications/initialized" && this.#options.listen !== false
    ) this.#listen();
  }

  /**
   * Cancels a 2026-07-28 request still unanswered by closing its connection — its SSE response,
   * or the POST still waiting for its JSON answer (what a 2026-07-28 server takes as
   * cancellation; e.g. ending a `subscriptions/listen`, or a long call).
   * Handshake-era requests are not cancelled this way (a disconnect is no cancellation there):
   * their answer stream is just no longer resumed.
   *
   * @param id The request's id.
   * @returns True when a 2026-07-28 request was open (and is now closed).
   */
  cancel(id: JsonRpcId): boolean {
    this.#awaiting.get(id)?.stop.abort();
    const controller = this.#streams.get(id);
    if (!controller) return false;
    this.#streams.delete(id);
    controller.abort();
    return true;
  }

  /** Ends the session (DELETE), stops every stream, and calls `onclose`. Idempotent. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#stopStreams();
    const sessionId = this.#sessionId;
    this.#sessionId = undefined;
    if (sessionId !== undefined) {
      const controller = new AbortController();
      const timer = setTimeout(
        () => controller.abort(),
        this.#options.closeTimeoutMs ?? 5000,
      );
      try {
        const res = await this.#fetch(this.#url, {
          method: "DELETE",
          headers: { ...this.#headers(true), "mcp-session-id": sessionId },
          signal: controller.signal,
        });
        await res.body?.cancel();
      } catch {
        // the server is gone or slow: the session ends with it, or when it expires
      } finally {
        clearTimeout(timer);
      }
    }
    await Promise.allSettled([...this.#tasks]);
    this.onclose?.();
  }

  #headers(afterInitialize: boolean): Record<string, string> {
    const h: Record<string, string> = { ...this.#options.headers };
    if (this.#options.token !== undefined && this.#options.auth === undefined) {
      h.authorization = `Bearer ${this.#options.token}`;
    }
    if (afterInitialize && this.#sessionId !== undefined) {
      h["mcp-session-id"] = this.#sessionId;
    }
    if (afterInitialize && this.#protocolVersion !== undefined) {
      h["mcp-protocol-version"] = this.#protocolVersion;
    }
    return h;
  }

  #track(controller: AbortController): AbortController {
    this.#controllers.add(controller);
    return controller;
  }

  #spawn(task: Promise<void>): void {
    const t = task.catch(() => {}).finally(() => this.#tasks.delete(t));
    this.#tasks.add(t);
  }

  #stopStreams(): void {
    for (const c of this.#controllers) c.abort();
    this.#controllers.clear();
    for (const a of this.#awaiting.values()) a.stop.abort();
    for (const wake of [...this.#wakers]) wake();
  }

  /** Waits `ms`, or less when the transport closes or `signal` aborts. */
  #sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise<void>((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.#wakers.delete(done);
        signal?.removeEventListener("abort", done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.#wakers.add(done);
      signal?.addEventListener("abort", done);
    });
  }

  /**
   * The delay before reopening a stream: the server's `retry` (at most a minute), else
   * `reconnectDelayMs` doubled for each failure in a row, at most 30 s.
   */
  #delay(retry: number | undefined, failures: number): number {
    if (retry !== undefined) return Math.min(retry, MAX_RETRY_MS);
    const base = this.#options.reconnectDelayMs ?? 1000;
    return Math.min(30_000, base * 2 ** Math.max(0, failures - 1));
  }

  /** Turns a refusal into an error; a 404 for our session also closes the transport. */
  async #refused(res: Response, what: string): Promise<StreamableHttpError> {
    const text = await res.text().catch(() => "");
    const detail = serverMessage(text);
    if (res.status === 404 && this.#sessionId !== undefined) {
      const error = new StreamableHttpError(
        404,
        `${what} to ${this.#url}: the server ended MCP session ${this.#sessionId}${
          detail ? ` (${detail})` : ""
        }; start a new session with a new transport and client`,
      );
      this.#sessionEnded(error);
      return error;
    }
    return new StreamableHttpError(
      res.status,
      `${what} to ${this.#url} was refused with HTTP ${res.status}${detail ? `: ${detail}` : ""}`,
    );
  }

  #sessionEnded(error: Error): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#sessionId = undefined;
    this.#stopStreams();
    this.#options.onerror?.(error);
    // After the rejection reaches the caller: a request should fail with this error, not with
    // the generic "connection closed".
    setTimeout(() => this.onclose?.(), 0);
  }

  #deliver(value: unknown): void {
    for (const message of Array.isArray(value) ? value : [value]) {
      const answers = responseId(message);
      const awaiting = answers === undefined ? undefined : this.#awaiting.get(answers);
      if (awaiting) {
        if (awaiting.answered) continue; // the same response again (a replay): deliver it once
        awaiting.answered = true;
        awaiting.stop.abort();
      }
      if (
        isObject(message) && this.#initializeId !== undefined &&
        message.id === this.#initializeId && isObject(message.result) &&
        typeof message.result.protocolVersion === "string"
      ) {
        this.#protocolVersion = message.result.protocolVersion;
        this.#initializeId = undefined;
      }
      this.onmessage?.(message);
    }
  }

  /**
   * Reads a POST's SSE answer. A handshake-era answer that ends before its response arrived is
   * resumed (revision 2025-11-25, SEP-1699): after the server's `retry` delay, a GET with
   * `Last-Event-ID` continues the stream, again each time it ends early, until the response
   * arrived, the request was cancelled (or timed out), or the transport closed; at most
   * `maxReconnects` attempts in a row that bring nothing new. A stream that gave no event id
   * cannot be resumed.
   */
  async #answer(
    body: ReadableStream<Uint8Array>,
    controller: AbortController,
    awaiting: Awaiting | undefined,
    method: string,
  ): Promise<void> {
    const cursor = new SseCursor();
    let read = await this.#read(body, controller, cursor, awaiting);
    if (awaiting === undefined) return;
    const max = this.#options.maxReconnects ?? 5;
    let failures = 0;
    while (
      !read.stopped && !awaiting.answered && !awaiting.stop.signal.aborted &&
      !this.#closed
    ) {
      const lastEventId = cursor.lastEventId;
      if (lastEventId === undefined) return; // no event id: nothing to resume from
      failures = read.progressed ? 0 : failures + 1;
      if (failures > max) {
        this.#options.onerror?.(
          new StreamableHttpError(
            0,
            `POST ${method} to ${this.#url}: the answer's SSE stream ended before the response and resuming it (GET with Last-Event-ID) failed ${failures} times in a row; the request will time out`,
          ),
        );
        return;
      }
      await this.#sleep(
        this.#delay(cursor.retry, failures),
        awaiting.stop.signal,
      );
      if (awaiting.stop.signal.aborted || this.#closed) return;
      const resumed = this.#track(new AbortController());
      const stop = (): void => resumed.abort();
      awaiting.stop.signal.addEventListener("abort", stop);
      try {
        const res = await this.#openOrReport(resumed, lastEventId);
        if (res === "stop") return;
        if (res === undefined) {
          read = NOTHING;
        } else if (res.ok && res.body && eventStream(res)) {
          read = await this.#read(res.body, resumed, cursor, awaiting);
        } else {
          this.#controllers.delete(resumed);
          if (res.status >= 500 || res.status === 408 || res.status === 429) {
            await res.body?.cancel();
            read = NOTHING;
            continue;
          }
          const error = await this.#refused(
            res,
            `GET (resuming the answer to ${method}, Last-Event-ID ${JSON.stringify(lastEventId)})`,
          );
          if (!error.sessionEnded) this.#options.onerror?.(error);
          return;
        }
      } finally {
        awaiting.stop.signal.removeEventListener("abort", stop);
      }
    }
  }

  /** {@linkcode #open}, with a failed authorization told to `onerror` and answered "stop". */
  async #openOrReport(
    controller: AbortController,
    lastEventId?: string,
  ): Promise<Response | undefined | "stop"> {
    try {
      return await this.#open(controller, lastEventId);
    } catch (e) {
      this.#options.onerror?.(e as Error);
      return "stop";
    }
  }

  /** Sends a GET for an SSE stream; undefined when no answer arrived (network failure). */
  async #open(
    controller: AbortController,
    lastEventId?: string,
  ): Promise<Response | undefined> {
    const headers: Record<string, string> = {
      ...this.#headers(true),
      accept: "text/event-stream",
    };
    if (lastEventId !== undefined) headers["last-event-id"] = lastEventId;
    try {
      return await this.#fetch(this.#url, {
        method: "GET",
        headers,
        signal: controller.signal,
      });
    } catch (e) {
      this.#controllers.delete(controller);
      if (e instanceof StreamableHttpError) throw e; // authorization failed: not to be retried
      return undefined;
    }
  }

  /**
   * Reads one connection of an SSE stream to its end, delivering each `message` event (less
   * those the cursor has seen on an earlier connection); an answer stream stops once its
   * response was delivered.
   */
  async #read(
    body: ReadableStream<Uint8Array>,
    controller: AbortController,
    cursor: SseCursor,
    awaiting?: Awaiting,
  ): Promise<ReadOutcome> {
    cursor.connect();
    const text = new TextDecoder();
    const reader = body.getReader();
    // Aborting the fetch does not always end a read already waiting on its body (seen on Deno
    // 2.9.6 when the stream's last chunk arrived while the event loop was busy): cancel the reader
    // as well, so that closing the transport never waits on a stream nobody reads any more.
    const stop = (): void => void reader.cancel().catch(() => {});
    controller.signal.addEventListener("abort", stop, { once: true });
    if (controller.signal.aborted) stop();
    let received = false;
    let progressed = false;
    let stopped = false;
    try {
      while (true) {
        const { done, value } = await reader.read();
        if (done) break;
        received = true;
        const chunk = cursor.push(text.decode(value, { stream: true }));
        progressed ||= chunk.progressed;
        for (const event of chunk.events) {
          if (event.event !== "message" || event.data === "") continue;
          let message: unknown;
          try {
            message = JSON.parse(event.data);
          } catch {
            continue; // not JSON: nothing to deliver
          }
          this.#deliver(message);
        }
        if (awaiting?.answered) {
          stopped = true; // the response arrived: the rest of the stream is not needed
          break;
        }
        if (cursor.pending > this.#maxBytes) {
          stopped = true;
          break;
        }
      }
    } catch {
      // aborted or dropped: the caller decides whether to reconnect
    } finally {
      controller.signal.removeEventListener("abort", stop);
      this.#controllers.delete(controller);
      await reader.cancel().catch(() => {});
    }
    return {
      received,
      progressed,
      stopped: stopped || controller.signal.aborted,
    };
  }

  /** Opens the GET stream and keeps it open while the session lasts. */
  #listen(): void {
    if (this.#listening || this.#closed) return;
    this.#listening = true;
    this.#spawn(this.#listenLoop().finally(() => (this.#listening = false)));
  }

  async #listenLoop(): Promise<void> {
    const max = this.#options.maxReconnects ?? 5;
    const cursor = new SseCursor();
    let failures = 0;
    while (!this.#closed && this.#sessionId !== undefined) {
      const controller = this.#track(new AbortController());
      const res = await this.#openOrReport(controller, cursor.lastEventId);
      if (res === "stop") return;
      if (this.#closed) {
        await res?.body?.cancel();
        return;
      }
      if (res && res.ok && eventStream(res) && res.body) {
        const read = await this.#read(res.body, controller, cursor);
        failures = read.received ? 0 : failures + 1;
      } else if (res) {
        this.#controllers.delete(controller);
        if (res.status === 405) {
          await res.body?.cancel();
          return; // the server offers no GET stream
        }
        const error = await this.#refused(res, "GET");
        if (
          error.sessionEnded ||
          (res.status >= 400 && res.status < 500 && res.status !== 408 &&
            res.status !== 429)
        ) {
          if (!error.sessionEnded) this.#options.onerror?.(error);
          return;
        }
        failures++;
      } else {
        failures++;
      }
      if (this.#closed) return;
      if (failures > max) {
        this.#options.onerror?.(
          new StreamableHttpError(
            0,
            `GET ${this.#url}: the notification stream failed ${failures} times in a row; stopped listening (requests still work)`,
          ),
        );
        return;
      }
      await this.#sleep(this.#delay(cursor.retry, failures));
    }
  }
}

/** Whether an answer is an SSE stream. */
function eventStream(res: Response): boolean {
  const type = res.headers.get("content-type")?.split(";")[0].trim()
    .toLowerCase();
  return type === "text/event-stream";
}

/** How many times one request is sent again after its authorizer obtained new credentials. */
const MAX_AUTHORIZED_RETRIES = 2;

/**
 * A `fetch` that sends the authorizer's `Authorization` header and, on 401 (or 403), lets it
 * obtain new credentials and sends the request again: at most {@linkcode MAX_AUTHORIZED_RETRIES}
 * times. A failed authorization rejects with a {@linkcode StreamableHttpError} of the refusal's
 * status whose cause is the authorizer's error.
 */
function authorizedFetch(
  base: typeof fetch,
  auth: HttpAuthorizer,
): typeof fetch {
  return async (
    input: RequestInfo | URL,
    init: RequestInit = {},
  ): Promise<Response> => {
    const url = input instanceof Request ? input.url : String(input);
    const method = init.method ?? "GET";
    for (let attempt = 0;; attempt++) {
      const authorization = await auth.authorization(url);
      const headers = new Headers(init.headers);
      if (authorization !== undefined) {
        headers.set("authorization", authorization);
      } else headers.delete("authorization");
      const res = await base(input, { ...init, headers });
      if (res.status !== 401 && res.status !== 403) return res;
      if (method === "DELETE" || attempt >= MAX_AUTHORIZED_RETRIES) return res;
      let again: boolean;
      try {
        again = await auth.challenged({
          url,
          method,
          status: res.status,
          wwwAuthenticate: res.headers.get("www-authenticate"),
          authorization,
          fetch: base,
        });
      } catch (e) {
        await res.body?.cancel().catch(() => {});
        throw new StreamableHttpError(
          res.status,
          `${method} ${url} was refused with HTTP ${res.status} and authorization failed: ${
            e instanceof Error ? e.message : String(e)
          }`,
          { cause: e },
        );
      }
      if (!again) return res;
      await res.body?.cancel().catch(() => {});
    }
  };
}

/**
 * A response body as text, read as it arrives and given up past `max` bytes (the connection is
 * dropped, nothing more is buffered).
 */
async function readCapped(res: Response, max: number, where: string): Promise<string> {
  const declared = Number(res.headers.get("content-length"));
  if (Number.isFinite(declared) && declared > max) {
    await res.body?.cancel();
    throw new MessageTooLargeError(max, where);
  }
  if (res.body === null) return "";
  // A declared length within the cap bounds the body (the HTTP framing ends it there): read it
  // whole, without a read per chunk.
  if (res.headers.has("content-length") && Number.isSafeInteger(declared)) return await res.text();
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.length;
    if (size > max) {
      await reader.cancel().catch(() => {});
      throw new MessageTooLargeError(max, where);
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const c of chunks) {
    bytes.set(c, offset);
    offset += c.length;
  }
  return new TextDecoder().decode(bytes);
}
