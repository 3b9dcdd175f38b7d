/**
 * The classifier's internal change record (paths as segments, relative to the subschema being
 * compared) and the small helpers that build, move and downgrade it.
 */
import type { JsonSchema, PathSegment } from "../schema/types.ts";
import type { SchemaBump, SchemaChangeKind } from "./schema_change.ts";

/** A change whose path is relative to the subschema pair that produced it. */
export interface Change {
  segs: PathSegment[];
  kind: SchemaChangeKind;
  bump: SchemaBump;
  message: string;
  /**
   * For a change to a value keyword at this level: a schema holding the new keyword(s). When the
   * old schema only allows finitely many values (`enum`/`const`) and all of them pass this schema,
   * the change affects no caller and is downgraded.
   */
  check?: JsonSchema;
  /** Whether the edit may also accept new values (so a downgrade gives `minor`, not `patch`). */
  widens?: boolean;
}

const RANK: Record<SchemaBump, number> = { patch: 0, minor: 1, major: 2 };

/** The larger of two bumps. */
export function maxBump(a: SchemaBump, b: SchemaBump): SchemaBump {
  return RANK[a] >= RANK[b] ? a : b;
}

/** Whether a list holds a major change. */
export function hasMajor(changes: readonly Change[]): boolean {
  return changes.some((c) => c.bump === "major");
}

/** Builds a change. */
export function change(
  segs: PathSegment[],
  kind: SchemaChangeKind,
  bump: SchemaBump,
  message: string,
  extra: { check?: JsonSchema; widens?: boolean } = {},
): Change {
  return { segs, kind, bump, message, ...extra };
}

/** Moves changes under a path prefix; the `check` only applies at its own level, so it is dropped. */
export function under(prefix: readonly PathSegment[], changes: readonly Change[]): Change[] {
  return changes.map((c) => ({
    segs: [...prefix, ...c.segs],
    kind: c.kind,
    bump: c.bump,
    message: c.message,
  }));
}

/**
 * Lowers a change that provably rejects no value the old schema accepts: to `minor` when the edit
 * may accept new values, else `patch`; the reason is appended to the message.
 */
export function downgrade(c: Change, reason: string, toPatch = false): Change {
  if (c.bump === "patch") return c;
  const bump: SchemaBump = !toPatch && (c.widens || c.bump === "minor") ? "minor" : "patch";
  if (c.bump === "minor" && bump === "minor") return c;
  return { ...c, bump, message: `${stripConsequence(c.message)}; ${reason}` };
}

/** Drops the ": callers that ..." consequence from a message whose consequence no longer holds. */
function stripConsequence(message: string): string {
  const i = message.indexOf(": callers");
  return i === -1 ? message : message.slice(0, i);
}

/** A short JSON rendering of a value for messages. */
export function show(v: unknown): string {
  const text = JSON.stringify(v) ?? String(v);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

/** A list of values for messages: the first few, then how many more. */
export function showList(values: readonly unknown[]): string {
  const head = values.slice(0, 5).map(show).join(", ");
  return values.length > 5 ? `${head} and ${values.length - 5} more` : head;
}
