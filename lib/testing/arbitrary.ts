import type { Arbitrary } from "fast-check";
import { isValid } from "../schema/validate.ts";
import type { JsonSchema } from "../schema/types.ts";
import { BoundedFilter } from "./_bounded_filter.ts";
import { Builder } from "./_builder.ts";
import { SchemaGenerationError } from "./generation_error.ts";

/**
 * The fast-check `Arbitrary<unknown>` that {@linkcode arbitraryForSchema} returns: pass it to
 * `fc.property`, `fc.assert`, `fc.sample` or `fc.gen`.
 *
 * @internal It is fast-check's own type, named here because `deno doc --lint` reports types from
 * other packages as private (denoland/deno#27364).
 */
export type SchemaArbitrary = Arbitrary<unknown>;

/** Options for {@linkcode arbitraryForSchema}. */
export interface ArbitraryForSchemaOptions {
  /**
   * How many `$ref`s deep a recursive schema is expanded. Beyond it, optional properties, array
   * items and `anyOf`/`oneOf` branches that recurse further are left out; a required one throws.
   * Default 3.
   */
  maxRefDepth?: number;
  /**
   * Also add up to two properties the schema does not name, where `additionalProperties` allows
   * them. Default `false`: values use only the properties the schema names, which is what a caller
   * may rely on.
   */
  extraProperties?: boolean;
  /** How many items an array has at most beyond its `minItems` (or its `prefixItems`). Default 4. */
  maxArrayLength?: number;
  /**
   * How many candidates in a row a filtered keyword (`not`, `oneOf`, `if`, `uniqueItems`,
   * `propertyNames`, a `pattern` with lengths, ...) may reject before generation throws a
   * {@linkcode SchemaGenerationError}. Default 200.
   */
  maxAttempts?: number;
}

/**
 * A fast-check arbitrary for the values a JSON Schema accepts, using only the properties the
 * schema names (`properties`, `required` and `dependentRequired` names). Every value it yields
 * passes `validateSchema(schema, value)`: each value is checked against the whole schema before
 * it is yielded.
 *
 * It generates directly from `type`, `enum`, `const`, numeric bounds (inclusive and exclusive)
 * and `multipleOf`, string lengths, `pattern` (with `fc.stringMatching`), the formats `date`,
 * `date-time`, `time`, `email`, `uuid`, `uri`, `ipv4`, `ipv6` and `hostname`, required and
 * optional properties, `patternProperties` and `additionalProperties` for the names it uses,
 * `dependentRequired`, `prefixItems`/`items` (and the draft-07 forms), `minItems`/`maxItems`,
 * `uniqueItems`, `contains`, `allOf` (merged), `anyOf`/`oneOf` (a branch at a time), `if`/`then`/
 * `else` and local `$ref`s up to `maxRefDepth`. Keywords it cannot generate for — `not`,
 * `propertyNames`, `dependentSchemas`, the one-branch-only rule of `oneOf`, a pattern together
 * with a format — are met by filtering, up to `maxAttempts` candidates in a row.
 *
 * @param schema The schema, e.g. a tool's `inputSchema`.
 * @param options Recursion depth, extra properties, array length and the filtering budget.
 * @returns An arbitrary of valid values.
 * @throws {SchemaGenerationError} When the schema accepts no value, its constraints contradict
 * each other, or a required part recurses beyond `maxRefDepth`. The same error is thrown while
 * generating when a filtered keyword exhausts `maxAttempts`.
 *
 * @example
 * ```ts
 * import { arbitraryForSchema } from "@tool-estate/core/testing";
 * import { validateSchema } from "@tool-estate/core";
 * import fc from "fast-check";
 * import assert from "node:assert/strict";
 *
 * const schema = {
 *   type: "object",
 *   properties: {
 *     reference: { type: "string", pattern: "^PMT-[0-9]{3}$" },
 *     amount: { type: "number", exclusiveMinimum: 0, multipleOf: 0.01 },
 *     currency: { enum: ["EUR", "GBP"] },
 *     valueDate: { type: "string", format: "date" },
 *   },
 *   required: ["reference", "amount"],
 *   additionalProperties: false,
 * };
 * fc.assert(fc.property(arbitraryForSchema(schema), (args) => {
 *   assert.deepEqual(validateSchema(schema, args), []);
 * }), { numRuns: 50 });
 * ```
 */
export function arbitraryForSchema(
  schema: JsonSchema,
  options: ArbitraryForSchemaOptions = {},
): SchemaArbitrary {
  const maxAttempts = options.maxAttempts ?? 200;
  const builder = new Builder(schema, {
    maxRefDepth: options.maxRefDepth ?? 3,
    extraProperties: options.extraProperties ?? false,
    maxArrayLength: options.maxArrayLength ?? 4,
    maxAttempts,
  });
  return new BoundedFilter(
    builder.build(schema, [], 0),
    (v) => isValid(schema, v),
    maxAttempts,
    () =>
      new SchemaGenerationError(
        "$",
        `${maxAttempts} candidates in a row failed validation against the whole schema`,
      ),
  );
}
