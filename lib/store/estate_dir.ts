/**
 * The estate on disk: a folder a team reviews in git, loaded into a {@linkcode ToolRegistry}, and
 * written durably and atomically when a version is published, deprecated or retired.
 *
 * ```
 * <estate>/
 *   estate.json              the estate's settings: { "compatibility": "<mode>", "limits": […] } (optional)
 *   .request-states/, .quotas/, .idempotency/  runtime state: spent requestStates, call-limit
 *                            counters, idempotency keys (git ignores them)
 *   principals.json          example principals
 *   servers/<id>.json        the MCP servers the estate did not write (loaded before tools/)
 *   tools/<tool name>/
 *     <version>.json         one spec per published version; never rewritten
 *     lifecycle.json         { "<version>": [lifecycle entries] }
 *     calls.jsonl            stored calls, one JSON object per line
 *   drift.jsonl              what the gateway observed of upstream servers, one record a line
 *   audit.jsonl              the audit log, one hash-chained record a line (.audit-lock/ its lock)
 *   audit-checkpoints.jsonl  signed checkpoints of the audit log's head
 * ```
 *
 * @module
 */
import fs from "node:fs";
import path from "node:path";
import { createHash } from "node:crypto";
import type { QuotaTake } from "../estate/limits.ts";
import type { LifecycleEntry, VersionRecord } from "../estate/lifecycle.ts";
import {
  PublishError,
  publishError,
  type PublishPlan,
  type PublishResult,
} from "../estate/publish_plan.ts";
import { ToolRegistry } from "../estate/registry.ts";
import type { DriftRecord } from "../estate/drift.ts";
import { parseServerRecord, type ServerRecord } from "../estate/server_record.ts";
import {
  type RegisterServerOptions,
  type RegisterServerResult,
  ServerDirectory,
} from "../estate/servers.ts";
import type { StoredCall } from "../estate/replay.ts";
import type {
  RetirementOptions,
  RetirementPlan,
  RetirementRules,
} from "../estate/retirement_plan.ts";
import { keepToolSpec, type ToolSpec } from "../estate/spec.ts";
import type { PublishTrace } from "../estate/publish_trace.ts";
import {
  ESTATE_CONFIG_FILE,
  type EstateConfig,
  estateConfigProblems,
} from "../estate/estate_config.ts";
import { isEstateFileName } from "../estate/estate_files.ts";
import { CorpusError } from "./corpus_error.ts";
import { parseJsonFile } from "./_json.ts";
import { type EstatePrincipal, parsePrincipals } from "./principals.ts";
import { readCallsFile, type TornLine } from "./read_calls.ts";
import { appendToCallsFile } from "./_append.ts";
import { refuseSymlink, symlinkRefused } from "./_no_follow.ts";
import {
  createExclusive,
  ensureDir,
  ensureRuntimeDir,
  removeLeftovers,
  replaceAtomic,
} from "./_atomic.ts";
import { formatLifecycle, type Lifecycle, settleLifecycle } from "./_lifecycle.ts";
import { type LockOptions, withLock } from "./_lock.ts";
import { IDEMPOTENCY_DIR, IdempotencyDir } from "./_idempotency_dir.ts";
import type {
  IdempotencyClaim,
  IdempotencyEntry,
  IdempotencyOutcome,
  IdempotencyRef,
} from "../estate/idempotency.ts";
import {
  CALLS_FILE,
  type DiskTool,
  LIFECYCLE_FILE,
  loadToolDir,
  parseVersionFile,
} from "./_tool_dir.ts";
import { storedCallLine, storedCallProblems } from "./_stored_call.ts";
import { type DiskServer, loadServerDir, parseServerFile, SERVERS_DIR } from "./_server_dir.ts";
import { appendDriftLog, DRIFT_FILE, readDriftLog } from "./drift_log.ts";
import type {
  CallsAfter,
  CallsAfterOptions,
  EstateStore,
  StoreChange,
  StoreWatch,
} from "./store.ts";
import { readCallsAfter } from "./_calls_after.ts";
import type { Proposal, ProposalEvent } from "../estate/proposal.ts";
import { PROPOSALS_DIR, readProposalDir, recordInProposalDir } from "./_proposal_dir.ts";
import { PendingCallDir } from "./_pending_call_dir.ts";
import type { PendingCallStore } from "../estate/call_approvals.ts";
import { TaskDir } from "./_task_dir.ts";
import type { TaskStore } from "../estate/tasks.ts";
import type { AuditEvent, AuditFilter, AuditHead, AuditRecord } from "../estate/audit.ts";
import type { AuditCheckpoint } from "../estate/audit_checkpoint.ts";
import {
  appendAuditFile,
  appendCheckpointFile,
  AUDIT_CHECKPOINTS_FILE,
  AUDIT_FILE,
  AUDIT_LOCK_DIR,
  auditFileHead,
  readAuditFile,
  readCheckpointFile,
} from "./_audit_file.ts";
import {
  driftAuditEvent,
  lifecycleAuditEvent,
  proposalAuditEvent,
  publishAuditEvent,
} from "./_audit_events.ts";

/** The principals file's name. */
const PRINCIPALS_FILE = "principals.json";
/** The folder of tool folders. */
const TOOLS_DIR = "tools";
/** The requestStates claimed (one empty file per state, `<expires>-<nonce>`): runtime, not estate. */
const REQUEST_STATES_DIR = ".request-states";
/** The call-limit counters of the current windows (a file each): runtime, not estate. */
const QUOTAS_DIR = ".quotas";
/** A call-limit counter's record: `<count> <window end>`, each zero-padded to a fixed width. */
const QUOTA_RECORD_BYTES = 32;
function quotaRecord(n: number, until: number): string {
  return `${String(n).padStart(15, "0")} ${String(until).padStart(16, "0")}`;
}
/** The folders that hold runtime state, not the estate: git ignores them, a watch too. */
const RUNTIME_DIRS: ReadonlySet<string> = new Set([
  REQUEST_STATES_DIR,
  QUOTAS_DIR,
  IDEMPOTENCY_DIR,
  AUDIT_LOCK_DIR,
]);
/** The audit log's files: appended on every governed event, nothing a reader of the estate loads. */
const AUDIT_FILES: ReadonlySet<string> = new Set([AUDIT_FILE, AUDIT_CHECKPOINTS_FILE]);
const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

/** Options for {@linkcode EstateDir.open}. */
export interface EstateDirOptions {
  /**
   * The clock: for lifecycle timestamps, and for the registry's retirement on its date (a
   * deprecated version whose retire-after date has passed is retired). Default: `new Date()`.
   */
  now?: () => Date;
  /** How long to wait for a tool's lock held by another process, in ms. Default 5000. */
  lockTimeoutMs?: number;
  /**
   * Told of a torn last line of a `calls.jsonl` (see {@linkcode TornLine}): when a reader skips
   * it, and when an append removes it. Default: ignored.
   */
  onTornLine?: (torn: TornLine) => void;
  /** Told what a publish does on its way to its decision (see `PublishTrace`). Default: none. */
  trace?: PublishTrace;
  /**
   * Who writes through this estate (a person's or a pipeline's id): the principal of the audit
   * records of its publishes, deprecations and retirements. Default: none recorded.
   */
  actor?: string;
}

