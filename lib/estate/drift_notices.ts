/**
 * Which of the gateway's drift records still apply, and what the tool's owner is told of them:
 * {@linkcode quarantinesInForce} (the tools the gateway quarantined, for `estate servers`) and
 * {@linkcode driftNotices} (what the editor shows on a tool's file). Pure: the records come from
 * `drift.jsonl` through the store, the registry from the estate.
 *
 * @module
 */
import { isObject } from "../_object.ts";
import { shortenText } from "../schema/issue_limit.ts";
import type { FindingTarget } from "./check_draft.ts";
import type { DriftRecord } from "./drift.ts";
import { showHiddenCharacters } from "./poisoning.ts";
import type { ToolRegistry } from "./registry.ts";

/** What {@linkcode driftNotices} needs of the estate: its newest versions and its servers. */
export type DriftRegistry = Pick<ToolRegistry, "latest" | "serverFor">;

/** The kinds whose newest record says where a tool's live contract stands. */
const CONTRACT_KINDS: readonly string[] = [
  "quarantined",
  "compatible",
  "cleared",
];

/** Whether record `b` is newer than `a`: a later time, or the same time and written later. */
function newer(a: DriftRecord | undefined, b: DriftRecord): boolean {
  return !a || Date.parse(b.at) >= Date.parse(a.at);
}

/** The newest record per server and tool among those `take` accepts, in file order of servers. */
function newestPerServer(
  records: Iterable<DriftRecord>,
  take: (r: DriftRecord) => boolean,
): Map<string, DriftRecord> {
  const last = new Map<string, DriftRecord>();
  for (const r of records) {
    if (r.tool === undefined || !take(r)) continue;
    const key = `${r.server}\u0000${r.tool}`;
    if (newer(last.get(key), r)) last.set(key, r);
  }
  return last;
}

/**
 * The quarantines in force: per server and tool, the newest schema drift (`quarantined`,
 * `compatible` or `cleared`) when it is a quarantine of the version still registered (the newest
 * active one). A later `compatible` or `cleared` record lifts it, and so does a newer published
 * version. Records with the same time: the one written later counts.
 *
 * @param records The drift log, in file order.
 * @param registry The estate: the newest active version of each tool.
 * @returns The `quarantined` records in force, sorted by server, then tool.
 *
 * @example
 * ```ts
 * import { type DriftRecord, quarantinesInForce, ToolRegistry } from "@tool-estate/core";
 * import assert from "node:assert/strict";
 * const registry = new ToolRegistry();
 * registry.publish({
 *   name: "crm.lookup", version: "1.0.0", title: "Look up a customer", description: "Reads the CRM.",
 *   inputSchema: { type: "object" }, sideEffect: "read", requiredScopes: [],
 *   dataClassification: "internal", tenants: [], owner: "crm",
 * });
 * const held: DriftRecord = {
 *   at: "2026-12-01T09:00:00.000Z", server: "crm-mcp", tool: "crm.lookup", registeredVersion: "1.0.0",
 *   kind: "quarantined", bump: "major", details: "crm.lookup quarantined: …",
 * };
 * assert.deepEqual(quarantinesInForce([held], registry), [held]);
 * const cleared = { ...held, at: "2026-12-01T10:00:00.000Z", kind: "cleared" as const };
 * assert.deepEqual(quarantinesInForce([held, cleared], registry), []);
 * ```
 */
export function quarantinesInForce(
  records: Iterable<DriftRecord>,
  registry: Pick<ToolRegistry, "latest">,
): DriftRecord[] {
  const out: DriftRecord[] = [];
  for (
    const r of newestPerServer(records, (r) => CONTRACT_KINDS.includes(r.kind))
      .values()
  ) {
    if (
      r.kind === "quarantined" &&
      registry.latest(r.tool!)?.version === r.registeredVersion
    ) {
      out.push(r);
    }
  }
  const cmp = (a: string, b: string) => a < b ? -1 : a > b ? 1 : 0;
  return out.sort((a, b) => cmp(a.server, b.server) || cmp(a.tool!, b.tool!));
}

/** What a {@linkcode DriftNotice} is about. */
export type DriftNoticeCode =
  /** The tool is quarantined (a warning). */
  | "drift-quarantined"
  /** The upstream changed a text the model reads: a rug-pull signal (information). */
  | "drift-description"
  /** The tool's own server no longer lists it: calls answer unavailable (a warning). */
  | "drift-unavailable"
  /** Another server offered the tool, and the gateway dropped it (information). */
  | "drift-dropped-tool";

