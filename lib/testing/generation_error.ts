/**
 * Thrown by {@linkcode arbitraryForSchema} when it cannot produce values for a schema: the schema
 * (or a required part of it) accepts nothing, its constraints contradict each other, its `$ref`s
 * recurse deeper than allowed with nothing optional to leave out, or a keyword it meets only by
 * filtering (`not`, `oneOf`, `if`, `propertyNames`, a pattern together with lengths, ...) rejected
 * every candidate within the attempt budget.
 *
 * @example
 * ```ts
 * import { arbitraryForSchema, SchemaGenerationError } from "@tool-estate/core/testing";
 * import assert from "node:assert/strict";
 *
 * assert.throws(
 *   () => arbitraryForSchema({ type: "integer", minimum: 5, maximum: 1 }),
 *   SchemaGenerationError,
 * );
 * ```
 */
export class SchemaGenerationError extends Error {
  /** Where in the schema generation failed, in the `$` notation, e.g. `$.properties.amount`. */
  readonly path: string;

  /**
   * Creates the error; its message names the path and the reason.
   *
   * @param path Where in the schema generation failed.
   * @param reason Why no value could be generated there.
   */
  constructor(path: string, reason: string) {
    super(`Cannot generate a value for ${path}: ${reason}`);
    this.name = "SchemaGenerationError";
    this.path = path;
  }
}
