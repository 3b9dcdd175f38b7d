/**
 * The findings engine: from what was checked to a `CheckReport`, the same for `estate check` and
 * the editor's language server. A tool file's text is read once (`readToolText`: not JSON →
 * `unreadable`, not a tool spec → `spec` per problem); each `checkDraft` finding and each drift
 * notice is placed in the text with the position code (`locations.ts`) under its rule id (a
 * change's kind, else the finding's code); then the estate's `rules.json` is applied
 * (`checkReport`: severities, `off`, ignores, an `ignore-expired` error at each expired ignore).
 * Pure: the callers read the files.
 *
 * @module
 */
import { printParseErrorCode } from "jsonc-parser";
import type { DraftFinding, DraftReport, FindingSeverity } from "../estate/check_draft.ts";
import type { DriftNotice } from "../estate/drift_notices.ts";
import { applyRules, expiredIgnoreMessage, type RuleIgnore } from "../estate/rules.ts";
import { parseToolSpec, type ToolSpec, ToolSpecError } from "../estate/spec.ts";
import type { PathSegment } from "../schema/types.ts";
import { shortenText } from "../schema/issue_limit.ts";
import type { CheckReport, FileHeader, Finding, Severity } from "./finding.ts";
import {
  LineIndex,
  locateSegments,
  locateSpecProblem,
  locateTarget,
  parseToolFile,
  type ToolFileTree,
} from "./locations.ts";
import { type Place, placeOf } from "./positions.ts";
import { type LoadedRules, NO_RULES } from "./rules_file.ts";

const SEVERITY: Record<FindingSeverity, Severity> = {
  error: "error",
  warning: "warning",
  information: "info",
  hint: "info",
};

/**
 * The rule id of a `checkDraft` finding: a change's kind, else its code.
 *
 * @param f The finding.
 * @returns The rule id (`property-removed`, `version-too-low`, …).
 */
export function ruleOf(f: DraftFinding): string {
  return (f.code === "change" || f.code === "output-change") && f.kind ? f.kind : f.code;
}

/**
 * The findings of one checked draft, placed in its text.
 *
 * @param file The file, relative, `/`-separated.
 * @param text The file's text.
 * @param report `checkDraft`'s report of it.
 * @returns One finding per `checkDraft` finding, at the node the finding names.
 */
