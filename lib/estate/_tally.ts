/** How every replay reports rejected stored calls: how many, the first few, and per node. */
import type { SchemaIssue } from "../schema/types.ts";
import type { RejectedCall, Rejections, RejectionsAtNode, StoredCall } from "./registry.ts";

/** Counts rejected calls in corpus order; `result()` gives the `Rejections`. */
export class RejectionTally {
  #count = 0;
  readonly #first: RejectedCall[] = [];
  readonly #nodes = new Map<string, RejectionsAtNode>();
  readonly #sample: number;

  /** @param sample How many rejected calls to keep. */
  constructor(sample: number) {
    this.#sample = sample;
  }

  /** Records one rejected call: its position (from 1) and its sorted issues. */
  add(call: StoredCall, index: number, issues: SchemaIssue[]): void {
    this.#count++;
    if (this.#first.length < this.#sample) this.#first.push({ call, index, issues });
    const seen = new Set<string>();
    for (const issue of issues) {
      const key = `${issue.schemaPath} ${issue.keyword}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const node = this.#nodes.get(key);
      if (node) node.count++;
      else {this.#nodes.set(key, {
          schemaPath: issue.schemaPath,
          keyword: issue.keyword,
          count: 1,
          example: issue,
        });}
    }
  }

  /** The rejections: per node most calls first, then by schema path. */
  result(): Rejections {
    const byNode = [...this.#nodes.values()].sort((a, b) =>
      b.count - a.count || (a.schemaPath < b.schemaPath ? -1 : a.schemaPath > b.schemaPath ? 1 : 0)
    );
    return { count: this.#count, first: this.#first, byNode };
  }
}
