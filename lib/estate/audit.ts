/**
 * The audit log: every governed event — a publish, a deprecation, a retirement, a proposal, its
 * approval or rejection, a confirmation, a call decision at the server, drift, a quarantine, a
 * pending call's decision — as one record in one chain. Each record carries the hash of its
 * predecessor (`prev`) and its own `hash`, the SHA-256 of its canonical JSON (every field but
 * `hash`, keys sorted): editing a record breaks its hash, removing or reordering one breaks the
 * chain, and cutting the end off is caught by a signed checkpoint (`audit_checkpoint.ts`) beyond
 * the end. {@linkcode verifyAuditChain} names the first broken record and why.
 *
 * What is recorded is what a reader of the log may see: never a token or other credential (a
 * detail field named like one is dropped, {@linkcode auditEventProblems}), and no argument values of
 * a tool whose data is `confidential` or `restricted` — only, when the estate's settings say so
 * (`estate.json`'s `audit.classifiedArguments: "sha256"`), the SHA-256 of the arguments
 * ({@linkcode auditArguments}).
 *
 * Pure: hashing is Web Crypto's; the stores keep the records (`EstateStore.appendAudit`).
 *
 * @module
 */
import { isObject } from "../_object.ts";
import { canonicalJson } from "../schema/json_equal.ts";
import { jsonProblems } from "../schema/json_value.ts";
import { type AuditCheckpoint, type AuditKey, verifyAuditCheckpoint } from "./audit_checkpoint.ts";
import type { DataClassification } from "./spec.ts";

/**
 * What an audit record is about:
 * - `publish`, `deprecate`, `retire`: a version's lifecycle;
 * - `proposal`, `approval`, `rejection`, `proposal-published`: a proposal's events;
 * - `confirmation`: a user's answer to the confirmation the estate asked for before a call;
 * - `call`: a `tools/call`'s decision at the server (`detail.decision`: `allowed`, `refused`,
 *   `rate-limited`; `detail.outcome`: how it ended);
 * - `drift`, `quarantine`: what the gateway observed of an upstream server;
 * - `pending-call`: a call held for a second person (`detail.state`: `held`, `approved`,
 *   `rejected`, `expired`, `ran`);
 * - `principals`, `settings`: an operator changed who may call, or the estate's settings.
 */
export type AuditKind =
  | "publish"
  | "deprecate"
  | "retire"
  | "proposal"
  | "approval"
  | "rejection"
  | "proposal-published"
  | "confirmation"
  | "call"
  | "drift"
  | "quarantine"
  | "pending-call"
  | "principals"
  | "settings";

/** Every {@linkcode AuditKind}. */
export const AUDIT_KINDS: readonly AuditKind[] = [
  "publish",
  "deprecate",
  "retire",
  "proposal",
  "approval",
  "rejection",
  "proposal-published",
  "confirmation",
  "call",
  "drift",
  "quarantine",
  "pending-call",
  "principals",
  "settings",
];

/** An event to append: the store gives it its place in the chain (`seq`, `prev`, `hash`). */
export interface AuditEvent {
  /** What it is about. */
  kind: AuditKind;
  /** When it happened (ISO 8601). Default: the store's clock when it appends. */
  at?: string;
  /** Who acted (a principal's id, a proposer, an approver), when known. */
  principal?: string;
  /** The tool, when it concerns one. */
  tool?: string;
  /** The tool's version, when it concerns one. */
  version?: string;
  /** What else a reader needs: JSON, never a credential. Default `{}`. */
  detail?: Record<string, unknown>;
}

/** One record of the audit log, as kept. */
export interface AuditRecord {
  /** Its place: 1 for the first record, one more for each after it. */
  seq: number;
  /** When it happened (ISO 8601). */
  at: string;
  /** What it is about. */
  kind: AuditKind;
  /** Who acted, when known. */
  principal?: string;
  /** The tool, when it concerns one. */
  tool?: string;
  /** The tool's version, when it concerns one. */
  version?: string;
  /** What else a reader needs. */
  detail: Record<string, unknown>;
  /** The previous record's `hash` ({@linkcode AUDIT_GENESIS} for the first). */
  prev: string;
  /** SHA-256 (hex) of {@linkcode auditHashText} of this record. */
  hash: string;
}

