/**
 * From what a checking command found to a `CheckReport`: each `checkDraft` finding placed in its
 * file with the editor's own position code (`_locations.ts`), its rule id (a change's kind, else
 * the finding's code), the estate's `rules.json` applied; spec problems and unreadable files as
 * findings too. And reading `rules.json`, its problems named by file, line and column.
 *
 * @module
 */
import fs from "node:fs";
import path from "node:path";
import type { DraftFinding, DraftReport, FindingSeverity } from "../estate/check_draft.ts";
import {
  applyRules,
  expiredIgnoreMessage,
  NO_RULES_CONFIG,
  parseRulesConfig,
  type RulesConfig,
} from "../estate/rules.ts";
import type { PathSegment } from "../schema/types.ts";
import { UsageError } from "./_args.ts";
import type { CheckReport, FileHeader, Finding, Severity } from "./_findings.ts";
import {
  LineIndex,
  locateSegments,
  locateSpecProblem,
  locateTarget,
  parseToolFile,
  type Span,
  type ToolFileTree,
} from "./_locations.ts";
import { type Place, placeOf } from "./_positions.ts";

export { RULES_FILE } from "../estate/estate_files.ts";

/** A rules configuration as read from its file: the parsed config and where its entries are. */
export interface LoadedRules {
  /** The configuration. */
  config: RulesConfig;
  /** The file, relative to the working folder (for findings at its ignores); none for no file. */
  file?: string;
  /** The file's text. */
  text?: string;
}

/**
 * Reads an estate's rules configuration. A missing file is no configuration; a file that is not
 * JSON or breaks a rule of `parseRulesConfig` is an input error naming file, line and column.
 *
 * @param file The file's absolute path.
 * @param cwd The working folder (the file is named relative to it).
 * @param required Whether a missing file is an error (it was named with `--rules`).
 * @returns The configuration.
 * @throws {UsageError} When the file cannot be read or is not a valid configuration.
 */
export function loadRules(file: string, cwd: string, required = false): LoadedRules {
  const rel = path.relative(cwd, file).split(path.sep).join("/");
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (e) {
    if ((e as { code?: string }).code === "ENOENT" && !required) {
      return { config: NO_RULES_CONFIG };
    }
    throw new UsageError(`cannot read ${rel}: ${(e as Error).message}`);
  }
  return parseRules(text, rel);
}

/**
 * Reads a rules configuration from its text (a file's, or a database estate's `rules.json`).
 *
 * @param text The text.
 * @param rel How to name it in messages and findings.
 * @returns The configuration.
 * @throws {UsageError} When it is not a valid configuration, naming line and column.
 */
export function parseRules(text: string, rel: string): LoadedRules {
  const tree = parseToolFile(text);
  const lines = new LineIndex(text);
  if (tree.errors.length || !tree.root) {
    const offset = tree.errors[0]?.offset ?? 0;
    const at = lines.position(offset);
    throw new UsageError(`${rel}:${at.line + 1}:${at.character + 1}: not valid JSON`);
  }
  const { config, problems } = parseRulesConfig(JSON.parse(text));
  if (problems.length) {
    throw new UsageError(
      problems.map((p) => {
        const place = placeOf(lines, locateSegments(tree, p.path));
        return `${rel}:${place.line}:${place.column}: ${p.message}`;
      }).join("; "),
    );
  }
  return { config, file: rel, text };
}

const SEVERITY: Record<FindingSeverity, Severity> = {
  error: "error",
  warning: "warning",
  information: "info",
  hint: "info",
};

/** The rule id of a `checkDraft` finding: a change's kind, else its code. */
export function ruleOf(f: DraftFinding): string {
  return (f.code === "change" || f.code === "output-change") && f.kind ? f.kind : f.code;
}

/**
 * The findings of one checked draft, placed in its text.
 *
 * @param file The file, relative, `/`-separated.
 * @param text The file's text.
 * @param report `checkDraft`'s report of it.
 * @returns One finding per `checkDraft` finding, at the node the editor puts it.
 */
