/**
 * Tasks: a `tools/call` answered with a durable handle instead of its result (MCP's tasks, the
 * experimental core feature of 2025-11-25 and the extension `io.modelcontextprotocol/tasks` of
 * 2026-07-28). This module is the pure model both eras' wire shapes are made from: the task record
 * ({@linkcode TaskRecord}), its statuses and their one-way moves, who may see a task (only its
 * principal, and only until its TTL ends), and {@linkcode TaskStore}, where tasks are kept so that
 * every replica answers for them. Changing a task is a compare-and-set on its revision
 * ({@linkcode changeTask}); finishing one from outside the call that made it is
 * {@linkcode finishTask}.
 *
 * @module
 */

/** Where a task stands. `completed`, `failed` and `cancelled` are terminal: they never change. */
export type TaskStatus = "working" | "input_required" | "completed" | "failed" | "cancelled";

/** The statuses, the non-terminal ones first. */
export const TASK_STATUSES: readonly TaskStatus[] = [
  "working",
  "input_required",
  "completed",
  "failed",
  "cancelled",
];

/** A JSON-RPC error as a failed task keeps it (the wire's error object). */
export interface TaskError {
  /** The JSON-RPC error code. */
  code: number;
  /** What went wrong. */
  message: string;
  /** The error's `data`, if any. */
  data?: unknown;
}

/**
 * One task, as every store keeps it (JSON). Timestamps are ISO 8601 strings; `revision` counts
 * the changes (a new task is revision 1), so that a change is a compare-and-set.
 */
export interface TaskRecord {
  /** Its id: a random UUID, made by the server. */
  taskId: string;
  /** The id of the principal it belongs to: nobody else may see it. */
  owner: string;
  /** The request it answers, e.g. `tools/call`. */
  method: string;
  /** The tool (or other name) the request named. */
  name: string;
  /** Where it stands. */
  status: TaskStatus;
  /** What the server says of where it stands, if anything. */
  statusMessage?: string;
  /** When it was made. */
  createdAt: string;
  /** When it last changed. */
  lastUpdatedAt: string;
  /** How long it is kept from `createdAt`, in ms; null: until deleted. */
  ttlMs: number | null;
  /** How often a client should poll it, in ms. */
  pollIntervalMs: number;
  /** The request's result, once `completed` (for `tools/call`: the `CallToolResult`). */
  result?: Record<string, unknown>;
  /** The JSON-RPC error, once `failed`. */
  error?: TaskError;
  /**
   * While `input_required`: the requests to the client still unanswered, by key (each
   * `{method, params}`, as 2026-07-28's `inputRequests`).
   */
  inputRequests?: Record<string, { method: string; params?: Record<string, unknown> }>;
  /** Answers the client gave (`tasks/update`), by key, not yet taken by the work. */
  inputResponses?: Record<string, unknown>;
  /** Every key ever asked: a key is never asked twice in a task's life. */
  askedKeys?: string[];
  /** Set by a cancel request that the work has not yet acted on. */
  cancelRequested?: boolean;
  /** The number of changes made to it, 1 when new. */
  revision: number;
}

/**
 * Where tasks are kept, shared by every replica that may be asked about them: the memory of one
 * server ({@linkcode memoryTaskStore}), or the estate's store (`EstateStore.tasks()`: the folder's
 * `.tasks/`, PostgreSQL's table `tasks`). Records are stored as given; who may see one and whether
 * it has expired is decided by the reader ({@linkcode visibleTask}).
 */
export interface TaskStore {
  /** Keeps a new task (its id is new: a second create of one id throws). */
  create(task: TaskRecord): void | Promise<void>;
  /** One task by id, as stored; undefined when there is none. */
  get(taskId: string): TaskRecord | undefined | Promise<TaskRecord | undefined>;
  /** The tasks of one owner, oldest first (then by id). */
  list(owner: string): TaskRecord[] | Promise<TaskRecord[]>;
  /**
   * Replaces the task whose stored revision is `next.revision - 1` with `next`; false when the
   * stored one is another revision (someone changed it first) or there is none.
   */
  change(next: TaskRecord): boolean | Promise<boolean>;
  /** Removes a task (an expired one, say); false when there was none. */
  remove(taskId: string): boolean | Promise<boolean>;
  /**
   * Optional: hears of every task created or changed by any writer (PostgreSQL: `LISTEN
   * estate_tasks`), with the task's id, so that a wait on another replica wakes at once instead
   * of at its next read. Without it, waits read the store on a timer.
   *
   * @param listener Hears each task id as its task changes.
   * @returns Stops listening.
   */
  watch?(listener: (taskId: string) => void): Promise<{ close(): Promise<void> | void }>;
}

