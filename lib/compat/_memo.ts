/**
 * The classifier's memo over pairs of subschemas, and its step budget.
 *
 * A pair reached again while it is being compared (a reference cycle) is assumed unchanged: the
 * cycle's own changes are found on its first visit. A result that leaned on such an assumption is
 * kept only while the pair that justified it is still being compared (so a cycle of pairs is
 * computed once, not once per path through it), and kept for good only when that pair turned out
 * unchanged indeed: an optimistic answer never leaks out of the cycle that justified it.
 */

/** Thrown when a classification takes more comparison steps than its budget. */
export class BudgetExceeded extends Error {
  /** The budget that was exceeded, in comparison steps. */
  readonly budget: number;
  constructor(budget: number) {
    super(`the comparison needed more than ${budget} steps`);
    this.budget = budget;
  }
}

/** A count of comparison steps that throws {@linkcode BudgetExceeded} past its limit. */
export class Budget {
  readonly limit: number;
  #used = 0;
  constructor(limit: number) {
    this.limit = limit;
  }
  /** Spends `n` steps. */
  spend(n = 1): void {
    this.#used += n;
    if (this.#used > this.limit) throw new BudgetExceeded(this.limit);
  }
  /** The steps spent so far. */
  get used(): number {
    return this.#used;
  }
}

/** The most pairs in progress at once (nested comparisons) before the budget counts as spent. */
const MAX_NESTING = 400;

/** Memoizes a recursive computation over pairs, assuming `assumed` for a pair in progress. */
export class CycleMemo<T> {
  readonly #assumed: T;
  readonly #confirms: (result: T) => boolean;
  readonly #budget: Budget;
  readonly #done = new Map<string, T>();
  /** Results that leaned on a pair still in progress, in the order they were made. */
  readonly #tentative = new Map<string, T>();
  readonly #log: string[] = [];
  /** Pairs in progress: their depth and whether they were revisited. */
  readonly #active = new Map<string, { depth: number; hit: boolean }>();
  #low = Infinity;

  /**
   * @param assumed The result assumed for a pair in progress.
   * @param confirms Whether a result agrees with that assumption.
   * @param budget The steps the computation may take.
   */
  constructor(assumed: T, confirms: (result: T) => boolean, budget: Budget) {
    this.#assumed = assumed;
    this.#confirms = confirms;
    this.#budget = budget;
  }

  run(key: string, compute: () => T): T {
    const hit = this.#done.get(key) ?? this.#tentative.get(key);
    if (hit !== undefined) return hit;
    const active = this.#active.get(key);
    if (active !== undefined) {
      active.hit = true;
      this.#low = Math.min(this.#low, active.depth);
      return this.#assumed;
    }
    this.#budget.spend();
    const mine = this.#active.size;
    // Each pair in progress is a few stack frames: past this, the budget's answer, not a crash.
    if (mine >= MAX_NESTING) throw new BudgetExceeded(this.#budget.limit);
    const me = { depth: mine, hit: false };
    const outer = this.#low;
    const mark = this.#log.length;
    this.#low = Infinity;
    this.#active.set(key, me);
    let result: T;
    try {
      result = compute();
    } finally {
      this.#active.delete(key);
    }
    const low = this.#low;
    if (low < mine) {
      // Leaned on a pair above, still in progress: good while that pair is.
      this.#tentative.set(key, result);
      this.#log.push(key);
    } else {
      // What leaned on this pair stands if the assumption held, else it goes.
      const settled = this.#log.splice(mark);
      const keep = !me.hit || this.#confirms(result);
      for (const k of settled) {
        if (keep) this.#done.set(k, this.#tentative.get(k)!);
        this.#tentative.delete(k);
      }
      this.#done.set(key, result);
    }
    this.#low = Math.min(outer, low < mine ? low : Infinity);
    return result;
  }
}
