/**
 * Types shared by the validator, the schema checker, the change classifier and repair.
 *
 * @module
 */

/** A JSON Schema: an object schema or a boolean schema (`true` accepts all, `false` nothing). */
export type JsonSchema = boolean | { readonly [keyword: string]: unknown };

/**
 * One problem found in a value (by {@linkcode validateSchema}) or in a schema (by `checkSchema`).
 *
 * Paths use the `$` notation: `$` is the root, `.name` an identifier key, `[3]` an index and
 * `["a b"]` any other key (JSON-quoted), e.g. `$.legs[1].amount`.
 */
export interface SchemaIssue {
  /** Where in the value (or, for `checkSchema`, in the schema) the problem is. */
  path: string;
  /** The JSON Schema keyword that failed, e.g. `type`, `required`, `minimum`. */
  keyword: string;
  /** A human-readable sentence saying what is wrong. */
  message: string;
  /** Where in the schema the failing keyword is, in the same `$` notation, e.g. `$.properties.amount.minimum`. */
  schemaPath: string;
}

/** One segment of a path: a property name or an array index. */
export type PathSegment = string | number;
