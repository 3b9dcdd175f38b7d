/**
 * A checking command's report (`CheckReport`) rendered for people and for CI: `text`
 * (`file:line:col: severity rule …`, the editor's positions), `json`, `sarif` (SARIF 2.1.0 for code
 * scanning), `junit` (a test suite per file) and `github` (workflow-command annotations). Every
 * checking command (`estate check`, `estate diff`, `check --against`) renders through
 * {@linkcode renderReport}.
 *
 * @module
 */
import { limitList, shortenText } from "../schema/issue_limit.ts";
import { type Rule, RULES } from "../estate/rules.ts";
import type { CheckReport, Finding, Severity } from "./finding.ts";

/** The formats {@linkcode renderReport} writes. */
export const REPORT_FORMATS = [
  "text",
  "json",
  "sarif",
  "junit",
  "github",
] as const;

/** One of {@linkcode REPORT_FORMATS}. */
export type ReportFormat = typeof REPORT_FORMATS[number];

/** Options for {@linkcode renderReport}. */
export interface RenderOptions {
  /** The tool's version, for SARIF's `tool.driver.version`. */
  toolVersion?: string;
  /** Where the rules are documented; a rule's help is `<docs>#<id>`. Default: docs/rules.md here. */
  rulesDocs?: string;
  /** More top-level keys for `json` (a command's own report, e.g. `check`'s `reports`). */
  json?: Record<string, unknown>;
}

/**
 * The file rules are documented in, as an absolute URL (SARIF's `helpUri` is one): docs/rules.md
 * beside this module. A function, so that importing this module does no work (a bundle without
 * `import.meta.url` can import it).
 *
 * @returns The URL.
 */
export function rulesDocs(): string {
  return new URL("../../docs/rules.md", import.meta.url).href;
}

/**
 * Renders a report.
 *
 * @param report What the command found.
 * @param format The format.
 * @param options Tool version, the rules' documentation, extra JSON keys.
 * @returns The text to write to stdout.
 */
export function renderReport(
  report: CheckReport,
  format: ReportFormat,
  options: RenderOptions = {},
): string {
  switch (format) {
    case "text":
      return renderText(report);
    case "json":
      return JSON.stringify(jsonReport(report, options), null, 2) + "\n";
    case "sarif":
      return JSON.stringify(sarifLog(report, options), null, 2) + "\n";
    case "junit":
      return junitXml(report);
    case "github":
      return githubAnnotations(report);
  }
}