/** Where a chain ends: the last record's `seq` and `hash` (0 and the genesis when empty). */
export interface AuditHead {
  /** The last record's `seq`; 0 for an empty log. */
  seq: number;
  /** The last record's `hash`; {@linkcode AUDIT_GENESIS} for an empty log. */
  hash: string;
}

/** The `prev` of the first record: 64 zeros. */
export const AUDIT_GENESIS: string = "0".repeat(64);

/** The head of an empty log. */
export const EMPTY_AUDIT_HEAD: AuditHead = Object.freeze({ seq: 0, hash: AUDIT_GENESIS });

const HEX64 = /^[0-9a-f]{64}$/;

/**
 * Detail fields never recorded, whatever their value: credentials (a token, a secret, a password,
 * an authorization header, a cookie, a sealed request state).
 */
const SECRET_FIELD =
  /token|secret|password|passwd|authorization|credential|cookie|requeststate|api[-_]?key|private[-_]?key/i;

/**
 * The text a record's hash is taken over: the canonical JSON (keys sorted) of every field but
 * `hash`, `prev` included — so each record's hash covers its predecessor's.
 *
 * @param record The record (its `hash`, if any, is left out).
 * @returns The text.
 *
 * @example
 * ```ts
 * import { auditHashText } from "@tool-estate/core";
 * import assert from "node:assert/strict";
 * assert.equal(
 *   auditHashText({ seq: 1, at: "2026-12-01T09:00:00.000Z", kind: "retire", tool: "fx.quote", version: "1.0.0", detail: {}, prev: "0".repeat(64) }),
 *   `{"at":"2026-12-01T09:00:00.000Z","detail":{},"kind":"retire","prev":"${"0".repeat(64)}","seq":1,"tool":"fx.quote","version":"1.0.0"}`,
 * );
 * ```
 */
export function auditHashText(record: Omit<AuditRecord, "hash"> & { hash?: string }): string {
  const { hash: _hash, ...rest } = record;
  return canonicalJson(rest);
}

/**
 * The text a record is kept as (a line of `audit.jsonl`, what an export writes back): its
 * canonical JSON, keys sorted, so every store writes the same bytes for the same record.
 *
 * @param record The record.
 * @returns The text, without a newline.
 */
export function auditRecordText(record: AuditRecord): string {
  return canonicalJson(record);
}

/**
 * SHA-256 of a text's UTF-8 bytes, as 64 lowercase hex digits (Web Crypto).
 *
 * @param text The text.
 * @returns The digest.
 */
export async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * Every problem with a value as an audit event, each naming its field; empty for a valid one.
 * (A detail field named like a credential is no problem: {@linkcode normalizeAuditEvent} drops it.)
 *
 * @param value The candidate.
 * @returns One sentence per problem.
 */
export function auditEventProblems(value: unknown): string[] {
  if (!isObject(value)) return ["an audit event must be an object"];
  const problems: string[] = [];
  if (!AUDIT_KINDS.includes(value.kind as AuditKind)) {
    problems.push(
      `kind must be one of ${AUDIT_KINDS.join(", ")}, got ${JSON.stringify(value.kind)}`,
    );
  }
  if (
    value.at !== undefined && (typeof value.at !== "string" || Number.isNaN(Date.parse(value.at)))
  ) {
    problems.push(`at must be an ISO 8601 time, got ${JSON.stringify(value.at)}`);
  }
  for (const field of ["principal", "tool", "version"] as const) {
    if (value[field] !== undefined && typeof value[field] !== "string") {
      problems.push(`${field} must be a string`);
    }
  }
  if (value.detail !== undefined) {
    if (!isObject(value.detail)) problems.push("detail must be an object");
    else {
      const json = jsonProblems(value.detail, 1);
      if (json.length) problems.push(`detail is not JSON: ${json[0].message}`);
    }
  }
  return problems;
}

/** A detail with every field named like a credential dropped, at any depth. */
function withoutSecrets(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutSecrets);
  if (!isObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    if (!SECRET_FIELD.test(k)) out[k] = withoutSecrets(v);
  }
  return out;
}

/**
 * An event as it is recorded: checked, its `at` set (from `now` when absent), its detail a JSON
 * copy without any field named like a credential (`token`, `secret`, `authorization`, …, at any
 * depth): a log a reader may see never holds one.
 *
 * @param event The event.
 * @param now The clock, for an event without `at`.
 * @returns The event to seal.
 * @throws {TypeError} When it is not an audit event, naming the field.
 */
