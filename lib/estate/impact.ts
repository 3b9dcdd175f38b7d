/**
 * Who calls a version: the impact report behind `estate impact` and the retirement rules — every
 * principal with their calls and when they were last seen, the calls made recently, and, for a
 * retired version, the calls made after it retired (the ones that now fail).
 *
 * @module
 */
import type { StoredCall } from "./replay.ts";

/** One principal's calls to a version. */
export interface CallerImpact {
  /** The principal's id. */
  principal: string;
  /** How many calls. */
  calls: number;
  /** The latest call's `at`. */
  lastSeen: string;
}

/** Calls to a version, by principal: most calls first, then by id. */
export interface CallerTally {
  /** How many calls in all. */
  calls: number;
  /** Per principal. */
  callers: CallerImpact[];
}

/** Options for {@linkcode versionImpact}. */
export interface ImpactOptions {
  /** Calls at or after this moment (ISO 8601) are counted as recent. */
  since?: string;
  /** When the version retired (ISO 8601): calls at or after it are counted apart. */
  retiredAt?: string;
}

/** Who calls a version (see {@linkcode versionImpact}). */
export interface VersionImpact extends CallerTally {
  /** The version. */
  version: string;
  /** The calls at or after `since` (all calls when no `since` was given). */
  recent: CallerTally;
  /** The calls at or after `retiredAt` — calls that now fail (none when no `retiredAt`). */
  afterRetirement: CallerTally;
}

class Tally {
  readonly #by = new Map<string, CallerImpact>();
  #calls = 0;
  #last = new Map<string, number>();
  add(call: StoredCall, t: number): void {
    this.#calls++;
    const c = this.#by.get(call.principal) ??
      { principal: call.principal, calls: 0, lastSeen: call.at };
    c.calls++;
    if (t >= (this.#last.get(call.principal) ?? -Infinity)) {
      c.lastSeen = call.at;
      this.#last.set(call.principal, t);
    }
    this.#by.set(call.principal, c);
  }
  result(): CallerTally {
    const callers = [...this.#by.values()].sort((a, b) =>
      b.calls - a.calls ||
      (a.principal < b.principal ? -1 : a.principal > b.principal ? 1 : 0)
    );
    return { calls: this.#calls, callers };
  }
}

/**
 * Tallies the stored calls made to one version, streaming: per principal, how many and last seen;
 * the recent ones; those after retirement.
 *
 * @param calls The tool's stored calls (any iterable: an array, or a file read line by line).
 * @param version The version.
 * @param options What counts as recent, and when the version retired.
 * @returns The report.
 *
 * @example
 * ```ts
 * import { versionImpact } from "@tool-estate/core";
 * import assert from "node:assert/strict";
 * const at = (day: string, principal: string) => ({ version: "1.0.0", arguments: {}, principal, at: `2027-${day}T09:00:00Z` });
 * const report = versionImpact([at("03-01", "ops-bot"), at("03-30", "ops-bot"), at("04-02", "teller")], "1.0.0", {
 *   since: "2027-03-15T00:00:00.000Z",
 *   retiredAt: "2027-04-01T00:00:00.000Z",
 * });
 * assert.equal(report.calls, 3);
 * assert.deepEqual(report.recent.callers.map((c) => c.principal), ["ops-bot", "teller"]);
 * assert.deepEqual(report.afterRetirement.callers, [{ principal: "teller", calls: 1, lastSeen: "2027-04-02T09:00:00Z" }]);
 * ```
 */
export function versionImpact(
  calls: Iterable<StoredCall>,
  version: string,
  options: ImpactOptions = {},
): VersionImpact {
  const impact = new ImpactTally(version, options);
  for (const call of calls) impact.add(call);
  return impact.result();
}

/**
 * {@linkcode versionImpact} over a stream that arrives asynchronously (a database cursor).
 *
 * @param calls The tool's stored calls (an async or a plain iterable).
 * @param version The version.
 * @param options What counts as recent, and when the version retired.
 * @returns The report.
 */
export async function versionImpactStream(
  calls: AsyncIterable<StoredCall> | Iterable<StoredCall>,
  version: string,
  options: ImpactOptions = {},
): Promise<VersionImpact> {
  const impact = new ImpactTally(version, options);
  for await (const call of calls) impact.add(call);
  return impact.result();
}

/** One impact report in progress: calls go in one at a time. */
class ImpactTally {
  readonly #version: string;
  readonly #since: number;
  readonly #retired: number;
  readonly #all = new Tally();
  readonly #recent = new Tally();
  readonly #after = new Tally();

  constructor(version: string, options: ImpactOptions) {
    this.#version = version;
    this.#since = options.since === undefined ? -Infinity : Date.parse(options.since);
    this.#retired = options.retiredAt === undefined ? Infinity : Date.parse(options.retiredAt);
  }

  add(call: StoredCall): void {
    if (call.version !== this.#version) return;
    const t = Date.parse(call.at);
    this.#all.add(call, t);
    if (t >= this.#since) this.#recent.add(call, t);
    if (t >= this.#retired) this.#after.add(call, t);
  }

  result(): VersionImpact {
    return {
      version: this.#version,
      ...this.#all.result(),
      recent: this.#recent.result(),
      afterRetirement: this.#after.result(),
    };
  }
}
