/**
 * The retirement rules: what retiring a version by hand would do, and which rules refuse it. A
 * version must be deprecated first and its retire-after date passed (unless retired early, with a
 * reason); retiring the only active version of a tool, or one called recently, needs `force`.
 * Pure: the registry gives the version, its tool's versions, the stored calls and the time.
 *
 * @module
 */
import { type VersionImpact, versionImpact } from "./impact.ts";
import { copyRecord, LifecycleError, type VersionRecord } from "./lifecycle.ts";
import type { StoredCall } from "./replay.ts";
import { scheduledRetirement } from "./retirement.ts";

/** Why a retirement was refused by the retirement rules (see {@linkcode ToolRegistry.planRetirement}). */
export type RetirementRefusal =
  | "not-deprecated"
  | "date-not-reached"
  | "no-reason"
  | "only-active"
  | "recent-calls";

/**
 * Exemptions from the retirement rules. Without them, retiring needs the version deprecated, its
 * retire-after date passed (when it has one), another active version of the tool, and no calls in
 * the last `recentDays` days.
 */
export interface RetirementRules {
  /** Retire now: before the retire-after date, or without deprecating first. Needs a reason. */
  early?: boolean;
  /** Retire the only active version of a tool, or one called in the last `recentDays` days. */
  force?: boolean;
  /** How many days back a call counts as recent. Default 30. */
  recentDays?: number;
}

/** Options for {@linkcode ToolRegistry.planRetirement}: the rules' exemptions and why. */
export interface RetirementOptions extends RetirementRules {
  /** Why (required for an early retirement; the lifecycle record keeps it). */
  reason?: string;
}

/** What retiring a version would do, and which rules refuse it. */
export interface RetirementPlan {
  /** The version's record now (a copy). */
  record: VersionRecord;
  /** When it retires by itself (its retire-after date passed), if scheduled. */
  retiresAt?: string;
  /** Whether it is the only active version of its tool (unpinned callers would get nothing). */
  onlyActive: boolean;
  /** Who calls it; `recent` covers the last `recentDays` days. */
  impact: VersionImpact;
  /** How many days `impact.recent` covers. */
  recentDays: number;
  /** Every rule that refuses the retirement, with its message; empty when it may go ahead. */
  refusals: { refusal: RetirementRefusal; message: string }[];
}

/** A retirement the retirement rules refused; `plan` says who calls the version. */
export class RetirementError extends LifecycleError {
  /** The plan, with its refusals and the impact report. */
  readonly plan: RetirementPlan;

  /**
   * Makes the error for a refused retirement.
   *
   * @param plan The plan whose refusals refuse it.
   */
  constructor(plan: RetirementPlan) {
    super(plan.refusals.map((r) => r.message).join("\n"));
    this.name = "RetirementError";
    this.plan = plan;
  }
}

/** Options for {@linkcode ToolRegistry.retire}. */
export interface RetireVersionOptions {
  /** Why. */
  reason?: string;
  /**
   * Apply the retirement rules ({@linkcode ToolRegistry.planRetirement}) with these exemptions;
   * without `rules`, only an already retired version is refused (as before the rules existed).
   */
  rules?: RetirementRules;
}

/** What the retirement rules are applied to. */
export interface RetirementSubject {
  /** The version to retire (not retired yet). */
  record: VersionRecord;
  /** Every published version of its tool, the version itself among them. */
  versions: readonly VersionRecord[];
  /** The tool's stored calls (read once the options are found valid). */
  calls: () => Iterable<StoredCall>;
  /** The time of the retirement. */
  now: Date;
}

/**
 * Applies the retirement rules to a version that is not retired yet.
 *
 * @param subject The version, its tool's versions, the tool's stored calls, and the time.
 * @param options The exemptions, and why.
 * @returns The plan: record, impact report, refusals.
 * @throws {RangeError} When `recentDays` is not a whole number of days.
 */
export function retirementPlan(
  subject: RetirementSubject,
  options: RetirementOptions = {},
): RetirementPlan {
  const { record: r, versions, now } = subject;
  const { name, version } = r.spec;
  const id = `${name}@${version}`;
  const recentDays = options.recentDays ?? 30;
  if (!Number.isInteger(recentDays) || recentDays < 0) {
    throw new RangeError(
      `recentDays must be a whole number of days, got ${recentDays}`,
    );
  }
  const since = new Date(now.getTime() - recentDays * 86_400_000).toISOString();
  const impact = versionImpact(subject.calls(), version, { since });
  const onlyActive = r.state === "active" &&
    versions.every((o) => o === r || o.state !== "active");
  const retiresAt = scheduledRetirement(r.history);
  const refusals: RetirementPlan["refusals"] = [];
  const early = options.early === true;
  if (early && !options.reason?.trim()) {
    refusals.push({
      refusal: "no-reason",
      message: `Cannot retire ${id} early without a reason: the lifecycle record keeps it`,
    });
  }
  if (r.state === "active" && !early) {
    refusals.push({
      refusal: "not-deprecated",
      message:
        `Cannot retire ${id}: it is active; deprecate it first with a retire-after date, or retire it early with a reason`,
    });
  } else if (retiresAt !== undefined && !early) {
    const date = r.history[r.history.length - 1].retireAfter;
    refusals.push({
      refusal: "date-not-reached",
      message:
        `Cannot retire ${id} before its retire-after date ${date}: it retires by itself at ${retiresAt}; or retire it early with a reason`,
    });
  }
  if (onlyActive && !options.force) {
    refusals.push({
      refusal: "only-active",
      message:
        `Cannot retire ${id}: it is the only active version of ${name}, so unpinned callers would get nothing; force it if that is intended`,
    });
  }
  if (impact.recent.calls > 0 && !options.force) {
    const who = impact.recent.callers.slice(0, 3).map((c) => `${c.principal} ${c.calls}`)
      .join(", ");
    const more = impact.recent.callers.length > 3
      ? ` and ${impact.recent.callers.length - 3} more`
      : "";
    refusals.push({
      refusal: "recent-calls",
      message: `Cannot retire ${id}: it was called ${impact.recent.calls} time${
        impact.recent.calls === 1 ? "" : "s"
      } in the last ${recentDays} days (${who}${more}), and those callers would break; force it if that is intended`,
    });
  }
  const plan: RetirementPlan = {
    record: copyRecord(r),
    onlyActive,
    impact,
    recentDays,
    refusals,
  };
  if (retiresAt !== undefined) plan.retiresAt = retiresAt;
  return plan;
}
