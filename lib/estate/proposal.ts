/**
 * Proposals: a draft recorded for a second owner's approval before it is published. A proposal is
 * named by the content hash of the exact bytes of its tool file, keeps those bytes, its plan's
 * classification, witness and impact, and its state; {@linkcode proposalEvent} is the one pure
 * function that applies an event (propose, approve, reject, published) to a tool's proposals,
 * with every refusal (the proposer approving their own, someone who may not approve, a proposal
 * no longer pending). Each store records the records it returns in one place
 * (`EstateStore.recordProposal`). Pure.
 *
 * @module
 */
import type { SchemaBump } from "../compat/schema_change.ts";
import {
  type ApprovalPolicy,
  type ApprovalRequirement,
  approvalRules,
  mayApprove,
} from "./approval.ts";
import { changeHeadline, type PublishPlan } from "./publish_plan.ts";

/** Where a proposal stands. */
export type ProposalState = "pending" | "approved" | "rejected" | "published" | "superseded";

/** One approval of a proposal. */
export interface ProposalApproval {
  /** Who approved. */
  principal: string;
  /** When (ISO 8601). */
  at: string;
  /** What they said. */
  note?: string;
}

/** The rejection of a proposal. */
export interface ProposalRejection {
  /** Who rejected. */
  principal: string;
  /** When (ISO 8601). */
  at: string;
  /** Why. */
  reason: string;
}

/** What the plan said of a proposal's change when it was proposed. */
export interface ProposalClassification {
  /** The version compared with (the newest published), if any. */
  baseline?: string;
  /** The bump the change requires. */
  bump: SchemaBump;
  /** Each schema change, in a line: `removed property currency at $.properties.currency`. */
  changes: string[];
  /** The approval triggers that applied (`major: the release is …`), empty when none. */
  requires: string[];
}

/** A proposal: a draft awaiting (or past) a second owner's decision. */
export interface Proposal {
  /** The SHA-256 of the tool file's exact bytes, 64 hexadecimal digits. */
  id: string;
  /** The tool. */
  tool: string;
  /** Its version. */
  version: string;
  /** The tool's owner (the spec's `owner`). */
  owner: string;
  /** Who proposed it. */
  proposer: string;
  /** When (ISO 8601). */
  created: string;
  /** The tool file's exact text: what publish writes. */
  text: string;
  /** The plan's classification when proposed. */
  classification: ProposalClassification;
  /** For a major change: a call the published version took that the draft refuses. */
  witnesses: string[];
  /** Who the change reaches: stored calls a non-major bump rejects, earlier versions it breaks. */
  impact: { rejectedCalls: number; breaksAgainst: string[] };
  /** Where it stands. */
  state: ProposalState;
  /** The approvals, oldest first. */
  approvals: ProposalApproval[];
  /** The rejection, if rejected. */
  rejection?: ProposalRejection;
  /** When it was published, if it was. */
  published?: string;
  /** The proposal that superseded it (a newer proposal of the same version). */
  supersededBy?: string;
}

/** An event on a proposal: the one vocabulary the stores record. */
export type ProposalEvent =
  | {
    /** Records a new proposal (pending); earlier pending ones of the same version are superseded. */
    kind: "propose";
    /** The record, pending, without approvals. */
    proposal: Proposal;
  }
  | {
    /** An approval. */
    kind: "approve";
    /** The proposal. */
    id: string;
    /** Who approves. */
    principal: string;
    /** When (ISO 8601). */
    at: string;
    /** What they said. */
    note?: string;
  }
  | {
    /** A rejection. */
    kind: "reject";
    /** The proposal. */
    id: string;
    /** Who rejects. */
    principal: string;
    /** When (ISO 8601). */
    at: string;
    /** Why. */
    reason: string;
  }
  | {
    /** The approved bytes were published. */
    kind: "published";
    /** The proposal. */
    id: string;
    /** When (ISO 8601). */
    at: string;
  };

/** An event a proposal's rules refuse; `message` says what and why. */
export class ProposalError extends Error {
  /**
   * Makes the error.
   *
   * @param message What was refused, and why.
   */
  constructor(message: string) {
    super(message);
    this.name = "ProposalError";
  }
}

const SHORT = 12;

/**
 * A proposal's id as people type it: its first 12 hexadecimal digits.
 *
 * @param id The full id.
 * @returns The short id.
 */
export function shortProposalId(id: string): string {
  return id.slice(0, SHORT);
}

/**
 * A new proposal's record, from the plan of its spec.
 *
 * @param plan The publish plan of the spec parsed from `text`.
 * @param requirement `approvalRequirement(plan, policy)`.
 * @param options The id (hash of `text`), the text, who proposes it and when.
 * @returns The record, pending.
 */