/**
 * Whether a status is terminal (`completed`, `failed`, `cancelled`).
 *
 * @param status The status.
 * @returns True when the task can no longer change.
 *
 * @example
 * ```ts
 * import { isTerminalTaskStatus } from "@tool-estate/core";
 * import assert from "node:assert/strict";
 * assert.equal(isTerminalTaskStatus("completed"), true);
 * assert.equal(isTerminalTaskStatus("input_required"), false);
 * ```
 */
export function isTerminalTaskStatus(status: TaskStatus): boolean {
  return status === "completed" || status === "failed" || status === "cancelled";
}

/**
 * Whether a task has outlived its TTL.
 *
 * @param task The task.
 * @param now The time, in ms since the epoch.
 * @returns True when `createdAt + ttlMs` has passed.
 */
export function taskExpired(task: TaskRecord, now: number): boolean {
  return task.ttlMs !== null && Date.parse(task.createdAt) + task.ttlMs <= now;
}

/**
 * A task as one principal may see it: the task when it is theirs and has not expired; undefined
 * otherwise — another principal's task and an expired one answer exactly as a task that does not
 * exist.
 *
 * @param task The stored task, or undefined.
 * @param options Who asks, and when.
 * @returns The task, or undefined.
 *
 * @example
 * ```ts
 * import { newTaskRecord, visibleTask } from "@tool-estate/core";
 * import assert from "node:assert/strict";
 * const task = newTaskRecord({ owner: "ana", method: "tools/call", name: "t", now: 0, ttlMs: 1000 });
 * assert.equal(visibleTask(task, { principal: "ana", now: 10 }), task);
 * assert.equal(visibleTask(task, { principal: "bo", now: 10 }), undefined);
 * assert.equal(visibleTask(task, { principal: "ana", now: 1000 }), undefined);
 * ```
 */
export function visibleTask(
  task: TaskRecord | undefined,
  options: { principal: string; now: number },
): TaskRecord | undefined {
  if (!task || task.owner !== options.principal) return undefined;
  return taskExpired(task, options.now) ? undefined : task;
}

/** What {@linkcode newTaskRecord} needs. */
export interface NewTaskOptions {
  /** The principal's id. */
  owner: string;
  /** The request, e.g. `tools/call`. */
  method: string;
  /** The tool's name. */
  name: string;
  /** The time, in ms since the epoch. */
  now: number;
  /** How long it is kept, in ms; null: until deleted. Default one hour. */
  ttlMs?: number | null;
  /** How often to poll, in ms. Default 1000. */
  pollIntervalMs?: number;
  /** The first status: `working` (default) or `input_required`. */
  status?: "working" | "input_required";
  /** The first status message. */
  statusMessage?: string;
  /** The id; default a random UUID. */
  taskId?: string;
}

/** The default TTL of a task: one hour. */
export const DEFAULT_TASK_TTL_MS = 3_600_000;
/** The default poll interval a task suggests: one second. */
export const DEFAULT_TASK_POLL_INTERVAL_MS = 1000;

/**
 * A new task record (revision 1).
 *
 * @param options Whose, for what, when, and how long.
 * @returns The record.
 */
