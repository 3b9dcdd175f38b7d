/**
 * The estate on disk: a folder a team reviews in git, loaded into a {@linkcode ToolRegistry}, and
 * written durably and atomically when a version is published, deprecated or retired.
 *
 * ```
 * <estate>/
 *   principals.json          example principals
 *   tools/<tool name>/
 *     <version>.json         one spec per published version; never rewritten
 *     lifecycle.json         { "<version>": [lifecycle entries] }
 *     calls.jsonl            stored calls, one JSON object per line
 * ```
 *
 * @module
 */
import fs from "node:fs";
import path from "node:path";
import {
  type LifecycleEntry,
  PublishError,
  type PublishPlan,
  type PublishResult,
  type StoredCall,
  ToolRegistry,
  type VersionRecord,
} from "../estate/registry.ts";
import { parseToolSpec, type ToolSpec } from "../estate/spec.ts";
import { CorpusError } from "./corpus_error.ts";
import { type EstatePrincipal, parsePrincipals } from "./principals.ts";
import { readCallsFile } from "./read_calls.ts";
import { createExclusive, ensureDir, fsyncDir, removeLeftovers, replaceAtomic } from "./_atomic.ts";
import { formatLifecycle, type Lifecycle } from "./_lifecycle.ts";
import { type LockOptions, withLock } from "./_lock.ts";
import {
  CALLS_FILE,
  type DiskTool,
  LIFECYCLE_FILE,
  loadToolDir,
  parseVersionFile,
} from "./_tool_dir.ts";
import { storedCallLine, storedCallProblems } from "./_stored_call.ts";

/** The principals file's name. */
const PRINCIPALS_FILE = "principals.json";
/** The folder of tool folders. */
const TOOLS_DIR = "tools";
const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

/** Options for {@linkcode EstateDir.open}. */
export interface EstateDirOptions {
  /** The clock for lifecycle timestamps. Default: `new Date()`. */
  now?: () => Date;
  /** How long to wait for a tool's lock held by another process, in ms. Default 5000. */
  lockTimeoutMs?: number;
}

/** Options for {@linkcode EstateDir.deprecate}. */
export interface DeprecateOptions {
  /** Why. */
  reason?: string;
  /** The date after which the version is to be retired. */
  retireAfter?: string;
}

/** Options for {@linkcode EstateDir.retire}. */
export interface RetireOptions {
  /** Why. */
  reason?: string;
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

function subject(candidate: unknown): string {
  const c = (typeof candidate === "object" && candidate !== null ? candidate : {}) as Record<
    string,
    unknown
  >;
  return typeof c.name === "string" ? `${c.name}@${c.version ?? "?"}` : "tool spec";
}

function refusal(plan: PublishPlan): PublishError {
  return new PublishError(
    plan.refusals[0].refusal,
    plan.refusals.map((r) => r.message).join("\n"),
    { changes: plan.changes, rejected: plan.rejected, issues: plan.schemaIssues },
  );
}

/**
 * An estate folder, loaded into a {@linkcode ToolRegistry}.
 *
 * Reading: `open()` loads every version and lifecycle (and checks them: a bad file is a
 * {@linkcode CorpusError} naming it, never skipped); stored calls are streamed from `calls.jsonl`
 * when the registry replays them, so a bad line surfaces then, naming its line.
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
export class EstateDir {
  /** The estate's folder, as given to `open()`. */
  readonly dir: string;
  readonly #now: () => Date;
  readonly #lock: LockOptions;
  #registry: ToolRegistry;
  #principals: EstatePrincipal[];
  /** The time the registry records while this estate mirrors a change it wrote to disk. */
  #pinned: Date | undefined;
  /** Off while mirroring a publish whose stored calls were already replayed. */
  #replay = true;

  private constructor(dir: string, options: EstateDirOptions) {
    this.dir = dir;
    this.#now = options.now ?? (() => new Date());
    this.#lock = { timeoutMs: options.lockTimeoutMs ?? 5000, staleMs: 30_000 };
    this.#registry = new ToolRegistry();
    this.#principals = [];
  }

