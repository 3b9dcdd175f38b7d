/**
 * Streaming a `calls.jsonl` file: stored calls one at a time, with flat memory.
 *
 * @module
 */
import type { StoredCall } from "../estate/replay.ts";
import { readRecordLines, type RecordLine, type TornLine } from "./_jsonl.ts";
import { storedCallProblems } from "./_stored_call.ts";

export type { TornLine } from "./_jsonl.ts";

/** Options for {@linkcode readCallsFile}. */
export interface ReadCallsOptions {
  /** Bytes per read. Default 64 KiB. Memory use is about this plus the longest line. */
  bufferSize?: number;
  /** Told of a torn last line, which is not read (see {@linkcode TornLine}). Default: ignored. */
  onTornLine?: (torn: TornLine) => void;
}

/**
 * Says what a torn line is and what becomes of it, for a log or a terminal.
 *
 * @param torn The torn line.
 * @returns One sentence, starting with `file:line:`.
 *
 * @example
 * ```ts
 * import { tornLineMessage } from "@tool-estate/core/store";
 * import assert from "node:assert/strict";
 * assert.equal(
 *   tornLineMessage({ file: "tools/fx.quote/calls.jsonl", line: 301, bytes: 37, removed: true }),
 *   "tools/fx.quote/calls.jsonl:301: the last line was torn (37 bytes without a newline: an append that never finished); removed",
 * );
 * ```
 */
export function tornLineMessage(torn: TornLine): string {
  const what = `${torn.bytes} byte${torn.bytes === 1 ? "" : "s"} without a newline`;
  return torn.removed
    ? `${torn.file}:${torn.line}: the last line was torn (${what}: an append that never finished); removed`
    : `${torn.file}:${torn.line}: the last line is torn (${what}: an append that never finished); not read, and the next append removes it`;
}

/**
 * Reads a `calls.jsonl` file lazily: one JSON object per line
 * (`{"version","arguments","principal","at"}`), read with a fixed-size buffer so that memory stays
 * flat however large the file. Nothing is read before the first call is asked for. A missing file
 * has no calls; `\r\n` line ends are accepted. Every line must be a stored call: a blank or
 * malformed line is an error, not skipped — except the last line when it lacks its newline: a
 * whole stored call there is read like any other (a hand-written file), anything else is a torn
 * write ({@linkcode TornLine}), reported to `onTornLine` and not read. The file is never followed
 * through a symbolic link.
 *
 * @param path The file.
 * @param options The read size.
 * @returns The calls, in file order (line n is the n-th call).
 * @throws {CorpusError} While iterating, naming the file and line of the first line that is not
 *   valid UTF-8, not JSON, or not a stored call (other than a torn last line); or when the file
 *   is a symbolic link.
 *
 * @example
 * ```ts
 * import { readCallsFile } from "@tool-estate/core/store";
 * import assert from "node:assert/strict";
 * import fs from "node:fs";
 *
 * fs.mkdirSync(".scratch", { recursive: true });
 * const dir = fs.mkdtempSync(".scratch/calls-");
 * const file = `${dir}/calls.jsonl`;
 * fs.writeFileSync(file, '{"version":"1.0.0","arguments":{"reference":"PMT-000001"},"principal":"ops-bot","at":"2026-01-05T09:00:00Z"}\n');
 * assert.deepEqual([...readCallsFile(file)].map((c) => c.principal), ["ops-bot"]);
 * fs.rmSync(dir, { recursive: true });
 * ```
 */
export function* readCallsFile(
  path: string,
  options: ReadCallsOptions = {},
): Generator<StoredCall> {
  for (const { value } of readStoredCallLines(path, options)) yield value;
}

/**
 * Reads a `calls.jsonl` file as {@linkcode readCallsFile} does, yielding each line's text as it
 * is in the file with its call: for a copy that keeps the file's bytes.
 *
 * @param path The file.
 * @param options The read size and the torn-line report.
 * @returns The lines, in file order.
 * @throws {CorpusError} As {@linkcode readCallsFile}.
 */
export function readStoredCallLines(
  path: string,
  options: ReadCallsOptions = {},
): Generator<RecordLine<StoredCall>> {
  const versions = new Set<string>();
  return readRecordLines<StoredCall>(path, {
    noun: "stored call",
    problems: (value) => storedCallProblems(value, versions),
    ...(options.bufferSize === undefined ? {} : { bufferSize: options.bufferSize }),
    ...(options.onTornLine ? { onTornLine: options.onTornLine } : {}),
  });
}