export function newTaskRecord(options: NewTaskOptions): TaskRecord {
  const at = new Date(options.now).toISOString();
  const ttl = options.ttlMs === undefined ? DEFAULT_TASK_TTL_MS : options.ttlMs;
  const task: TaskRecord = {
    taskId: options.taskId ?? crypto.randomUUID(),
    owner: options.owner,
    method: options.method,
    name: options.name,
    status: options.status ?? "working",
    createdAt: at,
    lastUpdatedAt: at,
    ttlMs: ttl === null ? null : Math.max(1, Math.round(ttl)),
    pollIntervalMs: Math.max(
      1,
      Math.round(options.pollIntervalMs ?? DEFAULT_TASK_POLL_INTERVAL_MS),
    ),
    revision: 1,
  };
  if (options.statusMessage !== undefined) task.statusMessage = options.statusMessage;
  return task;
}

/**
 * Changes a task by compare-and-set: reads it, asks `edit` for the next form, and stores that
 * unless someone changed the task meanwhile (then reads again). A terminal task is never changed.
 *
 * @param store The store.
 * @param options The task's id, the edit (undefined from it: no change), and the clock.
 * @returns The task as stored after the change (or as it was, when `edit` made none); undefined
 *   when there is no such task.
 *
 * @example
 * ```ts
 * import { changeTask, memoryTaskStore, newTaskRecord } from "@tool-estate/core";
 * import assert from "node:assert/strict";
 * const store = memoryTaskStore();
 * const task = newTaskRecord({ owner: "ana", method: "tools/call", name: "t", now: 0 });
 * store.create(task);
 * const next = await changeTask(store, {
 *   taskId: task.taskId,
 *   edit: (t) => ({ ...t, statusMessage: "half way" }),
 * });
 * assert.equal(next?.statusMessage, "half way");
 * assert.equal(next?.revision, 2);
 * ```
 */
export async function changeTask(
  store: TaskStore,
  options: {
    taskId: string;
    edit: (task: TaskRecord) => TaskRecord | undefined;
    now?: number;
  },
): Promise<TaskRecord | undefined> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const current = await store.get(options.taskId);
    if (!current) return undefined;
    if (isTerminalTaskStatus(current.status)) return current;
    const edited = options.edit(structuredClone(current));
    if (!edited) return current;
    const next: TaskRecord = {
      ...edited,
      taskId: current.taskId,
      owner: current.owner,
      createdAt: current.createdAt,
      lastUpdatedAt: new Date(options.now ?? Date.now()).toISOString(),
      revision: current.revision + 1,
    };
    if (isTerminalTaskStatus(next.status)) {
      delete next.inputRequests;
      delete next.inputResponses;
      delete next.cancelRequested;
    }
    if (await store.change(next)) return next;
  }
  throw new Error(`Task ${options.taskId}: too many concurrent changes`);
}

/** How a task ends, from outside the call that made it (see {@linkcode finishTask}). */
export type TaskOutcome =
  | {
    /** The call's result (for `tools/call`, a `CallToolResult`; `isError` ones too). */
    readonly result: Record<string, unknown>;
    /** A status message. */
    readonly statusMessage?: string;
  }
  | {
    /** The JSON-RPC error the request failed with. */
    readonly error: TaskError;
    /** A status message. */
    readonly statusMessage?: string;
  }
  | {
    /** Cancelled. */
    readonly cancelled: true;
    /** A status message. */
    readonly statusMessage?: string;
  };

/**
 * Ends a task: `completed` with a result, `failed` with a JSON-RPC error, or `cancelled` — from
 * any replica, through the store every replica reads, so that whoever waits on the task
 * (`tasks/result`, `tasks/get`) sees it there. A task already terminal is left as it is.
 *
 * @param store The store.
 * @param options The task's id, how it ends, and the clock.
 * @returns The task as stored afterwards; undefined when there is no such task.
 *
 * @example
 * ```ts
 * import { finishTask, memoryTaskStore, newTaskRecord } from "@tool-estate/core";
 * import assert from "node:assert/strict";
 * const store = memoryTaskStore();
 * const task = newTaskRecord({ owner: "ana", method: "tools/call", name: "t", now: 0 });
 * store.create(task);
 * const done = await finishTask(store, {
 *   taskId: task.taskId,
 *   outcome: { result: { content: [{ type: "text", text: "ok" }] }, statusMessage: "approved" },
 * });
 * assert.equal(done?.status, "completed");
 * assert.equal(done?.statusMessage, "approved");
 * ```
 */
