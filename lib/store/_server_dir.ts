/**
 * The servers folder: `servers/<id>.json`, one server record a file. Dotfiles (`.lock`, `.tmp-*`
 * leftovers of a crashed write, `.gitkeep`) are not part of the estate; any other file is an
 * error, so that nothing is silently skipped. A record that lists a tool another file's record
 * lists is an error naming both files.
 */
import fs from "node:fs";
import path from "node:path";
import {
  parseServerRecord,
  type ServerRecord,
  ServerRecordError,
} from "../estate/server_record.ts";
import { ServerDirectory, ServerRegistrationError } from "../estate/servers.ts";
import { CorpusError } from "./corpus_error.ts";
import { lineOf, parseJsonFile } from "./_json.ts";
import { readTextNoFollow, symlinkRefused } from "./_no_follow.ts";

/** The folder of server records, beside `tools/`. */
export const SERVERS_DIR = "servers";

/** A server record as found on disk. */
export interface DiskServer {
  /** The record. */
  record: ServerRecord;
  /** Its file. */
  file: string;
}

/**
 * Reads and checks the text of a server record file.
 *
 * @param text The file's text.
 * @param file Its path, for errors.
 * @returns The record.
 * @throws {CorpusError} For invalid JSON (with line and column) or an invalid record.
 */
export function parseServerFile(text: string, file: string): ServerRecord {
  const value = parseJsonFile(text, file);
  try {
    return parseServerRecord(value, file);
  } catch (e) {
    if (!(e instanceof ServerRecordError)) throw e;
    throw new CorpusError(
      file,
      `not a valid server record: ${e.problems.join("; ")}`,
      {
        cause: e,
      },
    );
  }
}

/**
 * Loads the servers folder, in file-name order. Nothing is written; a missing folder has none.
 *
 * @param dir The folder (`<estate>/servers`).
 * @returns The records, each with its file; they obey exactly-one among themselves.
 * @throws {CorpusError} For an unexpected file or folder, a symbolic link, a file that is not
 *   valid JSON or not a valid record, a record whose id is not its file's name, or a record that
 *   lists a tool an earlier file's record lists (naming both).
 */
export function loadServerDir(dir: string): DiskServer[] {
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch (e) {
    if ((e as { code?: string }).code === "ENOENT") return [];
    throw e;
  }
  const out: DiskServer[] = [];
  const directory = new ServerDirectory();
  const files = new Map<string, string>();
  for (
    const entry of entries.sort((a, b) => a.name < b.name ? -1 : a.name > b.name ? 1 : 0)
  ) {
    if (entry.name.startsWith(".")) continue;
    const file = path.join(dir, entry.name);
    if (entry.isSymbolicLink()) throw symlinkRefused(file);
    if (!entry.isFile() || !entry.name.endsWith(".json")) {
      throw new CorpusError(
        file,
        `unexpected ${
          entry.isDirectory() ? "folder" : "file"
        }: ${SERVERS_DIR}/ holds one <server id>.json per server`,
      );
    }
    const text = readTextNoFollow(file);
    const record = parseServerFile(text, file);
    if (`${record.id}.json` !== entry.name) {
      throw new CorpusError(
        file,
        `id ${
          JSON.stringify(record.id)
        } does not match the file name; the record of ${record.id} belongs in ${record.id}.json`,
        { line: lineOf(text, '"id"') },
      );
    }
    try {
      directory.register(record);
    } catch (e) {
      if (!(e instanceof ServerRegistrationError)) throw e;
      const c = e.conflicts[0];
      throw new CorpusError(
        file,
        `lists ${c.tool}, which ${
          files.get(c.server)
        } (server ${c.server}) lists too; exactly one server serves a tool name`,
        { line: lineOf(text, JSON.stringify(c.tool)) },
      );
    }
    files.set(record.id, file);
    out.push({ record, file });
  }
  return out;
}
