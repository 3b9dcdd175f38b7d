/**
 * When publishing a change needs a second owner's approval: the estate's approval policy
 * (`estate.json`'s `approval`: which triggers apply, who acts for each owner) and
 * {@linkcode approvalRequirement}, the one function that decides, from a publish plan, whether
 * its publish needs an approved proposal and which trigger requires it. `estate propose`,
 * `estate publish`, `estate check` and the editor all call it. Pure.
 *
 * @module
 */
import { isObject } from "../_object.ts";
import type { SchemaBump } from "../compat/schema_change.ts";
import { Version } from "../compat/semver.ts";
import { classificationRank, SIDE_EFFECTS, type ToolSpec } from "./spec.ts";

/**
 * A trigger of the approval policy: a kind of change that needs a second owner.
 *
 * - `major`: the release is a new major version of a published tool (its number, or its change).
 * - `new-tool`: the tool has no published version yet.
 * - `new-irreversible`: the version is `irreversible` and its baseline was not (or there is none).
 * - `side-effect-raised`: the side-effect class rises (`read` → `write`, …).
 * - `classification-lowered`: the data classification falls (`restricted` → `internal`, …): more
 *   principals may see what the tool returns.
 */
export type ApprovalTrigger =
  | "major"
  | "new-tool"
  | "new-irreversible"
  | "side-effect-raised"
  | "classification-lowered";

/** Every trigger, in the order a requirement names them. */
export const APPROVAL_TRIGGERS: readonly ApprovalTrigger[] = [
  "major",
  "new-tool",
  "new-irreversible",
  "side-effect-raised",
  "classification-lowered",
];

/** The estate's approval policy: `estate.json`'s `approval`. */
export interface ApprovalPolicy {
  /** The triggers that need an approved proposal before publish. */
  require: ApprovalTrigger[];
  /**
   * Who acts for each owner (a spec's `owner`): the ids that may approve that owner's tools.
   * Absent or empty for an owner: only `approvers` may approve its tools.
   */
  owners?: Record<string, string[]>;
  /** Ids that may approve any tool's proposals (a governance role). */
  approvers?: string[];
}

/** One trigger that applies to a change, with the sentence that says why. */
export interface ApprovalReason {
  /** The trigger (the policy's rule). */
  rule: ApprovalTrigger;
  /** Why it applies: `the release is 2.0.0 against 1.1.0`. */
  reason: string;
}

/** What {@linkcode approvalRequirement} decides. */
export interface ApprovalRequirement {
  /** Whether publish needs an approved proposal of exactly these bytes. */
  needed: boolean;
  /** Each trigger of the policy that applies, in {@linkcode APPROVAL_TRIGGERS} order. */
  rules: ApprovalReason[];
}

/** What a requirement is decided from: a publish plan's candidate, baseline and bump. */
export interface ApprovalSubject {
  /** The candidate. */
  spec: ToolSpec;
  /** The newest published version, if any. */
  baseline?: { spec: ToolSpec };
  /** The bump the change requires. */
  bump: SchemaBump;
}

/**
 * Whether publishing a plan's candidate needs an approved proposal, and which of the policy's
 * triggers require it. An identical republish needs none (nothing is written).
 *
 * @param plan The publish plan (`ToolRegistry.plan`), or what of it the decision reads.
 * @param policy The estate's approval policy; absent: nothing needs approval.
 * @returns The requirement.
 *
 * @example
 * ```ts
 * import { approvalRequirement, type ToolSpec } from "@tool-estate/core";
 * import assert from "node:assert/strict";
 * const v1: ToolSpec = {
 *   name: "payments.release", version: "1.0.0", title: "Release", description: "Releases a payment.",
 *   inputSchema: { type: "object" }, sideEffect: "write", requiredScopes: [],
 *   dataClassification: "restricted", tenants: [], owner: "payments-platform",
 * };
 * const v2 = { ...v1, version: "2.0.0", sideEffect: "irreversible" as const };
 * const required = approvalRequirement(
 *   { spec: v2, baseline: { spec: v1 }, bump: "patch" },
 *   { require: ["major", "new-irreversible"] },
 * );
 * assert.equal(required.needed, true);
 * assert.deepEqual(required.rules.map((r) => r.rule), ["major", "new-irreversible"]);
 * ```
 */
