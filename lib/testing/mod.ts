/**
 * Testing helpers: fast-check arbitraries for the values a JSON Schema accepts.
 *
 * @module
 */
export {
  arbitraryForSchema,
  type ArbitraryForSchemaOptions,
  type SchemaArbitrary,
} from "./arbitrary.ts";
export { SchemaGenerationError } from "./generation_error.ts";
export type { JsonSchema } from "../schema/types.ts";
