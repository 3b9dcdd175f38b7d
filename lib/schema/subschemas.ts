/**
 * Every subschema a schema holds, by the keyword table (`keywords.ts`): one walk for `$ref`
 * indexing, the classifier, the poisoning scan and the value generators.
 *
 * @module
 */
import {
  ARRAY_SUBSCHEMA_KEYWORDS,
  MAP_SUBSCHEMA_KEYWORDS,
  SINGLE_SUBSCHEMA_KEYWORDS,
} from "./keywords.ts";
import type { JsonSchema, PathSegment } from "./types.ts";
import { isObject } from "../_object.ts";

/** Whether a value can be a schema (an object or a boolean). */
export function isSchema(v: unknown): v is JsonSchema {
  return typeof v === "boolean" || isObject(v);
}

/**
 * Calls `visit` for each direct subschema of `schema`, with the keyword segments that lead to it
 * (e.g. `["properties", "amount"]`). Values that are not schemas are skipped.
 */
export function forEachSubschema(
  schema: JsonSchema,
  visit: (sub: JsonSchema, segments: PathSegment[]) => void,
): void {
  if (!isObject(schema)) return;
  for (const kw of SINGLE_SUBSCHEMA_KEYWORDS) {
    if (Object.hasOwn(schema, kw) && isSchema(schema[kw])) {
      visit(schema[kw] as JsonSchema, [kw]);
    }
  }
  for (const kw of ARRAY_SUBSCHEMA_KEYWORDS) {
    const v = Object.hasOwn(schema, kw) ? schema[kw] : undefined;
    if (Array.isArray(v)) {
      v.forEach((sub, i) => {
        if (isSchema(sub)) visit(sub, [kw, i]);
      });
    }
  }
  for (const kw of MAP_SUBSCHEMA_KEYWORDS) {
    const v = Object.hasOwn(schema, kw) ? schema[kw] : undefined;
    if (isObject(v)) {
      for (const name of Object.keys(v)) {
        if (isSchema(v[name])) visit(v[name] as JsonSchema, [kw, name]);
      }
    }
  }
}
