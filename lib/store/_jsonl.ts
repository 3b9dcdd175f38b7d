/**
 * JSON Lines files of records (`calls.jsonl`, `drift.jsonl`), read lazily with the line reader:
 * each line's text as it is in the file (so a copy can keep its bytes) with its parsed record.
 * Every line must be a record: a blank or malformed line is an error naming the file and line —
 * except an unterminated last line that is not a whole record (a torn write), which is reported
 * and not read.
 */
import { CorpusError } from "./corpus_error.ts";
import { locateJsonError } from "./_json.ts";
import { DEFAULT_BUFFER_SIZE, readLines } from "./_lines.ts";

/**
 * A torn last line of `calls.jsonl`: bytes after the last newline that are not a whole stored call.
 * An append writes whole lines and acknowledges them only after fsync, and truncates the file back
 * when a write fails; what remains is a write that never finished (a crash, a process killed
 * mid-write) and so was never acknowledged. Readers skip it and report it; the next append removes
 * it.
 */
export interface TornLine {
  /** The `calls.jsonl` file. */
  file: string;
  /** Its line number, counting from 1. */
  line: number;
  /** How many bytes it has. */
  bytes: number;
  /** False when a reader skipped it; true when an append removed it. */
  removed: boolean;
}

/** One record line: its number (from 1), its text without the line end, and its record. */
export interface RecordLine<T> {
  /** The line number, counting from 1. */
  line: number;
  /** The line's text, without its newline (a `\r` before it and a byte order mark dropped). */
  text: string;
  /** Whether the line ended with a newline (only a hand-written last line may not). */
  terminated: boolean;
  /** The parsed record. */
  value: T;
}

/** What a record file holds, and how to read it. */
export interface RecordLinesOptions {
  /** What one line is, for errors: `stored call`, `drift record`. */
  noun: string;
  /** What is wrong with a parsed value as a record; empty when it is one. */
  problems: (value: unknown) => string[];
  /** Bytes per read. Default 64 KiB. */
  bufferSize?: number;
  /** Told of a torn last line, which is not read. Default: ignored. */
  onTornLine?: (torn: TornLine) => void;
}

/**
 * Yields each record line of a file, lazily; a missing file has none.
 *
 * @param file The file.
 * @param options What a record is, the read size, the torn-line report.
 * @returns The lines, in file order.
 * @throws {CorpusError} While iterating, naming the file and line of the first line that is not
 *   valid UTF-8, not JSON, or not a record (other than a torn last line); or when the file is a
 *   symbolic link.
 */
export function* readRecordLines<T>(
  file: string,
  options: RecordLinesOptions,
): Generator<RecordLine<T>> {
  const whole = (text: string): boolean => {
    try {
      return options.problems(JSON.parse(text)).length === 0;
    } catch {
      return false;
    }
  };
  for (
    const [line, text, terminated, bytes] of readLines(
      file,
      options.bufferSize ?? DEFAULT_BUFFER_SIZE,
    )
  ) {
    // (text is undefined only on an unterminated last line)
    if (text === undefined || (!terminated && !whole(text))) {
      options.onTornLine?.({ file, line, bytes: bytes!, removed: false });
      return;
    }
    if (text.trim() === "") {
      throw new CorpusError(
        file,
        `empty line; every line must be a ${options.noun}`,
        { line },
      );
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (e) {
      const found = locateJsonError(text);
      throw new CorpusError(
        file,
        `not valid JSON: ${found?.problem ?? (e as Error).message}`,
        {
          line,
          column: found && found.offset + 1,
          cause: e,
        },
      );
    }
    const problems = options.problems(value);
    if (problems.length) {
      throw new CorpusError(
        file,
        `not a ${options.noun}: ${problems.join("; ")}`,
        { line },
      );
    }
    yield { line, text, terminated, value: value as T };
  }
}
