// The requests a peer received and is handling: each runs its handler with a context (a signal
// the other side's `notifications/cancelled` aborts, progress, related sends) and is answered at
// most once — never after it was cancelled or the peer closed.

import { ERROR_CODES, JsonRpcError } from "./errors.ts";
import { makeError, makeNotification, makeResult } from "./messages.ts";
import type { ProtocolErrorReport, RequestContext, RequestHandler } from "./peer_types.ts";
import type { TransportSendOptions } from "./transport.ts";
import type { JsonRpcId, JsonRpcMessage, JsonRpcRequest } from "./types.ts";
import { isObject } from "../_object.ts";
import { isId } from "./_rules.ts";

interface Entry {
  controller: AbortController;
  /** Answered, cancelled or closed: nothing more goes out for it. */
  done: boolean;
  /** The last progress value sent (progress only ever increases). */
  lastProgress: number;
}

/** What the table needs from its peer. */
export interface IncomingHost {
  sendQuietly: (
    message: JsonRpcMessage,
    options?: TransportSendOptions,
  ) => void;
  report: (report: ProtocolErrorReport) => void;
  /** The context's `notify` and `request`, already related to the request being handled. */
  related: (id: JsonRpcId) => Pick<RequestContext, "notify" | "request">;
}

/** The requests a peer is handling. */
export class IncomingRequests {
  readonly #host: IncomingHost;
  readonly #entries = new Map<JsonRpcId, Entry>();

  constructor(host: IncomingHost) {
    this.#host = host;
  }

  /** How many requests are being handled. */
  get size(): number {
    return this.#entries.size;
  }

  /** Runs the handler for a request and answers it (see `JsonRpcPeer.onRequest`). */
  handle(request: JsonRpcRequest, handler: RequestHandler | undefined): void {
    const { id, method } = request;
    if (this.#entries.has(id)) {
      this.#host.sendQuietly(
        makeError(
          id,
          new JsonRpcError(
            ERROR_CODES.INVALID_REQUEST,
            `Invalid Request: id ${JSON.stringify(id)} is already in use`,
          ),
        ),
      );
      return;
    }
    if (!handler) {
      this.#host.sendQuietly(
        makeError(
          id,
          new JsonRpcError(
            ERROR_CODES.METHOD_NOT_FOUND,
            `Method not found: ${method}`,
          ),
        ),
      );
      return;
    }
    const entry: Entry = {
      controller: new AbortController(),
      done: false,
      lastProgress: -Infinity,
    };
    this.#entries.set(id, entry);
    const answer = (message: JsonRpcMessage): void => {
      if (entry.done) return;
      this.#finish(id, entry);
      this.#host.sendQuietly(message);
    };
    const context = this.#context(request, entry);
    new Promise<unknown>((resolve) => resolve(handler(request.params, context)))
      .then(
        (result) => answer(makeResult(id, result === undefined ? {} : result)),
        (error) => {
          if (error instanceof JsonRpcError) {
            answer(makeError(id, error));
            return;
          }
          if (!entry.done) {
            this.#host.report({ kind: "handler-failed", method, error });
          }
          answer(
            makeError(
              id,
              new JsonRpcError(ERROR_CODES.INTERNAL_ERROR, "Internal error"),
            ),
          );
        },
      );
  }

  /** The other side's `notifications/cancelled`: aborts the request it names; no answer follows. */
  cancelled(params: Record<string, unknown>): void {
    const id = params.requestId;
    if (!isId(id)) return;
    const entry = this.#entries.get(id);
    if (!entry) return;
    this.#finish(id, entry);
    entry.controller.abort(params.reason ?? "cancelled");
  }

  /** Aborts every request being handled; none is answered (the peer closed). */
  abortAll(reason: Error): void {
    for (const [id, entry] of [...this.#entries]) {
      this.#finish(id, entry);
      entry.controller.abort(reason);
    }
  }

  #finish(id: JsonRpcId, entry: Entry): void {
    entry.done = true;
    if (this.#entries.get(id) === entry) this.#entries.delete(id);
  }

  #context(request: JsonRpcRequest, entry: Entry): RequestContext {
    const { id, method } = request;
    const params = isObject(request.params) ? request.params : {};
    const meta = isObject(params._meta) ? params._meta : {};
    const token = meta.progressToken;
    const progressToken = isId(token) ? token : undefined;
    return {
      id,
      method,
      signal: entry.controller.signal,
      progressToken,
      progress: (update) => {
        if (
          progressToken === undefined || entry.done ||
          typeof update.progress !== "number" ||
          !(update.progress > entry.lastProgress)
        ) return;
        entry.lastProgress = update.progress;
        const p: Record<string, unknown> = {
          progressToken,
          progress: update.progress,
        };
        if (update.total !== undefined) p.total = update.total;
        if (update.message !== undefined) p.message = update.message;
        this.#host.sendQuietly(makeNotification("notifications/progress", p), {
          relatedRequestId: id,
        });
      },
      ...this.#host.related(id),
    };
  }
}
