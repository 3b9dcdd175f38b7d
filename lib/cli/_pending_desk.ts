/**
 * The pending-call desk over an opened estate: its store's pending calls, its registry's specs,
 * the clock, its tasks (a rejection ends the caller's task) and its audit log. `estate approvals`
 * and `estate serve` both work through it.
 */
import type { PendingCallDesk } from "../../mod.ts";
import type { EstateStore } from "../store/mod.ts";

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
    specOf: (tool, version) => estate.registry.version(tool, version)?.spec,
    now,
    tasks: estate.tasks(),
    audit: (event) => estate.appendAudit([event]),
  };
}