export function normalizeAuditEvent(
  event: AuditEvent,
  now: () => Date,
): Required<Pick<AuditEvent, "kind" | "at" | "detail">> & AuditEvent {
  const problems = auditEventProblems(event);
  if (problems.length) throw new TypeError(`Not an audit event: ${problems.join("; ")}`);
  const out: Required<Pick<AuditEvent, "kind" | "at" | "detail">> & AuditEvent = {
    kind: event.kind,
    at: event.at ?? now().toISOString(),
    detail: withoutSecrets(JSON.parse(JSON.stringify(event.detail ?? {}))) as Record<
      string,
      unknown
    >,
  };
  if (event.principal !== undefined) out.principal = event.principal;
  if (event.tool !== undefined) out.tool = event.tool;
  if (event.version !== undefined) out.version = event.version;
  return out;
}

/** The record after `prev`, without its hash. */
function unsealed(
  prev: AuditHead,
  event: AuditEvent,
  now: () => Date,
): Omit<AuditRecord, "hash"> {
  const e = normalizeAuditEvent(event, now);
  const record: Omit<AuditRecord, "hash"> = {
    seq: prev.seq + 1,
    at: e.at,
    kind: e.kind,
    detail: e.detail,
    prev: prev.hash,
  };
  if (e.principal !== undefined) record.principal = e.principal;
  if (e.tool !== undefined) record.tool = e.tool;
  if (e.version !== undefined) record.version = e.version;
  return record;
}

/** Options for {@linkcode sealAudit} and {@linkcode sealAuditWith}. */
export interface SealAuditOptions {
  /** The clock, for events without `at`. Default `new Date()`. */
  now?: () => Date;
}

/**
 * Chains events after a head: each record gets the next `seq`, the previous record's hash as
 * `prev`, and its own hash (Web Crypto's SHA-256).
 *
 * @param head Where the log ends now.
 * @param events The events, in order.
 * @param options The clock.
 * @returns The records to append, in order.
 * @throws {TypeError} When an event is not an audit event (nothing is returned).
 *
 * @example
 * ```ts
 * import { EMPTY_AUDIT_HEAD, sealAudit, verifyAuditChain } from "@tool-estate/core";
 * import assert from "node:assert/strict";
 * const records = await sealAudit(EMPTY_AUDIT_HEAD, [
 *   { kind: "publish", tool: "fx.quote", version: "1.0.0", at: "2026-12-01T09:00:00.000Z" },
 *   { kind: "deprecate", tool: "fx.quote", version: "1.0.0", detail: { reason: "superseded" } },
 * ]);
 * assert.equal(records[1].prev, records[0].hash);
 * assert.equal((await verifyAuditChain(records)).ok, true);
 * records[0].detail.reason = "edited";
 * const verdict = await verifyAuditChain(records);
 * assert.equal(verdict.ok ? "" : verdict.reason, "edited");
 * ```
 */
export async function sealAudit(
  head: AuditHead,
  events: Iterable<AuditEvent>,
  options: SealAuditOptions = {},
): Promise<AuditRecord[]> {
  const now = options.now ?? (() => new Date());
  const drafts = [...events];
  const out: AuditRecord[] = [];
  let prev = head;
  for (const event of drafts) {
    const record = unsealed(prev, event, now);
    const sealed = { ...record, hash: await sha256Hex(auditHashText(record)) };
    out.push(sealed);
    prev = sealed;
  }
  return out;
}

/**
 * Chains events after a head as {@linkcode sealAudit} does, with a synchronous SHA-256 (a store
 * that decides under a synchronous lock passes its platform's; the text hashed is the same, so
 * {@linkcode verifyAuditChain} checks either).
 *
 * @param head Where the log ends now.
 * @param events The events, in order.
 * @param options The SHA-256 (hex of the text's UTF-8 bytes) and the clock.
 * @returns The records to append, in order.
 * @throws {TypeError} When an event is not an audit event.
 */
