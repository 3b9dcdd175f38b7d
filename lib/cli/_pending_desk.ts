/**
 * The pending-call desk over an opened estate: its store's pending calls, its registry's specs,
 * the clock, its tasks (a rejection ends the caller's task) and its audit log. `estate approvals` and `estate serve` both work through it.
 */
import type { PendingCallDesk, ToolRegistry, ToolSpec } from "../../mod.ts";
import type { EstateStore } from "../store/mod.ts";

/**
 * The spec of `tool` at `version` in `registry`, whatever its lifecycle state.
 *
 * @param registry The estate's registry.
 * @param tool The tool.
 * @param version The version.
 * @returns The spec, or undefined when the estate has no such version.
 */
export function specAt(
  registry: ToolRegistry,
  tool: string,
  version: string,
): ToolSpec | undefined {
  return registry.versions(tool).find((r) => r.spec.version === version)?.spec;
}

/**
 * The desk of an opened estate.
 *
 * @param estate The estate.
 * @param now The clock.
 * @returns The desk.
 */
export function pendingDesk(estate: EstateStore, now: () => number): PendingCallDesk {
  return {
    store: estate.pendingCalls(),
    specOf: (tool, version) => specAt(estate.registry, tool, version),
    now,
    tasks: estate.tasks(),
    audit: (event) => estate.appendAudit([event]),
  };
}
