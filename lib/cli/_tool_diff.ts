/**
 * What changed from one tool spec to another — input schema, output schema and the other fields —
 * and whether the newer one's version is enough for it: the comparison behind `estate diff`,
 * `estate check --against` and `estate changelog`. Pure: no I/O.
 *
 * @module
 */
import { classifyOutputSchemaChange, classifySchemaChange } from "../compat/classify.ts";
import type {
  SchemaBump,
  SchemaChange,
  SchemaChangeClassification,
} from "../compat/schema_change.ts";
import { bumpFor, compareVersions } from "../compat/semver.ts";
import { TOOL_SPEC_FIELDS, type ToolSpec } from "../estate/spec.ts";
import { jsonEqual } from "../schema/json_equal.ts";

/** Bumps in order, for comparing them. */
export const BUMP_RANK: Readonly<Record<SchemaBump, number>> = {
  patch: 0,
  minor: 1,
  major: 2,
};

/** The larger of two bumps. */
export function maxBump(a: SchemaBump, b: SchemaBump): SchemaBump {
  return BUMP_RANK[a] >= BUMP_RANK[b] ? a : b;
}

/** A change to a top-level field other than the version and the schemas. */
export interface FieldChange {
  /** The field: `description`, `sideEffect`, `requiredScopes`, … */
  field: string;
  /** What changed, in a sentence. */
  message: string;
}

/** Everything that changed from one spec to the next. */
export interface ToolDiff {
  /** The input schema's changes, by `classifySchemaChange`. */
  input: SchemaChangeClassification;
  /** The output schema's changes, by `classifyOutputSchemaChange`. */
  output: SchemaChangeClassification;
  /** The other fields' changes (they require no bump of their own). */
  fields: FieldChange[];
  /** The bump the change requires: the larger of the input and output bumps. */
  bump: SchemaBump;
  /** Whether anything changed but the version. */
  changed: boolean;
}

const SCHEMA_FIELDS = new Set(["version", "inputSchema", "outputSchema"]);

const show = (v: unknown): string => JSON.stringify(v);

function listChange(field: string, before: unknown, after: unknown): string {
  const a = Array.isArray(before) ? before.map(show) : [];
  const b = Array.isArray(after) ? after.map(show) : [];
  const added = b.filter((x) => !a.includes(x));
  const removed = a.filter((x) => !b.includes(x));
  const parts = [
    ...(added.length ? [`added ${added.join(", ")}`] : []),
    ...(removed.length ? [`removed ${removed.join(", ")}`] : []),
  ];
  return `${field}: ${parts.length ? parts.join("; ") : "reordered"}`;
}

/** One field's change in a sentence. */
function fieldMessage(field: string, before: unknown, after: unknown): string {
  if (before === undefined) return `${field} added: ${short(after)}`;
  if (after === undefined) return `${field} removed (was ${short(before)})`;
  if (Array.isArray(before) || Array.isArray(after)) {
    return listChange(field, before, after);
  }
  if (field === "description") return "description changed";
  return `${field} changed from ${short(before)} to ${short(after)}`;
}

function short(v: unknown): string {
  const text = show(v);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

/**
 * Compares two specs of a tool.
 *
 * @param before The older spec (the published one, the baseline).
 * @param after The newer spec (the draft).
 * @returns Every change and the bump it requires.
 */
export function diffSpecs(before: ToolSpec, after: ToolSpec): ToolDiff {
  const input = classifySchemaChange(before.inputSchema, after.inputSchema);
  const output = classifyOutputSchemaChange(
    before.outputSchema,
    after.outputSchema,
  );
  const fields: FieldChange[] = [];
  const b = before as unknown as Record<string, unknown>;
  const a = after as unknown as Record<string, unknown>;
  for (const field of TOOL_SPEC_FIELDS) {
    if (SCHEMA_FIELDS.has(field) || jsonEqual(b[field], a[field])) continue;
    fields.push({ field, message: fieldMessage(field, b[field], a[field]) });
  }
  return {
    input,
    output,
    fields,
    bump: maxBump(input.bump, output.bump),
    changed: input.changes.length + output.changes.length + fields.length > 0,
  };
}

/** Whether the newer spec's version is enough for the change. */
export interface VersionVerdict {
  /**
   * `version-ok`, `unchanged` (same content, same version), `version-too-low` (newer but not by
   * enough), `version-unchanged` (same version, other content), `not-newer` (an older version).
   */
  code:
    | "version-ok"
    | "unchanged"
    | "version-too-low"
    | "version-unchanged"
    | "not-newer";
  /** Whether the version is enough. */
  ok: boolean;
  /** The lowest version the change allows, when something changed. */
  minimumVersion?: string;
  /** The sentence shown to the user. */
  message: string;
}

/**
 * Whether `after`'s version is enough for the change from `before`: at least the version the bump
 * makes of `before`'s (`bumpFor`), or the same version with the same content.
 *
 * @param before The older spec.
 * @param after The newer spec.
 * @param diff `diffSpecs(before, after)`.
 * @returns The verdict.
 */
export function versionVerdict(
  before: ToolSpec,
  after: ToolSpec,
  diff: ToolDiff,
): VersionVerdict {
  const from = before.version, to = after.version;
  if (!diff.changed) {
    if (compareVersions(from, to) === 0) {
      return { code: "unchanged", ok: true, message: `unchanged from ${from}` };
    }
  }
  const minimumVersion = bumpFor(from, diff.bump);
  const what = `${diff.bump} change against ${from}${
    diff.input.changes.length + diff.output.changes.length === 0 ? " (no schema change)" : ""
  }`;
  const order = compareVersions(to, from);
  if (order === 0) {
    return {
      code: "version-unchanged",
      ok: false,
      minimumVersion,
      message:
        `${what}, but the version is still ${to} — version must be at least ${minimumVersion}`,
    };
  }
  if (order < 0) {
    return {
      code: "not-newer",
      ok: false,
      minimumVersion,
      message: `${to} is older than ${from} — for a ${diff.bump} change, use ${minimumVersion}`,
    };
  }
  if (compareVersions(to, minimumVersion) < 0) {
    const biting = [...diff.input.changes, ...diff.output.changes.map(inOutput)]
      .filter((c) => c.bump === diff.bump).map((c) => `${c.message.split(":")[0]} at ${c.path}`);
    return {
      code: "version-too-low",
      ok: false,
      minimumVersion,
      message: `${what}: ${biting.slice(0, 3).join("; ")}${
        biting.length > 3 ? `; and ${biting.length - 3} more` : ""
      } — version must be at least ${minimumVersion}`,
    };
  }
  return {
    code: "version-ok",
    ok: true,
    minimumVersion,
    message: `${what}: ${to} is enough`,
  };
}

/** An output change with its path written from the tool spec: `outputSchema.properties.status`. */
function inOutput(c: SchemaChange): SchemaChange {
  return { ...c, path: `outputSchema${c.path.slice(1)}` };
}
