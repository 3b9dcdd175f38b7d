/**
 * The publish rules, as a pure plan: what publishing a candidate would do against the versions of
 * its tool already published — the bump its schema changes require, the refusals with their
 * messages (a version is never rewritten, a breaking change needs a major bump, a non-major bump
 * must still accept every stored call, the schema must be enforceable, the description must not
 * name a tool some of its principals may not see, a server it names must be registered and list it,
 * and no text a model reads may carry characters a reviewer cannot see) — and
 * {@linkcode publishError}, the one error a
 * refused plan becomes, for the registry and the estate on disk alike.
 *
 * @module
 */
import { classifyForMode, type EarlierSchema } from "../compat/classify_for_mode.ts";
import {
  combineCompatibility,
  type CompatibilityMode,
  compatibilityRule,
  DEFAULT_COMPATIBILITY,
} from "../compat/compatibility_mode.ts";
import type { SchemaBump, SchemaChange } from "../compat/schema_change.ts";
import { bumpFor, compareVersions, Version } from "../compat/semver.ts";
import { canonicalJson } from "../schema/json_equal.ts";
import { limitIssues, shortenIssue } from "../schema/issue_limit.ts";
import { checkSchema } from "../schema/check.ts";
import type { SchemaIssue } from "../schema/types.ts";
import { copyRecord, type VersionRecord } from "./lifecycle.ts";
import { noRejections, type Rejections, type StoredCall } from "./replay.ts";
import { type BreakingCall, breakingCall } from "./breaking_call.ts";
import type { ToolSpec } from "./spec.ts";
import { type ToolMention, toolMentionMessage } from "./tool_mentions.ts";
import { specPoisoning, type SpecPoisoningSignal } from "./poisoning.ts";
import type { ServerLookup } from "./servers.ts";
import type { PublishTrace } from "./publish_trace.ts";

/** Why a publish was refused. */
export type PublishRefusal =
  | "republish"
  | "not-newer"
  | "unsafe-schema"
  | "bump-too-small"
  | "corpus-rejected"
  | "names-hidden-tool"
  | "unknown-server"
  | "server-does-not-list"
  | "hidden-characters";

/** What a publish would find, without publishing: for `estate check` and the editor. */
export interface PublishPlan {
  /** The spec checked: a deep, frozen copy of the candidate (what a publish keeps). */
  spec: ToolSpec;
  /** The newest published version it is compared with (a copy of its record), if any. */
  baseline?: VersionRecord;
  /**
   * The compatibility mode the change is held to: the candidate's (its `compatibility`, else the
   * estate's default), combined with the baseline's when they differ (see
   * `combineCompatibility`): a change of mode is held to both.
   */
  compatibility: CompatibilityMode;
  /**
   * The bump the change requires against the baseline under that mode: the larger of the input
   * schema's and the output schema's (patch when there is no baseline); for a `-transitive` mode,
   * major when the change is breaking against any version of the baseline's major line that is
   * not retired.
   */
  bump: SchemaBump;
  /** For a `-transitive` mode: the earlier versions of the line the change is breaking against. */
  breaksAgainst: string[];
  /**
   * The input schema's changes against the baseline (paths inside `inputSchema`), under the mode;
   * for a transitive mode, then the major ones against earlier versions (`(against 1.0.0)`).
   */
  changes: SchemaChange[];
  /** The output schema's bump against the baseline, by the mirror rule of `classifyOutputSchemaChange`, under the mode. */
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
  /**
   * What looks like tool poisoning in the texts a model reads (see `specPoisoning`): hidden
   * characters refuse the publish; the rest are `checkDraft` warnings.
   */
  poisoning: SpecPoisoningSignal[];
  /**
   * For a major change: a call the baseline took that the candidate refuses (a stored one first),
   * or the output or forward mirror — checked by the validator; absent when none was found.
   */
  breakingCall?: BreakingCall;
}

/** The outcome of a publish that was not refused. */
export interface PublishResult {
  /** `published`, or `already-published` for an identical republish (nothing is rewritten). */
  status: "published" | "already-published";
  /** The plan the publish followed. */
  plan: PublishPlan;
}

/** Which stored calls a plan replays: one major version line, and how many rejected calls to keep. */
export interface ReplayLine {
  /** The major version line of the candidate. */
  major: number;
  /** How many rejected calls to keep. */
  sample: number;
}

/** Options for {@linkcode ToolRegistry.plan}. */
export interface PlanOptions {
  /** Replays the stored calls of a major line through a schema (default: `replayCalls` over the registry's calls). */
  replay?: (schema: ToolSpec["inputSchema"], options: ReplayLine) => Rejections;
}

