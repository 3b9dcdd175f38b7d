/**
 * The registry: an immutable, versioned estate of tools. Publishing is where the rules bite — a
 * version is never rewritten, a breaking change needs a major bump, and a non-major bump must
 * still accept every stored call. Pure: storage and I/O are the caller's (see the disk estate).
 *
 * @module
 */
import { classifyOutputSchemaChange, classifySchemaChange } from "../compat/classify.ts";
import type { SchemaBump, SchemaChange } from "../compat/schema_change.ts";
import { bumpFor, compareVersions, satisfies, Version } from "../compat/semver.ts";
import { canonicalJson } from "../schema/_equal.ts";
import { frozenJsonCopy } from "../schema/_json_value.ts";
import { limitIssues, shortenIssue } from "../schema/issue_limit.ts";
import { checkSchema } from "../schema/check.ts";
import type { SchemaIssue } from "../schema/types.ts";
import { compileSchema } from "../schema/validate.ts";
import { RejectionTally } from "./_tally.ts";
import { type VersionImpact, versionImpact } from "./impact.ts";
import { dueRetirement, retireAfterProblem, scheduledRetirement } from "./retirement.ts";
import { hiddenToolMentions, type ToolMention, toolMentionMessage } from "./tool_mentions.ts";
import {
  canSee,
  classificationRank,
  parseToolSpec,
  type Principal,
  type ToolSpec,
} from "./spec.ts";

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

/** A change to the estate, for subscribers such as an MCP server's list_changed. */
export interface EstateEvent {
  /** What happened. */
  type: "published" | "deprecated" | "retired";
  /** The tool. */
  name: string;
  /** The version. */
  version: string;
}

/** Why a publish was refused. */
export type PublishRefusal =
  | "republish"
  | "not-newer"
  | "unsafe-schema"
  | "bump-too-small"
  | "corpus-rejected"
  | "names-hidden-tool";

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

/** A publish the registry refused; `message` says what and how to fix it. */
export class PublishError extends Error {
  /** Which rule refused it. */
  readonly refusal: PublishRefusal;
  /** For `bump-too-small`: the input schema's changes. For `corpus-rejected`: none. */
  readonly changes: SchemaChange[];
  /** For `bump-too-small`: the output schema's changes (paths inside `outputSchema`). */
  readonly outputChanges: SchemaChange[];
  /** For `corpus-rejected`: how many calls, the first few, and per rejecting node. */
  readonly rejected: Rejections;
  /** For `unsafe-schema`: the schema issues. */
  readonly issues: SchemaIssue[];

