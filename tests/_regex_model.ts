/**
 * A model of backtracking regular-expression search, for the pattern tests: a grammar of pattern
 * shapes (as trees, rendered to source), a step-counting backtracking matcher that follows the
 * ECMA-262 matcher semantics, and the classic adversarial inputs.
 *
 * Nothing here uses the analysis in `lib/schema/_regex_ambiguity.ts`: the trees are the
 * generator's own, character membership is asked of the native engine, and the matcher counts
 * the work a naive backtracker does (V8 does no more, and the timing test checks V8 itself).
 *
 * @module
 */
import fc from "fast-check";

/** A pattern as the generator built it. */
export type Re =
  | { k: "set"; src: string; has: (c: string) => boolean }
  | { k: "seq"; items: Re[] }
  | { k: "alt"; alts: Re[]; capture?: boolean }
  | { k: "rep"; body: Re; min: number; max: number; lazy: boolean }
  | { k: "bol" }
  | { k: "eol" };

/** The characters test strings are made of. */
export const ALPHABET: readonly string[] = [
  "a",
  "b",
  "c",
  "z",
  "A",
  "0",
  "7",
  "-",
  ".",
  "/",
  "@",
  "_",
  " ",
  "\n",
  "é",
  "😀",
  "!",
];

/** A character atom; membership is the native engine's answer for the atom alone. */
export function set(src: string): Re {
  const re = new RegExp(`^(?:${src})$`, "u");
  return { k: "set", src, has: (c) => re.test(c) };
}

/** A literal string as a sequence of character atoms. */
export function lit(s: string): Re {
  return seq(
    ...Array.from(s, (c) => set(/[\^$\\.*+?()[\]{}|]/.test(c) ? `\\${c}` : c)),
  );
}

/** A sequence. */
export function seq(...items: Re[]): Re {
  return { k: "seq", items };
}

/** An alternation (rendered as a non-capturing group inside a sequence). */
export function alt(...alts: Re[]): Re {
  return { k: "alt", alts };
}

/** An alternation in a capturing group: `(draft|open)`. */
export function group(...alts: Re[]): Re {
  return { k: "alt", alts, capture: true };
}

/** A repetition `{min,max}` (`max` may be `Infinity`). */
export function rep(body: Re, min: number, max: number, lazy = false): Re {
  return { k: "rep", body, min, max, lazy };
}

/** `^`. */
export const BOL: Re = { k: "bol" };
/** `$`. */
export const EOL: Re = { k: "eol" };

/** The pattern's source text. */
export function render(r: Re): string {
  switch (r.k) {
    case "set":
      return r.src;
    case "bol":
      return "^";
    case "eol":
      return "$";
    case "seq":
      return r.items.map((
        i,
      ) => (i.k === "alt" ? `(${i.capture ? "" : "?:"}${render(i)})` : render(i)))
        .join("");
    case "alt":
      return r.alts.map(render).join("|");
    case "rep": {
      const body = r.body.k === "set" ? render(r.body) : `(${render(r.body)})`;
      const q = r.min === 0 && r.max === Infinity
        ? "*"
        : r.min === 1 && r.max === Infinity
        ? "+"
        : r.min === 0 && r.max === 1
        ? "?"
        : r.max === Infinity
        ? `{${r.min},}`
        : r.min === r.max
        ? `{${r.min}}`
        : `{${r.min},${r.max}}`;
      return body + q + (r.lazy ? "?" : "");
    }
  }
}

// ---------------------------------------------------------------------------------------------
// The grammar of shapes.

const CLASSES = [
  "a",
  "b",
  "-",
  "\\.",
  "/",
  "@",
  "[a-c]",
  "[ab]",
  "[a-z]",
  "[^/]",
  "[^a]",
  "[^\\s@]",
  "[a-z0-9-]",
  "[0-9a-f]",
  "[.@-]",
  "\\d",
  "\\D",
  "\\w",
  "\\s",
  "\\S",
  ".",
  "\\p{L}",
  "\\p{Ll}",
];

const LITERALS = [
  "a",
  "ab",
  "abc",
  "b",
  "ba",
  "-",
  "draft",
  "open",
  "a.b",
  "@",
];

