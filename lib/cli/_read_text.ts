/** A file a command was given, as text: a file that cannot be read is an input error. */
import fs from "node:fs";
import { UsageError } from "./_args.ts";

/**
 * Reads a file a command was given.
 *
 * @param file The file's absolute path.
 * @returns Its text.
 * @throws {UsageError} When it cannot be read, naming the file.
 */
export function readText(file: string): string {
  try {
    return fs.readFileSync(file, "utf8");
  } catch (e) {
    throw new UsageError(`cannot read ${file}: ${(e as Error).message}`);
  }
}
