/**
 * The classifier's memo over pairs of subschemas, and its step budget.
 *
 * A pair reached again while it is being compared (a reference cycle) is assumed unchanged: the
 * cycle's own changes are found on its first visit. A result that leaned on such an assumption is
 * kept only while the pair that justified it is still being compared (so a cycle of pairs is
 * computed once, not once per path through it), and kept for good only when the pair's result
 * agrees with what was assumed. When it does not, the pair is compared again assuming what it
 * found (its result, `summarize`d), until the two agree (a fixpoint, reached in a round or two:
 * the verdict only grows, through three bumps): an optimistic answer never leaks out of the cycle
 * that justified it, and the pairs inside a cycle with a change in it are kept too, instead of
 * being computed again along every path into the cycle.
 */

/** Thrown when a classification takes more comparison steps than its budget. */
export class BudgetExceeded extends Error {
  /** The budget that was exceeded, in comparison steps. */
  readonly budget: number;
  /** What ran out, for the verdict's message. */
  readonly reason: string;
  constructor(budget: number, reason = `more than ${budget} comparison steps, option budget`) {
    super(`the comparison needed ${reason}`);
    this.budget = budget;
    this.reason = reason;
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

/** The most rounds one pair is compared in before its last result is taken as it is. */
const MAX_ROUNDS = 4;

/** Memoizes a recursive computation over pairs, assuming `assumed` for a pair in progress. */
export class CycleMemo<T> {
  readonly #assumed: T;
  readonly #agrees: (result: T, assumed: T) => boolean;
  readonly #summarize: (result: T) => T;
  readonly #budget: Budget;
  /** What is assumed for a pair in progress whose first assumption its result refuted. */
  readonly #assumptions = new Map<string, T>();
  readonly #done = new Map<string, T>();
  /** Results that leaned on a pair still in progress, in the order they were made. */
  readonly #tentative = new Map<string, T>();
  readonly #log: string[] = [];
  /** Pairs in progress: their depth and whether they were revisited. */
  readonly #active = new Map<string, { depth: number; hit: boolean }>();
  #low = Infinity;
  /** Whether an assumption was refuted in the cycle being computed (another round is due). */
  #dirty = false;

  /**
   * @param assumed The result assumed for a pair in progress, at first.
   * @param agrees Whether a result agrees with what was assumed for its pair.
   * @param summarize What to assume for a pair in progress, after its result refuted `assumed`.
   * @param budget The steps the computation may take.
   */
  constructor(
    assumed: T,
    agrees: (result: T, assumed: T) => boolean,
    summarize: (result: T) => T,
    budget: Budget,
  ) {
    this.#assumed = assumed;
    this.#agrees = agrees;
    this.#summarize = summarize;
    this.#budget = budget;
  }

  run(key: string, compute: () => T): T {
    const hit = this.#done.get(key) ?? this.#tentative.get(key);
    if (hit !== undefined) return hit;
    const active = this.#active.get(key);
    if (active !== undefined) {
      active.hit = true;
      this.#low = Math.min(this.#low, active.depth);
      return this.#assumptions.get(key) ?? this.#assumed;
    }
    this.#budget.spend();
    const mine = this.#active.size;
    // Each pair in progress is a few stack frames: past this, the budget's answer, not a crash.
    if (mine >= MAX_NESTING) {
      throw new BudgetExceeded(
        this.#budget.limit,
        `subschemas compared inside each other more than ${MAX_NESTING} deep`,
      );
    }
    const outer = this.#low;
    const outerDirty = this.#dirty;
    const mark = this.#log.length;
    let result: T;
    let low: number;
    for (let round = 1;; round++) {
      const me = { depth: mine, hit: false };
      this.#low = Infinity;
      this.#dirty = false;
      this.#active.set(key, me);
      try {
        result = compute();
      } finally {
        this.#active.delete(key);
      }
      low = this.#low;
      const assumed = this.#assumptions.get(key) ?? this.#assumed;
      const refuted = me.hit && !this.#agrees(result, assumed);
      // The next round assumes what this one found.
      if (refuted) this.#assumptions.set(key, this.#summarize(result));
      const dirty = this.#dirty || refuted;
      if (low < mine) {
        // Inside a cycle whose first pair is above, still in progress: good while that pair is,
        // and computed again in its next round if anything in the cycle was refuted.
        this.#tentative.set(key, result);
        this.#log.push(key);
        this.#dirty = outerDirty || dirty;
        break;
      }
      // The first pair of a cycle: another round while an assumption in it was refuted.
      if (dirty && round < MAX_ROUNDS) {
        for (const k of this.#log.splice(mark)) this.#tentative.delete(k);
        this.#budget.spend();
        continue;
      }
      // What leaned on an assumption stands when every assumption held (after the last round
      // without agreement, only this pair's own result is kept).
      for (const k of this.#log.splice(mark)) {
        if (!dirty) this.#done.set(k, this.#tentative.get(k)!);
        this.#tentative.delete(k);
        this.#assumptions.delete(k);
      }
      this.#assumptions.delete(key);
      this.#done.set(key, result);
      this.#dirty = outerDirty;
      break;
    }
    this.#low = Math.min(outer, low < mine ? low : Infinity);
    return result;
  }
}
