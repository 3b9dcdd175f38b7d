/**
 * The server's retirement timer: while anyone is connected who could be told, one timer is set
 * for the registry's next retirement on its date (`registry.nextRetirement()`); when it fires the
 * registry retires what is due (its events tell the sessions and streams), and the timer is set
 * again for the next one.
 *
 * @module
 */
import type { ToolRegistry } from "../estate/registry.ts";
import type { ServerTimers } from "./server_options.ts";

/** The longest delay a platform timer takes (2^31 - 1 ms, about 24.8 days); longer ones re-arm. */
const MAX_TIMER_MS = 2_147_483_647;
/** How long to wait when a timer fired before the registry's clock reached the retirement. */
const LATE_RETRY_MS = 1000;

/** Options for a {@linkcode RetirementTimer}. */
export interface RetirementTimerOptions {
  /** The estate whose retirements are timed. */
  registry: ToolRegistry;
  /** Setting and clearing the one timer. */
  timers: ServerTimers;
  /** The clock. */
  now: () => number;
  /** Whether a timer is wanted now: someone is connected who could be told, the server is open. */
  wanted: () => boolean;
}

/** One timer for the registry's next retirement, while one is wanted. */
export class RetirementTimer {
  readonly #options: RetirementTimerOptions;
  /** The timer, while one is set. */
  #timer: { handle: unknown } | undefined;

  /**
   * Makes the timer (none is set yet).
   *
   * @param options The registry, the timers, the clock, and when a timer is wanted.
   */
  constructor(options: RetirementTimerOptions) {
    this.#options = options;
  }

  /**
   * Sets the timer again for the registry's next retirement on its date, when one is wanted;
   * clears it otherwise.
   *
   * @param late The timer just fired and nothing was due yet by the registry's clock: wait a
   *   little rather than fire again at once.
   */
  arm(late = false): void {
    const { registry, timers, now, wanted } = this.#options;
    // Asked first: reading the registry may retire what is due, and its events re-arm (nested).
    const next = wanted() ? registry.nextRetirement() : undefined;
    if (this.#timer) {
      timers.clearTimeout(this.#timer.handle);
      this.#timer = undefined;
    }
    if (next === undefined) return;
    let delay = Date.parse(next) - now();
    if (delay <= 0 && late) delay = LATE_RETRY_MS;
    const timer: { handle: unknown } = { handle: undefined };
    timer.handle = timers.setTimeout(() => {
      if (this.#timer !== timer) return;
      this.#timer = undefined;
      const retired = registry.retireDue(); // its events tell the sessions
      this.arm(retired.length === 0);
    }, Math.min(Math.max(delay, 0), MAX_TIMER_MS));
    this.#timer = timer;
  }
}