export function newProposal(
  plan: PublishPlan,
  requirement: ApprovalRequirement,
  options: { id: string; text: string; proposer: string; at: string },
): Proposal {
  const changes = [...plan.changes, ...plan.outputChanges].map((c) =>
    `${changeHeadline(c)} at ${c.path}`
  );
  return {
    id: options.id,
    tool: plan.spec.name,
    version: plan.spec.version,
    owner: plan.spec.owner,
    proposer: options.proposer,
    created: options.at,
    text: options.text,
    classification: {
      ...(plan.baseline ? { baseline: plan.baseline.spec.version } : {}),
      bump: plan.bump,
      changes,
      requires: requirement.rules.map((r) => `${r.rule}: ${r.reason}`),
    },
    witnesses: plan.breakingCall ? [plan.breakingCall.message] : [],
    impact: { rejectedCalls: plan.rejected.count, breaksAgainst: [...plan.breaksAgainst] },
    state: "pending",
    approvals: [],
  };
}

/**
 * Applies an event to a tool's proposals: the records it changes (new or replaced), or the
 * refusal. Approve and reject need a pending proposal and someone other than its proposer whom
 * the policy lets decide for the tool's owner; `published` needs an approved one. A new proposal
 * of a version supersedes that version's pending and approved ones; proposing the same bytes
 * again is refused unless their proposal was superseded (then it is pending again, approvals
 * cleared).
 *
 * @param proposals The tool's proposals as the store has them now.
 * @param event The event.
 * @param policy The estate's approval policy (who may decide).
 * @returns The records to write: the changed and the new, each whole.
 * @throws {ProposalError} When the event is refused, saying why.
 *
 * @example
 * ```ts
 * import { proposalEvent, type Proposal } from "@tool-estate/core";
 * import assert from "node:assert/strict";
 * const p: Proposal = {
 *   id: "ab".repeat(32), tool: "fx.quote", version: "2.0.0", owner: "treasury", proposer: "ana",
 *   created: "2026-12-01T09:00:00.000Z", text: "{}", state: "pending", approvals: [],
 *   classification: { baseline: "1.0.0", bump: "major", changes: [], requires: [] },
 *   witnesses: [], impact: { rejectedCalls: 0, breaksAgainst: [] },
 * };
 * const policy = { require: ["major" as const], owners: { treasury: ["ana", "ben"] } };
 * assert.throws(
 *   () => proposalEvent([p], { kind: "approve", id: p.id, principal: "ana", at: p.created }, policy),
 *   /ana proposed it: another owner must approve/,
 * );
 * const [approved] = proposalEvent([p], { kind: "approve", id: p.id, principal: "ben", at: p.created }, policy);
 * assert.equal(approved.state, "approved");
 * ```
 */
export function proposalEvent(
  proposals: readonly Proposal[],
  event: ProposalEvent,
  policy: ApprovalPolicy | undefined,
): Proposal[] {
  if (event.kind === "propose") {
    const p = event.proposal;
    const same = proposals.find((q) => q.id === p.id);
    if (same && same.state !== "superseded") {
      throw new ProposalError(
        `${p.tool}@${p.version} is already proposed with these bytes (proposal ${
          shortProposalId(p.id)
        }, ${same.state}${
          same.state === "rejected" ? `: ${same.rejection?.reason}; change the file first` : ""
        })`,
      );
    }
    const superseded = proposals.filter((q) =>
      q.id !== p.id && q.tool === p.tool && q.version === p.version &&
      (q.state === "pending" || q.state === "approved")
    ).map((q): Proposal => ({ ...q, state: "superseded", supersededBy: p.id }));
    const fresh: Proposal = { ...p, state: "pending", approvals: [] };
    delete fresh.supersededBy;
    return [...superseded, fresh];
  }
  const p = proposals.find((q) => q.id === event.id);
  if (!p) throw new ProposalError(`no proposal ${shortProposalId(event.id)}`);
  const name = `proposal ${shortProposalId(p.id)} (${p.tool}@${p.version})`;
  if (event.kind === "published") {
    if (p.state !== "approved") {
      throw new ProposalError(`${name} is ${p.state}, not approved: it cannot be published`);
    }
    return [{ ...p, state: "published", published: event.at }];
  }
  const verb = event.kind === "approve" ? "approve" : "reject";
  if (p.state !== "pending") {
    throw new ProposalError(
      `Cannot ${verb} ${name}: it is ${p.state}${
        p.state === "superseded" && p.supersededBy
          ? ` by ${shortProposalId(p.supersededBy)}`
          : p.state === "approved"
          ? ` by ${p.approvals.map((a) => a.principal).join(", ")}`
          : ""
      }`,
    );
  }
  if (event.principal === p.proposer) {
    throw new ProposalError(
      `Cannot ${verb} ${name}: ${p.proposer} proposed it: another owner must ${verb} it`,
    );
  }
  if (!mayApprove(policy, p.owner, event.principal)) {
    const owners = policy?.owners?.[p.owner] ?? [];
    throw new ProposalError(
      `Cannot ${verb} ${name}: ${event.principal} is not an owner of ${p.tool} (owner ${p.owner}${
        owners.length ? `: ${owners.join(", ")}` : ""
      }) nor an approver; estate.json's approval.owners and approval.approvers say who may`,
    );
  }
  if (event.kind === "approve") {
    return [{
      ...p,
      state: "approved",
      approvals: [...p.approvals, {
        principal: event.principal,
        at: event.at,
        ...(event.note ? { note: event.note } : {}),
      }],
    }];
  }
  return [{
    ...p,
    state: "rejected",
    rejection: { principal: event.principal, at: event.at, reason: event.reason },
  }];
}

