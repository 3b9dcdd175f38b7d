/**
 * `estate serve --record-calls` over a database store: accepted calls are queued, written in
 * batches, and kept when the database cannot take them (a restart, a lost connection), to be
 * written when it is back, so an outage loses no recorded call. The queue is bounded: past
 * {@linkcode RECORDER_LIMIT} waiting calls the oldest are dropped, and the log says how many.
 *
 * @module
 */
import type { StoredCall } from "../../mod.ts";
import type { EstateStore } from "../store/mod.ts";

/** How many calls may wait for the database before the oldest are dropped. */
export const RECORDER_LIMIT = 100_000;

/** A call to record, and its tool. */
interface Pending {
  tool: string;
  call: StoredCall;
}

/** Records calls into a store whose appends are asynchronous. */
export class CallRecorder {
  readonly #store: EstateStore;
  readonly #log: (line: string) => void;
  readonly #limit: number;
  readonly #retryMs: number;
  #queue: Pending[] = [];
  #flushing: Promise<void> | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #failing = false;
  #dropped = 0;
  #closed = false;

  /**
   * @param store The store calls are appended to.
   * @param options `log`: the server log; `limit`: the queue's bound; `retryMs`: how long to wait
   *   after a failed write before trying again (default 500 ms).
   */
  constructor(
    store: EstateStore,
    options: { log: (line: string) => void; limit?: number; retryMs?: number },
  ) {
    this.#store = store;
    this.#log = options.log;
    this.#limit = options.limit ?? RECORDER_LIMIT;
    this.#retryMs = options.retryMs ?? 500;
  }

  /** How many calls wait to be written. */
  get waiting(): number {
    return this.#queue.length;
  }

  /** Queues a call; it is written with the next batch. */
  record(tool: string, call: StoredCall): void {
    if (this.#closed) return;
    this.#queue.push({ tool, call });
    if (this.#queue.length > this.#limit) {
      const over = this.#queue.length - this.#limit;
      this.#queue.splice(0, over);
      this.#dropped += over;
    }
    this.#schedule(0);
  }

  #schedule(delayMs: number): void {
    if (this.#timer !== undefined || this.#flushing) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#flushing = this.#flush().finally(() => {
        this.#flushing = undefined;
        if (this.#queue.length && !this.#closed) {
          this.#schedule(this.#failing ? this.#retryMs : 0);
        }
      });
    }, delayMs);
  }

  /** Writes what is queued, tool by tool, in order; on a failure keeps the rest for later. */
  async #flush(): Promise<void> {
    while (this.#queue.length) {
      const tool = this.#queue[0].tool;
      let n = 0;
      while (
        n < this.#queue.length && n < 1000 && this.#queue[n].tool === tool
      ) n++;
      const batch = this.#queue.slice(0, n);
      try {
        await this.#store.appendCalls(tool, batch.map((p) => p.call));
      } catch (e) {
        if (!this.#failing) {
          this.#log(
            `could not record calls (${this.#queue.length} waiting, kept until the store takes them): ${
              (e as Error).message
            }`,
          );
        }
        this.#failing = true;
        if (isRefusal(e)) {
          // The store will never take these (the tool is not published there): drop them.
          this.#log(`dropped ${n} call(s) of ${tool}: ${(e as Error).message}`);
          this.#queue.splice(0, n);
          continue;
        }
        return;
      }
      this.#queue.splice(0, n);
      if (this.#failing) {
        this.#failing = false;
        this.#log(
          `recording calls again${this.#dropped ? ` (${this.#dropped} dropped)` : ""}`,
        );
        this.#dropped = 0;
      }
    }
  }

  /** Writes what is queued (trying for at most `timeoutMs`), then stops taking calls. */
  async close(timeoutMs = 2000): Promise<void> {
    const until = Date.now() + timeoutMs;
    while (this.#queue.length && Date.now() < until) {
      if (this.#timer !== undefined) {
        clearTimeout(this.#timer);
        this.#timer = undefined;
      }
      await this.#flushing;
      if (!this.#queue.length) break;
      await this.#flush();
      if (this.#queue.length) await new Promise((r) => setTimeout(r, 100));
    }
    this.#closed = true;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    await this.#flushing;
    if (this.#queue.length) {
      this.#log(`stopping with ${this.#queue.length} call(s) not recorded`);
    }
  }
}

/** Whether an append failed for a reason a retry cannot change (not a connection problem). */
function isRefusal(e: unknown): boolean {
  return e instanceof TypeError ||
    /no version is published/.test((e as Error)?.message ?? "");
}
