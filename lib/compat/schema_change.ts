/**
 * The vocabulary of schema change classification: bumps, change kinds and the change record.
 *
 * @module
 */

/**
 * How far a schema change reaches: `major` rejects a value callers could send before, `minor`
 * only accepts more (or changes a default), `patch` changes no accepted value.
 */
export type SchemaBump = "major" | "minor" | "patch";

const RANK: Record<SchemaBump, number> = { patch: 0, minor: 1, major: 2 };

/**
 * The larger of two bumps: what a change needs when two of its parts need these.
 *
 * @param a A bump.
 * @param b Another.
 * @returns The larger.
 *
 * @example
 * ```ts
 * import { maxBump } from "@tool-estate/core";
 * import assert from "node:assert/strict";
 * assert.equal(maxBump("patch", "major"), "major");
 * ```
 */
export function maxBump(a: SchemaBump, b: SchemaBump): SchemaBump {
  return RANK[a] >= RANK[b] ? a : b;
}

/**
 * What changed, one name per rule. A kind says what was edited; the change's `bump` says what the
 * edit does to callers, so the same kind can be `patch` when it provably affects no value the old
 * schema accepts (for example a `maximum` added to a schema whose `enum` is already below it).
 *
 * | kind | usual bump | edit |
 * |---|---|---|
 * | `property-added` | minor | an optional property is now named |
 * | `property-removed` | major | a named property is gone (closed or open object) |
 * | `required-added` | major | a property is now required (new, or formerly optional) |
 * | `required-removed` | minor | a required property is now optional |
 * | `required-reordered` | patch | `required` lists the same names in another order |
 * | `dependency-added` | major | `dependentRequired`/`dependentSchemas`/`dependencies` demand more |
 * | `dependency-removed` | minor | such a dependency demands less |
 * | `type-narrowed` | major | `type` no longer allows a type (including `number` → `integer`) |
 * | `type-widened` | minor | `type` allows another type (including `integer` → `number`) |
 * | `enum-narrowed` | major | `enum` added, or a value removed from it |
 * | `enum-widened` | minor | `enum`/`const` removed, or a value added |
 * | `enum-reordered` | patch | `enum` lists the same values in another order |
 * | `const-changed` | major | `const` added or changed |
 * | `const-removed` | minor | `const` removed |
 * | `bound-tightened` | major | a numeric, length, count, `multipleOf` or `uniqueItems` bound added or tightened |
 * | `bound-loosened` | minor | such a bound removed or loosened |
 * | `pattern-added` | major | `pattern` added |
 * | `pattern-removed` | minor | `pattern` removed |
 * | `pattern-changed` | major | `pattern` changed (inclusion of regular expressions is not decided) |
 * | `format-added` | major | `format` added |
 * | `format-removed` | minor | `format` removed |
 * | `format-changed` | major | `format` changed |
 * | `additional-properties-narrowed` | major | properties the schema does not name are rejected where they were accepted |
 * | `additional-properties-widened` | minor | properties the schema does not name are accepted where they were rejected |
 * | `schema-closed` | major | a subschema became `false` |
 * | `schema-opened` | minor | a `false` subschema now accepts values |
 * | `branch-added` | minor | an `anyOf` branch, or a provably disjoint `oneOf` branch, was added (also around a schema that had none: `X` → `anyOf: [X, Y]`) |
 * | `branch-removed` | major | an `anyOf`/`oneOf` branch was removed |
 * | `constraint-added` | major | `anyOf`, `oneOf`, `not`, `if` or `contains` added |
 * | `constraint-removed` | minor | one of those removed, or a `oneOf` relaxed to `anyOf` over overlapping branches |
 * | `default-changed` | minor | `default` added, removed or changed: callers that omit the field get another value |
 * | `annotation-changed` | patch | `description`, `title`, `examples`, `$comment`, `deprecated`, ... changed |
 * | `definition-changed` | patch | a `$defs`/`definitions` entry nothing references changed |
 * | `rewritten` | patch | written differently, accepting the same values (e.g. `minimum: 1` ↔ `exclusiveMinimum: 0` on integers) |
 * | `undecidable` | major | the classifier cannot prove callers unaffected (changed `not`, `if`, unknown keyword, overlapping `oneOf` branch, ...) |
 */
export type SchemaChangeKind =
  | "property-added"
  | "property-removed"
  | "required-added"
  | "required-removed"
  | "required-reordered"
  | "dependency-added"
  | "dependency-removed"
  | "type-narrowed"
  | "type-widened"
  | "enum-narrowed"
  | "enum-widened"
  | "enum-reordered"
  | "const-changed"
  | "const-removed"
  | "bound-tightened"
  | "bound-loosened"
  | "pattern-added"
  | "pattern-removed"
  | "pattern-changed"
  | "format-added"
  | "format-removed"
  | "format-changed"
  | "additional-properties-narrowed"
  | "additional-properties-widened"
  | "schema-closed"
  | "schema-opened"
  | "branch-added"
  | "branch-removed"
  | "constraint-added"
  | "constraint-removed"
  | "default-changed"
  | "annotation-changed"
  | "definition-changed"
  | "rewritten"
  | "undecidable";

/** Every {@linkcode SchemaChangeKind}, in the order of its documentation table. */
export const SCHEMA_CHANGE_KINDS: readonly SchemaChangeKind[] = [
  "property-added",
  "property-removed",
  "required-added",
  "required-removed",
  "required-reordered",
  "dependency-added",
  "dependency-removed",
  "type-narrowed",
  "type-widened",
  "enum-narrowed",
  "enum-widened",
  "enum-reordered",
  "const-changed",
  "const-removed",
  "bound-tightened",
  "bound-loosened",
  "pattern-added",
  "pattern-removed",
  "pattern-changed",
  "format-added",
  "format-removed",
  "format-changed",
  "additional-properties-narrowed",
  "additional-properties-widened",
  "schema-closed",
  "schema-opened",
  "branch-added",
  "branch-removed",
  "constraint-added",
  "constraint-removed",
  "default-changed",
  "annotation-changed",
  "definition-changed",
  "rewritten",
  "undecidable",
];

/** One change between two schemas, located where it bites. */
export interface SchemaChange {
  /**
   * Where in the schema, in the `$` notation, e.g. `$.properties.currency` or
   * `$.properties.amount.maximum`. Changes inside a `$ref` target are reported at the place that
   * refers to it; property-level changes (added, removed, required) at `$…properties.<name>`.
   */
  path: string;
  /** What was edited. */
  kind: SchemaChangeKind;
  /** What the edit does to callers. */
  bump: SchemaBump;
  /** A sentence naming the property or keyword and the consequence for callers. */
  message: string;
}

/** What {@linkcode classifySchemaChange} decides. */
export interface SchemaChangeClassification {
  /** The largest bump of the changes; `patch` when there are none. */
  bump: SchemaBump;
  /** The changes, sorted by path (segment by segment), then kind, then message. */
  changes: SchemaChange[];
}
