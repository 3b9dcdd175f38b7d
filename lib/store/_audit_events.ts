/**
 * The audit events a store performs itself — a publish, a deprecation, a retirement, a proposal's
 * event, a drift record — each made in one place for both stores.
 */
import type { AuditEvent } from "../estate/audit.ts";
import type { DriftRecord } from "../estate/drift.ts";
import type { VersionRecord } from "../estate/lifecycle.ts";
import type { Proposal, ProposalEvent } from "../estate/proposal.ts";
import type { PublishPlan } from "../estate/publish_plan.ts";

/** A version published. */
export function publishAuditEvent(plan: PublishPlan, at: Date, by?: string): AuditEvent {
  const spec = plan.spec;
  const detail: Record<string, unknown> = {
    bump: plan.bump,
    compatibility: plan.compatibility,
    sideEffect: spec.sideEffect,
    dataClassification: spec.dataClassification,
    owner: spec.owner,
  };
  if (plan.baseline) detail.baseline = plan.baseline.spec.version;
  return {
    kind: "publish",
    at: at.toISOString(),
    tool: spec.name,
    version: spec.version,
    detail,
    ...(by === undefined ? {} : { principal: by }),
  };
}

/** A version deprecated or retired, as its record now says. */
export function lifecycleAuditEvent(
  kind: "deprecate" | "retire",
  record: VersionRecord,
  by?: string,
): AuditEvent {
  const last = record.history[record.history.length - 1];
  const detail: Record<string, unknown> = {};
  if (last?.reason !== undefined) detail.reason = last.reason;
  if (last?.retireAfter !== undefined) detail.retireAfter = last.retireAfter;
  return {
    kind,
    ...(last ? { at: last.at } : {}),
    tool: record.spec.name,
    version: record.spec.version,
    detail,
    ...(by === undefined ? {} : { principal: by }),
  };
}

/** A proposal's event, with the records it changed (the first is the one the event is about). */
export function proposalAuditEvent(event: ProposalEvent, changed: readonly Proposal[]): AuditEvent {
  const p = event.kind === "propose"
    ? event.proposal
    : changed.find((c) => c.id === event.id) ?? changed[0];
  const about = { tool: p?.tool, version: p?.version };
  const id = event.kind === "propose" ? event.proposal.id : event.id;
  switch (event.kind) {
    case "propose":
      return {
        kind: "proposal",
        at: event.proposal.created,
        principal: event.proposal.proposer,
        ...about,
        detail: {
          id,
          bump: event.proposal.classification.bump,
          requires: event.proposal.classification.requires,
          superseded: changed.filter((c) => c.id !== id).map((c) => c.id),
        },
      };
    case "approve":
      return {
        kind: "approval",
        at: event.at,
        principal: event.principal,
        ...about,
        detail: { id, state: p?.state, ...(event.note === undefined ? {} : { note: event.note }) },
      };
    case "reject":
      return {
        kind: "rejection",
        at: event.at,
        principal: event.principal,
        ...about,
        detail: { id, reason: event.reason },
      };
    case "published":
      return { kind: "proposal-published", at: event.at, ...about, detail: { id } };
  }
}

/** A drift record: `quarantine` when the gateway quarantined the tool, `drift` otherwise. */
export function driftAuditEvent(record: DriftRecord): AuditEvent {
  return {
    kind: record.kind === "quarantined" ? "quarantine" : "drift",
    at: record.at,
    ...(record.tool === undefined ? {} : { tool: record.tool }),
    ...(record.registeredVersion === undefined ? {} : { version: record.registeredVersion }),
    detail: {
      server: record.server,
      drift: record.kind,
      details: record.details,
      ...(record.bump === undefined ? {} : { bump: record.bump }),
    },
  };
}