/** Options for {@linkcode EstateDir.deprecate}. */
export interface DeprecateOptions {
  /** Why. */
  reason?: string;
  /**
   * The calendar date (`YYYY-MM-DD`, after today) after which the version retires: at 00:00 UTC
   * the next day it stops resolving.
   */
  retireAfter?: string;
}

/** Options for {@linkcode EstateDir.retire}. */
export interface RetireOptions {
  /** Why (required for an early retirement). */
  reason?: string;
  /**
   * Apply the retirement rules (see `ToolRegistry.planRetirement`) with these exemptions, against
   * the tool as it is on disk, with its stored calls. Without `rules` only an already retired
   * version is refused, as before the rules existed.
   */
  rules?: RetirementRules;
}

/** The outcome of {@linkcode EstateDir.registerServer}: the registry's result and the record's file. */
export interface EstateServerResult extends RegisterServerResult {
  /** The record's file, `servers/<id>.json` (written now, or already holding this record). */
  file: string;
}

/** The outcome of {@linkcode EstateDir.publish}: the registry's result and the version file. */
export interface EstatePublishResult extends PublishResult {
  /** The version's file (written now, or already there for `already-published`). */
  file: string;
}

/** A clock reading that prints exactly as recorded (a stored `at` need not be in `toISOString` form). */
function instant(iso: string): Date {
  const d = new Date(iso);
  d.toISOString = () => iso;
  return d;
}

/**
 * An estate folder, loaded into a {@linkcode ToolRegistry}.
 *
 * Reading: `open()` loads every server record, then every version and lifecycle (and checks them:
 * a bad file is a {@linkcode CorpusError} naming it, never skipped); stored calls are streamed from
 * `calls.jsonl` when the registry replays them, so a bad line surfaces then, naming its line.
 *
 * Servers: `registerServer` takes the lock of `servers/`, decides against the records on disk
 * (exactly one server serves a tool name; a different record under a registered id only as an
 * update), writes `servers/<id>.json` atomically, and then replaces the registry's servers with
 * those on disk (subscribers hear of each one registered or updated). `publish` and `refresh`
 * take in the records other processes wrote first, so a spec is checked against the servers on
 * disk.
 *
 * Writing: `publish`, `deprecate` and `retire` take the tool's lock (`tools/<name>/.lock`),
 * re-read the tool from disk (another process may have changed it since `open()`), decide with the
 * registry's rules, write, and release the lock. A version file is created atomically and
 * exclusively (temp file, fsync, hard link: a version is never half-written and never rewritten);
 * `lifecycle.json` is replaced atomically (temp file, fsync, rename). Only after the disk is
 * written does the in-memory registry change — through its own `publish`, `deprecate` and
 * `retire`, with the timestamps written to disk — so its subscribers see each change made here.
 * Changes other processes made are taken into the registry when this estate next writes that tool
 * (versions they published arrive silently; their lifecycle transitions are replayed as events),
 * or all at once with `reload()`.
 *
 * Publish through the estate, not through `registry.publish`, which changes memory only.
 *
 * Retirement on its date is derived, not written by readers: the registry retires a deprecated
 * version whose retire-after date has passed by its clock the moment anything is read, so every
 * reader (this estate, `estate serve`, the CLI, the editor) agrees without writing to the folder a
 * team reviews — and without taking the writers' lock. The next write to that tool (publish,
 * deprecate, retire, under its lock) records the `retired` entry in `lifecycle.json`. The entry is
 * the same whoever writes it (retired at the moment the date passed, with that as its reason), so
 * two writers racing to record it write the same bytes.
 *
 * @example
 * ```ts
 * import { EstateDir } from "@tool-estate/core/store";
 * import assert from "node:assert/strict";
 * import fs from "node:fs";
 *
 * fs.mkdirSync(".scratch", { recursive: true });
 * const dir = fs.mkdtempSync(".scratch/estate-");
 * const estate = EstateDir.open(dir);
 * const events: string[] = [];
 * estate.registry.subscribe((e) => events.push(`${e.type} ${e.name}@${e.version}`));
 * estate.publish({
 *   name: "fx.quote", version: "1.0.0", title: "FX quote",
 *   description: "Quotes a foreign exchange rate for a currency pair. Reads the pricing engine.",
 *   inputSchema: { type: "object", properties: { pair: { type: "string" } }, required: ["pair"] },
 *   sideEffect: "read", requiredScopes: ["fx:read"], dataClassification: "internal", tenants: [], owner: "fx-desk",
 * });
 * estate.deprecate("fx.quote", "1.0.0", { reason: "superseded by fx.price" });
 * assert.deepEqual(events, ["published fx.quote@1.0.0", "deprecated fx.quote@1.0.0"]);
 *
 * const again = EstateDir.open(dir);
 * assert.equal(again.registry.versions("fx.quote")[0].state, "deprecated");
 * fs.rmSync(dir, { recursive: true });
 * ```
 */
export class EstateDir implements EstateStore {
  /** The estate's folder, as given to `open()`. */
  readonly dir: string;
  readonly #now: () => Date;
  readonly #lock: LockOptions;
  #pendingCalls: PendingCallStore | undefined;
  #tasks: TaskStore | undefined;
  #config: EstateConfig = {};
  readonly #keys: IdempotencyDir;
  readonly #onTornLine: ((torn: TornLine) => void) | undefined;
  readonly #trace: PublishTrace | undefined;
  readonly #actor: string | undefined;
  #registry: ToolRegistry;
  #principals: EstatePrincipal[];
  /**
   * The registry's clock while this estate writes (one moment for the whole write) or mirrors a
   * change it wrote to disk (the time recorded there).
   */
  #pinned: (() => Date) | undefined;
  /** Off while mirroring a publish whose stored calls were already replayed. */
  #replay = true;

  private constructor(dir: string, options: EstateDirOptions) {
    this.dir = dir;
    this.#now = options.now ?? (() => new Date());
    this.#lock = { timeoutMs: options.lockTimeoutMs ?? 5000, staleMs: 30_000 };
    this.#keys = new IdempotencyDir(dir, this.#lock);
    this.#onTornLine = options.onTornLine;
    this.#trace = options.trace;
    this.#actor = options.actor;
    this.#registry = new ToolRegistry();
    this.#principals = [];
  }

