/**
 * What one publish did on its way to its decision, told as it happens: each candidate spec
 * checked from a value (`parsed`) and each schema pair classified (`classified`). A publish
 * decides once — one parse at the edge, one plan, which the store adopts — and a trace is how a
 * test sees it (`tests/publish_once_test.ts`). Loading stored versions is not traced.
 *
 * @example
 * ```ts
 * import { type PublishTrace, ToolRegistry, type ToolSpec } from "@tool-estate/core";
 * import assert from "node:assert/strict";
 *
 * const seen: string[] = [];
 * const trace: PublishTrace = {
 *   parsed: (subject) => seen.push(`parsed ${subject}`),
 *   classified: (schema, subject) => seen.push(`classified ${schema} ${subject}`),
 * };
 * const v1: ToolSpec = {
 *   name: "fx.quote", version: "1.0.0", title: "Quote", description: "Quotes a currency rate.",
 *   inputSchema: { type: "object", properties: { pair: { type: "string" } } },
 *   sideEffect: "read", requiredScopes: ["fx:read"], dataClassification: "internal",
 *   tenants: ["wholesale"], owner: "fx-desk",
 * };
 * const registry = new ToolRegistry({ trace });
 * registry.publish(v1);
 * registry.publish({ ...v1, version: "1.0.1", title: "Quote a rate" });
 * assert.deepEqual(seen, [
 *   "parsed fx.quote@1.0.0",
 *   "parsed fx.quote@1.0.1",
 *   "classified input fx.quote@1.0.1",
 * ]);
 * ```
 *
 * @module
 */

/** Which schema of a tool a classification compared. */
export type TracedSchema = "input" | "output";

/** Told what a publish did on its way to its decision (each member optional). */
export interface PublishTrace {
  /**
   * A candidate was checked as a tool spec from a value (`parseToolSpec`), to be kept.
   *
   * @param subject What the spec was read from: a file, or `name@version`.
   */
  parsed?(subject: string): void;
  /**
   * A candidate's schema was classified against the published versions' (`classifyForMode`);
   * the output schema is classified only when one of them has one.
   *
   * @param schema `input` or `output`.
   * @param subject The candidate, `name@version`.
   */
  classified?(schema: TracedSchema, subject: string): void;
}
