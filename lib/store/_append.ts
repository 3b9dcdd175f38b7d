/**
 * Appending lines to `calls.jsonl` (or another JSON-lines file of the estate, `drift.jsonl`) so that a reader only ever finds whole, acknowledged lines: a
 * torn last line left by an append that never finished is removed first; the new lines go in one
 * write and are fsync'd; and when the write or the fsync fails (a full disk, an I/O error), the
 * file is truncated back to its length before the write, so a failed append leaves it as it was.
 * The file is never followed through a symbolic link. Call it holding the tool's lock.
 */
import fs from "node:fs";
import path from "node:path";
import { fsyncDir } from "./_atomic.ts";
import { openNoFollow } from "./_no_follow.ts";
import type { TornLine } from "./_jsonl.ts";
import { isStoredCallText } from "./_stored_call.ts";

/** The two system calls an append makes that can fail half-way; replaceable in tests. */
export interface AppendIo {
  /** Writes `length` bytes of `bytes` from `offset` at the end of the file; returns how many. */
  write(fd: number, bytes: Uint8Array, offset: number, length: number): number;
  /** Flushes the file to disk. */
  fsync(fd: number): void;
}

/** Options for {@linkcode appendToCallsFile}. */
export interface AppendOptions {
  /** Told when a torn last line is removed. */
  onTornLine?: (torn: TornLine) => void;
  /** The writes and the fsync (tests fail them on purpose). Default: `node:fs`. */
  io?: Partial<AppendIo>;
  /**
   * Whether an unterminated last line is a whole line (it gets its newline) rather than a torn
   * write (removed). Default: whether it is a whole stored call.
   */
  isWhole?: (text: string) => boolean;
}

const NODE_IO: AppendIo = {
  write: (fd, bytes, offset, length) => fs.writeSync(fd, bytes, offset, length),
  fsync: (fd) => fs.fsyncSync(fd),
};

const NEWLINE = 0x0a;
const CHUNK = 64 * 1024;

/** Where the last line of a file starts: just after its last newline (0 when it has none). */
function lastLineStart(fd: number, size: number): number {
  const buffer = new Uint8Array(CHUNK);
  for (let end = size; end > 0;) {
    const start = Math.max(0, end - CHUNK);
    const n = fs.readSync(fd, buffer, 0, end - start, start);
    const i = buffer.subarray(0, n).lastIndexOf(NEWLINE);
    if (i >= 0) return start + i + 1;
    end = start;
  }
  return 0;
}

/** How many newlines come before `end`: the number of the line that starts there, minus one. */
function linesBefore(fd: number, end: number): number {
  const buffer = new Uint8Array(CHUNK);
  let count = 0;
  for (let at = 0; at < end;) {
    const n = fs.readSync(fd, buffer, 0, Math.min(CHUNK, end - at), at);
    if (n === 0) break;
    for (let i = 0; i < n; i++) if (buffer[i] === NEWLINE) count++;
    at += n;
  }
  return count;
}

function codeOf(e: unknown): string | undefined {
  const code = (e as { code?: unknown })?.code;
  return typeof code === "string" ? code : undefined;
}

/**
 * Appends `text` (whole lines, each ending with a newline) to a `calls.jsonl`, creating it if
 * missing.
 *
 * Before writing, a last line without its newline is looked at: a whole stored call (a
 * hand-written file) gets its newline; anything else is a torn write, never acknowledged, and is
 * truncated away (and reported to `onTornLine`).
 *
 * @param file The file.
 * @param text The lines.
 * @param options The torn-line report, and the I/O for tests.
 * @throws {CorpusError} When the file is a symbolic link (nothing is written).
 * @throws {Error} When the write or the fsync fails: the file is truncated back to its length
 *   before the write, the message says so, and `code` is the failure's (`ENOSPC`, `EIO`, ...).
 */
export function appendToCallsFile(
  file: string,
  text: string,
  options: AppendOptions = {},
): void {
  const io = { ...NODE_IO, ...options.io };
  const created = !fs.existsSync(file);
  const { O_RDWR, O_APPEND, O_CREAT } = fs.constants;
  const fd = openNoFollow(file, O_RDWR | O_APPEND | O_CREAT, 0o644);
  try {
    if (!fs.fstatSync(fd).isFile()) {
      throw new Error(`Cannot append to ${file}: not a file`);
    }
    let size = fs.fstatSync(fd).size;
    let prefix = "";
    if (size > 0) {
      const last = new Uint8Array(1);
      fs.readSync(fd, last, 0, 1, size - 1);
      if (last[0] !== NEWLINE) {
        const start = lastLineStart(fd, size);
        const tail = new Uint8Array(size - start);
        fs.readSync(fd, tail, 0, tail.length, start);
        let whole = false;
        try {
          whole = (options.isWhole ?? isStoredCallText)(
            new TextDecoder("utf-8", { fatal: true }).decode(tail),
          );
        } catch {
          // not UTF-8: torn inside a character
        }
        if (whole) {
          prefix = "\n";
        } else {
          const line = linesBefore(fd, start) + 1;
          fs.ftruncateSync(fd, start);
          io.fsync(fd);
          size = start;
          options.onTornLine?.({
            file,
            line,
            bytes: tail.length,
            removed: true,
          });
        }
      }
    }
    const bytes = new TextEncoder().encode(prefix + text);
    try {
      for (let written = 0; written < bytes.length;) {
        written += io.write(fd, bytes, written, bytes.length - written);
      }
      io.fsync(fd);
    } catch (e) {
      let restored = `${path.basename(file)} is left as it was (${size} bytes)`;
      try {
        fs.ftruncateSync(fd, size);
        fs.fsyncSync(fd);
      } catch (again) {
        restored = `and truncating ${path.basename(file)} back to ${size} bytes failed too (${
          (again as Error).message
        }); its torn last line is skipped by readers and removed by the next append`;
      }
      if (created && size === 0) {
        fs.rmSync(file, { force: true }); // it was not there before
        restored = `${path.basename(file)} is left as it was (not there)`;
      }
      const error = new Error(
        `Cannot append to ${file}: ${(e as Error).message}; ${restored}`,
        {
          cause: e,
        },
      );
      const code = codeOf(e);
      if (code !== undefined) Object.assign(error, { code });
      throw error;
    }
  } finally {
    fs.closeSync(fd);
  }
  if (created) fsyncDir(path.dirname(file));
}
