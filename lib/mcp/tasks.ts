/**
 * Tasks on the server, the engine's side: how a tool handler turns its `tools/call` into a task
 * ({@linkcode asTask} with a {@linkcode TaskPlan}), what the task's work gets
 * ({@linkcode TaskWork}), and the server's task options ({@linkcode TaskOptions},
 * `McpServerOptions.tasks`). The protocol's side — `tasks/get`, `tasks/update`, `tasks/cancel`,
 * and in 2025-11-25 also `tasks/result` and `tasks/list` — is the server's; the task model and
 * the store (`TaskStore`, `finishTask`) are `lib/estate/tasks.ts`.
 *
 * A task is made only for a client that can take one: in 2026-07-28 one that declares the
 * extension `io.modelcontextprotocol/tasks` in the request's client capabilities; in 2025-11-25
 * one that sends the request's `task` param. For any other client a plan with `work` runs that
 * work while the call waits and answers with its result, and a `required` plan is refused
 * (`-32021` naming the extension in 2026-07-28, `-32601` in 2025-11-25, as the revisions say).
 *
 * @module
 */
import type { TaskRecord, TaskStore } from "../estate/tasks.ts";
import type { ElicitationRequest, ElicitationResult } from "./asks.ts";
import type { Principal, ToolSpec } from "../estate/spec.ts";

export { TASKS_EXTENSION } from "./methods.ts";

/** The `_meta` key 2025-11-25 ties a message to a task with (`{taskId}`). */
export const RELATED_TASK_META_KEY = "io.modelcontextprotocol/related-task";

/** What a task's work gets. */
export interface TaskWork {
  /** The task's id (give it to whoever finishes the task from outside). */
  readonly taskId: string;
  /** Aborted when the task is cancelled (`tasks/cancel`) or the server closes. */
  readonly signal: AbortSignal;
  /**
   * Says where the work stands: the task's `statusMessage` (its status stays `working`).
   *
   * @param message What to show.
   */
  setStatusMessage(message: string): Promise<void>;
  /**
   * Asks the user (`elicitation/create`) while the task runs: the task moves to `input_required`
   * with the ask in its `inputRequests` under `key` (2026-07-28; the client answers with
   * `tasks/update`) and back to `working` once every ask is answered. Asks made together
   * (`Promise.all`) are outstanding together. A key is used once in a task's life.
   *
   * @param request The form or URL.
   * @param options The ask's key (default `ask-N`).
   * @returns The client's answer.
   */
  elicit(request: ElicitationRequest, options?: { key?: string }): Promise<ElicitationResult>;
}

/**
 * How a `tools/call` becomes a task (the value a handler returns through {@linkcode asTask}).
 * With `work`, the task runs it and ends with what it returns (as a handler's return value
 * becomes a result: a `CallToolResult`, or any value as JSON text) or throws (a `JsonRpcError`
 * fails the task with that error; any other throw completes it as a tool error, `isError`).
 * Without `work`, the task stays `working` (or `input_required`) until it is finished from
 * outside, by id, on any replica: `finishTask(store, {taskId, outcome})`.
 */
export interface TaskPlan {
  /** The work; absent: the task waits to be finished from outside. */
  work?: (task: TaskWork) => unknown;
  /**
   * Whether the call can only be answered with a task. A client that cannot take one is refused;
   * otherwise (the default) a plan with `work` runs it while the call waits, and one without waits
   * for the task to be finished from outside.
   */
  required?: boolean;
  /** The first status: `working` (default) or `input_required`. */
  status?: "working" | "input_required";
  /** The first status message. */
  statusMessage?: string;
  /** How long the task is kept, in ms; null: until deleted. Default `TaskOptions.ttlMs`. */
  ttlMs?: number | null;
  /** How often the client should poll, in ms. Default `TaskOptions.pollIntervalMs`. */
  pollIntervalMs?: number;
  /**
   * Called once the task is stored, before the client hears of it (where a pending call records
   * its task id, say). A throw fails the call.
   */
  onCreated?: (task: TaskRecord) => void | Promise<void>;
}

