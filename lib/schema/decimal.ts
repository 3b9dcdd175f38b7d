/**
 * Exact decimal arithmetic for `multipleOf`: a double is taken as the decimal it prints as, so
 * `0.3` is a multiple of `0.1`. Used by the validator, the classifier and the value generators.
 *
 * @module
 */
/** An exact decimal: `mantissa × 10^exponent`. */
interface Decimal {
  mantissa: bigint;
  exponent: number;
}

/** The exact decimal a finite double prints as (its shortest round-trip text). */
function toDecimal(x: number): Decimal {
  const text = String(x);
  const m = /^(-?)(\d+)(?:\.(\d+))?(?:e([+-]\d+))?$/.exec(text);
  if (!m) throw new RangeError(`not a finite number: ${text}`);
  const frac = m[3] ?? "";
  const exp = Number(m[4] ?? 0) - frac.length;
  const mantissa = BigInt(m[1] + m[2] + frac);
  return { mantissa, exponent: exp };
}

/**
 * Whether `value` is an exact multiple of `divisor`, reading both as the decimals they print as,
 * so `0.07` is a multiple of `0.01` (float division says 7.000000000000001).
 */
export function isMultipleOf(value: number, divisor: number): boolean {
  if (Number.isSafeInteger(value) && Number.isSafeInteger(divisor)) {
    return value % divisor === 0;
  }
  const v = toDecimal(value), d = toDecimal(divisor);
  const e = Math.min(v.exponent, d.exponent);
  const a = v.mantissa * 10n ** BigInt(v.exponent - e);
  const b = d.mantissa * 10n ** BigInt(d.exponent - e);
  return b !== 0n && a % b === 0n;
}

/**
 * A test for "is a multiple of `divisor`" with the same exact answers as {@linkcode isMultipleOf},
 * precomputed for one divisor: a value with at most the divisor's decimals is scaled to a safe
 * integer and divided exactly; anything else falls back to the exact decimal comparison.
 */
export function multipleOfTest(divisor: number): (value: number) => boolean {
  const d = toDecimal(divisor);
  const decimals = -d.exponent;
  if (
    decimals < 0 || decimals > 15 ||
    d.mantissa > BigInt(Number.MAX_SAFE_INTEGER)
  ) {
    return (v) => isMultipleOf(v, divisor);
  }
  const scale = 10 ** decimals;
  const m = Number(d.mantissa);
  return (v) => {
    const k = Math.round(v * scale);
    if (!Number.isSafeInteger(k)) return isMultipleOf(v, divisor);
    // k / scale === v exactly when v has at most `decimals` decimals; a multiple always does.
    return k / scale === v && k % m === 0;
  };
}

/**
 * The step of the integers that are multiples of `divisor`: for `divisor = p/q` in lowest terms,
 * an integer is a multiple of it exactly when it is a multiple of `p` (so on integers
 * `multipleOf: 1.5` and `multipleOf: 3` accept the same values).
 */
export function integerStep(divisor: number): bigint {
  const d = toDecimal(divisor);
  if (d.exponent >= 0) return abs(d.mantissa * 10n ** BigInt(d.exponent));
  const p = abs(d.mantissa);
  return p / gcd(p, 10n ** BigInt(-d.exponent));
}

function abs(x: bigint): bigint {
  return x < 0n ? -x : x;
}

function gcd(a: bigint, b: bigint): bigint {
  while (b !== 0n) [a, b] = [b, a % b];
  return a;
}
