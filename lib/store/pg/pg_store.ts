/**
 * The estate on PostgreSQL: an {@linkcode EstateStore} for several `estate serve` replicas on one
 * database. Tables and guarantees are in `migrations/` (`001_initial.sql`; `002_principals_text.sql`,
 * which keeps the principals as the text of a `principals.json`; `003_estate_files.sql`, which keeps
 * the estate's settings files, `estate.json` and `rules.json`, as their text; `006_idempotency.sql`,
 * which keeps the idempotency keys of `tools/call` and their outcomes).
 *
 * @module
 */
import fs from "node:fs";
import postgres, { type Sql, type TransactionSql } from "postgres";
import type { LifecycleEntry, VersionRecord } from "../../estate/lifecycle.ts";
import { publishError, type ReplayLine, withReplay } from "../../estate/publish_plan.ts";
import type { PublishTrace } from "../../estate/publish_trace.ts";
import { ToolRegistry } from "../../estate/registry.ts";
import { type CompatibilityMode, DEFAULT_COMPATIBILITY } from "../../compat/compatibility_mode.ts";
import type { EstateConfig } from "../../estate/estate_config.ts";
import type { QuotaTake } from "../../estate/limits.ts";
import {
  ESTATE_FILES,
  type EstateFileName,
  estateFileProblems,
  isEstateFileName,
} from "../../estate/estate_files.ts";
import { type DriftRecord, driftRecordProblems } from "../../estate/drift.ts";
import { parseServerRecord, type ServerRecord } from "../../estate/server_record.ts";
import {
  type RegisterServerOptions,
  type RegisterServerResult,
  ServerDirectory,
} from "../../estate/servers.ts";
import {
  noRejections,
  type Rejections,
  replayCallStream,
  type StoredCall,
} from "../../estate/replay.ts";
import type { RetirementOptions, RetirementPlan } from "../../estate/retirement_plan.ts";
import { keepToolSpec, type ToolSpec } from "../../estate/spec.ts";
import {
  type Proposal,
  ProposalError,
  type ProposalEvent,
  proposalEvent,
} from "../../estate/proposal.ts";
import type { PendingCallStore } from "../../estate/call_approvals.ts";
import { pgPendingCalls } from "./_pg_pending_calls.ts";
import type { TaskStore } from "../../estate/tasks.ts";
import { pgTasks } from "./_pg_tasks.ts";
import {
  type AuditEvent,
  type AuditFilter,
  type AuditHead,
  type AuditRecord,
  auditRecordMatches,
  auditRecordText,
  EMPTY_AUDIT_HEAD,
  normalizeAuditEvent,
  sealAudit,
  sha256Hex,
} from "../../estate/audit.ts";
import { type AuditCheckpoint, auditCheckpointProblems } from "../../estate/audit_checkpoint.ts";
import {
  driftAuditEvent,
  lifecycleAuditEvent,
  proposalAuditEvent,
  publishAuditEvent,
} from "../_audit_events.ts";
import type { PlanOptions, PublishResult } from "../../estate/publish_plan.ts";
import { CorpusError } from "../corpus_error.ts";
import { type EstatePrincipal, parsePrincipals } from "../principals.ts";
import { storedCallLine, storedCallProblems } from "../_stored_call.ts";
import { parseVersionFile } from "../_tool_dir.ts";
import { parseServerFile } from "../_server_dir.ts";
import type {
  CallsAfter,
  CallsAfterOptions,
  EstateStore,
  StoreChange,
  StoreDeprecateOptions,
  StoreRetireOptions,
  StoreWatch,
} from "../store.ts";
import { migrate } from "./migrate.ts";
import { callsAfterLimit } from "../_calls_after.ts";
import type {
  IdempotencyClaim,
  IdempotencyEntry,
  IdempotencyOutcome,
  IdempotencyRef,
} from "../../estate/idempotency.ts";

/** The channel changes are announced on (payload: a {@linkcode StoreChange} as JSON). */
export const CHANGE_CHANNEL = "estate_changes";

/** How many rows a cursor fetches at a time. */
const BATCH = 1000;
/** The largest `bigint` (an id column's), for checking a cursor before it reaches a query. */
const MAX_BIGINT = 2n ** 63n - 1n;

/** Options for {@linkcode PgEstateStore.open}. */
export interface PgStoreOptions {
  /** The clock, as for `EstateDir`. Default: `new Date()`. */
  now?: () => Date;
  /** Apply pending migrations on open. Default true. */
  migrate?: boolean;
  /** The connection pool's size. Default 4. */
  max?: number;
  /** Told what a publish does on its way to its decision (see `PublishTrace`). Default: none. */
  trace?: PublishTrace;
  /**
   * Who writes through this store: the principal of the audit records of its publishes,
   * deprecations and retirements. Default: none recorded.
   */
  actor?: string;
}

/** A version as stored: its spec and lifecycle. */
interface StoredTool {
  versions: { spec: ToolSpec; history: LifecycleEntry[] }[];
}

/**
 * Seconds to wait before the next connection attempt after `retries` failed ones: 50 ms doubling
 * up to 1 s, with jitter so that replicas do not reconnect in step. (The driver's default grows to
 * 20 s, and its count of failures is shared by the pool: a replica would notice a restarted
 * database, and hear changes again, up to 20 s late.)
 */
function reconnectDelay(retries: number): number {
  return Math.min(0.05 * 2 ** retries, 1) * (0.75 + Math.random() / 4);
}

/** A clock reading that prints exactly as recorded. */
function instant(iso: string): Date {
  const d = new Date(iso);
  d.toISOString = () => iso;
  return d;
}

/** A key for the advisory lock a tool's writers serialize on. */
function toolKey(name: string): string {
  return `tool:${name}`;
}

/**
 * An estate in a PostgreSQL database, loaded into a {@linkcode ToolRegistry}.
 *
 * Writing: `publish`, `deprecate` and `retire` each run in one transaction holding the tool's
 * advisory lock: the tool is read from the database, decided with the registry's rules (the
 * stored calls of the major line are replayed through a cursor, memory flat), written, and
 * announced with `pg_notify` (delivered at commit). The primary key of `tool_versions` refuses a
 * second row for a version whatever the code does. Only after the commit does the in-memory
 * registry change, so its subscribers see each change made here; other writers' changes arrive
 * with `refresh()`, which a `watch()` listener calls.
 *
 * The in-memory registry replays no stored calls itself (they are in the database): `publish`
 * here replays them; a `registry.plan` made directly does not.
 */
