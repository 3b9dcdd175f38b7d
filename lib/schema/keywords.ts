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

/** The assertion and applicator keywords the validator enforces. */
export type EnforcedKeyword =
  | "$ref"
  | "additionalItems"
  | "additionalProperties"
  | "allOf"
  | "anyOf"
  | "const"
  | "contains"
  | "dependencies"
  | "dependentRequired"
  | "dependentSchemas"
  | "else"
  | "enum"
  | "exclusiveMaximum"
  | "exclusiveMinimum"
  | "format"
  | "if"
  | "items"
  | "maxContains"
  | "maxItems"
  | "maxLength"
  | "maxProperties"
  | "maximum"
  | "minContains"
  | "minItems"
  | "minLength"
  | "minProperties"
  | "minimum"
  | "multipleOf"
  | "not"
  | "oneOf"
  | "pattern"
  | "patternProperties"
  | "prefixItems"
  | "properties"
  | "propertyNames"
  | "required"
  | "then"
  | "type"
  | "uniqueItems";

/** Keywords of JSON Schema that may change which values are accepted but the validator ignores. */
export type UnenforcedKeyword =
  | "$dynamicAnchor"
  | "$dynamicRef"
  | "$recursiveAnchor"
  | "$recursiveRef"
  | "$vocabulary"
  | "unevaluatedItems"
  | "unevaluatedProperties";

/** Every keyword that may change which values a schema accepts. */
export type ValueKeyword = EnforcedKeyword | UnenforcedKeyword;

/**
 * Which of the classifier's comparers decides a change to a keyword (one file each under
 * `lib/compat/`); `none`: no comparer, so a change to it is undecidable.
 */
export type CompareFamily =
  | "reference"
  | "type"
  | "enum"
  | "numeric"
  | "string"
  | "array"
  | "object"
  | "applicator"
  | "unevaluated"
  | "none";

/**
 * A keyword, defined once; every form reads it (after ajv's `KeywordDefinition`): whether the
 * validator enforces it, which instances it tests, which comparer decides its changes, how the
 * value generator honours it, and what it tells `unevaluatedProperties`/`unevaluatedItems`.
 */
export interface KeywordDefinition {
  /** Whether the validator enforces it; `checkSchema` reports the others. */
  enforced: boolean;
  /** The instances it tests; `any` for all of them (and for applicators). */
  instance: "any" | "number" | "string" | "array" | "object";
  /** The comparer that decides a change to it. */
  compare: CompareFamily;
  /**
   * How `arbitraryForSchema` honours it: `exact` (generates to it), `filtered` (generates near it
   * and keeps the values the validator accepts), `none` (ignores it).
   */
  generate: "exact" | "filtered" | "none";
  /**
   * What it evaluates for an `unevaluated*` keyword at the same place: object members, array
   * items, or (`in-place`) whatever its subschemas evaluate where they pass. Absent: nothing.
   */
  evaluates?: "properties" | "items" | "in-place";
  /** Whether it tests a value on its own, with no subschema and no reference. */
  leaf?: boolean;
  /** Keywords that read each other (additionalProperties reads properties, ...) share a group. */
  group?: string;
}

