/**
 * The estate's own settings, as `<estate>/estate.json` holds them: the compatibility mode of every
 * tool that declares none, the call limits, how long idempotency keys are kept, and which calls wait for
 * a second person's approval. Pure: the store reads the file.
 *
 * @module
 */
import { isObject } from "../_object.ts";
import {
  COMPATIBILITY_MODES,
  type CompatibilityMode,
  isCompatibilityMode,
} from "../compat/compatibility_mode.ts";
import { type CallLimit, callLimitProblems } from "./limits.ts";
import { callApprovalProblems, type CallApprovalRule } from "./call_approvals.ts";
import { type ApprovalPolicy, approvalPolicyProblems } from "./approval.ts";
import { type AuditSettings, auditSettingsProblems } from "./audit.ts";

/** The estate's settings file, in the estate's folder. */
export const ESTATE_CONFIG_FILE = "estate.json";

/** The fields `estate.json` may have. */
const ESTATE_CONFIG_FIELDS: readonly string[] = [
  "$schema",
  "compatibility",
  "limits",
  "idempotencyKeyTtlHours",
  "callApprovals",
  "approval",
  "audit",
];

/** The estate's settings (`estate.json`); every field is optional. */
export interface EstateConfig {
  /**
   * The compatibility mode of a tool whose spec declares none (a tool's own `compatibility`
   * wins). Absent: `backward`.
   */
  compatibility?: CompatibilityMode;
  /**
   * How many calls the estate admits per window: per principal, per tool, for the whole estate
   * (see {@linkcode CallLimit}). Absent: no limits.
   */
  limits?: CallLimit[];
  /**
   * How long a `tools/call`'s idempotency key is kept after its first call, in hours (a positive
   * number, at most 8,760: a year); a repeat after that runs anew. Absent: 24.
   */
  idempotencyKeyTtlHours?: number;
  /**
   * Which `tools/call`s wait for a second person's approval, and who may give it (see
   * {@linkcode CallApprovalRule}); the first rule that applies to a call decides. Absent: none wait.
   */
  callApprovals?: CallApprovalRule[];
  /**
   * Which changes need a second owner's approval before publish, and who may approve (see
   * {@linkcode ApprovalPolicy}). Absent: nothing needs approval.
   */
  approval?: ApprovalPolicy;
  /**
   * What the audit log records of the arguments of calls to `confidential` and `restricted` tools
   * (see {@linkcode AuditSettings}). Absent: nothing.
   */
  audit?: AuditSettings;
}

/**
 * Every problem with a value as estate settings, each naming its field.
 *
 * @param value The candidate (the parsed `estate.json`).
 * @returns One sentence per problem; empty for valid settings.
 *
 * @example
 * ```ts
 * import { estateConfigProblems } from "@tool-estate/core";
 * import assert from "node:assert/strict";
 * assert.deepEqual(estateConfigProblems({ compatibility: "full-transitive" }), []);
 * assert.deepEqual(estateConfigProblems({ compatibility: "both", mode: 1 }), [
 *   'compatibility must be one of backward, backward-transitive, forward, forward-transitive, full, full-transitive, got "both"',
 *   "unknown field mode",
 * ]);
 * ```
 */
export function estateConfigProblems(value: unknown): string[] {
  if (!isObject(value)) return ["the estate's settings must be a JSON object"];
  const problems: string[] = [];
  if (
    value.compatibility !== undefined &&
    !isCompatibilityMode(value.compatibility)
  ) {
    problems.push(
      `compatibility must be one of ${COMPATIBILITY_MODES.join(", ")}, got ${
        JSON.stringify(value.compatibility)
      }`,
    );
  }
  if (value.limits !== undefined) problems.push(...callLimitProblems(value.limits));
  if (value.callApprovals !== undefined) {
    problems.push(...callApprovalProblems(value.callApprovals));
  }
  const ttl = value.idempotencyKeyTtlHours;
  if (
    ttl !== undefined &&
    !(typeof ttl === "number" && Number.isFinite(ttl) && ttl > 0 && ttl <= 8760)
  ) {
    problems.push(
      `idempotencyKeyTtlHours must be a number of hours above 0 and at most 8760, got ${
        JSON.stringify(ttl)
      }`,
    );
  }
  if (value.approval !== undefined) problems.push(...approvalPolicyProblems(value.approval));
  if (value.audit !== undefined) problems.push(...auditSettingsProblems(value.audit));
  for (const k of Object.keys(value)) {
    if (!ESTATE_CONFIG_FIELDS.includes(k)) {
      problems.push(`unknown field ${k}`);
    }
  }
  return problems;
}
