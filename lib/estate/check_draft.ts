/**
 * Checking a draft tool file against the estate: the one function behind `estate check` and the
 * editor's diagnostics, so both say exactly the same thing.
 *
 * @module
 */
import type { CompatibilityMode } from "../compat/compatibility_mode.ts";
import type { SchemaBump, SchemaChange, SchemaChangeKind } from "../compat/schema_change.ts";
import type { SchemaIssue } from "../schema/types.ts";
import {
  inOutputSchema,
  modePhrase,
  type PlanOptions,
  type PublishPlan,
  type PublishRefusal,
} from "./publish_plan.ts";
import type { ToolRegistry } from "./registry.ts";
import type { RejectionsAtNode } from "./replay.ts";
import type { BreakingCall } from "./breaking_call.ts";
import { lintDescription, type ToolSpec } from "./spec.ts";
import type { SpecPoisoningSignal } from "./poisoning.ts";
import { toolMentionMessage } from "./tool_mentions.ts";
import { type ApprovalPolicy, type ApprovalRequirement, approvalRequirement } from "./approval.ts";
import { approvalStatus, type Proposal } from "./proposal.ts";

/** Options for {@linkcode checkDraft}: the plan's, and the approval state to report. */
export interface CheckDraftOptions extends PlanOptions {
  /**
   * The estate's approval policy (`estate.json`'s `approval`) and the proposal of the draft's
   * exact bytes, if any: the report then says whether the draft needs approval (`needs-approval`,
   * an error: publish refuses it) or is approved (`approved`). Absent: nothing is said of it.
   */
  approval?: { policy?: ApprovalPolicy; proposal?: Proposal };
}

/** How much a finding matters: an error fails `estate check`. */
export type FindingSeverity = "error" | "warning" | "information" | "hint";

/** A stretch of a text: UTF-16 offsets, `end` exclusive. */
export interface TextSpan {
  /** Where it starts. */
  start: number;
  /** Where it ends (exclusive). */
  end: number;
}

/** Where in the draft a finding belongs. */
export type FindingTarget =
  | { field: "name" }
  | { field: "version" }
  | { field: "title"; span?: TextSpan }
  | { field: "description"; span?: TextSpan }
  | { field: "server" }
  | { field: "inputSchema"; path: string }
  | { field: "outputSchema"; path: string };

/** One thing `estate check` reports about a draft. */
export interface DraftFinding {
  /** How much it matters. */
  severity: FindingSeverity;
  /**
   * A stable code: `version-too-low`, `version-ok`, `immutable`, `not-newer`, `change`,
   * `output-change`, `breaking-call` (the evidence for a major change), `rejected-calls`, `schema`,
   * `hidden-tool`, `description`, `server`; and for
   * tool poisoning, the signal's code (`invisible-character`, `bidi-control`, `tag-character`,
   * `control-character`: errors; `model-instruction`, `instruction-block`, `file-reference`,
   * `secret-request`: warnings).
   */
  code: string;
  /** Where it belongs. */
  target: FindingTarget;
  /** The sentence shown to the user. */
  message: string;
  /** For a `change` or `output-change`: the change's kind (its stable rule id, `property-removed`, …). */
  kind?: SchemaChangeKind;
  /** For a `change` or `output-change`: the bump the change requires. */
  bump?: SchemaBump;
}

/** The result of checking one draft. */
export interface DraftReport {
  /** The draft's tool name and version. */
  name: string;
  /** The draft's version. */
  version: string;
  /** The newest published version compared with, and its state. */
  baseline?: { version: string; state: string };
  /**
   * The compatibility mode the draft is checked under: its own `compatibility`, else the estate's,
   * combined with the baseline's when they differ.
   */
  compatibility: CompatibilityMode;
  /** The bump the change requires under that mode (patch when there is no baseline). */
  bump: SchemaBump;
  /** For a `-transitive` mode: the earlier versions of the line the change is breaking against. */
  breaksAgainst: string[];
  /** The lowest acceptable version, when there is a baseline. */
  minimumVersion?: string;
  /** Every input schema change against the baseline (paths inside `inputSchema`). */
  changes: SchemaChange[];
  /** Every output schema change against the baseline (paths inside `outputSchema`). */
  outputChanges: SchemaChange[];
  /** Stored calls the draft's schema rejects, per rejecting node (non-major bumps only). */
  rejected: { count: number; byNode: RejectionsAtNode[] };
  /**
   * For a major change: the evidence (a call the published version took that the draft refuses,
   * or its mirror), checked by the validator; absent when none was found.
   */
  breakingCall?: BreakingCall;
  /** Whether publishing it needs approval, and which rule requires it (with `options.approval`). */
  approval?: ApprovalRequirement;
  /** Every finding, errors first. */
  findings: DraftFinding[];
  /** True when there is no error: the draft can be published as it is (or is already published). */
  ok: boolean;
}

