/**
 * `estate diff OLD NEW`: the changes from one tool file (or bare JSON Schema) to another, each with
 * the bump it requires and its position in NEW — like `buf breaking` or oasdiff, with no estate.
 *
 * Two tool files: the input schema by `classifySchemaChange`, the output schema by
 * `classifyOutputSchemaChange`, the other fields (description, sideEffect, requiredScopes, …) as
 * `field-changed`, and whether NEW's version is enough for the change (`version-ok`, or an error:
 * `version-too-low`, `version-unchanged`, `not-newer`). Two bare schemas: the changes and the bump.
 *
 * Severity: a change whose bump is at or above `--fail-on` (`major` by default) is an error; below
 * it, a major change is a warning and the rest information. A version that is not enough is an
 * error whatever `--fail-on` says. Exit 1 when there is an error, 2 for an input error.
 *
 * @module
 */
import fs from "node:fs";
import path from "node:path";
import { classifySchemaChange } from "../compat/classify.ts";
import { breakingCall } from "../estate/breaking_call.ts";
import type {
  SchemaBump,
  SchemaChange,
  SchemaChangeClassification,
} from "../compat/schema_change.ts";
import { parseToolSpec, type ToolSpec } from "../estate/spec.ts";
import type { JsonSchema } from "../schema/types.ts";
import { EXIT, UsageError } from "./_args.ts";
import type { CheckReport, Finding, Severity } from "../report/finding.ts";
import { positionOf } from "../report/positions.ts";
import { type Format, render, sortFindings, type Summary } from "./_render.ts";
import { BUMP_RANK, diffSpecs, type ToolDiff, versionVerdict } from "./_tool_diff.ts";

/** The bumps `--fail-on` takes. */
export const FAIL_ON: readonly SchemaBump[] = ["patch", "minor", "major"];

/** A file read for a comparison: its text, and what it holds. */
export interface Document {
  /** The path as given, resolved. */
  absolute: string;
  /** Relative to the working folder, `/`-separated. */
  file: string;
  /** The text, for positions. */
  text: string;
  /** The tool spec, when the file is a tool file. */
  spec?: ToolSpec;
  /** The schema, when the file is a bare JSON Schema. */
  schema?: JsonSchema;
}

/** A path relative to the working folder, `/`-separated. */
export function relativeFile(cwd: string, absolute: string): string {
  return path.relative(cwd, absolute).split(path.sep).join("/") || ".";
}

/**
 * Reads a tool file or a bare JSON Schema: a JSON object with `inputSchema` is a tool file (it must
 * be a valid tool spec), any other object or a boolean is a schema.
 *
 * @throws {UsageError} The file cannot be read, is not JSON, or is neither.
 * @throws {ToolSpecError} A tool file that is not a valid tool spec.
 */
export function parseDocument(
  text: string,
  absolute: string,
  file: string,
): Document {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new UsageError(`${file} is not valid JSON: ${(e as Error).message}`);
  }
  if (typeof value === "object" && value !== null && !Array.isArray(value)) {
    if ("inputSchema" in value) {
      return { absolute, file, text, spec: parseToolSpec(value, file) };
    }
    return { absolute, file, text, schema: value as JsonSchema };
  }
  if (typeof value === "boolean") {
    return { absolute, file, text, schema: value as JsonSchema };
  }
  throw new UsageError(
    `${file} is neither a tool file (a JSON object with inputSchema) nor a JSON Schema (an object or a boolean)`,
  );
}

function readDocument(cwd: string, given: string): Document {
  const absolute = path.resolve(cwd, given);
  const file = relativeFile(cwd, absolute);
  let text: string;
  try {
    text = fs.readFileSync(absolute, "utf8");
  } catch (e) {
    throw new UsageError(`cannot read ${file}: ${(e as Error).message}`);
  }
  return parseDocument(text, absolute, file);
}

/** How severe a schema change is, given the bump at which the command fails. */
export type SeverityOf = (change: SchemaChange) => Severity;

/** `--fail-on`'s rule: at or above it an error, a major change below it a warning, else info. */
export function failOnSeverity(failOn: SchemaBump): SeverityOf {
  return (c) =>
    BUMP_RANK[c.bump] >= BUMP_RANK[failOn] ? "error" : c.bump === "major" ? "warning" : "info";
}

