/**
 * Retirement on its date: a deprecation may name a retire-after date (`2027-03-31`); once that
 * day is over (00:00 UTC the next day) the version is retired — it stops resolving — whether or
 * not anyone retires it by hand. The rules here are pure functions of a version's history and a
 * clock, so the registry, the estate on disk, the server, the CLI and the editor, given the same
 * clock, agree to the millisecond.
 *
 * @module
 */
import type { LifecycleEntry } from "./lifecycle.ts";

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DAY_MS = 86_400_000;

/**
 * Whether a text is a calendar date written `YYYY-MM-DD` (so `2027-02-30` is not).
 *
 * @param text The text.
 * @returns True for a real date.
 *
 * @example
 * ```ts
 * import { isCalendarDate } from "@tool-estate/core";
 * import assert from "node:assert/strict";
 * assert.equal(isCalendarDate("2028-02-29"), true);
 * assert.equal(isCalendarDate("2027-02-29"), false);
 * assert.equal(isCalendarDate("2027-3-31"), false);
 * ```
 */
export function isCalendarDate(text: string): boolean {
  const m = typeof text === "string" ? DATE.exec(text) : null;
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const t = new Date(Date.UTC(y, mo - 1, d));
  return t.getUTCFullYear() === y && t.getUTCMonth() === mo - 1 &&
    t.getUTCDate() === d;
}

/**
 * The moment a retire-after date has passed: 00:00 UTC on the next day.
 *
 * @param retireAfter A calendar date, `YYYY-MM-DD`.
 * @returns The moment, as an ISO 8601 timestamp.
 * @throws {RangeError} When `retireAfter` is not a calendar date.
 *
 * @example
 * ```ts
 * import { retirementInstant } from "@tool-estate/core";
 * import assert from "node:assert/strict";
 * assert.equal(retirementInstant("2027-03-31"), "2027-04-01T00:00:00.000Z");
 * ```
 */
export function retirementInstant(retireAfter: string): string {
  if (!isCalendarDate(retireAfter)) {
    throw new RangeError(
      `retire-after must be a calendar date like 2027-03-31, got ${JSON.stringify(retireAfter)}`,
    );
  }
  return new Date(Date.parse(`${retireAfter}T00:00:00.000Z`) + DAY_MS)
    .toISOString();
}

/**
 * The UTC calendar date of a moment, `YYYY-MM-DD`.
 *
 * @param at The moment.
 * @returns Its date.
 */
export function utcDate(at: Date): string {
  return at.toISOString().slice(0, 10);
}

/**
 * When a version whose history this is retires by itself: the moment its retire-after date has
 * passed, when its last entry is a deprecation with such a date.
 *
 * @param history The version's lifecycle, oldest first.
 * @returns The moment (ISO 8601), or undefined when none is scheduled.
 */
export function scheduledRetirement(
  history: readonly LifecycleEntry[],
): string | undefined {
  const last = history[history.length - 1];
  if (last?.state !== "deprecated" || last.retireAfter === undefined) {
    return undefined;
  }
  return isCalendarDate(last.retireAfter) ? retirementInstant(last.retireAfter) : undefined;
}

/**
 * The retirement a history is due at `now`: the entry that records it — retired at the moment the
 * date passed (not when someone noticed), so whoever writes it down writes the same entry.
 *
 * @param history The version's lifecycle, oldest first.
 * @param now The time.
 * @returns The `retired` entry, or undefined when none is due.
 *
 * @example
 * ```ts
 * import { dueRetirement } from "@tool-estate/core";
 * import assert from "node:assert/strict";
 * const history = [
 *   { state: "active" as const, at: "2026-01-15T09:00:00.000Z" },
 *   { state: "deprecated" as const, at: "2026-09-01T09:00:00.000Z", retireAfter: "2027-03-31" },
 * ];
 * assert.equal(dueRetirement(history, new Date("2027-03-31T23:59:59.999Z")), undefined);
 * assert.deepEqual(dueRetirement(history, new Date("2027-04-01T00:00:00.000Z")), {
 *   state: "retired",
 *   at: "2027-04-01T00:00:00.000Z",
 *   reason: "retire-after date 2027-03-31 passed",
 * });
 * ```
 */
export function dueRetirement(
  history: readonly LifecycleEntry[],
  now: Date,
): LifecycleEntry | undefined {
  const at = scheduledRetirement(history);
  if (at === undefined || now.getTime() < Date.parse(at)) return undefined;
  const retireAfter = history[history.length - 1].retireAfter!;
  return {
    state: "retired",
    at,
    reason: `retire-after date ${retireAfter} passed`,
  };
}

/**
 * What is wrong with a retire-after date given on a deprecation at `now`: it must be a calendar
 * date after today (UTC).
 *
 * @param retireAfter The date.
 * @param now The time of the deprecation.
 * @returns The problem, or undefined when the date is fine.
 */
export function retireAfterProblem(
  retireAfter: string,
  now: Date,
): string | undefined {
  if (!isCalendarDate(retireAfter)) {
    return `retire-after must be a calendar date like 2027-03-31, got ${
      JSON.stringify(retireAfter)
    }`;
  }
  const today = utcDate(now);
  if (retireAfter <= today) {
    return `retire-after date ${retireAfter} is not in the future (today is ${today}, UTC)`;
  }
  return undefined;
}
