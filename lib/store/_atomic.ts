/**
 * Durable, atomic file writes: a temporary file in the same folder (named `.tmp-…`), fsync'd,
 * then moved into place — by hard link for a file that must not exist yet (exclusive: fails if it
 * does, even across processes), by rename for a file that is replaced — and the folder fsync'd so
 * that the new name survives a crash too.
 */
import fs from "node:fs";
import path from "node:path";
import process from "node:process";

/** The prefix of temporary files; a loader ignores such leftovers of a crashed write. */
export const TEMP_PREFIX = ".tmp-";

let counter = 0;

function tempPath(file: string): string {
  const random = Math.floor(Math.random() * 0xffffffff).toString(16);
  return path.join(
    path.dirname(file),
    `${TEMP_PREFIX}${path.basename(file)}-${process.pid}-${++counter}-${random}`,
  );
}

/** Writes `text` to a fresh temporary file next to `file` and fsyncs it. */
function writeTemp(file: string, text: string): string {
  const temp = tempPath(file);
  const fd = fs.openSync(temp, "wx");
  try {
    const bytes = new TextEncoder().encode(text);
    let written = 0;
    while (written < bytes.length) {
      written += fs.writeSync(fd, bytes, written, bytes.length - written);
    }
    fs.fsyncSync(fd);
  } catch (e) {
    fs.closeSync(fd);
    fs.rmSync(temp, { force: true });
    throw e;
  }
  fs.closeSync(fd);
  return temp;
}

/**
 * Fsyncs a folder, so that names created, renamed or removed in it are durable. Platforms that
 * cannot open a folder (Windows) make their renames durable themselves; there it does nothing.
 *
 * @param dir The folder.
 */
export function fsyncDir(dir: string): void {
  let fd: number;
  try {
    fd = fs.openSync(dir, "r");
  } catch {
    return;
  }
  try {
    fs.fsyncSync(fd);
  } catch {
    // Some platforms and file systems refuse to fsync a folder; nothing more can be done there.
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Creates `file` with `text`, atomically and exclusively: readers see the whole file or none, and
 * of two writers only one succeeds.
 *
 * @param file The file to create.
 * @param text Its content.
 * @returns True when created; false when `file` already exists (it is left as it was).
 */
export function createExclusive(file: string, text: string): boolean {
  const temp = writeTemp(file, text);
  try {
    fs.linkSync(temp, file);
  } catch (e) {
    if ((e as { code?: string }).code === "EEXIST") return false;
    throw e;
  } finally {
    fs.rmSync(temp, { force: true });
  }
  fsyncDir(path.dirname(file));
  return true;
}

/**
 * Replaces (or creates) `file` with `text` atomically: readers see the old content or the new,
 * never a mix.
 *
 * @param file The file to replace.
 * @param text Its new content.
 */
export function replaceAtomic(file: string, text: string): void {
  const temp = writeTemp(file, text);
  try {
    fs.renameSync(temp, file);
  } catch (e) {
    fs.rmSync(temp, { force: true });
    throw e;
  }
  fsyncDir(path.dirname(file));
}

/**
 * Makes a folder (and its parents) if missing, fsyncing each parent that gained an entry.
 *
 * @param dir The folder.
 */
export function ensureDir(dir: string): void {
  if (fs.existsSync(dir)) return;
  ensureDir(path.dirname(dir));
  try {
    fs.mkdirSync(dir);
  } catch (e) {
    if ((e as { code?: string }).code !== "EEXIST") throw e;
  }
  fsyncDir(path.dirname(dir));
}

/**
 * Makes a folder of runtime state (spent requestStates, call-limit counters, idempotency keys —
 * never the estate's history) if missing, with a `.gitignore` that keeps git out of it.
 *
 * @param dir The folder.
 * @returns The folder.
 */
export function ensureRuntimeDir(dir: string): string {
  if (fs.existsSync(dir)) return dir;
  ensureDir(dir);
  fs.writeFileSync(path.join(dir, ".gitignore"), "*\n");
  return dir;
}

/**
 * Removes leftovers of crashed writes (`.tmp-*`) from a folder. Call only while holding the
 * folder's lock: only a lock holder writes temporary files there.
 *
 * @param dir The folder.
 */
export function removeLeftovers(dir: string): void {
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    if (name.startsWith(TEMP_PREFIX)) {
      fs.rmSync(path.join(dir, name), { force: true });
    }
  }
}
