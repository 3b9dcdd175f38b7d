/**
 * Replay: stored calls streamed through a schema, and the tally of the ones it rejects — how many,
 * the first few, and per rejecting schema node. The registry replays a tool's calls before a
 * non-major publish; a {@linkcode CallIndex} gives the same answer from an index.
 *
 * @module
 */
import { Version } from "../compat/semver.ts";
import type { SchemaIssue } from "../schema/types.ts";
import { compileSchema } from "../schema/validate.ts";
import type { ToolSpec } from "./spec.ts";

/** One stored call: what a caller sent to which version, and when. */
export interface StoredCall {
  /** The version that served the call. */
  version: string;
  /** The arguments as received. */
  arguments: unknown;
  /** The principal's id. */
  principal: string;
  /** When, as an ISO 8601 timestamp. */
  at: string;
}

/** Supplies a tool's stored calls, streaming (the registry never holds them all). */
export type CallSource = (name: string) => Iterable<StoredCall>;

/** How many stored calls one schema node rejects, for reporting at that node. */
export interface RejectionsAtNode {
  /** Where in the schema the rejecting keyword is, e.g. `$.required` or `$.properties.amount.minimum`. */
  schemaPath: string;
  /** The keyword. */
  keyword: string;
  /** How many calls it rejects. */
  count: number;
  /** One of the issues, e.g. `$.currency required property is missing`. */
  example: SchemaIssue;
}

/** The stored calls a schema rejects: how many, the first few, and per rejecting node. */
export interface Rejections {
  /** How many calls are rejected. */
  count: number;
  /** The first few, in corpus order. */
  first: RejectedCall[];
  /** Per schema node, most calls first. */
  byNode: RejectionsAtNode[];
}

/** A stored call the new schema rejects, with its issues. */
export interface RejectedCall {
  /** The call. */
  call: StoredCall;
  /** Its line in the call source, counting from 1. */
  index: number;
  /** What the new schema says about it. */
  issues: SchemaIssue[];
}

/** Options for {@linkcode replayCalls}. */
export interface ReplayOptions {
  /** Only replay calls made to this major version line. Default: every call. */
  major?: number;
  /** How many rejected calls to keep. Default 3. */
  sample?: number;
  /** Called every 10,000 calls with the count replayed so far. */
  onProgress?: (replayed: number) => void;
}

/** No rejected call: what a replay that rejects nothing (or did not run) reports. */
export function noRejections(): Rejections {
  return { count: 0, first: [], byNode: [] };
}

/**
 * The node a rejection is counted under: the rejecting keyword's place in the schema, and the
 * keyword. A call counts once per node, however many of its issues are there.
 *
 * @param issue One of a rejected call's issues.
 * @returns The key, e.g. `$.required required`.
 */
export function rejectionNode(issue: SchemaIssue): string {
  return `${issue.schemaPath} ${issue.keyword}`;
}

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
    if (this.#first.length < this.#sample) {
      this.#first.push({ call, index, issues });
    }
    const seen = new Set<string>();
    for (const issue of issues) {
      const key = rejectionNode(issue);
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
      b.count - a.count ||
      (a.schemaPath < b.schemaPath ? -1 : a.schemaPath > b.schemaPath ? 1 : 0)
    );
    return { count: this.#count, first: this.#first, byNode };
  }
}

/**
 * Replays stored calls through a schema, streaming: counts the calls it rejects, keeps the first
 * few, and groups rejections by the schema node that rejects them.
 *
 * @param schema The schema to replay against.
 * @param calls The stored calls (any iterable: an array, or a file read line by line).
 * @param options `major`: only replay calls made to that major version line; `sample`: how many
 *   rejected calls to keep (default 3); `onProgress`: called every 10,000 calls with the count.
 * @returns The rejections.
 *
 * @example
 * ```ts
 * import { replayCalls } from "@tool-estate/core";
 * import assert from "node:assert/strict";
 * const schema = { type: "object", required: ["currency"] };
 * const calls = [{ version: "1.0.0", arguments: {}, principal: "p", at: "2026-11-30T00:00:00Z" }];
 * const r = replayCalls(schema, calls);
 * assert.equal(r.count, 1);
 * assert.equal(r.byNode[0].schemaPath, "$.required");
 * ```
 */
export function replayCalls(
  schema: ToolSpec["inputSchema"],
  calls: Iterable<StoredCall>,
  options: ReplayOptions = {},
): Rejections {
  const replay = new CallReplay(schema, options);
  for (const call of calls) replay.add(call);
  return replay.result();
}

/**
 * {@linkcode replayCalls} over a stream that arrives asynchronously (a database cursor): the same
 * tally, the same indices, memory flat.
 *
 * @param schema The schema to replay against.
 * @param calls The stored calls, oldest first (an async or a plain iterable).
 * @param options As for {@linkcode replayCalls}.
 * @returns The rejections.
 */
export async function replayCallStream(
  schema: ToolSpec["inputSchema"],
  calls: AsyncIterable<StoredCall> | Iterable<StoredCall>,
  options: ReplayOptions = {},
): Promise<Rejections> {
  const replay = new CallReplay(schema, options);
  for await (const call of calls) replay.add(call);
  return replay.result();
}

/** One replay in progress: stored calls go in one at a time, in order; `result()` tallies them. */
class CallReplay {
  readonly #tally: RejectionTally;
  readonly #validate: (value: unknown) => SchemaIssue[];
  readonly #options: ReplayOptions;
  // A call's major line from its version text, parsed once per distinct version, not per call.
  readonly #majors = new Map<string, number | undefined>();
  #index = 0;

  constructor(schema: ToolSpec["inputSchema"], options: ReplayOptions) {
    this.#tally = new RejectionTally(options.sample ?? 3);
    this.#validate = compileSchema(schema);
    this.#options = options;
  }

  #majorOf(version: string): number | undefined {
    if (this.#majors.has(version)) return this.#majors.get(version);
    let major: number | undefined;
    try {
      major = Version.parse(version).major;
    } catch {
      major = undefined;
    }
    this.#majors.set(version, major);
    return major;
  }

  add(call: StoredCall): void {
    const index = ++this.#index;
    const { onProgress, major } = this.#options;
    if (onProgress && index % 10_000 === 0) onProgress(index);
    if (major !== undefined && this.#majorOf(call.version) !== major) return;
    const issues = this.#validate(call.arguments);
    if (issues.length) this.#tally.add(call, index, issues);
  }

  result(): Rejections {
    return this.#tally.result();
  }
}
