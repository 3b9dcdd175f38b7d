/**
 * Compatibility: semantic versions and version constraints, and the classification of schema
 * changes as patch, minor or major.
 *
 * @module
 */

export { bumpFor, compareVersions, isValidConstraint, satisfies, Version } from "./semver.ts";
export type { ReleaseType, VersionParts } from "./semver.ts";
export {
  CLASSIFY_BUDGET_PER_NODE,
  classifyOutputSchemaChange,
  classifySchemaChange,
  DEFAULT_CLASSIFY_BUDGET,
  defaultClassifyBudget,
} from "./classify.ts";
export type { ClassifySchemaChangeOptions } from "./classify.ts";
export { maxBump, SCHEMA_CHANGE_KINDS } from "./schema_change.ts";
export type {
  SchemaBump,
  SchemaChange,
  SchemaChangeClassification,
  SchemaChangeKind,
} from "./schema_change.ts";
export {
  combineCompatibility,
  COMPATIBILITY_MODES,
  compatibilityRule,
  DEFAULT_COMPATIBILITY,
  isCompatibilityMode,
} from "./compatibility_mode.ts";
export type { CompatibilityMode, CompatibilityRule } from "./compatibility_mode.ts";
export { classifyForMode } from "./classify_for_mode.ts";
export type {
  ClassifyForModeOptions,
  EarlierSchema,
  ModeClassification,
} from "./classify_for_mode.ts";
export { findWitness } from "./witness.ts";
export type { FindWitnessOptions, Witness } from "./witness.ts";
