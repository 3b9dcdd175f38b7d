/**
 * The estate on disk (`@tool-estate/core/store`): tool versions, lifecycles, stored calls, the
 * servers the estate did not write, and example principals as files a team reviews in git, loaded into a `ToolRegistry` and written
 * durably and atomically. A runtime edge: it uses `node:fs`, `node:path`, `node:os` and
 * `node:process`, which Deno and Node both provide; the core does not depend on it.
 *
 * ```ts
 * import { EstateDir } from "@tool-estate/core/store";
 * import assert from "node:assert/strict";
 * import fs from "node:fs";
 *
 * fs.mkdirSync(".scratch", { recursive: true });
 * const dir = fs.mkdtempSync(".scratch/estate-");
 * const estate = EstateDir.open(dir);
 * const spec = {
 *   name: "payments.lookup", version: "1.0.0", title: "Look up a payment",
 *   description: "Returns a wholesale payment's status by reference. Reads the payments system of record.",
 *   inputSchema: { type: "object", properties: { reference: { type: "string" } }, required: ["reference"] },
 *   sideEffect: "read" as const, requiredScopes: ["payments:read"], dataClassification: "confidential" as const,
 *   tenants: ["wholesale"], owner: "payments-platform",
 * };
 * assert.equal(estate.publish(spec).status, "published");
 * estate.appendCalls("payments.lookup", [
 *   { version: "1.0.0", arguments: { reference: "PMT-000042" }, principal: "ops-bot", at: "2026-01-05T09:00:00Z" },
 * ]);
 *
 * const reopened = EstateDir.open(dir);
 * assert.equal(reopened.registry.latest("payments.lookup")?.version, "1.0.0");
 * assert.deepEqual([...reopened.readCalls("payments.lookup")].map((c) => c.principal), ["ops-bot"]);
 * fs.rmSync(dir, { recursive: true });
 * ```
 *
 * @module
 */
export { CorpusError, type CorpusErrorPosition } from "./corpus_error.ts";
export {
  type DeprecateOptions,
  EstateDir,
  type EstateDirOptions,
  type EstatePublishResult,
  type EstateServerResult,
  type RetireOptions,
} from "./estate_dir.ts";
export {
  appendDriftLog,
  DRIFT_FILE,
  type DriftKind,
  type DriftLogOptions,
  type DriftRecord,
  readDriftLog,
} from "./drift_log.ts";
export { type EstatePrincipal, parsePrincipals } from "./principals.ts";
export type {
  Awaitable,
  CallsAfter,
  CallsAfterOptions,
  EstateStore,
  StoreChange,
  StoreDeprecateOptions,
  StoreRetireOptions,
  StoreWatch,
  Stream,
} from "./store.ts";
export {
  readCallsFile,
  type ReadCallsOptions,
  type TornLine,
  tornLineMessage,
} from "./read_calls.ts";
export {
  type ApprovalPlan,
  ApprovalRequiredError,
  type ApprovedPublishResult,
  draftApproval,
  findProposal,
  planApproval,
  proposalId,
  propose,
  publishApproved,
} from "./proposals.ts";