/** A finding placed at a node of a document: a top-level field, or a `$` path inside one. */
function placed(
  doc: Document,
  where: { field?: string; path?: string },
  finding: {
    rule: string;
    severity: Severity;
    message: string;
    bump?: SchemaBump;
  },
): Finding {
  const { line, column, endLine, endColumn } = positionOf(
    doc.text,
    where.field,
    where.path,
  );
  return {
    ...finding,
    file: doc.file,
    line,
    column,
    endLine,
    endColumn,
    ...(doc.spec ? { tool: doc.spec.name, version: doc.spec.version } : {}),
    ...(where.field ? { field: where.field } : {}),
    ...(where.path !== undefined ? { path: where.path } : {}),
  };
}

/** The findings of schema changes, each at its node in the newer document's text. */
export function changeFindings(
  changes: readonly SchemaChange[],
  where: { doc: Document; field?: "inputSchema" | "outputSchema" },
  severityOf: SeverityOf,
): Finding[] {
  const { doc, field } = where;
  // The field and path are the finding's own (every renderer shows them before the message).
  return changes.map((c) =>
    placed(doc, { field, path: c.path }, {
      rule: c.kind,
      severity: severityOf(c),
      message: c.message,
      bump: c.bump,
    })
  );
}

/** Findings at a top-level field of a tool file (the version verdict, a changed field). */
export function fieldFinding(
  doc: Document,
  field: string,
  finding: {
    rule: string;
    severity: Severity;
    message: string;
    bump?: SchemaBump;
  },
): Finding {
  return placed(doc, { field }, finding);
}

/**
 * The evidence of a major change, as a `breaking-call` finding at the node of the newer document
 * that rejects it (or at the first major change): none when the change is not major or none was
 * found.
 */
export function breakingCallFindings(
  doc: Document,
  schemas: {
    old: { inputSchema: JsonSchema; outputSchema?: JsonSchema };
    now: { inputSchema: JsonSchema; outputSchema?: JsonSchema };
  },
  changes: { input: readonly SchemaChange[]; output: readonly SchemaChange[] },
  fields: { input?: "inputSchema"; output?: "outputSchema" } = {},
): Finding[] {
  const what = fields.input ? "version" : "schema";
  const b = breakingCall({
    mode: "backward",
    old: schemas.old,
    draft: schemas.now,
    changes,
    names: { old: `the old ${what}`, draft: `the new ${what}` },
  });
  if (!b) return [];
  const field = b.field === "inputSchema" ? fields.input : fields.output;
  return [placed(doc, { field, path: b.path }, {
    rule: "breaking-call",
    severity: "info",
    message: b.message,
  })];
}

/** Every finding of a comparison of two tool specs, in the newer one's text. */
export function toolFindings(
  before: ToolSpec,
  after: Document & { spec: ToolSpec },
  diff: ToolDiff,
  severityOf: SeverityOf,
): Finding[] {
  const verdict = versionVerdict(before, after.spec, diff);
  const findings: Finding[] = [];
  if (verdict.code !== "unchanged") {
    findings.push(fieldFinding(after, "version", {
      rule: verdict.code,
      severity: verdict.ok ? "info" : "error",
      message: verdict.message,
      bump: diff.bump,
    }));
  }
  findings.push(
    ...changeFindings(
      diff.input.changes,
      { doc: after, field: "inputSchema" },
      severityOf,
    ),
    ...changeFindings(diff.output.changes, {
      doc: after,
      field: "outputSchema",
    }, severityOf),
    ...diff.fields.map((f) =>
      fieldFinding(after, f.field, {
        rule: "field-changed",
        severity: "info",
        message: f.message,
      })
    ),
    ...breakingCallFindings(
      after,
      { old: before, now: after.spec },
      { input: diff.input.changes, output: diff.output.changes },
      { input: "inputSchema", output: "outputSchema" },
    ),
  );
  return findings;
}

