/**
 * Reading an estate's `rules.json` from disk, the one way `estate check` and the language server
 * read it: the file's text (none when it does not exist) through `parseRulesFile`.
 *
 * @module
 */
import fs from "node:fs";
import { type LoadedRules, parseRulesFile, RulesFileError } from "../report/rules_file.ts";

/** Options for {@linkcode readRulesFile}. */
export interface ReadRulesOptions {
  /** Whether a missing file is an error (it was named, e.g. with `--rules`). Default: false. */
  required?: boolean;
}

/**
 * Reads a rules file. A missing file is no configuration (unless required).
 *
 * @param file The file's absolute path.
 * @param name How findings and messages name it (relative to the working folder, `/`-separated).
 * @param options Whether the file must exist.
 * @returns The configuration, with its file name and text.
 * @throws {RulesFileError} When the file cannot be read, or is not a valid configuration (naming
 *   line and column).
 */
export function readRulesFile(
  file: string,
  name: string,
  options: ReadRulesOptions = {},
): LoadedRules {
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (e) {
    if ((e as { code?: string }).code === "ENOENT" && !options.required) {
      return parseRulesFile(undefined, name);
    }
    throw new RulesFileError([`cannot read ${name}: ${(e as Error).message}`]);
  }
  return parseRulesFile(text, name);
}