  /**
   * Opens an estate folder and loads it. Nothing is written; leftovers of a crashed write
   * (`.tmp-*`) are ignored (and removed by the next write to that tool). A folder without
   * `tools/` or `principals.json` is an empty estate. `estate.json`, when there is one, gives the
   * registry the estate's compatibility mode (`RegistryOptions.compatibility`).
   *
   * @param dir The folder (e.g. `corpus`); it must exist.
   * @param options The clock and the lock timeout.
   * @returns The estate.
   * @throws {CorpusError} Naming the file (and line and column, for invalid JSON) of the first
   *   version file, `lifecycle.json`, `principals.json`, `estate.json` or server record that is not valid, of a
   *   version file whose name or version does not match its place, of a server record whose id is
   *   not its file name, or of one that lists a tool another server's record lists.
   * @throws {Error} When `dir` is not a folder.
   */
  static open(dir: string, options: EstateDirOptions = {}): EstateDir {
    const estate = new EstateDir(dir, options);
    estate.reload();
    return estate;
  }

  /**
   * The estate as a registry: for resolving, discovering, planning and subscribing. A `reload()`
   * replaces it.
   *
   * @returns The registry.
   */
  get registry(): ToolRegistry {
    return this.#registry;
  }

  /**
   * Loads the estate from disk again, into a new registry (subscribers of the old one are not
   * carried over). On error the estate keeps what it had.
   *
   * @returns The new registry.
   * @throws {CorpusError} As for `open()`.
   * @throws {Error} When the folder is gone.
   */
  reload(): ToolRegistry {
    if (!fs.statSync(this.dir, { throwIfNoEntry: false })?.isDirectory()) {
      throw new Error(`Cannot open the estate ${this.dir}: no such folder`);
    }
    const principals = this.#readPrincipals();
    const config = this.#readConfig();
    this.#config = config;
    const registry = new ToolRegistry({
      storedCalls: (name) => this.#replay ? this.readCalls(name) : [],
      now: () => this.#pinned ? this.#pinned() : this.#now(),
      ...(config.compatibility ? { compatibility: config.compatibility } : {}),
      ...(this.#trace ? { trace: this.#trace } : {}),
    });
    registry.restoreServers(this.#readServers().map((s) => s.record));
    const tools = path.join(this.dir, TOOLS_DIR);
    if (fs.existsSync(tools)) {
      for (const entry of fs.readdirSync(tools, { withFileTypes: true })) {
        if (entry.name.startsWith(".")) continue;
        const where = path.join(tools, entry.name);
        if (entry.isSymbolicLink()) throw symlinkRefused(where);
        if (!entry.isDirectory()) {
          throw new CorpusError(
            where,
            `unexpected file: ${TOOLS_DIR}/ holds one folder per tool`,
          );
        }
        for (const v of loadToolDir(where, entry.name).versions) {
          registry.restore({ spec: v.spec, history: v.history });
        }
      }
    }
    this.#registry = registry;
    this.#principals = principals;
    return registry;
  }

  /**
   * Reads `principals.json` again (a server watching the estate calls this when the folder
   * changes). On error the estate keeps the principals it had: a bad edit never drops everyone.
   * A missing file means no principals, as for `open()`.
   *
   * @returns Whether the principals changed.
   * @throws {CorpusError} As for `open()`, naming the file and line.
   */
  refreshPrincipals(): boolean {
    const principals = this.#readPrincipals();
    if (JSON.stringify(principals) === JSON.stringify(this.#principals)) {
      return false;
    }
    this.#principals = principals;
    return true;
  }

  /**
   * Claims a requestState's single use for every process serving this folder (see
   * `EstateStore.claimRequestState`): an empty file `.request-states/<expires>-<nonce>` (a folder git ignores), created
   * only if it does not exist (`wx`), so one creator wins on one filesystem; lapsed ones are
   * deleted as claims go (about one in 64).
   *
   * @param nonce The state's nonce (base64url).
   * @param expires When the state lapses (ms since the epoch).
   * @returns Whether this is the first claim.
   * @throws {TypeError} When the nonce is not base64url.
   */
  claimRequestState(nonce: string, expires: number): boolean {
    if (!/^[A-Za-z0-9_-]{1,128}$/.test(nonce)) {
      throw new TypeError(`a requestState nonce is base64url, got ${JSON.stringify(nonce)}`);
    }
    const dir = ensureRuntimeDir(path.join(this.dir, REQUEST_STATES_DIR));
    if (Math.random() < 1 / 64) {
      const now = Date.now();
      for (const name of fs.readdirSync(dir)) {
        if (name.includes("-") && Number(name.slice(0, name.indexOf("-"))) < now) {
          fs.rmSync(path.join(dir, name), { force: true });
        }
      }
    }
    try {
      fs.writeFileSync(path.join(dir, `${Math.trunc(expires)}-${nonce}`), "", { flag: "wx" });
      return true;
    } catch (e) {
      if ((e as { code?: string }).code === "EEXIST") return false;
      throw e;
    }
  }

  /**
   * Counts a call against the estate's call limits for every process serving this folder (see
   * `EstateStore.takeQuota`): each counter of a current window is a small file in
   * `.quotas/counters/` (a folder git ignores) named by its window's end and a digest of its key, holding
   * `<count> <window end>` (fixed width, rewritten in place), read and written under the folder's
   * lock, so two processes never admit more than a limit between them. Ended windows' files are
   * deleted as calls go (about one in 256). A counter file that
   * cannot be read (a process killed as it wrote) starts its window afresh.
   *
   * @param takes The counters, in the order they are checked.
   * @param now The time (ms since the epoch).
   * @returns -1 when every take was counted; else the index of the first counter at its max.
   */
  takeQuota(takes: readonly QuotaTake[], now: number): number {
    if (!takes.length) return -1;
    const dir = ensureRuntimeDir(path.join(this.dir, QUOTAS_DIR));
    // In a folder of their own: the lock's folder is scanned on each acquisition, this one not.
    const counters = path.join(dir, "counters");
    if (!fs.existsSync(counters)) fs.mkdirSync(counters, { recursive: true });
    // Named by its window's end and a digest of its key: ended windows are found by name.
    const files = takes.map((t) =>
      path.join(
        counters,
        `${t.until}-${createHash("sha256").update(t.key).digest("hex").slice(0, 32)}`,
      )
    );
    return withLock(dir, "count a call against the estate's limits", this.#lock, () => {
      const fds = files.map((file) =>
        fs.openSync(file, fs.constants.O_RDWR | fs.constants.O_CREAT)
      );
      try {
        const buffer = new Uint8Array(QUOTA_RECORD_BYTES);
        const counts = fds.map((fd, i) => {
          const read = fs.readSync(fd, buffer, 0, QUOTA_RECORD_BYTES, 0);
          const [n, until] = new TextDecoder().decode(buffer.subarray(0, read)).split(" ")
            .map(Number);
          // None yet, a window that has ended, or torn: the window starts afresh.
          return until === takes[i].until && Number.isSafeInteger(n) ? n : 0;
        });
        const refused = takes.findIndex((t, i) => counts[i] >= t.max);
        if (refused >= 0) return refused;
        // Written in place (a record of fixed width: no truncation, which costs far more than
        // the write) and not synced: a count lost to a crash is a window's, never history.
        takes.forEach((t, i) => fs.writeSync(fds[i], quotaRecord(counts[i] + 1, t.until), 0));
      } finally {
        for (const fd of fds) fs.closeSync(fd);
      }
      if (Math.random() < 1 / 256) {
        for (const name of fs.readdirSync(counters)) {
          const until = Number(name.slice(0, name.indexOf("-")));
          if (until > 0 && until <= now) fs.rmSync(path.join(counters, name), { force: true });
        }
      }
      return -1;
    });
  }

  /**
   * Claims an idempotency key for every process serving this folder (see
   * `EstateStore.claimIdempotencyKey`): a file `.idempotency/<sha256>.json` (a folder git
   * ignores), created exclusively; lapsed ones are deleted as claims go (about one in 64).
   *
   * @param claim The key, its principal and binding, the claimant, and when it lapses.
   * @returns Undefined when claimed; the entry that holds the key otherwise.
   */
  claimIdempotencyKey(claim: IdempotencyClaim): IdempotencyEntry | undefined {
    return this.#keys.claim(claim);
  }

  /**
   * Stores a claimed call's outcome (see `EstateStore.finishIdempotencyKey`).
   *
   * @param ref The key, its principal, and the claimant.
   * @param outcome The result or the JSON-RPC error.
   * @returns False when `ref.owner` does not hold the key.
   */
  finishIdempotencyKey(
    ref: IdempotencyRef & { owner: string },
    outcome: IdempotencyOutcome,
  ): boolean {
    return this.#keys.finish(ref, outcome);
  }

  /**
   * Drops a running claim (see `EstateStore.releaseIdempotencyKey`).
   *
   * @param ref The key, its principal, and the claimant.
   */
  releaseIdempotencyKey(ref: IdempotencyRef & { owner: string }): void {
    this.#keys.release(ref);
  }

  /**
   * A key's live entry (see `EstateStore.readIdempotencyKey`).
   *
   * @param ref The key and its principal.
   * @param now The time (ms since the epoch).
   * @returns The entry, or undefined.
   */
  readIdempotencyKey(ref: IdempotencyRef, now: number): IdempotencyEntry | undefined {
    return this.#keys.read(ref, now);
  }

  /**
   * A settings file's text, as it is on disk now: `<dir>/<name>`.
   *
   * @param name `estate.json` or `rules.json`.
   * @returns The text; undefined when there is no such file (or `name` is not a settings file's).
   * @throws {Error} When the file exists but cannot be read.
   *
   * @example
   * ```ts
   * import { EstateDir } from "@tool-estate/core/store";
   * import assert from "node:assert/strict";
   * import fs from "node:fs";
   * import os from "node:os";
   * import path from "node:path";
   *
   * const dir = fs.mkdtempSync(path.join(os.tmpdir(), "estate-"));
   * fs.writeFileSync(path.join(dir, "rules.json"), '{"rules": {}}\n');
   * const estate = EstateDir.open(dir);
   * assert.equal(estate.estateFile("rules.json"), '{"rules": {}}\n');
   * assert.equal(estate.estateFile("estate.json"), undefined);
   * fs.rmSync(dir, { recursive: true });
   * ```
   */
  estateFile(name: string): string | undefined {
    if (!isEstateFileName(name)) return undefined;
    try {
      return fs.readFileSync(path.join(this.dir, name), "utf8");
    } catch (e) {
      if ((e as { code?: string }).code === "ENOENT") return undefined;
      throw e;
    }
  }

  /**
   * The estate's settings (`estate.json`) as the last `open()`, `reload()` or `refresh()` read
   * them; `{}` when there is no file.
   *
   * @returns The settings.
   */
  settings(): EstateConfig {
    return this.#config;
  }

  /** `estate.json`: the estate's settings; none when there is no file. */
  #readConfig(): EstateConfig {
    const file = path.join(this.dir, ESTATE_CONFIG_FILE);
    let text: string;
    try {
      text = fs.readFileSync(file, "utf8");
    } catch (e) {
      if ((e as { code?: string }).code === "ENOENT") return {};
      throw e;
    }
    const value = parseJsonFile(text, file);
    const problems = estateConfigProblems(value);
    if (problems.length) {
      throw new CorpusError(file, problems.join("; "), { line: 1 });
    }
    return value as EstateConfig;
  }

  #readPrincipals(): EstatePrincipal[] {
    const file = path.join(this.dir, PRINCIPALS_FILE);
    let text: string;
    try {
      text = fs.readFileSync(file, "utf8");
    } catch (e) {
      if ((e as { code?: string }).code === "ENOENT") return [];
      throw e;
    }
    return parsePrincipals(text, file);
  }