/** What a draft's approval state is, as `estate check` and the editor say it. */
export interface ApprovalStatus {
  /** `needs-approval` (an error: publish refuses it) or `approved` (information). */
  rule: "needs-approval" | "approved";
  /** The sentence. */
  message: string;
}

/**
 * A draft's approval state in words, from its requirement and the proposal of its exact bytes:
 * `needs approval (rule major: …); no proposal of these bytes: estate propose FILE`,
 * `needs approval (rule major: …); pending proposal ID by P`, `… rejected by P: REASON`, or
 * `approved by P (proposal ID)`.
 *
 * @param requirement `approvalRequirement(plan, policy)`.
 * @param proposal The proposal whose id is the hash of the draft's bytes, if any.
 * @returns The status; undefined when no approval is needed.
 */
export function approvalStatus(
  requirement: ApprovalRequirement | undefined,
  proposal: Proposal | undefined,
): ApprovalStatus | undefined {
  if (!requirement?.needed) return undefined;
  if (proposal && (proposal.state === "approved" || proposal.state === "published")) {
    return {
      rule: "approved",
      message: `approved by ${proposal.approvals.map((a) => a.principal).join(", ")} (proposal ${
        shortProposalId(proposal.id)
      }): publish writes exactly these bytes`,
    };
  }
  const lead = `needs approval (rule ${approvalRules(requirement)})`;
  if (!proposal) {
    return {
      rule: "needs-approval",
      message: `${lead}; no proposal of these bytes: estate propose FILE --as YOU`,
    };
  }
  const id = shortProposalId(proposal.id);
  const tail = proposal.state === "pending"
    ? `pending proposal ${id} by ${proposal.proposer}: another owner runs estate approve ${id}`
    : proposal.state === "rejected"
    ? `proposal ${id} rejected by ${proposal.rejection?.principal}: ${proposal.rejection?.reason}`
    : `proposal ${id} superseded by ${shortProposalId(proposal.supersededBy ?? "")}`;
  return { rule: "needs-approval", message: `${lead}; ${tail}` };
}

/**
 * Why a publish that needs approval is refused: the rule that requires it, the proposal's state,
 * and how to go on.
 *
 * @param spec The tool and version.
 * @param requirement `approvalRequirement(plan, policy)`, needed.
 * @param proposal The proposal of the file's exact bytes, if any (not approved).
 * @returns The message: `Cannot publish NAME@VERSION: it needs approval (rule …); …`.
 */
export function approvalRefusal(
  spec: { name: string; version: string },
  requirement: ApprovalRequirement,
  proposal: Proposal | undefined,
): string {
  const lead = `Cannot publish ${spec.name}@${spec.version}: it needs approval (rule ${
    approvalRules(requirement)
  })`;
  if (!proposal) {
    return `${lead}; no proposal of these bytes (a file edited after its approval is another proposal): run estate propose FILE --as YOU, then another owner runs estate approve ID --as THEM`;
  }
  const id = shortProposalId(proposal.id);
  if (proposal.state === "pending") {
    return `${lead}; proposal ${id} by ${proposal.proposer} is pending: another owner runs estate approve ${id} --as THEM`;
  }
  if (proposal.state === "rejected") {
    return `${lead}; proposal ${id} was rejected by ${proposal.rejection?.principal} (${proposal.rejection?.reason}): change the file and propose it again`;
  }
  return `${lead}; proposal ${id} is ${proposal.state}${
    proposal.supersededBy ? ` by ${shortProposalId(proposal.supersededBy)}` : ""
  }: publish the file that was proposed last, or propose this one again`;
}
