import assert from "node:assert/strict";
import fc from "fast-check";
import { compilePattern } from "../lib/schema/safe_pattern.ts";
import { atomRanges, linearOnBacktracker } from "../lib/schema/_regex_ambiguity.ts";
import {
  ALPHABET,
  alt,
  arbitraryPattern,
  type Attack,
  attacks,
  BOL,
  compile,
  EOL,
  group,
  lit,
  OverBudget,
  type Re,
  render,
  rep,
  search,
  seq,
  set,
} from "./_regex_model.ts";

const plus = (r: Re): Re => rep(r, 1, Infinity);
const star = (r: Re): Re => rep(r, 0, Infinity);
const opt = (r: Re): Re => rep(r, 0, 1);
const times = (r: Re, min: number, max = min): Re => rep(r, min, max);

/** Real `pattern`s from tool schemas that the analysis must prove, as trees for the attacks. */
const REAL_NATIVE: Re[] = [
  seq(BOL, plus(set("[A-Za-z0-9._-]")), EOL),
  seq(BOL, plus(set("[a-z0-9-]")), EOL),
  seq(BOL, opt(set("#")), times(set("[0-9a-fA-F]"), 6), EOL),
  seq(
    BOL,
    times(set("[A-Z]"), 2),
    times(set("[0-9]"), 2),
    times(set("[A-Z0-9]"), 11, 30),
    EOL,
  ),
  seq(
    BOL,
    times(set("\\d"), 4),
    set("-"),
    times(set("\\d"), 2),
    set("-"),
    times(set("\\d"), 2),
    EOL,
  ),
  seq(BOL, plus(set("[^/]")), set("/"), plus(set("[^/]")), EOL),
  seq(BOL, group(lit("draft"), lit("open"), lit("closed")), EOL),
  seq(
    BOL,
    group(seq(lit("http"), opt(set("s"))), lit("ftp")),
    lit("://"),
    plus(set("[^\\s]")),
    EOL,
  ),
  seq(BOL, set("C"), times(set("[0-9]"), 8), EOL),
  seq(BOL, plus(set("[a-z]")), star(seq(set("-"), plus(set("[a-z]")))), EOL),
  seq(
    BOL,
    plus(set("[a-z0-9]")),
    star(seq(set("[._-]"), plus(set("[a-z0-9]")))),
    EOL,
  ),
  seq(BOL, set("[A-Za-z]"), star(set("[A-Za-z0-9_]")), EOL),
  seq(BOL, plus(set("\\p{L}")), EOL),
  seq(BOL, lit("v"), plus(set("\\d"))),
  set("[0-9]"),
  seq(BOL, lit("/")),
];

/** Patterns a backtracking engine takes super-linear time on; they must stay on re2js. */
const CATASTROPHIC: Re[] = [
  seq(BOL, plus(plus(set("a"))), EOL),
  seq(BOL, star(alt(lit("a"), lit("aa"))), EOL),
  seq(BOL, star(seq(alt(seq(), seq()), set("a"))), EOL), // two empty alternatives: ^(?:(?:|)a)*$
  seq(BOL, star(star(set("a"))), EOL),
  seq(BOL, plus(set("\\S")), set("@"), plus(set("\\S")), EOL),
  seq(
    BOL,
    plus(set("\\S")),
    set("@"),
    plus(set("\\S")),
    set("\\."),
    plus(set("\\S")),
    EOL,
  ),
  seq(BOL, plus(set(".")), set("@"), plus(set(".")), EOL),
  seq(
    BOL,
    plus(set("[^@\\s]")),
    set("@"),
    plus(set("[^@\\s]")),
    set("\\."),
    plus(set("[^@\\s]")),
    EOL,
  ),
  seq(BOL, star(set("a")), star(set("a")), EOL),
  seq(plus(set("[a-z]")), EOL), // unanchored: every start position runs to the end
  seq(set("a"), plus(set("[ab]")), set("c")),
];

const engine = (source: string): string => {
  const c = compilePattern(source);
  return c.ok ? c.pattern.engine : c.reason;
};

/**
 * How the steps per input character grow from n to 2n characters on one attack: about 1 for
 * linear work, about 2 for quadratic; `Infinity` past 1,000 steps a character.
 */
