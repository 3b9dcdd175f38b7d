/**
 * The kinds of JSON value the classifier reasons about, in a module of their own so that both
 * `_side.ts` and `_schema_facts.ts` can name them without importing each other.
 *
 * @module
 */

/** A kind of JSON value; numbers split into integers and the rest so `integer` is exact. */
export type ValueKind =
  | "null"
  | "boolean"
  | "integer"
  | "fraction"
  | "string"
  | "array"
  | "object";