  /**
   * The example principals from `principals.json`.
   *
   * @returns Copies, in file order.
   */
  principals(): EstatePrincipal[] {
    return this.#principals.map((p) => ({ ...p, scopes: [...p.scopes] }));
  }

  /**
   * One example principal.
   *
   * @param id The principal's id.
   * @returns A copy, or undefined when there is none with that id.
   */
  principal(id: string): EstatePrincipal | undefined {
    const p = this.#principals.find((p) => p.id === id);
    return p && { ...p, scopes: [...p.scopes] };
  }

  /**
   * Publishes a version to disk and then to the registry, under the tool's lock, with exactly the
   * registry's rules and refusals — against the tool as it is on disk now, replaying its stored
   * calls for a non-major bump. Writes `tools/<name>/<version>.json` (pretty JSON, exclusively:
   * never over an existing file) and the version's first lifecycle entry (`active`, now).
   * Publishing identical content again is `already-published` and writes nothing (except a missing
   * lifecycle entry, left by a publish that crashed between its two writes, and retirements whose
   * date has passed). Any publish records those retirements in `lifecycle.json`.
   *
   * The decision is made once, under the lock, against the tool as it is on disk (for a new tool,
   * the plan made before its folder is adopted when the folder is still empty of versions); the
   * registry then adopts that plan (`ToolRegistry.adopt`) instead of planning again.
   *
   * @param spec The spec: parse it once, at the edge, with `keepToolSpec` (a value not kept yet is
   *   checked here). A string is the path of a JSON file holding it, read here — deprecated: read
   *   the file and pass the spec.
   * @returns The registry's result, with the version file.
   * @throws {PublishError} As `ToolRegistry.publish` refuses: a republish with different content,
   *   a version not newer than the newest, a bump smaller than the change, an unsafe schema, or
   *   stored calls the new schema rejects.
   * @throws {ToolSpecError} When the spec object is not a valid spec.
   * @throws {CorpusError} When the file is not JSON or not a valid spec; when a file of the tool
   *   on disk is bad (a bad line of `calls.jsonl` surfaces here, during replay).
   * @throws {Error} When the tool's lock is not obtained in time, naming who holds it.
   */
  publish(spec: ToolSpec | string): EstatePublishResult {
    const candidate = typeof spec === "string"
      ? parseVersionFile(fs.readFileSync(spec, "utf8"), spec)
      : keepToolSpec(spec, { trace: this.#trace });
    return this.#publish(candidate);
  }

  #publish(spec: ToolSpec): EstatePublishResult {
    // The servers a spec names are checked as they are on disk now.
    if (spec.server !== undefined) this.#syncServers();
    const dir = this.#writableToolDir(spec.name);
    const file = path.join(dir, `${spec.version}.json`);
    /** A new tool's plan, made before its folder: the rules depend on the spec alone. */
    let planned: PublishPlan | undefined;
    if (!fs.existsSync(dir)) {
      // A new tool: refuse before making its folder.
      planned = this.#registry.plan(spec);
      if (!planned.alreadyPublished && planned.refusals.length) {
        throw publishError(planned);
      }
      ensureDir(dir);
    }
    let catchUp = () => {};
    let done: { plan: PublishPlan; at?: Date };
    try {
      done = withLock(
        dir,
        `publish ${spec.name}@${spec.version}`,
        this.#lock,
        () =>
          this.#atOneMoment((now) => {
            removeLeftovers(dir);
            let synced = this.#sync(dir, spec.name);
            catchUp = synced.catchUp;
            // The plan made before the folder stands while no writer has put a version in it.
            let plan = planned && !planned.baseline &&
                this.#registry.versions(spec.name).length === 0
              ? planned
              : this.#registry.plan(spec);
            if (!plan.alreadyPublished && plan.refusals.length === 0) {
              if (
                createExclusive(file, JSON.stringify(plan.spec, null, 2) + "\n")
              ) {
                const at = now();
                const lifecycle: Lifecycle = {
                  ...settleLifecycle(synced.disk.lifecycle, at).lifecycle,
                  [spec.version]: [{ state: "active", at: at.toISOString() }],
                };
                replaceAtomic(
                  path.join(dir, LIFECYCLE_FILE),
                  formatLifecycle(lifecycle),
                );
                return { plan, at };
              }
              // The file appeared although we hold the lock (a writer that does not lock): judge it.
              synced = this.#sync(dir, spec.name);
              catchUp = synced.catchUp;
              plan = this.#registry.plan(spec);
            }
            if (plan.alreadyPublished) {
              const settled = settleLifecycle(synced.disk.lifecycle, now());
              if (!synced.disk.lifecycleComplete || settled.changed) {
                replaceAtomic(
                  path.join(dir, LIFECYCLE_FILE),
                  formatLifecycle(settled.lifecycle),
                );
              }
              return { plan };
            }
            throw publishError(plan);
          }),
      );
    } finally {
      catchUp();
    }
    if (!done.at) return { status: "already-published", plan: done.plan, file };
    // Mirror in memory: the registry adopts the decision made against the disk (it matches the
    // disk), with the timestamp on disk. Subscribers hear of it here.
    this.#mirror(done.at, () => this.#registry.adopt(done.plan));
    this.appendAudit([publishAuditEvent(done.plan, done.at, this.#actor)]);
    return { status: "published", plan: done.plan, file };
  }

  /**
   * Deprecates an active version, on disk and then in the registry (whose subscribers hear of it).
   *
   * @param name The tool.
   * @param version The version.
   * @param options Why, and the retire-after date (a calendar date after today, by this estate's
   *   clock).
   * @returns The version's record.
   * @throws {LifecycleError} When the version is not published or not active (as on disk now), or
   *   the retire-after date is not a calendar date in the future.
   * @throws {CorpusError} When a file of the tool on disk is bad.
   * @throws {Error} When the tool's lock is not obtained in time.
   */
  deprecate(
    name: string,
    version: string,
    options: DeprecateOptions = {},
  ): VersionRecord {
    const change = (r: ToolRegistry) => r.deprecate(name, version, options);
    const record = this.#transition(name, version, "deprecate", change, change);
    this.appendAudit([lifecycleAuditEvent("deprecate", record, this.#actor)]);
    return record;
  }

  /**
   * Retires a version, on disk and then in the registry (whose subscribers hear of it). With
   * `rules`, the retirement rules decide against the tool as it is on disk now and its stored
   * calls (deprecated first and the date passed, or early with a reason; force for the only active
   * version or one called recently).
   *
   * @param name The tool.
   * @param version The version.
   * @param options Why, and the rules' exemptions.
   * @returns The version's record.
   * @throws {RetirementError} With `rules`, when a rule refuses it (with the impact report).
   * @throws {LifecycleError} When the version is not published or already retired (as on disk now;
   *   a version whose retire-after date has passed is retired).
   * @throws {CorpusError} When a file of the tool on disk is bad.
   * @throws {Error} When the tool's lock is not obtained in time.
   */
  retire(
    name: string,
    version: string,
    options: RetireOptions = {},
  ): VersionRecord {
    const reason = options.reason === undefined ? {} : { reason: options.reason };
    const record = this.#transition(
      name,
      version,
      "retire",
      (r) =>
        r.retire(
          name,
          version,
          options.rules ? { ...reason, rules: options.rules } : reason,
        ),
      (r) => r.retire(name, version, reason),
    );
    this.appendAudit([lifecycleAuditEvent("retire", record, this.#actor)]);
    return record;
  }

  /**
   * Takes in, without a reload, what other processes changed on disk: servers they registered or
   * updated, versions they published and lifecycle transitions they made, for every tool.
   * Subscribers of the registry hear of each
   * (a server turns them into `notifications/tools/list_changed`). Versions already loaded must be
   * unchanged on disk.
   *
   * @returns How many tools were looked at.
   * @throws {CorpusError} When a file on disk is bad (a server record included), or a loaded
   *   version was rewritten.
   */
  refresh(): number {
    // A bad server record does not hold back the tools (nor a bad tool the servers): both are
    // taken in, then the first error is thrown. An edited estate.json changes the estate's
    // compatibility mode from now on (a bad one keeps the mode in force, and is thrown too).
    let serversFailed: unknown;
    try {
      const config = this.#readConfig();
      this.#config = config;
      this.#registry.setCompatibility(config.compatibility ?? "backward");
    } catch (e) {
      serversFailed = e;
    }
    try {
      this.#syncServers();
    } catch (e) {
      serversFailed ??= e;
    }
    const tools = path.join(this.dir, "tools");
    const names = fs.existsSync(tools)
      ? fs.readdirSync(tools, { withFileTypes: true })
        .filter((e) => e.isDirectory() && !e.name.startsWith(".")).map((e) => e.name).sort()
      : [];
    for (const name of names) {
      const dir = this.#toolDir(name);
      const { catchUp } = this.#sync(dir, name, true);
      catchUp();
    }
    if (serversFailed !== undefined) throw serversFailed;
    return names.length;
  }

  /**
   * A tool's stored calls, streamed from its `calls.jsonl` (see {@linkcode readCallsFile}):
   * memory stays flat however large the file. A torn last line is not read; `onTornLine` hears
   * of it.
   *
   * @param name The tool.
   * @returns The calls, in file order; none when the tool has no `calls.jsonl`.
   * @throws {CorpusError} While iterating, naming the file and line of a bad line; or when
   *   `calls.jsonl` is a symbolic link.
   * @throws {Error} When `name` is not a tool name.
   */
  readCalls(name: string): Generator<StoredCall> {
    const options = this.#onTornLine ? { onTornLine: this.#onTornLine } : {};
    return readCallsFile(path.join(this.#toolDir(name), CALLS_FILE), options);
  }

  /**
   * A tool's stored calls appended after `cursor`, read from `calls.jsonl` at the byte where the
   * last read stopped (never the file from the start), at most `limit` of them. Only whole lines
   * (ending with a newline) are consumed, each checked as {@linkcode readCallsFile} checks it; an
   * unterminated last line (an append in progress, a torn write) is left for a later read. The
   * cursor names the file (device and inode), the offset and the bytes before it: when the file
   * was replaced, rewritten or cut short, or the cursor is not this store's, the calls are read
   * from the start with `restarted`. A missing file has no calls. Never follows a symbolic link.
   *
   * @param name The tool.
   * @param cursor The last read's `cursor`; undefined to read from the start.
   * @param options The batch size (default 10,000).
   * @returns The calls, the cursor to read on from, and whether it restarted or more follow.
   * @throws {CorpusError} Naming the file, line and byte offset of a bad complete line; or when
   *   `calls.jsonl` is a symbolic link.
   * @throws {RangeError} When `limit` is not a positive integer.
   * @throws {Error} When `name` is not a tool name.
   *
   * @example
   * ```ts
   * import { EstateDir } from "@tool-estate/core/store";
   * import assert from "node:assert/strict";
   * import fs from "node:fs";
   *
   * fs.mkdirSync(".scratch", { recursive: true });
   * const dir = fs.mkdtempSync(".scratch/calls-after-");
   * const estate = EstateDir.open(dir);
   * estate.publish({
   *   name: "payments.lookup", version: "1.0.0", title: "Look up a payment",
   *   description: "Returns a wholesale payment's status by reference. Reads the payments system of record.",
   *   inputSchema: { type: "object", properties: { reference: { type: "string" } }, required: ["reference"] },
   *   sideEffect: "read", requiredScopes: ["payments:read"], dataClassification: "confidential",
   *   tenants: ["wholesale"], owner: "payments-platform",
   * });
   * const at = "2026-01-05T09:00:00Z";
   * estate.appendCalls("payments.lookup", [{ version: "1.0.0", arguments: { reference: "PMT-1" }, principal: "ops-bot", at }]);
   * let counted = 0;
   * const first = estate.callsAfter("payments.lookup");
   * counted += first.calls.length;
   * estate.appendCalls("payments.lookup", [{ version: "1.0.0", arguments: { reference: "PMT-2" }, principal: "teller", at }]);
   * const next = estate.callsAfter("payments.lookup", first.cursor); // only the call appended since
   * counted += next.calls.length;
   * assert.deepEqual(next.calls.map((c) => c.principal), ["teller"]);
   * assert.equal(counted, 2);
   * fs.rmSync(dir, { recursive: true });
   * ```
   */
  callsAfter(name: string, cursor?: string, options: CallsAfterOptions = {}): CallsAfter {
    return readCallsAfter(path.join(this.#toolDir(name), CALLS_FILE), cursor, options);
  }

  /**
   * Appends stored calls to a tool's `calls.jsonl` durably, under the tool's lock: whole lines in
   * one write, then fsync. An append that fails (a full disk, an I/O error) truncates the file back
   * to its length before the write, so it is left as it was. A torn last line (a write that never
   * finished) is removed first, and `onTornLine` hears of it; a last line that is a whole stored
   * call but lacks its newline (a hand-written file) gets one. `calls.jsonl` is never followed
   * through a symbolic link.
   *
   * @param name The tool (it must have a folder in the estate).
   * @param calls The calls.
   * @returns How many calls were appended.
   * @throws {TypeError} When a call is not a stored call, naming it and the field, before
   *   anything is written.
   * @throws {CorpusError} When `calls.jsonl` or the tool's folder is a symbolic link.
   * @throws {Error} When the tool has no folder, or its lock is not obtained in time; when the
   *   write fails, saying that the file is left as it was, with the failure's `code` (`ENOSPC`).
   */
  appendCalls(name: string, calls: Iterable<StoredCall>): number {
    const list = [...calls];
    const lines = list.map((call, i) => {
      const problems = storedCallProblems(call);
      if (problems.length) {
        throw new TypeError(
          `Cannot append call ${i + 1} to ${name}: ${problems.join("; ")}`,
        );
      }
      return storedCallLine(call) + "\n";
    });
    if (lines.length === 0) return 0;
    const dir = this.#writableToolDir(name);
    if (!fs.existsSync(dir)) {
      throw new Error(
        `Cannot append calls to ${name}: ${dir} does not exist; publish the tool first`,
      );
    }
    const file = path.join(dir, CALLS_FILE);
    const options = this.#onTornLine ? { onTornLine: this.#onTornLine } : {};
    withLock(dir, `append calls to ${name}`, this.#lock, () => {
      appendToCallsFile(file, lines.join(""), options);
    });
    return list.length;
  }

  /**
   * Registers a server the estate did not write (see `ToolRegistry.registerServer`): decided
   * against the records on disk, under the lock of `servers/`, and written to `servers/<id>.json`
   * atomically (a new record is created exclusively; an update replaces the file). Then the
   * registry's servers become those on disk, and subscribers hear of each one registered or
   * updated (other processes' changes included). The same record again writes nothing.
   *
   * @param recordOrFile The record, or the path of a JSON file holding it.
   * @param options `update: true` to replace a different record registered under its id.
   * @returns What happened, with the record's file.
   * @throws {ServerRegistrationError} When the record lists a tool another server's record on disk
   *   lists, or differs from the record on disk under its id and is not an update.
   * @throws {ServerRecordError} When the record object is not a valid record.
   * @throws {CorpusError} When the file is not JSON or not a valid record; when a record on disk
   *   is bad, or `servers/` or a record file is a symbolic link.
   * @throws {Error} When the lock of `servers/` is not obtained in time, naming who holds it.
   *
   * @example
   * ```ts
   * import { EstateDir } from "@tool-estate/core/store";
   * import assert from "node:assert/strict";
   * import fs from "node:fs";
   *
   * fs.mkdirSync(".scratch", { recursive: true });
   * const dir = fs.mkdtempSync(".scratch/estate-");
   * const estate = EstateDir.open(dir);
   * const result = estate.registerServer({
   *   id: "crm-mcp", owner: "crm-team", description: "The CRM team's MCP server.",
   *   upstream: { kind: "http", url: "https://crm.internal/mcp", identity: { spiffeId: "spiffe://bank.example/crm" } },
   *   tools: ["crm.customer.get"],
   * });
   * assert.equal(result.status, "registered");
   * assert.equal(EstateDir.open(dir).registry.serverFor("crm.customer.get")?.id, "crm-mcp");
   * fs.rmSync(dir, { recursive: true });
   * ```
   */
  registerServer(
    recordOrFile: ServerRecord | string,
    options: RegisterServerOptions = {},
  ): EstateServerResult {
    const record = typeof recordOrFile === "string"
      ? parseServerFile(fs.readFileSync(recordOrFile, "utf8"), recordOrFile)
      : parseServerRecord(
        recordOrFile,
        (recordOrFile as { id?: unknown })?.id as string,
      );
    const dir = path.join(this.dir, SERVERS_DIR);
    refuseSymlink(dir);
    const file = path.join(dir, `${record.id}.json`);
    ensureDir(dir);
    const { result, disk } = withLock(
      dir,
      `register server ${record.id}`,
      this.#lock,
      () => {
        removeLeftovers(dir);
        const disk = loadServerDir(dir);
        // Decide against the records on disk, with the registry's rules.
        const scratch = new ServerDirectory();
        for (const s of disk) scratch.register(s.record);
        const result = scratch.register(record, options);
        if (result.status !== "unchanged") {
          const text = JSON.stringify(result.record, null, 2) + "\n";
          if (result.status === "updated") replaceAtomic(file, text);
          else if (!createExclusive(file, text)) {
            throw new CorpusError(
              file,
              "appeared while the lock of servers/ was held",
            );
          }
        }
        return { result, disk: scratch.servers() };
      },
    );
    this.#registry.restoreServers(disk, { emit: true });
    return { ...result, file };
  }

  /**
   * Appends drift records to `drift.jsonl` (see {@linkcode appendDriftLog}): the gateway's log
   * of what it observed of upstream servers.
   *
   * @param records The records, oldest first.
   * @returns How many were appended.
   * @throws {TypeError} When a record is not a drift record, before anything is written.
   * @throws {Error} As {@linkcode appendDriftLog} does.
   */
  appendDrift(records: Iterable<DriftRecord>): number {
    const list = [...records];
    const n = appendDriftLog(path.join(this.dir, DRIFT_FILE), list, {
      lockTimeoutMs: this.#lock.timeoutMs,
      ...(this.#onTornLine ? { onTornLine: this.#onTornLine } : {}),
    });
    this.appendAudit(list.map(driftAuditEvent));
    return n;
  }

  /**
   * Reads `drift.jsonl` lazily, in file order (see {@linkcode readDriftLog}).
   *
   * @returns The records; none when there is no log.
   * @throws {CorpusError} While iterating, naming the file and line of a bad line.
   */
  readDrift(): Generator<DriftRecord> {
    return readDriftLog(
      path.join(this.dir, DRIFT_FILE),
      this.#onTornLine ? { onTornLine: this.#onTornLine } : {},
    );
  }

  /**
   * Tells `listener` when a file of the estate changes (`fs.watch`, recursive), by whichever
   * process: `principals` for `principals.json`, `servers` under `servers/`, `tools` (with the
   * tool's name) under `tools/`, `unknown` otherwise. The listener calls `refresh()` or
   * `refreshPrincipals()`; events come as the platform reports them (several for one write).
   *
   * @param listener Hears of each change.
   * @returns The watch; `close()` stops it.
   * @throws {Error} When the platform cannot watch the folder.
   */
  watch(listener: (change: StoreChange) => void): StoreWatch {
    const watcher = fs.watch(
      this.dir,
      { recursive: true },
      (_event, filename) => {
        const rel = typeof filename === "string" ? filename.split(path.sep) : [];
        if (RUNTIME_DIRS.has(rel[0])) return; // runtime state, nothing to reload
        if (rel[0] === PROPOSALS_DIR) return; // drafts: nothing a reader of the estate loads
        if (AUDIT_FILES.has(rel[0])) return; // the audit log: nothing a reader of the estate loads
        if (rel[0] === PRINCIPALS_FILE) listener({ kind: "principals" });
        else if (rel[0] === SERVERS_DIR) listener({ kind: "servers" });
        else if (rel[0] === TOOLS_DIR && rel[1]) {
          listener({
            kind: "tools",
            name: rel[1],
          });
        } else listener({ kind: "unknown" });
      },
    );
    return { close: () => watcher.close() };
  }

  /**
   * The proposals in `proposals/<id>.json`, oldest first.
   *
   * @returns The proposals.
   * @throws {CorpusError} Naming a file that is not a proposal.
   */
  proposals(): Proposal[] {
    return readProposalDir(this.dir);
  }

  /**
   * Records an event on a proposal (see {@linkcode EstateStore.recordProposal}): under the lock of
   * `proposals/`, decided against the files as they are now, each changed record replaced
   * atomically. The one place a folder estate's proposals, approvals and rejections happen.
   *
   * @param event The event.
   * @returns The records written.
   * @throws {ProposalError} When the event is refused.
   */
  recordProposal(event: ProposalEvent): Proposal[] {
    const changed = recordInProposalDir(this.dir, event, this.#readConfig().approval, this.#lock);
    this.appendAudit([proposalAuditEvent(event, changed)]);
    return changed;
  }

  /**
   * Appends events to `audit.jsonl` (see {@linkcode EstateStore.appendAudit}): under the lock of
   * `.audit-lock/`, the head read from the end of the file, the records sealed after it and
   * written as whole lines in one durable append.
   *
   * @param events The events, in order.
   * @returns The records appended.
   * @throws {TypeError} When an event is not an audit event, before anything is written.
   * @throws {CorpusError} When the log's last line is not an audit record.
   */
  appendAudit(events: Iterable<AuditEvent>): AuditRecord[] {
    return appendAuditFile(this.dir, events, {
      lock: this.#lock,
      now: this.#now,
      ...(this.#onTornLine ? { onTornLine: this.#onTornLine } : {}),
    });
  }

  /**
   * Reads `audit.jsonl` lazily, in chain order (see {@linkcode EstateStore.readAudit}).
   *
   * @param filter Which records.
   * @returns The records.
   * @throws {CorpusError} While iterating, naming the line that is not an audit record.
   */
  readAudit(filter?: AuditFilter): Generator<AuditRecord> {
    return readAuditFile(
      this.dir,
      filter,
      this.#onTornLine ? { onTornLine: this.#onTornLine } : {},
    );
  }

  /**
   * Where `audit.jsonl` ends (see {@linkcode EstateStore.auditHead}).
   *
   * @returns The head.
   */
  auditHead(): AuditHead {
    return auditFileHead(this.dir);
  }

  /**
   * Appends a checkpoint to `audit-checkpoints.jsonl` (see
   * {@linkcode EstateStore.appendAuditCheckpoint}).
   *
   * @param checkpoint The checkpoint.
   */
  appendAuditCheckpoint(checkpoint: AuditCheckpoint): void {
    appendCheckpointFile(this.dir, checkpoint, this.#lock);
  }

  /**
   * The checkpoints in `audit-checkpoints.jsonl`, oldest first.
   *
   * @returns The checkpoints.
   */
  auditCheckpoints(): AuditCheckpoint[] {
    return readCheckpointFile(this.dir);
  }

  /**
   * The pending calls in `.pending-calls/` (see {@linkcode EstateStore.pendingCalls}).
   *
   * @returns The store of pending calls.
   */
  pendingCalls(): PendingCallStore {
    return this.#pendingCalls ??= new PendingCallDir(this.dir, this.#lock);
  }

  /**
   * The tasks in `.tasks/` (see {@linkcode EstateStore.tasks}).
   *
   * @returns The store of tasks.
   */
  tasks(): TaskStore {
    return this.#tasks ??= new TaskDir(this.dir, this.#lock);
  }

  /** Nothing to release: a folder estate holds no connection (for {@linkcode EstateStore}). */
  close(): void {}

  /**
   * Nothing to answer ahead: this store's registry replays its stored calls by itself.
   *
   * @returns undefined.
   */
  replayFor(_spec: ToolSpec): undefined {
    return undefined;
  }

  /**
   * What retiring a version would do under the retirement rules (see
   * `ToolRegistry.planRetirement`), against the stored calls in the folder.
   *
   * @returns The plan.
   */
  planRetirement(
    name: string,
    version: string,
    options: RetirementOptions = {},
  ): RetirementPlan {
    return this.registry.planRetirement(name, version, options);
  }

  /** The server records on disk. */
  #readServers(): DiskServer[] {
    const dir = path.join(this.dir, SERVERS_DIR);
    refuseSymlink(dir);
    return loadServerDir(dir);
  }

  /** Replaces the registry's servers with those on disk; subscribers hear of the changes. */
  #syncServers(): void {
    this.#registry.restoreServers(this.#readServers().map((s) => s.record), {
      emit: true,
    });
  }

  /** A tool's folder, refusing names that are not tool names (`..` would leave the estate). */
  #toolDir(name: string): string {
    if (
      typeof name !== "string" || !TOOL_NAME.test(name) || name === "." ||
      name === ".."
    ) {
      throw new Error(
        `Invalid tool name ${
          JSON.stringify(name)
        }: 1-128 characters of A-Z a-z 0-9 _ . - (not . or ..)`,
      );
    }
    return path.join(this.dir, TOOLS_DIR, name);
  }

  /** A tool's folder to write in: neither it nor `tools/` may be a symbolic link. */
  #writableToolDir(name: string): string {
    const dir = this.#toolDir(name);
    refuseSymlink(path.join(this.dir, TOOLS_DIR));
    refuseSymlink(dir);
    return dir;
  }

  /**
   * Runs a write with the registry's clock reading one moment, taken from this estate's clock when
   * first read (so a write reads the clock once, however often the registry looks at it).
   */
  #atOneMoment<T>(fn: (now: () => Date) => T): T {
    let at: Date | undefined;
    const now = () => at ??= this.#now();
    const outer = this.#pinned;
    this.#pinned = now;
    try {
      return fn(now);
    } finally {
      this.#pinned = outer;
    }
  }

  /** Runs a registry change with the clock pinned to `at` (and no replay). */
  #mirror<T>(at: Date, change: () => T): T {
    this.#pinned = () => at;
    this.#replay = false;
    try {
      return change();
    } finally {
      this.#pinned = undefined;
      this.#replay = true;
    }
  }

  /**
   * Brings the registry up to date with a tool's folder (call under the tool's lock): versions
   * published elsewhere are restored at once (silently: `restore` emits no event). Lifecycle
   * transitions made elsewhere are returned as `catchUp`, to run after the lock is released: they
   * go through the registry's `deprecate`/`retire` with their recorded times, and their events
   * reach subscribers, who may then write to the estate themselves without deadlocking on the lock.
   */
  #sync(
    dir: string,
    name: string,
    emit = false,
  ): { disk: DiskTool; catchUp: () => void } {
    const disk = fs.existsSync(dir)
      ? loadToolDir(dir, name)
      : { name, dir, versions: [], lifecycle: {}, lifecycleComplete: true };
    const known = new Map(
      this.#registry.versions(name).map((r) => [r.spec.version, r]),
    );
    const pending: [string, LifecycleEntry][] = [];
    for (const v of disk.versions) {
      try {
        this.#registry.restore({ spec: v.spec, history: v.history }, { emit });
      } catch (e) {
        if (!(e instanceof PublishError)) throw e;
        throw new CorpusError(
          v.file,
          `differs from the ${name}@${v.spec.version} loaded before; a published version is never rewritten (restore the file from git)`,
        );
      }
      const had = known.get(v.spec.version)?.history.length ?? v.history.length;
      for (const entry of v.history.slice(had)) {
        pending.push([v.spec.version, entry]);
      }
    }
    const catchUp = () => {
      for (const [version, entry] of pending) {
        this.#replayEntry(name, version, entry);
      }
    };
    return { disk, catchUp };
  }

  #replayEntry(name: string, version: string, entry: LifecycleEntry): void {
    const registry = this.#registry;
    this.#mirror(instant(entry.at), () => {
      if (entry.state === "deprecated") {
        const options: DeprecateOptions = {};
        if (entry.reason !== undefined) options.reason = entry.reason;
        if (entry.retireAfter !== undefined) {
          options.retireAfter = entry.retireAfter;
        }
        registry.deprecate(name, version, options);
      } else if (entry.state === "retired") {
        registry.retire(
          name,
          version,
          entry.reason === undefined ? {} : { reason: entry.reason },
        );
      }
    });
  }

  /**
   * Deprecate or retire: decided by the registry's rules against the disk (`decide`, on a registry
   * holding the tool as on disk, with its stored calls and the time to record), written — with
   * any retirement due on its date — and then mirrored in memory (`apply`).
   */
  #transition(
    name: string,
    version: string,
    verb: "deprecate" | "retire",
    decide: (registry: ToolRegistry) => VersionRecord,
    apply: (registry: ToolRegistry) => VersionRecord,
  ): VersionRecord {
    const dir = this.#writableToolDir(name);
    if (!fs.existsSync(dir)) {
      // Let the registry word the refusal: the version is not published.
      return decide(new ToolRegistry());
    }
    let catchUp = () => {};
    let at: Date;
    try {
      at = withLock(
        dir,
        `${verb} ${name}@${version}`,
        this.#lock,
        () =>
          this.#atOneMoment((now) => {
            removeLeftovers(dir);
            const { disk, catchUp: pending } = this.#sync(dir, name);
            catchUp = pending;
            // Decide on a copy holding the tool as on disk, with the time to record.
            const at = now();
            const scratch = new ToolRegistry({
              now: () => at,
              storedCalls: (tool) => this.readCalls(tool),
            });
            for (const v of disk.versions) {
              scratch.restore({ spec: v.spec, history: v.history });
            }
            decide(scratch);
            // Every version as the scratch registry has it now: the change, and any retirement due.
            const lifecycle: Lifecycle = {};
            for (const r of scratch.versions(name)) {
              lifecycle[r.spec.version] = r.history;
            }
            replaceAtomic(
              path.join(dir, LIFECYCLE_FILE),
              formatLifecycle(lifecycle),
            );
            return at;
          }),
      );
    } finally {
      catchUp();
    }
    return this.#mirror(at, () => apply(this.#registry));
  }
}
