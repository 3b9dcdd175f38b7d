/**
 * The folder store's tasks (`tools/call`s answered with a handle the client polls): one file per
 * task, `.tasks/<id>.json` (a folder git ignores: runtime, not estate). A task is created
 * exclusively (linked into place complete); a change is a compare-and-set on its revision under
 * the folder's lock, so of two processes changing one task at once exactly one wins.
 *
 * @module
 */
import fs from "node:fs";
import path from "node:path";
import { compareTaskAge, type TaskRecord, type TaskStore } from "../estate/tasks.ts";
import { createExclusive, ensureRuntimeDir, replaceAtomic } from "./_atomic.ts";
import { type LockOptions, withLock } from "./_lock.ts";

/** The folder of tasks, in the estate's folder. */
export const TASKS_DIR = ".tasks";

/** Ids this store makes files of: random UUIDs (anything else names no file). */
const ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function read(file: string): TaskRecord | undefined {
  try {
    return JSON.parse(fs.readFileSync(file, "utf8")) as TaskRecord;
  } catch (e) {
    if ((e as { code?: string }).code === "ENOENT") return undefined;
    throw e;
  }
}

/** The tasks of the estate in folder `estate`. */
export class TaskDir implements TaskStore {
  readonly #dir: string;
  readonly #lock: LockOptions;

  /**
   * @param estate The estate's folder.
   * @param lock How long to wait for the folder's lock.
   */
  constructor(estate: string, lock: LockOptions) {
    this.#dir = path.join(estate, TASKS_DIR);
    this.#lock = lock;
  }

  #file(id: string): string | undefined {
    return ID.test(id) ? path.join(this.#dir, `${id}.json`) : undefined;
  }

  create(task: TaskRecord): void {
    ensureRuntimeDir(this.#dir);
    const file = this.#file(task.taskId);
    if (!file) throw new Error(`Task id ${JSON.stringify(task.taskId)} is not a UUID`);
    if (!createExclusive(file, JSON.stringify(task))) {
      throw new Error(`Task ${task.taskId} exists already in ${this.#dir}`);
    }
  }

  get(taskId: string): TaskRecord | undefined {
    const file = this.#file(taskId);
    return file === undefined ? undefined : read(file);
  }

  list(owner: string): TaskRecord[] {
    let names: string[];
    try {
      names = fs.readdirSync(this.#dir);
    } catch (e) {
      if ((e as { code?: string }).code === "ENOENT") return [];
      throw e;
    }
    const tasks: TaskRecord[] = [];
    for (const name of names) {
      if (!name.endsWith(".json") || !ID.test(name.slice(0, -5))) continue;
      try {
        const task = read(path.join(this.#dir, name));
        if (task && task.owner === owner) tasks.push(task);
      } catch {
        // a file that cannot be read is not listed
      }
    }
    return tasks.sort(compareTaskAge);
  }

  change(next: TaskRecord): boolean {
    const file = this.#file(next.taskId);
    if (!file || !fs.existsSync(file)) return false;
    return withLock(this.#dir, "change a task", this.#lock, () => {
      const stored = read(file);
      if (!stored || stored.revision !== next.revision - 1) return false;
      replaceAtomic(file, JSON.stringify(next));
      return true;
    });
  }

  remove(taskId: string): boolean {
    const file = this.#file(taskId);
    if (!file || !fs.existsSync(file)) return false;
    return withLock(this.#dir, "remove a task", this.#lock, () => {
      if (!fs.existsSync(file)) return false;
      fs.rmSync(file, { force: true });
      return true;
    });
  }
}