function growth(r: Re, attack: Attack, n: number): number {
  const program = compile(r);
  const perChar = (s: string) => search(program, s, 1000 * s.length).steps / Array.from(s).length;
  try {
    return perChar(attack.make(2 * n)) / perChar(attack.make(n));
  } catch (e) {
    if (e instanceof OverBudget) return Infinity;
    throw e;
  }
}

function worstGrowth(r: Re, n: number): { growth: number; attack: string } {
  let worst = { growth: 0, attack: "" };
  for (const a of attacks(r)) {
    const g = growth(r, a, n);
    if (g > worst.growth) worst = { growth: g, attack: a.name };
  }
  return worst;
}

Deno.test("compilePattern() runs the common real patterns natively, and they do linear work", () => {
  for (const r of REAL_NATIVE) {
    assert.equal(engine(render(r)), "native", render(r));
    const worst = worstGrowth(r, 500);
    assert.ok(
      worst.growth < 1.3,
      `${render(r)}: ${worst.attack} grows ${worst.growth}×`,
    );
  }
  assert.deepEqual(
    REAL_NATIVE.slice(0, 10).map(render),
    [
      "^[A-Za-z0-9._-]+$",
      "^[a-z0-9-]+$",
      "^#?[0-9a-fA-F]{6}$",
      "^[A-Z]{2}[0-9]{2}[A-Z0-9]{11,30}$",
      "^\\d{4}-\\d{2}-\\d{2}$",
      "^[^/]+/[^/]+$",
      "^(draft|open|closed)$",
      "^(https?|ftp)://[^\\s]+$",
      "^C[0-9]{8}$",
      "^[a-z]+(-[a-z]+)*$",
    ],
  );
});

Deno.test("compilePattern() keeps ambiguous patterns on the linear engine", () => {
  for (const r of CATASTROPHIC) {
    assert.equal(engine(render(r)), "linear", render(r));
  }
});

Deno.test("property: a pattern sent to the native engine does linear work on adversarial inputs", () => {
  fc.assert(
    fc.property(arbitraryPattern(), (r) => {
      fc.pre(linearOnBacktracker(render(r)));
      const worst = worstGrowth(r, 500);
      assert.ok(
        worst.growth < 1.3,
        `${render(r)}: ${worst.attack} grows ${worst.growth}×`,
      );
    }),
    { numRuns: 60 },
  );
});

Deno.test("the same attacks find super-linear work in the patterns kept off the native engine", () => {
  for (const r of CATASTROPHIC) {
    assert.equal(linearOnBacktracker(render(r)), false, render(r));
    const worst = worstGrowth(r, 200);
    assert.ok(
      worst.growth > 1.5,
      `${render(r)}: the attacks found only ${worst.growth}×`,
    );
  }
});

Deno.test("property: the model matcher agrees with RegExp", () => {
  fc.assert(
    fc.property(
      arbitraryPattern(),
      fc.array(fc.array(fc.constantFrom(...ALPHABET), { maxLength: 14 }), {
        maxLength: 20,
      }),
      (r, strings) => {
        const re = new RegExp(render(r), "u");
        const program = compile(r);
        for (const s of strings.map((a) => a.join(""))) {
          assert.equal(
            search(program, s).found,
            re.test(s),
            `${render(r)} on ${JSON.stringify(s)}`,
          );
        }
      },
    ),
    { numRuns: 300 },
  );
});

/** How many calls of `re.test(s)` take at least 1 ms. */
function calls(re: RegExp, s: string): number {
  for (let reps = 1;; reps *= 2) {
    const t0 = performance.now();
    for (let i = 0; i < reps; i++) re.test(s);
    if (performance.now() - t0 >= 1) return reps;
  }
}

/** The time of one call over `reps` calls, in ms. */
function window(re: RegExp, s: string, reps: number): number {
  const t0 = performance.now();
  for (let i = 0; i < reps; i++) re.test(s);
  return (performance.now() - t0) / reps;
}

/**
 * time(4n) / time(n) on the native engine: about 4 when linear, 16 when quadratic. A busy
 * machine only ever adds time (a window that the scheduler interrupts reads several times too
 * long), so each size keeps its fastest of 7 windows, and the windows alternate between the
 * sizes so both see the same load. 20 µs are added to both: a call that returns at once at
 * either size reads as 1, and quadratic work on thousands of characters takes far longer.
 */
