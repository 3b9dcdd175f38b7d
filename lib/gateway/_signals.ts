/**
 * Waiting with a bound: a {@linkcode deadline} on the gateway's timers, {@linkcode raceAbort} to
 * stop waiting for a promise when a signal aborts (cleaning up what arrives late), and
 * {@linkcode formatDuration} for the messages that say how long was waited.
 *
 * @module
 */
import type { ServerTimers } from "../mcp/server_options.ts";

/** A signal that aborts after a time, and the way to stop its timer. */
export interface Deadline {
  /** Aborted when the time is up. */
  readonly signal: AbortSignal;
  /** Stops the timer (always call it). */
  clear(): void;
}

/**
 * A deadline `ms` from now on the timers given; `Infinity` never expires.
 *
 * @param timers The timers.
 * @param ms How long.
 * @returns The deadline.
 */
export function deadline(timers: ServerTimers, ms: number): Deadline {
  const controller = new AbortController();
  if (!Number.isFinite(ms)) {
    return { signal: controller.signal, clear: () => {} };
  }
  const handle = timers.setTimeout(
    () => controller.abort(new Error(`no answer within ${formatDuration(ms)}`)),
    ms,
  );
  return {
    signal: controller.signal,
    clear: () => timers.clearTimeout(handle),
  };
}

/**
 * Waits for a promise, or until the signal aborts (then rejects with its reason). What the promise
 * gives after that is handed to `late` (to close a transport nobody waits for any more).
 *
 * @param promise What to wait for.
 * @param signal When to stop waiting.
 * @param late Cleans up a value that arrived too late.
 * @returns The promise's value.
 */
export function raceAbort<T>(
  promise: Promise<T>,
  signal: AbortSignal,
  late?: (value: T) => void,
): Promise<T> {
  const drop = (): void => {
    promise.then((v) => late?.(v), () => {});
  };
  if (signal.aborted) {
    drop();
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => {
      reject(signal.reason);
      drop();
    };
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then((v) => {
      signal.removeEventListener("abort", onAbort);
      resolve(v);
    }, (e) => {
      signal.removeEventListener("abort", onAbort);
      reject(e);
    });
  });
}

/**
 * A duration as a message says it: `250 ms`, `30 s`, `1.5 s`.
 *
 * @param ms Milliseconds.
 * @returns The text.
 */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = ms / 1000;
  return `${Number.isInteger(s) ? s : s.toFixed(1)} s`;
}
