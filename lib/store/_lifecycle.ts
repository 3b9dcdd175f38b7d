/**
 * `lifecycle.json`: for each version of a tool, its transitions oldest first —
 * `{ "1.0.0": [{ "state": "active", "at": "…" }, { "state": "deprecated", "at": "…", "reason": "…" }] }`.
 * A history starts with `active` and only moves forward (active → deprecated → retired).
 */
import { isObject } from "../_object.ts";
import { compareVersions, Version } from "../compat/semver.ts";
import type { LifecycleEntry, LifecycleState } from "../estate/lifecycle.ts";
import { dueRetirement, isCalendarDate, utcDate } from "../estate/retirement.ts";
import { CorpusError } from "./corpus_error.ts";
import { lineOf, parseJsonFile } from "./_json.ts";

/** Histories by version, as `lifecycle.json` holds them. */
export type Lifecycle = Record<string, LifecycleEntry[]>;

const ORDER: Record<LifecycleState, number> = {
  active: 0,
  deprecated: 1,
  retired: 2,
};
const ENTRY_FIELDS = new Set(["state", "at", "reason", "retireAfter"]);

/**
 * Parses and checks the text of a `lifecycle.json`.
 *
 * @param text The file's text.
 * @param file Its path, for errors.
 * @returns The histories by version.
 * @throws {CorpusError} Naming the file, and the line of the version concerned, for invalid JSON,
 *   a key that is not a version, a malformed entry (a `retireAfter` must be a calendar date after
 *   the day of its entry), or a history that does not start `active` or moves backwards.
 */
export function parseLifecycle(text: string, file: string): Lifecycle {
  const value = parseJsonFile(text, file);
  if (!isObject(value)) {
    throw new CorpusError(
      file,
      'must be a JSON object: { "<version>": [lifecycle entries] }',
      {
        line: 1,
      },
    );
  }
  const out: Lifecycle = {};
  for (
    const [version, history] of Object.entries(value as Record<string, unknown>)
  ) {
    const fail = (problem: string): never => {
      throw new CorpusError(file, `${version}: ${problem}`, {
        line: lineOf(text, JSON.stringify(version)),
      });
    };
    try {
      Version.parse(version);
    } catch (e) {
      fail(`the key is not a version: ${(e as Error).message}`);
    }
    if (!Array.isArray(history) || history.length === 0) {
      fail("must be a non-empty list of lifecycle entries");
    }
    const entries: LifecycleEntry[] = [];
    (history as unknown[]).forEach((raw, i) => {
      const where = `entry ${i + 1}`;
      if (!isObject(raw)) {
        fail(`${where} must be an object`);
      }
      const e = raw as Record<string, unknown>;
      for (const k of Object.keys(e)) {
        if (!ENTRY_FIELDS.has(k)) fail(`${where}: unknown field ${k}`);
      }
      if (typeof e.state !== "string" || !Object.hasOwn(ORDER, e.state)) {
        fail(
          `${where}: state must be active, deprecated or retired, got ${JSON.stringify(e.state)}`,
        );
      }
      if (typeof e.at !== "string" || Number.isNaN(Date.parse(e.at))) {
        fail(
          `${where}: at must be an ISO 8601 timestamp, got ${JSON.stringify(e.at)}`,
        );
      }
      for (const k of ["reason", "retireAfter"]) {
        if (e[k] !== undefined && typeof e[k] !== "string") {
          fail(`${where}: ${k} must be a string`);
        }
      }
      if (typeof e.retireAfter === "string") {
        if (!isCalendarDate(e.retireAfter)) {
          fail(
            `${where}: retireAfter must be a calendar date like 2027-03-31, got ${
              JSON.stringify(e.retireAfter)
            }`,
          );
        }
        const day = utcDate(new Date(e.at as string));
        if (e.retireAfter <= day) {
          fail(
            `${where}: retireAfter ${e.retireAfter} must be after the day it was set (${day})`,
          );
        }
      }
      const state = e.state as LifecycleState;
      if (i === 0 && state !== "active") {
        fail(`${where}: a history starts with "active" (the publish)`);
      }
      if (i > 0 && ORDER[state] <= ORDER[entries[i - 1].state]) {
        fail(`${where}: cannot go from ${entries[i - 1].state} to ${state}`);
      }
      const entry: LifecycleEntry = { state, at: e.at as string };
      if (e.reason !== undefined) entry.reason = e.reason as string;
      if (e.retireAfter !== undefined) {
        entry.retireAfter = e.retireAfter as string;
      }
      entries.push(entry);
    });
    out[version] = entries;
  }
  return out;
}

/**
 * The text of a `lifecycle.json`: versions in ascending order, two-space indent, final newline,
 * so that a review diff shows only what changed.
 *
 * @param lifecycle The histories by version.
 * @returns The file's text.
 */
export function formatLifecycle(lifecycle: Lifecycle): string {
  const sorted: Lifecycle = {};
  for (const v of Object.keys(lifecycle).sort(compareVersions)) {
    sorted[v] = lifecycle[v];
  }
  return JSON.stringify(sorted, null, 2) + "\n";
}

/**
 * A lifecycle with every retirement due at `now` recorded (see `dueRetirement`): the entries a
 * writer adds for versions whose retire-after date has passed.
 *
 * @param lifecycle The histories by version.
 * @param now The time.
 * @returns The histories, and whether any gained an entry.
 */
export function settleLifecycle(
  lifecycle: Lifecycle,
  now: Date,
): { lifecycle: Lifecycle; changed: boolean } {
  const out: Lifecycle = {};
  let changed = false;
  for (const [version, history] of Object.entries(lifecycle)) {
    const due = dueRetirement(history, now);
    out[version] = due ? [...history, due] : history;
    if (due) changed = true;
  }
  return { lifecycle: out, changed };
}
