/**
 * Which file a stdio upstream's command runs, and its SHA-256: {@linkcode resolveCommand} finds
 * the program as `execvp` would (POSIX), {@linkcode sha256File} hashes a file as it streams. A
 * runtime edge (`node:fs`, `node:path`, `node:crypto`).
 *
 * @module
 */
import { createHash } from "node:crypto";
import { createReadStream, promises as fs } from "node:fs";
import path from "node:path";

/** The `PATH` a stdio upstream gets when its record gives none. */
export const DEFAULT_PATH = "/usr/local/bin:/usr/bin:/bin";

/** Whether `file` is a regular file someone may execute. */
async function isExecutable(file: string): Promise<boolean> {
  try {
    const stat = await fs.stat(file);
    return stat.isFile() && (stat.mode & 0o111) !== 0;
  } catch {
    return false;
  }
}

/**
 * The absolute path of the program a command names, as the OS would find it: a command with a
 * `/` is a path (relative ones against `cwd`); otherwise the first executable regular file of
 * that name in the directories of `searchPath` (empty entries, which POSIX reads as the current
 * folder, are skipped; relative entries are taken against `cwd`).
 *
 * @param command The record's command.
 * @param searchPath The `PATH` to search (the record's, or {@linkcode DEFAULT_PATH}).
 * @param cwd The folder relative paths are taken against.
 * @returns The absolute path (symbolic links are not resolved: the program is started by it), or
 *   undefined when nothing is found.
 */
export async function resolveCommand(
  command: string,
  searchPath: string,
  cwd: string,
): Promise<string | undefined> {
  if (command.includes("/")) return path.resolve(cwd, command);
  for (const dir of searchPath.split(":")) {
    if (dir === "") continue;
    const candidate = path.resolve(cwd, dir, command);
    if (await isExecutable(candidate)) return candidate;
  }
  return undefined;
}

/**
 * The SHA-256 of a file's bytes, lowercase hex (read as a stream: a 100 MB binary is fine).
 *
 * @param file The file.
 * @returns The hash.
 * @throws {Error} When the file cannot be read.
 */
export async function sha256File(file: string): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of createReadStream(file)) {
    hash.update(chunk as Uint8Array);
  }
  return hash.digest("hex");
}
