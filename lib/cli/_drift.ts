/**
 * `estate drift`: what the gateway observed of upstream servers (`drift.jsonl`), grouped by server
 * and tool, newest first. Text that came from an upstream is printed with its hidden characters
 * made visible, so a poisoned description cannot drive the reader's terminal.
 */
import { type DriftRecord, limitList, shortenText, showHiddenCharacters } from "../../mod.ts";
import type { EstateStore } from "../store/mod.ts";
import { EXIT } from "./_args.ts";
import type { Out } from "./_servers.ts";

/** The records of one server and tool (or of the server as a whole), newest first. */
interface DriftGroup {
  server: string;
  /** The tool; null for what concerns the whole server. */
  tool: string | null;
  records: DriftRecord[];
  /** How many older records the output leaves out. */
  omitted: number;
}

/** Which records to show. */
export interface DriftFilter {
  server?: string;
  tool?: string;
}

/**
 * Groups drift records by server and tool (server-wide records first in each server), each group
 * newest first (records with the same time: the one written later first).
 *
 * @param records The records, in file order.
 * @returns The groups, sorted by server and tool.
 */
export function groupDrift(records: Iterable<DriftRecord>): DriftGroup[] {
  const groups = new Map<
    string,
    { server: string; tool: string | null; list: DriftRecord[] }
  >();
  for (const r of records) {
    const key = `${r.server}\u0000${r.tool ?? ""}`;
    let g = groups.get(key);
    if (!g) {
      groups.set(key, g = { server: r.server, tool: r.tool ?? null, list: [] });
    }
    g.list.push(r);
  }
  const cmp = (a: string, b: string) => a < b ? -1 : a > b ? 1 : 0;
  return [...groups.values()]
    .sort((a, b) => cmp(a.server, b.server) || cmp(a.tool ?? "", b.tool ?? ""))
    .map((g) => {
      const newest = g.list.map((r, i) => ({ r, i, t: Date.parse(r.at) }))
        .sort((a, b) => b.t - a.t || b.i - a.i).map((x) => x.r);
      return { server: g.server, tool: g.tool, records: newest, omitted: 0 };
    });
}

const shortenRecord = (r: DriftRecord): DriftRecord => ({
  ...r,
  details: shortenText(r.details),
});

/**
 * `estate drift`: the drift log, grouped and newest first (each group cut as every answer is).
 *
 * @returns The exit code (0).
 */
export async function showDrift(
  estate: EstateStore,
  filter: DriftFilter,
  out: Out,
): Promise<number> {
  const all: DriftRecord[] = [];
  for await (const r of estate.readDrift()) {
    if (filter.server !== undefined && r.server !== filter.server) continue;
    if (filter.tool !== undefined && r.tool !== filter.tool) continue;
    all.push(r);
  }
  const groups = groupDrift(all).map((g) => {
    const shown = limitList(g.records, { shorten: shortenRecord });
    return { ...g, records: shown.items, omitted: shown.omitted };
  });
  const safe = showHiddenCharacters;
  const human = groups.length === 0
    ? `no drift recorded${
      filter.server || filter.tool ? " for that server or tool" : ""
    } (drift.jsonl, written by the gateway)\n`
    : groups.map((g) => {
      const version = g.records.find((r) => r.registeredVersion)
        ?.registeredVersion;
      const head = g.tool === null
        ? `${g.server} (the server)`
        : `${g.server} ${safe(g.tool)}${version ? ` (registered ${safe(version)})` : ""}`;
      const kinds = g.records.map((r) => `${r.kind}${r.bump ? ` (${r.bump})` : ""}`);
      const width = Math.max(...kinds.map((k) => k.length));
      return `${head}\n` +
        g.records.map((r, i) =>
          `  ${safe(r.at)}  ${kinds[i].padEnd(width)}  ${safe(r.details)}${
            r.registeredVersion && r.registeredVersion !== version
              ? ` (registered ${safe(r.registeredVersion)})`
              : ""
          }\n`
        ).join("") +
        (g.omitted ? `  … and ${g.omitted} older record${g.omitted === 1 ? "" : "s"}\n` : "");
    }).join("");
  out(human, { total: all.length, groups });
  return EXIT.ok;
}
