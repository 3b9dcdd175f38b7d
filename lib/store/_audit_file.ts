/**
 * A folder estate's audit log: `audit.jsonl` (one record a line, in chain order) and
 * `audit-checkpoints.jsonl` (the signed checkpoints), appended under the lock of `.audit-lock/`
 * (a folder git ignores; a watch of the estate ignores it and both files): the head is read from
 * the end of the file, the events sealed after it, and the lines written in one durable append
 * (`_append.ts`), so writers in several processes extend one chain.
 */
import fs from "node:fs";
import path from "node:path";
import { createHash } from "node:crypto";
import {
  type AuditEvent,
  type AuditFilter,
  type AuditHead,
  type AuditRecord,
  auditRecordMatches,
  auditRecordProblems,
  auditRecordText,
  EMPTY_AUDIT_HEAD,
  sealAuditWith,
} from "../estate/audit.ts";
import { type AuditCheckpoint, auditCheckpointProblems } from "../estate/audit_checkpoint.ts";
import { appendToCallsFile } from "./_append.ts";
import { ensureRuntimeDir } from "./_atomic.ts";
import { readRecordLines, type RecordLine, type TornLine } from "./_jsonl.ts";
import { type LockOptions, withLock } from "./_lock.ts";
import { openNoFollow } from "./_no_follow.ts";
import { CorpusError } from "./corpus_error.ts";

/** The audit log's file in the estate's folder. */
export const AUDIT_FILE = "audit.jsonl";
/** The signed checkpoints' file in the estate's folder. */
export const AUDIT_CHECKPOINTS_FILE = "audit-checkpoints.jsonl";
/** The folder whose lock the audit log's writers hold (runtime: git ignores it). */
export const AUDIT_LOCK_DIR = ".audit-lock";

/** What appending and reading need. */
export interface AuditFileOptions {
  /** The lock's timeout and staleness. */
  lock: LockOptions;
  /** The clock, for events without `at`. */
  now: () => Date;
  /** Told of a torn last line. */
  onTornLine?: (torn: TornLine) => void;
}

function wholeBy(problems: (v: unknown) => string[]): (text: string) => boolean {
  return (text) => {
    try {
      return problems(JSON.parse(text)).length === 0;
    } catch {
      return false;
    }
  };
}
const isAuditText = wholeBy(auditRecordProblems);
const isCheckpointText = wholeBy(auditCheckpointProblems);

function sha256(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}

/**
 * The last whole record of an audit log, read from its end (a torn last line is not one); none
 * for a missing or empty file.
 *
 * @throws {CorpusError} When the last line is not an audit record.
 */
export function lastAuditRecord(file: string): AuditRecord | undefined {
  let fd: number;
  try {
    fd = openNoFollow(file, fs.constants.O_RDONLY);
  } catch (e) {
    if ((e as { code?: string }).code === "ENOENT") return undefined;
    throw e;
  }
  try {
    const size = fs.fstatSync(fd).size;
    for (let chunk = 64 * 1024;; chunk *= 4) {
      const start = Math.max(0, size - chunk);
      const bytes = new Uint8Array(size - start);
      fs.readSync(fd, bytes, 0, bytes.length, start);
      const lines = new TextDecoder().decode(bytes).split("\n");
      const tail = lines.pop() ?? "";
      if (tail !== "" && isAuditText(tail)) return JSON.parse(tail) as AuditRecord;
      // (an unterminated tail that is not a whole record is a torn write: not a record)
      const whole = start > 0 ? lines.slice(1) : lines;
      for (let i = whole.length - 1; i >= 0; i--) {
        const text = whole[i].replace(/\r$/, "");
        if (text.trim() === "") continue;
        if (!isAuditText(text)) {
          throw new CorpusError(file, "its last line is not an audit record");
        }
        return JSON.parse(text) as AuditRecord;
      }
      if (start === 0) return undefined;
    }
  } finally {
    fs.closeSync(fd);
  }
}

/** Where the log in `dir` ends. */
export function auditFileHead(dir: string): AuditHead {
  const last = lastAuditRecord(path.join(dir, AUDIT_FILE));
  return last ? { seq: last.seq, hash: last.hash } : EMPTY_AUDIT_HEAD;
}

/** Appends events to `dir`'s audit log, sealed after its head, under the log's lock. */
export function appendAuditFile(
  dir: string,
  events: Iterable<AuditEvent>,
  options: AuditFileOptions,
): AuditRecord[] {
  const list = [...events];
  if (list.length === 0) return [];
  const lockDir = ensureRuntimeDir(path.join(dir, AUDIT_LOCK_DIR));
  const file = path.join(dir, AUDIT_FILE);
  return withLock(lockDir, `append to ${AUDIT_FILE}`, options.lock, () => {
    const records = sealAuditWith(auditFileHead(dir), list, { now: options.now, sha256 });
    appendToCallsFile(file, records.map((r) => auditRecordText(r) + "\n").join(""), {
      isWhole: isAuditText,
      ...(options.onTornLine ? { onTornLine: options.onTornLine } : {}),
    });
    return records;
  });
}

/** The lines of an audit log with their records (for a copy that keeps their text). */
export function readAuditLines(
  file: string,
  options: { onTornLine?: (torn: TornLine) => void } = {},
): Generator<RecordLine<AuditRecord>> {
  return readRecordLines<AuditRecord>(file, {
    noun: "audit record",
    problems: auditRecordProblems,
    ...(options.onTornLine ? { onTornLine: options.onTornLine } : {}),
  });
}

/** The lines of a checkpoints file with their checkpoints. */
export function readCheckpointLines(file: string): Generator<RecordLine<AuditCheckpoint>> {
  return readRecordLines<AuditCheckpoint>(file, {
    noun: "audit checkpoint",
    problems: auditCheckpointProblems,
  });
}

/** The text a checkpoint is kept as (a line of `audit-checkpoints.jsonl`). */
export function checkpointLine(checkpoint: AuditCheckpoint): string {
  const { seq, head, at, signature } = checkpoint;
  return JSON.stringify({ seq, head, at, signature });
}

/** `dir`'s audit log, in file order, filtered. */
export function* readAuditFile(
  dir: string,
  filter: AuditFilter | undefined,
  options: { onTornLine?: (torn: TornLine) => void } = {},
): Generator<AuditRecord> {
  for (const { value } of readAuditLines(path.join(dir, AUDIT_FILE), options)) {
    if (!filter || auditRecordMatches(value, filter)) yield value;
  }
}

/** Appends a checkpoint to `dir`'s `audit-checkpoints.jsonl`, under the log's lock. */
export function appendCheckpointFile(
  dir: string,
  checkpoint: AuditCheckpoint,
  lock: LockOptions,
): void {
  const problems = auditCheckpointProblems(checkpoint);
  if (problems.length) throw new TypeError(`Not a checkpoint: ${problems.join("; ")}`);
  const lockDir = ensureRuntimeDir(path.join(dir, AUDIT_LOCK_DIR));
  withLock(lockDir, `append to ${AUDIT_CHECKPOINTS_FILE}`, lock, () => {
    appendToCallsFile(
      path.join(dir, AUDIT_CHECKPOINTS_FILE),
      checkpointLine(checkpoint) + "\n",
      { isWhole: isCheckpointText },
    );
  });
}

/** `dir`'s checkpoints, in file order. */
export function readCheckpointFile(dir: string): AuditCheckpoint[] {
  return [...readCheckpointLines(path.join(dir, AUDIT_CHECKPOINTS_FILE))].map((l) => l.value);
}