export function draftFindings(
  file: string,
  text: string,
  report: DraftReport,
): Finding[] {
  const tree = parseToolFile(text);
  const lines = new LineIndex(text);
  return report.findings.map((f) => {
    const finding: Finding = {
      rule: ruleOf(f),
      severity: SEVERITY[f.severity],
      message: f.message,
      file,
      ...placeOf(lines, locateTarget(tree, f.target)),
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
 * The findings of the gateway's drift notices on a tool (`driftNotices`), placed in its file:
 * rules `drift-quarantined`, `drift-description`, `drift-dropped-tool`.
 *
 * @param file The file, relative, `/`-separated.
 * @param text The file's text.
 * @param spec The draft the file holds.
 * @param notices What `driftNotices` says of the tool.
 * @returns One finding per notice.
 */
export function driftFindings(
  file: string,
  text: string,
  spec: Pick<ToolSpec, "name" | "version">,
  notices: readonly DriftNotice[],
): Finding[] {
  const tree = parseToolFile(text);
  const lines = new LineIndex(text);
  return notices.map((n) => {
    const finding: Finding = {
      rule: n.code,
      severity: SEVERITY[n.severity],
      message: n.message,
      file,
      ...placeOf(lines, locateTarget(tree, n.target)),
      tool: spec.name,
      version: spec.version,
      field: n.target.field,
    };
    if ("path" in n.target) finding.path = n.target.path;
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
export function specFindings(
  file: string,
  text: string,
  problems: string[],
): Finding[] {
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

/** A tool file's text as read: the draft, or why it cannot be checked and its findings. */
export type ToolText =
  | { ok: true; spec: ToolSpec }
  | {
    ok: false;
    /** `json`: not valid JSON (an `unreadable` finding); `spec`: not a tool spec (`spec`s). */
    reason: "json" | "spec";
    /** The sentence (`lookup.tool.json is not valid JSON: …`, `Invalid tool spec …: …`). */
    message: string;
    /** The findings. */
    findings: Finding[];
  };

/** `CloseBraceExpected` → `close brace expected`. */
function words(code: string): string {
  return code.replace(/([a-z])([A-Z])/g, "$1 $2").toLowerCase();
}

/**
 * Reads a tool file's text: strict JSON (no comments, no trailing commas), then `parseToolSpec`.
 * The message of a syntax error is jsonc-parser's, so every runtime words it alike.
 *
 * @param file The file, relative, `/`-separated (findings and messages name it so).
 * @param text The file's text.
 * @returns The draft, or the findings that say why it cannot be checked.
 */
export function readToolText(file: string, text: string): ToolText {
  const tree = parseToolFile(text);
  if (tree.errors.length || !tree.root) {
    const error = tree.errors[0];
    const at = new LineIndex(text).position(error?.offset ?? 0);
    const message = `${file} is not valid JSON: ${
      error ? words(printParseErrorCode(error.error)) : "the file is empty"
    } at line ${at.line + 1} column ${at.character + 1}`;
    return {
      ok: false,
      reason: "json",
      message,
      findings: [unreadableFinding(file, text, message)],
    };
  }
  try {
    return { ok: true, spec: parseToolSpec(JSON.parse(text), file) };
  } catch (e) {
    if (!(e instanceof ToolSpecError)) throw e;
    return {
      ok: false,
      reason: "spec",
      message: e.message,
      findings: specFindings(file, text, e.problems),
    };
  }
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

/**
 * A tool file as `estate check` and the editor check it: its findings (`readToolText`'s when it
 * cannot be checked, else the draft's `checkDraft` findings and the drift notices on the tool)
 * and its header line.
 *
 * @param file The file, relative, `/`-separated.
 * @param text Its text.
 * @param checked `readToolText`'s result; for a draft, `checkDraft`'s report and the notices.
 * @returns The checked file, rules not yet applied.
 */
export function checkedToolFile(
  file: string,
  text: string,
  checked:
    | Extract<ToolText, { ok: false }>
    | {
      ok: true;
      spec: ToolSpec;
      report: DraftReport;
      notices?: readonly DriftNotice[];
    },
): CheckedFile {
  if (!checked.ok) {
    return {
      file,
      findings: checked.findings,
      header: { status: "error", text: shortenText(checked.message) },
    };
  }
  const { report } = checked;
  const against = report.baseline
    ? ` against ${report.name}@${report.baseline.version} (${report.baseline.state}), ${report.bump} change`
    : " (new tool)";
  return {
    file,
    findings: [
      ...draftFindings(file, text, report),
      ...driftFindings(file, text, checked.spec, checked.notices ?? []),
    ],
    header: {
      status: "ok",
      text: `${report.name}@${report.version}${against}`,
    },
  };
}

const ORDER: Record<Severity, number> = { error: 0, warning: 1, info: 2 };

/**
 * The `ignore-expired` errors of a rules file: one at each expired ignore's `expires`.
 *
 * @param rules The rules, as read with their file and text.
 * @param expired The expired ignores (`applyRules`' `expired`).
 * @returns The findings; none when the rules have no file.
 */
function expiredFindings(
  rules: LoadedRules,
  expired: readonly RuleIgnore[],
): Finding[] {
  if (!expired.length || rules.file === undefined || rules.text === undefined) {
    return [];
  }
  const tree = parseToolFile(rules.text);
  const lines = new LineIndex(rules.text);
  return expired.map((ignore): Finding => {
    const at: PathSegment[] = ["ignore", ignore.index, "expires"];
    return {
      rule: "ignore-expired",
      severity: "error",
      message: expiredIgnoreMessage(ignore),
      file: rules.file!,
      ...placeOf(lines, locateSegments(tree, at)),
    };
  });
}

/**
 * The report of a checking command: the files' findings with the rules applied (a configured
 * severity, `off`, active ignores), an `ignore-expired` error at each expired ignore in the rules
 * file, sorted by file, line, column and severity.
 *
 * @param command The command (`check`, …).
 * @param files What it looked at.
 * @param options The rules (default: none) and the clock.
 * @returns The report; `ok` when there is no error finding and every file could be checked.
 */
export function checkReport(
  command: string,
  files: CheckedFile[],
  options: { rules?: LoadedRules; now: Date },
): CheckReport {
  const rules = options.rules ?? NO_RULES;
  const applied = applyRules(
    files.flatMap((f) => f.findings),
    rules.config,
    options.now,
  );
  const expired = expiredFindings(rules, applied.expired);
  const findings = [...applied.findings, ...expired];
  const names = files.map((f) => f.file);
  if (expired.length && !names.includes(rules.file!)) names.push(rules.file!);
  findings.sort((a, b) =>
    names.indexOf(a.file) - names.indexOf(b.file) || a.line - b.line ||
    a.column - b.column ||
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
    headers.push({
      file: rules.file!,
      status: "fail",
      text: "rules configuration",
    });
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