const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? "" : "s"}`;

/**
 * Compares two read documents.
 *
 * @param before The older document.
 * @param after The newer document.
 * @param failOn The bump at which a change is an error.
 * @returns The report and the summary.
 * @throws {UsageError} One is a tool file and the other a bare schema, or the classifier fails.
 */
export function diffDocuments(
  before: Document,
  after: Document,
  failOn: SchemaBump,
): { report: CheckReport; summary: Summary } {
  if ((before.spec === undefined) !== (after.spec === undefined)) {
    const [tool, bare] = before.spec ? [before, after] : [after, before];
    throw new UsageError(
      `cannot compare a tool file (${tool.file}) with a bare schema (${bare.file}): give two tool files or two schemas`,
    );
  }
  const severityOf = failOnSeverity(failOn);
  const files = [before.file, after.file];
  const compare = <T>(fn: () => T): T => {
    try {
      return fn();
    } catch (e) {
      throw new UsageError(
        `cannot compare ${before.file} with ${after.file}: ${(e as Error)?.message ?? e}`,
      );
    }
  };
  if (before.spec && after.spec) {
    const oldSpec = before.spec, newSpec = after.spec;
    const diff = compare(() => diffSpecs(oldSpec, newSpec));
    const verdict = compare(() => versionVerdict(oldSpec, newSpec, diff));
    const findings = sortFindings(
      toolFindings(
        oldSpec,
        after as Document & { spec: ToolSpec },
        diff,
        severityOf,
      ),
    );
    const ok = !findings.some((f) => f.severity === "error");
    const changes = diff.input.changes.length + diff.output.changes.length;
    return {
      report: { command: "diff", files, findings, ok },
      summary: {
        lines: [
          `${oldSpec.name}@${oldSpec.version} → ${newSpec.name}@${newSpec.version}: ${diff.bump} change (input ${diff.input.bump}, output ${diff.output.bump}; ${
            plural(changes, "schema change")
          }, ${plural(diff.fields.length, "other field")} changed); ${
            verdict.code === "unchanged"
              ? "unchanged"
              : verdict.ok
              ? `version ${newSpec.version} is enough (at least ${verdict.minimumVersion})`
              : `version ${newSpec.version} is not enough: at least ${verdict.minimumVersion}`
          }`,
          outcome(diff.bump, failOn, ok),
        ],
        data: {
          kind: "tool",
          old: before.file,
          new: after.file,
          bump: diff.bump,
          inputBump: diff.input.bump,
          outputBump: diff.output.bump,
          failOn,
          oldVersion: oldSpec.version,
          newVersion: newSpec.version,
          minimumVersion: verdict.minimumVersion ?? null,
          versionOk: verdict.ok,
          version: verdict.code,
          changes,
          fieldChanges: diff.fields,
        },
      },
    };
  }
  const classification: SchemaChangeClassification = compare(() =>
    classifySchemaChange(before.schema!, after.schema!)
  );
  const findings = sortFindings([
    ...changeFindings(classification.changes, { doc: after }, severityOf),
    ...breakingCallFindings(
      after,
      { old: { inputSchema: before.schema! }, now: { inputSchema: after.schema! } },
      { input: classification.changes, output: [] },
    ),
  ]);
  const ok = !findings.some((f) => f.severity === "error");
  return {
    report: { command: "diff", files, findings, ok },
    summary: {
      lines: [
        `${before.file} → ${after.file}: ${classification.bump} change (${
          plural(classification.changes.length, "change")
        })`,
        outcome(classification.bump, failOn, ok),
      ],
      data: {
        kind: "schema",
        old: before.file,
        new: after.file,
        bump: classification.bump,
        failOn,
        changes: classification.changes.length,
      },
    },
  };
}

function outcome(bump: SchemaBump, failOn: SchemaBump, ok: boolean): string {
  if (ok) return `ok: below --fail-on ${failOn}`;
  return BUMP_RANK[bump] >= BUMP_RANK[failOn]
    ? `failed: a ${bump} change, at or above --fail-on ${failOn}`
    : `failed: the version is not enough`;
}

/**
 * Runs `estate diff OLD NEW [--fail-on patch|minor|major]`.
 *
 * @param positionals OLD and NEW.
 * @param options The flags, where paths resolve, the output and the usage line.
 * @returns The exit code: 0, 1 when there is an error finding.
 * @throws {UsageError} Not two files, an unknown `--fail-on`, an unreadable or invalid file.
 */
export function runDiff(
  positionals: string[],
  options: {
    failOn: string | true | undefined;
    cwd: string;
    format: Format;
    stdout: (text: string) => void;
    usage: string;
  },
): number {
  if (positionals.length !== 2) throw new UsageError(options.usage);
  const failOn = options.failOn ?? "major";
  if (!FAIL_ON.includes(failOn as SchemaBump)) {
    throw new UsageError(
      `--fail-on must be one of ${FAIL_ON.join(", ")}, got ${JSON.stringify(failOn)}`,
    );
  }
  const before = readDocument(options.cwd, positionals[0]);
  const after = readDocument(options.cwd, positionals[1]);
  const { report, summary } = diffDocuments(
    before,
    after,
    failOn as SchemaBump,
  );
  options.stdout(render(report, options.format, summary));
  return report.ok ? EXIT.ok : EXIT.failed;
}
