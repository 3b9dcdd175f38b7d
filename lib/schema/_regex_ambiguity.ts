/**
 * The proof that a pattern with unbounded repetition (`+`, `*`, `{n,}`) runs in time linear in the
 * input on a backtracking engine such as V8's. `safe_pattern.ts` sends a pattern to the native engine
 * when this proof succeeds; any pattern it cannot prove goes to re2js.
 *
 * ## Why a backtracking search can blow up, and when it cannot
 *
 * `RegExp#test` tries each start position; from each start it explores the pattern's choices
 * depth first (alternatives in order, one more or one fewer iteration of a quantifier) and stops
 * at the first success. On an input that fails, it explores every way the pattern can consume
 * each prefix of the input. So its work is proportional to the number of _runs_ over input
 * prefixes: a run is one path through the pattern that consumes a prefix, character by character.
 * Blow-up needs ambiguity: two runs that consume the same characters in different ways.
 *
 * The analysis builds the pattern's position automaton (Glushkov): one state per character atom
 * (after expanding `X{n,m}` into copies), an edge from atom x to atom y when y can consume the
 * character right after x. A run of the engine is a path in this automaton, provided no two
 * derivations of the pattern give the same edge; so edges are counted with their derivations,
 * and a pattern where any edge (or start, or end) has two is not proven. That rules out
 * `(a+)+` (the a→a edge comes from the inner and from the outer loop) and `((?:|)a)*`. A loop
 * body that can match empty (`(a?)*`) is not proven either, so ECMA-262's empty-iteration check
 * never matters. Assertions (`$`, `\b`, `\B`) count as always passing: that can only add runs.
 *
 * An unanchored search is the same as a pattern preceded by a state σ that loops on every
 * character (skip one more start position); a pattern whose every path meets `^` before
 * consuming anything is anchored, and then σ is left out: every other start fails at once.
 *
 * The number of runs over any input prefix is bounded by a constant (the automaton is finitely
 * ambiguous) exactly when neither of these holds (Weber and Seidl, 1991, for an automaton whose
 * states are all reachable and all count):
 *
 * - EDA: a state p with two different cycles p → p that read the same word (exponential);
 * - IDA: two states p ≠ q and a word v that leads p → p, p → q and q → q (polynomial).
 *
 * With at most D runs per prefix, a failing search explores at most D·(n + 1) runs, each extended
 * by at most a pattern-sized number of failed attempts: linear in the input length n (D and that
 * number depend on the pattern only). Both conditions are searched on runs side by side: EDA in
 * the graph of pairs of states (a component holding (p, p) and some (a, b), a ≠ b), IDA in the
 * graph of triples, from (p, p, q) to (p, q, q); a step needs one character all the atoms accept,
 * computed on the atoms' exact code-point sets. `^[^/]+/[^/]+$` passes: a word that loops on the
 * first `[^/]` has no `/`, so it cannot also reach the second. `^\S+@\S+$` fails (IDA): `\S`
 * contains `@`, so `@a` loops on the first `\S`, loops on the second, and leads from one to the
 * other; a string of `@`s is quadratic. Unanchored `[a-z]+$` fails too (σ and the loop), and
 * rightly: V8 takes quadratic time on `aaa…a!`.
 *
 * One refinement: a single-character atom repeated without bound at the very end of the pattern
 * (`\d+` in `^v\d+`, no `$` after it) is analysed as its mandatory copies only. Once the engine
 * has done those, the rest of the pattern is empty, so it succeeds after one greedy run (or at
 * once, lazily): the loop adds at most n steps, once.
 *
 * Character sets are exact over code points (`u` flag): `\d \w \s .`, their negations, classes,
 * negated classes; `\p{…}` sets are read from the engine itself, one scan of all code points per
 * property. Anything the parser does not know (lookaround, backreferences, modifiers) is not
 * proven. The analysis gives up (not proven) beyond 512 positions or a fixed amount of work.
 *
 * @module
 */

const MAX_CP = 0x10ffff;
/** The most atoms (after expanding counted repetition) the analysis builds. */
const MAX_POSITIONS = 512;
/** The most transitions the ambiguity checks examine before giving up (about 10 ms). */
const MAX_WORK = 50_000;

