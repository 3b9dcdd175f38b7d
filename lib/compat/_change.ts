/**
 * The classifier's internal change record (paths as segments, relative to the subschema being
 * compared) and the small helpers that build, move and downgrade it.
 */
import type { JsonSchema, PathSegment } from "../schema/types.ts";
import { maxBump, type SchemaBump, type SchemaChangeKind } from "./schema_change.ts";

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
  /**
   * Whether the edited keyword now accepts only values it accepted before (a pure tightening:
   * `maximum` lowered, `enum` values removed, `pattern` added). When such a change provably
   * rejects no value the old schema accepts, the accepted values are exactly the same: `patch`.
   * Any other change that rejects no old value may still accept new ones: `minor`.
   */
  narrows?: boolean;
  /**
   * A change assumed again where a `$ref` cycle comes back to a pair still being compared: the
   * pair's own changes, found where the cycle began. It carries their bump to whatever leans on
   * the cycle, and is left out of the result where the changes it repeats already decide the bump.
   */
  echo?: true;
}

export { maxBump };

/** The largest bump of a list of changes (`patch` for none). */
export function topBump(changes: readonly { bump: SchemaBump }[]): SchemaBump {
  return changes.reduce<SchemaBump>((b, c) => maxBump(b, c.bump), "patch");
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
  extra: { check?: JsonSchema; narrows?: boolean } = {},
): Change {
  return { segs, kind, bump, message, ...extra };
}

/** Moves changes under a path prefix; the `check` only applies at its own level, so it is dropped. */
export function under(
  prefix: readonly PathSegment[],
  changes: readonly Change[],
): Change[] {
  return changes.map((c) => ({
    segs: [...prefix, ...c.segs],
    kind: c.kind,
    bump: c.bump,
    message: c.message,
    ...(c.echo ? { echo: true as const } : {}),
  }));
}

/**
 * Lowers a change that provably rejects no value the old schema accepts. It becomes `patch` only
 * when `exact` — the edit provably accepts no new value either (a pure tightening, or a keyword
 * family the new schema accepts no value of) — else `minor`: `patch` always means "the same
 * values", which is what a negative position such as `not` relies on. The reason is appended to
 * the message.
 */
export function downgrade(c: Change, reason: string, exact: boolean): Change {
  if (c.bump === "patch") return c;
  const bump: SchemaBump = exact ? "patch" : "minor";
  if (c.bump === "minor" && bump === "minor") return c;
  return { ...c, bump, message: `${stripConsequence(c.message)}; ${reason}` };
}

/**
 * Whether a change leaves the accepted values exactly as they were. `patch` means that; a changed
 * `default` or annotation is `minor` or `patch` by policy but accepts the same values too.
 */
export function keepsValues(c: Change): boolean {
  return c.bump === "patch" || c.kind === "annotation-changed" ||
    c.kind === "default-changed";
}

/**
 * The changes of a subschema in a non-monotone position — under `not`, in `if`, in a `oneOf`
 * branch beside others, in `contains` with `maxContains` — where a subschema that accepts more can
 * make the root reject more. Kept (moved under `prefix`) when they leave the subschema's values as
 * they were; otherwise one `undecidable` major change at `prefix` saying `why`: the usual shortcut
 * ("the new subschema accepts every value the old one did") proves nothing here.
 */
export function nonMonotone(
  prefix: readonly PathSegment[],
  inner: readonly Change[],
  why: string,
): Change[] {
  if (inner.every(keepsValues)) return under(prefix, inner);
  return [change([...prefix], "undecidable", "major", why)];
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
