/**
 * Lines of a file, read with a fixed-size buffer: memory stays flat however large the file (it
 * grows only to hold the longest line). Lines end with `\n` (a `\r` before it is dropped); a last
 * line without a newline is still a line, marked as such. UTF-8 is decoded whole lines at a time,
 * so a character split across two reads is never cut. The file is not followed through a
 * symbolic link.
 */
import fs from "node:fs";
import { CorpusError } from "./corpus_error.ts";
import { openNoFollow } from "./_no_follow.ts";

/** The default read size: 64 KiB. */
export const DEFAULT_BUFFER_SIZE = 64 * 1024;

const NEWLINE = 0x0a;

/**
 * One line: its number (from 1), its text, and whether it ended with a newline. Only the last line
 * of a file can lack one; then its length in bytes follows, and its text is undefined when it is
 * not valid UTF-8 (a write cut inside a character), which it may be since nothing after it vouches
 * for it.
 */
export type Line = [number, string, true] | [
  number,
  string | undefined,
  false,
  number,
];

/**
 * Yields each line of a file, reading lazily: nothing is read until the first line is asked for,
 * and each read is at most one buffer. A missing file has no lines. The file is closed when the
 * generator finishes or is returned from (`break` in `for…of`).
 *
 * @param path The file.
 * @param bufferSize Bytes per read (at least 1).
 * @returns The lines, numbered from 1.
 * @throws {CorpusError} When a line that ends with a newline is not valid UTF-8, or the file is a
 *   symbolic link.
 */
export function* readLines(
  path: string,
  bufferSize: number = DEFAULT_BUFFER_SIZE,
): Generator<Line> {
  if (!Number.isInteger(bufferSize) || bufferSize < 1) {
    throw new RangeError(
      `bufferSize must be a positive integer, got ${bufferSize}`,
    );
  }
  let fd: number;
  try {
    fd = openNoFollow(path, fs.constants.O_RDONLY);
  } catch (e) {
    if ((e as { code?: string }).code === "ENOENT") return;
    throw e;
  }
  const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
  const decode = (bytes: Uint8Array, firstLine: number): string => {
    try {
      return decoder.decode(bytes);
    } catch {
      // Find the offending line to name it.
      let line = firstLine, start = 0;
      for (let i = 0; i <= bytes.length; i++) {
        if (i === bytes.length || bytes[i] === NEWLINE) {
          try {
            decoder.decode(bytes.subarray(start, i));
          } catch {
            break;
          }
          line++;
          start = i + 1;
        }
      }
      throw new CorpusError(path, "not valid UTF-8", { line });
    }
  };
  try {
    let buffer = new Uint8Array(bufferSize);
    let carried = 0; // bytes of an unfinished line at the front of the buffer
    let position = 0;
    let lineNumber = 0;
    for (;;) {
      if (carried === buffer.length) {
        // A line longer than the buffer: grow to hold it.
        const bigger = new Uint8Array(buffer.length * 2);
        bigger.set(buffer);
        buffer = bigger;
      }
      const n = fs.readSync(
        fd,
        buffer,
        carried,
        buffer.length - carried,
        position,
      );
      position += n;
      const end = carried + n;
      if (n === 0) {
        if (carried > 0) {
          lineNumber++;
          let text: string | undefined;
          try {
            text = trim(
              decoder.decode(buffer.subarray(0, carried)),
              lineNumber,
            );
          } catch {
            text = undefined;
          }
          yield [lineNumber, text, false, carried];
        }
        return;
      }
      const last = buffer.lastIndexOf(NEWLINE, end - 1);
      if (last < 0) {
        carried = end;
        continue;
      }
      const lines = decode(buffer.subarray(0, last), lineNumber + 1).split(
        "\n",
      );
      for (const text of lines) {
        lineNumber++;
        yield [lineNumber, trim(text, lineNumber), true];
      }
      buffer.copyWithin(0, last + 1, end);
      carried = end - last - 1;
    }
  } finally {
    fs.closeSync(fd);
  }
}

/** Drops a trailing `\r` (CRLF files) and, on line 1, a byte order mark. */
function trim(text: string, lineNumber: number): string {
  if (text.endsWith("\r")) text = text.slice(0, -1);
  if (lineNumber === 1 && text.startsWith("\uFEFF")) text = text.slice(1);
  return text;
}
