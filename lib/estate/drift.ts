/**
 * Drift: what the gateway observed of an upstream server that differs from what the estate
 * registered — a tool's schema changed within its contract or beyond it (quarantined), its
 * description or annotations changed (a rug-pull signal), the server vanished, failed its identity
 * check, or offered a tool its record does not allow. {@linkcode DriftRecord} is one observation,
 * as the estate keeps them (one JSON object a line of `<estate>/drift.jsonl`, written and read by
 * the store); {@linkcode driftRecordProblems} checks one. Pure.
 *
 * @module
 */
import { isObject } from "../_object.ts";
import type { SchemaBump } from "../compat/schema_change.ts";
import { isServerId, isToolName } from "./spec.ts";

/**
 * What kind of change was observed:
 *
 * - `compatible`: a schema changed within the registered version's contract (logged);
 * - `quarantined`: a change that would need a bigger bump than registered: callers keep the
 *   registered contract until a version is published;
 * - `description`: the upstream's description changed (a rug-pull signal; principals still read
 *   the registered one);
 * - `annotations`: its annotations changed;
 * - `unavailable`: the server (or the tool) vanished or timed out;
 * - `cleared`: a quarantined tool is back within its registered contract;
 * - `refused-identity`: the server failed its identity check (nothing of it is used);
 * - `dropped-tool`: the server offered a tool its record does not allow (dropped).
 */
export type DriftKind =
  | "compatible"
  | "quarantined"
  | "cleared"
  | "description"
  | "annotations"
  | "unavailable"
  | "refused-identity"
  | "dropped-tool";

/** Every {@linkcode DriftKind}. */
export const DRIFT_KINDS: readonly DriftKind[] = [
  "compatible",
  "quarantined",
  "cleared",
  "description",
  "annotations",
  "unavailable",
  "refused-identity",
  "dropped-tool",
];

/** The kinds about one registered tool: they name the tool and its registered version. */
const ABOUT_A_REGISTERED_TOOL: readonly DriftKind[] = [
  "compatible",
  "quarantined",
  "cleared",
  "description",
  "annotations",
];

/** One observed change of an upstream server, as a line of `drift.jsonl` holds it. */
export interface DriftRecord {
  /** When it was observed (ISO 8601). */
  at: string;
  /** The server's id. */
  server: string;
  /**
   * The tool, as the estate names it (for `dropped-tool`, the name the server offered). Absent
   * for what concerns the whole server (`unavailable`, `refused-identity`).
   */
  tool?: string;
  /** The version principals see (required for `compatible`, `quarantined`, `description`, `annotations`). */
  registeredVersion?: string;
  /** What kind of change. */
  kind: DriftKind;
  /** The bump the observed schema change would need against the registered version. */
  bump?: SchemaBump;
  /** What was observed, in a sentence. */
  details: string;
  /**
   * The evidence, as JSON (schema changes, the live description and its poisoning signals, the
   * identity presented): for a reader to act on, never shown to a principal.
   */
  evidence?: Record<string, unknown>;
}

const FIELDS = new Set([
  "at",
  "server",
  "tool",
  "registeredVersion",
  "kind",
  "bump",
  "details",
  "evidence",
]);

/**
 * Every problem with a value as a drift record, each naming its field.
 *
 * @param value The candidate (a parsed line of `drift.jsonl`).
 * @returns One sentence per problem; empty for a valid record.
 *
 * @example
 * ```ts
 * import { driftRecordProblems } from "@tool-estate/core";
 * import assert from "node:assert/strict";
 * assert.deepEqual(driftRecordProblems({
 *   at: "2026-12-01T09:00:00.000Z", server: "crm-mcp", tool: "crm.customer.get", registeredVersion: "1.0.0",
 *   kind: "quarantined", bump: "major", details: "removed property customerId from the input schema",
 * }), []);
 * assert.deepEqual(driftRecordProblems({ at: "yesterday", server: "crm-mcp", kind: "description", details: "" }), [
 *   "at must be an ISO 8601 time, got \"yesterday\"",
 *   "tool is required for kind description",
 *   "registeredVersion is required for kind description",
 *   "details must be a non-empty string",
 * ]);
 * ```
 */
export function driftRecordProblems(value: unknown): string[] {
  if (!isObject(value)) return ["a drift record must be a JSON object"];
  const problems: string[] = [];
  const v = value;
  if (typeof v.at !== "string" || Number.isNaN(Date.parse(v.at))) {
    problems.push(`at must be an ISO 8601 time, got ${JSON.stringify(v.at)}`);
  }
  if (typeof v.server !== "string" || !isServerId(v.server)) {
    problems.push(
      `server must be a server id, got ${JSON.stringify(v.server)}`,
    );
  }
  const kind = v.kind as DriftKind;
  if (!DRIFT_KINDS.includes(kind)) {
    problems.push(
      `kind must be one of ${DRIFT_KINDS.join(", ")}, got ${JSON.stringify(v.kind)}`,
    );
  }
  if (
    v.tool !== undefined && (typeof v.tool !== "string" || !isToolName(v.tool))
  ) {
    problems.push(`tool must be a tool name, got ${JSON.stringify(v.tool)}`);
  } else if (
    v.tool === undefined &&
    (ABOUT_A_REGISTERED_TOOL.includes(kind) || kind === "dropped-tool")
  ) {
    problems.push(`tool is required for kind ${kind}`);
  }
  if (
    v.registeredVersion !== undefined && typeof v.registeredVersion !== "string"
  ) {
    problems.push("registeredVersion must be a string");
  } else if (
    v.registeredVersion === undefined && ABOUT_A_REGISTERED_TOOL.includes(kind)
  ) {
    problems.push(`registeredVersion is required for kind ${kind}`);
  }
  if (
    v.bump !== undefined &&
    !["patch", "minor", "major"].includes(v.bump as string)
  ) {
    problems.push(
      `bump must be patch, minor or major, got ${JSON.stringify(v.bump)}`,
    );
  }
  if (typeof v.details !== "string" || v.details.trim() === "") {
    problems.push("details must be a non-empty string");
  }
  if (v.evidence !== undefined && !isObject(v.evidence)) {
    problems.push("evidence must be a JSON object");
  }
  for (const k of Object.keys(v)) {
    if (!FIELDS.has(k)) problems.push(`unknown field ${k}`);
  }
  return problems;
}
