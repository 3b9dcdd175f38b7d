/** Who called a version, as `estate impact` and `estate retire` print them. */
import type { VersionImpact } from "../../mod.ts";

/** "12 calls from 3 principals". */
export function callers(t: { calls: number; callers: unknown[] }): string {
  return `${t.calls} call${t.calls === 1 ? "" : "s"} from ${t.callers.length} principal${
    t.callers.length === 1 ? "" : "s"
  }`;
}

/** One line per caller: principal, calls, last seen. */
export function callerRows(t: VersionImpact["recent"]): string {
  return t.callers.map((r) =>
    `  ${r.principal.padEnd(24)} ${String(r.calls).padStart(6)} calls, last seen ${r.lastSeen}\n`
  ).join("");
}
