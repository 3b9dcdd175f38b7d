/**
 * Proposals over any store: a tool file's proposal id (the SHA-256 of its text), finding a
 * proposal by a prefix of its id, the approval state of a draft for `estate check` and the
 * editor, and {@linkcode publishApproved}, the publish that `estate publish` runs — refused while
 * the change needs approval and no approved proposal of exactly these bytes exists. The events
 * themselves are recorded in one place, `EstateStore.recordProposal`.
 *
 * @module
 */
import { createHash } from "node:crypto";
import { type ApprovalRequirement, approvalRequirement } from "../estate/approval.ts";
import type { CheckDraftOptions } from "../estate/check_draft.ts";
import {
  approvalRefusal,
  newProposal,
  type Proposal,
  ProposalError,
  shortProposalId,
} from "../estate/proposal.ts";
import type { PublishPlan, PublishResult } from "../estate/publish_plan.ts";
import { keepToolSpec, type ToolSpec } from "../estate/spec.ts";
import type { EstateStore } from "./store.ts";

/**
 * A tool file's proposal id: the SHA-256 of its text's UTF-8 bytes, 64 hexadecimal digits. Any
 * edit, a space included, gives another id.
 *
 * @param text The file's text.
 * @returns The id.
 *
 * @example
 * ```ts
 * import { proposalId } from "@tool-estate/core/store";
 * import assert from "node:assert/strict";
 * assert.equal(proposalId("{}\n").length, 64);
 * assert.notEqual(proposalId("{}\n"), proposalId("{} \n"));
 * ```
 */
export function proposalId(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}

/**
 * The proposal whose id is `idOrPrefix` or starts with it (at least 8 hexadecimal digits).
 *
 * @param store The estate.
 * @param idOrPrefix A full id or a prefix (`estate proposals` shows 12 digits).
 * @returns The proposal.
 * @throws {ProposalError} When none or several match, or the prefix is too short.
 */
export async function findProposal(store: EstateStore, idOrPrefix: string): Promise<Proposal> {
  const prefix = idOrPrefix.toLowerCase();
  if (!/^[0-9a-f]{8,64}$/.test(prefix)) {
    throw new ProposalError(
      `${
        JSON.stringify(idOrPrefix)
      } is not a proposal id: give at least 8 of its hexadecimal digits`,
    );
  }
  const found = (await store.proposals()).filter((p) => p.id.startsWith(prefix));
  if (found.length === 0) {
    throw new ProposalError(`no proposal ${prefix}; estate proposals lists them`);
  }
  if (found.length > 1) {
    throw new ProposalError(
      `${prefix} names ${found.length} proposals (${
        found.map((p) => shortProposalId(p.id)).join(", ")
      }); give more digits`,
    );
  }
  return found[0];
}

/**
 * What `checkDraft` needs to report a draft's approval state: the estate's policy and the
 * proposal of the draft's exact text. For `estate check` and the editor alike.
 *
 * @param store The estate.
 * @param text The draft's text.
 * @returns The option; undefined when the estate has no approval policy.
 */
export async function draftApproval(
  store: EstateStore,
  text: string,
): Promise<CheckDraftOptions["approval"]> {
  const policy = store.settings().approval;
  if (!policy) return undefined;
  const proposal = (await store.proposals()).find((p) => p.id === proposalId(text));
  return { policy, ...(proposal ? { proposal } : {}) };
}

/** A plan of a spec against the store, with its approval requirement. */
export interface ApprovalPlan {
  /** The publish plan (stored calls replayed as the store answers them). */
  plan: PublishPlan;
  /** Whether its publish needs approval, and which rule requires it. */
  requirement: ApprovalRequirement;
}

/**
 * Plans a spec against the store as it is now and decides its approval requirement.
 *
 * @param store The estate.
 * @param spec The candidate (kept with `keepToolSpec`).
 * @returns The plan and the requirement.
 */