export function draftFindings(file: string, text: string, report: DraftReport): Finding[] {
  const tree = parseToolFile(text);
  const lines = new LineIndex(text);
  return report.findings.map((f) => {
    const span: Span = locateTarget(tree, f.target);
    const finding: Finding = {
      rule: ruleOf(f),
      severity: SEVERITY[f.severity],
      message: f.message,
      file,
      ...placeOf(lines, span),
      tool: report.name,
      version: report.version,
      field: f.target.field,
    };
    if ("path" in f.target) finding.path = f.target.path;
    if (f.bump) finding.bump = f.bump;
    return finding;
  });
}

/**
 * The findings of a file `parseToolSpec` refuses: a `spec` error per problem at the field it names.
 *
 * @param file The file.
 * @param text Its text.
 * @param problems `ToolSpecError.problems`.
 * @returns The findings.
 */
export function specFindings(file: string, text: string, problems: string[]): Finding[] {
  const tree: ToolFileTree = parseToolFile(text);
  const lines = new LineIndex(text);
  return problems.map((problem) => ({
    rule: "spec",
    severity: "error" as const,
    message: problem,
    file,
    ...placeOf(lines, locateSpecProblem(tree, problem)),
  }));
}

/**
 * The finding of a file that cannot be read or is not JSON: at the first syntax error when there
 * is a text, else at the start.
 *
 * @param file The file.
 * @param text Its text, when it could be read.
 * @param message Why.
 * @returns The finding.
 */
export function unreadableFinding(
  file: string,
  text: string | undefined,
  message: string,
): Finding {
  let place: Place = { line: 1, column: 1, endLine: 1, endColumn: 1 };
  if (text !== undefined) {
    const error = parseToolFile(text).errors[0];
    if (error) place = placeOf(new LineIndex(text), error);
  }
  return { rule: "unreadable", severity: "error", message, file, ...place };
}

/** One file a checking command looked at. */
export interface CheckedFile {
  /** The file, relative, `/`-separated. */
  file: string;
  /** Its findings, with default severities. */
  findings: Finding[];
  /** The text report's line for it; `status` is recomputed after the rules are applied. */
  header?: Omit<FileHeader, "file">;
}

const ORDER: Record<Severity, number> = { error: 0, warning: 1, info: 2 };

/**
 * The report of a checking command: the files' findings with the rules applied (a configured
 * severity, `off`, active ignores), an `ignore-expired` error at each expired ignore in the rules
 * file, sorted by file, line, column and severity.
 *
 * @param command The command (`check`, …).
 * @param files What it looked at.
 * @param options The rules and the clock.
 * @returns The report; `ok` when there is no error finding.
 */
export function checkReport(
  command: string,
  files: CheckedFile[],
  options: { rules?: LoadedRules; now: Date },
): CheckReport {
  const rules = options.rules ?? { config: NO_RULES_CONFIG };
  const all = files.flatMap((f) => f.findings);
  const applied = applyRules(all, rules.config, options.now);
  const findings = [...applied.findings];
  const names = files.map((f) => f.file);
  if (applied.expired.length && rules.file && rules.text !== undefined) {
    const tree = parseToolFile(rules.text);
    const lines = new LineIndex(rules.text);
    for (const ignore of applied.expired) {
      const at: PathSegment[] = ["ignore", ignore.index, "expires"];
      findings.push({
        rule: "ignore-expired",
        severity: "error",
        message: expiredIgnoreMessage(ignore),
        file: rules.file,
        ...placeOf(lines, locateSegments(tree, at)),
      });
    }
    if (!names.includes(rules.file)) names.push(rules.file);
  }
  findings.sort((a, b) =>
    names.indexOf(a.file) - names.indexOf(b.file) || a.line - b.line || a.column - b.column ||
    ORDER[a.severity] - ORDER[b.severity]
  );
  const headers: FileHeader[] = files.filter((f) => f.header).map((f) => {
    const h = f.header!;
    const failed = findings.some((g) => g.file === f.file && g.severity === "error");
    return {
      file: f.file,
      status: h.status === "error" ? "error" : failed ? "fail" : "ok",
      text: h.text,
    };
  });
  if (names.length > files.length) {
    headers.push({ file: rules.file!, status: "fail", text: "rules configuration" });
  }
  return {
    command,
    files: names,
    findings,
    ok: !findings.some((f) => f.severity === "error") &&
      !headers.some((h) => h.status === "error"),
    headers,
  };
}