const ORDER: Record<FindingSeverity, number> = {
  error: 0,
  warning: 1,
  information: 2,
  hint: 3,
};

/** Where a poisoning signal belongs: the text in a schema, or the span of the title or description. */
function poisoningTarget(signal: SpecPoisoningSignal): FindingTarget {
  const span = { start: signal.start, end: signal.end };
  switch (signal.field) {
    case "title":
    case "description":
      return { field: signal.field, span };
    default:
      return { field: signal.field, path: signal.path ?? "$" };
  }
}

/** `$.properties.currency` style location of a schema issue inside `inputSchema`. */
function issueTarget(issue: SchemaIssue): FindingTarget {
  return { field: "inputSchema", path: issue.path };
}

/** `Under forward compatibility, ` for a mode other than the default; empty for `backward`. */
function modeLead(plan: PublishPlan): string {
  const phrase = modePhrase(plan);
  return phrase && phrase[0].toUpperCase() + phrase.slice(1);
}

function rejectionMessage(node: RejectionsAtNode): string {
  const n = node.count;
  const what = `${node.example.path} ${
    node.example.keyword === "required" ? "is required" : node.example.message
  }`;
  return `${n} stored call${n === 1 ? " is" : "s are"} rejected here: ${what}`;
}

/**
 * Checks a draft spec against the newest published version of its tool: the bump the schema
 * change requires under the tool's compatibility mode (its `compatibility`, else the estate's;
 * a mode other than `backward` is named in the version finding) and whether the draft's version
 * is enough, each change at its node, the stored
 * calls a non-major bump would reject (at the node that rejects them), what `checkSchema` refuses,
 * a description that names a tool some of this tool's principals may not see (an error: publish
 * refuses it), a `server` that is not registered or does not list the tool (an error), tool
 * poisoning (`specPoisoning`: hidden characters are errors, the rest warnings), and description
 * lint (platform metadata: a warning).
 *
 * @param spec The draft (already parsed with `parseToolSpec`).
 * @param registry The estate it would be published into.
 * @param options `replay`: a faster replay of the stored calls (a `CallIndex`), as for `plan`;
 *   `approval`: the approval policy and the proposal of the draft's bytes, to report its state.
 * @returns The report; `ok` is false when publishing would be refused.
 *
 * @example
 * ```ts
 * import { checkDraft, ToolRegistry, type ToolSpec } from "@tool-estate/core";
 * import assert from "node:assert/strict";
 * const v1: ToolSpec = {
 *   name: "payments.lookup", version: "1.4.0", title: "Lookup", description: "Reads the payments system of record.",
 *   inputSchema: { type: "object", properties: { reference: { type: "string" }, currency: { type: "string" } } },
 *   sideEffect: "read", requiredScopes: [], dataClassification: "internal", tenants: [], owner: "payments",
 * };
 * const registry = new ToolRegistry();
 * registry.publish(v1);
 * const draft = { ...v1, version: "1.5.0", inputSchema: { type: "object", properties: { reference: { type: "string" } } } };
 * const report = checkDraft(draft, registry);
 * assert.equal(report.ok, false);
 * assert.equal(
 *   report.findings[0].message,
 *   "change is major against payments.lookup@1.4.0 (published): removed property currency — version must be at least 2.0.0",
 * );
 * ```
 */
