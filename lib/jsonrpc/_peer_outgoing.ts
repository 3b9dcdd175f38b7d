// The requests a peer sent and still waits for: their ids (never reused), timeouts, progress
// callbacks and cancellation. Each settles exactly once, and leaves the table when it does.

import { JsonRpcError } from "./errors.ts";
import { makeNotification, makeRequest } from "./messages.ts";
import { PeerError } from "./peer_error.ts";
import type { PeerCall, PeerRequestOptions, PeerTimers, Progress } from "./peer_types.ts";
import type { Transport, TransportSendOptions } from "./transport.ts";
import type { JsonRpcId, JsonRpcMessage, JsonRpcParams, JsonRpcResponse } from "./types.ts";
import { isObject } from "../_object.ts";
import { describe } from "./_rules.ts";

/** The longest delay a platform timer takes (2^31 − 1 ms, about 24.8 days); longer ones re-arm. */
const MAX_TIMER_MS = 2_147_483_647;

interface Entry {
  method: string;
  onProgress: ((progress: Progress) => void) | undefined;
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
  /** Stops the timer and the abort listener. */
  disarm: () => void;
}

/** What the table needs from its peer. */
export interface OutgoingHost {
  transport: Transport;
  timers: PeerTimers;
  /** The default timeout in milliseconds (`Infinity`: none). */
  timeoutMs: number;
  /** Whether a timeout also sends `notifications/cancelled`. */
  cancelOnTimeout: boolean;
  /** Sends a message whose failure nobody waits for (it is reported). */
  sendQuietly: (
    message: JsonRpcMessage,
    options?: TransportSendOptions,
  ) => void;
  /** The message requests fail with once the peer is closed, or undefined while it is open. */
  closedWith: () => string | undefined;
}

/** Sets a timer that may be longer than a platform timer allows; returns what clears it. */
function arm(timers: PeerTimers, ms: number, fire: () => void): () => void {
  let remaining = ms;
  let handle: unknown;
  const step = (): void => {
    if (remaining > MAX_TIMER_MS) {
      remaining -= MAX_TIMER_MS;
      handle = timers.setTimeout(step, MAX_TIMER_MS);
    } else {
      handle = timers.setTimeout(fire, remaining);
    }
  };
  step();
  return () => timers.clearTimeout(handle);
}

function timeoutProblem(ms: unknown): string | undefined {
  return typeof ms === "number" && ms >= 0
    ? undefined
    : `timeoutMs must be a number ≥ 0 (Infinity for none), got ${describe(ms)}`;
}

/** `params` with `_meta.progressToken` set, keeping the caller's other `_meta`. */
function withProgressToken(
  params: JsonRpcParams | undefined,
  token: JsonRpcId,
): JsonRpcParams {
  if (params !== undefined && !isObject(params)) {
    throw new TypeError(
      "onProgress needs named params (an object) to carry _meta.progressToken",
    );
  }
  const meta = isObject(params?._meta) ? params._meta : {};
  return { ...params, _meta: { ...meta, progressToken: token } };
}

/** The requests a peer is waiting on. */
export class OutgoingRequests {
  readonly #host: OutgoingHost;
  readonly #entries = new Map<JsonRpcId, Entry>();
  #nextId = 1;

  constructor(host: OutgoingHost) {
    this.#host = host;
  }

  /** How many requests wait for an answer. */
  get size(): number {
    return this.#entries.size;
  }

