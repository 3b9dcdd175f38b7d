/**
 * One tool file's check, as the editor shows it: the findings engine's findings (`lib/report/`,
 * exactly what `estate check` reports: rule ids, severities after `rules.json`, messages and
 * places) as LSP diagnostics, the `Set version to …` fix, the hover on `version`, and the status
 * line. The shapes are LSP's (`Diagnostic`, `Range`), so the server passes them on as they are.
 * No editor, no file system.
 *
 * @module
 */
import type { DraftReport } from "../../lib/estate/check_draft.ts";
import type { DriftNotice } from "../../lib/estate/drift_notices.ts";
import type { ToolSpec } from "../../lib/estate/spec.ts";
import { limitList, MAX_ISSUE_TEXT, shortenText } from "../../lib/schema/issue_limit.ts";
import { Version } from "../../lib/compat/semver.ts";
import {
  checkedToolFile,
  checkReport,
  type Finding,
  LineIndex,
  type LoadedRules,
  locateSegments,
  NO_RULES,
  parseToolFile,
  readToolText,
  type Severity,
} from "../../lib/report/mod.ts";

/** The `source` of every diagnostic: VS Code shows `tool-estate(version-too-low)`. */
export const SOURCE = "tool-estate";

/** An LSP position: zero-based line, UTF-16 character. */
export interface Position {
  /** The line. */
  line: number;
  /** The character in the line. */
  character: number;
}

/** An LSP range. */
export interface Range {
  /** Where it starts. */
  start: Position;
  /** Where it ends (exclusive). */
  end: Position;
}

/** The quick fix a version diagnostic carries: replace the version string. */
export interface VersionFix {
  /** `Set version to 3.0.0`. */
  title: string;
  /** The version value, quotes included. */
  range: Range;
  /** The new value, quoted: `"3.0.0"`. */
  newText: string;
}

/** An LSP diagnostic (1 error, 2 warning, 3 information, 4 hint). */
export interface FileDiagnostic {
  /** Where. */
  range: Range;
  /** How much it matters. */
  severity: 1 | 2 | 3 | 4;
  /**
   * The finding's rule id as `estate check` names it (`property-removed`, `version-too-low`,
   * `drift-quarantined`, `spec`, `unreadable`, …); editor-only: `estate` (the estate or its
   * rules.json could not be read) or `drift` (the drift log could not be read); `omitted` for the
   * one diagnostic that says how many more there are than are shown.
   */
  code: string;
  /** Always {@linkcode SOURCE}. */
  source: string;
  /** The sentence, exactly as `estate check` prints it (or `driftNotices` words it). */
  message: string;
  /** The quick fix, for a version that is too low. */
  data?: { fix: VersionFix };
}

/** The language-status line for a file: the baseline and the result. */
export interface FileStatus {
  /** Short text, e.g. `against 2.0.0 — major, needs 3.0.0`. */
  text: string;
  /** One more sentence: which baseline, from where. */
  detail: string;
  /** The worst finding: `error`, `warning` or `information`. */
  severity: "error" | "warning" | "information";
}

/** Everything the editor shows for one tool file. */
export interface FileCheck {
  /**
   * The diagnostics, errors first: at most `MAX_ISSUES_IN_RESPONSE` (100, fewer when their JSON
   * reaches `MAX_ISSUES_BYTES`), messages cut at `MAX_ISSUE_TEXT` (drift notices at twice that),
   * then — when there are more — one `omitted` diagnostic saying how many.
   */
  diagnostics: FileDiagnostic[];
  /** The hover on `version`, as markdown, when the file is a valid spec. */
  versionHover?: string;
  /** The status line. */
  status: FileStatus;
  /** The library's report, when the file is a valid spec and the check ran. */
  report?: DraftReport;
  /**
   * The findings engine's findings, rules applied: this file's (shown as the diagnostics) and the
   * rules file's (`ignore-expired`, for the server to show on `rules.json`).
   */
  findings: Finding[];
}

