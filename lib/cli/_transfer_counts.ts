/** What `estate migrate` and `estate export` copied, in words. */
import type { TransferCounts } from "../store/pg/transfer.ts";

/** "12 tools, 15 versions, 1,000 calls, …": what a transfer copied. */
export function counts(c: TransferCounts): string {
  const n = (k: number, one: string, many = `${one}s`) =>
    `${k.toLocaleString("en")} ${k === 1 ? one : many}`;
  return [
    n(c.tools, "tool"),
    n(c.versions, "version"),
    n(c.lifecycleEvents, "lifecycle event"),
    n(c.calls, "stored call"),
    n(c.servers, "server"),
    n(c.drift, "drift record"),
    n(c.principals, "principal"),
    // An estate without an audit log says nothing of one.
    ...(c.audit ? [n(c.audit, "audit record")] : []),
  ].join(", ");
}
