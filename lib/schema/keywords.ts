/**
 * The keywords this library understands, by role. One list serves the validator, the schema checker
 * and the change classifier.
 *
 * @module
 */

/** Keywords whose value is one subschema. */
export const SINGLE_SUBSCHEMA_KEYWORDS: readonly string[] = [
  "additionalItems",
  "additionalProperties",
  "contains",
  "else",
  "if",
  "items",
  "not",
  "propertyNames",
  "then",
];

/** Keywords whose value is an array of subschemas (`items` in its draft-07 array form too). */
export const ARRAY_SUBSCHEMA_KEYWORDS: readonly string[] = [
  "allOf",
  "anyOf",
  "oneOf",
  "prefixItems",
  "items",
];

/** Keywords whose value maps names to subschemas (`dependencies` where the value is a schema). */
export const MAP_SUBSCHEMA_KEYWORDS: readonly string[] = [
  "$defs",
  "definitions",
  "dependencies",
  "dependentSchemas",
  "patternProperties",
  "properties",
];

/** Assertion and applicator keywords the validator enforces. */
export const ENFORCED_KEYWORDS: readonly string[] = [
  "$ref",
  "additionalItems",
  "additionalProperties",
  "allOf",
  "anyOf",
  "const",
  "contains",
  "dependencies",
  "dependentRequired",
  "dependentSchemas",
  "else",
  "enum",
  "exclusiveMaximum",
  "exclusiveMinimum",
  "format",
  "if",
  "items",
  "maxContains",
  "maxItems",
  "maxLength",
  "maxProperties",
  "maximum",
  "minContains",
  "minItems",
  "minLength",
  "minProperties",
  "minimum",
  "multipleOf",
  "not",
  "oneOf",
  "pattern",
  "patternProperties",
  "prefixItems",
  "properties",
  "propertyNames",
  "required",
  "then",
  "type",
  "uniqueItems",
];

/** Keywords that never change which values are accepted: annotations and structure. */
export const ANNOTATION_KEYWORDS: readonly string[] = [
  "$anchor",
  "$comment",
  "$defs",
  "$id",
  "$schema",
  "contentEncoding",
  "contentMediaType",
  "contentSchema",
  "default",
  "definitions",
  "deprecated",
  "description",
  "examples",
  "readOnly",
  "title",
  "writeOnly",
];

/** Keywords of JSON Schema this library recognises but cannot enforce; `checkSchema` reports them. */
export const UNSUPPORTED_KEYWORDS: readonly string[] = [
  "$dynamicAnchor",
  "$dynamicRef",
  "$recursiveAnchor",
  "$recursiveRef",
  "$vocabulary",
  "unevaluatedItems",
  "unevaluatedProperties",
];

/** The formats the validator asserts; any other format name passes. */
export const ASSERTED_FORMATS: readonly string[] = [
  "date",
  "date-time",
  "email",
  "hostname",
  "ipv4",
  "ipv6",
  "time",
  "uri",
  "uuid",
];
