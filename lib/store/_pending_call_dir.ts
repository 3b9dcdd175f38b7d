/**
 * The folder store's pending calls (calls that wait on a person): one file per call,
 * `.pending-calls/<id>.json` (a folder git ignores: runtime, not estate), kept in a
 * {@linkcode RecordDir}. A decision is a compare-and-set on the call's state under the folder's
 * lock, so of two processes deciding one call exactly one wins.
 *
 * @module
 */
import path from "node:path";
import type { PendingCall, PendingCallState, PendingCallStore } from "../estate/call_approvals.ts";
import type { LockOptions } from "./_lock.ts";
import { RecordDir } from "./_record_dir.ts";

/** The folder of pending calls, in the estate's folder. */
export const PENDING_CALLS_DIR = ".pending-calls";

/** The pending calls of the estate in folder `estate`. */
export class PendingCallDir implements PendingCallStore {
  readonly #records: RecordDir<PendingCall>;

  /**
   * @param estate The estate's folder.
   * @param lock How long to wait for the folder's lock.
   */
  constructor(estate: string, lock: LockOptions) {
    this.#records = new RecordDir(path.join(estate, PENDING_CALLS_DIR), lock, "pending call");
  }

  hold(call: PendingCall): void {
    this.#records.create(call.id, call);
  }

  get(id: string): PendingCall | undefined {
    return this.#records.get(id);
  }

  list(): PendingCall[] {
    return this.#records.list().sort((a, b) =>
      a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : a.id < b.id ? -1 : 1
    );
  }

  change(next: PendingCall, from: PendingCallState): boolean {
    return this.#records.change(next.id, next, (stored) => stored.state === from, "decide");
  }
}