/** Patterns built from classes, literals, anchors, quantifiers, alternations and groups. */
export function arbitraryPattern(): fc.Arbitrary<Re> {
  const quantifier = fc.constantFrom<[number, number, boolean] | undefined>(
    undefined,
    undefined,
    [0, Infinity, false],
    [1, Infinity, false],
    [1, Infinity, false],
    [0, 1, false],
    [2, 2, false],
    [1, 3, false],
    [2, Infinity, false],
    [0, Infinity, true],
    [1, Infinity, true],
  );
  const { atoms } = fc.letrec<{ atoms: Re; group: Re }>((tie) => ({
    atoms: fc.tuple(
      fc.oneof(
        { weight: 6, arbitrary: fc.constantFrom(...CLASSES).map(set) },
        { weight: 1, arbitrary: tie("group") },
      ),
      quantifier,
    ).map(([atom, q]) => (q ? rep(atom, q[0], q[1], q[2]) : atom)),
    group: fc.oneof(
      fc.array(fc.constantFrom(...LITERALS).map(lit), {
        minLength: 2,
        maxLength: 3,
      })
        .map((alts) => alt(...alts)),
      fc.array(tie("atoms"), { minLength: 1, maxLength: 3 }).map((items) => seq(...items)),
    ),
  }));
  const body = fc.array(atoms, { minLength: 1, maxLength: 4 });
  const line = fc.tuple(fc.boolean(), body, fc.boolean()).map(([b, items, e]) =>
    seq(...(b ? [BOL] : []), ...items, ...(e ? [EOL] : []))
  );
  return fc.oneof(
    { weight: 5, arbitrary: line },
    { weight: 1, arbitrary: fc.tuple(line, line).map(([a, b]) => alt(a, b)) },
  );
}

// ---------------------------------------------------------------------------------------------
// The backtracking matcher.

type Ins =
  | { op: "char"; has: (c: string) => boolean }
  | { op: "split"; first: number; second: number }
  | { op: "jmp"; to: number }
  | { op: "bol" }
  | { op: "eol" }
  | { op: "mark"; reg: number }
  | { op: "progress"; reg: number }
  | { op: "match" };

/** A compiled pattern: a program for the backtracking machine. */
export interface Program {
  code: Ins[];
  registers: number;
}

/**
 * Compiles a tree the way ECMA-262 defines its matcher: alternatives in order; a quantifier's
 * mandatory iterations, then optional ones (greedy: iterate first; lazy: go on first), each
 * optional iteration failing when it matched the empty string.
 */
export function compile(r: Re): Program {
  const code: Ins[] = [];
  let registers = 0;
  const split = () => {
    const s = { op: "split" as const, first: 0, second: 0 };
    code.push(s);
    return s;
  };
  const jmp = () => {
    const j = { op: "jmp" as const, to: 0 };
    code.push(j);
    return j;
  };
  const gen = (r: Re): void => {
    switch (r.k) {
      case "set":
        code.push({ op: "char", has: r.has });
        return;
      case "bol":
      case "eol":
        code.push({ op: r.k });
        return;
      case "seq":
        r.items.forEach(gen);
        return;
      case "alt": {
        const exits = [];
        for (const a of r.alts.slice(0, -1)) {
          const s = split();
          s.first = code.length;
          gen(a);
          exits.push(jmp());
          s.second = code.length;
        }
        gen(r.alts[r.alts.length - 1]);
        for (const j of exits) j.to = code.length;
        return;
      }
      case "rep": {
        for (let i = 0; i < r.min; i++) gen(r.body);
        // An optional iteration: the split chooses it or the exit (set once the exit is known).
        const optional = () => {
          const s = split();
          const body = code.length;
          const reg = registers++;
          code.push({ op: "mark", reg });
          gen(r.body);
          code.push({ op: "progress", reg });
          return (exit: number) => {
            [s.first, s.second] = r.lazy ? [exit, body] : [body, exit];
          };
        };
        if (r.max === Infinity) {
          const top = code.length;
          const close = optional();
          jmp().to = top;
          close(code.length);
          return;
        }
        const closes = [];
        for (let i = r.min; i < r.max; i++) closes.push(optional());
        for (const close of closes) close(code.length);
        return;
      }
    }
  };
  gen(r);
  code.push({ op: "match" });
  return { code, registers };
}

/** Thrown when a search takes more steps than allowed. */
export class OverBudget extends Error {}

/**
 * `RegExp#test` on the model: tries each start position in turn and backtracks depth first.
 *
 * @returns Whether the string contains a match, and the machine steps taken.
 * @throws {OverBudget} after `budget` steps.
 */
export function search(
  p: Program,
  s: string,
  budget = Infinity,
): { found: boolean; steps: number } {
  const input = Array.from(s);
  let steps = 0;
  for (let start = 0; start <= input.length; start++) {
    const stack: [number, number, number[]][] = [[
      0,
      start,
      new Array(p.registers).fill(-1),
    ]];
    while (stack.length > 0) {
      let [pc, pos, regs] = stack.pop()!;
      for (;;) {
        if (++steps > budget) throw new OverBudget();
        const ins = p.code[pc];
        if (ins.op === "match") return { found: true, steps };
        if (ins.op === "char") {
          if (pos >= input.length || !ins.has(input[pos])) break;
          pos++;
          pc++;
        } else if (ins.op === "split") {
          stack.push([ins.second, pos, regs]);
          pc = ins.first;
        } else if (ins.op === "jmp") pc = ins.to;
        else if (ins.op === "bol") {
          if (pos !== 0) break;
          pc++;
        } else if (ins.op === "eol") {
          if (pos !== input.length) break;
          pc++;
        } else if (ins.op === "mark") {
          regs = regs.slice();
          regs[ins.reg] = pos;
          pc++;
        } else {
          if (regs[ins.reg] === pos) break;
          pc++;
        }
      }
    }
  }
  return { found: false, steps };
}

