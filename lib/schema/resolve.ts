import { DEFAULT_BASE, type Location, RefIndex } from "./refs.ts";
import { isObject } from "../_object.ts";
import type { JsonSchema } from "./types.ts";

/** Follows a subschema's local `$ref` chain to the schema that describes its value. */
export type RefResolver = (schema: JsonSchema) => JsonSchema;

/**
 * Makes a resolver for the local `$ref`s of one schema document (JSON pointers, `$anchor`s and
 * `$id`s inside it). A `$ref` that does not resolve, or a cycle, stops the chain where it is.
 *
 * @param root The schema document.
 * @returns A function from a subschema of `root` to the schema its `$ref` chain ends at.
 *
 * @example
 * ```ts
 * import { createRefResolver } from "@tool-estate/core";
 * import assert from "node:assert/strict";
 * const root = { $defs: { money: { type: "number" } }, properties: { a: { $ref: "#/$defs/money" } } };
 * assert.deepEqual(createRefResolver(root)(root.properties.a), { type: "number" });
 * ```
 */
export function createRefResolver(root: JsonSchema): RefResolver {
  const index = new RefIndex(root);
  return (schema) => {
    const seen = new Set<object>();
    let current = schema;
    while (
      isObject(current) && typeof current.$ref === "string" &&
      !seen.has(current)
    ) {
      seen.add(current);
      const loc: Location = index.locationOf(current) ??
        { base: DEFAULT_BASE, segments: [] };
      const target = index.resolve(current.$ref, loc);
      if (!target) break;
      current = target.schema;
    }
    return current;
  };
}
