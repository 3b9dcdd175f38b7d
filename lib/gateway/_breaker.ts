/**
 * A circuit breaker for one upstream server: after `failures` consecutive failed calls (no answer
 * in time, a connection lost mid-call, a connection that could not be opened) it opens, and calls
 * fail at once for `coolDownMs`; then it is half-open and lets one call through as a probe — an
 * answer closes it, a failure opens it again. Calls that end neither way (cancelled by their
 * caller, refused before reaching the server) leave it as it was. Time is read from the clock
 * given; no timer is set.
 *
 * @module
 */

import type { CircuitState } from "./status.ts";

/** A call the breaker let through: settle it exactly once with {@linkcode CircuitBreaker.settle}. */
export interface Admission {
  /** Whether it is the half-open state's probe. */
  readonly probe: boolean;
}

/** How a call the breaker let through ended. */
export type CallEnd = "answered" | "failed" | "neither";

/** Options for a {@linkcode CircuitBreaker}. */
export interface CircuitBreakerOptions {
  /** Consecutive failures that open the circuit. */
  failures: number;
  /** How long it stays open before a probe, in milliseconds. */
  coolDownMs: number;
  /** The clock, in milliseconds. */
  now: () => number;
  /** Told of each change of state. */
  onChange: (state: CircuitState, failures: number) => void;
}

/** The breaker. */
export class CircuitBreaker {
  readonly #options: CircuitBreakerOptions;
  #state: CircuitState = "closed";
  #failures = 0;
  #openedAt = 0;
  #probing = false;

  constructor(options: CircuitBreakerOptions) {
    this.#options = options;
  }

  /** Where it stands now (an open circuit whose cool-down has passed reads `half-open`). */
  get state(): CircuitState {
    if (this.#state === "open" && this.#options.now() >= this.#reopensAt()) {
      return "half-open";
    }
    return this.#state;
  }

  /** The consecutive failures counted. */
  get failures(): number {
    return this.#failures;
  }

  /** Milliseconds until an open circuit lets a probe through (0 when it would now). */
  get waitMs(): number {
    return Math.max(0, this.#reopensAt() - this.#options.now());
  }

  /**
   * Asks to let a call through.
   *
   * @returns The admission, or undefined when the call must fail at once.
   */
  admit(): Admission | undefined {
    if (this.#state === "closed") return { probe: false };
    if (this.#probing) return undefined;
    if (this.#state === "open") {
      if (this.#options.now() < this.#reopensAt()) return undefined;
      this.#move("half-open");
    }
    this.#probing = true;
    return { probe: true };
  }

  /**
   * Settles a call it let through.
   *
   * @param admission What {@linkcode CircuitBreaker.admit} returned.
   * @param end How the call ended.
   */
  settle(admission: Admission, end: CallEnd): void {
    if (admission.probe) this.#probing = false;
    if (end === "neither") return;
    if (end === "answered") {
      this.#failures = 0;
      if (this.#state !== "closed") this.#move("closed");
      return;
    }
    this.#failures++;
    if (this.#state === "half-open" && !admission.probe) return; // the probe decides
    if (
      this.#state === "half-open" || this.#failures >= this.#options.failures
    ) {
      this.#openedAt = this.#options.now();
      this.#move("open");
    }
  }

  #reopensAt(): number {
    return this.#openedAt + this.#options.coolDownMs;
  }

  #move(state: CircuitState): void {
    if (state === this.#state) return;
    this.#state = state;
    this.#options.onChange(state, this.#failures);
  }
}
