/** The state of one classification, shared by the keyword comparers. */
import type { Change } from "./_change.ts";
import type { Step } from "./_places.ts";
import type { ValueKind } from "./_schema_facts.ts";
import type { Side } from "./_side.ts";
import type { SchemaBump } from "./schema_change.ts";

/** What a keyword comparer knows about the pair it compares. */
export interface CompareContext {
  old: Side;
  new: Side;
  /** The bump for a changed `description` or `title`. */
  descriptionBump: SchemaBump;
  /**
   * Compares two subschemas (old side, new side); paths in the result are relative to them.
   * `step` says how the instance location moves from the pair being compared to this one
   * (a member, an item, ...); without it the two apply in place (`allOf`, `not`, `then`, ...).
   */
  compare(o: unknown, n: unknown, step?: Step): Change[];
  /**
   * Whether callers may rely on a property of this name at the instance location of the pair
   * being compared: some old subschema that applies there names it (or matches it with a
   * pattern), or the comparison is of values, not of named properties.
   */
  relies(name: string): boolean;
  /**
   * Whether every property counts, named or not: outputs, where what the old contract allowed is
   * all that matters, and places under `contains`.
   */
  strict(): boolean;
  /**
   * How many old subschemas that apply to the same instance as the pair being compared have
   * `unevaluatedProperties` or `unevaluatedItems`: what those see depends on every keyword here.
   */
  watchers(kw: "unevaluatedProperties" | "unevaluatedItems"): number;
}

/** Facts about the subschema pair being compared. */
export interface OldFacts {
  /** The kinds of value the old subschema may accept (over-approximated). */
  kinds: Set<ValueKind>;
  /** Only integers among the old subschema's numbers: bounds are compared as integer bounds. */
  integerOnly: boolean;
  /** The finite set of values the old subschema may accept (over-approximated), when `enum`/`const` bound it. */
  domain: unknown[] | undefined;
  /** The kinds of value the new subschema may accept (over-approximated). */
  newKinds: Set<ValueKind>;
  /** Only integers among the new subschema's numbers. */
  newIntegerOnly: boolean;
}