export class PgEstateStore implements EstateStore {
  /** The connection pool. */
  readonly sql: Sql;
  readonly #now: () => Date;
  readonly #trace: PublishTrace | undefined;
  readonly #actor: string | undefined;
  /** The settings files as read last (name → text). */
  #files = new Map<EstateFileName, string>();
  #parsed: { text: string; config: EstateConfig } | undefined;
  #registry: ToolRegistry;
  #principals: EstatePrincipal[] = [];
  #pinned: (() => Date) | undefined;
  #pendingCalls: PendingCallStore | undefined;
  #tasks: TaskStore | undefined;

  private constructor(sql: Sql, options: PgStoreOptions) {
    this.sql = sql;
    this.#now = options.now ?? (() => new Date());
    this.#trace = options.trace;
    this.#actor = options.actor;
    this.#registry = this.#newRegistry();
  }

  /**
   * Connects, applies pending migrations, and loads the estate.
   *
   * @param url A `postgres://` URL.
   * @param options The clock, whether to migrate, the pool size.
   * @returns The store; `close()` it when done.
   * @throws {Error} When the database cannot be reached or a stored record is bad.
   */
  static async open(
    url: string,
    options: PgStoreOptions = {},
  ): Promise<PgEstateStore> {
    const sql = postgres(url, {
      max: options.max ?? 4,
      onnotice: () => {},
      backoff: reconnectDelay,
    });
    try {
      if (options.migrate !== false) await migrate(sql);
      const store = new PgEstateStore(sql, options);
      await store.reload();
      return store;
    } catch (e) {
      await sql.end();
      throw e;
    }
  }

  /**
   * The estate's settings (`estate.json`) as the last `open()`, `reload()` or `refresh()` took
   * them in; `{}` when the estate has none.
   *
   * @returns The settings.
   */
  settings(): EstateConfig {
    const text = this.#files.get("estate.json");
    if (text === undefined) return {};
    if (this.#parsed?.text !== text) {
      this.#parsed = { text, config: JSON.parse(text) as EstateConfig };
    }
    return this.#parsed.config;
  }