/** What a {@linkcode PublishError} carries besides its refusal and message. */
export interface PublishErrorDetails {
  /** For `bump-too-small`: the input schema's changes. */
  changes?: SchemaChange[];
  /** For `bump-too-small`: the output schema's changes. */
  outputChanges?: SchemaChange[];
  /** For `corpus-rejected`: the rejected calls. */
  rejected?: Rejections;
  /** For `unsafe-schema`: the schema issues. */
  issues?: SchemaIssue[];
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
    details: PublishErrorDetails = {},
  ) {
    super(message);
    this.name = "PublishError";
    this.refusal = refusal;
    this.changes = details.changes ?? [];
    this.outputChanges = details.outputChanges ?? [];
    this.rejected = details.rejected ?? noRejections();
    this.issues = details.issues ?? [];
  }
}

/**
 * The error a refused plan becomes: the first refusal's rule, every refusal's message (one a
 * line), and the changes, rejected calls and schema issues behind them.
 *
 * @param plan A plan with at least one refusal.
 * @returns The error to throw.
 */
export function publishError(plan: PublishPlan): PublishError {
  return new PublishError(
    plan.refusals[0].refusal,
    plan.refusals.map((r) => r.message).join("\n"),
    {
      changes: plan.changes,
      outputChanges: plan.outputChanges,
      rejected: plan.rejected,
      issues: plan.schemaIssues,
    },
  );
}

/** An output schema change with its path written from the tool spec: `outputSchema.properties.status`. */
export function inOutputSchema(c: SchemaChange): SchemaChange {
  return { ...c, path: `outputSchema${c.path.slice(1)}` };
}

/** Whether two specs have the same content (key order aside). */
export function sameContent(a: ToolSpec, b: ToolSpec): boolean {
  return canonicalJson(a) === canonicalJson(b);
}

const RANK: Record<SchemaBump, number> = { patch: 0, minor: 1, major: 2 };

/** The release a version number makes after another: which part changed. */
function releaseBetween(from: string, to: string): SchemaBump {
  const a = Version.parse(from), b = Version.parse(to);
  if (b.major !== a.major) return "major";
  if (b.minor !== a.minor) return "minor";
  return "patch";
}

/** `under forward compatibility, ` for a mode other than the default; empty for `backward`. */
export function modePhrase(plan: PublishPlan): string {
  return plan.compatibility === DEFAULT_COMPATIBILITY
    ? ""
    : `under ${plan.compatibility} compatibility, `;
}

/**
 * A change's message cut to its statement of the edit — `removed property currency` — keeping
 * the version a transitive mode found it breaking against: `..., against 1.0.0`.
 */
export function changeHeadline(c: SchemaChange): string {
  const against = /\(against ([^)]+)\)$/.exec(c.message);
  return c.message.split(":")[0] + (against ? `, against ${against[1]}` : "");
}

function describeChanges(changes: SchemaChange[], bump: SchemaBump): string {
  const biting = changes.filter((c) => c.bump === bump);
  const shown = biting.slice(0, 2).map((c) => {
    const against = /\(against ([^)]+)\)$/.exec(c.message);
    return `${c.message.split(":")[0]} at ${c.path}${against ? `, against ${against[1]}` : ""}`;
  });
  return shown.join("; ") +
    (biting.length > 2 ? `; and ${biting.length - 2} more` : "");
}

/** What a publish plan is worked out from: the candidate, and its tool as the estate has it. */
export interface PublishSubject {
  /** The candidate: checked, and the deep, frozen copy a publish keeps. */
  spec: ToolSpec;
  /** The tool's published versions, ascending by version. */
  versions: readonly VersionRecord[];
  /** The tools the candidate's description names that some principal who sees it may not see. */
  hiddenMentions: (spec: ToolSpec) => ToolMention[];
  /** Replays the stored calls of a major line through the candidate's input schema. */
  replay: (schema: ToolSpec["inputSchema"], options: ReplayLine) => Rejections;
  /** How many rejected calls a refusal lists. */
  sample: number;
  /** The tool's stored calls, tried first as evidence for a major change. Default: none. */
  calls?: () => Iterable<StoredCall>;
  /** The estate's default compatibility mode, for a spec that declares none. Default `backward`. */
  compatibility?: CompatibilityMode;
  /** The estate's servers: a server the candidate names must be registered and list it. */
  servers: ServerLookup;
  /** Told of each schema classified. Default: none. */
  trace?: PublishTrace;
}

/** Where in a spec a poisoning signal is, for a message: `description`, `inputSchema $.a.title`. */
export function poisoningPlace(signal: SpecPoisoningSignal): string {
  return signal.path === undefined ? signal.field : `${signal.field} ${signal.path}`;
}

