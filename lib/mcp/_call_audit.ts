/**
 * A `tools/call`'s decision as audit events (`McpServerOptions.audit`): how each outcome counts —
 * `allowed`, `refused`, `rate-limited` or `held`, one table — the user's confirmation, and the arguments
 * only as the tool's data classification allows (`auditArguments`).
 *
 * @module
 */
import {
  auditArguments,
  type AuditEvent,
  type AuditRecord,
  type AuditSettings,
  type AuditSink,
} from "../estate/audit.ts";
import type { DataClassification } from "../estate/spec.ts";
import { shortenText } from "../schema/issue_limit.ts";
import type { CallRecord, ProbeRecord } from "./server_options.ts";

/** What a call's outcome counts as in the audit log. */
export type CallDecision = "allowed" | "refused" | "rate-limited" | "held";

/** Every outcome's decision: the one place it is said. */
export const CALL_DECISIONS: Readonly<Record<CallRecord["outcome"], CallDecision>> = Object
  .freeze({
    "ok": "allowed",
    "tool-error": "allowed",
    "cancelled": "allowed",
    "input-required": "allowed",
    "replayed": "allowed",
    "invalid-arguments": "refused",
    "declined": "refused",
    "insufficient-scope": "refused",
    "key-refused": "refused",
    "rate-limited": "rate-limited",
    // Held for a second person (`callApprovals`): its decision is the approver's, recorded as a
    // `pending-call` event; the call is recorded again when it runs.
    "held": "held",
  });

/**
 * The audit events of one call that reached a version: its confirmation (when one was asked), then
 * its decision.
 *
 * @param record The call as logged.
 * @param classification The version's data classification.
 * @param settings The estate's audit settings.
 * @returns The events.
 */
export async function callAuditEvents(
  record: CallRecord,
  classification: DataClassification,
  settings?: AuditSettings,
): Promise<AuditEvent[]> {
  const about = { principal: record.principal, tool: record.tool, version: record.version };
  const events: AuditEvent[] = [];
  if (record.confirmation) {
    events.push({
      kind: "confirmation",
      at: record.confirmation.at,
      ...about,
      principal: record.confirmation.by,
      detail: { action: record.confirmation.action },
    });
  }
  events.push({
    kind: "call",
    at: record.at,
    ...about,
    detail: {
      decision: CALL_DECISIONS[record.outcome],
      outcome: record.outcome,
      durationMs: record.durationMs,
      dataClassification: classification,
      ...(record.deprecation ? { deprecated: true } : {}),
      ...(await auditArguments(classification, record.arguments, settings)),
    },
  });
  return events;
}

/** Hands a call's events to the server's audit sink, when it has one (failures are the sink's). */
export function auditCall(
  sink: AuditSink | undefined,
  call: { record: CallRecord; classification: DataClassification },
): void {
  if (!sink) return;
  const { record, classification } = call;
  Promise.resolve()
    .then(() => callAuditEvents(record, classification, sink.settings?.()))
    .then((events) => events.forEach((e) => sink.append(e)))
    .catch(() => {});
}

/** The outcomes a probe's audit record carries: a call for a hidden tool, and for an unknown one. */
const PROBE_OUTCOMES = { hidden: "hidden-tool", unknown: "unknown-tool" } as const;

/**
 * Whether an audit record is a probe's: a `tools/call` refused because the caller may not see the
 * tool, or because there is none. A surface that shows the log to a principal leaves these out:
 * what the principal could not see stays unsaid, and a hidden tool stays indistinguishable from a
 * nonexistent one.
 *
 * @param record The record.
 * @returns True for a probe's record.
 *
 * @example
 * ```ts
 * import { isProbeAuditRecord } from "@tool-estate/core";
 * import assert from "node:assert/strict";
 * assert.equal(isProbeAuditRecord({ kind: "call", detail: { decision: "refused", outcome: "hidden-tool" } }), true);
 * assert.equal(isProbeAuditRecord({ kind: "call", detail: { decision: "allowed", outcome: "ok" } }), false);
 * ```
 */
export function isProbeAuditRecord(record: Pick<AuditRecord, "kind" | "detail">): boolean {
  const outcome = record.detail.outcome;
  return record.kind === "call" &&
    (outcome === PROBE_OUTCOMES.hidden || outcome === PROBE_OUTCOMES.unknown);
}

/**
 * Hands a refused `tools/call` for a hidden or unknown tool to the audit sink (the name as sent,
 * shortened: it is the client's).
 */
export function auditProbe(sink: AuditSink | undefined, probe: ProbeRecord): void {
  if (!sink || probe.method !== "tools/call") return;
  const event: AuditEvent = {
    kind: "call",
    at: probe.at,
    principal: probe.principal,
    tool: shortenText(probe.name),
    detail: {
      decision: "refused",
      outcome: probe.hidden ? PROBE_OUTCOMES.hidden : PROBE_OUTCOMES.unknown,
      ...(probe.version === undefined ? {} : { pin: shortenText(probe.version) }),
    },
  };
  try {
    sink.append(event);
  } catch {
    // The sink's failure is the sink's: the call is answered as it would be without it.
  }
}
