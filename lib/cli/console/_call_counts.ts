/**
 * Each tool's stored calls as a running {@linkcode CallStats}, kept up to date by reading only what
 * was appended since the last read (`EstateStore.callsAfter`): a page about a tool with a million
 * stored calls costs the calls appended since it was last shown, not a million. One read at a time
 * per tool; a store that says its cursor no longer fits (a rewritten file) is counted again.
 *
 * @module
 */
import { CallStats } from "../../../mod.ts";
import type { EstateStore } from "../../store/mod.ts";

interface Entry {
  cursor?: string;
  stats: CallStats;
  tail: Promise<CallStats>;
}

/** The running call counts of an estate's tools. */
export class CallCounts {
  readonly #estate: EstateStore;
  readonly #tools = new Map<string, Entry>();

  /**
   * @param estate Where the calls are stored.
   */
  constructor(estate: EstateStore) {
    this.#estate = estate;
  }

  /**
   * A tool's counts, brought up to date.
   *
   * @param name The tool.
   * @returns Its counts (shared: read, do not add).
   */
  of(name: string): Promise<CallStats> {
    let entry = this.#tools.get(name);
    if (!entry) {
      const stats = new CallStats();
      entry = { stats, tail: Promise.resolve(stats) };
      this.#tools.set(name, entry);
    }
    const e = entry;
    const next = e.tail.catch(() => e.stats).then(() => this.#catchUp(name, e));
    e.tail = next;
    return next;
  }

  async #catchUp(name: string, e: Entry): Promise<CallStats> {
    for (;;) {
      const batch = await this.#estate.callsAfter(name, e.cursor);
      if (batch.restarted) e.stats = new CallStats();
      for (const call of batch.calls) e.stats.add(call);
      e.cursor = batch.cursor;
      if (!batch.more) return e.stats;
    }
  }
}
