/**
 * The drift log, `<estate>/drift.jsonl`: what the gateway observed of upstream servers, one
 * {@linkcode DriftRecord} a line, appended durably (whole lines in one write, fsync'd; a failed
 * append leaves the file as it was; a torn last line is removed first) and read back lazily.
 *
 * @module
 */
import path from "node:path";
import { type DriftRecord, driftRecordProblems } from "../estate/drift.ts";

export type { DriftKind, DriftRecord } from "../estate/drift.ts";
import { appendToCallsFile } from "./_append.ts";
import { readRecordLines, type RecordLine } from "./_jsonl.ts";
import { type LockOptions, withLock } from "./_lock.ts";
import type { TornLine } from "./_jsonl.ts";

/** The drift log's file name in the estate folder. */
export const DRIFT_FILE = "drift.jsonl";

/** Options for {@linkcode appendDriftLog} and {@linkcode readDriftLog}. */
export interface DriftLogOptions {
  /** Told of a torn last line: when a reader skips it, and when an append removes it. */
  onTornLine?: (torn: TornLine) => void;
  /** How long an append waits for the log's lock held by another process, in ms. Default 5000. */
  lockTimeoutMs?: number;
}

/** Whether a line's text is a whole drift record (an unterminated last line may be one). */
function isDriftText(text: string): boolean {
  try {
    return driftRecordProblems(JSON.parse(text)).length === 0;
  } catch {
    return false;
  }
}

/**
 * Appends drift records to a drift log, creating it if missing: every record is checked first,
 * then all are written as whole lines in one write and fsync'd, under a lock on the log's folder
 * (`.lock`), so that concurrent writers never interleave.
 *
 * @param file The log (`<estate>/drift.jsonl`, see {@linkcode DRIFT_FILE}).
 * @param records The records, oldest first.
 * @param options The torn-line report and the lock timeout.
 * @returns How many records were appended.
 * @throws {TypeError} When a record is not a drift record, naming it and the field, before
 *   anything is written.
 * @throws {CorpusError} When the log is a symbolic link.
 * @throws {Error} When the lock is not obtained in time; when the write fails (the file is left
 *   as it was, and the error says so).
 *
 * @example
 * ```ts
 * import { appendDriftLog, readDriftLog } from "@tool-estate/core/store";
 * import assert from "node:assert/strict";
 * import fs from "node:fs";
 *
 * fs.mkdirSync(".scratch", { recursive: true });
 * const dir = fs.mkdtempSync(".scratch/drift-");
 * appendDriftLog(`${dir}/drift.jsonl`, [{
 *   at: "2026-12-01T09:00:00.000Z", server: "crm-mcp", tool: "crm.customer.get", registeredVersion: "1.0.0",
 *   kind: "description", details: "the upstream's description changed; principals still read 1.0.0's",
 * }]);
 * assert.deepEqual([...readDriftLog(`${dir}/drift.jsonl`)].map((r) => r.kind), ["description"]);
 * fs.rmSync(dir, { recursive: true });
 * ```
 */
export function appendDriftLog(
  file: string,
  records: Iterable<DriftRecord>,
  options: DriftLogOptions = {},
): number {
  const list = [...records];
  const lines = list.map((record, i) => {
    const problems = driftRecordProblems(record);
    if (problems.length) {
      throw new TypeError(
        `Cannot append drift record ${i + 1} to ${file}: ${problems.join("; ")}`,
      );
    }
    return JSON.stringify(record) + "\n";
  });
  if (lines.length === 0) return 0;
  const lock: LockOptions = {
    timeoutMs: options.lockTimeoutMs ?? 5000,
    staleMs: 30_000,
  };
  withLock(path.dirname(file), `append to ${path.basename(file)}`, lock, () => {
    appendToCallsFile(file, lines.join(""), {
      isWhole: isDriftText,
      ...(options.onTornLine ? { onTornLine: options.onTornLine } : {}),
    });
  });
  return list.length;
}

/**
 * Reads a drift log lazily, in file order (oldest first as written). A missing file has no
 * records. Every line must be a drift record: a blank or malformed line is an error naming the
 * file and line, not skipped — except a torn last line (an append that never finished), which is
 * reported to `onTornLine` and not read.
 *
 * @param file The log.
 * @param options The torn-line report.
 * @returns The records.
 * @throws {CorpusError} While iterating, naming the file and line of the first line that is not
 *   UTF-8, not JSON or not a drift record; or when the file is a symbolic link.
 */
export function* readDriftLog(
  file: string,
  options: DriftLogOptions = {},
): Generator<DriftRecord> {
  for (const { value } of readDriftLines(file, options)) yield value;
}

/**
 * Reads a drift log as {@linkcode readDriftLog} does, yielding each line's text as it is in the
 * file with its record: for a copy that keeps the file's bytes.
 *
 * @param file The log.
 * @param options The torn-line report.
 * @returns The lines, in file order.
 * @throws {CorpusError} As {@linkcode readDriftLog}.
 */
export function readDriftLines(
  file: string,
  options: DriftLogOptions = {},
): Generator<RecordLine<DriftRecord>> {
  return readRecordLines<DriftRecord>(file, {
    noun: "drift record",
    problems: driftRecordProblems,
    ...(options.onTornLine ? { onTornLine: options.onTornLine } : {}),
  });
}
