/** A fast-check filter that gives up, with a clear error, instead of looping forever. */
import fc from "fast-check";

/** Keeps the values that pass `accept`; throws `fail()` after `attempts` rejected candidates in a row. */
export class BoundedFilter<T> extends fc.Arbitrary<T> {
  readonly #arb: fc.Arbitrary<T>;
  readonly #accept: (v: T) => boolean;
  readonly #attempts: number;
  readonly #fail: () => Error;

  constructor(
    arb: fc.Arbitrary<T>,
    accept: (v: T) => boolean,
    attempts: number,
    fail: () => Error,
  ) {
    super();
    this.#arb = arb;
    this.#accept = accept;
    this.#attempts = attempts;
    this.#fail = fail;
  }

  generate(mrng: fc.Random, biasFactor: number | undefined): fc.Value<T> {
    for (let i = 0; i < this.#attempts; i++) {
      const g = this.#arb.generate(mrng, biasFactor);
      if (this.#accept(g.value)) return g;
    }
    throw this.#fail();
  }

  canShrinkWithoutContext(value: unknown): value is T {
    return this.#arb.canShrinkWithoutContext(value) && this.#accept(value);
  }

  shrink(value: T, context: unknown): fc.Stream<fc.Value<T>> {
    return this.#arb.shrink(value, context).filter((v) => this.#accept(v.value));
  }
}
