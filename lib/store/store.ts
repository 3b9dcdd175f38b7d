/**
 * The store as an interface: what the registry, `estate serve`, the CLI and the editor need of
 * wherever the estate is kept. {@linkcode EstateDir} (a folder reviewed in git, the default)
 * implements it synchronously; a database store implements it with promises. Callers `await`
 * every result (a plain value awaits to itself) and iterate streams with `for await`.
 *
 * @module
 */
import type { VersionRecord } from "../estate/lifecycle.ts";
import type { PlanOptions, PublishResult } from "../estate/publish_plan.ts";
import type { ToolRegistry } from "../estate/registry.ts";
import type { DriftRecord } from "../estate/drift.ts";
import type { ServerRecord } from "../estate/server_record.ts";
import type { RegisterServerOptions, RegisterServerResult } from "../estate/servers.ts";
import type { StoredCall } from "../estate/replay.ts";
import type { ToolSpec } from "../estate/spec.ts";
import type { QuotaTake } from "../estate/limits.ts";
import type { EstateConfig } from "../estate/estate_config.ts";
import type {
  RetirementOptions,
  RetirementPlan,
  RetirementRules,
} from "../estate/retirement_plan.ts";
import type { EstatePrincipal } from "./principals.ts";
import type { Proposal, ProposalEvent } from "../estate/proposal.ts";
import type { PendingCallStore } from "../estate/call_approvals.ts";
import type { TaskStore } from "../estate/tasks.ts";
import type { AuditEvent, AuditFilter, AuditHead, AuditRecord } from "../estate/audit.ts";
import type { AuditCheckpoint } from "../estate/audit_checkpoint.ts";
import type {
  IdempotencyClaim,
  IdempotencyEntry,
  IdempotencyOutcome,
  IdempotencyRef,
} from "../estate/idempotency.ts";

/** A value, or a promise of it: the folder store answers at once, a database store later. */
export type Awaitable<T> = T | Promise<T>;

/** A stream of values: a folder store's generator, or a database store's cursor. */
export type Stream<T> = Iterable<T> | AsyncIterable<T>;

/** Options for {@linkcode EstateStore.deprecate}. */
export interface StoreDeprecateOptions {
  /** Why. */
  reason?: string;
  /** The calendar date (`YYYY-MM-DD`, after today) after which the version retires. */
  retireAfter?: string;
}

/** Options for {@linkcode EstateStore.retire}. */
export interface StoreRetireOptions {
  /** Why (required for an early retirement). */
  reason?: string;
  /** Apply the retirement rules with these exemptions, against the tool as stored now. */
  rules?: RetirementRules;
}

/** What a {@linkcode EstateStore.watch} listener hears: something changed in the store. */
export interface StoreChange {
  /**
   * What changed: `tools` (a version or a lifecycle), `servers`, `principals`, `settings` (a
   * database estate's `estate.json` or `rules.json`; `name` is the file), or `unknown` (the
   * store cannot tell: a folder store hears of files, and a reconnected database store may have
   * missed notifications). A listener reloads what it needs: `refresh()` (which takes in the
   * settings too), `refreshPrincipals()`.
   */
  kind: "tools" | "servers" | "principals" | "settings" | "unknown";
  /** The tool, server or settings file concerned, when known. */
  name?: string;
  /**
   * The store's change feed was lost and is back (a database connection dropped): changes may
   * have been missed, so the listener reloads everything (`kind` is `unknown`).
   */
  reconnected?: boolean;
}

/** Options for {@linkcode EstateStore.callsAfter}. */
export interface CallsAfterOptions {
  /** The most calls in one batch (a positive integer). Default 10,000. */
  limit?: number;
}

