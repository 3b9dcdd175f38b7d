/**
 * What the benchmark scripts share: medians and quantiles, spreads, rotated orders, number
 * formats, Markdown tables and command-line flags.
 *
 * @module
 */

/** The median (the upper one of an even count). */
export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

/** The `p` quantile (nearest rank). */
export function quantile(xs: readonly number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(p * s.length) - 1))];
}

/** `xs` rotated left by `k`: round k of an interleaved benchmark starts with the k-th contender. */
export function rotate<T>(xs: readonly T[], k: number): T[] {
  const n = k % xs.length;
  return [...xs.slice(n), ...xs.slice(0, n)];
}

/**
 * The ratio of two contenders timed in the same rounds: the median over rounds of their ratio
 * within a round (a round the machine was busy for shifts both).
 */
export function roundRatio(xs: readonly number[], ys: readonly number[]): number {
  return median(xs.map((x, r) => x / ys[r]));
}

/** A rate, short: 1,234,567 → "1.23M", 45,678 → "45.7k". */
export function rate(x: number): string {
  if (x >= 1e6) return `${(x / 1e6).toFixed(x >= 1e7 ? 1 : 2)}M`;
  if (x >= 1e3) return `${(x / 1e3).toFixed(x >= 1e5 ? 0 : 1)}k`;
  return x.toFixed(0);
}

/** A duration in milliseconds, with sensible precision: 0.0123 → "12.3 µs", 45.6 → "45.6 ms". */
export function ms(x: number): string {
  if (x < 1) return `${(x * 1000).toFixed(x < 0.01 ? 1 : 0)} µs`;
  if (x < 1000) return `${x.toFixed(x < 10 ? 2 : 1)} ms`;
  return `${(x / 1000).toFixed(2)} s`;
}

/** The spread of a sample around its median: "±3%" (largest distance to min or max). */
export function spread(xs: readonly number[]): string {
  const m = median(xs);
  const d = Math.max(m - Math.min(...xs), Math.max(...xs) - m);
  return `±${(100 * d / m).toFixed(d / m < 0.01 ? 1 : 0)}%`;
}

/** A ratio: "1.23×". */
export function ratio(x: number): string {
  return `${x.toFixed(2)}×`;
}

/** An integer with thousands separators. */
export function int(x: number): string {
  return Math.round(x).toLocaleString("en");
}

/** A Markdown table; columns after the first are right-aligned. */
export function markdownTable(
  header: readonly string[],
  rows: readonly (readonly string[])[],
): string {
  const all = [header, ...rows];
  const widths = header.map((_, c) => Math.max(3, ...all.map((r) => r[c].length)));
  const line = (r: readonly string[]) =>
    `| ${
      r.map((cell, c) => c === 0 ? cell.padEnd(widths[c]) : cell.padStart(widths[c])).join(" | ")
    } |`;
  const rule = `| ${
    widths.map((w, c) => c === 0 ? "-".repeat(w) : "-".repeat(w - 1) + ":").join(" | ")
  } |`;
  return [line(header), rule, ...rows.map(line)].join("\n");
}

/**
 * The value of `--name N` or `--name=N` in `args`, else `fallback`.
 *
 * @throws {RangeError} When the value given is not a positive number.
 */
export function flag(args: readonly string[], name: string, fallback: number): number {
  for (let i = 0; i < args.length; i++) {
    const given = args[i] === `--${name}`
      ? args[i + 1]
      : args[i].startsWith(`--${name}=`)
      ? args[i].slice(name.length + 3)
      : undefined;
    if (given === undefined) continue;
    const v = Number(given);
    if (!Number.isFinite(v) || v <= 0) {
      throw new RangeError(`--${name} needs a positive number, got ${JSON.stringify(given ?? "")}`);
    }
    return v;
  }
  return fallback;
}