export async function planApproval(store: EstateStore, spec: ToolSpec): Promise<ApprovalPlan> {
  const replay = await store.replayFor(spec);
  const plan = store.registry.plan(spec, replay ? { replay } : {});
  return { plan, requirement: approvalRequirement(plan, store.settings().approval) };
}

/**
 * Records a proposal of a tool file: its plan against the store, the requirement, who proposes.
 *
 * @param store The estate.
 * @param spec The spec parsed from `text` (kept with `keepToolSpec`).
 * @param options The file's exact text, who proposes, when.
 * @returns The new proposal (pending) and the requirement.
 * @throws {ProposalError} When these bytes are already proposed.
 */
export async function propose(
  store: EstateStore,
  spec: ToolSpec,
  options: { text: string; proposer: string; at: Date },
): Promise<{ proposal: Proposal; requirement: ApprovalRequirement }> {
  const { plan, requirement } = await planApproval(store, spec);
  const proposal = newProposal(plan, requirement, {
    id: proposalId(options.text),
    text: options.text,
    proposer: options.proposer,
    at: options.at.toISOString(),
  });
  const written = await store.recordProposal({ kind: "propose", proposal });
  return { proposal: written.find((p) => p.id === proposal.id)!, requirement };
}

/** A publish refused because the change needs approval; `message` names the rule. */
export class ApprovalRequiredError extends Error {
  /** Which rules require approval. */
  readonly requirement: ApprovalRequirement;
  /** The proposal of the file's bytes, when there is one (not approved). */
  readonly proposal: Proposal | undefined;

  /**
   * Makes the error.
   *
   * @param message What was refused, naming the rule and how to go on.
   * @param requirement The requirement.
   * @param proposal The proposal of the file's bytes, if any.
   */
  constructor(
    message: string,
    requirement: ApprovalRequirement,
    proposal: Proposal | undefined,
  ) {
    super(message);
    this.name = "ApprovalRequiredError";
    this.requirement = requirement;
    this.proposal = proposal;
  }
}

/** What {@linkcode publishApproved} did. */
export interface ApprovedPublishResult extends PublishResult {
  /** The approved proposal it published, now `published`; absent when none was needed. */
  proposal?: Proposal;
}

/**
 * Publishes a tool file's spec, under the estate's approval policy: when the change needs approval
 * (`approvalRequirement`), only with an approved proposal of exactly `text` (its id is the hash of
 * the text), and then it publishes the spec of the proposal's stored text — the approved bytes —
 * and records the proposal `published`. Without a policy, or for a change that needs none, it is
 * `store.publish`.
 *
 * @param store The estate.
 * @param spec The spec parsed from `text` (kept with `keepToolSpec`).
 * @param options The file's exact text, and the clock.
 * @returns The store's result, with the proposal published.
 * @throws {ApprovalRequiredError} When the change needs approval and these bytes have none.
 * @throws {PublishError} As `store.publish` refuses.
 */
export async function publishApproved(
  store: EstateStore,
  spec: ToolSpec,
  options: { text: string; now: Date },
): Promise<ApprovedPublishResult> {
  if (!store.settings().approval) return await store.publish(spec);
  const { requirement } = await planApproval(store, spec);
  if (!requirement.needed) return await store.publish(spec);
  const proposal = (await store.proposals()).find((p) => p.id === proposalId(options.text));
  if (proposal?.state !== "approved") {
    throw new ApprovalRequiredError(
      approvalRefusal(spec, requirement, proposal),
      requirement,
      proposal,
    );
  }
  // Exactly the approved bytes: the spec of the proposal's own text (the same text, by its hash).
  const result = await store.publish(keepToolSpec(JSON.parse(proposal.text)));
  if (result.status !== "published") return result;
  const [published] = await store.recordProposal({
    kind: "published",
    id: proposal.id,
    at: options.now.toISOString(),
  });
  return { ...result, proposal: published };
}