export function sealAuditWith(
  head: AuditHead,
  events: Iterable<AuditEvent>,
  options: SealAuditOptions & { sha256: (text: string) => string },
): AuditRecord[] {
  const now = options.now ?? (() => new Date());
  const out: AuditRecord[] = [];
  let prev = head;
  for (const event of events) {
    const record = unsealed(prev, event, now);
    const sealed = { ...record, hash: options.sha256(auditHashText(record)) };
    out.push(sealed);
    prev = sealed;
  }
  return out;
}

/**
 * Every problem with a value as an audit record (its shape only: the chain is
 * {@linkcode verifyAuditChain}'s); empty for a record.
 *
 * @param value The candidate (a parsed line of `audit.jsonl`, a row).
 * @returns One sentence per problem.
 */
export function auditRecordProblems(value: unknown): string[] {
  if (!isObject(value)) return ["an audit record must be an object"];
  const problems: string[] = [];
  if (!Number.isSafeInteger(value.seq) || (value.seq as number) < 1) {
    problems.push("seq must be a positive integer");
  }
  if (typeof value.at !== "string") problems.push("at must be a string");
  if (!AUDIT_KINDS.includes(value.kind as AuditKind)) {
    problems.push(`kind must be one of ${AUDIT_KINDS.join(", ")}`);
  }
  for (const field of ["principal", "tool", "version"] as const) {
    if (value[field] !== undefined && typeof value[field] !== "string") {
      problems.push(`${field} must be a string`);
    }
  }
  if (!isObject(value.detail)) problems.push("detail must be an object");
  if (typeof value.prev !== "string" || !HEX64.test(value.prev)) {
    problems.push("prev must be 64 lowercase hex digits");
  }
  if (typeof value.hash !== "string" || !HEX64.test(value.hash)) {
    problems.push("hash must be 64 lowercase hex digits");
  }
  return problems;
}

/** Which records {@linkcode EstateStore.readAudit} yields: all that match every field given. */
export interface AuditFilter {
  /** Only records about this tool. */
  tool?: string;
  /** Only records of this principal. */
  principal?: string;
  /** Only records of this kind. */
  kind?: AuditKind;
  /** Only records at or after this time (ISO 8601). */
  since?: string;
  /** Only records before this time (ISO 8601). */
  until?: string;
}

/**
 * Whether a record matches a filter (times compared as instants).
 *
 * @param record The record.
 * @param filter The filter; none matches everything.
 * @returns Whether it matches.
 */
export function auditRecordMatches(record: AuditRecord, filter: AuditFilter = {}): boolean {
  if (filter.tool !== undefined && record.tool !== filter.tool) return false;
  if (filter.principal !== undefined && record.principal !== filter.principal) return false;
  if (filter.kind !== undefined && record.kind !== filter.kind) return false;
  const at = Date.parse(record.at);
  if (filter.since !== undefined && !(at >= Date.parse(filter.since))) return false;
  if (filter.until !== undefined && !(at < Date.parse(filter.until))) return false;
  return true;
}

/**
 * Why a chain is broken:
 * - `malformed`: a record is not an audit record;
 * - `edited`: a record's hash is not the hash of its content;
 * - `deleted`: records are missing (a gap in `seq`);
 * - `reordered`: a record comes after one with a higher `seq` (or repeats one);
 * - `unlinked`: a record's `prev` is not its predecessor's hash (a record before it was edited and
 *   re-hashed, or records were removed and renumbered);
 * - `truncated`: a checkpoint lies beyond the end of the log, or its head is not the hash of the
 *   record at its `seq` (the log was cut and written again from there);
 * - `signature`: a checkpoint's signature does not verify with the public key.
 */
export type AuditBreak =
  | "malformed"
  | "edited"
  | "deleted"
  | "reordered"
  | "unlinked"
  | "truncated"
  | "signature";

/** What {@linkcode verifyAuditChain} found. */
export type AuditVerdict =
  | {
    /** The chain holds. */
    ok: true;
    /** How many records. */
    records: number;
    /** Its head. */
    head: AuditHead;
    /** How many checkpoints were checked against it. */
    checkpoints: number;
    /** Whether their signatures were verified (a public key was given). */
    signed: boolean;
  }
  | {
    /** The chain is broken. */
    ok: false;
    /** The first broken record's `seq` (the place it should have), or a checkpoint's. */
    seq: number;
    /** Its position in what was read (0-based), or -1 for a checkpoint beyond the end. */
    index: number;
    /** Why. */
    reason: AuditBreak;
    /** One sentence for a person. */
    message: string;
  };