/** One thing the tool's owner is told of the drift of a tool, placed in its file. */
export interface DriftNotice {
  /** `warning` for a quarantine, `information` for the rest. */
  severity: "warning" | "information";
  /** What it is about. */
  code: DriftNoticeCode;
  /**
   * Where in the tool's file: the schema node of the first major change the evidence names, the
   * description (or title) the upstream changed, else the tool's `name`.
   */
  target: FindingTarget;
  /**
   * The sentence shown to the owner. Text taken from the log has its hidden characters shown and
   * is cut at `MAX_ISSUE_TEXT` (the sentence around it is this module's, and short).
   */
  message: string;
  /** The drift record it comes from. */
  record: DriftRecord;
}

/**
 * What the tool's owner is told of a tool's drift now, for its file in the editor:
 *
 * - a warning when the tool is quarantined ({@linkcode quarantinesInForce}) by the server that
 *   serves it now;
 * - information for that server's newest `description` record while it is the newest record of
 *   the tool from that server and the version it was compared with is still the newest active
 *   one (the upstream changed a text the model reads: a rug-pull signal);
 * - information for each other server's newest `dropped-tool` record naming the tool (it offered
 *   a tool its record does not allow), unless that server now serves it.
 *
 * When the estate records no server for the tool, the records of every server count.
 *
 * @param records The drift log, in file order.
 * @param tool The tool's name.
 * @param registry The estate: the newest active version of each tool, and which server serves it.
 * @returns The notices: quarantines, then description changes, then dropped offers; each sorted
 *   by server.
 *
 * @example
 * ```ts
 * import { type DriftRecord, driftNotices, ToolRegistry } from "@tool-estate/core";
 * import assert from "node:assert/strict";
 * const registry = new ToolRegistry();
 * registry.publish({
 *   name: "crm.lookup", version: "1.0.0", title: "Look up a customer", description: "Reads the CRM.",
 *   inputSchema: { type: "object", properties: { id: { type: "string" } } }, sideEffect: "read",
 *   requiredScopes: [], dataClassification: "internal", tenants: [], owner: "crm",
 * });
 * const held: DriftRecord = {
 *   at: "2026-12-01T09:00:00.000Z", server: "crm-mcp", tool: "crm.lookup", registeredVersion: "1.0.0",
 *   kind: "quarantined", bump: "major", details: "crm.lookup quarantined",
 *   evidence: {
 *     reasons: ["its input schema now rejects calls the registered one accepts ($.properties.id: …)"],
 *     input: { bump: "major", changes: [{ path: "$.properties.id", kind: "type", bump: "major", message: "…" }] },
 *   },
 * };
 * const [notice] = driftNotices([held], "crm.lookup", registry);
 * assert.equal(notice.severity, "warning");
 * assert.deepEqual(notice.target, { field: "inputSchema", path: "$.properties.id" });
 * assert.match(notice.message, /^crm\.lookup is quarantined: server crm-mcp now serves a contract that needs a major bump against 1\.0\.0/);
 * ```
 */
export function driftNotices(
  records: Iterable<DriftRecord>,
  tool: string,
  registry: DriftRegistry,
): DriftNotice[] {
  const mine = [...records].filter((r) => r.tool === tool);
  const serving = registry.serverFor(tool)?.id;
  const fromServing = (r: DriftRecord) => serving === undefined || r.server === serving;
  const registered = registry.latest(tool)?.version;
  const byServer = (a: DriftNotice, b: DriftNotice) =>
    a.record.server < b.record.server ? -1 : a.record.server > b.record.server ? 1 : 0;

  const held = quarantinesInForce(mine.filter(fromServing), registry)
    .map((r): DriftNotice => ({
      severity: "warning",
      code: "drift-quarantined",
      target: contractTarget(r),
      message: quarantineMessage(r),
      record: r,
    }));

  const newest = newestPerServer(
    mine.filter(fromServing),
    (r) => r.kind !== "dropped-tool",
  );
  const texts = [...newest.values()]
    .filter((r) => r.kind === "description" && r.registeredVersion === registered)
    .map((r): DriftNotice => ({
      severity: "information",
      code: "drift-description",
      target: textTarget(r),
      message: descriptionMessage(r),
      record: r,
    }))
    .sort(byServer);

  // The tool's own server stopped listing it: every call answers unavailable.
  const gone = [...newest.values()]
    .filter((r) => r.kind === "unavailable")
    .map((r): DriftNotice => ({
      severity: "warning",
      code: "drift-unavailable",
      target: { field: "name" },
      message: `${r.tool} is unavailable since ${safe(r.at)}: ${
        safe(r.details)
      } — see estate drift`,
      record: r,
    }))
    .sort(byServer);

  const offers = [
    ...newestPerServer(mine, (r) => r.kind === "dropped-tool").values(),
  ]
    .filter((r) => r.server !== serving)
    .map((r): DriftNotice => ({
      severity: "information",
      code: "drift-dropped-tool",
      target: { field: "name" },
      message: droppedMessage(r),
      record: r,
    }))
    .sort(byServer);

  return [...held, ...gone, ...texts, ...offers];
}

