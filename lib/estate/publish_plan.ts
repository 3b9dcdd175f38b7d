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
import { classifyOutputSchemaChange, classifySchemaChange } from "../compat/classify.ts";
import type { SchemaBump, SchemaChange } from "../compat/schema_change.ts";
import { bumpFor, compareVersions, Version } from "../compat/semver.ts";
import { canonicalJson } from "../schema/_equal.ts";
import { limitIssues, shortenIssue } from "../schema/issue_limit.ts";
import { checkSchema } from "../schema/check.ts";
import type { SchemaIssue } from "../schema/types.ts";
import { copyRecord, type VersionRecord } from "./lifecycle.ts";
import { noRejections, type Rejections } from "./replay.ts";
import type { ToolSpec } from "./spec.ts";
import { type ToolMention, toolMentionMessage } from "./tool_mentions.ts";
import { specPoisoning, type SpecPoisoningSignal } from "./poisoning.ts";
import type { ServerLookup } from "./servers.ts";

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
  /**
   * What looks like tool poisoning in the texts a model reads (see `specPoisoning`): hidden
   * characters refuse the publish; the rest are `checkDraft` warnings.
   */
  poisoning: SpecPoisoningSignal[];
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
  constructor(refusal: PublishRefusal, message: string, details: PublishErrorDetails = {}) {
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

function describeChanges(changes: SchemaChange[], bump: SchemaBump): string {
  const biting = changes.filter((c) => c.bump === bump);
  const shown = biting.slice(0, 2).map((c) => c.message.split(":")[0] + ` at ${c.path}`);
  return shown.join("; ") + (biting.length > 2 ? `; and ${biting.length - 2} more` : "");
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
  /** The estate's servers: a server the candidate names must be registered and list it. */
  servers: ServerLookup;
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
  const plan: PublishPlan = {
    spec,
    baseline,
    bump: "patch",
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
        message: `Cannot publish ${id}: change is ${plan.bump} (${
          describeChanges(
            [...plan.changes, ...plan.outputChanges.map(inOutputSchema)],
            plan.bump,
          )
        }); publish ${plan.minimumVersion}, not ${spec.version}`,
      });
    }
    if (actual !== "major" && plan.schemaIssues.length === 0) {
      const major = Version.parse(spec.version).major;
      plan.rejected = subject.replay(spec.inputSchema, { major, sample: subject.sample });
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
            } that ${major}.x callers made (first: ${first}); accept them, or publish ${
              bumpFor(baseline.spec.version, "major")
            }`,
        });
      }
    }
  }
  return plan;
}
