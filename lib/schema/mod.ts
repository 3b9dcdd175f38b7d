/**
 * JSON Schema validation for tool arguments: all issues, with paths, sorted; and the check of what
 * a schema asks that the validator cannot enforce; and how many of those issues an answer carries.
 *
 * @module
 */
export type { JsonSchema, PathSegment, SchemaIssue } from "./types.ts";
export { comparePathSegments, formatPath, parsePath, sortIssues } from "./path.ts";
export {
  type CompiledSchema,
  compileSchema,
  isValid,
  type ValidateOptions,
  validateSchema,
} from "./validate.ts";
export { checkSchema, type CheckSchemaOptions } from "./check.ts";
export { ASSERTED_FORMATS, UNSUPPORTED_KEYWORDS } from "./keywords.ts";
export { createRefResolver, type RefResolver } from "./resolve.ts";
export { patternTest } from "./pattern.ts";
export {
  type LimitedIssues,
  type LimitedList,
  limitIssues,
  limitList,
  type LimitOptions,
  MAX_ISSUE_TEXT,
  MAX_ISSUES_BYTES,
  MAX_ISSUES_IN_RESPONSE,
  shortenIssue,
  shortenText,
} from "./issue_limit.ts";
