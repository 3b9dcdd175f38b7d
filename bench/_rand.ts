/**
 * A seeded source of the choices the benchmark generators make (mulberry32 underneath).
 *
 * @module
 */
import { rng } from "./_calls.ts";

/** A seeded source of the choices the generators make. */
export class Rand {
  readonly #next: () => number;
  constructor(seed: number) {
    this.#next = rng(seed);
  }
  /** A float in [0, 1). */
  float(): number {
    return this.#next();
  }
  /** An integer in [lo, hi]. */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.#next() * (hi - lo + 1));
  }
  /** True with probability `p`. */
  chance(p: number): boolean {
    return this.#next() < p;
  }
  /** One of `xs`. */
  pick<T>(xs: readonly T[]): T {
    return xs[Math.floor(this.#next() * xs.length)];
  }
  /** `k` distinct elements of `xs`, in random order. */
  some<T>(xs: readonly T[], k: number): T[] {
    const pool = [...xs];
    const out: T[] = [];
    while (out.length < k && pool.length > 0) {
      out.push(pool.splice(Math.floor(this.#next() * pool.length), 1)[0]);
    }
    return out;
  }
  /** An index drawn from cumulative weights (ascending, last = total). */
  weighted(cumulative: readonly number[]): number {
    const x = this.#next() * cumulative[cumulative.length - 1];
    let lo = 0, hi = cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cumulative[mid] > x) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  }
  /** `n` characters drawn from `alphabet`. */
  chars(alphabet: string, n: number): string {
    let s = "";
    for (let i = 0; i < n; i++) s += alphabet[Math.floor(this.#next() * alphabet.length)];
    return s;
  }
}

/** Running totals of `weights`, for {@linkcode Rand.weighted}. */
export const cumulative = (weights: readonly number[]): number[] => {
  let total = 0;
  return weights.map((w) => total += w);
};