/** A handler's answer that asks for a task (see {@linkcode asTask}). */
export interface TaskDeferral {
  /** Marks it. */
  readonly kind: "task";
  /** The plan. */
  readonly plan: TaskPlan;
}

/**
 * What a tool handler returns to answer its call with a task.
 *
 * @param plan The work, or none (finished from outside), and the task's settings.
 * @returns The value to return from the handler.
 *
 * @example
 * ```ts
 * import { asTask, type ToolHandler } from "@tool-estate/core";
 * import assert from "node:assert/strict";
 *
 * // A report that takes a while: the client gets a task and polls it.
 * const handler: ToolHandler = (args) =>
 *   asTask({
 *     work: async (task) => {
 *       await task.setStatusMessage("rendering");
 *       return { content: [{ type: "text", text: `report for ${args.month}` }] };
 *     },
 *     pollIntervalMs: 500,
 *   });
 * assert.equal(typeof handler, "function");
 * ```
 */
export function asTask(plan: TaskPlan): TaskDeferral {
  const deferral: TaskDeferral = Object.freeze({ kind: "task" as const, plan });
  DEFERRALS.add(deferral);
  return deferral;
}

/** The values {@linkcode asTask} made: a handler's plain data is never taken for one. */
const DEFERRALS = new WeakSet<object>();

/**
 * Whether a handler's return value asks for a task.
 *
 * @param value What the handler returned.
 * @returns True for the value of {@linkcode asTask}.
 */
export function isTaskDeferral(value: unknown): value is TaskDeferral {
  return typeof value === "object" && value !== null && DEFERRALS.has(value);
}

/** The server's task options (`McpServerOptions.tasks`). */
export interface TaskOptions {
  /**
   * Where tasks are kept. Replicas that may answer for each other's tasks share it (`estate
   * serve`: the estate's store, `EstateStore.tasks()`). Default: in memory, per server.
   */
  store?: TaskStore;
  /** A task's TTL when its plan names none, in ms. Default one hour. */
  ttlMs?: number;
  /** The longest TTL a 2025-11-25 client may ask for (`task.ttl`), in ms. Default one day. */
  maxTtlMs?: number;
  /** The poll interval a task suggests when its plan names none, in ms. Default 1000. */
  pollIntervalMs?: number;
  /**
   * How often a wait on a task (`tasks/result`, a call waiting for its task, a work waiting for an
   * answer) reads the store, in ms: how soon it sees a change made on another replica. Changes
   * made on this server are seen at once. Default 250.
   */
  waitPollMs?: number;
  /**
   * What 2025-11-25's `tools/list` says of a tool version's tasks (`execution.taskSupport`): a
   * client of that revision asks for a task (the `task` param) only for a tool listed `optional`
   * or `required`. Undefined (the default for every tool): not listed, `forbidden`. Answer as the
   * handler does: `required` where it returns `asTask({required: true})`, `optional` where it
   * returns `asTask` otherwise. (2026-07-28 lists nothing: the server decides per call.)
   */
  taskSupport?: (spec: ToolSpec) => "optional" | "required" | undefined;
  /**
   * Turns a `tools/call` into a task before its handler runs — the hook for calls that wait on
   * something outside (a person's approval, say): asked for every call that passed its checks
   * (visibility, version, scopes, schema, limits, confirmation); a plan returned makes the call
   * that task (as if the handler had returned `asTask(plan)`), and the handler is not run.
   * Undefined: the handler runs as usual.
   */
  taskFor?: (call: TaskCallInfo) => TaskPlan | undefined | Promise<TaskPlan | undefined>;
}

/** A call, as {@linkcode TaskOptions.taskFor} sees it. */
export interface TaskCallInfo {
  /** The version the call reached. */
  readonly spec: ToolSpec;
  /** Its (valid) arguments. */
  readonly args: Record<string, unknown>;
  /** Who calls. */
  readonly principal: Principal;
  /** Whether the client can take a task for it (see `ToolContext.canTakeTask`). */
  readonly canTakeTask: boolean;
}