/** Options for {@linkcode verifyAuditChain}. */
export interface VerifyAuditOptions {
  /** Checkpoints to hold the chain to (any order). Default: none. */
  checkpoints?: readonly AuditCheckpoint[];
  /**
   * The operator's public key (Ed25519, see `importAuditKey`): every checkpoint's signature must
   * verify with it. Without it checkpoints are held to the chain but their signatures unchecked.
   */
  publicKey?: AuditKey;
}

/**
 * Verifies an audit log: each record's hash against its content, its `seq` one more than its
 * predecessor's, its `prev` its predecessor's hash; then every checkpoint — its signature, when a
 * public key is given, and its head the hash of the record at its `seq` (a checkpoint beyond the
 * end means the log was cut). Records are read once, in order (memory stays flat).
 *
 * @param records The log, in stored order.
 * @param options The checkpoints and the public key.
 * @returns Ok with the head, or the first broken record and why.
 */
export async function verifyAuditChain(
  records: Iterable<AuditRecord> | AsyncIterable<AuditRecord>,
  options: VerifyAuditOptions = {},
): Promise<AuditVerdict> {
  const checkpoints = [...(options.checkpoints ?? [])].sort((a, b) => a.seq - b.seq);
  if (options.publicKey) {
    for (const c of checkpoints) {
      if (!(await verifyAuditCheckpoint(c, options.publicKey))) {
        return {
          ok: false,
          seq: c.seq,
          index: -1,
          reason: "signature",
          message:
            `the checkpoint at record ${c.seq} (${c.at}) is not signed by this key: it was forged or altered`,
        };
      }
    }
  }
  const wanted = new Map<number, AuditCheckpoint[]>();
  for (const c of checkpoints) wanted.set(c.seq, [...(wanted.get(c.seq) ?? []), c]);
  let head: AuditHead = EMPTY_AUDIT_HEAD;
  let index = 0;
  /** A gap seen at the previous record: deleted, unless the next record fills it (reordered). */
  let gap: { seq: number; index: number; expected: number } | undefined;
  const broken = (
    seq: number,
    at: number,
    reason: AuditBreak,
    message: string,
  ): AuditVerdict => ({ ok: false, seq, index: at, reason, message });
  const deleted = (g: { seq: number; index: number; expected: number }): AuditVerdict =>
    broken(
      g.expected,
      g.index,
      "deleted",
      g.seq - g.expected === 1
        ? `record ${g.expected} is missing (record ${g.seq} follows record ${
          g.expected - 1
        }): it was deleted`
        : `records ${g.expected} to ${g.seq - 1} are missing (record ${g.seq} follows record ${
          g.expected - 1
        }): they were deleted`,
    );
  for await (const record of records) {
    if (gap) {
      return Number.isSafeInteger(record?.seq) && record.seq < gap.seq
        ? broken(
          gap.expected,
          gap.index,
          "reordered",
          `record ${record.seq} comes after record ${gap.seq}: the log was reordered`,
        )
        : deleted(gap);
    }
    const problems = auditRecordProblems(record);
    if (problems.length) {
      return broken(
        head.seq + 1,
        index,
        "malformed",
        `record ${head.seq + 1} (entry ${index + 1}) is not an audit record: ${
          problems.join("; ")
        }`,
      );
    }
    if ((await sha256Hex(auditHashText(record))) !== record.hash) {
      return broken(
        record.seq,
        index,
        "edited",
        `record ${record.seq} (${record.kind} at ${record.at}) does not match its hash: it was edited`,
      );
    }
    const expected = head.seq + 1;
    if (record.seq > expected) {
      gap = { seq: record.seq, index, expected };
      index++;
      continue;
    }
    if (record.seq < expected) {
      return broken(
        record.seq,
        index,
        "reordered",
        `record ${record.seq} comes after record ${head.seq}: the log was reordered or a record repeated`,
      );
    }
    if (record.prev !== head.hash) {
      return broken(
        record.seq,
        index,
        "unlinked",
        `record ${record.seq}'s prev is not record ${head.seq}'s hash: a record before it was edited and re-hashed, or records were removed and renumbered`,
      );
    }
    for (const c of wanted.get(record.seq) ?? []) {
      if (c.head !== record.hash) {
        return broken(
          record.seq,
          index,
          "truncated",
          `the checkpoint of ${c.at} signed record ${c.seq} with head ${
            c.head.slice(0, 12)
          }…, but record ${c.seq} now has hash ${
            record.hash.slice(0, 12)
          }…: the log was cut and written again from there`,
        );
      }
    }
    head = { seq: record.seq, hash: record.hash };
    index++;
  }
  if (gap) return deleted(gap);
  const beyond = checkpoints.find((c) => c.seq > head.seq);
  if (beyond) {
    return broken(
      beyond.seq,
      -1,
      "truncated",
      `the checkpoint of ${beyond.at} signed record ${beyond.seq}, but the log ends at record ${head.seq}: it was truncated`,
    );
  }
  return {
    ok: true,
    records: index,
    head,
    checkpoints: checkpoints.length,
    signed: options.publicKey !== undefined,
  };
}