export function approvalRequirement(
  plan: ApprovalSubject & { alreadyPublished?: boolean },
  policy: ApprovalPolicy | undefined,
): ApprovalRequirement {
  if (!policy || plan.alreadyPublished) return { needed: false, rules: [] };
  const { spec } = plan;
  const base = plan.baseline?.spec;
  const applies: Record<ApprovalTrigger, string | undefined> = {
    "major": base && (plan.bump === "major" ||
        Version.parse(spec.version).major > Version.parse(base.version).major)
      ? `the release is ${spec.version} against ${base.version}${
        plan.bump === "major" ? ", a major change" : ""
      }`
      : undefined,
    "new-tool": base ? undefined : `${spec.name} has no published version`,
    "new-irreversible": spec.sideEffect === "irreversible" && base?.sideEffect !== "irreversible"
      ? base ? `it becomes irreversible (was ${base.sideEffect})` : "a new irreversible tool"
      : undefined,
    "side-effect-raised": base &&
        SIDE_EFFECTS.indexOf(spec.sideEffect) > SIDE_EFFECTS.indexOf(base.sideEffect)
      ? `its side effect rises from ${base.sideEffect} to ${spec.sideEffect}`
      : undefined,
    "classification-lowered": base &&
        classificationRank(spec.dataClassification) <
          classificationRank(base.dataClassification)
      ? `its data classification falls from ${base.dataClassification} to ${spec.dataClassification}`
      : undefined,
  };
  const rules = APPROVAL_TRIGGERS.filter((t) => policy.require.includes(t) && applies[t])
    .map((rule) => ({ rule, reason: applies[rule]! }));
  return { needed: rules.length > 0, rules };
}

/**
 * The requirement in words: `major: the release is 2.0.0 against 1.1.0; new-irreversible: …`.
 *
 * @param requirement A requirement.
 * @returns One clause per trigger.
 */
export function approvalRules(requirement: ApprovalRequirement): string {
  return requirement.rules.map((r) => `${r.rule}: ${r.reason}`).join("; ");
}

/**
 * Whether an id may approve (or reject) a proposal of a tool: one of the `owners` listed for the
 * tool's owner, or one of the `approvers`. The proposer never may (checked by the proposal's
 * events, not here).
 *
 * @param policy The estate's approval policy.
 * @param owner The tool's owner (its spec's `owner`).
 * @param id Who acts.
 * @returns True when `id` may decide.
 */
export function mayApprove(
  policy: ApprovalPolicy | undefined,
  owner: string,
  id: string,
): boolean {
  return (policy?.owners?.[owner] ?? []).includes(id) || (policy?.approvers ?? []).includes(id);
}

function idList(value: unknown): boolean {
  return Array.isArray(value) &&
    value.every((v) => typeof v === "string" && v.trim() !== "");
}

/**
 * Every problem with a value as an approval policy, each naming its field (under `approval`).
 *
 * @param value The candidate (`estate.json`'s `approval`).
 * @returns One sentence per problem; empty for a valid policy.
 *
 * @example
 * ```ts
 * import { approvalPolicyProblems } from "@tool-estate/core";
 * import assert from "node:assert/strict";
 * assert.deepEqual(approvalPolicyProblems({ require: ["major"], approvers: ["ana"] }), []);
 * assert.deepEqual(approvalPolicyProblems({ require: ["huge"] }), [
 *   'approval.require[0] must be one of major, new-tool, new-irreversible, side-effect-raised, classification-lowered, got "huge"',
 * ]);
 * ```
 */
export function approvalPolicyProblems(value: unknown): string[] {
  if (!isObject(value)) return ["approval must be an object with require, owners and approvers"];
  const problems: string[] = [];
  if (!Array.isArray(value.require)) {
    problems.push("approval.require must be a list of triggers");
  } else {
    value.require.forEach((t: unknown, i: number) => {
      if (!APPROVAL_TRIGGERS.includes(t as ApprovalTrigger)) {
        problems.push(
          `approval.require[${i}] must be one of ${APPROVAL_TRIGGERS.join(", ")}, got ${
            JSON.stringify(t)
          }`,
        );
      }
    });
  }
  if (value.owners !== undefined) {
    if (!isObject(value.owners)) {
      problems.push("approval.owners must be an object of owner to a list of ids");
    } else {
      for (const [owner, ids] of Object.entries(value.owners)) {
        if (!idList(ids)) {
          problems.push(`approval.owners.${owner} must be a list of non-empty ids`);
        }
      }
    }
  }
  if (value.approvers !== undefined && !idList(value.approvers)) {
    problems.push("approval.approvers must be a list of non-empty ids");
  }
  for (const k of Object.keys(value)) {
    if (!["require", "owners", "approvers"].includes(k)) {
      problems.push(`unknown field approval.${k}`);
    }
  }
  return problems;
}
