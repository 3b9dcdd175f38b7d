/** Generation of strings: formats, patterns (through `fc.stringMatching`) and lengths. */
import fc from "fast-check";
import { compilePattern } from "../schema/safe_pattern.ts";
import { FORMAT_ARBITRARIES } from "./_formats.ts";
import type { ScalarContext } from "./_scalar_context.ts";

type Obj = Record<string, unknown>;
type Arb = fc.Arbitrary<unknown>;

/** Any Unicode scalar value, astral ones included (built once: the `binary` unit is costly). */
const CODE_POINT: fc.Arbitrary<string> = fc
  .oneof(
    fc.integer({ min: 0x20, max: 0xd7ff }),
    fc.integer({ min: 0xe000, max: 0x10ffff }),
  )
  .map((cp) => String.fromCodePoint(cp));

/** ASCII subsets of the Unicode property classes patterns use most, for generation only. */
const PROPERTY_SUBSETS: Readonly<Record<string, string>> = {
  L: "A-Za-z",
  Letter: "A-Za-z",
  Lu: "A-Z",
  Uppercase_Letter: "A-Z",
  Ll: "a-z",
  Lowercase_Letter: "a-z",
  N: "0-9",
  Number: "0-9",
  Nd: "0-9",
  Decimal_Number: "0-9",
};

/**
 * A pattern whose `\p{…}` classes are replaced by ASCII subsets (`\p{Lu}` by `A-Z`), which
 * fast-check can generate from. Every string it matches matches the original too; values are
 * still checked against the original.
 */
function withoutPropertyEscapes(pattern: string): string {
  let out = "", inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    const m = /^\\p\{(?:General_Category=|gc=)?([A-Za-z_]+)\}/.exec(
      pattern.slice(i),
    );
    if (m && PROPERTY_SUBSETS[m[1]]) {
      out += inClass ? PROPERTY_SUBSETS[m[1]] : `[${PROPERTY_SUBSETS[m[1]]}]`;
      i += m[0].length - 1;
    } else if (c === "\\") {
      out += c + (pattern[i + 1] ?? "");
      i++;
    } else {
      if (c === "[") inClass = true;
      else if (c === "]") inClass = false;
      out += c;
    }
  }
  return out;
}

/** Length in Unicode code points, as `minLength`/`maxLength` count. */
function codePoints(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

/**
 * Strings for a schema's `format` (when asserted), `pattern` (through `fc.stringMatching`) and
 * lengths in code points, filtered where one generator cannot meet them all.
 */
export function stringArbitrary(s: Obj, ctx: ScalarContext): Arb {
  const min = typeof s.minLength === "number" ? s.minLength : 0;
  const max = typeof s.maxLength === "number" ? s.maxLength : Infinity;
  if (min > max) throw ctx.fail("its minLength is above its maxLength");
  const genMax = Math.min(max, min + 16);
  const tests: ((v: string) => boolean)[] = [];
  let base: fc.Arbitrary<string> | undefined;
  if (typeof s.format === "string" && FORMAT_ARBITRARIES[s.format]) {
    base = FORMAT_ARBITRARIES[s.format];
  }
  if (typeof s.pattern === "string") {
    const compiled = compilePattern(s.pattern);
    if (!compiled.ok) {
      throw ctx.fail(`pattern cannot be run: ${compiled.reason}`);
    }
    const re = compiled.pattern;
    tests.push((v) => re.test(v));
    if (!base) {
      for (const source of [withoutPropertyEscapes(s.pattern), s.pattern]) {
        for (const flags of ["u", ""]) {
          try {
            base ??= fc.stringMatching(new RegExp(source, flags));
          } catch {
            // fast-check does not support this syntax: try the next form, then plain strings.
          }
        }
      }
    }
  }
  const lengthOk = min > 0 || max < Infinity;
  if (base && lengthOk) {
    tests.push((v) => codePoints(v) >= min && codePoints(v) <= max);
  }
  base ??= fc.oneof(
    { arbitrary: fc.string({ minLength: min, maxLength: genMax }), weight: 4 },
    {
      arbitrary: fc.string({
        minLength: min,
        maxLength: genMax,
        unit: CODE_POINT,
      }),
      weight: 1,
    },
  );
  if (!tests.length) return base;
  return ctx.filter(
    base,
    (v) => tests.every((t) => t(v as string)),
    "pattern, format or length",
  );
}