/**
 * Works out what publishing a candidate would do: its baseline (the newest published version),
 * the bump the change requires, and every rule it would break, with its message.
 *
 * @param subject The candidate and its tool's versions, with the estate's answers it needs.
 * @returns The plan; `refusals` is empty when the publish would succeed.
 */
export function publishPlan(subject: PublishSubject): PublishPlan {
  const { spec, versions } = subject;
  const id = `${spec.name}@${spec.version}`;
  const existing = versions.find((r) => compareVersions(r.spec.version, spec.version) === 0);
  const baseline = versions.length ? copyRecord(versions[versions.length - 1]) : undefined;
  const refusals: PublishPlan["refusals"] = [];
  const estateMode = subject.compatibility ?? DEFAULT_COMPATIBILITY;
  const own = spec.compatibility ?? estateMode;
  const mode = baseline
    ? combineCompatibility(baseline.spec.compatibility ?? estateMode, own)
    : own;
  const plan: PublishPlan = {
    spec,
    baseline,
    compatibility: mode,
    bump: "patch",
    breaksAgainst: [],
    changes: [],
    outputBump: "patch",
    outputChanges: [],
    alreadyPublished: false,
    refusals,
    rejected: noRejections(),
    schemaIssues: checkSchema(spec.inputSchema),
    hiddenMentions: [],
    poisoning: [],
  };
  if (existing && sameContent(existing.spec, spec)) {
    plan.alreadyPublished = true;
    return plan;
  }
  if (baseline) {
    // Against the newest version, whatever this version's number: the classification decides
    // the bump, and the version a refusal suggests is one the next check accepts.
    // A transitive mode checks every other version of the baseline's major line still in use.
    const line = Version.parse(baseline.spec.version).major;
    const others = versions.slice(0, -1).filter((r) =>
      r.state !== "retired" && Version.parse(r.spec.version).major === line
    );
    const earlier = (
      pick: (s: ToolSpec) => EarlierSchema["schema"],
    ): EarlierSchema[] => others.map((r) => ({ version: r.spec.version, schema: pick(r.spec) }));
    subject.trace?.classified?.("input", id);
    const c = classifyForMode(baseline.spec.inputSchema, spec.inputSchema, {
      mode,
      earlier: earlier((s) => s.inputSchema),
    });
    // With no output schema on either side (nor on an earlier version), nothing to classify.
    const outputs = [spec, baseline.spec, ...others.map((r) => r.spec)].some((s) =>
      s.outputSchema !== undefined
    );
    if (outputs) subject.trace?.classified?.("output", id);
    const out = outputs
      ? classifyForMode(baseline.spec.outputSchema, spec.outputSchema, {
        mode,
        output: true,
        earlier: earlier((s) => s.outputSchema),
      })
      : { bump: "patch" as const, changes: [] as SchemaChange[], breaksAgainst: [] as string[] };
    plan.changes = c.changes;
    plan.outputBump = out.bump;
    plan.outputChanges = out.changes;
    plan.bump = RANK[out.bump] > RANK[c.bump] ? out.bump : c.bump;
    plan.breaksAgainst = others.map((r) => r.spec.version).filter((v) =>
      c.breaksAgainst.includes(v) || out.breaksAgainst.includes(v)
    );
    plan.minimumVersion = bumpFor(baseline.spec.version, plan.bump);
    if (plan.bump === "major") {
      const line = Version.parse(baseline.spec.version).major;
      // Stored calls are read only when the version is not enough (the evidence of a refusal): a
      // release that is major already reads none, as its publish replays none.
      const enough = !existing &&
        compareVersions(spec.version, baseline.spec.version) > 0 &&
        RANK[releaseBetween(baseline.spec.version, spec.version)] >=
          RANK[plan.bump];
      const calls = enough ? undefined : subject.calls;
      const found = breakingCall({
        mode,
        old: baseline.spec,
        draft: spec,
        changes: { input: c.changes, output: out.changes },
        ...(calls
          ? {
            calls: function* () {
              for (const call of calls()) {
                if (Number.parseInt(call.version, 10) === line) yield call;
              }
            },
          }
          : {}),
      });
      if (found) plan.breakingCall = found;
    }
  }
  if (existing) {
    refusals.push({
      refusal: "republish",
      message:
        `Cannot publish ${id}: ${spec.version} is already published with different content, and published versions are immutable; publish ${plan.minimumVersion} (a ${plan.bump} change against ${
          baseline!.spec.version
        })`,
    });
  } else if (
    baseline && compareVersions(spec.version, baseline.spec.version) < 0
  ) {
    refusals.push({
      refusal: "not-newer",
      message:
        `Cannot publish ${id}: it is not newer than the newest published version ${baseline.spec.version}; publish ${plan.minimumVersion} (a ${plan.bump} change against it)`,
    });
  }
  plan.hiddenMentions = subject.hiddenMentions(spec);
  for (const m of plan.hiddenMentions) {
    refusals.push({
      refusal: "names-hidden-tool",
      message: `Cannot publish ${id}: its ${toolMentionMessage(m)}`,
    });
  }
  if (spec.server !== undefined) {
    const record = subject.servers.server(spec.server);
    const serving = subject.servers.serverFor(spec.name);
    if (!record) {
      const known = subject.servers.servers().map((r) => r.id);
      refusals.push({
        refusal: "unknown-server",
        message:
          `Cannot publish ${id}: it names server ${spec.server}, which the estate does not record (${
            known.length ? `it records ${known.join(", ")}` : "it records no servers"
          }); register the server first (servers/${spec.server}.json)`,
      });
    } else if (!record.tools.includes(spec.name)) {
      refusals.push({
        refusal: "server-does-not-list",
        message:
          `Cannot publish ${id}: it names server ${spec.server}, whose record does not list ${spec.name}${
            serving ? ` (server ${serving.id} serves it)` : ""
          }; add ${spec.name} to the record's tools, or name the server that serves it`,
      });
    }
  }
  plan.poisoning = specPoisoning(spec);
  for (const signal of plan.poisoning) {
    if (!signal.hidden) continue;
    refusals.push({
      refusal: "hidden-characters",
      message: `Cannot publish ${id}: its ${
        poisoningPlace(signal)
      } carries ${signal.message}; remove the hidden characters`,
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
        message: `Cannot publish ${id}: ${modePhrase(plan)}change is ${plan.bump} (${
          describeChanges(
            [...plan.changes, ...plan.outputChanges.map(inOutputSchema)],
            plan.bump,
          )
        }); publish ${plan.minimumVersion}, not ${spec.version}${
          plan.breakingCall ? `. For example, ${plan.breakingCall.message}` : ""
        }`,
      });
    }
    // The stored calls stand for callers built for older versions: what `backward` protects.
    if (
      actual !== "major" && plan.schemaIssues.length === 0 &&
      compatibilityRule(mode).backward
    ) {
      const major = Version.parse(spec.version).major;
      takeReplay(plan, subject.replay(spec.inputSchema, { major, sample: subject.sample }));
    }
  }
  return plan;
}