function timeRatio(re: RegExp, attack: Attack, n: number): number {
  const small = attack.make(n);
  const large = attack.make(4 * n);
  const [rs, rl] = [calls(re, small), calls(re, large)]; // also compiles and tiers up
  let [ts, tl] = [Infinity, Infinity];
  for (let k = 0; k < 7; k++) {
    ts = Math.min(ts, window(re, small, rs));
    tl = Math.min(tl, window(re, large, rl));
  }
  return (tl + 0.02) / (ts + 0.02);
}

/** Up to three measurements: noise moves a ratio either way, never consistently. */
function measured(
  measure: () => number,
  passes: (ratio: number) => boolean,
): number {
  let ratio = measure();
  for (let attempt = 1; attempt < 3 && !passes(ratio); attempt++) {
    ratio = measure();
  }
  return ratio;
}

/** The attacks on which the model backtracker does the most steps per character. */
function hardest(r: Re, count: number): Attack[] {
  const program = compile(r);
  const cost = (a: Attack) => {
    const s = a.make(2000);
    return search(program, s, 1000 * s.length).steps / s.length;
  };
  return attacks(r).map((a) => ({ a, c: cost(a) })).sort((x, y) => y.c - x.c)
    .slice(0, count)
    .map(({ a }) => a);
}

Deno.test("V8 runs the native patterns in linear time on 12.5k and 50k character attacks", () => {
  const generated = fc.sample(arbitraryPattern(), { numRuns: 120, seed: 1111 })
    .filter((r) => linearOnBacktracker(render(r)))
    .slice(0, 8);
  for (const r of [...REAL_NATIVE, ...generated]) {
    const source = render(r);
    const c = compilePattern(source);
    assert.ok(c.ok && c.pattern.engine === "native", source);
    const re = new RegExp(source, "u");
    for (const a of hardest(r, 3)) {
      const ratio = measured(() => timeRatio(re, a, 12_500), (x) => x < 8);
      assert.ok(
        ratio < 8,
        `${source}: ${a.name} takes ${ratio}× as long at 50k as at 12.5k`,
      );
    }
  }
});

Deno.test("V8 takes quadratic time on an ambiguous pattern the analysis refuses", () => {
  // The counter-check on the real engine, at sizes small enough to stay quick.
  const r = CATASTROPHIC[4]; // ^\S+@\S+$
  assert.equal(engine(render(r)), "linear");
  const attack = { name: "@…\\n", make: (n: number) => "@".repeat(n) + "\n" };
  const re = new RegExp(render(r), "u");
  const ratio = measured(() => timeRatio(re, attack, 1000), (x) => x > 8);
  assert.ok(
    ratio > 8,
    `^\\S+@\\S+$ takes only ${ratio}× as long on 4,000 @ as on 1,000`,
  );
});

/** Every code point, for comparing the analysis' sets with the engine's. */
function* codePoints(): Generator<number> {
  for (let cp = 0; cp <= 0x10ffff; cp++) yield cp;
}

Deno.test("the analysis reads each character atom's code points exactly as the engine does", () => {
  const atoms = [
    "\\d",
    "\\D",
    "\\w",
    "\\W",
    "\\s",
    "\\S",
    ".",
    "[^]",
    "[]",
    "[^/]",
    "[a-z0-9._-]",
    "[^\\s@]",
    "[\\p{Lu}\\d_]",
    "[^\\P{L}a-z]",
    "\\p{Script=Greek}",
    "[\\u{1F600}-\\u{1F64F}\\uD83D\\uDE80]",
    "[\\x00-\\x1f\\cJ\\0\\b\\-]",
    "😀",
  ];
  for (const atom of atoms) {
    const ranges = atomRanges(atom);
    assert.ok(ranges, atom);
    const re = new RegExp(`^${atom}$`, "u");
    let i = 0;
    for (const cp of codePoints()) {
      while (i < ranges.length && ranges[i][1] < cp) i++;
      const mine = i < ranges.length && ranges[i][0] <= cp;
      if (mine !== re.test(String.fromCodePoint(cp))) {
        assert.fail(
          `${atom}: U+${cp.toString(16)} is ${mine ? "in" : "not in"} the analysis' set`,
        );
      }
    }
  }
});
