/**
 * Property-testing support for tool schemas: {@linkcode arbitraryForSchema} turns a JSON Schema
 * into a fast-check arbitrary of the values it accepts, using only the properties the schema
 * names — the values a caller may rely on. Use it to test a tool handler against every shape of
 * valid input, or to check that a new schema version still accepts what the old one did.
 *
 * ```ts
 * import { arbitraryForSchema } from "@tool-estate/core/testing";
 * import { classifySchemaChange, validateSchema } from "@tool-estate/core";
 * import fc from "fast-check";
 * import assert from "node:assert/strict";
 *
 * const v1 = { type: "object", properties: { limit: { type: "integer", maximum: 100 } } };
 * const v2 = { type: "object", properties: { limit: { type: "integer", maximum: 500 } } };
 * assert.equal(classifySchemaChange(v1, v2).bump, "minor");
 * fc.assert(fc.property(arbitraryForSchema(v1), (args) => {
 *   assert.deepEqual(validateSchema(v2, args), []);
 * }), { numRuns: 50 });
 * ```
 *
 * @module
 */
export {
  arbitraryForSchema,
  type ArbitraryForSchemaOptions,
  type JsonSchema,
  type SchemaArbitrary,
  SchemaGenerationError,
} from "./lib/testing/mod.ts";
