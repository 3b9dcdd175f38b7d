/**
 * `estate changelog TOOL [--from V] [--to V]`: Markdown release notes of a tool, newest first — for
 * each published version, what changed against the one before it (input and output schema, by the
 * classifier, grouped by bump; the other fields) and its lifecycle (deprecated or retired, with
 * dates and reasons). `--from V` starts after V (the changes since V), `--to V` ends at V.
 *
 * @module
 */
import type { SchemaBump, SchemaChange } from "../compat/schema_change.ts";
import { compareVersions, Version } from "../compat/semver.ts";
import type { LifecycleEntry, VersionRecord } from "../estate/lifecycle.ts";
import { isToolName } from "../estate/spec.ts";
import { EXIT, UsageError } from "./_args.ts";
import { diffSpecs, type FieldChange } from "./_tool_diff.ts";

/** One version's entry of the changelog. */
export interface ChangelogEntry {
  /** The version. */
  version: string;
  /** The version it is compared with; undefined for the first published one. */
  previous?: string;
  /** When it was published (ISO 8601). */
  published: string;
  /** Its state now. */
  state: string;
  /** The bump the change against `previous` requires. */
  bump?: SchemaBump;
  /** The input schema's changes. */
  changes: SchemaChange[];
  /** The output schema's changes. */
  outputChanges: SchemaChange[];
  /** The other fields' changes. */
  fieldChanges: FieldChange[];
  /** Its lifecycle after publication: deprecations, retirements. */
  lifecycle: LifecycleEntry[];
}

/**
 * The changelog entries of a tool's versions, newest first.
 *
 * @param versions The tool's published versions, ascending.
 * @param range `from` (exclusive) and `to` (inclusive).
 * @returns The entries in the range.
 */
export function changelogEntries(
  versions: readonly VersionRecord[],
  range: { from?: string; to?: string },
): ChangelogEntry[] {
  const entries: ChangelogEntry[] = [];
  versions.forEach((record, i) => {
    const v = record.spec.version;
    if (range.from !== undefined && compareVersions(v, range.from) <= 0) return;
    if (range.to !== undefined && compareVersions(v, range.to) > 0) return;
    const previous = i > 0 ? versions[i - 1] : undefined;
    const diff = previous ? diffSpecs(previous.spec, record.spec) : undefined;
    entries.push({
      version: v,
      ...(previous ? { previous: previous.spec.version } : {}),
      published: record.history[0]?.at ?? "",
      state: record.state,
      ...(diff ? { bump: diff.bump } : {}),
      changes: diff?.input.changes ?? [],
      outputChanges: diff?.output.changes ?? [],
      fieldChanges: diff?.fields ?? [],
      lifecycle: record.history.slice(1),
    });
  });
  return entries.reverse();
}

const day = (at: string) => at.slice(0, 10);
const capital = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

function lifecycleLine(e: LifecycleEntry): string {
  const when = e.state === "active" ? "Active again" : capital(e.state);
  const after = e.retireAfter ? ` (retires after ${e.retireAfter})` : "";
  return `- **${when}** ${day(e.at)}${after}${e.reason ? `: ${e.reason}` : ""}`;
}

function changeLine(c: SchemaChange, side: "input" | "output"): string {
  return `- ${side} \`${c.path}\`: ${c.message}`;
}

/**
 * Renders changelog entries as Markdown.
 *
 * @param name The tool.
 * @param entries `changelogEntries(...)`.
 * @returns The Markdown, ending with a newline.
 */
export function changelogMarkdown(
  name: string,
  entries: readonly ChangelogEntry[],
): string {
  const out: string[] = [`# ${name} changelog`, ""];
  for (const e of entries) {
    out.push(`## ${e.version} (${day(e.published)})`, "");
    out.push(
      e.previous === undefined
        ? "First published version."
        : `**${capital(e.bump ?? "patch")}** change against ${e.previous}.`,
      "",
    );
    if (e.lifecycle.length) out.push(...e.lifecycle.map(lifecycleLine), "");
    const all = [
      ...e.changes.map((c) => ({ c, side: "input" as const })),
      ...e.outputChanges.map((c) => ({ c, side: "output" as const })),
    ];
    const groups: [string, SchemaBump][] = [
      ["Breaking changes", "major"],
      ["Compatible changes", "minor"],
      ["Changes that affect no caller", "patch"],
    ];
    for (const [title, bump] of groups) {
      const lines = all.filter((x) => x.c.bump === bump).map((x) => changeLine(x.c, x.side));
      if (lines.length) out.push(`### ${title}`, "", ...lines, "");
    }
    if (e.fieldChanges.length) {
      out.push(
        "### Other fields",
        "",
        ...e.fieldChanges.map((f) => `- ${f.message}`),
        "",
      );
    }
  }
  return out.join("\n").replace(/\n+$/, "\n");
}

function versionFlag(
  name: string,
  value: string | true | undefined,
): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "string") {
    throw new UsageError(`--${name} needs a version`);
  }
  try {
    Version.parse(value);
  } catch {
    throw new UsageError(
      `--${name} ${JSON.stringify(value)} is not a version like 1.2.0`,
    );
  }
  return value;
}

/**
 * Runs `estate changelog TOOL [--from V] [--to V]`.
 *
 * @param positionals The tool's name.
 * @param options The flags, the estate's versions of a tool, the output and the usage line.
 * @returns 0.
 * @throws {UsageError} Not one tool name, an unknown tool, bad or empty bounds.
 */
export async function runChangelog(
  positionals: string[],
  options: {
    from: string | true | undefined;
    to: string | true | undefined;
    versions: (name: string) => Promise<readonly VersionRecord[]>;
    json: boolean;
    stdout: (text: string) => void;
    usage: string;
  },
): Promise<number> {
  if (positionals.length !== 1) throw new UsageError(options.usage);
  const name = positionals[0];
  if (!isToolName(name)) {
    throw new UsageError(
      `${JSON.stringify(name)} is not a tool name; ${options.usage}`,
    );
  }
  const from = versionFlag("from", options.from),
    to = versionFlag("to", options.to);
  if (
    from !== undefined && to !== undefined && compareVersions(from, to) >= 0
  ) {
    throw new UsageError(`--from ${from} must be lower than --to ${to}`);
  }
  const versions = await options.versions(name);
  if (!versions.length) {
    throw new UsageError(`no tool ${JSON.stringify(name)} in the estate`);
  }
  const entries = changelogEntries(versions, { from, to });
  if (!entries.length) {
    throw new UsageError(
      `no published version of ${name}${from ? ` after ${from}` : ""}${
        to ? ` up to ${to}` : ""
      }; published: ${versions.map((v) => v.spec.version).join(", ")}`,
    );
  }
  const markdown = changelogMarkdown(name, entries);
  options.stdout(
    options.json
      ? JSON.stringify(
        {
          name,
          from: from ?? null,
          to: to ?? null,
          versions: entries,
          markdown,
        },
        null,
        2,
      ) +
        "\n"
      : markdown,
  );
  return EXIT.ok;
}
