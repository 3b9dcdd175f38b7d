/**
 * A folder estate's proposals: `proposals/<id>.json`, one pretty JSON file per proposal, written
 * under the lock of `proposals/` (read, decide with `proposalEvent`, write the records it returns).
 */
import fs from "node:fs";
import path from "node:path";
import {
  type Proposal,
  ProposalError,
  type ProposalEvent,
  proposalEvent,
} from "../estate/proposal.ts";
import type { ApprovalPolicy } from "../estate/approval.ts";
import { ensureDir, removeLeftovers, replaceAtomic, TEMP_PREFIX } from "./_atomic.ts";
import { type LockOptions, withLock } from "./_lock.ts";
import { parseJsonFile } from "./_json.ts";
import { CorpusError } from "./corpus_error.ts";

/** The folder of proposals in the estate's folder. */
export const PROPOSALS_DIR = "proposals";

const ID = /^[0-9a-f]{64}$/;

/** Every proposal in the folder, oldest first (by `created`, then id). */
export function readProposalDir(estate: string): Proposal[] {
  const dir = path.join(estate, PROPOSALS_DIR);
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch (e) {
    if ((e as { code?: string }).code === "ENOENT") return [];
    throw e;
  }
  const out: Proposal[] = [];
  for (const name of names) {
    if (name.startsWith(TEMP_PREFIX) || name.startsWith(".")) continue;
    const file = path.join(dir, name);
    const id = name.replace(/\.json$/, "");
    if (!name.endsWith(".json") || !ID.test(id)) {
      throw new CorpusError(file, "not a proposal: expected proposals/<64 hex digits>.json");
    }
    const value = parseJsonFile(fs.readFileSync(file, "utf8"), file) as Proposal;
    if (value?.id !== id) {
      throw new CorpusError(file, `its id is not its file name (${id})`, { line: 1 });
    }
    out.push(value);
  }
  return out.sort((a, b) => a.created.localeCompare(b.created) || a.id.localeCompare(b.id));
}

/**
 * Records an event under the lock of `proposals/`: decided against the folder as it is now,
 * each changed record replaced atomically.
 */
export function recordInProposalDir(
  estate: string,
  event: ProposalEvent,
  policy: ApprovalPolicy | undefined,
  lock: LockOptions,
): Proposal[] {
  const dir = path.join(estate, PROPOSALS_DIR);
  ensureDir(dir);
  return withLock(dir, `record a proposal (${event.kind})`, lock, () => {
    removeLeftovers(dir);
    const all = readProposalDir(estate);
    const tool = event.kind === "propose"
      ? event.proposal.tool
      : all.find((p) => p.id === event.id)?.tool;
    if (tool === undefined && event.kind !== "propose") {
      throw new ProposalError(`no proposal ${event.id.slice(0, 12)}`);
    }
    const changed = proposalEvent(all.filter((p) => p.tool === tool), event, policy);
    for (const p of changed) {
      replaceAtomic(path.join(dir, `${p.id}.json`), JSON.stringify(p, null, 2) + "\n");
    }
    return changed;
  });
}