/** What a file is checked against. */
export interface CheckContext {
  /** Checks a parsed draft, given its text (its proposal's id is the text's hash): `EstateSnapshot.check`. */
  check: (spec: ToolSpec, text: string) => DraftReport;
  /**
   * What the gateway's drift log says of the tool now: `EstateSnapshot.driftNotices`. May throw
   * when the log cannot be read (a warning at `name` then says why). Default: nothing.
   */
  drift?: (name: string) => DriftNotice[];
  /** How to name the estate folder to the user, e.g. `corpus/`. */
  estateLabel: string;
  /** Why the estate could not be loaded (the check then runs against an empty estate). */
  estateProblem?: string;
  /**
   * How findings name the file, as `estate check` run in the workspace folder names it (relative,
   * `/`-separated). Default: `tool file`.
   */
  fileLabel?: string;
  /** The estate's `rules.json`, as `readRulesFile` read it. Default: none. */
  rules?: LoadedRules;
  /** Why the estate's `rules.json` could not be read (the check then runs without it). */
  rulesProblem?: string;
  /** The clock, for ignores' expiry dates. Default: `new Date()`. */
  now?: () => Date;
}

const SEVERITY: Record<Severity, 1 | 2 | 3> = { error: 1, warning: 2, info: 3 };

/** The rules whose finding on `version` carries the `Set version to …` fix. */
const VERSION_FIX_RULES: readonly string[] = [
  "version-too-low",
  "not-newer",
  "immutable",
];

/**
 * A finding as an LSP diagnostic: the same place (zero-based, the end exclusive), rule id as code,
 * severity and message.
 *
 * @param f The finding.
 * @returns The diagnostic.
 */
export function toDiagnostic(f: Finding): FileDiagnostic {
  return {
    range: {
      start: { line: f.line - 1, character: f.column - 1 },
      end: {
        line: (f.endLine ?? f.line) - 1,
        character: (f.endColumn ?? f.column) - 1,
      },
    },
    severity: SEVERITY[f.severity],
    code: f.rule,
    source: SOURCE,
    message: f.message,
  };
}

