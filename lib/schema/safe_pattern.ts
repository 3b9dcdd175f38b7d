/**
 * Runs JSON Schema `pattern`s in time linear in the input. A pattern runs on the native engine when
 * its backtracking is provably bounded: either no unbounded or nested repetition (each start
 * position does a bounded amount of work), or a proof that no input prefix can be consumed in more
 * than a fixed number of ways (`_regex_ambiguity.ts`, which covers `^[a-z0-9-]+$`, `^[^/]+/[^/]+$`,
 * `^[a-z]+(-[a-z]+)*$`). Any other pattern goes to re2js, a linear-time engine. This module is the
 * only one that imports re2js.
 *
 * @module
 */
import { RE2JS } from "re2js";
import { linearOnBacktracker } from "./_regex_ambiguity.ts";

/** A compiled pattern: `test` searches (unanchored), as ECMA-262 `RegExp#test` does. */
export interface SafePattern {
  /** Whether the string contains a match. */
  test(s: string): boolean;
  /** Which engine runs it: `native` only where backtracking is provably bounded. */
  engine: "native" | "linear";
}

/** A pattern the validator can run, or the reason it cannot. */
export type PatternCompilation = { ok: true; pattern: SafePattern } | {
  ok: false;
  reason: string;
};

const cache = new Map<string, PatternCompilation>();

/** Compiles a `pattern` keyword's regular expression (cached by its source text). */
export function compilePattern(source: string): PatternCompilation {
  let c = cache.get(source);
  if (!c) {
    c = compileUncached(source);
    if (cache.size > 10_000) cache.clear();
    cache.set(source, c);
  }
  return c;
}

function compileUncached(source: string): PatternCompilation {
  let native: RegExp;
  let unicode = true;
  try {
    native = new RegExp(source, "u");
  } catch (e) {
    unicode = false;
    try {
      native = new RegExp(source);
    } catch {
      return {
        ok: false,
        reason: `invalid regular expression: ${(e as Error).message}`,
      };
    }
  }
  const shape = analyse(source);
  if (shape.backtrackingFeature) {
    return {
      ok: false,
      reason: `uses ${shape.backtrackingFeature}, which no linear-time engine supports`,
    };
  }
  if (shape.bounded || (unicode && linearOnBacktracker(source))) {
    return {
      ok: true,
      pattern: { test: (s) => native.test(s), engine: "native" },
    };
  }
  return compileLinear(source);
}

/**
 * Compiles a pattern for re2js whatever its shape (uncached): `compilePattern` uses it for the
 * patterns it cannot prove, tests to compare the two engines.
 */
export function compileLinear(source: string): PatternCompilation {
  try {
    const re = RE2JS.compile(toRe2(source));
    return { ok: true, pattern: { test: (s) => re.test(s), engine: "linear" } };
  } catch (e) {
    return {
      ok: false,
      reason: `cannot be run in linear time: ${(e as Error).message}`,
    };
  }
}

interface Shape {
  /**
   * True when backtracking is provably bounded: every quantifier has a small finite maximum, the
   * product of nested maxima stays small, and no repeated group contains an alternation.
   */
  bounded: boolean;
  /** A feature that needs backtracking (backreference, lookaround), if any. */
  backtrackingFeature?: string;
}

/** The largest product of nested repetition counts the native engine is trusted with. */
const MAX_NATIVE_REPETITION = 64;

interface Group {
  /** The largest repetition product inside the group. */
  inner: number;
  /** Whether the group contains `|`. */
  alternation: boolean;
}

/** A conservative scan of the pattern's structure. */
function analyse(src: string): Shape {
  let bounded = true;
  let feature: string | undefined;
  const groups: Group[] = [{ inner: 1, alternation: false }];
  // The atom a following quantifier applies to: its own inner repetition and alternation.
  let last: Group = { inner: 1, alternation: false };
  let inClass = false;
  const top = (): Group => groups[groups.length - 1];
  for (let i = 0; i < src.length; i++) {
    const c = src[i];
    if (c === "\\") {
      const n = src[i + 1];
      if (!inClass && n !== undefined && /[1-9]/.test(n)) {
        feature ??= "a backreference";
      }
      if (!inClass && n === "k" && src[i + 2] === "<") {
        feature ??= "a named backreference";
      }
      i++;
      if (!inClass) last = { inner: 1, alternation: false };
      continue;
    }
    if (inClass) {
      if (c === "]") inClass = false;
      continue;
    }
    if (c === "[") {
      inClass = true;
      last = { inner: 1, alternation: false };
      continue;
    }
    if (c === "(") {
      if (src.startsWith("(?=", i) || src.startsWith("(?!", i)) {
        feature ??= "a lookahead";
      }
      if (src.startsWith("(?<=", i) || src.startsWith("(?<!", i)) {
        feature ??= "a lookbehind";
      }
      groups.push({ inner: 1, alternation: false });
      continue;
    }
    if (c === ")") {
      last = groups.length > 1 ? groups.pop()! : { inner: 1, alternation: false };
      top().inner = Math.max(top().inner, last.inner);
      continue;
    }
    if (c === "|") {
      top().alternation = true;
      continue;
    }
    let max: number | undefined;
    if (c === "*" || c === "+") max = Infinity;
    else if (c === "?") max = 1;
    else if (c === "{") {
      const m = /^\{(\d+)(,(\d*))?\}/.exec(src.slice(i));
      if (m) {
        max = m[2] === undefined ? Number(m[1]) : m[3] === "" ? Infinity : Number(m[3]);
        i += m[0].length - 1;
      }
    }
    if (max !== undefined) {
      if (src[i + 1] === "?") i++; // lazy form
      const product = max * last.inner;
      if (product > MAX_NATIVE_REPETITION || (last.alternation && max > 1)) {
        bounded = false;
      }
      top().inner = Math.max(top().inner, product);
      last = { inner: 1, alternation: false };
      continue;
    }
    last = { inner: 1, alternation: false };
  }
  return { bounded, backtrackingFeature: feature };
}

