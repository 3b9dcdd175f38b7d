/**
 * Opening the estate's files without following symbolic links: a link in the estate folder could
 * make a write land outside it (or a read take in a file nobody reviewed), so every file the store
 * reads or writes in a tool's folder is opened with `O_NOFOLLOW`, and checked with `lstat` first
 * where the platform has no such flag (Windows).
 */
import fs from "node:fs";
import { CorpusError } from "./corpus_error.ts";

const NOFOLLOW: number = fs.constants.O_NOFOLLOW ?? 0;

/**
 * The error for a symbolic link where the estate expects a file or folder of its own.
 *
 * @param file The link.
 * @returns The error, naming it.
 */
export function symlinkRefused(file: string): CorpusError {
  return new CorpusError(
    file,
    "is a symbolic link; the estate never follows one (put the file itself in its place)",
  );
}

/**
 * Throws when `file` is a symbolic link; a missing file is fine.
 *
 * @param file The file or folder.
 * @throws {CorpusError} When it is a symbolic link.
 */
export function refuseSymlink(file: string): void {
  if (fs.lstatSync(file, { throwIfNoEntry: false })?.isSymbolicLink()) {
    throw symlinkRefused(file);
  }
}

/**
 * Opens a file without following a symbolic link.
 *
 * @param file The file.
 * @param flags `fs.constants` open flags (`O_NOFOLLOW` is added).
 * @param mode The mode of a file created.
 * @returns The descriptor.
 * @throws {CorpusError} When the file is a symbolic link.
 * @throws {Error} As `fs.openSync` does otherwise (`ENOENT`, ...).
 */
export function openNoFollow(
  file: string,
  flags: number,
  mode = 0o666,
): number {
  refuseSymlink(file);
  try {
    return fs.openSync(file, flags | NOFOLLOW, mode);
  } catch (e) {
    // Linux and macOS say ELOOP for a link opened with O_NOFOLLOW (replaced after the lstat).
    if ((e as { code?: string }).code === "ELOOP") throw symlinkRefused(file);
    throw e;
  }
}

/**
 * Reads a whole file as UTF-8 without following a symbolic link.
 *
 * @param file The file.
 * @returns Its text.
 * @throws {CorpusError} When the file is a symbolic link.
 * @throws {Error} As `fs.readFileSync` does otherwise (`ENOENT`, ...).
 */
export function readTextNoFollow(file: string): string {
  const fd = openNoFollow(file, fs.constants.O_RDONLY);
  try {
    return fs.readFileSync(fd, "utf8");
  } finally {
    fs.closeSync(fd);
  }
}