class Unproven extends Error {}

// ---------------------------------------------------------------------------------------------
// Sets of code points: sorted, disjoint, non-adjacent inclusive ranges [lo, hi, lo, hi, …].

type CharSet = readonly number[];

function fromRanges(pairs: [number, number][]): CharSet {
  const sorted = pairs.filter(([lo, hi]) => lo <= hi).sort((a, b) => a[0] - b[0]);
  const out: number[] = [];
  for (const [lo, hi] of sorted) {
    const n = out.length;
    if (n > 0 && lo <= out[n - 1] + 1) out[n - 1] = Math.max(out[n - 1], hi);
    else out.push(lo, hi);
  }
  return out;
}

function ranges(s: CharSet): [number, number][] {
  const out: [number, number][] = [];
  for (let i = 0; i < s.length; i += 2) out.push([s[i], s[i + 1]]);
  return out;
}

function union(sets: CharSet[]): CharSet {
  return fromRanges(sets.flatMap(ranges));
}

function complement(s: CharSet): CharSet {
  const out: number[] = [];
  let next = 0;
  for (let i = 0; i < s.length; i += 2) {
    if (s[i] > next) out.push(next, s[i] - 1);
    next = s[i + 1] + 1;
  }
  if (next <= MAX_CP) out.push(next, MAX_CP);
  return out;
}

function intersect(a: CharSet, b: CharSet): CharSet {
  const out: number[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const lo = Math.max(a[i], b[j]);
    const hi = Math.min(a[i + 1], b[j + 1]);
    if (lo <= hi) out.push(lo, hi);
    if (a[i + 1] < b[j + 1]) i += 2;
    else j += 2;
  }
  return out;
}

const ALL: CharSet = [0, MAX_CP];
const DIGIT: CharSet = [0x30, 0x39];
const WORD: CharSet = fromRanges([[0x30, 0x39], [0x41, 0x5a], [0x5f, 0x5f], [
  0x61,
  0x7a,
]]);
/** ECMA-262 WhiteSpace and LineTerminator, as `\s` matches them. */
const SPACE: CharSet = fromRanges([
  [0x09, 0x0d],
  [0x20, 0x20],
  [0xa0, 0xa0],
  [0x1680, 0x1680],
  [0x2000, 0x200a],
  [0x2028, 0x2029],
  [0x202f, 0x202f],
  [0x205f, 0x205f],
  [0x3000, 0x3000],
  [0xfeff, 0xfeff],
]);
/** `.` without the `s` flag: anything but a line terminator. */
const DOT: CharSet = complement(
  fromRanges([[0x0a, 0x0a], [0x0d, 0x0d], [0x2028, 0x2029]]),
);

const propertySets = new Map<string, CharSet>();

/** The code points `\p{name}` matches, asked of the engine itself (cached: ~25 ms each). */
function propertySet(name: string): CharSet {
  let set = propertySets.get(name);
  if (set) return set;
  let re: RegExp;
  try {
    re = new RegExp(`^\\p{${name}}$`, "u");
  } catch {
    throw new Unproven();
  }
  const pairs: [number, number][] = [];
  let start = -1;
  for (let cp = 0; cp <= MAX_CP + 1; cp++) {
    const inSet = cp <= MAX_CP && re.test(String.fromCodePoint(cp));
    if (inSet && start < 0) start = cp;
    if (!inSet && start >= 0) {
      pairs.push([start, cp - 1]);
      start = -1;
    }
  }
  set = fromRanges(pairs);
  propertySets.set(name, set);
  return set;
}

// ---------------------------------------------------------------------------------------------
// A parser for ECMA-262 patterns with the `u` flag. Groups are transparent; lazy and greedy
// quantifiers make the same choices in a different order, so they are not told apart.

type Node =
  | { t: "set"; set: CharSet }
  | { t: "empty" } // `$`, `\b`, `\B`, an empty alternative
  | { t: "bol" } // `^`
  | { t: "seq"; items: Node[] }
  | { t: "alt"; alts: Node[] }
  | { t: "rep"; body: Node; min: number; max: number };

const SYNTAX = "^$\\.*+?()[]{}|/";

class Parser {
  #i = 0;
  readonly #src: string;

