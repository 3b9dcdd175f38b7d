/**
 * A running aggregate of a tool's stored calls — per version, the calls per UTC day and the
 * callers (how many calls each, last seen) — fed one call at a time as calls are appended, so
 * that a page about a tool with a million stored calls reads a few hundred numbers, not the
 * calls. The callers are exactly `versionImpact`'s (same order, same `lastSeen`).
 *
 * @module
 */
import type { CallerImpact, CallerTally } from "./impact.ts";
import type { StoredCall } from "./replay.ts";

/** How many calls one version had on one UTC day. */
export interface CallsOnDay {
  /** The version. */
  version: string;
  /** The UTC day, `YYYY-MM-DD`. */
  day: string;
  /** How many calls. */
  calls: number;
}

interface Caller {
  calls: number;
  last: number;
  lastSeen: string;
}

interface VersionStats {
  calls: number;
  days: Map<string, number>;
  callers: Map<string, Caller>;
}

/**
 * Calls per version per day, and per version per caller, kept up to date one call at a time.
 *
 * @example
 * ```ts
 * import { CallStats } from "@tool-estate/core";
 * import assert from "node:assert/strict";
 * const stats = new CallStats();
 * const at = (version: string, principal: string, at: string) => ({ version, arguments: {}, principal, at });
 * stats.add(at("1.0.0", "ops-bot", "2027-03-01T09:00:00Z"));
 * stats.add(at("1.0.0", "ops-bot", "2027-03-01T17:00:00Z"));
 * stats.add(at("2.0.0", "teller", "2027-03-02T09:00:00Z"));
 * assert.equal(stats.calls, 3);
 * assert.deepEqual(stats.days(), [
 *   { version: "1.0.0", day: "2027-03-01", calls: 2 },
 *   { version: "2.0.0", day: "2027-03-02", calls: 1 },
 * ]);
 * assert.deepEqual(stats.callers("1.0.0").callers, [{ principal: "ops-bot", calls: 2, lastSeen: "2027-03-01T17:00:00Z" }]);
 * ```
 */
export class CallStats {
  readonly #versions = new Map<string, VersionStats>();
  #calls = 0;

  /** How many calls were added. */
  get calls(): number {
    return this.#calls;
  }

  /**
   * Counts one stored call.
   *
   * @param call The call (its `at` an ISO 8601 time).
   */
  add(call: StoredCall): void {
    this.#calls++;
    let v = this.#versions.get(call.version);
    if (!v) {
      v = { calls: 0, days: new Map(), callers: new Map() };
      this.#versions.set(call.version, v);
    }
    v.calls++;
    const t = Date.parse(call.at);
    const day = Number.isNaN(t) ? call.at.slice(0, 10) : new Date(t).toISOString().slice(0, 10);
    v.days.set(day, (v.days.get(day) ?? 0) + 1);
    const c = v.callers.get(call.principal);
    if (!c) v.callers.set(call.principal, { calls: 1, last: t, lastSeen: call.at });
    else {
      c.calls++;
      // As versionImpact: the latest call wins, and of equal times the later one.
      if (t >= c.last || Number.isNaN(c.last)) [c.last, c.lastSeen] = [t, call.at];
    }
  }

  /**
   * The versions that have calls, in the order first seen.
   *
   * @returns The versions.
   */
  versions(): string[] {
    return [...this.#versions.keys()];
  }

  /**
   * How many calls one version has.
   *
   * @param version The version.
   * @returns The count (0 for a version without calls).
   */
  callsOf(version: string): number {
    return this.#versions.get(version)?.calls ?? 0;
  }

  /**
   * Calls per version per UTC day: by version (as first seen), then by day.
   *
   * @returns The counts.
   */
  days(): CallsOnDay[] {
    const out: CallsOnDay[] = [];
    for (const [version, v] of this.#versions) {
      for (const day of [...v.days.keys()].sort()) {
        out.push({ version, day, calls: v.days.get(day)! });
      }
    }
    return out;
  }

  /**
   * Who calls one version: as `versionImpact` tallies them (most calls first, then by id).
   *
   * @param version The version.
   * @returns The tally.
   */
  callers(version: string): CallerTally {
    const v = this.#versions.get(version);
    if (!v) return { calls: 0, callers: [] };
    const callers: CallerImpact[] = [...v.callers].map(([principal, c]) => ({
      principal,
      calls: c.calls,
      lastSeen: c.lastSeen,
    }));
    callers.sort((a, b) =>
      b.calls - a.calls || (a.principal < b.principal ? -1 : a.principal > b.principal ? 1 : 0)
    );
    return { calls: v.calls, callers };
  }
}