  /** Sends a request; see `JsonRpcPeer.start`. */
  start(
    method: string,
    params: JsonRpcParams | undefined,
    options: PeerRequestOptions,
  ): PeerCall {
    const id = this.#nextId++;
    const failed = (error: Error): PeerCall => ({
      id,
      result: Promise.reject(error),
      abandon: () => {},
    });
    const closed = this.#host.closedWith();
    if (closed !== undefined) {
      return failed(new PeerError("closed", closed, { method, requestId: id }));
    }
    const timeoutMs = options.timeoutMs ?? this.#host.timeoutMs;
    let message;
    try {
      const problem = timeoutProblem(timeoutMs);
      if (problem !== undefined) throw new TypeError(`request(): ${problem}`);
      message = makeRequest(
        id,
        method,
        options.onProgress ? withProgressToken(params, id) : params,
      );
    } catch (e) {
      return failed(e as Error);
    }
    const signal = options.signal;
    if (signal?.aborted) {
      return failed(
        new PeerError("cancelled", `request ${method} was cancelled`, {
          method,
          cause: signal.reason,
        }),
      );
    }
    const entry: Entry = {
      method,
      onProgress: options.onProgress,
      resolve: () => {},
      reject: () => {},
      disarm: () => {},
    };
    const result = new Promise<unknown>((resolve, reject) => {
      entry.resolve = resolve;
      entry.reject = reject;
    });
    const onAbort = (): void => {
      this.#cancel(
        id,
        String(signal!.reason ?? "cancelled"),
        new PeerError("cancelled", `request ${method} was cancelled`, {
          method,
          requestId: id,
          cause: signal!.reason,
        }),
      );
    };
    const onTimeout = (): void => {
      const error = new PeerError(
        "timeout",
        `request ${method} timed out after ${timeoutMs} ms`,
        {
          method,
          requestId: id,
        },
      );
      if (this.#host.cancelOnTimeout) this.#cancel(id, error.message, error);
      else this.settle(id, error);
    };
    const disarmTimer = Number.isFinite(timeoutMs)
      ? arm(this.#host.timers, timeoutMs, onTimeout)
      : () => {};
    signal?.addEventListener("abort", onAbort, { once: true });
    entry.disarm = () => {
      disarmTimer();
      signal?.removeEventListener("abort", onAbort);
    };
    this.#entries.set(id, entry);
    const related = options.relatedRequestId === undefined
      ? undefined
      : { relatedRequestId: options.relatedRequestId };
    let sent: Promise<void>;
    try {
      sent = this.#host.transport.send(message, related);
    } catch (e) {
      sent = Promise.reject(e);
    }
    sent.catch((e) => this.settle(id, e instanceof Error ? e : new Error(String(e))));
    return {
      id,
      result,
      abandon: (why: string) => {
        this.settle(
          id,
          new PeerError("cancelled", why, { method, requestId: id }),
        );
      },
    };
  }

  /**
   * Ends a request with a result or an error, once: later calls, and answers after it, find
   * nothing.
   *
   * @returns Whether the request was still waiting.
   */
  settle(id: JsonRpcId, outcome: Error | { result: unknown }): boolean {
    const entry = this.#entries.get(id);
    if (!entry) return false;
    this.#entries.delete(id);
    entry.disarm();
    if (outcome instanceof Error) entry.reject(outcome);
    else entry.resolve(outcome.result);
    return true;
  }

  /** Settles the request a response answers; false when none waits for it. */
  answer(response: JsonRpcResponse): boolean {
    if (response.id === null) return false;
    if ("error" in response) {
      const { code, message, data } = response.error;
      return this.settle(
        response.id,
        new JsonRpcError(code, message, {
          requestId: response.id,
          ...(data === undefined ? {} : { data }),
        }),
      );
    }
    return this.settle(response.id, { result: response.result });
  }

  /** Passes a progress notification's params to the request whose token they name. */
  progress(params: Record<string, unknown>): void {
    const token = params.progressToken;
    if (typeof token !== "string" && typeof token !== "number") return;
    const entry = this.#entries.get(token);
    if (!entry?.onProgress || typeof params.progress !== "number") return;
    // Both keys always present (undefined when not sent), as the client has always passed them.
    entry.onProgress({
      progress: params.progress,
      total: typeof params.total === "number" ? params.total : undefined,
      message: typeof params.message === "string" ? params.message : undefined,
    });
  }

  /** Fails every waiting request (the peer closed). */
  failAll(message: string, cause?: Error): void {
    for (const [id, entry] of [...this.#entries]) {
      this.settle(
        id,
        new PeerError("closed", message, {
          method: entry.method,
          requestId: id,
          ...(cause ? { cause } : {}),
        }),
      );
    }
  }

  /** Tells the other side (unless the transport cancels by itself), then fails the request. */
  #cancel(id: JsonRpcId, reason: string, error: PeerError): void {
    if (!this.#entries.has(id)) return;
    if (!this.#host.transport.cancel?.(id)) {
      this.#host.sendQuietly(
        makeNotification("notifications/cancelled", { requestId: id, reason }),
      );
    }
    this.settle(id, error);
  }
}
