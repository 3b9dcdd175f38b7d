/**
 * The requests one connection is serving, by id: the bookkeeping a JSON-RPC peer keeps for its
 * incoming requests — an id in use at most once, cancellation by `notifications/cancelled`, and
 * progress for a request that sent a `progressToken`.
 *
 * The server's sessions (`_server_rev2025_11_25.ts`) and the stdio transport's stateless requests
 * keep their requests here and nowhere else; the method handlers see only a signal and a progress
 * function. This narrow interface is where `lib/jsonrpc/peer.ts` takes over once it exists.
 *
 * @module
 */
import { makeNotification } from "../jsonrpc/messages.ts";
import type { JsonRpcId } from "../jsonrpc/types.ts";
import type { Notify } from "./tool_handler.ts";

/** One request being served. */
export interface InFlightRequest {
  /** Aborted when the client cancels it, or when the connection closes. */
  readonly signal: AbortSignal;
  /** True once the client cancelled it (`notifications/cancelled`): it gets no response. */
  readonly cancelled: boolean;
  /** Frees its id (idempotent; a later request may use the id again). */
  end(): void;
}

interface Entry {
  readonly controller: AbortController;
  readonly method: string;
  cancelled: boolean;
}

/** The requests one connection is serving, by id. */
export class InFlightRequests {
  readonly #entries = new Map<JsonRpcId, Entry>();

  /**
   * Starts serving a request.
   *
   * @param id Its id.
   * @param method Its method (see {@linkcode InFlightRequests.abortAll}).
   * @returns The request; undefined when the id is already in use.
   */
  begin(id: JsonRpcId, method: string): InFlightRequest | undefined {
    if (this.#entries.has(id)) return undefined;
    const entry: Entry = { controller: new AbortController(), method, cancelled: false };
    this.#entries.set(id, entry);
    return {
      signal: entry.controller.signal,
      get cancelled() {
        return entry.cancelled;
      },
      end: () => {
        if (this.#entries.get(id) === entry) this.#entries.delete(id);
      },
    };
  }

  /**
   * Whether a request with this id is being served.
   *
   * @param id The id.
   * @returns True while it is.
   */
  has(id: JsonRpcId): boolean {
    return this.#entries.has(id);
  }

  /**
   * Cancels a request the client gave up on: it is marked cancelled (no response) and its signal
   * aborts with `reason`.
   *
   * @param id The request's id, as `notifications/cancelled` named it.
   * @param reason The reason the client gave, if any.
   * @returns True when such a request was being served.
   */
  cancel(id: JsonRpcId, reason?: unknown): boolean {
    const entry = this.#entries.get(id);
    if (!entry) return false;
    entry.cancelled = true;
    entry.controller.abort(reason);
    return true;
  }

  /**
   * Aborts the signals of the requests being served (the connection is closing); they are not
   * marked cancelled: each still answers, for whoever is left to read it.
   *
   * @param which Only the requests of the methods it accepts. Default: every one.
   */
  abortAll(which: (method: string) => boolean = () => true): void {
    for (const entry of this.#entries.values()) {
      if (which(entry.method)) entry.controller.abort();
    }
  }
}

/**
 * The request a `notifications/cancelled` names.
 *
 * @param message A parsed JSON value.
 * @returns Its `params.requestId` when the message is a `notifications/cancelled` notification
 *   naming a string or number id; undefined otherwise.
 */
export function cancelledRequestId(message: unknown): JsonRpcId | undefined {
  if (typeof message !== "object" || message === null) return undefined;
  const m = message as { method?: unknown; id?: unknown; params?: { requestId?: unknown } };
  if (m.method !== "notifications/cancelled" || m.id !== undefined) return undefined;
  const id = m.params?.requestId;
  return typeof id === "string" || typeof id === "number" ? id : undefined;
}

/** Options for {@linkcode progressReporter}. */
export interface ProgressOptions {
  /** The request's `_meta.progressToken`, as sent (only a string or a number asks for progress). */
  token: unknown;
  /** The request's id: the notifications are related to it. */
  requestId: JsonRpcId;
  /** Where notifications go. */
  notify: Notify;
  /** The request's signal: once aborted, no more progress goes out. */
  signal: AbortSignal;
}

/**
 * The progress function for one request: it sends `notifications/progress` with the request's
 * token — only when the client sent one, only while the request runs, and only for values that
 * increase.
 *
 * @param options The token, the request, the channel, the signal.
 * @returns `(progress, total?, message?) => void`.
 */
export function progressReporter(
  options: ProgressOptions,
): (progress: number, total?: number, message?: string) => void {
  const { token, requestId, notify, signal } = options;
  let last = -Infinity;
  return (value, total, message) => {
    if (
      (typeof token !== "string" && typeof token !== "number") || signal.aborted ||
      !(value > last)
    ) return;
    last = value;
    const p: Record<string, unknown> = { progressToken: token, progress: value };
    if (total !== undefined) p.total = total;
    if (message !== undefined) p.message = message;
    notify(makeNotification("notifications/progress", p), requestId);
  };
}