/** Every keyword that may change which values a schema accepts, defined once. */
export const KEYWORDS: Readonly<Record<ValueKeyword, KeywordDefinition>> = {
  $ref: {
    enforced: true,
    instance: "any",
    compare: "reference",
    generate: "exact",
    evaluates: "in-place",
  },
  additionalItems: {
    enforced: true,
    instance: "array",
    compare: "array",
    generate: "exact",
    evaluates: "items",
    group: "array-items",
  },
  additionalProperties: {
    enforced: true,
    instance: "object",
    compare: "object",
    generate: "exact",
    evaluates: "properties",
    group: "object-members",
  },
  allOf: {
    enforced: true,
    instance: "any",
    compare: "applicator",
    generate: "exact",
    evaluates: "in-place",
  },
  anyOf: {
    enforced: true,
    instance: "any",
    compare: "applicator",
    generate: "exact",
    evaluates: "in-place",
  },
  const: { enforced: true, instance: "any", compare: "enum", generate: "exact" },
  contains: {
    enforced: true,
    instance: "array",
    compare: "array",
    generate: "exact",
    evaluates: "items",
    group: "contains",
  },
  dependencies: {
    enforced: true,
    instance: "object",
    compare: "object",
    generate: "filtered",
    evaluates: "in-place",
  },
  dependentRequired: {
    enforced: true,
    instance: "object",
    compare: "object",
    generate: "filtered",
    leaf: true,
  },
  dependentSchemas: {
    enforced: true,
    instance: "object",
    compare: "object",
    generate: "filtered",
    evaluates: "in-place",
  },
  else: {
    enforced: true,
    instance: "any",
    compare: "applicator",
    generate: "filtered",
    evaluates: "in-place",
    group: "conditional",
  },
  enum: { enforced: true, instance: "any", compare: "enum", generate: "exact" },
  exclusiveMaximum: {
    enforced: true,
    instance: "number",
    compare: "numeric",
    generate: "exact",
    leaf: true,
  },
  exclusiveMinimum: {
    enforced: true,
    instance: "number",
    compare: "numeric",
    generate: "exact",
    leaf: true,
  },
  format: { enforced: true, instance: "string", compare: "string", generate: "exact", leaf: true },
  if: {
    enforced: true,
    instance: "any",
    compare: "applicator",
    generate: "filtered",
    evaluates: "in-place",
    group: "conditional",
  },
  items: {
    enforced: true,
    instance: "array",
    compare: "array",
    generate: "exact",
    evaluates: "items",
    group: "array-items",
  },
  maxContains: {
    enforced: true,
    instance: "array",
    compare: "array",
    generate: "exact",
    group: "contains",
  },
  maxItems: { enforced: true, instance: "array", compare: "array", generate: "exact", leaf: true },
  maxLength: {
    enforced: true,
    instance: "string",
    compare: "string",
    generate: "exact",
    leaf: true,
  },
  maxProperties: {
    enforced: true,
    instance: "object",
    compare: "object",
    generate: "exact",
    leaf: true,
  },
  maximum: {
    enforced: true,
    instance: "number",
    compare: "numeric",
    generate: "exact",
    leaf: true,
  },
  minContains: {
    enforced: true,
    instance: "array",
    compare: "array",
    generate: "exact",
    group: "contains",
  },
  minItems: { enforced: true, instance: "array", compare: "array", generate: "exact", leaf: true },
  minLength: {
    enforced: true,
    instance: "string",
    compare: "string",
    generate: "exact",
    leaf: true,
  },
  minProperties: {
    enforced: true,
    instance: "object",
    compare: "object",
    generate: "exact",
    leaf: true,
  },
  minimum: {
    enforced: true,
    instance: "number",
    compare: "numeric",
    generate: "exact",
    leaf: true,
  },
  multipleOf: {
    enforced: true,
    instance: "number",
    compare: "numeric",
    generate: "exact",
    leaf: true,
  },
  not: { enforced: true, instance: "any", compare: "applicator", generate: "filtered" },
  oneOf: {
    enforced: true,
    instance: "any",
    compare: "applicator",
    generate: "filtered",
    evaluates: "in-place",
  },
  pattern: { enforced: true, instance: "string", compare: "string", generate: "exact", leaf: true },
  patternProperties: {
    enforced: true,
    instance: "object",
    compare: "object",
    generate: "exact",
    evaluates: "properties",
    group: "object-members",
  },
  prefixItems: {
    enforced: true,
    instance: "array",
    compare: "array",
    generate: "exact",
    evaluates: "items",
    group: "array-items",
  },
  properties: {
    enforced: true,
    instance: "object",
    compare: "object",
    generate: "exact",
    evaluates: "properties",
    group: "object-members",
  },
  propertyNames: { enforced: true, instance: "object", compare: "object", generate: "filtered" },
  required: {
    enforced: true,
    instance: "object",
    compare: "object",
    generate: "exact",
    leaf: true,
  },
  then: {
    enforced: true,
    instance: "any",
    compare: "applicator",
    generate: "filtered",
    evaluates: "in-place",
    group: "conditional",
  },
  type: { enforced: true, instance: "any", compare: "type", generate: "exact", leaf: true },
  uniqueItems: {
    enforced: true,
    instance: "array",
    compare: "array",
    generate: "exact",
    leaf: true,
  },
  $dynamicAnchor: { enforced: false, instance: "any", compare: "none", generate: "none" },
  $dynamicRef: {
    enforced: false,
    instance: "any",
    compare: "none",
    generate: "none",
    evaluates: "in-place",
  },
  $recursiveAnchor: { enforced: false, instance: "any", compare: "none", generate: "none" },
  $recursiveRef: {
    enforced: false,
    instance: "any",
    compare: "none",
    generate: "none",
    evaluates: "in-place",
  },
  $vocabulary: { enforced: false, instance: "any", compare: "none", generate: "none" },
  unevaluatedItems: {
    enforced: false,
    instance: "array",
    compare: "unevaluated",
    generate: "none",
    evaluates: "items",
  },
  unevaluatedProperties: {
    enforced: false,
    instance: "object",
    compare: "unevaluated",
    generate: "none",
    evaluates: "properties",
  },
};

/** The keywords whose definition satisfies `test`, sorted. */
export function keywordsWhere(test: (d: KeywordDefinition) => boolean): ValueKeyword[] {
  return (Object.keys(KEYWORDS) as ValueKeyword[]).filter((k) => test(KEYWORDS[k])).sort();
}

/** Assertion and applicator keywords the validator enforces. */
export const ENFORCED_KEYWORDS: readonly string[] = keywordsWhere((d) => d.enforced);

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
export const UNSUPPORTED_KEYWORDS: readonly string[] = keywordsWhere((d) => !d.enforced);

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