  /** The estate's compatibility mode, as the settings files `files` give it. */
  #modeOf(files: Map<EstateFileName, string>): CompatibilityMode {
    const text = files.get("estate.json");
    return text === undefined
      ? DEFAULT_COMPATIBILITY
      : (JSON.parse(text) as EstateConfig).compatibility ??
        DEFAULT_COMPATIBILITY;
  }

  #newRegistry(files: Map<EstateFileName, string> = this.#files): ToolRegistry {
    return new ToolRegistry({
      now: () => this.#pinned ? this.#pinned() : this.#now(),
      compatibility: this.#modeOf(files),
      ...(this.#trace ? { trace: this.#trace } : {}),
    });
  }

  /** The estate as a registry. A `reload()` replaces it. */
  get registry(): ToolRegistry {
    return this.#registry;
  }

  /**
   * Loads the whole estate again into a new registry, its compatibility mode from the stored
   * `estate.json` (none: `backward`).
   *
   * @returns The new registry.
   * @throws {CorpusError} Naming the file, when a stored settings file is not valid.
   */
  async reload(): Promise<ToolRegistry> {
    const [files, principals, servers, tools] = await Promise.all([
      this.#readFiles(this.sql),
      this.#readPrincipals(this.sql),
      this.#readServers(this.sql),
      this.#readTools(this.sql),
    ]);
    const registry = this.#newRegistry(files);
    registry.restoreServers(servers);
    for (const tool of tools.values()) {
      for (const v of tool.versions) registry.restore(v);
    }
    this.#registry = registry;
    this.#files = files;
    this.#principals = principals;
    return registry;
  }

  /**
   * Takes in what other writers changed: the settings files (a new `estate.json` changes the
   * registry's compatibility mode), servers, versions and lifecycle transitions; subscribers hear
   * of each.
   *
   * @returns How many tools were looked at.
   * @throws {CorpusError} Naming the file, when a stored settings file is not valid (nothing is
   *   taken in).
   */
  async refresh(): Promise<number> {
    const [files, servers, tools] = await Promise.all([
      this.#readFiles(this.sql),
      this.#readServers(this.sql),
      this.#readTools(this.sql),
    ]);
    this.#takeFiles(files);
    this.#registry.restoreServers(servers, { emit: true });
    for (
      const [name, tool] of [...tools].sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0)
    ) {
      this.#sync(name, tool, true);
    }
    return tools.size;
  }

  /**
   * A settings file's text, exactly as set (or migrated from a folder).
   *
   * @param name `estate.json` or `rules.json`.
   * @returns The text; undefined when the estate has no such file (or `name` is not one).
   */
  estateFile(name: string): string | undefined {
    return isEstateFileName(name) ? this.#files.get(name) : undefined;
  }

  /**
   * Claims a requestState's single use for every replica on this database (see
   * {@linkcode EstateStore.claimRequestState}): the first insert of the nonce wins; lapsed claims
   * are deleted as claims go (about one in 64).
   *
   * @param nonce The state's nonce.
   * @param expires When the state lapses (ms since the epoch).
   * @returns Whether this is the first claim.
   */
  async claimRequestState(nonce: string, expires: number): Promise<boolean> {
    if (Math.random() < 1 / 64) {
      await this.sql`delete from request_states_spent where expires < now()`;
    }
    const rows = await this.sql`insert into request_states_spent (nonce, expires)
      values (${nonce}, ${new Date(expires)}) on conflict (nonce) do nothing returning nonce`;
    return rows.length === 1;
  }

  /**
   * Counts a call against the estate's call limits for every replica (see
   * {@linkcode EstateStore.takeQuota}): one round trip to `estate_take_quota`, which counts against
   * each counter in one transaction, all or none; ended windows' rows are deleted as takes go
   * (about one in 256).
   *
   * @param takes The counters, in the order they are checked.
   * @returns -1 when every take was counted; else the index of the first counter at its max.
   */
  async takeQuota(takes: readonly QuotaTake[]): Promise<number> {
    if (!takes.length) return -1;
    if (Math.random() < 1 / 256) {
      await this.sql`delete from call_quotas where ends < now()`;
    }
    const [row] = await this.sql`select estate_take_quota(
      ${takes.map((t) => t.key)}::text[],
      ${takes.map((t) => t.max)}::integer[],
      ${takes.map((t) => new Date(t.until).toISOString())}::timestamptz[]) as refused`;
    return Number(row.refused);
  }

  /**
   * Claims an idempotency key for every replica on this database (see
   * {@linkcode EstateStore.claimIdempotencyKey}): the insert of the key's row wins, or replaces a
   * row lapsed at `claim.startedAt`; whoever did not win reads the row that holds the key. Lapsed
   * rows are deleted as claims go (about one in 64).
   *
   * @param claim The key, its principal and binding, the claimant, and when it lapses.
   * @returns Undefined when claimed; the entry that holds the key otherwise.
   */
  async claimIdempotencyKey(claim: IdempotencyClaim): Promise<IdempotencyEntry | undefined> {
    const at = new Date(claim.startedAt);
    if (Math.random() < 1 / 64) {
      await this.sql`delete from idempotency_keys where expires <= ${at}`;
    }
    const { tool, version, digest } = claim.binding;
    // A row released between the insert and the read is claimed again on the next turn.
    for (;;) {
      const won = await this.sql`insert into idempotency_keys
          (principal, key, tool, version, digest, owner, started_at, expires, outcome)
        values (${claim.principal}, ${claim.key}, ${tool}, ${version}, ${digest}, ${claim.owner},
          ${at}, ${new Date(claim.expires)}, null)
        on conflict (principal, key) do update set tool = excluded.tool,
          version = excluded.version, digest = excluded.digest, owner = excluded.owner,
          started_at = excluded.started_at, expires = excluded.expires, outcome = null
          where idempotency_keys.expires <= ${at}
        returning owner`;
      if (won.length === 1) return undefined;
      const held = await this.readIdempotencyKey(claim, claim.startedAt);
      if (held) return held;
    }
  }

  /**
   * Stores a claimed call's outcome (see {@linkcode EstateStore.finishIdempotencyKey}).
   *
   * @param ref The key, its principal, and the claimant.
   * @param outcome The result or the JSON-RPC error.
   * @returns False when `ref.owner` does not hold the key.
   */
  async finishIdempotencyKey(
    ref: IdempotencyRef & { owner: string },
    outcome: IdempotencyOutcome,
  ): Promise<boolean> {
    const rows = await this.sql`update idempotency_keys set outcome = ${
      this.sql.json(
        outcome as unknown as postgres.JSONValue,
      )
    }
      where principal = ${ref.principal} and key = ${ref.key} and owner = ${ref.owner}
      returning owner`;
    return rows.length === 1;
  }

  /**
   * Drops a running claim (see {@linkcode EstateStore.releaseIdempotencyKey}).
   *
   * @param ref The key, its principal, and the claimant.
   */
  async releaseIdempotencyKey(ref: IdempotencyRef & { owner: string }): Promise<void> {
    await this.sql`delete from idempotency_keys where principal = ${ref.principal}
      and key = ${ref.key} and owner = ${ref.owner} and outcome is null`;
  }

  /**
   * A key's live entry (see {@linkcode EstateStore.readIdempotencyKey}).
   *
   * @param ref The key and its principal.
   * @param now The time (ms since the epoch).
   * @returns The entry, or undefined.
   */
  async readIdempotencyKey(
    ref: IdempotencyRef,
    now: number,
  ): Promise<IdempotencyEntry | undefined> {
    const [row] = await this.sql`select tool, version, digest, owner, started_at, expires, outcome
      from idempotency_keys where principal = ${ref.principal} and key = ${ref.key}
        and expires > ${new Date(now)}`;
    if (!row) return undefined;
    const entry: IdempotencyEntry = {
      binding: { tool: row.tool, version: row.version, digest: row.digest },
      owner: row.owner,
      startedAt: (row.started_at as Date).getTime(),
      expires: (row.expires as Date).getTime(),
    };
    if (row.outcome !== null) entry.outcome = row.outcome as IdempotencyOutcome;
    return entry;
  }

  /**
   * Sets a settings file (an operator's write; the folder estate's is an edit of the file),
   * checked as its readers check it (`estate.json`: the estate's settings; `rules.json`: the
   * rules configuration), kept exactly as given (an export writes these bytes back), and
   * announced (`settings`): every replica's next `refresh()` takes it in. A new `estate.json`
   * changes this store's compatibility mode at once.
   *
   * @param name `estate.json` or `rules.json`.
   * @param text The file's text.
   * @throws {TypeError} When `name` is not a settings file's.
   * @throws {CorpusError} Naming the file, when the text is not valid for it; nothing is written.
   */
  async setEstateFile(name: string, text: string): Promise<void> {
    if (!isEstateFileName(name)) {
      throw new TypeError(
        `Cannot set ${name}: the estate's settings files are ${ESTATE_FILES.join(" and ")}`,
      );
    }
    checkEstateFile(name, text);
    await this.sql.begin(async (tx) => {
      await tx`select pg_advisory_xact_lock(hashtext('estate_files'))`;
      await tx`insert into estate_files (name, text) values (${name}, ${text})
        on conflict (name) do update set text = excluded.text`;
      await this.#notify(tx, { kind: "settings", name });
      await this.#appendAudit(tx, [{
        kind: "settings",
        ...(this.#actor === undefined ? {} : { principal: this.#actor }),
        detail: { file: name, sha256: await sha256Hex(text) },
      }], tx);
    });
    this.#takeFiles(await this.#readFiles(this.sql));
  }

  /** Takes in the settings files read: the registry's compatibility mode follows `estate.json`. */
  #takeFiles(files: Map<EstateFileName, string>): void {
    const mode = this.#modeOf(files);
    if (mode !== this.#registry.compatibility) {
      this.#registry.setCompatibility(mode);
    }
    this.#files = files;
  }

  /** The principals, in stored order (copies). */
  principals(): EstatePrincipal[] {
    return this.#principals.map((p) => ({ ...p, scopes: [...p.scopes] }));
  }

  /** One principal (a copy), or undefined. */
  principal(id: string): EstatePrincipal | undefined {
    const p = this.#principals.find((p) => p.id === id);
    return p && { ...p, scopes: [...p.scopes] };
  }

  /**
   * Reads the principals again; a bad set throws and keeps the last good one.
   *
   * @returns Whether they changed.
   */
  async refreshPrincipals(): Promise<boolean> {
    const principals = await this.#readPrincipals(this.sql);
    if (JSON.stringify(principals) === JSON.stringify(this.#principals)) {
      return false;
    }
    this.#principals = principals;
    return true;
  }

  /**
   * Replaces the principals (an operator's write; the folder estate's is an edit of
   * `principals.json`), checked as `principals.json` is, and announces it. They are kept as the
   * text of a `principals.json` (pretty JSON, two-space indent, final newline).
   *
   * @param principals The principals, in order.
   * @throws {CorpusError} When one is not a valid principal.
   */
  async setPrincipals(principals: EstatePrincipal[]): Promise<void> {
    await this.setPrincipalsText(JSON.stringify(principals, null, 2) + "\n");
  }

  /**
   * Replaces the principals with the text of a `principals.json`, kept exactly as given (an
   * export writes these bytes back), checked as `principals.json` is, and announces it.
   *
   * @param text The file's text: a JSON list of principals.
   * @throws {CorpusError} Naming the line and entry, when it is not a valid principals file.
   */
  async setPrincipalsText(text: string): Promise<void> {
    const principals = parsePrincipals(text, "principals");
    await this.sql.begin(async (tx) => {
      await tx`select pg_advisory_xact_lock(hashtext('principals'))`;
      await tx`insert into principals_file (text) values (${text})
        on conflict (only_row) do update set text = excluded.text`;
      await this.#notify(tx, { kind: "principals" });
      await this.#appendAudit(tx, [{
        kind: "principals",
        ...(this.#actor === undefined ? {} : { principal: this.#actor }),
        detail: { ids: principals.map((p) => p.id), sha256: await sha256Hex(text) },
      }], tx);
    });
    await this.refreshPrincipals();
  }

  /**
   * Publishes a version: in one transaction under the tool's lock, decided with the registry's
   * rules against the tool as stored (stored calls of the major line replayed through a cursor),
   * then inserted with its first lifecycle event. Of two concurrent publishes of one version,
   * the second waits for the lock and then finds the first's row: `already-published` for the
   * same content, the republish refusal for different content.
   *
   * The decision is made once: one plan, whose stored-call replay is noted and then answered from
   * the database and taken in (`withReplay`), not planned again; the registry adopts it
   * (`ToolRegistry.adopt`).
   *
   * @param spec The spec: parse it once, at the edge, with `keepToolSpec` (a value not kept yet is
   *   checked here). A string is the path of a JSON file holding it, read here — deprecated: read
   *   the file and pass the spec.
   * @returns The registry's result.
   * @throws {PublishError} As `ToolRegistry.publish` refuses.
   */
  async publish(candidate: ToolSpec | string): Promise<PublishResult> {
    const spec = typeof candidate === "string"
      ? parseVersionFile(fs.readFileSync(candidate, "utf8"), candidate)
      : keepToolSpec(candidate, { trace: this.#trace });
    const at = this.#now();
    let files: Map<EstateFileName, string> | undefined;
    const done = await this.sql.begin(async (tx) => {
      await tx`select pg_advisory_xact_lock(hashtext(${toolKey(spec.name)}))`;
      const servers = await this.#readServers(tx);
      const tool = (await this.#readTools(tx, spec.name)).get(spec.name) ??
        { versions: [] };
      // The estate's mode as stored now: a replica that has not yet heard of a new estate.json
      // decides as every other does.
      files = await this.#readFiles(tx);
      const compatibility = this.#modeOf(files);
      const scratch = new ToolRegistry({
        now: () => at,
        compatibility,
        ...(this.#trace ? { trace: this.#trace } : {}),
      });
      scratch.restoreServers(servers);
      for (const v of tool.versions) scratch.restore(v);
      let wanted:
        | { schema: ToolSpec["inputSchema"]; line: ReplayLine }
        | undefined;
      let plan = scratch.plan(spec, {
        replay: (schema, line) => {
          wanted = { schema, line };
          return noRejections();
        },
      });
      if (wanted && !plan.alreadyPublished) {
        const rejections = await this.#replay(
          tx,
          spec.name,
          wanted.schema,
          wanted.line,
        );
        plan = withReplay(plan, rejections);
      }
      await this.#writeSettled(tx, spec.name, tool, scratch);
      if (plan.alreadyPublished) return { plan, tool };
      if (plan.refusals.length) throw publishError(plan);
      const text = JSON.stringify(plan.spec, null, 2) + "\n";
      await tx`insert into tool_versions (name, version, spec) values (${spec.name}, ${spec.version}, ${text})`;
      const entry: LifecycleEntry = { state: "active", at: at.toISOString() };
      await tx`insert into lifecycle_events (name, version, entry) values (${spec.name}, ${spec.version}, ${
        JSON.stringify(entry)
      })`;
      await this.#notify(tx, { kind: "tools", name: spec.name });
      await this.#appendAudit(tx, [publishAuditEvent(plan, at, this.#actor)], tx);
      return { plan, tool, at };
    });
    // The registry mirrors the decision: with the mode it was made with.
    if (files) this.#takeFiles(files);
    this.#sync(spec.name, done.tool, false);
    if (!done.at) return { status: "already-published", plan: done.plan };
    this.#mirror(done.at, () => this.#registry.adopt(done.plan));
    return { status: "published", plan: done.plan };
  }

  /**
   * Deprecates an active version (decided against the database, in one transaction).
   *
   * @returns The version's record.
   * @throws {LifecycleError} As the registry refuses.
   */
  deprecate(
    name: string,
    version: string,
    options: StoreDeprecateOptions = {},
  ): Promise<VersionRecord> {
    const change = (r: ToolRegistry) => r.deprecate(name, version, options);
    return this.#transition(name, "deprecate", change, change, false);
  }

  /**
   * Retires a version; with `rules`, the retirement rules decide against the stored calls.
   *
   * @returns The version's record.
   * @throws {RetirementError} With `rules`, when a rule refuses it.
   * @throws {LifecycleError} As the registry refuses.
   */
  retire(
    name: string,
    version: string,
    options: StoreRetireOptions = {},
  ): Promise<VersionRecord> {
    const reason = options.reason === undefined ? {} : { reason: options.reason };
    return this.#transition(
      name,
      "retire",
      (r) =>
        r.retire(
          name,
          version,
          options.rules ? { ...reason, rules: options.rules } : reason,
        ),
      (r) => r.retire(name, version, reason),
      options.rules !== undefined,
    );
  }

  /**
   * Answers the stored-call replay that planning `spec` needs, streamed from the database through
   * a cursor, for `registry.plan(spec, {replay})` and `checkDraft(spec, registry, {replay})`.
   *
   * @param spec The draft.
   * @returns The replay to plan with.
   */
  async replayFor(spec: ToolSpec): Promise<NonNullable<PlanOptions["replay"]>> {
    let wanted:
      | { schema: ToolSpec["inputSchema"]; line: ReplayLine }
      | undefined;
    this.#registry.plan(spec, {
      replay: (schema, line) => {
        wanted = { schema, line };
        return noRejections();
      },
    });
    if (!wanted) return () => noRejections();
    const rejections = await this.#replay(
      this.sql,
      spec.name,
      wanted.schema,
      wanted.line,
    );
    return () => rejections;
  }

  /**
   * What retiring a version would do under the retirement rules, against the stored calls made
   * to that version (read from the database for this decision).
   *
   * @returns The plan.
   * @throws {LifecycleError} When the version is unknown or already retired.
   */
  async planRetirement(
    name: string,
    version: string,
    options: RetirementOptions = {},
  ): Promise<RetirementPlan> {
    const calls: StoredCall[] = [];
    if (this.#registry.versions(name).some((r) => r.spec.version === version)) {
      for await (const call of this.#calls(this.sql, name, version)) {
        calls.push(call);
      }
    }
    const scratch = new ToolRegistry({
      now: () => this.#now(),
      storedCalls: () => calls,
    });
    for (const r of this.#registry.versions(name)) {
      scratch.restore({ spec: r.spec, history: r.history });
    }
    return scratch.planRetirement(name, version, options);
  }

  /**
   * A tool's stored calls, oldest first, through a cursor (memory flat).
   *
   * @param name The tool.
   * @returns The calls.
   */
  readCalls(name: string): AsyncGenerator<StoredCall> {
    return this.#calls(this.sql, name);
  }

  /**
   * A tool's stored calls appended after `cursor`, at most `limit`, read by the index on
   * `(name, id)` past the last id read: one statement per batch, no transaction. The cursor is
   * `pg:<id>`, the last call's id (`pg:0` before any); one that does not parse, or names no call of
   * this tool, reads from the start with `restarted`.
   *
   * @param name The tool.
   * @param cursor The last read's `cursor`; undefined to read from the start.
   * @param options The batch size (default 10,000).
   * @returns The calls, the cursor to read on from, and whether it restarted or more follow.
   * @throws {RangeError} When `limit` is not a positive integer.
   * @throws {Error} When a stored row is not a stored call, naming the tool and the row's id.
   */
  async callsAfter(
    name: string,
    cursor?: string,
    options: CallsAfterOptions = {},
  ): Promise<CallsAfter> {
    const limit = callsAfterLimit(options.limit, name);
    let after = cursor === undefined ? "0" : /^pg:(0|[1-9]\d{0,18})$/.exec(cursor)?.[1];
    if (after !== undefined && BigInt(after) > MAX_BIGINT) after = undefined;
    let restarted = after === undefined;
    if (after !== undefined && after !== "0") {
      // Stored calls are never changed or deleted: a cursor naming none of this tool's is not ours.
      const known = await this.sql`select 1 from stored_calls
        where name = ${name} and id = ${after}::bigint`;
      if (known.length === 0) restarted = true;
    }
    if (restarted) after = "0";
    const rows = await this.sql`select id::text as id, call from stored_calls
      where name = ${name} and id > ${after!}::bigint order by stored_calls.id limit ${limit + 1}`;
    const more = rows.length > limit;
    const versions = new Set<string>();
    const calls = rows.slice(0, limit).map((row) => {
      let value: unknown;
      try {
        value = JSON.parse(row.call as string);
      } catch (e) {
        throw new Error(
          `Cannot read the calls of ${name}: stored_calls row ${row.id} is not JSON (${
            (e as Error).message
          })`,
        );
      }
      const problems = storedCallProblems(value, versions);
      if (problems.length) {
        throw new Error(
          `Cannot read the calls of ${name}: stored_calls row ${row.id} is not a stored call: ${
            problems.join("; ")
          }`,
        );
      }
      return value as StoredCall;
    });
    const last = calls.length ? rows[calls.length - 1].id as string : after!;
    return { calls, cursor: `pg:${last}`, restarted, more };
  }

  /**
   * Appends stored calls to a published tool, all or none.
   *
   * @returns How many.
   * @throws {TypeError} When a call is not a stored call, before anything is written.
   * @throws {Error} When the tool is not published.
   */
  async appendCalls(
    name: string,
    calls: Iterable<StoredCall>,
  ): Promise<number> {
    const list = [...calls];
    const lines = list.map((call, i) => {
      const problems = storedCallProblems(call);
      if (problems.length) {
        throw new TypeError(
          `Cannot append call ${i + 1} to ${name}: ${problems.join("; ")}`,
        );
      }
      return storedCallLine(call);
    });
    if (lines.length === 0) return 0;
    // One statement, so all or none without a transaction: `estate serve` records calls on this
    // path, and a connection lost inside a driver transaction can crash the process (the
    // driver's rollback writes to the closed socket: porsager/postgres#1208).
    const inserted = await this.sql`insert into stored_calls (name, call)
      select ${name}, line from unnest(${lines}::text[]) with ordinality as given(line, n)
      where exists (select 1 from tool_versions where name = ${name})
      order by n`;
    if (inserted.count !== lines.length) {
      throw new Error(
        `Cannot append calls to ${name}: no version is published; publish first`,
      );
    }
    return list.length;
  }

  /**
   * Registers a server record (decided against the records stored, under one lock).
   *
   * @returns What happened.
   * @throws {ServerRegistrationError} As the registry refuses.
   */
  async registerServer(
    recordOrFile: ServerRecord | string,
    options: RegisterServerOptions = {},
  ): Promise<RegisterServerResult> {
    const record = typeof recordOrFile === "string"
      ? parseServerFile(fs.readFileSync(recordOrFile, "utf8"), recordOrFile)
      : parseServerRecord(
        recordOrFile,
        (recordOrFile as { id?: unknown })?.id as string,
      );
    const { result, all } = await this.sql.begin(async (tx) => {
      await tx`select pg_advisory_xact_lock(hashtext('servers'))`;
      const scratch = new ServerDirectory();
      for (const s of await this.#readServers(tx)) scratch.register(s);
      const result = scratch.register(record, options);
      if (result.status !== "unchanged") {
        const text = JSON.stringify(result.record, null, 2) + "\n";
        await tx`insert into servers (id, record) values (${record.id}, ${text})
          on conflict (id) do update set record = excluded.record`;
        await this.#notify(tx, { kind: "servers", name: record.id });
      }
      return { result, all: scratch.servers() };
    });
    this.#registry.restoreServers(all, { emit: true });
    return result;
  }

  /**
   * Appends drift records, all or none.
   *
   * @returns How many.
   * @throws {TypeError} When a record is not a drift record, before anything is written.
   */
  async appendDrift(records: Iterable<DriftRecord>): Promise<number> {
    const list = [...records];
    for (const [i, r] of list.entries()) {
      const problems = driftRecordProblems(r);
      if (problems.length) {
        throw new TypeError(
          `Cannot append drift record ${i + 1}: ${problems.join("; ")}`,
        );
      }
    }
    if (list.length === 0) return 0;
    const rows = list.map((r) => ({ record: JSON.stringify(r) }));
    // One statement each, no driver transaction: the gateway appends on its running path.
    await this.sql`insert into drift ${this.sql(rows, "record")}`;
    await this.#appendAudit(this.sql, list.map(driftAuditEvent));
    return list.length;
  }

  /**
   * The drift records, oldest first, through a cursor.
   *
   * @returns The records.
   */
  async *readDrift(): AsyncGenerator<DriftRecord> {
    for await (
      const rows of this.sql`select record from drift order by id`.cursor(BATCH)
    ) {
      for (const row of rows) {
        yield JSON.parse(row.record as string) as DriftRecord;
      }
    }
  }

  /**
   * Hears every writer's changes through `LISTEN estate_changes`. After a lost connection the
   * driver listens again and the listener hears `unknown` (it may have missed changes).
   *
   * @param listener Hears of each change.
   * @returns The watch.
   */
  async watch(listener: (change: StoreChange) => void): Promise<StoreWatch> {
    const parse = (payload: string): StoreChange => {
      try {
        return JSON.parse(payload) as StoreChange;
      } catch {
        return { kind: "unknown" };
      }
    };
    let first = true;
    const { unlisten } = await this.sql.listen(
      CHANGE_CHANNEL,
      (payload) => listener(parse(payload)),
      () => {
        if (!first) listener({ kind: "unknown", reconnected: true });
        first = false;
      },
    );
    return { close: () => unlisten() };
  }

  /**
   * The pending calls in table `pending_calls` (see {@linkcode EstateStore.pendingCalls}).
   *
   * @returns The store of pending calls.
   */
  pendingCalls(): PendingCallStore {
    return this.#pendingCalls ??= pgPendingCalls(this.sql);
  }

  /**
   * The tasks in table `tasks` (see {@linkcode EstateStore.tasks}).
   *
   * @returns The store of tasks.
   */
  tasks(): TaskStore {
    return this.#tasks ??= pgTasks(this.sql);
  }

  /**
   * The proposals, oldest first (see {@linkcode EstateStore.proposals}).
   *
   * @returns The proposals.
   */
  async proposals(): Promise<Proposal[]> {
    const rows = await this.sql`select record from proposals order by created, id`;
    return rows.map((r) => r.record as Proposal);
  }

  /**
   * Records an event on a proposal (see {@linkcode EstateStore.recordProposal}): in one
   * transaction holding an advisory lock on the tool, decided against the tool's proposals and the
   * stored `estate.json`'s approval policy as they are now. The one place a database estate's
   * proposals, approvals and rejections happen.
   *
   * @param event The event.
   * @returns The records written.
   * @throws {ProposalError} When the event is refused.
   */
  async recordProposal(event: ProposalEvent): Promise<Proposal[]> {
    return await this.sql.begin(async (tx) => {
      let tool: string;
      if (event.kind === "propose") tool = event.proposal.tool;
      else {
        const [row] = await tx`select tool from proposals where id = ${event.id}`;
        if (!row) throw new ProposalError(`no proposal ${event.id.slice(0, 12)}`);
        tool = row.tool as string;
      }
      await tx`select pg_advisory_xact_lock(hashtext(${"proposals:" + tool}))`;
      const rows = await tx`select record from proposals where tool = ${tool} order by created, id`;
      const [file] = await tx`select text from estate_files where name = 'estate.json'`;
      const policy = file ? (JSON.parse(file.text as string) as EstateConfig).approval : undefined;
      const changed = proposalEvent(rows.map((r) => r.record as Proposal), event, policy);
      for (const p of changed) {
        await tx`insert into proposals (id, tool, version, created, record)
          values (${p.id}, ${p.tool}, ${p.version}, ${p.created}, ${
          tx.json(p as unknown as postgres.JSONValue)
        })
          on conflict (id) do update set record = excluded.record`;
      }
      await this.#appendAudit(tx, [proposalAuditEvent(event, changed)], tx);
      return changed;
    });
  }

  /**
   * Appends events to the audit log (see {@linkcode EstateStore.appendAudit}): the head read, the
   * records sealed after it and inserted in one statement, all or none; the primary key on `seq`
   * refuses a second record at one place and the loser reads the head again, so writers on every
   * replica extend one chain. No driver transaction is held: call decisions append here.
   *
   * @param events The events, in order.
   * @returns The records appended.
   * @throws {TypeError} When an event is not an audit event, before anything is written.
   */
  async appendAudit(events: Iterable<AuditEvent>): Promise<AuditRecord[]> {
    const list = [...events];
    for (const e of list) normalizeAuditEvent(e, this.#now);
    if (list.length === 0) return [];
    return await this.#appendAudit(this.sql, list);
  }

  /**
   * The audit log in chain order, through a cursor; filtered in the database.
   *
   * @param filter Which records.
   * @returns The records.
   */
  async *readAudit(filter: AuditFilter = {}): AsyncGenerator<AuditRecord> {
    const s = this.sql;
    const query = s`select record from audit_log where true
      ${filter.tool === undefined ? s`` : s`and tool = ${filter.tool}`}
      ${filter.principal === undefined ? s`` : s`and principal = ${filter.principal}`}
      ${filter.kind === undefined ? s`` : s`and kind = ${filter.kind}`}
      ${filter.since === undefined ? s`` : s`and at >= ${new Date(filter.since)}`}
      ${filter.until === undefined ? s`` : s`and at < ${new Date(filter.until)}`}
      order by seq`;
    for await (const rows of query.cursor(BATCH)) {
      for (const row of rows) {
        const record = row.record as AuditRecord;
        if (auditRecordMatches(record, filter)) yield record;
      }
    }
  }

  /**
   * Where the audit log ends (see {@linkcode EstateStore.auditHead}).
   *
   * @returns The head.
   */
  async auditHead(): Promise<AuditHead> {
    const [row] = await this.sql`select seq, hash from audit_log order by seq desc limit 1`;
    return row ? { seq: Number(row.seq), hash: row.hash as string } : EMPTY_AUDIT_HEAD;
  }

  /**
   * Keeps a signed checkpoint (table `audit_checkpoints`).
   *
   * @param checkpoint The checkpoint.
   * @throws {TypeError} When it is not a checkpoint.
   */
  async appendAuditCheckpoint(checkpoint: AuditCheckpoint): Promise<void> {
    const problems = auditCheckpointProblems(checkpoint);
    if (problems.length) throw new TypeError(`Not a checkpoint: ${problems.join("; ")}`);
    const { seq, head, at, signature } = checkpoint;
    await this.sql`insert into audit_checkpoints (seq, record) values (${seq}, ${
      this.sql.json({ seq, head, at, signature })
    })`;
  }

  /**
   * The checkpoints kept, oldest first.
   *
   * @returns The checkpoints.
   */
  async auditCheckpoints(): Promise<AuditCheckpoint[]> {
    const rows = await this.sql`select record from audit_checkpoints order by id`;
    return rows.map((r) => r.record as AuditCheckpoint);
  }

  /**
   * Appends audit records without a lock: the head is read, the records sealed after it and
   * inserted in one statement (all or none); the primary key on `seq` refuses a second record at
   * one place, and the writer that lost reads the head again. Every writer, on any replica,
   * extends one chain. Inside a transaction (`tx`) the insert runs in a savepoint, so a lost race
   * does not abort the transaction; outside one no driver transaction is held (a call decision's
   * append must not risk the process on a lost connection: porsager/postgres#1208).
   */
  async #appendAudit(
    sql: Sql | TransactionSql,
    events: AuditEvent[],
    tx?: TransactionSql,
  ): Promise<AuditRecord[]> {
    if (events.length === 0) return [];
    for (let attempt = 1;; attempt++) {
      const [row] = await sql`select seq, hash from audit_log order by seq desc limit 1`;
      const head: AuditHead = row
        ? { seq: Number(row.seq), hash: row.hash as string }
        : EMPTY_AUDIT_HEAD;
      const records = await sealAudit(head, events, { now: this.#now });
      const insert = (q: Sql | TransactionSql) =>
        q`insert into audit_log (seq, at, kind, principal, tool, hash, record)
          select seq, at::timestamptz, kind, nullif(principal, ''), nullif(tool, ''), hash,
            record::jsonb
          from unnest(${records.map((r) => r.seq)}::bigint[], ${
          records.map((r) => r.at)
        }::text[], ${records.map((r) => r.kind)}::text[], ${
          records.map((r) => r.principal ?? "")
        }::text[], ${records.map((r) => r.tool ?? "")}::text[], ${
          records.map((r) => r.hash)
        }::text[], ${records.map((r) => auditRecordText(r))}::text[])
            as given(seq, at, kind, principal, tool, hash, record)`;
      try {
        if (tx) await tx.savepoint((sp) => insert(sp));
        else await insert(sql);
        return records;
      } catch (e) {
        if ((e as { code?: string }).code !== "23505" || attempt >= 200) throw e;
        // Another writer took this place: read the head again, after a short, jittered pause.
        await new Promise((r) => setTimeout(r, Math.random() * Math.min(attempt, 20)));
      }
    }
  }

  /** Closes the connections. */
  async close(): Promise<void> {
    await this.sql.end({ timeout: 5 });
  }

  async #notify(tx: TransactionSql, change: StoreChange): Promise<void> {
    await tx`select pg_notify(${CHANGE_CHANNEL}, ${JSON.stringify(change)})`;
  }

  /** The settings files stored, each checked (a bad one throws, naming it). */
  async #readFiles(
    sql: Sql | TransactionSql,
  ): Promise<Map<EstateFileName, string>> {
    const files = new Map<EstateFileName, string>();
    for (
      const row of await sql`select name, text from estate_files order by name`
    ) {
      const name = row.name as EstateFileName;
      checkEstateFile(name, row.text as string);
      files.set(name, row.text as string);
    }
    return files;
  }

  async #readPrincipals(sql: Sql | TransactionSql): Promise<EstatePrincipal[]> {
    const rows = await sql`select text from principals_file`;
    return rows.length === 0 ? [] : parsePrincipals(rows[0].text as string, "principals");
  }

  async #readServers(sql: Sql | TransactionSql): Promise<ServerRecord[]> {
    const rows = await sql`select id, record from servers order by id`;
    return rows.map((r) => parseServerFile(r.record as string, `servers/${r.id}`));
  }

  /** Every tool's versions and lifecycles (or one tool's). */
  async #readTools(
    sql: Sql | TransactionSql,
    only?: string,
  ): Promise<Map<string, StoredTool>> {
    const versions = only === undefined
      ? await sql`select name, version, spec from tool_versions order by name, published_seq`
      : await sql`select name, version, spec from tool_versions where name = ${only} order by published_seq`;
    const events = only === undefined
      ? await sql`select name, version, entry from lifecycle_events order by id`
      : await sql`select name, version, entry from lifecycle_events where name = ${only} order by id`;
    const histories = new Map<string, LifecycleEntry[]>();
    for (const e of events) {
      const key = `${e.name}@${e.version}`;
      const list = histories.get(key) ?? [];
      list.push(JSON.parse(e.entry as string));
      histories.set(key, list);
    }
    const tools = new Map<string, StoredTool>();
    for (const v of versions) {
      const spec = parseVersionFile(
        v.spec as string,
        `tools/${v.name}/${v.version}.json`,
      );
      const tool = tools.get(v.name as string) ?? { versions: [] };
      tool.versions.push({
        spec,
        history: histories.get(`${v.name}@${v.version}`) ?? [],
      });
      tools.set(v.name as string, tool);
    }
    return tools;
  }

  /** Replays a tool's stored calls of one major line through a schema, batch by batch. */
  #replay(
    sql: Sql | TransactionSql,
    name: string,
    schema: ToolSpec["inputSchema"],
    line: ReplayLine,
  ): Promise<Rejections> {
    return replayCallStream(schema, this.#calls(sql, name), line);
  }

  /** A tool's stored calls through a cursor, oldest first (optionally of one version only). */
  async *#calls(
    sql: Sql | TransactionSql,
    name: string,
    version?: string,
  ): AsyncGenerator<StoredCall> {
    const cursor = version === undefined
      ? sql`select call from stored_calls where name = ${name} order by id`
        .cursor(BATCH)
      : sql`select call from stored_calls where name = ${name}
          and (call::json ->> 'version') = ${version} order by id`.cursor(
        BATCH,
      );
    for await (const rows of cursor) {
      for (const row of rows) {
        yield JSON.parse(row.call as string) as StoredCall;
      }
    }
  }

  /**
   * Writes the retirements whose date has passed (as `scratch`, holding the tool, now has them)
   * that are not yet stored.
   *
   * @returns Whether anything was written.
   */
  async #writeSettled(
    tx: TransactionSql,
    name: string,
    tool: StoredTool,
    scratch: ToolRegistry,
  ): Promise<boolean> {
    const stored = new Map(
      tool.versions.map((v) => [v.spec.version, v.history.length]),
    );
    let wrote = false;
    for (const r of scratch.versions(name)) {
      const had = stored.get(r.spec.version);
      if (had === undefined) continue;
      for (const entry of r.history.slice(had)) {
        await tx`insert into lifecycle_events (name, version, entry) values (${name}, ${r.spec.version}, ${
          JSON.stringify(entry)
        })`;
        wrote = true;
      }
    }
    if (wrote) await this.#notify(tx, { kind: "tools", name });
    return wrote;
  }

  async #transition(
    name: string,
    kind: "deprecate" | "retire",
    decide: (registry: ToolRegistry) => VersionRecord,
    apply: (registry: ToolRegistry) => VersionRecord,
    withCalls: boolean,
  ): Promise<VersionRecord> {
    const at = this.#now();
    const tool = await this.sql.begin(async (tx) => {
      await tx`select pg_advisory_xact_lock(hashtext(${toolKey(name)}))`;
      const tool = (await this.#readTools(tx, name)).get(name) ??
        { versions: [] };
      // The retirement rules read the stored calls synchronously: load them for this decision.
      const calls: StoredCall[] = [];
      if (withCalls) {
        for await (const call of this.#calls(tx, name)) calls.push(call);
      }
      const scratch = new ToolRegistry({
        now: () => at,
        storedCalls: () => calls,
      });
      for (const v of tool.versions) scratch.restore(v);
      const record = decide(scratch);
      await this.#writeSettled(tx, name, tool, scratch);
      await this.#appendAudit(tx, [lifecycleAuditEvent(kind, record, this.#actor)], tx);
      return tool;
    });
    this.#sync(name, tool, false);
    return this.#mirror(at, () => apply(this.#registry));
  }

  /** Runs a registry change with the clock pinned to `at`. */
  #mirror<T>(at: Date, change: () => T): T {
    this.#pinned = () => at;
    try {
      return change();
    } finally {
      this.#pinned = undefined;
    }
  }

  /**
   * Brings the registry up to date with a tool as stored: new versions restored, lifecycle
   * transitions made elsewhere replayed with their recorded times.
   */
  #sync(name: string, tool: StoredTool, emit: boolean): void {
    const known = new Map(
      this.#registry.versions(name).map((r) => [r.spec.version, r]),
    );
    for (const v of tool.versions) {
      this.#registry.restore(v, { emit });
      const had = known.get(v.spec.version)?.history.length ?? v.history.length;
      for (const entry of v.history.slice(had)) {
        this.#mirror(instant(entry.at), () => {
          if (entry.state === "deprecated") {
            const options: StoreDeprecateOptions = {};
            if (entry.reason !== undefined) options.reason = entry.reason;
            if (entry.retireAfter !== undefined) {
              options.retireAfter = entry.retireAfter;
            }
            this.#registry.deprecate(name, v.spec.version, options);
          } else if (entry.state === "retired") {
            const current = this.#registry.version(name, v.spec.version);
            if (current?.state !== "retired") {
              this.#registry.retire(
                name,
                v.spec.version,
                entry.reason === undefined ? {} : { reason: entry.reason },
              );
            }
          }
        });
      }
    }
  }
}

/** Throws a {@linkcode CorpusError} naming the settings file when its text is not valid. */
function checkEstateFile(name: EstateFileName, text: string): void {
  const problems = estateFileProblems(name, text);
  if (problems.length) throw new CorpusError(name, problems.join("; "));
}
