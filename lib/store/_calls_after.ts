/**
 * Reading a `calls.jsonl` file past a cursor: the calls appended since the last read, from the
 * byte where it stopped, with a fixed buffer (never the file from the start). The cursor names the
 * file (device and inode), the byte just after the last whole line consumed, that line's number,
 * and a fingerprint of the bytes before it, so a file replaced, rewritten or cut short is noticed
 * and read again from the start.
 */
import fs from "node:fs";
import type { StoredCall } from "../estate/replay.ts";
import type { CallsAfter, CallsAfterOptions } from "./store.ts";
import { CorpusError } from "./corpus_error.ts";
import { locateJsonError } from "./_json.ts";
import { DEFAULT_BUFFER_SIZE } from "./_lines.ts";
import { openNoFollow } from "./_no_follow.ts";
import { storedCallProblems } from "./_stored_call.ts";

/** The most calls in one batch when the reader does not say. */
export const DEFAULT_CALLS_AFTER_LIMIT = 10_000;

/** How many bytes before the cursor's offset its fingerprint covers. */
const TAIL = 64;

const NEWLINE = 0x0a;
const PREFIX = "file:1";

/** Where a read of a `calls.jsonl` stopped (what a folder store's cursor says). */
interface FileCursor {
  /** The file's device, or `-` when the cursor is at the start. */
  dev: string;
  /** The file's inode, or `-` when the cursor is at the start. */
  ino: string;
  /** The byte just after the last whole line consumed. */
  offset: number;
  /** How many lines were consumed. */
  line: number;
  /** FNV-1a of the (up to {@linkcode TAIL}) bytes before `offset`, in hex. */
  tail: string;
}

const START: FileCursor = { dev: "-", ino: "-", offset: 0, line: 0, tail: "0" };

/** Options for {@linkcode readCallsAfter}: the batch size and the read size. */
export interface ReadCallsAfterOptions extends CallsAfterOptions {
  /** Bytes per read. Default 64 KiB (it grows only to hold a longer line). */
  bufferSize?: number;
}

/**
 * The batch size asked for, checked.
 *
 * @param limit The option as given.
 * @param where What is read, for the error.
 * @returns The limit.
 * @throws {RangeError} When it is not a positive integer.
 */
export function callsAfterLimit(limit: number | undefined, where: string): number {
  if (limit === undefined) return DEFAULT_CALLS_AFTER_LIMIT;
  if (!Number.isSafeInteger(limit) || limit < 1) {
    throw new RangeError(
      `Cannot read the calls of ${where}: limit must be a positive integer, got ${limit}`,
    );
  }
  return limit;
}

/**
 * Reads the whole lines of a `calls.jsonl` appended after `cursor`, at most `limit` calls. Only
 * lines that end with a newline are consumed: an unterminated last line (an append in progress,
 * a torn write the next append removes, or a hand-written last call, which the next append
 * terminates) is left for a later read. A missing file has no calls. A cursor that does not parse,
 * names another file, or points past the end or into bytes that changed, reads from the start with
 * `restarted`. The file is never followed through a symbolic link.
 *
 * @param file The `calls.jsonl` file.
 * @param cursor Where the last read stopped; undefined for the start.
 * @param options The batch size and read size.
 * @returns The calls, the next cursor, and whether it restarted or more follow.
 * @throws {CorpusError} Naming the file, line and byte offset of a complete line that is blank,
 *   not valid UTF-8, not JSON, or not a stored call; or when the file is a symbolic link.
 * @throws {RangeError} When `limit` or `bufferSize` is not a positive integer.
 */
export function readCallsAfter(
  file: string,
  cursor: string | undefined,
  options: ReadCallsAfterOptions = {},
): CallsAfter {
  const limit = callsAfterLimit(options.limit, file);
  const bufferSize = options.bufferSize ?? DEFAULT_BUFFER_SIZE;
  if (!Number.isSafeInteger(bufferSize) || bufferSize < 1) {
    throw new RangeError(
      `Cannot read the calls of ${file}: bufferSize must be a positive integer, got ${bufferSize}`,
    );
  }
  let from = cursor === undefined ? START : parseCursor(cursor);
  let restarted = from === undefined;
  from ??= START;
  let fd: number;
  try {
    fd = openNoFollow(file, fs.constants.O_RDONLY);
  } catch (e) {
    if ((e as { code?: string }).code !== "ENOENT") throw e;
    // No file: nothing stored; a cursor past the start counted calls that are gone.
    return {
      calls: [],
      cursor: formatCursor(START),
      restarted: restarted || from.offset > 0,
      more: false,
    };
  }
  try {
    const stat = fs.fstatSync(fd, { bigint: true });
    const dev = String(stat.dev), ino = String(stat.ino);
    if (
      from.offset > 0 &&
      (from.dev !== dev || from.ino !== ino || stat.size < BigInt(from.offset) ||
        tailHash(fd, from.offset) !== from.tail)
    ) {
      restarted = true;
      from = START;
    }
    const batch = readLinesFrom(fd, file, from, limit, bufferSize);
    return {
      calls: batch.calls,
      cursor: formatCursor({
        dev,
        ino,
        offset: batch.offset,
        line: batch.line,
        tail: batch.offset === 0 ? "0" : tailHash(fd, batch.offset),
      }),
      restarted,
      more: batch.more,
    };
  } finally {
    fs.closeSync(fd);
  }
}