  /**
   * Makes the error for one refused publish.
   *
   * @param refusal Which rule refused the publish.
   * @param message What and how to fix it.
   * @param details Changes, rejected calls or schema issues behind the refusal.
   */
  constructor(
    refusal: PublishRefusal,
    message: string,
    details: {
      changes?: SchemaChange[];
      outputChanges?: SchemaChange[];
      rejected?: Rejections;
      issues?: SchemaIssue[];
    } = {},
  ) {
    super(message);
    this.name = "PublishError";
    this.refusal = refusal;
    this.changes = details.changes ?? [];
    this.outputChanges = details.outputChanges ?? [];
    this.rejected = details.rejected ?? { count: 0, first: [], byNode: [] };
    this.issues = details.issues ?? [];
  }
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

/** What a publish would find, without publishing: for `estate check` and the editor. */
export interface PublishPlan {
  /** The spec checked: a deep, frozen copy of the candidate (what a publish keeps). */
  spec: ToolSpec;
  /** The newest published version it is compared with (a copy of its record), if any. */
  baseline?: VersionRecord;
  /**
   * The bump the change requires against the baseline: the larger of the input schema's and the
   * output schema's (patch when there is no baseline).
   */
  bump: SchemaBump;
  /** The input schema's changes against the baseline (paths inside `inputSchema`). */
  changes: SchemaChange[];
  /** The output schema's bump against the baseline, by the mirror rule of `classifyOutputSchemaChange`. */
  outputBump: SchemaBump;
  /** The output schema's changes against the baseline (paths inside `outputSchema`). */
  outputChanges: SchemaChange[];
  /**
   * The lowest version the change allows (the baseline bumped as required), if there is a
   * baseline: also what a refused republish or a version not newer than the newest should use.
   */
  minimumVersion?: string;
  /** Whether this exact version is already published with the same content. */
  alreadyPublished: boolean;
  /** Every rule the publish would break, with its message; empty when it would succeed. */
  refusals: { refusal: PublishRefusal; message: string }[];
  /** Stored calls the new schema rejects (counted only for a non-major bump). */
  rejected: Rejections;
  /** The new schema's checkSchema issues. */
  schemaIssues: SchemaIssue[];
  /**
   * Tools the description names that some principal who sees this version may not see (see
   * `hiddenToolMentions`): each refuses the publish.
   */
  hiddenMentions: ToolMention[];
}

/** The outcome of a publish that was not refused. */
export interface PublishResult {
  /** `published`, or `already-published` for an identical republish (nothing is rewritten). */
  status: "published" | "already-published";
  /** The plan the publish followed. */
  plan: PublishPlan;
}

/** Options for {@linkcode ToolRegistry.plan}. */
export interface PlanOptions {
  /** Replays the stored calls of a major line through a schema (default: `replayCalls` over the registry's calls). */
  replay?: (
    schema: ToolSpec["inputSchema"],
    options: { major: number; sample: number },
  ) => Rejections;
}

/** Options for a {@linkcode ToolRegistry}. */
export interface RegistryOptions {
  /** The stored calls publish replays for a non-major bump. Default: none. */
  storedCalls?: CallSource;
  /**
   * The clock: for lifecycle timestamps, and for retirement on its date — a deprecated version
   * whose retire-after date has passed by this clock is retired. Default: `new Date()`.
   */
  now?: () => Date;
  /** How many rejected calls a refusal lists. Default 3. */
  rejectedSample?: number;
}

/** A name's active versions, newest first, with what visibility needs precomputed. */
interface IndexEntry {
  name: string;
  active: { spec: ToolSpec; rank: number; tenants: Set<string> | undefined }[];
}

interface Entry {
  records: VersionRecord[]; // ascending by version
}

function releaseBetween(from: string, to: string): SchemaBump {
  const a = Version.parse(from), b = Version.parse(to);
  if (b.major !== a.major) return "major";
  if (b.minor !== a.minor) return "minor";
  return "patch";
}

const RANK: Record<SchemaBump, number> = { patch: 0, minor: 1, major: 2 };

function sameContent(a: ToolSpec, b: ToolSpec): boolean {
  return canonicalJson(a) === canonicalJson(b);
}

/** An output schema change with its path written from the tool spec: `outputSchema.properties.status`. */
export function inOutputSchema(c: SchemaChange): SchemaChange {
  return { ...c, path: `outputSchema${c.path.slice(1)}` };
}

/** The specs this module copied and froze: checked already, and safe to keep as they are. */
const KEPT = new WeakSet<ToolSpec>();

/**
 * The registry's own copy of a candidate spec: checked with `parseToolSpec`, then copied deep and
 * frozen, so nothing the caller does to its object afterwards reaches a published version.
 */
function keep(candidate: unknown): ToolSpec {
  if (KEPT.has(candidate as ToolSpec)) return candidate as ToolSpec;
  const spec = frozenJsonCopy(parseToolSpec(candidate, describe(candidate)));
  KEPT.add(spec);
  return spec;
}

/** A copy of a record for a caller: the frozen spec itself, the lifecycle copied. */
function snapshot(r: VersionRecord): VersionRecord {
  return { spec: r.spec, state: r.state, history: r.history.map((h) => ({ ...h })) };
}

function describeChanges(changes: SchemaChange[], bump: SchemaBump): string {
  const biting = changes.filter((c) => c.bump === bump);
  const shown = biting.slice(0, 2).map((c) => c.message.split(":")[0] + ` at ${c.path}`);
  return shown.join("; ") + (biting.length > 2 ? `; and ${biting.length - 2} more` : "");
}

/**
 * An in-memory estate of tool versions. Every published version is immutable — the registry keeps
 * a deep, frozen copy of each spec and hands out only that — lifecycle moves one way (active →
 * deprecated → retired); discovery answers per principal.
 *
 * Retirement happens on its date: a deprecated version whose retire-after date has passed by the
 * registry's clock is retired before anything is read — it no longer resolves, its history ends
 * with a `retired` entry at the moment the date passed, and subscribers hear a `retired` event —
 * so whoever reads the registry at a given moment sees the same estate. `nextRetirement()` says
 * when the next one is due, for a timer; `retireDue()` applies what is due now.
 *
 * @example
 * ```ts
 * import { PublishError, ToolRegistry, type ToolSpec } from "@tool-estate/core";
 * import assert from "node:assert/strict";
 *
 * const v1: ToolSpec = {
 *   name: "payments.lookup", version: "1.0.0", title: "Look up a payment",
 *   description: "Returns a wholesale payment's status by reference. Reads the payments system of record.",
 *   inputSchema: { type: "object", properties: { reference: { type: "string" }, currency: { type: "string" } }, required: ["reference"] },
 *   sideEffect: "read", requiredScopes: ["payments:read"], dataClassification: "confidential", tenants: ["wholesale"], owner: "payments-platform",
 * };
 * const registry = new ToolRegistry();
 * registry.publish(v1);
 * const breaking = { ...v1, version: "1.1.0", inputSchema: { type: "object", properties: { reference: { type: "string" } }, required: ["reference"] } };
 * assert.throws(() => registry.publish(breaking), (e: unknown) => e instanceof PublishError && e.refusal === "bump-too-small");
 * registry.publish({ ...breaking, version: "2.0.0" });
 * assert.equal(registry.latest("payments.lookup")?.version, "2.0.0");
 * ```
 */
export class ToolRegistry {
  readonly #tools = new Map<string, Entry>();
  readonly #listeners = new Set<(event: EstateEvent) => void>();
  readonly #storedCalls: CallSource;
  readonly #now: () => Date;
  readonly #sample: number;
  /** Sorted names with their active versions newest first; rebuilt lazily after a change. */
  #discoveryIndex: IndexEntry[] | undefined;
  /** The earliest retirement scheduled and not yet applied (ms); undefined: to compute; null: none. */
  #due: number | null | undefined = null;