// ---------------------------------------------------------------------------------------------
// Adversarial inputs.

type SetNode = Extract<Re, { k: "set" }>;

function sets(r: Re): SetNode[] {
  switch (r.k) {
    case "set":
      return [r];
    case "seq":
      return r.items.flatMap(sets);
    case "alt":
      return r.alts.flatMap(sets);
    case "rep":
      return sets(r.body);
    default:
      return [];
  }
}

/** A string of the pattern's language: unbounded repetitions iterated `t` times. */
function member(
  r: Re,
  t: number,
  choice: number,
  pick: (s: SetNode) => string,
): string {
  switch (r.k) {
    case "set":
      return pick(r);
    case "seq":
      return r.items.map((i) => member(i, t, choice, pick)).join("");
    case "alt":
      return member(r.alts[choice % r.alts.length], t, choice, pick);
    case "rep": {
      const k = r.max === Infinity ? Math.max(r.min, t) : r.max;
      let out = "";
      for (let i = 0; i < k; i++) out += member(r.body, t, choice, pick);
      return out;
    }
    default:
      return "";
  }
}

const length = (s: string): number => Array.from(s).length;

/** A family of adversarial inputs: `make(n)` has about n characters. */
export interface Attack {
  name: string;
  make(n: number): string;
}

/**
 * The classic adversarial inputs for a pattern, each followed by a character that makes the
 * match fail (`aaa…a!`): runs of one character the pattern accepts, runs of two alternating,
 * and members of the pattern's language pumped to length (each unbounded repetition iterated).
 * Characters that more atoms accept come first: that is where paths overlap.
 */
export function attacks(r: Re): Attack[] {
  const atoms = sets(r);
  const accepted = (c: string) => atoms.filter((s) => s.has(c)).length;
  const shared = ALPHABET.filter((c) => accepted(c) > 0).sort((a, b) => accepted(b) - accepted(a));
  const top = shared.slice(0, 3);
  // Per atom, the character it accepts that most other atoms accept too.
  const chars = [
    ...new Set([
      ...top,
      ...atoms.map((s) => shared.find((c) => s.has(c)) ?? "a"),
    ]),
  ]
    .slice(0, 6);
  // Characters that end a run and fail the match: no atom, or not every atom, accepts them.
  const ends = [
    ...new Set([
      "",
      "!",
      "\n",
      ...ALPHABET.filter((c) => accepted(c) === 0).slice(0, 1),
      ...atoms.flatMap((s) => shared.filter((c) => !s.has(c)).slice(0, 1)),
    ]),
  ].slice(0, 7);
  const out: Attack[] = [];
  for (const c of chars) {
    for (const e of [...ends, ...chars.filter((d) => d !== c)]) {
      out.push({ name: `${c}…${e}`, make: (n) => c.repeat(n) + e });
    }
  }
  for (const a of top) {
    for (const b of top) {
      if (a !== b) {
        out.push({
          name: `${a}${b}…!`,
          make: (n) => (a + b).repeat(n / 2) + "!",
        });
      }
    }
  }
  for (const [order, prefer] of [top, [...top].reverse()].entries()) {
    const pick = (s: SetNode) =>
      prefer.find((c) => s.has(c)) ?? ALPHABET.find((c) => s.has(c)) ?? "a";
    for (const choice of [0, 1]) {
      const pumped = (n: number): string => {
        // The smallest t that pumps the member to n characters.
        let hi = 1;
        while (hi < n && length(member(r, hi, choice, pick)) < n) hi *= 2;
        let lo = Math.floor(hi / 2);
        while (lo + 1 < hi) {
          const mid = Math.floor((lo + hi) / 2);
          if (length(member(r, mid, choice, pick)) < n) lo = mid;
          else hi = mid;
        }
        return member(r, hi, choice, pick);
      };
      if (length(pumped(64)) < 32) continue; // nothing unbounded to pump
      for (const e of ends.slice(0, 3)) {
        out.push({
          name: `member${order}${choice}…${e}`,
          make: (n) => pumped(n) + e,
        });
        out.push({
          name: `member${order}${choice}…-1${e}`,
          make: (n) => Array.from(pumped(n)).slice(0, -1).join("") + e,
        });
      }
    }
  }
  return out;
}
