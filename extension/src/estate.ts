/**
 * The estate the language server checks drafts against: the published versions loaded from the
 * estate folder, and the stored calls held in memory once read, so that a check on every
 * keystroke does not read `calls.jsonl` again.
 *
 * @module
 */
import { CallIndex } from "../../lib/estate/call_index.ts";
import { checkDraft, type DraftReport } from "../../lib/estate/check_draft.ts";
import { ToolRegistry } from "../../lib/estate/registry.ts";
import type { StoredCall } from "../../lib/estate/replay.ts";
import type { ToolSpec } from "../../lib/estate/spec.ts";
import { EstateDir } from "../../lib/store/estate_dir.ts";

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
  readonly #calls = new Map<string, StoredCall[]>();
  readonly #indexes = new Map<string, CallIndex>();

  private constructor(
    dir: string,
    published: ToolRegistry,
    readCalls: (name: string) => Iterable<StoredCall>,
    options: SnapshotOptions = {},
  ) {
    this.dir = dir;
    this.#readCalls = readCalls;
    this.registry = new ToolRegistry({
      storedCalls: (name) => this.calls(name),
      ...(options.now ? { now: options.now } : {}),
    });
    for (const name of published.names()) {
      for (const record of published.versions(name)) {
        this.registry.restore({ spec: record.spec, history: record.history });
      }
    }
  }

  /**
   * Loads an estate folder.
   *
   * @param dir The folder (`tools/<name>/<version>.json`, `lifecycle.json`, `calls.jsonl`).
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
      (name) => disk.readCalls(name),
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
    return new EstateSnapshot(dir, new ToolRegistry(), () => []);
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
   * Checks a draft against this estate: exactly `estate check`'s report.
   *
   * @param spec The draft, parsed with `parseToolSpec`.
   * @returns The report.
   * @throws {CorpusError} When the tool's `calls.jsonl` has a bad line.
   */
  check(spec: ToolSpec): DraftReport {
    let index = this.#indexes.get(spec.name);
    if (!index) {
      index = new CallIndex(this.calls(spec.name));
      this.#indexes.set(spec.name, index);
    }
    const replay = index;
    return checkDraft(spec, this.registry, {
      replay: (schema, o) => replay.rejections(schema, o),
    });
  }
}
