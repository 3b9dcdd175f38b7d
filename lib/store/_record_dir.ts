/**
 * A folder of runtime records, one JSON file per record named by its id (a random UUID), in a
 * folder git ignores: what the folder store keeps pending calls (`.pending-calls/`) and tasks
 * (`.tasks/`) in. A record is created exclusively (linked into place complete); a change is a
 * compare-and-set under the folder's lock, so of two processes changing one record at once exactly
 * one wins. An id that is no UUID names no file.
 *
 * @module
 */
import fs from "node:fs";
import path from "node:path";
import { createExclusive, ensureRuntimeDir, replaceAtomic } from "./_atomic.ts";
import { type LockOptions, withLock } from "./_lock.ts";

/** Ids this folder makes files of: random UUIDs. */
const ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function read<T>(file: string): T | undefined {
  try {
    return JSON.parse(fs.readFileSync(file, "utf8")) as T;
  } catch (e) {
    if ((e as { code?: string }).code === "ENOENT") return undefined;
    throw e;
  }
}

/** One folder of records of type `T`. */
export class RecordDir<T> {
  /** The folder. */
  readonly dir: string;
  readonly #lock: LockOptions;
  /** What a record is called in errors and lock holders' names ("pending call", "task"). */
  readonly #what: string;

  /**
   * @param dir The folder.
   * @param lock How long to wait for the folder's lock.
   * @param what What a record is called in messages.
   */
  constructor(dir: string, lock: LockOptions, what: string) {
    this.dir = dir;
    this.#lock = lock;
    this.#what = what;
  }

  #file(id: string): string | undefined {
    return ID.test(id) ? path.join(this.dir, `${id}.json`) : undefined;
  }

  /** Keeps a new record; throws when its id is no UUID or is taken. */
  create(id: string, record: T): void {
    ensureRuntimeDir(this.dir);
    const file = this.#file(id);
    if (!file) throw new Error(`${this.#capital()} id ${JSON.stringify(id)} is not a UUID`);
    if (!createExclusive(file, JSON.stringify(record))) {
      throw new Error(`${this.#capital()} ${id} exists already in ${this.dir}`);
    }
  }

  /** One record by id, or undefined. */
  get(id: string): T | undefined {
    const file = this.#file(id);
    return file === undefined ? undefined : read<T>(file);
  }

  /** Every readable record, in no order (a file that cannot be read is left out). */
  list(): T[] {
    let names: string[];
    try {
      names = fs.readdirSync(this.dir);
    } catch (e) {
      if ((e as { code?: string }).code === "ENOENT") return [];
      throw e;
    }
    const records: T[] = [];
    for (const name of names) {
      if (!name.endsWith(".json") || !ID.test(name.slice(0, -5))) continue;
      try {
        const record = read<T>(path.join(this.dir, name));
        if (record) records.push(record);
      } catch {
        // a file that cannot be read is not listed
      }
    }
    return records;
  }

  /**
   * Replaces a record with `next` when the stored one passes `stillAsRead`, under the lock.
   *
   * @returns False when there is none, or it changed since it was read.
   */
  change(id: string, next: T, stillAsRead: (stored: T) => boolean, verb: string): boolean {
    const file = this.#file(id);
    if (!file || !fs.existsSync(file)) return false;
    return withLock(this.dir, `${verb} a ${this.#what}`, this.#lock, () => {
      const stored = read<T>(file);
      if (!stored || !stillAsRead(stored)) return false;
      replaceAtomic(file, JSON.stringify(next));
      return true;
    });
  }

  /** Removes a record under the lock; false when there was none. */
  remove(id: string): boolean {
    const file = this.#file(id);
    if (!file || !fs.existsSync(file)) return false;
    return withLock(this.dir, `remove a ${this.#what}`, this.#lock, () => {
      if (!fs.existsSync(file)) return false;
      fs.rmSync(file, { force: true });
      return true;
    });
  }

  #capital(): string {
    return this.#what[0].toUpperCase() + this.#what.slice(1);
  }
}
