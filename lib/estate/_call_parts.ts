/**
 * The parts a `CallIndex` adds up: each part of a schema (one key-set rule, one property's schema)
 * with the stored calls it rejects, and the running sum of the parts a schema is made of — per call
 * how many parts reject it, per schema node which parts reject there. Moving from one schema to
 * the next takes out the parts that went and adds the ones that came, so an edit costs what it
 * changed, not what the calls are.
 *
 * @module
 */
import type { SchemaIssue } from "../schema/types.ts";
import { rejectionNode } from "./replay.ts";

/** The calls one part rejects with the same issues: a distinct value, a key-set group, a rule. */
export interface PartUnit {
  /** Positions of the calls, ascending. */
  calls: ArrayLike<number>;
  /** What the part says about each of them. */
  issues: SchemaIssue[];
}

/** The stored calls under one schema node (`schemaPath` and keyword), within one part. */
export interface NodeCalls {
  /** Positions of the calls, ascending. */
  calls: Int32Array;
}

/** One part of a schema's verdict: the calls it rejects, with their issues. */
export interface Part {
  /** Unique within the index: names a set of parts. */
  readonly id: number;
  /** Positions of the rejected calls, ascending. */
  readonly calls: Int32Array;
  /** Per node key (`rejectionNode`): the calls rejected there. */
  readonly nodes: Map<string, NodeCalls>;
  /** The part's issues for one call, or `undefined` when it does not reject it. */
  issuesOf(call: number): SchemaIssue[] | undefined;
}

/** Whether an ascending array holds a value. */
export function holds(sorted: ArrayLike<number>, value: number): boolean {
  let lo = 0, hi = sorted.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const v = sorted[mid];
    if (v === value) return true;
    if (v < value) lo = mid + 1;
    else hi = mid - 1;
  }
  return false;
}

function sortedConcat(lists: ArrayLike<number>[]): Int32Array {
  let n = 0;
  for (const l of lists) n += l.length;
  const out = new Int32Array(n);
  let at = 0;
  for (const l of lists) {
    out.set(l, at);
    at += l.length;
  }
  if (lists.length > 1) out.sort();
  return out;
}

/**
 * A part from its units (whose calls do not overlap) and the way to find a call's issues.
 *
 * @param id Unique within the index.
 * @param units The rejected calls, grouped by their issues.
 * @param issuesOf The part's issues for a call it rejects.
 */
export function makePart(
  id: number,
  units: PartUnit[],
  issuesOf: (call: number) => SchemaIssue[] | undefined,
): Part {
  const calls = sortedConcat(units.map((u) => u.calls));
  const byNode = new Map<string, ArrayLike<number>[]>();
  for (const u of units) {
    const seen = new Set<string>();
    for (const issue of u.issues) {
      const key = rejectionNode(issue);
      if (seen.has(key)) continue;
      seen.add(key);
      const lists = byNode.get(key);
      if (lists) lists.push(u.calls);
      else byNode.set(key, [u.calls]);
    }
  }
  const nodes = new Map<string, NodeCalls>();
  for (const [key, lists] of byNode) {
    // Units do not overlap: a node every unit reaches rejects exactly the part's calls.
    nodes.set(key, { calls: lists.length === units.length ? calls : sortedConcat(lists) });
  }
  return { id, calls, nodes, issuesOf };
}

/** A node's tally over the parts in force: how many calls it rejects, and the first of them. */
export interface NodeTally {
  /** The node key. */
  key: string;
  /** Distinct calls rejected there. */
  count: number;
  /** The first of them, in corpus order. */
  first: number;
}

/** The sum of the parts in force for one set of calls, kept as parts come and go. */
export class AppliedParts {
  /** Per call position: how many parts in force reject it. */
  readonly #hits: Int32Array;
  #rejected = 0;
  readonly #parts = new Map<string, Part>();
  readonly #nodeParts = new Map<string, Set<Part>>();
  /** Scratch marks for unions, all zero between uses. */
  readonly #marks: Uint8Array;
  readonly #unions = new Map<string, { count: number; first: number }>();

  /** @param size How many call positions there are. */
  constructor(size: number) {
    this.#hits = new Int32Array(size);
    this.#marks = new Uint8Array(size);
  }

  /** How many calls at least one part in force rejects. */
  get rejected(): number {
    return this.#rejected;
  }

  /** The part in force under a key. */
  get(key: string): Part | undefined {
    return this.#parts.get(key);
  }

  /**
   * Puts exactly the given parts in force: takes out those whose keys are gone, and adds the new
   * ones (`build` makes a part not yet in force).
   */
  set(keys: Iterable<string>, build: (key: string) => Part): void {
    const wanted = new Set(keys);
    for (const [key, part] of this.#parts) {
      if (wanted.has(key)) continue;
      this.#parts.delete(key);
      this.#take(part, -1);
    }
    for (const key of wanted) {
      if (this.#parts.has(key)) continue;
      const part = build(key);
      this.#parts.set(key, part);
      this.#take(part, 1);
    }
  }

  #take(part: Part, sign: 1 | -1): void {
    const hits = this.#hits;
    let rejected = this.#rejected;
    for (const c of part.calls) {
      if (sign > 0) {
        if (hits[c]++ === 0) rejected++;
      } else if (--hits[c] === 0) rejected--;
    }
    this.#rejected = rejected;
    for (const key of part.nodes.keys()) {
      let parts = this.#nodeParts.get(key);
      if (!parts) this.#nodeParts.set(key, parts = new Set());
      if (sign > 0) parts.add(part);
      else {
        parts.delete(part);
        if (parts.size === 0) this.#nodeParts.delete(key);
      }
    }
  }

  /** The first `n` rejected call positions, ascending. */
  firstRejected(n: number): number[] {
    const out: number[] = [];
    if (n <= 0 || this.#rejected === 0) return out;
    const hits = this.#hits;
    for (let c = 0; c < hits.length && out.length < n; c++) {
      if (hits[c] > 0) out.push(c);
    }
    return out;
  }

  /** Per node with rejections: how many distinct calls, and the first. */
  nodes(): NodeTally[] {
    const out: NodeTally[] = [];
    for (const [key, parts] of this.#nodeParts) {
      if (parts.size === 1) {
        const [part] = parts;
        const { calls } = part.nodes.get(key)!;
        out.push({ key, count: calls.length, first: calls[0] });
        continue;
      }
      // Several parts reject under one node (a shared `$defs`, the key-set rules): count each
      // call once. Cached by which parts they are.
      const lists = [...parts].sort((a, b) => a.id - b.id);
      const union = `${key}|${lists.map((p) => p.id).join(",")}`;
      let u = this.#unions.get(union);
      if (!u) {
        const marks = this.#marks;
        let count = 0, first = Infinity;
        for (const p of lists) {
          const { calls } = p.nodes.get(key)!;
          for (const c of calls) {
            if (marks[c]) continue;
            marks[c] = 1;
            count++;
          }
          if (calls[0] < first) first = calls[0];
        }
        for (const p of lists) for (const c of p.nodes.get(key)!.calls) marks[c] = 0;
        u = { count, first };
        if (this.#unions.size > 10_000) this.#unions.clear();
        this.#unions.set(union, u);
      }
      out.push({ key, ...u });
    }
    return out;
  }
}
