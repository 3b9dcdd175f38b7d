/** Generation of numbers: bounds, exclusive ends and `multipleOf`, on exact decimals. */
import fc from "fast-check";
import type { ScalarContext } from "./_scalar_context.ts";

type Obj = Record<string, unknown>;
type Arb = fc.Arbitrary<unknown>;

const INT32_MIN = -(2 ** 31), INT32_MAX = 2 ** 31 - 1;

/** `k × m` computed on the decimals the numbers print as, so `3 × 0.1` is `0.3`. */
function times(k: number, m: number): number {
  const match = /^(-?)(\d+)(?:\.(\d+))?(?:e([+-]\d+))?$/.exec(String(m));
  if (!match) return k * m;
  const frac = match[3] ?? "";
  const mantissa = BigInt(match[1] + match[2] + frac);
  const exp = Number(match[4] ?? 0) - frac.length;
  return Number(`${BigInt(k) * mantissa}e${exp}`);
}

/** The smallest positive integer that is a multiple of `m` (for integer schemas), exactly. */
function integerStep(m: number): number {
  const match = /^(\d+)(?:\.(\d+))?(?:e([+-]\d+))?$/.exec(String(m));
  if (!match) return m;
  const frac = match[2] ?? "";
  const exp = Number(match[3] ?? 0) - frac.length;
  const mantissa = BigInt(match[1] + frac);
  if (exp >= 0) return m;
  // m = mantissa / 10^-exp; its smallest integer multiple is mantissa / gcd(mantissa, 10^-exp).
  let a = mantissa, b = 10n ** BigInt(-exp);
  while (b) [a, b] = [b, a % b];
  return Number(mantissa / a);
}

/** Integers in [min, max], through `fc.integer` or, beyond 32 bits, `fc.bigInt`. */
function integers(min: number, max: number): fc.Arbitrary<number> {
  if (min >= INT32_MIN && max <= INT32_MAX) return fc.integer({ min, max });
  const lo = BigInt(Math.max(min, -Number.MAX_SAFE_INTEGER));
  const hi = BigInt(Math.min(max, Number.MAX_SAFE_INTEGER));
  return fc.bigInt({ min: lo, max: hi }).map(Number);
}

interface Bound {
  value: number;
  exclusive: boolean;
}

function bound(s: Obj, side: "lower" | "upper"): Bound | undefined {
  const [inc, exc] = side === "lower"
    ? ["minimum", "exclusiveMinimum"]
    : ["maximum", "exclusiveMaximum"];
  const a = typeof s[inc] === "number" ? { value: s[inc] as number, exclusive: false } : undefined;
  const b = typeof s[exc] === "number" ? { value: s[exc] as number, exclusive: true } : undefined;
  if (!a || !b) return a ?? b;
  const sign = side === "lower" ? 1 : -1;
  return a.value * sign > b.value * sign ? a : b;
}

/**
 * Numbers within a schema's bounds (inclusive or exclusive) and `multipleOf`: integers for an
 * integer schema; otherwise doubles, two-decimal amounts and integers.
 */
export function numberArbitrary(
  s: Obj,
  integerOnly: boolean,
  ctx: ScalarContext,
): Arb {
  const lo = bound(s, "lower"), hi = bound(s, "upper");
  const m = typeof s.multipleOf === "number" && s.multipleOf > 0 ? s.multipleOf : undefined;
  const inRange = (v: number) =>
    (!lo || (lo.exclusive ? v > lo.value : v >= lo.value)) &&
    (!hi || (hi.exclusive ? v < hi.value : v <= hi.value));
  if (integerOnly || m !== undefined) {
    const step = m === undefined ? 1 : integerOnly ? integerStep(m) : m;
    // The multiples k × step inside the bounds.
    let kMin = lo ? Math.ceil(lo.value / step) : undefined;
    let kMax = hi ? Math.floor(hi.value / step) : undefined;
    for (
      let i = 0;
      i < 3 && kMin !== undefined && !inRange(times(kMin, step));
      i++
    ) kMin++;
    for (
      let i = 0;
      i < 3 && kMax !== undefined && !inRange(times(kMax, step));
      i++
    ) kMax--;
    const span = integerOnly && step === 1 ? 2 ** 31 : 1_000_000;
    kMin ??= kMax === undefined ? -span : kMax - span;
    kMax ??= kMin + 2 * span;
    if (kMin > kMax || !inRange(times(kMin, step))) {
      throw ctx.fail("no number satisfies its bounds and multipleOf");
    }
    return integers(kMin, kMax).map((k) => times(k, step) || 0);
  }
  if (
    lo && hi &&
    (lo.value > hi.value ||
      (lo.value === hi.value && (lo.exclusive || hi.exclusive)))
  ) {
    throw ctx.fail("its lower bound is above its upper bound");
  }
  const arbs: Arb[] = [
    fc.double({
      min: lo?.value,
      max: hi?.value,
      minExcluded: lo?.exclusive ?? false,
      maxExcluded: hi?.exclusive ?? false,
      noNaN: true,
      noDefaultInfinity: true,
    }).map((x) => (x === 0 ? 0 : x)),
  ];
  const cLo = lo ? Math.ceil(lo.value * 100) : -10_000_000;
  const cHi = hi ? Math.floor(hi.value * 100) : 10_000_000;
  if (Number.isSafeInteger(cLo) && Number.isSafeInteger(cHi) && cLo <= cHi) {
    // Amounts with two decimals, as a caller would send them.
    const cents = integers(cLo, cHi).map((k) => times(k, 0.01));
    arbs.push(
      ctx.filter(cents, (v) => inRange(v as number), "the numeric bounds"),
    );
  }
  const iMin = lo ? Math.floor(lo.value) + 1 : INT32_MIN;
  const iMax = hi ? Math.ceil(hi.value) - 1 : INT32_MAX;
  if (
    Number.isSafeInteger(iMin) && Number.isSafeInteger(iMax) && iMin <= iMax
  ) {
    arbs.push(integers(iMin, iMax));
  }
  return fc.oneof(...arbs);
}
