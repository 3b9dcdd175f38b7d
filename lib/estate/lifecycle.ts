/**
 * A version's life: active → deprecated → retired, one way. The states, the record the registry
 * keeps per version (the frozen spec and every transition), and the error for a lifecycle change
 * the registry refuses. The rules for retiring on a date are in `retirement.ts`; the rules for
 * retiring by hand in `retirement_plan.ts`.
 *
 * @module
 */
import type { ToolSpec } from "./spec.ts";

/** Where a version is in its life: active → deprecated → retired. */
export type LifecycleState = "active" | "deprecated" | "retired";

/** One transition in a version's life. */
export interface LifecycleEntry {
  /** The state entered. */
  state: LifecycleState;
  /** When, as an ISO 8601 timestamp. */
  at: string;
  /** Why (for deprecations and retirements). */
  reason?: string;
  /**
   * For a deprecation: the calendar date (`YYYY-MM-DD`) after which the version retires — at
   * 00:00 UTC the next day it stops resolving, and its history gains a `retired` entry at that
   * moment (see `dueRetirement`).
   */
  retireAfter?: string;
}

/** A published version with its lifecycle. */
export interface VersionRecord {
  /** The spec as published: the registry's own deep, frozen copy (never changed). */
  spec: ToolSpec;
  /** The current state: the last entry of `history`. */
  state: LifecycleState;
  /** Every transition, oldest first; the first is the publish. */
  history: LifecycleEntry[];
}

/** Options for {@linkcode ToolRegistry.deprecate}. */
export interface DeprecateVersionOptions {
  /** Why. */
  reason?: string;
  /**
   * The calendar date (`YYYY-MM-DD`, after today in UTC by the registry's clock) after which the
   * version retires: at 00:00 UTC the next day it stops resolving.
   */
  retireAfter?: string;
}

/** A lifecycle change the registry refused (unknown version, wrong state). */
export class LifecycleError extends Error {
  /**
   * Makes the error for a refused lifecycle change.
   *
   * @param message What was refused and why.
   */
  constructor(message: string) {
    super(message);
    this.name = "LifecycleError";
  }
}

/** A copy of a record for a caller: the frozen spec itself, the lifecycle copied. */
export function copyRecord(r: VersionRecord): VersionRecord {
  return {
    spec: r.spec,
    state: r.state,
    history: r.history.map((h) => ({ ...h })),
  };
}

/** "it is already retired", with when and why for a retirement on its date. */
export function retiredAlready(r: VersionRecord): string {
  const last = r.history[r.history.length - 1];
  return last.reason?.startsWith("retire-after date ")
    ? `it is already retired (its ${last.reason} at ${last.at})`
    : "it is already retired";
}