/** Stored calls read past a cursor (see {@linkcode EstateStore.callsAfter}). */
export interface CallsAfter {
  /** The calls appended after the cursor, oldest first (at most `limit`). */
  calls: StoredCall[];
  /** Where the next read starts: pass it back to read only what was appended since. */
  cursor: string;
  /**
   * True when the cursor given no longer fits what is stored (the file was rewritten or replaced,
   * a cursor of another store): the calls are read from the start, so a reader drops what it
   * counted before.
   */
  restarted: boolean;
  /** True when the batch stopped at `limit` and more calls follow: read again with `cursor`. */
  more: boolean;
}

/** A running watch: `close()` stops it. */
export interface StoreWatch {
  /** Stops watching; the listener hears nothing more. */
  close(): Awaitable<void>;
}

/**
 * Where an estate is kept: tool versions (immutable once published), their lifecycles, stored
 * calls, server records, drift records and principals; loaded into a {@linkcode ToolRegistry}
 * that readers consult in memory.
 *
 * Every write decides against the store as it is now (another process may have written since
 * this one loaded), with exactly the registry's rules and refusals, and only then changes the
 * in-memory registry, whose subscribers hear of it. Changes other processes made arrive with
 * `refresh()` (or `reload()`), which a `watch()` listener calls.
 */