  /**
   * Makes an empty registry.
   *
   * @param options Stored calls for replay, the clock, the size of refusal samples.
   */
  constructor(options: RegistryOptions = {}) {
    this.#storedCalls = options.storedCalls ?? (() => []);
    this.#now = options.now ?? (() => new Date());
    this.#sample = options.rejectedSample ?? 3;
  }

  /**
   * Works out what publishing `spec` would do, without publishing.
   *
   * @param candidate The spec (validated with `parseToolSpec`).
   * @param options `replay`: answers the stored-call replay instead of streaming the calls
   *   through `replayCalls` — e.g. a {@linkcode CallIndex} for an editor that plans on every
   *   keystroke; it must give the same answer.
   * @returns The plan: baseline, required bump, and every refusal.
   * @throws {ToolSpecError} When the candidate is not a valid spec.
   */
  plan(candidate: ToolSpec | unknown, options: PlanOptions = {}): PublishPlan {
    const spec = keep(candidate);
    this.#settle();
    const records = this.#tools.get(spec.name)?.records ?? [];
    const id = `${spec.name}@${spec.version}`;
    const existing = records.find((r) => compareVersions(r.spec.version, spec.version) === 0);
    const baseline = records.length ? snapshot(records[records.length - 1]) : undefined;
    const refusals: PublishPlan["refusals"] = [];
    const plan: PublishPlan = {
      spec,
      baseline,
      bump: "patch",
      changes: [],
      outputBump: "patch",
      outputChanges: [],
      alreadyPublished: false,
      refusals,
      rejected: { count: 0, first: [], byNode: [] },
      schemaIssues: checkSchema(spec.inputSchema),
      hiddenMentions: [],
    };
    if (existing && sameContent(existing.spec, spec)) {
      plan.alreadyPublished = true;
      return plan;
    }
    if (baseline) {
      // Against the newest version, whatever this version's number: the classification decides
      // the bump, and the version a refusal suggests is one the next check accepts.
      const c = classifySchemaChange(baseline.spec.inputSchema, spec.inputSchema);
      const out = classifyOutputSchemaChange(baseline.spec.outputSchema, spec.outputSchema);
      plan.changes = c.changes;
      plan.outputBump = out.bump;
      plan.outputChanges = out.changes;
      plan.bump = RANK[out.bump] > RANK[c.bump] ? out.bump : c.bump;
      plan.minimumVersion = bumpFor(baseline.spec.version, plan.bump);
    }
    if (existing) {
      refusals.push({
        refusal: "republish",
        message:
          `Cannot publish ${id}: ${spec.version} is already published with different content, and published versions are immutable; publish ${plan.minimumVersion} (a ${plan.bump} change against ${
            baseline!.spec.version
          })`,
      });
    } else if (baseline && compareVersions(spec.version, baseline.spec.version) < 0) {
      refusals.push({
        refusal: "not-newer",
        message:
          `Cannot publish ${id}: it is not newer than the newest published version ${baseline.spec.version}; publish ${plan.minimumVersion} (a ${plan.bump} change against it)`,
      });
    }
    plan.hiddenMentions = hiddenToolMentions(spec, this);
    for (const m of plan.hiddenMentions) {
      refusals.push({
        refusal: "names-hidden-tool",
        message: `Cannot publish ${id}: its ${toolMentionMessage(m)}`,
      });
    }
    if (plan.schemaIssues.length) {
      const first = plan.schemaIssues.slice(0, 3).map(shortenIssue).map((i) =>
        `${i.path}: ${i.message}`
      ).join("; ");
      refusals.push({
        refusal: "unsafe-schema",
        message:
          `Cannot publish ${id}: the input schema asks for what the validator cannot enforce (${first}${
            plan.schemaIssues.length > 3 ? `; and ${plan.schemaIssues.length - 3} more` : ""
          }); fix the schema`,
      });
    }
    if (baseline && !existing) {
      const actual = releaseBetween(baseline.spec.version, spec.version);
      if (RANK[actual] < RANK[plan.bump]) {
        refusals.push({
          refusal: "bump-too-small",
          message: `Cannot publish ${id}: change is ${plan.bump} (${
            describeChanges(
              [...plan.changes, ...plan.outputChanges.map(inOutputSchema)],
              plan.bump,
            )
          }); publish ${plan.minimumVersion}, not ${spec.version}`,
        });
      }
      if (actual !== "major" && plan.schemaIssues.length === 0) {
        plan.rejected = options.replay
          ? options.replay(spec.inputSchema, {
            major: Version.parse(spec.version).major,
            sample: this.#sample,
          })
          : this.#replay(spec);
        if (plan.rejected.count > 0) {
          const first = plan.rejected.first.map((r) => {
            // A call's issues cut as every answer is: 92,000 of them make no message.
            const { issues, omitted } = limitIssues(r.issues);
            return `call ${r.index} (${r.call.principal}, ${r.call.at}): ${
              issues.map((i) => `${i.path} ${i.message}`).join(", ")
            }${omitted ? `, and ${omitted} more issue${omitted === 1 ? "" : "s"}` : ""}`;
          }).join("; ");
          refusals.push({
            refusal: "corpus-rejected",
            message:
              `Cannot publish ${id}: the new schema rejects ${plan.rejected.count} stored call${
                plan.rejected.count === 1 ? "" : "s"
              } that ${
                Version.parse(spec.version).major
              }.x callers made (first: ${first}); accept them, or publish ${
                bumpFor(baseline.spec.version, "major")
              }`,
          });
        }
      }
    }
    return plan;
  }