/** The findings of each file, cut as every answer is (`limitList`), with the count of the rest. */
function byFile(
  report: CheckReport,
): { file: string; shown: Finding[]; omitted: number }[] {
  return report.files.map((file) => {
    const { items, omitted } = limitList(
      report.findings.filter((f) => f.file === file),
      {
        shorten: (f) => ({ ...f, message: shortenText(f.message) }),
      },
    );
    return { file, shown: items, omitted };
  });
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

/** `inputSchema $.properties.x` or the field, for a finding that has one. */
function where(f: Finding): string {
  // A bare schema's finding has a path and no field.
  if (f.field === undefined) return f.path !== undefined ? ` ${f.path}` : "";
  return f.path !== undefined ? ` ${f.field} ${f.path}` : ` ${f.field}`;
}

/**
 * `file:line:col: severity rule where: message` — what editors and terminals turn into a link.
 *
 * @param f The finding.
 * @returns The line, without indent or newline.
 */
export function findingLine(f: Finding): string {
  return `${f.file}:${f.line}:${f.column}: ${f.severity.padEnd(7)} ${f.rule}${
    where(f)
  }: ${f.message}`;
}

const STATUS = { ok: "ok  ", fail: "FAIL", error: "ERR " } as const;

function renderText(report: CheckReport): string {
  const out: string[] = [];
  let failed = 0, unreadable = 0;
  for (const { file, shown, omitted } of byFile(report)) {
    const header = report.headers?.find((h) => h.file === file);
    const errors = report.findings.some((f) => f.file === file && f.severity === "error");
    const status = header?.status ?? (errors ? "fail" : "ok");
    if (status === "fail") failed++;
    if (status === "error") unreadable++;
    out.push(`${STATUS[status]} ${file}${header ? `: ${header.text}` : ""}`);
    for (const f of shown) {
      if (status === "error" && header?.text === f.message) continue;
      out.push(`  ${findingLine(f)}`);
    }
    if (omitted) out.push(`  … and ${plural(omitted, "more finding")}`);
  }
  out.push(
    `${report.files.length} checked, ${failed} failed${
      unreadable ? `, ${unreadable} could not be read` : ""
    }`,
  );
  return out.join("\n") + "\n";
}

function jsonReport(
  report: CheckReport,
  options: RenderOptions,
): Record<string, unknown> {
  const files = byFile(report);
  return {
    ...options.json,
    command: report.command,
    ok: report.ok,
    files: report.files,
    findings: files.flatMap((f) => f.shown),
    omittedFindings: files.reduce((n, f) => n + f.omitted, 0),
  };
}

// ---------------------------------------------------------------- SARIF 2.1.0

const SARIF_LEVEL: Record<Severity, "error" | "warning" | "note"> = {
  error: "error",
  warning: "warning",
  info: "note",
};

/** A rule as SARIF's `reportingDescriptor`. */
function sarifRule(rule: Rule, docs: string): Record<string, unknown> {
  const e = rule.example;
  const example = [
    e.before !== undefined ? `before: \`${JSON.stringify(e.before)}\`` : "",
    e.after !== undefined ? `after: \`${JSON.stringify(e.after)}\`` : "",
    e.draft !== undefined ? `draft: \`${JSON.stringify(e.draft)}\`` : "",
    e.input !== undefined ? `input: \`${e.input}\`` : "",
    `gives: ${e.gives}`,
  ].filter(Boolean).join("\n\n");
  return {
    id: rule.id,
    name: rule.id.replace(
      /(^|-)([a-z])/g,
      (_, _d, c: string) => c.toUpperCase(),
    ),
    shortDescription: { text: rule.summary.replace(/`/g, "") },
    fullDescription: { text: rule.meaning.replace(/`/g, "") },
    helpUri: `${docs}#${rule.id}`,
    help: {
      text: rule.meaning.replace(/`/g, ""),
      markdown: `${rule.meaning}\n\n${example}`,
    },
    defaultConfiguration: {
      level: SARIF_LEVEL[rule.defaultSeverity],
      enabled: true,
    },
    properties: { tags: [rule.kind], ...(rule.fixed ? { fixed: true } : {}) },
  };
}

/**
 * The report as a SARIF 2.1.0 log: one run, every rule of the catalog in `tool.driver.rules`, one
 * result per finding at its region (1-based lines and UTF-16 columns, the end column exclusive).
 */
function sarifLog(
  report: CheckReport,
  options: RenderOptions,
): Record<string, unknown> {
  const docs = options.rulesDocs ?? rulesDocs();
  const index = new Map(RULES.map((r, i) => [r.id, i]));
  const files = byFile(report);
  const results = files.flatMap(({ shown }) =>
    shown.map((f) => {
      const region: Record<string, number> = {
        startLine: f.line,
        startColumn: f.column,
      };
      if (f.endLine !== undefined && f.endColumn !== undefined) {
        region.endLine = f.endLine;
        region.endColumn = f.endColumn;
      }
      return {
        ruleId: f.rule,
        ...(index.has(f.rule) ? { ruleIndex: index.get(f.rule) } : {}),
        level: SARIF_LEVEL[f.severity],
        message: { text: f.message },
        locations: [{
          physicalLocation: {
            artifactLocation: {
              uri: encodeURI(f.file),
              uriBaseId: "%SRCROOT%",
            },
            region,
          },
        }],
        ...(f.tool || f.bump || f.field
          ? {
            properties: {
              ...(f.tool ? { tool: f.tool, version: f.version } : {}),
              ...(f.bump ? { bump: f.bump } : {}),
              ...(f.field ? { field: f.field } : {}),
              ...(f.path ? { path: f.path } : {}),
            },
          }
          : {}),
      };
    })
  );
  const notifications = files.filter((f) => f.omitted).map((f) => ({
    level: "note",
    message: { text: `${f.file}: and ${f.omitted} more findings, not shown` },
  }));
  return {
    $schema: "https://json.schemastore.org/sarif-2.1.0.json",
    version: "2.1.0",
    runs: [{
      tool: {
        driver: {
          name: "tool-estate",
          ...(options.toolVersion ? { version: options.toolVersion } : {}),
          informationUri: docs,
          rules: RULES.map((r) => sarifRule(r, docs)),
        },
      },
      invocations: [{
        executionSuccessful: true,
        commandLine: `estate ${report.command}`,
        ...(notifications.length ? { toolExecutionNotifications: notifications } : {}),
      }],
      columnKind: "utf16CodeUnits",
      results,
    }],
  };
}

// ---------------------------------------------------------------- JUnit XML

/** Characters XML 1.0 cannot hold at all (controls but tab, newline, return). */
// deno-lint-ignore no-control-regex
const NOT_XML = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g;

/** Escapes text for XML content and attribute values. */
function xml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)
    .replace(
      NOT_XML,
      (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
    );
}

/**
 * The report as JUnit XML: a `testsuite` per file, a `testcase` per rule that found something in
 * it (named by the rule, its findings one a line in the body), with a `failure` when one of them
 * is an error; a file without findings has one passing `testcase` named `check`.
 */
function junitXml(report: CheckReport): string {
  const suites: string[] = [];
  let tests = 0, failures = 0;
  for (const { file, shown, omitted } of byFile(report)) {
    const rules = [...new Set(shown.map((f) => f.rule))];
    const cases: string[] = [];
    let suiteFailures = 0;
    if (rules.length === 0) {
      cases.push(`    <testcase name="check" classname="${xml(file)}"/>`);
    }
    for (const rule of rules) {
      const found = shown.filter((f) => f.rule === rule);
      const body = found.map((f) => findingLine(f)).join("\n");
      const errors = found.filter((f) => f.severity === "error");
      if (errors.length) {
        suiteFailures++;
        cases.push(
          `    <testcase name="${xml(rule)}" classname="${xml(file)}">\n` +
            `      <failure message="${xml(errors[0].message)}" type="${xml(rule)}">${
              xml(body)
            }</failure>\n    </testcase>`,
        );
      } else {
        cases.push(
          `    <testcase name="${xml(rule)}" classname="${xml(file)}">\n` +
            `      <system-out>${xml(body)}</system-out>\n    </testcase>`,
        );
      }
    }
    const count = Math.max(rules.length, 1);
    tests += count;
    failures += suiteFailures;
    suites.push(
      `  <testsuite name="${
        xml(file)
      }" tests="${count}" failures="${suiteFailures}" errors="0" skipped="0">\n` +
        cases.join("\n") +
        (omitted ? `\n    <system-out>and ${omitted} more findings, not shown</system-out>` : "") +
        `\n  </testsuite>`,
    );
  }
  return `<?xml version="1.0" encoding="UTF-8"?>\n` +
    `<testsuites name="estate ${
      xml(report.command)
    }" tests="${tests}" failures="${failures}" errors="0">\n` +
    suites.join("\n") + (suites.length ? "\n" : "") + `</testsuites>\n`;
}

// ---------------------------------------------------------------- GitHub workflow commands

const GITHUB_COMMAND: Record<Severity, string> = {
  error: "error",
  warning: "warning",
  info: "notice",
};

/**
 * Escapes a workflow command's message: `%`, carriage return and newline.
 *
 * @param text The message.
 * @returns The escaped text.
 */
export function escapeGithubData(text: string): string {
  return text.replace(/%/g, "%25").replace(/\r/g, "%0D").replace(/\n/g, "%0A");
}

/**
 * Escapes a workflow command's property value: the message's escapes, and `:` and `,`.
 *
 * @param text The value.
 * @returns The escaped text.
 */
export function escapeGithubProperty(text: string): string {
  return escapeGithubData(text).replace(/:/g, "%3A").replace(/,/g, "%2C");
}

/**
 * One annotation of a finding: `::error file=F,line=L,col=C,endLine=…,endColumn=…,title=RULE::message`.
 *
 * @param f The finding.
 * @returns The workflow command, without newline.
 */
export function githubAnnotation(f: Finding): string {
  const props: [string, string | number][] = [
    ["file", f.file],
    ["line", f.line],
    ["col", f.column],
  ];
  if (f.endLine !== undefined) props.push(["endLine", f.endLine]);
  if (f.endColumn !== undefined) props.push(["endColumn", f.endColumn]);
  props.push(["title", f.rule]);
  return `::${GITHUB_COMMAND[f.severity]} ${
    props.map(([k, v]) => `${k}=${escapeGithubProperty(String(v))}`).join(",")
  }::${escapeGithubData(f.message)}`;
}

/** The report as GitHub Actions workflow commands, one annotation a finding. */
function githubAnnotations(report: CheckReport): string {
  const lines: string[] = [];
  for (const { file, shown, omitted } of byFile(report)) {
    for (const f of shown) lines.push(githubAnnotation(f));
    if (omitted) {
      lines.push(
        `::notice file=${escapeGithubProperty(file)}::${
          escapeGithubData(`and ${omitted} more findings, not shown`)
        }`,
      );
    }
  }
  return lines.map((l) => l + "\n").join("");
}

/**
 * Parses a `--format` value.
 *
 * @param value The flag's value.
 * @returns The format, or undefined when it is not one.
 */
export function reportFormat(value: string): ReportFormat | undefined {
  return (REPORT_FORMATS as readonly string[]).includes(value) ? value as ReportFormat : undefined;
}
