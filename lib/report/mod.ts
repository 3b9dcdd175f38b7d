/**
 * The findings engine of every checking command (`estate check`, `estate diff`,
 * `estate check --against`) and of the editor's language server: findings with a rule id, a
 * severity after the estate's `rules.json`, a message and a place in the file
 * ({@linkcode Finding}, {@linkcode CheckReport}); how they are found in a tool file's text
 * ({@linkcode readToolText}, {@linkcode checkedToolFile}, {@linkcode checkReport}); how
 * `rules.json` is read ({@linkcode parseRulesFile}); and how a report is rendered
 * ({@linkcode renderReport}: text, JSON, SARIF, JUnit, GitHub annotations). Pure: the callers read
 * the files and the estate.
 *
 * @module
 */
export type { CheckReport, FileHeader, Finding, Severity } from "./finding.ts";
export {
  type CheckedFile,
  checkedToolFile,
  checkReport,
  draftFindings,
  driftFindings,
  readToolText,
  ruleOf,
  specFindings,
  type ToolText,
  unreadableFinding,
} from "./check_report.ts";
export { type LoadedRules, NO_RULES, parseRulesFile, RulesFileError } from "./rules_file.ts";
export { type Place, placeOf, type Position, positionOf } from "./positions.ts";
export {
  findNode,
  isOnVersion,
  LineIndex,
  locateSegments,
  locateSpecProblem,
  locateTarget,
  parseToolFile,
  type Span,
  TOOL_FIELDS,
  type ToolFileTree,
} from "./locations.ts";
export {
  escapeGithubData,
  escapeGithubProperty,
  findingLine,
  githubAnnotation,
  type RenderOptions,
  renderReport,
  REPORT_FORMATS,
  type ReportFormat,
  reportFormat,
  rulesDocs,
} from "./render.ts";