  /** Replays the stored calls of the new version's major line through its schema. */
  #replay(spec: ToolSpec): Rejections {
    return replayCalls(spec.inputSchema, this.#storedCalls(spec.name), {
      major: Version.parse(spec.version).major,
      sample: this.#sample,
    });
  }

  /**
   * Publishes a version, or refuses with a {@linkcode PublishError} whose message says what and how
   * to fix it. An identical republish is reported as `already-published` and changes nothing.
   *
   * The registry keeps a deep copy of the spec and freezes it: changing the caller's object
   * afterwards changes nothing, and every reader (`latest`, `resolve`, `discover`, `visible`,
   * `versions`, `plan`) hands out that one frozen value.
   *
   * @param candidate The spec.
   * @returns What happened, with the plan.
   * @throws {PublishError} For a republish with different content, a version not newer than the
   *   newest, a bump smaller than the change requires, a schema `checkSchema` rejects, stored
   *   calls the new schema rejects (non-major bumps), or a description that names a tool some
   *   principal who sees this one may not see (`hiddenToolMentions`). Platform metadata in a
   *   description (`lintDescription`) is a warning of `checkDraft`, never a refusal.
   * @throws {ToolSpecError} When the candidate is not a valid spec.
   */
  publish(candidate: ToolSpec | unknown): PublishResult {
    const plan = this.plan(candidate);
    if (plan.alreadyPublished) return { status: "already-published", plan };
    if (plan.refusals.length) {
      const first = plan.refusals[0];
      throw new PublishError(first.refusal, plan.refusals.map((r) => r.message).join("\n"), {
        changes: plan.changes,
        outputChanges: plan.outputChanges,
        rejected: plan.rejected,
        issues: plan.schemaIssues,
      });
    }
    this.#insert({
      spec: plan.spec,
      state: "active",
      history: [{ state: "active", at: this.#now().toISOString() }],
    });
    this.#emit({ type: "published", name: plan.spec.name, version: plan.spec.version });
    return { status: "published", plan };
  }

  /**
   * Adds a version as it was reviewed and stored (loading an estate from disk), with its
   * lifecycle history. Only immutability is checked: the rules applied when it was published.
   *
   * @param record The spec and its lifecycle history (oldest first); the spec is kept as a deep,
   *   frozen copy, as {@linkcode ToolRegistry.publish} keeps it.
   * @param options `emit: true` tells subscribers a new version was published (for changes another
   *   process made to the estate on disk); default false, for loading.
   * @returns True when the version was added, false when it was already present.
   * @throws {PublishError} When the same version is already present with different content.
   */
  restore(
    record: { spec: ToolSpec; history: LifecycleEntry[] },
    options: { emit?: boolean } = {},
  ): boolean {
    const spec = keep(record.spec);
    const existing = this.#find(spec.name, spec.version);
    if (existing) {
      if (sameContent(existing.spec, spec)) return false;
      throw new PublishError(
        "republish",
        `Cannot restore ${spec.name}@${spec.version}: present with different content`,
      );
    }
    const history = record.history.length
      ? record.history.map((h) => ({ ...h }))
      : [{ state: "active" as const, at: "" }];
    this.#insert({ spec, state: history[history.length - 1].state, history });
    if (options.emit) this.#emit({ type: "published", name: spec.name, version: spec.version });
    return true;
  }

  /**
   * Deprecates an active version: it is no longer `latest()` or listed, but a pin only it satisfies
   * still resolves to it.
   *
   * @param name The tool.
   * @param version The version.
   * @param options Why, and the retire-after date: a calendar date (`YYYY-MM-DD`) after today
   *   (UTC, by the registry's clock); once it has passed the version retires by itself.
   * @returns A copy of the version's record, after the change.
   * @throws {LifecycleError} When the version is unknown or not active, or `retireAfter` is not a
   *   calendar date in the future.
   */
  deprecate(
    name: string,
    version: string,
    options: { reason?: string; retireAfter?: string } = {},
  ): VersionRecord {
    const r = this.#require(name, version, "deprecate");
    if (r.state !== "active") {
      throw new LifecycleError(
        `Cannot deprecate ${name}@${version}: it is ${r.state}; only an active version can be deprecated`,
      );
    }
    const now = this.#now();
    if (options.retireAfter !== undefined) {
      const problem = retireAfterProblem(options.retireAfter, now);
      if (problem) throw new LifecycleError(`Cannot deprecate ${name}@${version}: ${problem}`);
    }
    const entry: LifecycleEntry = { state: "deprecated", at: now.toISOString() };
    if (options.reason !== undefined) entry.reason = options.reason;
    if (options.retireAfter !== undefined) entry.retireAfter = options.retireAfter;
    this.#transition(r, entry);
    return snapshot(r);
  }

  /**
   * Retires a version: it never resolves again.
   *
   * @param name The tool.
   * @param version The version.
   * @param options Why; and `rules`, to apply the retirement rules of
   *   {@linkcode ToolRegistry.planRetirement} with those exemptions (the CLI does).
   * @returns A copy of the version's record, after the change.
   * @throws {RetirementError} With `rules`, when a rule refuses it (the error carries the plan).
   * @throws {LifecycleError} When the version is unknown or already retired.
   */
  retire(name: string, version: string, options: RetireVersionOptions = {}): VersionRecord {
    if (options.rules) {
      const plan = this.planRetirement(name, version, { ...options.rules, reason: options.reason });
      if (plan.refusals.length) throw new RetirementError(plan);
    }
    const r = this.#require(name, version, "retire");
    if (r.state === "retired") {
      throw new LifecycleError(`Cannot retire ${name}@${version}: ${retiredAlready(r)}`);
    }
    const entry: LifecycleEntry = { state: "retired", at: this.#now().toISOString() };
    if (options.reason !== undefined) entry.reason = options.reason;
    this.#transition(r, entry);
    return snapshot(r);
  }

  /**
   * Works out what retiring a version would do under the retirement rules, without retiring it:
   * who calls it (from the stored calls), and which rules refuse it. The rules:
   *
   * - the version must be deprecated first, and its retire-after date (if it has one) passed —
   *   unless retired `early`, which needs a `reason`;
   * - retiring the only active version of a tool needs `force`;
   * - so does retiring a version called in the last `recentDays` days (default 30).
   *
   * @param name The tool.
   * @param version The version.
   * @param options The exemptions, and why.
   * @returns The plan: record, impact report, refusals.
   * @throws {LifecycleError} When the version is unknown or already retired.
   *
   * @example
   * ```ts
   * import { ToolRegistry, type ToolSpec } from "@tool-estate/core";
   * import assert from "node:assert/strict";
   * const spec: ToolSpec = {
   *   name: "fx.quote", version: "1.0.0", title: "FX quote",
   *   description: "Quotes a foreign exchange rate for a currency pair. Reads the pricing engine.",
   *   inputSchema: { type: "object", properties: { pair: { type: "string" } } },
   *   sideEffect: "read", requiredScopes: ["fx:read"], dataClassification: "internal", tenants: [], owner: "fx-desk",
   * };
   * const registry = new ToolRegistry({ now: () => new Date("2026-11-30T12:00:00Z") });
   * registry.publish(spec);
   * registry.publish({ ...spec, version: "2.0.0" });
   * registry.deprecate("fx.quote", "1.0.0", { retireAfter: "2027-03-31" });
   * const plan = registry.planRetirement("fx.quote", "1.0.0");
   * assert.deepEqual(plan.refusals.map((r) => r.refusal), ["date-not-reached"]);
   * assert.equal(plan.retiresAt, "2027-04-01T00:00:00.000Z");
   * const early = registry.planRetirement("fx.quote", "1.0.0", { early: true, reason: "pricing bug" });
   * assert.deepEqual(early.refusals, []);
   * ```
   */
  planRetirement(name: string, version: string, options: RetirementOptions = {}): RetirementPlan {
    this.#settle();
    const r = this.#require(name, version, "retire");
    const id = `${name}@${version}`;
    if (r.state === "retired") {
      throw new LifecycleError(`Cannot retire ${id}: ${retiredAlready(r)}`);
    }
    const now = this.#now();
    const recentDays = options.recentDays ?? 30;
    if (!Number.isInteger(recentDays) || recentDays < 0) {
      throw new RangeError(`recentDays must be a whole number of days, got ${recentDays}`);
    }
    const since = new Date(now.getTime() - recentDays * 86_400_000).toISOString();
    const impact = versionImpact(this.#storedCalls(name), version, { since });
    const records = this.#tools.get(name)!.records;
    const onlyActive = r.state === "active" &&
      records.every((o) => o === r || o.state !== "active");
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
      record: snapshot(r),
      onlyActive,
      impact,
      recentDays,
      refusals,
    };
    if (retiresAt !== undefined) plan.retiresAt = retiresAt;
    return plan;
  }

  /**
   * When the next retirement on a retire-after date is due (the registry applies it by itself
   * when anything is read at or after that moment; a server sets a timer for it).
   *
   * @returns The moment (ISO 8601), or undefined when none is scheduled.
   */
  nextRetirement(): string | undefined {
    this.#settle();
    return this.#due === null || this.#due === undefined
      ? undefined
      : new Date(this.#due).toISOString();
  }

  /**
   * Retires, now, every deprecated version whose retire-after date has passed by the registry's
   * clock (reads do this by themselves; a timer calls it to tell subscribers on time). Each gets a
   * `retired` entry at the moment its date passed, and subscribers hear a `retired` event.
   *
   * @returns Copies of the records retired now, if any.
   */
  retireDue(): VersionRecord[] {
    return this.#settle().map(snapshot);
  }

  /**
   * The newest active version of a tool.
   *
   * @param name The tool.
   * @returns Its spec, or undefined when no version is active.
   */
  latest(name: string): ToolSpec | undefined {
    this.#settle();
    const records = this.#tools.get(name)?.records ?? [];
    for (let i = records.length - 1; i >= 0; i--) {
      if (records[i].state === "active") return records[i].spec;
    }
    return undefined;
  }

  /**
   * Resolves a version constraint (`^1.2.0`, `~1.2.0`, `1.2.3`, `*`, ranges): the newest active
   * match, else the newest deprecated one; retired versions never resolve.
   *
   * @param name The tool.
   * @param constraint An npm-style constraint.
   * @returns The spec, or undefined.
   * @throws {TypeError} When the constraint is not valid.
   */
  resolve(name: string, constraint: string): ToolSpec | undefined {
    this.#settle();
    const records = this.#tools.get(name)?.records ?? [];
    let deprecated: ToolSpec | undefined;
    for (let i = records.length - 1; i >= 0; i--) {
      const r = records[i];
      if (r.state === "retired" || !satisfies(r.spec.version, constraint)) continue;
      if (r.state === "active") return r.spec;
      deprecated ??= r.spec;
    }
    return deprecated;
  }

  /**
   * Every published version of a tool, oldest first, with its lifecycle.
   *
   * @param name The tool.
   * @returns Copies of the records (each with the one frozen spec).
   */
  versions(name: string): VersionRecord[] {
    this.#settle();
    return (this.#tools.get(name)?.records ?? []).map(snapshot);
  }

  /**
   * Every tool name, sorted.
   *
   * @returns The names.
   */
  names(): string[] {
    return [...this.#tools.keys()].sort();
  }

  /**
   * What a principal may see: for each tool name in sorted order, the newest active version whose
   * scopes, tenants and classification admit the principal. A tool the principal may not see is
   * simply absent. Cost grows with the estate, not with the number of principals.
   *
   * @param principal The caller.
   * @returns The visible specs.
   */
  discover(principal: Principal): ToolSpec[] {
    this.#settle();
    const out: ToolSpec[] = [];
    const clearance = classificationRank(principal.clearance);
    const scopes = new Set(principal.scopes);
    for (const { active } of this.#index()) {
      for (const v of active) {
        // The same rule as canSee(), with the principal's side computed once per call.
        if (v.rank > clearance) continue;
        if (v.tenants !== undefined && !v.tenants.has(principal.tenant)) continue;
        if (!v.spec.requiredScopes.every((s) => scopes.has(s))) continue;
        out.push(v.spec);
        break;
      }
    }
    return out;
  }

  /**
   * The version of one tool a principal may call unpinned: the newest active version whose scopes,
   * tenants and classification admit the principal — what `discover` lists for that name.
   *
   * @param name The tool.
   * @param principal The caller.
   * @returns The spec, or undefined when the principal may see no active version of it.
   */
  visible(name: string, principal: Principal): ToolSpec | undefined {
    this.#settle();
    const records = this.#tools.get(name)?.records ?? [];
    for (let i = records.length - 1; i >= 0; i--) {
      if (records[i].state === "active" && canSee(records[i].spec, principal)) {
        return records[i].spec;
      }
    }
    return undefined;
  }

  /**
   * Subscribes to changes (publish, deprecation, retirement).
   *
   * @param listener Called synchronously after each change.
   * @returns A function that unsubscribes.
   */
  subscribe(listener: (event: EstateEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #index(): IndexEntry[] {
    if (!this.#discoveryIndex) {
      this.#discoveryIndex = this.names().map((name) => ({
        name,
        active: this.#tools.get(name)!.records.filter((r) => r.state === "active").reverse().map((
          r,
        ) => ({
          spec: r.spec,
          rank: classificationRank(r.spec.dataClassification),
          tenants: r.spec.tenants.length ? new Set(r.spec.tenants) : undefined,
        })),
      })).filter((e) => e.active.length > 0);
    }
    return this.#discoveryIndex;
  }

  #find(name: string, version: string): VersionRecord | undefined {
    return this.#tools.get(name)?.records.find((r) => r.spec.version === version);
  }

  #require(name: string, version: string, verb: string): VersionRecord {
    this.#settle();
    const r = this.#find(name, version);
    if (!r) {
      throw new LifecycleError(`Cannot ${verb} ${name}@${version}: no such published version`);
    }
    return r;
  }

  #insert(record: VersionRecord): void {
    let entry = this.#tools.get(record.spec.name);
    if (!entry) {
      entry = { records: [] };
      this.#tools.set(record.spec.name, entry);
    }
    entry.records.push(record);
    entry.records.sort((a, b) => compareVersions(a.spec.version, b.spec.version));
    this.#discoveryIndex = undefined;
    if (scheduledRetirement(record.history) !== undefined) this.#due = undefined;
  }

  #transition(r: VersionRecord, entry: LifecycleEntry): void {
    r.history.push(entry);
    r.state = entry.state;
    this.#discoveryIndex = undefined;
    this.#due = undefined;
    this.#emit({
      type: entry.state === "retired" ? "retired" : "deprecated",
      name: r.spec.name,
      version: r.spec.version,
    });
  }

  /**
   * Applies the retirements whose date has passed (before any read), then tells subscribers.
   * Cheap when none is scheduled: the clock is not even read.
   */
  #settle(): VersionRecord[] {
    if (this.#due === undefined) this.#due = this.#computeDue();
    if (this.#due === null) return [];
    const now = this.#now();
    if (now.getTime() < this.#due) return [];
    const retired: VersionRecord[] = [];
    for (const { records } of this.#tools.values()) {
      for (const r of records) {
        const entry = dueRetirement(r.history, now);
        if (!entry) continue;
        r.history.push(entry);
        r.state = "retired";
        retired.push(r);
      }
    }
    this.#discoveryIndex = undefined;
    this.#due = this.#computeDue();
    // Told after every due retirement is applied: a subscriber who reads sees them all.
    for (const r of retired) {
      this.#emit({ type: "retired", name: r.spec.name, version: r.spec.version });
    }
    return retired;
  }

  #computeDue(): number | null {
    let due = Infinity;
    for (const { records } of this.#tools.values()) {
      for (const r of records) {
        const at = scheduledRetirement(r.history);
        if (at !== undefined) due = Math.min(due, Date.parse(at));
      }
    }
    return due === Infinity ? null : due;
  }

  #emit(event: EstateEvent): void {
    for (const l of [...this.#listeners]) l(event);
  }
}

/** "it is already retired", with when and why for a retirement on its date. */
function retiredAlready(r: VersionRecord): string {
  const last = r.history[r.history.length - 1];
  return last.reason?.startsWith("retire-after date ")
    ? `it is already retired (its ${last.reason} at ${last.at})`
    : "it is already retired";
}

function describe(candidate: unknown): string {
  if (typeof candidate === "object" && candidate !== null) {
    const c = candidate as Record<string, unknown>;
    if (typeof c.name === "string") {
      return `${c.name}@${typeof c.version === "string" ? c.version : "?"}`;
    }
  }
  return "tool spec";
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
  options: { major?: number; sample?: number; onProgress?: (replayed: number) => void } = {},
): Rejections {
  const tally = new RejectionTally(options.sample ?? 3);
  const validate = compileSchema(schema);
  // A call's major line from its version text, parsed once per distinct version, not per call.
  const majors = new Map<string, number | undefined>();
  const majorOf = (version: string): number | undefined => {
    if (majors.has(version)) return majors.get(version);
    let major: number | undefined;
    try {
      major = Version.parse(version).major;
    } catch {
      major = undefined;
    }
    majors.set(version, major);
    return major;
  };
  let index = 0;
  for (const call of calls) {
    index++;
    if (options.onProgress && index % 10_000 === 0) options.onProgress(index);
    if (options.major !== undefined && majorOf(call.version) !== options.major) continue;
    const issues = validate(call.arguments);
    if (issues.length) tally.add(call, index, issues);
  }
  return tally.result();
}