function rangeOf(
  lines: LineIndex,
  span: { offset: number; length: number },
): Range {
  return {
    start: lines.position(span.offset),
    end: lines.position(span.offset + span.length),
  };
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

/**
 * The diagnostics the editor shows: cut as every answer is (`limitList`), then, when some were
 * left out, one more at the first of those, as severe as the worst of them, saying how many.
 */
function limitDiagnostics(
  all: FileDiagnostic[],
  what: string,
): FileDiagnostic[] {
  const { items, omitted } = limitList(all, {
    shorten: (d) => ({
      ...d,
      // A drift notice is a sentence of its own around text from the log that `driftNotices`
      // already cut at MAX_ISSUE_TEXT: cut it only beyond twice that.
      message: shortenText(
        d.message,
        d.code.startsWith("drift-") ? 2 * MAX_ISSUE_TEXT : MAX_ISSUE_TEXT,
      ),
    }),
  });
  if (!omitted) return items;
  const rest = all.slice(items.length);
  return [...items, {
    range: rest[0].range,
    severity: Math.min(
      ...rest.map((d) => d.severity),
    ) as FileDiagnostic["severity"],
    code: "omitted",
    source: SOURCE,
    message: `and ${omitted} more ${what}${omitted === 1 ? "" : "s"}, not shown here`,
  }];
}

function stateName(state: string): string {
  return state === "active" ? "published" : state;
}

/**
 * The version a `Set version to …` fix proposes: the minimum the change needs, else the next patch
 * of the newest published version (a draft already published with different content and no
 * schema change).
 */
function fixedVersion(report: DraftReport): string | undefined {
  if (report.minimumVersion) return report.minimumVersion;
  const base = report.baseline?.version;
  if (!base) return undefined;
  try {
    const v = Version.parse(base);
    return `${v.major}.${v.minor}.${v.patch + 1}`;
  } catch {
    return undefined;
  }
}

/**
 * Checks a tool file's text with the findings engine (`lib/report/`), as `estate check` does, and
 * shows every finding as a diagnostic at its place, with its rule id, severity after `rules.json`
 * and message.
 *
 * - Text that is not valid JSON gets the `unreadable` error at the first syntax error.
 * - A spec `parseToolSpec` refuses gets one `spec` error per problem, at the field it names.
 * - Otherwise every `checkDraft` finding and every drift notice on the tool, after `rules.json`;
 *   `version-too-low`, `not-newer` and `immutable` carry the `Set version to …` fix.
 * - Editor-only: an `estate` warning when the estate or its `rules.json` could not be read (the
 *   CLI stops with an input error then), a `drift` warning when the drift log could not be.
 *
 * @param text The file's text.
 * @param context The estate to check against.
 * @returns The diagnostics, hover, status and findings.
 */
export function checkToolFile(text: string, context: CheckContext): FileCheck {
  const file = context.fileLabel ?? "tool file";
  const rules = context.rules ?? NO_RULES;
  const now = context.now?.() ?? new Date();
  const read = readToolText(file, text);
  if (!read.ok) {
    const findings = checkReport("check", [checkedToolFile(file, text, read)], { rules, now })
      .findings;
    const mine = findings.filter((f) => f.file === file);
    if (read.reason === "json") {
      return {
        diagnostics: limitDiagnostics(mine.map(toDiagnostic), "finding"),
        status: {
          text: "not valid JSON",
          detail: "fix the JSON syntax to check the tool file",
          severity: "error",
        },
        findings,
      };
    }
    const problems = mine.map((f) => f.message);
    const shown = limitList(problems, { shorten: (p) => shortenText(p) });
    return {
      diagnostics: limitDiagnostics(mine.map(toDiagnostic), "problem"),
      status: {
        text: `not a valid tool spec (${plural(problems.length, "problem")})`,
        detail: shown.items.join("; ") +
          (shown.omitted ? `; and ${shown.omitted} more` : ""),
        severity: "error",
      },
      findings,
    };
  }
  const spec: ToolSpec = read.spec;
  const tree = parseToolFile(text);
  const lines = new LineIndex(text);
  const extras: FileDiagnostic[] = [];
  const versionSpan = locateSegments(tree, ["version"]);
  const versionRange = rangeOf(lines, versionSpan);
  const problem = [context.estateProblem, context.rulesProblem].filter(Boolean)
    .join("; ");
  if (context.estateProblem) {
    extras.push({
      range: versionRange,
      severity: 2,
      code: "estate",
      source: SOURCE,
      message: `not checked against the estate: ${context.estateProblem}`,
    });
  }
  if (context.rulesProblem) {
    extras.push({
      range: versionRange,
      severity: 2,
      code: "estate",
      source: SOURCE,
      message: `the estate's rules.json is not applied: ${context.rulesProblem}`,
    });
  }
  let report: DraftReport;
  try {
    report = context.check(spec, text);
  } catch (e) {
    // A bad stored-calls line surfaces during replay, naming its file and line.
    const message = (e as Error).message;
    extras.push({
      range: versionRange,
      severity: 1,
      code: "estate",
      source: SOURCE,
      message: `the estate could not be read: ${message}`,
    });
    return {
      diagnostics: extras,
      status: { text: "estate unreadable", detail: message, severity: "error" },
      findings: [],
    };
  }
  let notices: DriftNotice[] = [];
  try {
    notices = context.drift?.(spec.name) ?? [];
  } catch (e) {
    extras.push({
      range: rangeOf(lines, locateSegments(tree, ["name"])),
      severity: 2,
      code: "drift",
      source: SOURCE,
      message: `the drift log could not be read: ${(e as Error).message}`,
    });
  }
  const checked = checkedToolFile(file, text, {
    ok: true,
    spec,
    report,
    notices,
  });
  const findings = checkReport("check", [checked], { rules, now }).findings;
  const mine = findings.filter((f) => f.file === file);
  const target = fixedVersion(report);
  const diagnostics = mine.map((f) => {
    const d = toDiagnostic(f);
    if (
      VERSION_FIX_RULES.includes(f.rule) && target && versionSpan.exact &&
      f.field === "version" && sameRange(d.range, versionRange)
    ) {
      d.data = {
        fix: {
          title: `Set version to ${target}`,
          range: d.range,
          newText: JSON.stringify(target),
        },
      };
    }
    return d;
  });
  const all = [...extras, ...diagnostics].sort((a, b) => a.severity - b.severity);
  return {
    diagnostics: limitDiagnostics(all, "finding"),
    versionHover: versionHover(report, context.estateLabel),
    status: withQuarantine(statusOf(report, mine, context, problem), notices),
    report,
    findings,
  };
}

function sameRange(a: Range, b: Range): boolean {
  return a.start.line === b.start.line &&
    a.start.character === b.start.character &&
    a.end.line === b.end.line && a.end.character === b.end.character;
}

/** The status of a quarantined tool says so, as a warning at least. */
function withQuarantine(
  status: FileStatus,
  notices: DriftNotice[],
): FileStatus {
  const held = notices.filter((n) => n.code === "drift-quarantined");
  if (!held.length) return status;
  return {
    text: `${status.text}; quarantined`,
    detail: `${status.detail}; quarantined by the gateway (server ${
      held.map((n) => n.record.server).join(", ")
    }): see estate drift`,
    severity: status.severity === "error" ? "error" : "warning",
  };
}

function versionHover(report: DraftReport, estateLabel: string): string {
  const id = `${report.name}@${report.version}`;
  if (!report.baseline) {
    return `**${id}** is a new tool: no version of ${report.name} is published in \`${estateLabel}\`.`;
  }
  const base = report.baseline;
  const out = [
    `**${id}** against **${report.name}@${base.version}** (${
      stateName(base.state)
    }), the newest published version in \`${estateLabel}\``,
    "",
  ];
  const versionFindings = report.findings.filter((f) => f.target.field === "version");
  if (versionFindings.length === 0) {
    out.push(
      `${report.version} is published with this content: nothing to publish.`,
    );
  }
  for (const f of versionFindings) {
    out.push(`${f.severity === "error" ? "**Error:** " : ""}${f.message}`, "");
  }
  const changes = [
    ...report.changes,
    ...report.outputChanges.map((c) => ({
      ...c,
      path: `outputSchema${c.path.slice(1)}`,
    })),
  ];
  if (changes.length) {
    out.push(
      `Changes (${changes.length}), **${report.bump}** overall:`,
      "",
    );
    const shown = limitList(changes);
    for (const c of shown.items) {
      out.push(
        `- \`${shortenText(c.path)}\` ${c.bump === "major" ? "**major**" : c.bump}: ${
          shortenText(c.message)
        }`,
      );
    }
    const n = shown.omitted;
    if (n) out.push(`- … and ${n} more change${n === 1 ? "" : "s"}`);
  } else if (versionFindings.length) {
    out.push("No schema change.");
  }
  if (report.rejected.count) {
    out.push(
      "",
      `${plural(report.rejected.count, "stored call")} of the ${
        report.version.split(".")[0]
      }.x line ${report.rejected.count === 1 ? "is" : "are"} rejected by this schema.`,
    );
  }
  if (report.breakingCall) {
    const b = report.breakingCall;
    out.push(
      "",
      `**${b.field === "inputSchema" ? "A call it breaks" : "A result it breaks"}** (${
        b.call ? "a stored call" : "checked by the validator"
      }):`,
      "",
      "```json",
      shortenText(JSON.stringify(b.value, null, 2), 4 * MAX_ISSUE_TEXT),
      "```",
      "",
      `${b.message[0].toUpperCase()}${b.message.slice(1)}.`,
    );
  }
  return out.join("\n");
}

function statusOf(
  report: DraftReport,
  findings: readonly Finding[],
  context: CheckContext,
  problem: string,
): FileStatus {
  const errors = findings.filter((f) => f.severity === "error").length;
  const warnings = findings.filter((f) => f.severity === "warning").length;
  const severity = errors ? "error" : warnings || problem ? "warning" : "information";
  const where = context.estateProblem
    ? `estate not loaded (${context.estateProblem})`
    : `estate ${context.estateLabel}`;
  if (!report.baseline) {
    return {
      text: `${report.name}: new tool${errors ? `, ${plural(errors, "error")}` : ""}`,
      detail: `no published version of ${report.name} in the ${where}`,
      severity,
    };
  }
  const base = report.baseline;
  const hasVersionFinding = report.findings.some((f) => f.target.field === "version");
  let result: string;
  if (!hasVersionFinding) result = "published, unchanged";
  else if (report.findings.some((f) => f.code === "immutable")) {
    result = "version already published";
  } else if (report.findings.some((f) => f.code === "version-too-low")) {
    result = `${report.bump}, needs ${report.minimumVersion}`;
  } else if (report.findings.some((f) => f.code === "not-newer")) {
    result = "version not newer";
  } else result = `${report.bump}, ${errors ? plural(errors, "error") : "ok"}`;
  return {
    text: `against ${base.version}: ${result}`,
    detail: `baseline ${report.name}@${base.version} (${stateName(base.state)}) in the ${where}`,
    severity,
  };
}
