/**
 * The estate the language server checks drafts against: the published versions and the server
 * records loaded from the estate folder, the stored calls held in memory once read, so that a
 * check on every keystroke does not read `calls.jsonl` again, and the gateway's drift log, read
 * again only when the file changed.
 *
 * @module
 */
import fs from "node:fs";
import path from "node:path";
import { CallIndex } from "../../lib/estate/call_index.ts";
import { checkDraft, type DraftReport } from "../../lib/estate/check_draft.ts";
import type { DriftRecord } from "../../lib/estate/drift.ts";
import { type DriftNotice, driftNotices } from "../../lib/estate/drift_notices.ts";
import { ToolRegistry } from "../../lib/estate/registry.ts";
import type { StoredCall } from "../../lib/estate/replay.ts";
import type { ToolSpec } from "../../lib/estate/spec.ts";
import { DRIFT_FILE } from "../../lib/store/drift_log.ts";
import { EstateDir } from "../../lib/store/estate_dir.ts";
import { proposalId } from "../../lib/store/proposals.ts";
import type { ApprovalPolicy } from "../../lib/estate/approval.ts";
import type { Proposal } from "../../lib/estate/proposal.ts";

/** Options for {@linkcode EstateSnapshot.load}. */
export interface SnapshotOptions {
  /**
   * The clock: a deprecated version whose retire-after date has passed by it is retired, as the
   * server and the CLI retire it at the same moment. Default: `new Date()`.
   */
  now?: () => Date;
}

/**
 * One load of an estate folder. Build a new one when the folder changes on disk; retirement on
 * its date needs no reload (the registry applies it when read, by its clock).
 *
 * The stored-call replay is the slow part of a check (every call of the draft's major line goes
 * through the draft's schema). `check()` replays through a `CallIndex` per tool, so a keystroke
 * re-validates only the parts of the schema it changed.
 */
export class EstateSnapshot {
  /** The folder loaded. */
  readonly dir: string;
  /** The published versions, with stored calls served from memory. */
  readonly registry: ToolRegistry;
  readonly #readCalls: (name: string) => Iterable<StoredCall>;
  readonly #readDrift: () => Iterable<DriftRecord>;
  readonly #approval: { policy?: ApprovalPolicy; proposals: () => Proposal[] };
  readonly #calls = new Map<string, StoredCall[]>();
  readonly #indexes = new Map<string, CallIndex>();
  #drift: { stamp: string; records: DriftRecord[]; error?: unknown } | undefined;

  private constructor(
    dir: string,
    published: ToolRegistry,
    read: {
      calls: (name: string) => Iterable<StoredCall>;
      drift: () => Iterable<DriftRecord>;
      approval?: { policy?: ApprovalPolicy; proposals: () => Proposal[] };
    },
    options: SnapshotOptions = {},
  ) {
    this.dir = dir;
    this.#approval = read.approval ?? { proposals: () => [] };
    this.#readCalls = read.calls;
    this.#readDrift = read.drift;
    this.registry = new ToolRegistry({
      storedCalls: (name) => this.calls(name),
      ...(options.now ? { now: options.now } : {}),
      // The estate's compatibility mode (estate.json), for drafts that declare none.
      compatibility: published.compatibility,
    });
    for (const name of published.names()) {
      for (const record of published.versions(name)) {
        this.registry.restore({ spec: record.spec, history: record.history });
      }
    }
    this.registry.restoreServers(published.servers());
  }

  /**
   * Loads an estate folder.
   *
   * @param dir The folder (`tools/<name>/<version>.json`, `lifecycle.json`, `calls.jsonl`,
   *   `servers/<id>.json`, `drift.jsonl`).
   * @param options The clock.
   * @returns The snapshot.
   * @throws {CorpusError} When a version or lifecycle file is bad.
   * @throws {Error} When the folder does not exist.
   */
  static load(dir: string, options: SnapshotOptions = {}): EstateSnapshot {
    const disk = EstateDir.open(dir, options.now ? { now: options.now } : {});
    return new EstateSnapshot(
      dir,
      disk.registry,
      {
        calls: (name) => disk.readCalls(name),
        drift: () => disk.readDrift(),
        // The approval policy as loaded; the proposals read at each check (approvals come and go).
        approval: { policy: disk.settings().approval, proposals: () => disk.proposals() },
      },
      options,
    );
  }

  /**
   * An empty estate: every draft is a new tool (schema and description checks still apply).
   *
   * @param dir What to call it.
   * @returns The snapshot.
   */
  static empty(dir: string): EstateSnapshot {
    return new EstateSnapshot(dir, new ToolRegistry(), { calls: () => [], drift: () => [] });
  }

  /**
   * A tool's stored calls, read from disk once and then kept.
   *
   * @param name The tool.
   * @returns The calls, in file order.
   * @throws {CorpusError} Naming the file and line of a bad line.
   */
  calls(name: string): StoredCall[] {
    let calls = this.#calls.get(name);
    if (!calls) {
      calls = this.registry.versions(name).length ? [...this.#readCalls(name)] : [];
      this.#calls.set(name, calls);
    }
    return calls;
  }

  /**
   * Checks a draft against this estate: exactly `estate check`'s report, its approval state
   * included when the estate has an approval policy (the proposal of exactly `text`).
   *
   * @param spec The draft, parsed with `parseToolSpec`.
   * @param text The draft's text, whose hash names its proposal. Default: no proposal looked up.
   * @returns The report.
   * @throws {CorpusError} When the tool's `calls.jsonl` has a bad line, or a proposal file is bad.
   */
  check(spec: ToolSpec, text?: string): DraftReport {
    const policy = this.#approval.policy;
    const id = policy && text !== undefined ? proposalId(text) : undefined;
    const proposal = id === undefined
      ? undefined
      : this.#approval.proposals().find((p) => p.id === id);
    let index = this.#indexes.get(spec.name);
    if (!index) {
      index = new CallIndex(this.calls(spec.name));
      this.#indexes.set(spec.name, index);
    }
    const replay = index;
    return checkDraft(spec, this.registry, {
      replay: (schema, o) => replay.rejections(schema, o),
      ...(policy ? { approval: { policy, ...(proposal ? { proposal } : {}) } } : {}),
    });
  }

  /**
   * The gateway's drift log (`drift.jsonl`), read again when the file's size or modification time
   * changed since the last read: a check costs one `stat`, not a read of the log. A bad log is
   * not read again until it changes either.
   *
   * @returns The records, in file order; none when there is no log.
   * @throws {CorpusError} Naming the file and line of a bad line.
   */
  drift(): DriftRecord[] {
    let stamp = "none";
    try {
      const st = fs.statSync(path.join(this.dir, DRIFT_FILE), { bigint: true });
      stamp = `${st.ino}:${st.size}:${st.mtimeNs}`;
    } catch {
      // No log (or an empty estate): no drift.
    }
    if (this.#drift?.stamp !== stamp) {
      try {
        this.#drift = { stamp, records: stamp === "none" ? [] : [...this.#readDrift()] };
      } catch (error) {
        this.#drift = { stamp, records: [], error };
      }
    }
    if (this.#drift.error !== undefined) throw this.#drift.error;
    return this.#drift.records;
  }

  /**
   * What the tool's owner is told of its drift now (see `driftNotices`).
   *
   * @param name The tool.
   * @returns The notices.
   * @throws {CorpusError} When `drift.jsonl` has a bad line.
   */
  driftNotices(name: string): DriftNotice[] {
    return driftNotices(this.drift(), name, this.registry);
  }
}