/**
 * What the audit log may record of a call's arguments (`estate.json`'s
 * `audit.classifiedArguments`, for tools whose data is `confidential` or `restricted`): `omit`
 * (nothing, the default) or `sha256` (the SHA-256 of their canonical JSON, never the values).
 */
export type ClassifiedArguments = "omit" | "sha256";

/** The estate's audit settings (`estate.json`'s `audit`). */
export interface AuditSettings {
  /**
   * What is recorded of the arguments of a call to a `confidential` or `restricted` tool:
   * `omit` (default) or `sha256`. A `public` or `internal` tool's arguments are recorded as sent.
   */
  classifiedArguments?: ClassifiedArguments;
}

/**
 * Every problem with a value as the audit settings, each naming its field.
 *
 * @param value The candidate (`estate.json`'s `audit`).
 * @returns One sentence per problem; empty when valid.
 */
export function auditSettingsProblems(value: unknown): string[] {
  if (!isObject(value)) return ["audit must be an object"];
  const problems: string[] = [];
  const c = value.classifiedArguments;
  if (c !== undefined && c !== "omit" && c !== "sha256") {
    problems.push(`audit.classifiedArguments must be omit or sha256, got ${JSON.stringify(c)}`);
  }
  for (const k of Object.keys(value)) {
    if (k !== "classifiedArguments") problems.push(`unknown field audit.${k}`);
  }
  return problems;
}

/**
 * What the audit log records of a call's arguments: the values for a `public` or `internal` tool;
 * for a `confidential` or `restricted` one nothing, or with `classifiedArguments: "sha256"` the
 * SHA-256 of their canonical JSON only.
 *
 * @param classification The tool's data classification.
 * @param args The arguments as sent.
 * @param settings The estate's audit settings.
 * @returns The detail fields to record: `arguments`, or `argumentsSha256`, or none.
 *
 * @example
 * ```ts
 * import { auditArguments } from "@tool-estate/core";
 * import assert from "node:assert/strict";
 * assert.deepEqual(await auditArguments("internal", { pair: "EURUSD" }), { arguments: { pair: "EURUSD" } });
 * assert.deepEqual(await auditArguments("restricted", { iban: "DE89…" }), {});
 * const { argumentsSha256 } = await auditArguments("confidential", { iban: "DE89…" }, { classifiedArguments: "sha256" });
 * assert.match(argumentsSha256 ?? "", /^[0-9a-f]{64}$/);
 * ```
 */
export async function auditArguments(
  classification: DataClassification,
  args: unknown,
  settings: AuditSettings = {},
): Promise<{ arguments?: unknown; argumentsSha256?: string }> {
  if (classification === "public" || classification === "internal") {
    return { arguments: withoutSecrets(args) };
  }
  if (settings.classifiedArguments === "sha256") {
    return { argumentsSha256: await sha256Hex(canonicalJson(args ?? {})) };
  }
  return {};
}

/**
 * Where a component that observes governed events (the MCP server: call decisions and
 * confirmations) sends them: the events arrive redacted; the sink appends them
 * (`EstateStore.appendAudit`) and handles its own failures.
 */
export interface AuditSink {
  /**
   * Takes one event.
   *
   * @param event The event, redacted.
   */
  append(event: AuditEvent): void;
  /**
   * The estate's audit settings, read for each event (what to record of classified arguments).
   * Default: none (`omit`).
   */
  settings?(): AuditSettings | undefined;
}