  /**
   * Opens an estate folder and loads it. Nothing is written; leftovers of a crashed write
   * (`.tmp-*`) are ignored (and removed by the next write to that tool). A folder without
   * `tools/` or `principals.json` is an empty estate.
   *
   * @param dir The folder (e.g. `corpus`); it must exist.
   * @param options The clock and the lock timeout.
   * @returns The estate.
   * @throws {CorpusError} Naming the file (and line and column, for invalid JSON) of the first
   *   version file, `lifecycle.json` or `principals.json` that is not valid, or of a version file
   *   whose name or version does not match its place.
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
    const registry = new ToolRegistry({
      storedCalls: (name) => this.#replay ? this.readCalls(name) : [],
      now: () => this.#pinned ?? this.#now(),
    });
    const tools = path.join(this.dir, TOOLS_DIR);
    if (fs.existsSync(tools)) {
      for (const entry of fs.readdirSync(tools, { withFileTypes: true })) {
        if (entry.name.startsWith(".")) continue;
        const where = path.join(tools, entry.name);
        if (!entry.isDirectory()) {
          throw new CorpusError(where, `unexpected file: ${TOOLS_DIR}/ holds one folder per tool`);
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
    if (JSON.stringify(principals) === JSON.stringify(this.#principals)) return false;
    this.#principals = principals;
    return true;
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
   * lifecycle entry, left by a publish that crashed between its two writes).
   *
   * @param specOrFile The spec, or the path of a JSON file holding it.
   * @returns The registry's result, with the version file.
   * @throws {PublishError} As `ToolRegistry.publish` refuses: a republish with different content,
   *   a version not newer than the newest, a bump smaller than the change, an unsafe schema, or
   *   stored calls the new schema rejects.
   * @throws {ToolSpecError} When the spec object is not a valid spec.
   * @throws {CorpusError} When the file is not JSON or not a valid spec; when a file of the tool
   *   on disk is bad (a bad line of `calls.jsonl` surfaces here, during replay).
   * @throws {Error} When the tool's lock is not obtained in time, naming who holds it.
   */
  publish(specOrFile: ToolSpec | string): EstatePublishResult {
    const spec = typeof specOrFile === "string"
      ? parseVersionFile(fs.readFileSync(specOrFile, "utf8"), specOrFile)
      : parseToolSpec(specOrFile, subject(specOrFile));
    const dir = this.#toolDir(spec.name);
    const file = path.join(dir, `${spec.version}.json`);
    if (!fs.existsSync(dir)) {
      // A new tool: the rules depend on the spec alone, so refuse before making its folder.
      const plan = this.#registry.plan(spec);
      if (!plan.alreadyPublished && plan.refusals.length) throw refusal(plan);
      ensureDir(dir);
    }
    let catchUp = () => {};
    let done: { plan: PublishPlan; at?: Date };
    try {
      done = withLock(dir, `publish ${spec.name}@${spec.version}`, this.#lock, () => {
        removeLeftovers(dir);
        let synced = this.#sync(dir, spec.name);
        catchUp = synced.catchUp;
        let plan = this.#registry.plan(spec);
        if (!plan.alreadyPublished && plan.refusals.length === 0) {
          if (createExclusive(file, JSON.stringify(plan.spec, null, 2) + "\n")) {
            const at = this.#now();
            const lifecycle: Lifecycle = {
              ...synced.disk.lifecycle,
              [spec.version]: [{ state: "active", at: at.toISOString() }],
            };
            replaceAtomic(path.join(dir, LIFECYCLE_FILE), formatLifecycle(lifecycle));
            return { plan, at };
          }
          // The file appeared although we hold the lock (a writer that does not lock): judge it.
          synced = this.#sync(dir, spec.name);
          catchUp = synced.catchUp;
          plan = this.#registry.plan(spec);
        }
        if (plan.alreadyPublished) {
          if (!synced.disk.lifecycleComplete) {
            replaceAtomic(path.join(dir, LIFECYCLE_FILE), formatLifecycle(synced.disk.lifecycle));
          }
          return { plan };
        }
        throw refusal(plan);
      });
    } finally {
      catchUp();
    }
    if (!done.at) return { status: "already-published", plan: done.plan, file };
    // Mirror in memory: the same rules pass (the registry now matches the disk), the stored calls
    // were just replayed, and the timestamp is the one on disk. Subscribers hear of it here.
    this.#mirror(done.at, () => this.#registry.publish(done.plan.spec));
    return { status: "published", plan: done.plan, file };
  }

  /**
   * Deprecates an active version, on disk and then in the registry (whose subscribers hear of it).
   *
   * @param name The tool.
   * @param version The version.
   * @param options Why, and when it is to be retired.
   * @returns The version's record.
   * @throws {LifecycleError} When the version is not published or not active (as on disk now).
   * @throws {CorpusError} When a file of the tool on disk is bad.
   * @throws {Error} When the tool's lock is not obtained in time.
   */
  deprecate(name: string, version: string, options: DeprecateOptions = {}): VersionRecord {
    return this.#transition(name, version, "deprecate", (r) => r.deprecate(name, version, options));
  }

  /**
   * Retires a version, on disk and then in the registry (whose subscribers hear of it).
   *
   * @param name The tool.
   * @param version The version.
   * @param options Why.
   * @returns The version's record.
   * @throws {LifecycleError} When the version is not published or already retired (as on disk now).
   * @throws {CorpusError} When a file of the tool on disk is bad.
   * @throws {Error} When the tool's lock is not obtained in time.
   */
  retire(name: string, version: string, options: RetireOptions = {}): VersionRecord {
    return this.#transition(name, version, "retire", (r) => r.retire(name, version, options));
  }

  /**
   * Takes in, without a reload, what other processes changed on disk: versions they published
   * and lifecycle transitions they made, for every tool. Subscribers of the registry hear of each
   * (a server turns them into `notifications/tools/list_changed`). Versions already loaded must be
   * unchanged on disk.
   *
   * @returns How many tools were looked at.
   * @throws {CorpusError} When a file on disk is bad, or a loaded version was rewritten.
   */
  refresh(): number {
    const tools = path.join(this.dir, "tools");
    if (!fs.existsSync(tools)) return 0;
    const names = fs.readdirSync(tools, { withFileTypes: true })
      .filter((e) => e.isDirectory() && !e.name.startsWith(".")).map((e) => e.name).sort();
    for (const name of names) {
      const dir = this.#toolDir(name);
      const { catchUp } = this.#sync(dir, name, true);
      catchUp();
    }
    return names.length;
  }

  /**
   * A tool's stored calls, streamed from its `calls.jsonl` (see {@linkcode readCallsFile}):
   * memory stays flat however large the file.
   *
   * @param name The tool.
   * @returns The calls, in file order; none when the tool has no `calls.jsonl`.
   * @throws {CorpusError} While iterating, naming the file and line of a bad line.
   * @throws {Error} When `name` is not a tool name.
   */
  readCalls(name: string): Generator<StoredCall> {
    return readCallsFile(path.join(this.#toolDir(name), CALLS_FILE));
  }

  /**
   * Appends stored calls to a tool's `calls.jsonl` durably, under the tool's lock: whole lines in
   * one write, then fsync. When the file's last line lacks its newline, one is written first.
   *
   * @param name The tool (it must have a folder in the estate).
   * @param calls The calls.
   * @returns How many calls were appended.
   * @throws {TypeError} When a call is not a stored call, naming it and the field, before
   *   anything is written.
   * @throws {Error} When the tool has no folder, or its lock is not obtained in time.
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
    const dir = this.#toolDir(name);
    if (!fs.existsSync(dir)) {
      throw new Error(
        `Cannot append calls to ${name}: ${dir} does not exist; publish the tool first`,
      );
    }
    const file = path.join(dir, CALLS_FILE);
    withLock(dir, `append calls to ${name}`, this.#lock, () => {
      const created = !fs.existsSync(file);
      const fd = fs.openSync(file, "a+");
      try {
        const size = fs.fstatSync(fd).size;
        let prefix = "";
        if (size > 0) {
          const last = new Uint8Array(1);
          fs.readSync(fd, last, 0, 1, size - 1);
          if (last[0] !== 0x0a) prefix = "\n";
        }
        const bytes = new TextEncoder().encode(prefix + lines.join(""));
        for (let written = 0; written < bytes.length;) {
          written += fs.writeSync(fd, bytes, written, bytes.length - written);
        }
        fs.fsyncSync(fd);
      } finally {
        fs.closeSync(fd);
      }
      if (created) fsyncDir(dir);
    });
    return list.length;
  }

  /** A tool's folder, refusing names that are not tool names (`..` would leave the estate). */
  #toolDir(name: string): string {
    if (typeof name !== "string" || !TOOL_NAME.test(name) || name === "." || name === "..") {
      throw new Error(
        `Invalid tool name ${
          JSON.stringify(name)
        }: 1-128 characters of A-Z a-z 0-9 _ . - (not . or ..)`,
      );
    }
    return path.join(this.dir, TOOLS_DIR, name);
  }

  /** Runs a registry change with the clock pinned to `at` (and no replay). */
  #mirror<T>(at: Date, change: () => T): T {
    this.#pinned = at;
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
  #sync(dir: string, name: string, emit = false): { disk: DiskTool; catchUp: () => void } {
    const disk = fs.existsSync(dir)
      ? loadToolDir(dir, name)
      : { name, dir, versions: [], lifecycle: {}, lifecycleComplete: true };
    const known = new Map(this.#registry.versions(name).map((r) => [r.spec.version, r]));
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
      for (const entry of v.history.slice(had)) pending.push([v.spec.version, entry]);
    }
    const catchUp = () => {
      for (const [version, entry] of pending) this.#replayEntry(name, version, entry);
    };
    return { disk, catchUp };
  }

  #replayEntry(name: string, version: string, entry: LifecycleEntry): void {
    const registry = this.#registry;
    this.#mirror(instant(entry.at), () => {
      if (entry.state === "deprecated") {
        const options: DeprecateOptions = {};
        if (entry.reason !== undefined) options.reason = entry.reason;
        if (entry.retireAfter !== undefined) options.retireAfter = entry.retireAfter;
        registry.deprecate(name, version, options);
      } else if (entry.state === "retired") {
        registry.retire(name, version, entry.reason === undefined ? {} : { reason: entry.reason });
      }
    });
  }

  /** Deprecate or retire: decided by the registry's rules against the disk, written, mirrored. */
  #transition(
    name: string,
    version: string,
    verb: "deprecate" | "retire",
    change: (registry: ToolRegistry) => VersionRecord,
  ): VersionRecord {
    const dir = this.#toolDir(name);
    if (!fs.existsSync(dir)) {
      // Let the registry word the refusal: the version is not published.
      return change(new ToolRegistry());
    }
    let catchUp = () => {};
    let at: Date;
    try {
      at = withLock(dir, `${verb} ${name}@${version}`, this.#lock, () => {
        removeLeftovers(dir);
        const { disk, catchUp: pending } = this.#sync(dir, name);
        catchUp = pending;
        // Decide on a copy holding just this version as on disk, with the time to record.
        const at = this.#now();
        const scratch = new ToolRegistry({ now: () => at });
        const v = disk.versions.find((v) => v.spec.version === version);
        if (v) scratch.restore({ spec: v.spec, history: v.history });
        const record = change(scratch);
        const lifecycle: Lifecycle = { ...disk.lifecycle, [version]: record.history };
        replaceAtomic(path.join(dir, LIFECYCLE_FILE), formatLifecycle(lifecycle));
        return at;
      });
    } finally {
      catchUp();
    }
    return this.#mirror(at, () => change(this.#registry));
  }
}
