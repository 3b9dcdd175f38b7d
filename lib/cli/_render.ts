/**
 * Renders a {@linkcode CheckReport} for `estate diff` and `estate check --against`: plain text
 * (`file:line:col: severity rule message` lines, then the command's summary) or JSON (the report
 * and the summary's data). One call, `render(report, format, summary)`, so that the report
 * renderers (SARIF, JUnit, GitHub annotations) can take its place.
 *
 * @module
 */
import type { CheckReport, Finding } from "../report/finding.ts";
import { findingLine, renderReport, type ReportFormat } from "../report/render.ts";
import { PACKAGE_VERSION } from "./_package.ts";

/** The formats: text and JSON here, SARIF, JUnit and GitHub annotations by `renderReport`. */
export type Format = ReportFormat;

/** What a command says besides its findings. */
export interface Summary {
  /** Lines printed after the findings in text (each without its newline). */
  lines: string[];
  /** Fields printed beside the report in JSON, under `summary`. */
  data: Record<string, unknown>;
}

/** Findings by file, then line, then column (stable for equal positions). */
export function sortFindings(findings: readonly Finding[]): Finding[] {
  return [...findings].sort((a, b) =>
    a.file < b.file ? -1 : a.file > b.file ? 1 : a.line - b.line || a.column - b.column
  );
}

/**
 * Renders a report.
 *
 * @param report The findings and whether the command passed.
 * @param format `text` or `json` (the command's own), or `sarif`, `junit`, `github`.
 * @param summary The command's own summary.
 * @returns The text to print on stdout, ending with a newline.
 */
export function render(
  report: CheckReport,
  format: Format,
  summary: Summary,
): string {
  if (format === "sarif" || format === "junit" || format === "github") {
    return renderReport(report, format, { toolVersion: PACKAGE_VERSION });
  }
  if (format === "json") {
    return JSON.stringify({ ...report, summary: summary.data }, null, 2) + "\n";
  }
  return [...report.findings.map(findingLine), ...summary.lines].map((l) => `${l}\n`).join("");
}
