/** The state of one classification, shared by the keyword comparers. */
import type { Change } from "./_change.ts";
import type { Cat } from "./_schema_facts.ts";
import type { Side } from "./_side.ts";
import type { SchemaBump } from "./schema_change.ts";

/** What a keyword comparer knows about the pair it compares. */
export interface Ctx {
  old: Side;
  new: Side;
  /** The bump for a changed `description` or `title`. */
  descriptionBump: SchemaBump;
  /** Compares two subschemas (old side, new side); paths in the result are relative to them. */
  compare(o: unknown, n: unknown): Change[];
}

/** Facts about the old subschema of the pair being compared. */
export interface OldFacts {
  /** The kinds of value it may accept (over-approximated). */
  cats: Set<Cat>;
  /** Only integers among its numbers: bounds are compared as integer bounds. */
  integerOnly: boolean;
  /** The finite set of values it may accept (over-approximated), when `enum`/`const` bound it. */
  domain: unknown[] | undefined;
}