/**
 * A plan with the stored-call replay's answer taken in, as {@linkcode publishPlan} takes in what
 * `PublishSubject.replay` answers: `rejected`, and the `corpus-rejected` refusal (the last) when a
 * call was rejected. For a store whose calls are elsewhere (a database): it plans once with a
 * replay that notes what it asks, answers that, and takes the answer in — the decision is made
 * once, not planned again.
 *
 * @param plan A plan whose replay answered no rejections (the replay it asked for, not yet run).
 * @param rejected The replay's answer, for the line the plan asked for.
 * @returns A new plan, the same but for `rejected` and the refusal.
 */
export function withReplay(plan: PublishPlan, rejected: Rejections): PublishPlan {
  const taken = { ...plan, refusals: [...plan.refusals] };
  takeReplay(taken, rejected);
  return taken;
}

/** Sets a plan's `rejected` and, when a call was rejected, adds the `corpus-rejected` refusal. */
function takeReplay(plan: PublishPlan, rejected: Rejections): void {
  plan.rejected = rejected;
  if (rejected.count === 0 || !plan.baseline) return;
  const { spec, baseline } = plan;
  const id = `${spec.name}@${spec.version}`;
  const major = Version.parse(spec.version).major;
  const first = rejected.first.map((r) => {
    // A call's issues cut as every answer is: 92,000 of them make no message.
    const { issues, omitted } = limitIssues(r.issues);
    return `call ${r.index} (${r.call.principal}, ${r.call.at}): ${
      issues.map((i) => `${i.path} ${i.message}`).join(", ")
    }${omitted ? `, and ${omitted} more issue${omitted === 1 ? "" : "s"}` : ""}`;
  }).join("; ");
  plan.refusals.push({
    refusal: "corpus-rejected",
    message: `Cannot publish ${id}: the new schema rejects ${rejected.count} stored call${
      rejected.count === 1 ? "" : "s"
    } that ${major}.x callers made (first: ${first}); accept them, or publish ${
      bumpFor(baseline.spec.version, "major")
    }`,
  });
}