  constructor(src: string) {
    this.#src = src;
  }

  parse(): Node {
    const n = this.#alternation();
    if (this.#i !== this.#src.length) throw new Unproven();
    return n;
  }

  #peek(k = 0): string | undefined {
    return this.#src[this.#i + k];
  }

  #alternation(): Node {
    const alts = [this.#sequence()];
    while (this.#peek() === "|") {
      this.#i++;
      alts.push(this.#sequence());
    }
    return alts.length === 1 ? alts[0] : { t: "alt", alts };
  }

  #sequence(): Node {
    const items: Node[] = [];
    while (
      this.#i < this.#src.length && this.#peek() !== "|" && this.#peek() !== ")"
    ) {
      items.push(this.#quantified());
    }
    return items.length === 1 ? items[0] : { t: "seq", items };
  }

  #quantified(): Node {
    const atom = this.#atom();
    const c = this.#peek();
    let min: number;
    let max: number;
    if (c === "*") [min, max] = [0, Infinity];
    else if (c === "+") [min, max] = [1, Infinity];
    else if (c === "?") [min, max] = [0, 1];
    else if (c === "{") {
      const m = /^\{(\d+)(,(\d*))?\}/.exec(this.#src.slice(this.#i));
      if (!m) throw new Unproven();
      min = Number(m[1]);
      max = m[2] === undefined ? min : m[3] === "" ? Infinity : Number(m[3]);
      this.#i += m[0].length - 1;
    } else return atom;
    this.#i++;
    if (this.#peek() === "?") this.#i++;
    if (atom.t === "bol" || atom.t === "empty" || max < min) {
      throw new Unproven();
    }
    return { t: "rep", body: atom, min, max };
  }

  #atom(): Node {
    const c = this.#peek()!;
    if (c === "^") {
      this.#i++;
      return { t: "bol" };
    }
    if (c === "$") {
      this.#i++;
      return { t: "empty" };
    }
    if (c === ".") {
      this.#i++;
      return { t: "set", set: DOT };
    }
    if (c === "(") return this.#group();
    if (c === "[") return { t: "set", set: this.#class() };
    if (c === "\\") {
      this.#i++;
      const n = this.#peek();
      if (n === "b" || n === "B") {
        this.#i++;
        return { t: "empty" };
      }
      const e = this.#escape(false);
      return { t: "set", set: typeof e === "number" ? [e, e] : e };
    }
    if ("*+?{}])".includes(c)) throw new Unproven();
    const cp = this.#src.codePointAt(this.#i)!;
    this.#i += cp > 0xffff ? 2 : 1;
    return { t: "set", set: [cp, cp] };
  }

  #group(): Node {
    this.#i++;
    if (this.#src.startsWith("?:", this.#i)) this.#i += 2;
    else if (
      this.#src.startsWith("?<", this.#i) &&
      !"=!".includes(this.#peek(2) ?? "=")
    ) {
      const end = this.#src.indexOf(">", this.#i);
      if (end < 0) throw new Unproven();
      this.#i = end + 1;
    } else if (this.#peek() === "?") throw new Unproven(); // lookaround, modifiers
    const body = this.#alternation();
    if (this.#peek() !== ")") throw new Unproven();
    this.#i++;
    return body;
  }

  #class(): CharSet {
    this.#i++;
    const negated = this.#peek() === "^";
    if (negated) this.#i++;
    const parts: CharSet[] = [];
    for (;;) {
      const c = this.#peek();
      if (c === undefined) throw new Unproven();
      if (c === "]") break;
      const a = this.#classAtom();
      if (
        this.#peek() === "-" && this.#peek(1) !== "]" &&
        this.#peek(1) !== undefined
      ) {
        this.#i++;
        const b = this.#classAtom();
        if (typeof a !== "number" || typeof b !== "number" || a > b) {
          throw new Unproven();
        }
        parts.push([a, b]);
      } else parts.push(typeof a === "number" ? [a, a] : a);
    }
    this.#i++;
    const set = union(parts);
    return negated ? complement(set) : set;
  }

  /** One class member: a code point, or a set for `\d`, `\p{…}` and the like. */
  #classAtom(): number | CharSet {
    if (this.#peek() !== "\\") {
      const cp = this.#src.codePointAt(this.#i)!;
      this.#i += cp > 0xffff ? 2 : 1;
      return cp;
    }
    this.#i++;
    if (this.#peek() === "b") {
      this.#i++;
      return 0x08;
    }
    if (this.#peek() === "-") {
      this.#i++;
      return 0x2d;
    }
    return this.#escape(true);
  }

  /** The escape after a backslash: a code point or a class escape's set. */
  #escape(inClass: boolean): number | CharSet {
    const c = this.#peek();
    if (c === undefined) throw new Unproven();
    this.#i++;
    switch (c) {
      case "d":
        return DIGIT;
      case "D":
        return complement(DIGIT);
      case "w":
        return WORD;
      case "W":
        return complement(WORD);
      case "s":
        return SPACE;
      case "S":
        return complement(SPACE);
      case "p":
      case "P": {
        const end = this.#src.indexOf("}", this.#i);
        if (this.#peek() !== "{" || end < 0) throw new Unproven();
        const set = propertySet(this.#src.slice(this.#i + 1, end));
        this.#i = end + 1;
        return c === "p" ? set : complement(set);
      }
      case "t":
        return 0x09;
      case "n":
        return 0x0a;
      case "v":
        return 0x0b;
      case "f":
        return 0x0c;
      case "r":
        return 0x0d;
      case "c": {
        const l = this.#peek();
        if (l === undefined || !/[A-Za-z]/.test(l)) throw new Unproven();
        this.#i++;
        return l.charCodeAt(0) % 32;
      }
      case "0":
        if (/[0-9]/.test(this.#peek() ?? "")) throw new Unproven();
        return 0;
      case "x":
        return this.#hex(2);
      case "u": {
        if (this.#peek() === "{") {
          const end = this.#src.indexOf("}", this.#i);
          const digits = this.#src.slice(this.#i + 1, end);
          if (end < 0 || !/^[0-9A-Fa-f]+$/.test(digits)) throw new Unproven();
          this.#i = end + 1;
          const cp = parseInt(digits, 16);
          if (cp > MAX_CP) throw new Unproven();
          return cp;
        }
        const lead = this.#hex(4);
        if (
          lead >= 0xd800 && lead <= 0xdbff &&
          /^\\u[dD][c-fC-F][0-9A-Fa-f]{2}/.test(this.#src.slice(this.#i))
        ) {
          this.#i += 2;
          const trail = this.#hex(4);
          return 0x10000 + ((lead - 0xd800) << 10) + (trail - 0xdc00);
        }
        return lead;
      }
    }
    if (SYNTAX.includes(c) || (inClass && c === "-")) return c.charCodeAt(0);
    throw new Unproven(); // a backreference, `\k<…>`, or an escape the `u` flag refuses
  }

  #hex(digits: number): number {
    const h = this.#src.slice(this.#i, this.#i + digits);
    if (!new RegExp(`^[0-9A-Fa-f]{${digits}}$`).test(h)) throw new Unproven();
    this.#i += digits;
    return parseInt(h, 16);
  }
}

// ---------------------------------------------------------------------------------------------
// The position automaton, with each edge counted once per derivation (counts stop at 2).

interface Frag {
  /** Atoms that can consume the fragment's first character, with their derivation counts. */
  first: Map<number, number>;
  /** Atoms that can consume its last character, with the number of ways to then leave it. */
  last: Map<number, number>;
  /** The number of ways it matches the empty string. */
  nullable: number;
}

const EMPTY: Frag = { first: new Map(), last: new Map(), nullable: 1 };

const cap = (n: number): number => Math.min(n, 2);

function addScaled(
  a: Map<number, number>,
  b: Map<number, number>,
  k: number,
): Map<number, number> {
  const out = new Map(a);
  if (k > 0) {
    for (const [x, n] of b) out.set(x, cap((out.get(x) ?? 0) + k * n));
  }
  return out;
}

class Automaton {
  readonly sets: CharSet[] = [];
  readonly follow: Map<number, number>[] = [];

  build(n: Node): Frag {
    switch (n.t) {
      case "set": {
        if (this.sets.length >= MAX_POSITIONS) throw new Unproven();
        const x = this.sets.length;
        this.sets.push(n.set);
        this.follow.push(new Map());
        return {
          first: new Map([[x, 1]]),
          last: new Map([[x, 1]]),
          nullable: 0,
        };
      }
      case "empty":
      case "bol":
        return EMPTY;
      case "seq":
        return n.items.reduce(
          (f, item) => this.#then(f, this.build(item)),
          EMPTY,
        );
      case "alt":
        return n.alts.map((a) => this.build(a)).reduce((f, g) => ({
          first: addScaled(f.first, g.first, 1),
          last: addScaled(f.last, g.last, 1),
          nullable: cap(f.nullable + g.nullable),
        }));
      case "rep":
        return this.#repeat(n.body, n.min, n.max);
    }
  }

  #then(a: Frag, b: Frag): Frag {
    this.#link(a.last, b.first);
    return {
      first: addScaled(a.first, b.first, a.nullable),
      last: addScaled(b.last, a.last, b.nullable),
      nullable: cap(a.nullable * b.nullable),
    };
  }

  #link(from: Map<number, number>, to: Map<number, number>): void {
    for (const [x, m] of from) {
      const f = this.follow[x];
      for (const [y, n] of to) f.set(y, cap((f.get(y) ?? 0) + m * n));
    }
  }

  /** An iteration beyond the minimum: one that could match empty is not proven. */
  #iteration(body: Node): Frag {
    const f = this.build(body);
    if (f.nullable > 0) throw new Unproven();
    return f;
  }

  #repeat(body: Node, min: number, max: number): Frag {
    if (min > MAX_POSITIONS || (max !== Infinity && max > MAX_POSITIONS)) {
      throw new Unproven();
    }
    let f = EMPTY;
    if (max === Infinity) {
      // X{n,} is n−1 copies of X then X+ (or X* when n = 0): the loop's last atoms lead back to
      // its first atoms.
      for (let k = 1; k < min; k++) f = this.#then(f, this.build(body));
      const loop = this.#iteration(body);
      this.#link(loop.last, loop.first);
      return this.#then(f, min >= 1 ? loop : { ...loop, nullable: 1 });
    }
    for (let k = 0; k < min; k++) f = this.#then(f, this.build(body));
    // X{n,m} is n copies then (X(X(…)?)?)?: each further iteration is a choice to go on or stop.
    let optional = EMPTY;
    for (let k = min; k < max; k++) {
      const g = this.#then(this.#iteration(body), optional);
      optional = { first: g.first, last: g.last, nullable: 1 };
    }
    return this.#then(f, optional);
  }
}

/** A single-character atom repeated without bound at the very end becomes its mandatory part. */
function trimTail(n: Node): Node {
  if (n.t === "alt") return { t: "alt", alts: n.alts.map(trimTail) };
  if (n.t === "seq" && n.items.length > 0) {
    return {
      t: "seq",
      items: [...n.items.slice(0, -1), trimTail(n.items[n.items.length - 1])],
    };
  }
  if (n.t === "rep" && n.max === Infinity && n.body.t === "set") {
    return { ...n, max: n.min };
  }
  return n;
}

function consumes(n: Node): boolean {
  switch (n.t) {
    case "set":
      return true;
    case "empty":
    case "bol":
      return false;
    case "seq":
      return n.items.some(consumes);
    case "alt":
      return n.alts.some(consumes);
    case "rep":
      return n.max > 0 && consumes(n.body);
  }
}

/** Whether every path meets `^` before consuming a character. */
function anchored(n: Node): boolean {
  switch (n.t) {
    case "bol":
      return true;
    case "set":
    case "empty":
      return false;
    case "seq":
      for (const item of n.items) {
        if (anchored(item)) return true;
        if (consumes(item)) return false;
      }
      return false;
    case "alt":
      return n.alts.every(anchored);
    case "rep":
      return n.min >= 1 && anchored(n.body);
  }
}

// ---------------------------------------------------------------------------------------------
// Finite ambiguity: no EDA, no IDA.

/** Strongly connected components (iterative Tarjan) of the nodes reachable from `roots`. */
/** Counts the work of the ambiguity checks; throws when they have done too much. */
class Budget {
  #work = 0;
  spend(units: number): void {
    this.#work += units;
    if (this.#work > MAX_WORK) throw new Unproven();
  }
}

function components(
  roots: number[],
  succ: (v: number) => number[],
  budget: Budget,
) {
  const index = new Map<number, number>();
  const low = new Map<number, number>();
  const comp = new Map<number, number>();
  const stack: number[] = [];
  const onStack = new Set<number>();
  let next = 0;
  let count = 0;
  for (const root of roots) {
    if (index.has(root)) continue;
    const work: [number, number[], number][] = [];
    const open = (v: number) => {
      budget.spend(1);
      index.set(v, next);
      low.set(v, next++);
      stack.push(v);
      onStack.add(v);
      work.push([v, succ(v), 0]);
    };
    open(root);
    while (work.length > 0) {
      const frame = work[work.length - 1];
      const [v, out] = frame;
      if (frame[2] < out.length) {
        const w = out[frame[2]++];
        if (!index.has(w)) open(w);
        else if (onStack.has(w)) {
          low.set(v, Math.min(low.get(v)!, index.get(w)!));
        }
        continue;
      }
      work.pop();
      if (work.length > 0) {
        const u = work[work.length - 1][0];
        low.set(u, Math.min(low.get(u)!, low.get(v)!));
      }
      if (low.get(v) === index.get(v)) {
        let w: number;
        do {
          w = stack.pop()!;
          onStack.delete(w);
          comp.set(w, count);
        } while (w !== v);
        count++;
      }
    }
  }
  return comp;
}

function finitelyAmbiguous(
  sets: CharSet[],
  succ: number[][],
  initial: number[],
): boolean {
  const n = sets.length;
  const budget = new Budget();
  const comp = components(initial, (v) => succ[v], budget);
  const states = [...comp.keys()];
  const compSize = new Map<number, number>();
  for (const c of comp.values()) compSize.set(c, (compSize.get(c) ?? 0) + 1);
  const cyclic = states.filter((v) => succ[v].includes(v) || compSize.get(comp.get(v)!)! > 1);
  // Whether two or three atoms share a character, by distinct set (copies of one atom share it).
  const ids = new Map<string, number>();
  const setId = sets.map((set) => {
    const key = set.join();
    if (!ids.has(key)) ids.set(key, ids.size);
    return ids.get(key)!;
  });
  const distinct = [...ids.keys()].map((
    key,
  ) => (key === "" ? [] : key.split(",").map(Number)));
  const k = distinct.length;
  const pairMeets = new Int8Array(k * k).fill(-1);
  const meets2 = (a: number, b: number): boolean => {
    const key = setId[a] * k + setId[b];
    if (pairMeets[key] < 0) {
      pairMeets[key] = intersect(distinct[setId[a]], distinct[setId[b]]).length > 0 ? 1 : 0;
    }
    return pairMeets[key] === 1;
  };
  const tripleMeets = new Map<number, boolean>();
  const meets3 = (a: number, b: number, c: number): boolean => {
    const key = (setId[a] * k + setId[b]) * k + setId[c];
    let m = tripleMeets.get(key);
    if (m === undefined) {
      const ab = intersect(distinct[setId[a]], distinct[setId[b]]);
      tripleMeets.set(key, m = intersect(ab, distinct[setId[c]]).length > 0);
    }
    return m;
  };

  // The pair graph: (a, b) → (a', b') when one character takes a to a' and b to b'. Explored
  // from the diagonal pairs (p, p) of the states on a cycle.
  const pairSucc = (k: number): number[] => {
    const a = Math.floor(k / n);
    const b = k % n;
    const out: number[] = [];
    budget.spend(succ[a].length * succ[b].length);
    for (const a2 of succ[a]) {
      for (const b2 of succ[b]) if (meets2(a2, b2)) out.push(a2 * n + b2);
    }
    return out;
  };
  const pairComp = components(cyclic.map((p) => p * n + p), pairSucc, budget);
  const size = new Map<number, number>();
  for (const c of pairComp.values()) size.set(c, (size.get(c) ?? 0) + 1);
  const diagonal = new Set<number>();
  for (const [k, c] of pairComp) {
    if (Math.floor(k / n) === k % n) diagonal.add(c);
  }
  // EDA: a pair-graph component with a diagonal pair (p, p) and a pair (a, b), a ≠ b: two
  // different cycles at p on one word.
  const candidates: [number, number][] = [];
  for (const [k, c] of pairComp) {
    const a = Math.floor(k / n);
    const b = k % n;
    if (a === b) continue;
    if (diagonal.has(c)) return false;
    // IDA needs p →v p and q →v q, that is a cycle through the pair (p, q).
    if (size.get(c)! > 1 || pairSucc(k).includes(k)) candidates.push([a, b]);
  }

  // IDA: p ≠ q with p →v p, p →v q and q →v q, searched as (p, p, q) →v (p, q, q) among the
  // candidates.
  const reach = (from: number, edges: number[][]): Set<number> => {
    const seen = new Set([from]);
    const todo = [from];
    while (todo.length > 0) {
      for (const w of edges[todo.pop()!]) {
        if (seen.has(w)) continue;
        seen.add(w);
        todo.push(w);
      }
    }
    return seen;
  };
  const pred: number[][] = sets.map(() => []);
  for (const v of states) for (const w of succ[v]) pred[w].push(v);
  for (const [p, q] of candidates) {
    const fromP = reach(p, succ);
    if (!fromP.has(q)) continue;
    const toQ = reach(q, pred);
    const start = (p * n + p) * n + q;
    const goal = (p * n + q) * n + q;
    const seen = new Set([start]);
    const todo = [start];
    while (todo.length > 0) {
      const k = todo.pop()!;
      const c = k % n;
      const b = Math.floor(k / n) % n;
      const a = Math.floor(k / n / n);
      for (const a2 of succ[a]) {
        if (comp.get(a2) !== comp.get(p)) continue;
        for (const b2 of succ[b]) {
          if (!fromP.has(b2) || !toQ.has(b2)) continue;
          if (!meets2(a2, b2)) continue;
          budget.spend(succ[c].length);
          for (const c2 of succ[c]) {
            if (comp.get(c2) !== comp.get(q) || !meets3(a2, b2, c2)) continue;
            const k2 = (a2 * n + b2) * n + c2;
            if (k2 === goal) return false;
            if (seen.has(k2)) continue;
            seen.add(k2);
            todo.push(k2);
          }
        }
      }
    }
  }
  return true;
}

/**
 * Whether a backtracking engine provably runs `RegExp#test` for this pattern (with the `u` flag)
 * in time linear in the input: the pattern's runs are finitely ambiguous (see the module doc).
 * `false` means not proven, not necessarily slow.
 *
 * @param source A pattern that compiles with the `u` flag.
 * @returns Whether the proof succeeds.
 */
export function linearOnBacktracker(source: string): boolean {
  try {
    const tree = new Parser(source).parse();
    const automaton = new Automaton();
    const whole = automaton.build(trimTail(tree));
    const { sets, follow } = automaton;
    if (whole.nullable > 1) return false;
    if ([...whole.first.values(), ...whole.last.values()].some((k) => k > 1)) {
      return false;
    }
    if (follow.some((f) => [...f.values()].some((k) => k > 1))) return false;
    const succ = follow.map((f) => [...f.keys()].filter((y) => sets[y].length > 0));
    const initial = [...whole.first.keys()].filter((y) => sets[y].length > 0);
    if (!anchored(tree)) {
      // σ: the search moving on to the next start position.
      const sigma = sets.length;
      sets.push(ALL);
      succ.push([sigma, ...initial]);
      initial.push(sigma);
    }
    return finitelyAmbiguous(sets, succ, initial);
  } catch (e) {
    if (e instanceof Unproven) return false;
    throw e;
  }
}

/**
 * The code points one character atom matches (`[a-z]`, `\S`, `\p{L}`, `.`), as the analysis
 * computes them; for tests that compare them with the engine's.
 *
 * @param atom A single character atom's source.
 * @returns Inclusive code-point ranges, or `undefined` when the analysis does not read it.
 */
export function atomRanges(atom: string): [number, number][] | undefined {
  try {
    const n = new Parser(atom).parse();
    return n.t === "set" ? ranges(n.set) : undefined;
  } catch (e) {
    if (e instanceof Unproven) return undefined;
    throw e;
  }
}
