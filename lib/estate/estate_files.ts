/**
 * The estate's settings files: `estate.json` (the estate's compatibility mode) and `rules.json`
 * (rule severities and ignores for the checking commands). A folder estate holds them as files; a
 * database estate holds their text, byte for byte. Pure: this checks a text, the store reads it.
 *
 * @module
 */
import { formatPath } from "../schema/path.ts";
import { ESTATE_CONFIG_FILE, estateConfigProblems } from "./estate_config.ts";
import { parseRulesConfig } from "./rules.ts";

/** The rules configuration's file name, in the estate. */
export const RULES_FILE = "rules.json";

/** The name of an estate settings file. */
export type EstateFileName = "estate.json" | "rules.json";

/** The estate's settings files, by name, in the order they are listed. */
export const ESTATE_FILES: readonly EstateFileName[] = [
  ESTATE_CONFIG_FILE,
  RULES_FILE,
];

/**
 * Whether a name is an estate settings file's.
 *
 * @param name A file name (no folder).
 * @returns Whether it is `estate.json` or `rules.json`.
 */
export function isEstateFileName(name: string): name is EstateFileName {
  return (ESTATE_FILES as readonly string[]).includes(name);
}

/**
 * Every problem with a text as the named settings file: JSON first, then the file's own check
 * (`estateConfigProblems` for `estate.json`, `parseRulesConfig` for `rules.json`, each problem
 * with its `$` path).
 *
 * @param name The file's name.
 * @param text The file's text.
 * @returns One sentence per problem; empty for a valid file.
 *
 * @example
 * ```ts
 * import { estateFileProblems } from "./estate_files.ts";
 * import assert from "node:assert/strict";
 * assert.deepEqual(estateFileProblems("estate.json", '{"compatibility": "forward"}\n'), []);
 * assert.deepEqual(estateFileProblems("rules.json", '{"rules": {"nope": "off"}}'), [
 *   '$.rules.nope: unknown rule "nope"; estate rules lists them',
 * ]);
 * assert.match(estateFileProblems("estate.json", "{")[0], /^not valid JSON/);
 * ```
 */
export function estateFileProblems(
  name: EstateFileName,
  text: string,
): string[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    return [`not valid JSON: ${(e as Error).message}`];
  }
  if (name === ESTATE_CONFIG_FILE) return estateConfigProblems(value);
  return parseRulesConfig(value).problems.map((p) => `${formatPath(p.path)}: ${p.message}`);
}