/** What one read from an offset consumed. */
interface Batch {
  calls: StoredCall[];
  offset: number;
  line: number;
  more: boolean;
}

/** Reads whole lines from `from.offset` until `limit` calls or the last newline. */
function readLinesFrom(
  fd: number,
  file: string,
  from: FileCursor,
  limit: number,
  bufferSize: number,
): Batch {
  const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
  const versions = new Set<string>();
  const calls: StoredCall[] = [];
  let buffer = new Uint8Array(bufferSize);
  let carried = 0; // bytes of an unfinished line at the front of the buffer
  let position = from.offset; // where the next read starts
  let offset = from.offset; // the byte after the last line consumed
  let line = from.line;
  for (;;) {
    if (carried === buffer.length) {
      const bigger = new Uint8Array(buffer.length * 2);
      bigger.set(buffer);
      buffer = bigger;
    }
    const n = fs.readSync(fd, buffer, carried, buffer.length - carried, position);
    if (n === 0) return { calls, offset, line, more: false };
    position += n;
    const end = carried + n;
    let start = 0;
    for (;;) {
      const nl = buffer.indexOf(NEWLINE, start);
      if (nl < 0 || nl >= end) break;
      if (calls.length === limit) return { calls, offset, line, more: true };
      line++;
      calls.push(parseLine(buffer.subarray(start, nl), { file, line, offset, decoder, versions }));
      offset += nl + 1 - start;
      start = nl + 1;
    }
    buffer.copyWithin(0, start, end);
    carried = end - start;
  }
}

/** Where a line is, and what reads it. */
interface LineContext {
  file: string;
  line: number;
  offset: number;
  decoder: { decode(bytes: Uint8Array): string };
  versions: Set<string>;
}

/** One complete line as a stored call, or the error naming its line and byte offset. */
function parseLine(bytes: Uint8Array, at: LineContext): StoredCall {
  const fail = (problem: string, extra: { column?: number; cause?: unknown } = {}): never => {
    throw new CorpusError(at.file, `${problem} (the line at byte ${at.offset})`, {
      line: at.line,
      ...extra,
    });
  };
  let text: string;
  try {
    text = at.decoder.decode(bytes);
  } catch (e) {
    return fail("not valid UTF-8", { cause: e });
  }
  if (text.endsWith("\r")) text = text.slice(0, -1);
  if (at.offset === 0 && text.startsWith("\uFEFF")) text = text.slice(1);
  if (text.trim() === "") return fail("empty line; every line must be a stored call");
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    const found = locateJsonError(text);
    const column = found && found.offset + 1;
    return fail(`not valid JSON: ${found?.problem ?? (e as Error).message}`, {
      ...(column === undefined ? {} : { column }),
      cause: e,
    });
  }
  const problems = storedCallProblems(value, at.versions);
  if (problems.length) return fail(`not a stored call: ${problems.join("; ")}`);
  return value as StoredCall;
}

/** FNV-1a (32 bits, hex) of the up to {@linkcode TAIL} bytes before `offset`. */
function tailHash(fd: number, offset: number): string {
  const length = Math.min(TAIL, offset);
  const bytes = new Uint8Array(length);
  let got = 0;
  while (got < length) {
    const n = fs.readSync(fd, bytes, got, length - got, offset - length + got);
    if (n === 0) break;
    got += n;
  }
  let hash = 0x811c9dc5;
  for (let i = 0; i < got; i++) {
    hash ^= bytes[i];
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  // A short read (the file cut before `offset`) never matches a cursor's hash.
  return got < length ? "short" : hash.toString(16);
}

/** The cursor's text: `file:1:<dev>:<ino>:<offset>:<line>:<tail>`. */
function formatCursor(c: FileCursor): string {
  return `${PREFIX}:${c.dev}:${c.ino}:${c.offset}:${c.line}:${c.tail}`;
}

/** A cursor's parts, or undefined when it is not a folder store's cursor. */
function parseCursor(text: string): FileCursor | undefined {
  const m = /^file:1:(\d+|-):(\d+|-):(\d+):(\d+):([0-9a-f]{1,8})$/.exec(text);
  if (!m) return undefined;
  const offset = Number(m[3]), line = Number(m[4]);
  if (!Number.isSafeInteger(offset) || !Number.isSafeInteger(line)) return undefined;
  if ((offset === 0) !== (line === 0)) return undefined;
  if (offset === 0) return START;
  if (m[1] === "-" || m[2] === "-") return undefined;
  return { dev: m[1], ino: m[2], offset, line, tail: m[5] };
}