const ECMA_SPACE =
  "\\t\\n\\x{0b}\\f\\r \\x{a0}\\x{1680}\\x{2000}-\\x{200a}\\x{2028}\\x{2029}\\x{202f}\\x{205f}\\x{3000}\\x{feff}";

const CATEGORY_ALIASES: Record<string, string> = {
  Letter: "L",
  Cased_Letter: "LC",
  Uppercase_Letter: "Lu",
  Lowercase_Letter: "Ll",
  Titlecase_Letter: "Lt",
  Modifier_Letter: "Lm",
  Other_Letter: "Lo",
  Mark: "M",
  Nonspacing_Mark: "Mn",
  Spacing_Mark: "Mc",
  Enclosing_Mark: "Me",
  Number: "N",
  Decimal_Number: "Nd",
  Letter_Number: "Nl",
  Other_Number: "No",
  Punctuation: "P",
  Connector_Punctuation: "Pc",
  Dash_Punctuation: "Pd",
  Open_Punctuation: "Ps",
  Close_Punctuation: "Pe",
  Initial_Punctuation: "Pi",
  Final_Punctuation: "Pf",
  Other_Punctuation: "Po",
  Symbol: "S",
  Math_Symbol: "Sm",
  Currency_Symbol: "Sc",
  Modifier_Symbol: "Sk",
  Other_Symbol: "So",
  Separator: "Z",
  Space_Separator: "Zs",
  Line_Separator: "Zl",
  Paragraph_Separator: "Zp",
  Other: "C",
  Control: "Cc",
  Format: "Cf",
  Surrogate: "Cs",
  Private_Use: "Co",
  Unassigned: "Cn",
};

/** Rewrites ECMA-262 syntax whose meaning differs in RE2 (`.`, `\s`, `\uXXXX`, `\u{…}`). */
function toRe2(src: string): string {
  let out = "";
  let inClass = false;
  for (let i = 0; i < src.length; i++) {
    const c = src[i];
    if (c === "\\") {
      const n = src[i + 1];
      if (n === "u" && src[i + 2] === "{") {
        const end = src.indexOf("}", i);
        out += `\\x{${src.slice(i + 3, end)}}`;
        i = end;
      } else if (
        n === "u" && /^[0-9A-Fa-f]{4}$/.test(src.slice(i + 2, i + 6))
      ) {
        out += `\\x{${src.slice(i + 2, i + 6)}}`;
        i += 5;
      } else if (n === "s") {
        out += inClass ? ECMA_SPACE : `[${ECMA_SPACE}]`;
        i++;
      } else if (n === "S" && !inClass) {
        out += `[^${ECMA_SPACE}]`;
        i++;
      } else if ((n === "p" || n === "P") && src[i + 2] === "{") {
        // RE2 knows General_Category short names and script names, not ECMA-262's long aliases.
        const end = src.indexOf("}", i);
        const name = src.slice(i + 3, end).replace(
          /^(General_Category|gc)=/,
          "",
        ).replace(
          /^(Script|sc)=/,
          "",
        );
        out += `\\${n}{${CATEGORY_ALIASES[name] ?? name}}`;
        i = end;
      } else if (
        n === "d" || n === "D" || n === "w" || n === "W" || n === "b" ||
        n === "B"
      ) {
        out += c + n;
        i++;
      } else if (n !== undefined && /[A-Za-z0-9]/.test(n)) {
        out += c + n;
        i++;
      } else if (n !== undefined) {
        // An escaped punctuation character: RE2 accepts the same escape for punctuation only.
        out += /[\x21-\x2f\x3a-\x40\x5b-\x60\x7b-\x7e]/.test(n) ? c + n : n;
        i++;
      }
      continue;
    }
    if (inClass) {
      if (c === "]") inClass = false;
      out += c;
      continue;
    }
    if (c === "[") {
      // ECMA-262's `[]` matches nothing and `[^]` any character; in RE2 a leading `]` is literal.
      if (src.startsWith("[]", i)) {
        out += "[^\\x00-\\x{10FFFF}]";
        i++;
        continue;
      }
      if (src.startsWith("[^]", i)) {
        out += "[\\x00-\\x{10FFFF}]";
        i += 2;
        continue;
      }
      inClass = true;
      out += c;
      continue;
    }
    if (c === ".") {
      out += "[^\\n\\r\\x{2028}\\x{2029}]";
      continue;
    }
    if (
      c === "(" && src.startsWith("(?<", i) && src[i + 3] !== "=" &&
      src[i + 3] !== "!"
    ) {
      out += "(?P<";
      i += 2;
      continue;
    }
    out += c;
  }
  return out;
}