export function finishTask(
  store: TaskStore,
  options: { taskId: string; outcome: TaskOutcome; now?: number },
): Promise<TaskRecord | undefined> {
  const outcome = options.outcome;
  return changeTask(store, {
    taskId: options.taskId,
    now: options.now,
    edit: (task) => {
      const next: TaskRecord = { ...task };
      delete next.result;
      delete next.error;
      if ("result" in outcome) {
        next.status = "completed";
        next.result = structuredClone(outcome.result);
      } else if ("error" in outcome) {
        next.status = "failed";
        next.error = structuredClone(outcome.error);
      } else next.status = "cancelled";
      if (outcome.statusMessage !== undefined) next.statusMessage = outcome.statusMessage;
      return next;
    },
  });
}

/**
 * Moves a task that is not terminal to `working` or `input_required`, with a status message
 * (from any replica, like {@linkcode finishTask}).
 *
 * @param store The store.
 * @param options The task's id, its status and message, and the clock.
 * @returns The task as stored afterwards; undefined when there is no such task.
 */
export function setTaskStatus(
  store: TaskStore,
  options: {
    taskId: string;
    status: "working" | "input_required";
    statusMessage?: string;
    now?: number;
  },
): Promise<TaskRecord | undefined> {
  return changeTask(store, {
    taskId: options.taskId,
    now: options.now,
    edit: (task) => {
      const next: TaskRecord = { ...task, status: options.status };
      if (options.statusMessage !== undefined) next.statusMessage = options.statusMessage;
      return next;
    },
  });
}

/** A {@linkcode TaskStore} in memory: every method answers at once. */
export interface MemoryTaskStore extends TaskStore {
  /** Keeps a new task (a second create of one id throws). */
  create(task: TaskRecord): void;
  /** One task by id; undefined when there is none. */
  get(taskId: string): TaskRecord | undefined;
  /** The tasks of one owner, oldest first. */
  list(owner: string): TaskRecord[];
  /** Replaces the task of the revision before `next`'s; false otherwise. */
  change(next: TaskRecord): boolean;
  /** Removes a task; false when there was none. */
  remove(taskId: string): boolean;
}

/**
 * Tasks in memory: one server's, gone when it stops.
 *
 * @returns The store.
 *
 * @example
 * ```ts
 * import { memoryTaskStore, newTaskRecord } from "@tool-estate/core";
 * import assert from "node:assert/strict";
 * const store = memoryTaskStore();
 * const task = newTaskRecord({ owner: "ana", method: "tools/call", name: "t", now: 0 });
 * store.create(task);
 * assert.equal(store.get(task.taskId)?.status, "working");
 * assert.deepEqual(store.list("bo"), []);
 * ```
 */
export function memoryTaskStore(): MemoryTaskStore {
  const tasks = new Map<string, TaskRecord>();
  return {
    create(task) {
      if (tasks.has(task.taskId)) throw new Error(`Task ${task.taskId} exists already`);
      tasks.set(task.taskId, structuredClone(task));
    },
    get(taskId) {
      const task = tasks.get(taskId);
      return task && structuredClone(task);
    },
    list(owner) {
      return [...tasks.values()].filter((t) => t.owner === owner).sort(compareTaskAge)
        .map((t) => structuredClone(t));
    },
    change(next) {
      const stored = tasks.get(next.taskId);
      if (!stored || stored.revision !== next.revision - 1) return false;
      tasks.set(next.taskId, structuredClone(next));
      return true;
    },
    remove(taskId) {
      return tasks.delete(taskId);
    },
  };
}

/**
 * Oldest first, then by id: the order {@linkcode TaskStore.list} returns.
 *
 * @param a A task.
 * @param b Another.
 * @returns Their order.
 */
export function compareTaskAge(a: TaskRecord, b: TaskRecord): number {
  return a.createdAt < b.createdAt
    ? -1
    : a.createdAt > b.createdAt
    ? 1
    : a.taskId < b.taskId
    ? -1
    : a.taskId > b.taskId
    ? 1
    : 0;
}
