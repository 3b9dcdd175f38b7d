/**
 * An estate's `rules.json` read from its text, the one way the CLI and the language server read
 * it: strict JSON, then `parseRulesConfig`, each problem named by file, line and column.
 *
 * @module
 */
import { NO_RULES_CONFIG, parseRulesConfig, type RulesConfig } from "../estate/rules.ts";
import { LineIndex, locateSegments, parseToolFile } from "./locations.ts";
import { placeOf } from "./positions.ts";

/** A rules configuration as read from its file: the parsed config and where its entries are. */
export interface LoadedRules {
  /** The configuration. */
  config: RulesConfig;
  /** The file, as findings name it (relative, `/`-separated); none when there is no file. */
  file?: string;
  /** The file's text (for the places of `ignore-expired` findings). */
  text?: string;
}

/** No rules file: every rule at its default severity, nothing ignored. */
export const NO_RULES: LoadedRules = { config: NO_RULES_CONFIG };

/** A `rules.json` that is not JSON or not a valid configuration. */
export class RulesFileError extends Error {
  /** Each problem as `file:line:column: sentence`. */
  readonly problems: string[];

  /**
   * Makes the error from every problem found.
   *
   * @param problems Each problem as `file:line:column: sentence`.
   */
  constructor(problems: string[]) {
    super(problems.join("; "));
    this.name = "RulesFileError";
    this.problems = problems;
  }
}

/**
 * Reads a rules configuration from its text (a folder estate's `rules.json`, or a database
 * estate's). Undefined text (no file) is no configuration.
 *
 * @param text The text, or undefined when the estate has no rules file.
 * @param file How to name the file in messages and findings (relative, `/`-separated).
 * @returns The configuration.
 * @throws {RulesFileError} When the text is not JSON or not a valid configuration, naming line
 *   and column.
 *
 * @example
 * ```ts
 * import { parseRulesFile } from "./rules_file.ts";
 * import assert from "node:assert/strict";
 * const rules = parseRulesFile('{"rules": {"property-removed": "error"}}', "estate/rules.json");
 * assert.equal(rules.config.rules["property-removed"], "error");
 * assert.throws(() => parseRulesFile("{", "estate/rules.json"), /estate\/rules\.json:1:2: not valid JSON/);
 * ```
 */
export function parseRulesFile(
  text: string | undefined,
  file: string,
): LoadedRules {
  if (text === undefined) return NO_RULES;
  const tree = parseToolFile(text);
  const lines = new LineIndex(text);
  if (tree.errors.length || !tree.root) {
    const at = lines.position(tree.errors[0]?.offset ?? 0);
    throw new RulesFileError([
      `${file}:${at.line + 1}:${at.character + 1}: not valid JSON`,
    ]);
  }
  const { config, problems } = parseRulesConfig(JSON.parse(text));
  if (problems.length) {
    throw new RulesFileError(problems.map((p) => {
      const place = placeOf(lines, locateSegments(tree, p.path));
      return `${file}:${place.line}:${place.column}: ${p.message}`;
    }));
  }
  return { config, file, text };
}