/** A schema change as the evidence holds it, read defensively (the log is a file anyone may edit). */
function changesOf(evidence: unknown): { path: string; bump: unknown }[] {
  if (!isObject(evidence) || !Array.isArray(evidence.changes)) return [];
  return evidence.changes.filter((c): c is { path: string; bump: unknown } =>
    isObject(c) && typeof c.path === "string" && c.path.startsWith("$")
  );
}

/** The schema node of the first major change of the input (else the output), else the name. */
function contractTarget(r: DriftRecord): FindingTarget {
  for (const field of ["inputSchema", "outputSchema"] as const) {
    const changes = changesOf(
      r.evidence?.[field === "inputSchema" ? "input" : "output"],
    );
    const major = changes.find((c) => c.bump === "major");
    if (major) return { field, path: major.path };
  }
  return { field: "name" };
}

/** The description (else the title, else a text in a schema) the upstream changed, else the name. */
function textTarget(r: DriftRecord): FindingTarget {
  const fields = textFields(r);
  if (fields.includes("description")) return { field: "description" };
  if (fields.includes("title")) return { field: "title" };
  for (const f of fields) {
    // Texts in schemas are named `inputSchema.properties.x.description`.
    const m = /^(inputSchema|outputSchema)((?:\.|\[).*)$/.exec(f);
    if (m) {
      return {
        field: m[1] as "inputSchema" | "outputSchema",
        path: `$${m[2]}`,
      };
    }
  }
  return { field: "name" };
}

function textFields(r: DriftRecord): string[] {
  const text = r.evidence?.text;
  if (!Array.isArray(text)) return [];
  return text.filter(isObject).map((t) => t.field).filter((f): f is string =>
    typeof f === "string"
  );
}

function textSignals(r: DriftRecord): string[] {
  const text = r.evidence?.text;
  if (!Array.isArray(text)) return [];
  const codes = text.filter(isObject).flatMap((t) =>
    Array.isArray(t.signals) ? t.signals.filter(isObject).map((s) => s.code) : []
  ).filter((c): c is string => typeof c === "string");
  return [...new Set(codes)];
}

/** Text from the log, as a notice quotes it: hidden characters shown, cut at `MAX_ISSUE_TEXT`. */
const safe = (text: string): string => shortenText(showHiddenCharacters(text));

function quarantineMessage(r: DriftRecord): string {
  const reasons = r.evidence?.reasons;
  const first = Array.isArray(reasons) && typeof reasons[0] === "string" ? reasons[0] : r.details;
  const against = r.bump === "major"
    ? `needs a major bump against ${safe(r.registeredVersion!)}`
    : `leaves the contract of ${safe(r.registeredVersion!)}`;
  return `${r.tool} is quarantined: server ${r.server} now serves a contract that ${against} ` +
    `(${safe(first)}); publish a new version or get the upstream fixed — see estate drift`;
}

function descriptionMessage(r: DriftRecord): string {
  const fields = textFields(r);
  const signals = textSignals(r);
  const more = fields.length > 3 ? `, and ${fields.length - 3} more` : "";
  const what = fields.length ? ` (${fields.slice(0, 3).map(safe).join(", ")}${more})` : "";
  return `server ${r.server} changed what the model would read of ${r.tool}${what}` +
    (signals.length ? `, with signs of tool poisoning (${signals.map(safe).join(", ")})` : "") +
    `: a rug-pull signal; principals still read ${r.tool}@${safe(r.registeredVersion!)} ` +
    `— see estate drift`;
}

function droppedMessage(r: DriftRecord): string {
  // The gateway writes `<server> offered <tool>: <reason>`.
  const prefix = `${r.server} offered ${r.tool}: `;
  const why = r.details.startsWith(prefix) ? r.details.slice(prefix.length) : r.details;
  return `server ${r.server} offered ${r.tool} and the gateway dropped it (${safe(why)}): ` +
    `a server that may be impersonating it — see estate drift`;
}
