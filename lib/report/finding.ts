/**
 * What every checking command (`estate check`, `estate diff`, `estate check --against REF`) and
 * the editor's language server report, before it is rendered as text, JSON, SARIF, JUnit, GitHub
 * annotations or LSP diagnostics: findings with a stable rule id, a severity and a position in a
 * file.
 *
 * @module
 */
import type { SchemaBump } from "../compat/schema_change.ts";

/** How much a finding matters; `error` fails the command. */
export type Severity = "error" | "warning" | "info";

/** One finding of a checking command. */
export interface Finding {
  /**
   * The stable rule id: a schema change kind (`property-removed`, `enum-narrowed`,
   * `required-added`, …) or a check's code (`version-too-low`, `immutable`, `rejected-calls`, …).
   */
  rule: string;
  /** How much it matters, after the estate's rule configuration. */
  severity: Severity;
  /** The sentence shown to the user. */
  message: string;
  /** The file, relative to the working folder, `/`-separated. */
  file: string;
  /** Where in the file, from 1 (line) and 1 (column, UTF-16 code units as the editor counts). */
  line: number;
  /** The column, from 1. */
  column: number;
  /** Where the finding's node ends (same counting), when known. */
  endLine?: number;
  /** The column just after the finding's node (exclusive, as SARIF counts), when known. */
  endColumn?: number;
  /** The tool and version the file holds, when known. */
  tool?: string;
  /** The draft's version, when known. */
  version?: string;
  /** For a schema change: the bump it requires. */
  bump?: SchemaBump;
  /** Where in the tool: `inputSchema`, `outputSchema` or a top-level field. */
  field?: string;
  /** For a schema finding: its `$` path inside the field. */
  path?: string;
}

/** What a checking command found, over every file it looked at. */
export interface CheckReport {
  /** The command (`check`, `diff`, …), for the report's tool/run metadata. */
  command: string;
  /** The files looked at (relative, `/`-separated), findings or not. */
  files: string[];
  /** The findings, by file, then line, then column. */
  findings: Finding[];
  /** Whether the command passed (no finding of severity `error`, nothing unreadable). */
  ok: boolean;
  /**
   * A line per file for the text report (`FAIL lookup.tool.json: payments.lookup@2.1.0 against …`):
   * its status (`error`: the file could not be checked) and what to say after the file name.
   */
  headers?: FileHeader[];
}

/** What the text report says of a file before its findings. */
export interface FileHeader {
  /** The file, as in {@linkcode Finding.file}. */
  file: string;
  /** `ok`, `fail` (an error finding) or `error` (the file could not be checked). */
  status: "ok" | "fail" | "error";
  /** The rest of the line. */
  text: string;
}
