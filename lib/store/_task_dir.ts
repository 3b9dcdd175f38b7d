/**
 * The folder store's tasks (`tools/call`s answered with a handle the client polls): one file per
 * task, `.tasks/<id>.json` (a folder git ignores: runtime, not estate), kept in a
 * {@linkcode RecordDir}. A change is a compare-and-set on the task's revision under the folder's
 * lock, so of two processes changing one task at once exactly one wins.
 *
 * @module
 */
import path from "node:path";
import { compareTaskAge, type TaskRecord, type TaskStore } from "../estate/tasks.ts";
import type { LockOptions } from "./_lock.ts";
import { RecordDir } from "./_record_dir.ts";

/** The folder of tasks, in the estate's folder. */
export const TASKS_DIR = ".tasks";

/** The tasks of the estate in folder `estate`. */
export class TaskDir implements TaskStore {
  readonly #records: RecordDir<TaskRecord>;

  /**
   * @param estate The estate's folder.
   * @param lock How long to wait for the folder's lock.
   */
  constructor(estate: string, lock: LockOptions) {
    this.#records = new RecordDir(path.join(estate, TASKS_DIR), lock, "task");
  }

  create(task: TaskRecord): void {
    this.#records.create(task.taskId, task);
  }

  get(taskId: string): TaskRecord | undefined {
    return this.#records.get(taskId);
  }

  list(owner: string): TaskRecord[] {
    return this.#records.list().filter((t) => t.owner === owner).sort(compareTaskAge);
  }

  change(next: TaskRecord): boolean {
    return this.#records.change(
      next.taskId,
      next,
      (stored) => stored.revision === next.revision - 1,
      "change",
    );
  }

  remove(taskId: string): boolean {
    return this.#records.remove(taskId);
  }
}