export function checkDraft(
  spec: ToolSpec,
  registry: ToolRegistry,
  options: CheckDraftOptions = {},
): DraftReport {
  const plan: PublishPlan = registry.plan(spec, options);
  const findings: DraftFinding[] = [];
  const base = plan.baseline;
  const baseName = base
    ? `${spec.name}@${base.spec.version} (${base.state === "active" ? "published" : base.state})`
    : "";
  for (const r of plan.refusals) {
    if (r.refusal === "bump-too-small") {
      const biting = [
        ...plan.changes,
        ...plan.outputChanges.map(inOutputSchema),
      ].filter((c) => c.bump === plan.bump).map((c) => {
        const against = /\(against ([^)]+)\)$/.exec(c.message);
        return c.message.split(":")[0] +
          (against ? ` (against ${against[1]})` : "");
      });
      findings.push({
        severity: "error",
        code: "version-too-low",
        target: { field: "version" },
        message: `${modeLead(plan)}change is ${plan.bump} against ${baseName}: ${
          biting.slice(0, 3).join("; ")
        }${
          biting.length > 3 ? `; and ${biting.length - 3} more` : ""
        } — version must be at least ${plan.minimumVersion}`,
      });
    } else if (r.refusal === "republish") {
      findings.push({
        severity: "error",
        code: "immutable",
        target: { field: "version" },
        message:
          `${spec.name}@${spec.version} is already published with different content; published versions are immutable — use ${plan.minimumVersion} (a ${plan.bump} change against ${base?.spec.version})`,
      });
    } else if (r.refusal === "not-newer") {
      findings.push({
        severity: "error",
        code: "not-newer",
        target: { field: "version" },
        message:
          `${spec.version} is not newer than ${spec.name}@${base?.spec.version}, the newest published version — use ${plan.minimumVersion} (a ${plan.bump} change against it)`,
      });
    }
  }
  if (
    base &&
    !plan.refusals.some((r) => ["bump-too-small", "republish", "not-newer"].includes(r.refusal)) &&
    !plan.alreadyPublished
  ) {
    findings.push({
      severity: "hint",
      code: "version-ok",
      target: { field: "version" },
      message: `${modeLead(plan)}${plan.bump} change against ${base.spec.version}${
        plan.changes.length + plan.outputChanges.length === 0 ? " (no schema change)" : ""
      }: version ${spec.version} is enough`,
    });
  }
  for (const c of plan.changes) {
    findings.push({
      severity: c.bump === "major" ? "warning" : "information",
      code: "change",
      target: { field: "inputSchema", path: c.path },
      message: c.message,
      kind: c.kind,
      bump: c.bump,
    });
  }
  for (const c of plan.outputChanges) {
    findings.push({
      severity: c.bump === "major" ? "warning" : "information",
      code: "output-change",
      target: { field: "outputSchema", path: c.path },
      message: `outputSchema: ${c.message}`,
      kind: c.kind,
      bump: c.bump,
    });
  }
  if (plan.breakingCall) {
    const b = plan.breakingCall;
    findings.push({
      severity: "information",
      code: "breaking-call",
      target: { field: b.field, path: b.path },
      message: `${b.field === "outputSchema" ? "outputSchema: " : ""}${b.message}`,
    });
  }
  for (const node of plan.rejected.byNode) {
    findings.push({
      severity: "error",
      code: "rejected-calls",
      target: {
        field: "inputSchema",
        path: node.schemaPath.replace(/\.[A-Za-z]+$|\["[^"]*"\]$/, "") || "$",
      },
      message: rejectionMessage(node),
    });
  }
  for (const issue of plan.schemaIssues) {
    findings.push({
      severity: "error",
      code: "schema",
      target: issueTarget(issue),
      message: issue.message,
    });
  }
  for (const mention of plan.hiddenMentions) {
    findings.push({
      severity: "error",
      code: "hidden-tool",
      target: { field: "description" },
      message: toolMentionMessage(mention),
    });
  }
  const serverRefusals: PublishRefusal[] = [
    "unknown-server",
    "server-does-not-list",
  ];
  for (const r of plan.refusals) {
    if (!serverRefusals.includes(r.refusal)) continue;
    findings.push({
      severity: "error",
      code: "server",
      target: { field: "server" },
      message: r.message.replace(/^Cannot publish [^:]+: it names/, "names"),
    });
  }
  for (const signal of plan.poisoning) {
    findings.push({
      severity: signal.hidden ? "error" : "warning",
      code: signal.code,
      target: poisoningTarget(signal),
      message: `${signal.path === undefined ? "" : `${signal.path}: `}${signal.message}${
        signal.hidden ? "; publish refuses it" : ""
      }`,
    });
  }
  for (const problem of lintDescription(spec)) {
    findings.push({
      severity: "warning",
      code: "description",
      target: { field: "description" },
      message: problem,
    });
  }
  const approval = options.approval
    ? approvalRequirement(plan, options.approval.policy)
    : undefined;
  const status = approvalStatus(approval, options.approval?.proposal);
  if (status) {
    findings.push({
      severity: status.rule === "approved" ? "information" : "error",
      code: status.rule,
      target: { field: "version" },
      message: status.message,
    });
  }
  findings.sort((a, b) => ORDER[a.severity] - ORDER[b.severity]);
  return {
    name: spec.name,
    version: spec.version,
    baseline: base ? { version: base.spec.version, state: base.state } : undefined,
    compatibility: plan.compatibility,
    bump: plan.bump,
    breaksAgainst: plan.breaksAgainst,
    minimumVersion: plan.minimumVersion,
    changes: plan.changes,
    outputChanges: plan.outputChanges,
    rejected: { count: plan.rejected.count, byNode: plan.rejected.byNode },
    ...(plan.breakingCall ? { breakingCall: plan.breakingCall } : {}),
    ...(approval ? { approval } : {}),
    findings,
    ok: !findings.some((f) => f.severity === "error"),
  };
}
