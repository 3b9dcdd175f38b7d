/**
 * The folder store's pending calls (calls that wait on a person): one file per call,
 * `.pending-calls/<id>.json` (a folder git ignores: runtime, not estate). A call is created
 * exclusively (linked into place complete); a decision is a compare-and-set on its state under
 * the folder's lock, so of two processes deciding one call exactly one wins.
 *
 * @module
 */
import fs from "node:fs";
import path from "node:path";
import type { PendingCall, PendingCallState, PendingCallStore } from "../estate/call_approvals.ts";
import { createExclusive, ensureRuntimeDir, replaceAtomic } from "./_atomic.ts";
import { type LockOptions, withLock } from "./_lock.ts";

/** The folder of pending calls, in the estate's folder. */
export const PENDING_CALLS_DIR = ".pending-calls";

/** Ids this store makes files of: random UUIDs (anything else names no file). */
const ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function read(file: string): PendingCall | undefined {
  try {
    return JSON.parse(fs.readFileSync(file, "utf8")) as PendingCall;
  } catch (e) {
    if ((e as { code?: string }).code === "ENOENT") return undefined;
    throw e;
  }
}

/** The pending calls of the estate in folder `estate`. */
export class PendingCallDir implements PendingCallStore {
  readonly #dir: string;
  readonly #lock: LockOptions;

  /**
   * @param estate The estate's folder.
   * @param lock How long to wait for the folder's lock.
   */
  constructor(estate: string, lock: LockOptions) {
    this.#dir = path.join(estate, PENDING_CALLS_DIR);
    this.#lock = lock;
  }

  #file(id: string): string | undefined {
    return ID.test(id) ? path.join(this.#dir, `${id}.json`) : undefined;
  }

  hold(call: PendingCall): void {
    ensureRuntimeDir(this.#dir);
    const file = this.#file(call.id);
    if (!file) throw new Error(`Pending call id ${JSON.stringify(call.id)} is not a UUID`);
    if (!createExclusive(file, JSON.stringify(call))) {
      throw new Error(`Pending call ${call.id} exists already in ${this.#dir}`);
    }
  }

  get(id: string): PendingCall | undefined {
    const file = this.#file(id);
    return file === undefined ? undefined : read(file);
  }

  list(): PendingCall[] {
    let names: string[];
    try {
      names = fs.readdirSync(this.#dir);
    } catch (e) {
      if ((e as { code?: string }).code === "ENOENT") return [];
      throw e;
    }
    const calls: PendingCall[] = [];
    for (const name of names) {
      if (!name.endsWith(".json") || !ID.test(name.slice(0, -5))) continue;
      try {
        const call = read(path.join(this.#dir, name));
        if (call) calls.push(call);
      } catch {
        // a file that cannot be read is not listed
      }
    }
    return calls.sort((a, b) =>
      a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : a.id < b.id ? -1 : 1
    );
  }

  change(next: PendingCall, from: PendingCallState): boolean {
    const file = this.#file(next.id);
    if (!file || !fs.existsSync(file)) return false;
    return withLock(this.#dir, "decide a pending call", this.#lock, () => {
      const stored = read(file);
      if (!stored || stored.state !== from) return false;
      replaceAtomic(file, JSON.stringify(next));
      return true;
    });
  }
}