export interface EstateStore {
  /** The estate as a registry: for resolving, discovering, planning and subscribing. */
  readonly registry: ToolRegistry;
  /** Loads the estate again into a new registry (subscribers are not carried over). */
  reload(): Awaitable<ToolRegistry>;
  /** Takes in what other processes changed, without a reload; subscribers hear of each change. */
  refresh(): Awaitable<number>;
  /** The principals, in stored order (copies). */
  principals(): EstatePrincipal[];
  /** One principal, or undefined. */
  principal(id: string): EstatePrincipal | undefined;
  /** Reads the principals again; true when they changed. A bad set keeps the last good one. */
  refreshPrincipals(): Awaitable<boolean>;
  /**
   * Publishes a version: every guard (classification, replay of the major line's stored calls,
   * immutability) decided against the store as it is now, atomically. An identical republish is
   * `already-published`; of two writers publishing the same version at once exactly one wins.
   * The decision is made once: the store plans against itself and its registry adopts that plan
   * (`ToolRegistry.adopt`). Parse the candidate once, at the edge, with `keepToolSpec`: a spec
   * kept already is not checked again.
   */
  publish(spec: ToolSpec): Awaitable<PublishResult>;
  /** Deprecates an active version. */
  deprecate(
    name: string,
    version: string,
    options?: StoreDeprecateOptions,
  ): Awaitable<VersionRecord>;
  /** Retires a version. */
  retire(
    name: string,
    version: string,
    options?: StoreRetireOptions,
  ): Awaitable<VersionRecord>;
  /**
   * The stored-call replay that planning `spec` needs, answered against the store, for
   * `registry.plan(spec, {replay})` and `checkDraft(spec, registry, {replay})`: undefined when the
   * registry replays by itself (the folder store), an answer streamed from the database first
   * otherwise.
   */
  replayFor(spec: ToolSpec): Awaitable<PlanOptions["replay"]>;
  /**
   * What retiring a version would do under the retirement rules, without retiring it (who calls
   * it, from the stored calls, and which rules refuse it), as `registry.planRetirement` does.
   */
  planRetirement(
    name: string,
    version: string,
    options?: RetirementOptions,
  ): Awaitable<RetirementPlan>;
  /** A tool's stored calls, oldest first, streamed (memory stays flat). */
  readCalls(name: string): Stream<StoredCall>;
  /**
   * A tool's stored calls appended after `cursor` (from the start without one), in batches: for a
   * reader that keeps a running aggregate (the console's call counts) and reads only what is new.
   * The cursor is opaque, and belongs to the store and tool that gave it; any other (or one that
   * no longer fits what is stored) reads from the start, with `restarted`.
   *
   * @param name The tool.
   * @param cursor Where the last read ended (its `cursor`); undefined to read from the start.
   * @param options The batch size.
   * @returns The calls, the cursor to read on from, and whether it restarted or more follow.
   * @throws {RangeError} When `limit` is not a positive integer.
   */
  callsAfter(name: string, cursor?: string, options?: CallsAfterOptions): Awaitable<CallsAfter>;
  /** Appends stored calls to a published tool; how many. */
  appendCalls(name: string, calls: Iterable<StoredCall>): Awaitable<number>;
  /** Registers (or with `update`, replaces) a server record the estate did not write. */
  registerServer(
    recordOrFile: ServerRecord | string,
    options?: RegisterServerOptions,
  ): Awaitable<RegisterServerResult>;
  /** Appends drift records (what the gateway observed of upstream servers); how many. */
  appendDrift(records: Iterable<DriftRecord>): Awaitable<number>;
  /** The drift records, oldest first, streamed. */
  readDrift(): Stream<DriftRecord>;
  /** Tells `listener` when the store changes (by any writer); it then reloads what it needs. */
  watch(listener: (change: StoreChange) => void): Awaitable<StoreWatch>;
  /**
   * A settings file's text (`estate.json`, `rules.json`: `ESTATE_FILES`), exactly as the estate
   * keeps it: the folder store's file `<dir>/<name>`, a database store's as `estate settings set`
   * stored it. For readers that take a setting in themselves, such as `estate check` its rules.
   *
   * @param name The file's name.
   * @returns The text; undefined when the estate has no such file, or `name` is not a settings
   *   file's.
   */
  estateFile(name: string): Awaitable<string | undefined>;
  /**
   * The estate's settings (`estate.json`) as the last `open()`, `reload()` or `refresh()` took
   * them in: what a server reads on each call (the call limits) without a read of the store.
   *
   * @returns The settings; `{}` when the estate has none.
   */
  settings(): EstateConfig;
  /**
   * Claims a 2026-07-28 `requestState`'s single use for every process sharing the store: true for
   * the first claim of the nonce, false for any later one, by any writer, until the state lapses.
   * Replicas that share the sealing key answer each other's retries, and none runs a confirmed
   * call twice (`McpServerOptions.spentStates`).
   *
   * @param nonce The state's nonce.
   * @param expires When the state lapses (ms since the epoch).
   * @returns Whether this is the first claim.
   */
  claimRequestState(nonce: string, expires: number): Awaitable<boolean>;
  /**
   * Counts one call against the estate's call limits for every process sharing the store, all or
   * none (a `QuotaCounter` whose counts replicas share): when any counter is at its max,
   * nothing is counted. Between them, the replicas never admit more than a limit's `calls` in
   * one window.
   *
   * @param takes The counters, in the order they are checked.
   * @param now The time (ms since the epoch).
   * @returns -1 when every take was counted; else the index of the first counter at its max.
   */
  takeQuota(takes: readonly QuotaTake[], now: number): Awaitable<number>;
  /**
   * Claims a `tools/call`'s idempotency key for every process sharing the store (see
   * `IdempotencyStore.claim`): undefined when this claim holds it now (there was none, or the
   * entry had lapsed at `claim.startedAt`); otherwise the live entry, unchanged. Of concurrent
   * claims of one key by any writers, exactly one gets undefined.
   *
   * @param claim The key, its principal and binding, the claimant, and when it lapses.
   * @returns Undefined when claimed; the entry that holds the key otherwise.
   */
  claimIdempotencyKey(claim: IdempotencyClaim): Awaitable<IdempotencyEntry | undefined>;
  /**
   * Stores the outcome of a claimed call under its key.
   *
   * @param ref The key, its principal, and the claimant.
   * @param outcome The result or the JSON-RPC error.
   * @returns False when `ref.owner` does not hold the key (it lapsed and was claimed again).
   */
  finishIdempotencyKey(
    ref: IdempotencyRef & { owner: string },
    outcome: IdempotencyOutcome,
  ): Awaitable<boolean>;
  /**
   * Drops a running claim `ref.owner` holds, storing nothing (a round that asked for input).
   *
   * @param ref The key, its principal, and the claimant.
   */
  releaseIdempotencyKey(ref: IdempotencyRef & { owner: string }): Awaitable<void>;
  /**
   * A key's live entry.
   *
   * @param ref The key and its principal.
   * @param now The time (ms since the epoch): an entry lapsed by then is none.
   * @returns The entry, or undefined.
   */
  readIdempotencyKey(ref: IdempotencyRef, now: number): Awaitable<IdempotencyEntry | undefined>;
  /**
   * The estate's proposals (drafts awaiting or past a second owner's approval), oldest first.
   *
   * @returns Copies.
   */
  proposals(): Awaitable<Proposal[]>;
  /**
   * Records an event on a proposal — a proposal, an approval, a rejection, a publication: the one
   * place where each happens, decided by `proposalEvent` against the tool's proposals as the store
   * has them now (under the folder's lock, or in one transaction) with the estate's approval
   * policy (`estate.json`'s `approval`), and then written. An audit log hooks here.
   *
   * @param event The event.
   * @returns The records written (a new proposal, and those it superseded; or the one changed).
   * @throws {ProposalError} When the event is refused (the proposer approving their own, someone
   *   who may not approve, a proposal no longer pending, bytes already proposed).
   */
  recordProposal(event: ProposalEvent): Awaitable<Proposal[]>;
  /**
   * The estate's pending calls (`tools/call`s held for a second person's decision, see
   * `callApprovals` in `estate.json`): kept where every replica reads them, so that any replica
   * answers for them and exactly one runs an approved call.
   *
   * @returns The store of pending calls.
   */
  pendingCalls(): PendingCallStore;
  /**
   * The estate's tasks (`tools/call`s answered with a handle the client polls, MCP's tasks): kept
   * where every replica reads them, so that a task made on one replica is answered for by any
   * (`tasks/get`, `tasks/result`), survives a restart, and can be finished from any
   * (`finishTask`). `estate serve` gives it to its server (`McpServerOptions.tasks.store`).
   *
   * @returns The store of tasks.
   */
  tasks(): TaskStore;
  /**
   * Appends events to the estate's audit log, all or none: each gets the next `seq`, its
   * predecessor's hash as `prev`, and its own hash (see `sealAudit`), decided against the log as
   * it is now — under the folder's lock, or (PostgreSQL) inserted after the head it read, all or
   * none, the loser of a race reading the head again — so every writer, on any replica, extends
   * one chain. The store appends the events it performs itself
   * (publish, deprecate, retire, proposals, drift); others (call decisions, pending calls) append
   * theirs here. Details are recorded without credentials (`normalizeAuditEvent`).
   *
   * @param events The events, in order.
   * @returns The records appended.
   * @throws {TypeError} When an event is not an audit event, before anything is written.
   */
  appendAudit(events: Iterable<AuditEvent>): Awaitable<AuditRecord[]>;
  /**
   * The audit log in chain order, streamed; with a filter, only the records that match it (a
   * filtered read cannot be verified: verify the whole log).
   *
   * @param filter Which records.
   * @returns The records.
   */
  readAudit(filter?: AuditFilter): Stream<AuditRecord>;
  /**
   * Where the audit log ends now.
   *
   * @returns The last record's `seq` and `hash` (`EMPTY_AUDIT_HEAD` when empty).
   */
  auditHead(): Awaitable<AuditHead>;
  /**
   * Keeps a signed checkpoint of the audit log (see `signAuditCheckpoint`).
   *
   * @param checkpoint The checkpoint.
   * @throws {TypeError} When it is not a checkpoint.
   */
  appendAuditCheckpoint(checkpoint: AuditCheckpoint): Awaitable<void>;
  /**
   * The checkpoints kept, oldest first.
   *
   * @returns The checkpoints.
   */
  auditCheckpoints(): Awaitable<AuditCheckpoint[]>;
  /** Releases what the store holds (connections, watchers). */
  close(): Awaitable<void>;
}
