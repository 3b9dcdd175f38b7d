/**
 * Tasks on the server, the protocol's side (see `tasks.ts` for the engine's): a handler's
 * `asTask(plan)` turned into a task (or, for a client that cannot take one, its work run while the
 * call waits), the task's work run and ended, and the methods — `tasks/get` and `tasks/cancel` in
 * both eras, `tasks/update` in 2026-07-28 (the extension `io.modelcontextprotocol/tasks`),
 * `tasks/result` and `tasks/list` in 2025-11-25 — each in the wire shape of its era.
 *
 * A task belongs to the principal whose call made it: for anyone else, and once its TTL has
 * passed, its id answers exactly as an id that was never made (`-32602 Unknown task: <id>`). Tasks
 * live in the server's `TaskStore`, so any replica sharing the store answers for them; a wait on a
 * task reads the store (`TaskOptions.waitPollMs`) and is woken at once by changes made here.
 *
 * @module
 */
import { ERROR_CODES, JsonRpcError, MCP_ERROR_CODES } from "../jsonrpc/errors.ts";
import { makeNotification } from "../jsonrpc/messages.ts";
import type { RequestContext } from "../jsonrpc/peer_types.ts";
import { isObject } from "../_object.ts";
import type { ToolSpec } from "../estate/spec.ts";
import {
  changeTask,
  DEFAULT_TASK_POLL_INTERVAL_MS,
  DEFAULT_TASK_TTL_MS,
  finishTask,
  isTerminalTaskStatus,
  memoryTaskStore,
  newTaskRecord,
  type TaskOutcome,
  type TaskRecord,
  type TaskStore,
  visibleTask,
} from "../estate/tasks.ts";
import type { ElicitationResult } from "./asks.ts";
import { type Caller, protocolError, type ServerCore } from "./_server_core.ts";
import { page } from "./_pages.ts";
import { STATELESS_PROTOCOL_VERSIONS } from "./rev2026_07_28.ts";
import type { CallToolResult } from "./protocol.ts";
import {
  RELATED_TASK_META_KEY,
  type TaskDeferral,
  TASKS_EXTENSION,
  type TaskWork,
} from "./tasks.ts";
import { asResult } from "./_call_result.ts";
import type { CallRecord } from "./server_options.ts";

/** One server's tasks: the store, the defaults, the work running here. */
interface TaskRuntime {
  readonly store: TaskStore;
  readonly ttlMs: number;
  readonly maxTtlMs: number;
  readonly pollIntervalMs: number;
  readonly waitPollMs: number;
  /** The work running on this server, by task id: aborted when its task is cancelled. */
  readonly running: Map<string, AbortController>;
  /** Told of every change this server makes to a task, by id (waits wake at once). */
  readonly watchers: Set<(taskId: string) => void>;
}

const RUNTIMES = new WeakMap<ServerCore, TaskRuntime>();

/** The server's task runtime, made on first use. */
function runtime(core: ServerCore): TaskRuntime {
  let rt = RUNTIMES.get(core);
  if (rt) return rt;
  const o = core.options.tasks ?? {};
  const positive = (n: number | undefined, fallback: number) =>
    n !== undefined && Number.isFinite(n) && n > 0 ? Math.round(n) : fallback;
  rt = {
    store: o.store ?? memoryTaskStore(),
    ttlMs: positive(o.ttlMs, DEFAULT_TASK_TTL_MS),
    maxTtlMs: positive(o.maxTtlMs, 24 * DEFAULT_TASK_TTL_MS),
    pollIntervalMs: positive(o.pollIntervalMs, DEFAULT_TASK_POLL_INTERVAL_MS),
    waitPollMs: positive(o.waitPollMs, 250),
    running: new Map(),
    watchers: new Set(),
  };
  RUNTIMES.set(core, rt);
  listenToStore(core, rt);
  return rt;
}

/**
 * Where the store announces changes (PostgreSQL: `LISTEN`), waits here wake as soon as any
 * replica changes a task; until the server closes.
 */
function listenToStore(core: ServerCore, rt: TaskRuntime): void {
  const watch = rt.store.watch;
  if (!watch || core.closed.aborted) return;
  const close = (handle: { close(): Promise<void> | void }) => {
    // The store may be closing too: its connection gone, there is nothing left to stop.
    Promise.resolve().then(() => handle.close()).catch(() => {});
  };
  watch.call(rt.store, (taskId) => changed(rt, taskId)).then((handle) => {
    if (core.closed.aborted) return close(handle);
    core.closed.addEventListener("abort", () => close(handle), { once: true });
  }, () => {
    // no announcements: waits read the store on their timer
  });
}

/** Whether the caller speaks the stateless revision. */
function stateless(caller: Caller): boolean {
  return STATELESS_PROTOCOL_VERSIONS.includes(caller.protocolVersion ?? "");
}

/** Whether a stateless caller declared the tasks extension on its request. */
function declaresExtension(caller: Caller): boolean {
  const extensions = caller.clientCapabilities?.extensions;
  return isObject(extensions) && extensions[TASKS_EXTENSION] !== undefined;
}

/**
 * Whether the caller can take a task for this call: in 2026-07-28 it declared the extension on
 * the request; in 2025-11-25 it sent the `task` param.
 *
 * @param caller Who calls.
 * @param task The request's `task` param (2025-11-25), when it is an object.
 * @returns True when a task may answer the call.
 */
export function clientTakesTasks(
  caller: Caller,
  task: Record<string, unknown> | undefined,
): boolean {
  return stateless(caller) ? declaresExtension(caller) : task !== undefined;
}

/** The `-32021` a stateless request without the extension gets where a task is needed. */
function missingExtension(what: string): JsonRpcError {
  return protocolError(
    MCP_ERROR_CODES.MISSING_REQUIRED_CLIENT_CAPABILITY,
    `Missing required client capability: extensions["${TASKS_EXTENSION}"] (${what})`,
    { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } },
  );
}

/** The one answer for a task id the caller may not see: not theirs, expired, or never made. */
function unknownTask(taskId: unknown): JsonRpcError {
  return protocolError(
    ERROR_CODES.INVALID_PARAMS,
    `Unknown task: ${typeof taskId === "string" ? taskId : JSON.stringify(taskId)}`,
  );
}

/** Tells this server's waits that a task changed. */
function changed(rt: TaskRuntime, taskId: string): void {
  for (const watcher of [...rt.watchers]) watcher(taskId);
}

/**
 * Waits until `until` holds of the task (or the task is gone): reads the store every
 * `waitPollMs`, and at once after a change this server made.
 */
async function waitFor(
  rt: TaskRuntime,
  options: {
    taskId: string;
    until: (task: TaskRecord) => boolean;
    signal?: AbortSignal;
  },
): Promise<TaskRecord | undefined> {
  const { taskId, until, signal } = options;
  for (;;) {
    signal?.throwIfAborted();
    const task = await rt.store.get(taskId);
    if (!task || until(task)) return task;
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        rt.watchers.delete(onChange);
        signal?.removeEventListener("abort", done);
        resolve();
      };
      const onChange = (id: string) => {
        if (id === taskId) done();
      };
      const timer = setTimeout(done, rt.waitPollMs);
      rt.watchers.add(onChange);
      signal?.addEventListener("abort", done, { once: true });
    });
  }
}

/** The fields both eras' tasks share. */
function baseFields(task: TaskRecord): Record<string, unknown> {
  const out: Record<string, unknown> = { taskId: task.taskId, status: task.status };
  if (task.statusMessage !== undefined) out.statusMessage = task.statusMessage;
  out.createdAt = task.createdAt;
  out.lastUpdatedAt = task.lastUpdatedAt;
  return out;
}

/** A task as 2025-11-25 sends it (`Task`: `ttl`, `pollInterval`). */
function handshakeTask(task: TaskRecord): Record<string, unknown> {
  return { ...baseFields(task), ttl: task.ttlMs, pollInterval: task.pollIntervalMs };
}

/** A task as 2026-07-28 sends it (`Task`: `ttlMs`, `pollIntervalMs`). */
function statelessTask(task: TaskRecord): Record<string, unknown> {
  return { ...baseFields(task), ttlMs: task.ttlMs, pollIntervalMs: task.pollIntervalMs };
}

/**
 * 2026-07-28's `DetailedTask` (`tasks/get`, `notifications/tasks`): the task, and what its status
 * carries — `inputRequests` while `input_required`, `result` once `completed`, `error` once
 * `failed`.
 */
function detailedTask(task: TaskRecord): Record<string, unknown> {
  const out = statelessTask(task);
  if (task.status === "input_required") {
    out.inputRequests = structuredClone(task.inputRequests ?? {});
  }
  if (task.status === "completed" && task.result) out.result = withoutRelatedTask(task.result);
  if (task.status === "failed" && task.error) out.error = structuredClone(task.error);
  return out;
}

/** A result without 2025-11-25's related-task `_meta` key (2026-07-28 has the id at the root). */
function withoutRelatedTask(result: Record<string, unknown>): Record<string, unknown> {
  const copy = structuredClone(result);
  if (isObject(copy._meta)) {
    delete copy._meta[RELATED_TASK_META_KEY];
    if (Object.keys(copy._meta).length === 0) delete copy._meta;
  }
  return copy;
}

/** What {@linkcode deferToTask} needs. */
export interface TaskCall {
  /** Who calls. */
  caller: Caller;
  /** The version whose handler asked for a task. */
  spec: ToolSpec;
  /** 2025-11-25's `task` param of the call, when it is an object. */
  task: Record<string, unknown> | undefined;
  /** The request. */
  context: RequestContext;
  /** What the handler returned. */
  deferral: TaskDeferral;
  /** Logs the call's outcome. */
  record: (outcome: CallRecord["outcome"]) => void;
}

/** One request to a task method: who asks, its params, and its cancel signal. */
export interface TaskRequest {
  /** Who the request is served for. */
  readonly caller: Caller;
  /** The request's params. */
  readonly params: Record<string, unknown>;
  /** Aborted when the caller cancels. */
  readonly signal: AbortSignal;
}

/**
 * A handler's `asTask(plan)`, answered: for a client that can take a task, the task is stored
 * (durably, before the answer) and its work started, and the call answers with the era's
 * `CreateTaskResult` (2026-07-28: flat, `resultType: "task"`; 2025-11-25: `{task}`). For one that
 * cannot, a `required` plan is refused, and any other runs its work while the call waits (a plan
 * without work waits for its task to be finished from outside) and answers with its result.
 *
 * @param core The server.
 * @param call The call and the plan.
 * @returns The result to answer with (typed as a tool result: the era's wrapper passes a
 *   `CreateTaskResult` through, marked by its shape).
 * @throws {JsonRpcError} `-32021` (2026-07-28) or `-32601` (2025-11-25) for a required task the
 *   client cannot take; a failed task's error, when the call waited for it.
 */
export async function deferToTask(
  core: ServerCore,
  call: TaskCall,
): Promise<CallToolResult> {
  const { caller, spec, deferral, record } = call;
  const plan = deferral.plan;
  const rt = runtime(core);
  const takes = clientTakesTasks(caller, call.task);
  if (!takes && plan.required) {
    record("tool-error");
    if (stateless(caller)) throw missingExtension(`${spec.name} runs only as a task`);
    throw protocolError(
      ERROR_CODES.METHOD_NOT_FOUND,
      `Method not found: ${spec.name} must be called as a task (the task param of tools/call)`,
    );
  }
  if (!takes && plan.work) {
    // Run while the call waits: no task, nothing to poll, nothing to ask.
    const value = await runWork(plan.work, {
      taskId: "",
      signal: call.context.signal,
      setStatusMessage: () => Promise.resolve(),
      elicit: () => Promise.reject(new Error("this call is not a task: it cannot ask the user")),
    });
    if ("error" in value) {
      record("tool-error");
      throw new JsonRpcError(value.error.code, value.error.message, { data: value.error.data });
    }
    record(value.result.isError ? "tool-error" : "ok");
    return value.result as unknown as CallToolResult;
  }
  const askedTtl = call.task?.ttl;
  const ttlMs = plan.ttlMs !== undefined
    ? plan.ttlMs
    : typeof askedTtl === "number" && Number.isFinite(askedTtl) && askedTtl > 0
    ? Math.min(askedTtl, rt.maxTtlMs)
    : rt.ttlMs;
  const task = newTaskRecord({
    owner: caller.principal.id,
    method: "tools/call",
    name: spec.name,
    now: core.now(),
    ttlMs,
    pollIntervalMs: plan.pollIntervalMs ?? rt.pollIntervalMs,
    ...(plan.status ? { status: plan.status } : {}),
    ...(plan.statusMessage !== undefined ? { statusMessage: plan.statusMessage } : {}),
  });
  await rt.store.create(task);
  await plan.onCreated?.(structuredClone(task));
  record("ok");
  const notify = stateless(caller) ? undefined : statusNotifier(caller);
  if (plan.work) {
    startWork(core, { task, work: plan.work, notify, canAsk: stateless(caller) });
  }
  if (!takes) {
    // No work and a client that cannot poll: the call waits for the task's end.
    const ended = await waitFor(rt, {
      taskId: task.taskId,
      until: (t) => isTerminalTaskStatus(t.status),
      signal: call.context.signal,
    });
    return finalAnswer(ended, task.taskId) as unknown as CallToolResult;
  }
  if (stateless(caller)) {
    return { ...statelessTask(task), resultType: "task" } as unknown as CallToolResult;
  }
  return { task: handshakeTask(task) } as unknown as CallToolResult;
}

/** 2025-11-25's `notifications/tasks/status` to the session that made the task. */
function statusNotifier(caller: Caller): (task: TaskRecord) => void {
  return (task) => {
    try {
      caller.notify(makeNotification("notifications/tasks/status", handshakeTask(task)));
    } catch {
      // the session is gone: it can still poll from another
    }
  };
}

/** Runs a plan's work: its value as a tool result, or the JSON-RPC error it threw. */
async function runWork(
  work: (task: TaskWork) => unknown,
  task: TaskWork,
): Promise<{ result: Record<string, unknown> } | { error: TaskOutcomeError }> {
  try {
    return { result: asResult(await work(task)) as unknown as Record<string, unknown> };
  } catch (e) {
    if (e instanceof JsonRpcError) {
      const error: TaskOutcomeError = { code: e.code, message: e.message };
      if (e.data !== undefined) error.data = e.data;
      return { error };
    }
    const message = e instanceof Error ? e.message : String(e);
    return {
      result: { content: [{ type: "text", text: `the task failed: ${message}` }], isError: true },
    };
  }
}

type TaskOutcomeError = { code: number; message: string; data?: unknown };

/**
 * Starts a task's work on this server: it runs beyond the request, its asks park the task in
 * `input_required`, and its end completes or fails the task (unless the task ended first: a
 * cancelled task stays cancelled). A cancel made on another replica reaches it through the store.
 */
function startWork(
  core: ServerCore,
  options: {
    task: TaskRecord;
    work: (task: TaskWork) => unknown;
    notify: ((task: TaskRecord) => void) | undefined;
    /** Whether the task's asks can reach the client (2026-07-28: `tasks/update`). */
    canAsk: boolean;
  },
): void {
  const rt = runtime(core);
  const { task, work, notify, canAsk } = options;
  const taskId = task.taskId;
  const controller = new AbortController();
  rt.running.set(taskId, controller);
  const onClose = () => controller.abort(core.closed.reason);
  core.closed.addEventListener("abort", onClose, { once: true });
  // Ends the bookkeeping once: when the work ends, or when the task is cancelled or the server
  // closes (a work that does not heed its signal is left to itself).
  let ended = false;
  const end = () => {
    if (ended) return;
    ended = true;
    clearInterval(watch);
    core.closed.removeEventListener("abort", onClose);
    controller.signal.removeEventListener("abort", end);
    if (rt.running.get(taskId) === controller) rt.running.delete(taskId);
  };
  // A cancel on another replica: seen when the store says so.
  const watch = setInterval(async () => {
    try {
      const stored = await rt.store.get(taskId);
      if (!stored || isTerminalTaskStatus(stored.status)) controller.abort();
    } catch {
      // the store is unreachable for now: keep working
    }
  }, rt.waitPollMs);
  controller.signal.addEventListener("abort", end, { once: true });
  const change = async (edit: (t: TaskRecord) => TaskRecord | undefined) => {
    const next = await changeTask(rt.store, { taskId, edit, now: core.now() });
    changed(rt, taskId);
    if (next) notify?.(next);
    return next;
  };
  let asks = 0;
  const context: TaskWork = {
    taskId,
    signal: controller.signal,
    setStatusMessage: async (message) => {
      await change((t) => ({ ...t, statusMessage: message }));
    },
    elicit: async (request, ask) => {
      if (!canAsk) {
        throw new Error("a 2025-11-25 task cannot ask the user (there is no tasks/update)");
      }
      const key = ask?.key ?? `ask-${asks++}`;
      await change((t) => {
        if (t.askedKeys?.includes(key)) {
          throw new Error(`Task ${taskId}: the key ${key} was asked already`);
        }
        return {
          ...t,
          status: "input_required",
          askedKeys: [...(t.askedKeys ?? []), key],
          inputRequests: {
            ...(t.inputRequests ?? {}),
            [key]: {
              method: "elicitation/create",
              params: structuredClone(request) as unknown as Record<string, unknown>,
            },
          },
        };
      });
      const answered = await waitFor(rt, {
        taskId,
        until: (t) => isTerminalTaskStatus(t.status) || t.inputResponses?.[key] !== undefined,
        signal: controller.signal,
      });
      const answer = answered?.inputResponses?.[key];
      if (answer === undefined) throw new Error(`Task ${taskId} ended before ${key} was answered`);
      await change((t) => {
        const rest = { ...(t.inputResponses ?? {}) };
        delete rest[key];
        return { ...t, inputResponses: rest };
      });
      return elicitationAnswer(answer);
    },
  };
  (async () => {
    const outcome = await runWork(work, context);
    if (core.closed.aborted) return; // the server stopped: the task is left as it stands
    const how: TaskOutcome = "error" in outcome
      ? { error: outcome.error }
      : { result: outcome.result };
    const next = await finishTask(rt.store, { taskId, outcome: how, now: core.now() });
    changed(rt, taskId);
    if (next) notify?.(next);
  })().catch(() => {
    // the store failed as the work ended: the task stays as it was until its TTL
  }).finally(end);
}

/** A client's answer to an elicitation, as the work gets it (anything malformed: `cancel`). */
function elicitationAnswer(answer: unknown): ElicitationResult {
  if (
    isObject(answer) &&
    (answer.action === "accept" || answer.action === "decline" || answer.action === "cancel")
  ) {
    const out: ElicitationResult = { action: answer.action };
    if (answer.action === "accept" && isObject(answer.content)) {
      out.content = answer.content as ElicitationResult["content"];
    }
    return out;
  }
  return { action: "cancel" };
}

/** What a terminal task answers with: its result, or its error thrown. */
function finalAnswer(task: TaskRecord | undefined, taskId: string): Record<string, unknown> {
  if (!task) throw unknownTask(taskId);
  if (task.status === "completed" && task.result) return structuredClone(task.result);
  if (task.status === "failed" && task.error) {
    throw new JsonRpcError(task.error.code, task.error.message, { data: task.error.data });
  }
  throw protocolError(
    ERROR_CODES.INTERNAL_ERROR,
    `Task ${taskId} was cancelled${task.statusMessage ? `: ${task.statusMessage}` : ""}`,
  );
}

/**
 * The task a request names, as its caller may see it: the stateless revision first asks for the
 * extension; then an id that is not the caller's, or has expired, or was never made is one answer.
 */
async function namedTask(
  core: ServerCore,
  call: TaskRequest,
  method: string,
): Promise<{ rt: TaskRuntime; task: TaskRecord }> {
  const { caller, params } = call;
  if (stateless(caller) && !declaresExtension(caller)) throw missingExtension(method);
  const rt = runtime(core);
  const taskId = params.taskId;
  if (typeof taskId !== "string") {
    throw protocolError(
      ERROR_CODES.INVALID_PARAMS,
      `Invalid params: ${method} needs taskId (a string)`,
    );
  }
  const stored = await rt.store.get(taskId);
  const now = core.now();
  const task = visibleTask(stored, { principal: caller.principal.id, now });
  if (!task) {
    if (stored && visibleTask(stored, { principal: stored.owner, now }) === undefined) {
      await rt.store.remove(taskId); // expired: gone for everyone
    }
    throw unknownTask(taskId);
  }
  return { rt, task };
}

/** `tasks/get`: the task (2026-07-28: with what its status carries). */
export async function getTask(
  core: ServerCore,
  call: TaskRequest,
): Promise<Record<string, unknown>> {
  const { task } = await namedTask(core, call, "tasks/get");
  return stateless(call.caller) ? detailedTask(task) : handshakeTask(task);
}

/**
 * `tasks/cancel`: a task not yet ended is cancelled (its work here is aborted; elsewhere it sees
 * the store). 2026-07-28 acknowledges with an empty result, also for an ended task; 2025-11-25
 * answers with the cancelled task, and refuses an ended one (`-32602`).
 */
export async function cancelTask(
  core: ServerCore,
  call: TaskRequest,
): Promise<Record<string, unknown>> {
  const { rt, task } = await namedTask(core, call, "tasks/cancel");
  if (isTerminalTaskStatus(task.status)) {
    if (stateless(call.caller)) return {};
    throw protocolError(
      ERROR_CODES.INVALID_PARAMS,
      `Invalid params: task ${task.taskId} is ${task.status} already; it cannot be cancelled`,
    );
  }
  const next = await finishTask(rt.store, {
    taskId: task.taskId,
    outcome: { cancelled: true, statusMessage: "The task was cancelled by request." },
    now: core.now(),
  });
  rt.running.get(task.taskId)?.abort();
  changed(rt, task.taskId);
  return stateless(call.caller) ? {} : handshakeTask(next ?? task);
}

/**
 * `tasks/update` (2026-07-28): the client's answers to the task's outstanding asks. An answer for
 * a key that is not outstanding is ignored; each answered key leaves `inputRequests`, and once
 * none is left the task is `working` again. Acknowledged with an empty result.
 */
export async function updateTask(
  core: ServerCore,
  call: TaskRequest,
): Promise<Record<string, unknown>> {
  const responses = call.params.inputResponses;
  const { rt, task } = await namedTask(core, call, "tasks/update");
  if (!isObject(responses)) {
    throw protocolError(
      ERROR_CODES.INVALID_PARAMS,
      "Invalid params: tasks/update needs inputResponses (an object)",
    );
  }
  await changeTask(rt.store, {
    taskId: task.taskId,
    now: core.now(),
    edit: (t) => {
      const outstanding = { ...(t.inputRequests ?? {}) };
      const given = { ...(t.inputResponses ?? {}) };
      let taken = false;
      for (const [key, value] of Object.entries(responses)) {
        if (!Object.hasOwn(outstanding, key)) continue;
        delete outstanding[key];
        given[key] = value;
        taken = true;
      }
      if (!taken) return undefined;
      const next: TaskRecord = { ...t, inputRequests: outstanding, inputResponses: given };
      if (Object.keys(outstanding).length === 0) {
        next.status = "working";
        delete next.inputRequests;
      }
      return next;
    },
  });
  changed(rt, task.taskId);
  return {};
}

/**
 * `tasks/result` (2025-11-25): waits until the task ends, then answers as the call would have —
 * its result (with the related-task `_meta`), or its error.
 */
export async function taskResult(
  core: ServerCore,
  call: TaskRequest,
): Promise<Record<string, unknown>> {
  const { rt, task } = await namedTask(core, call, "tasks/result");
  const ended = await waitFor(rt, {
    taskId: task.taskId,
    until: (t) => isTerminalTaskStatus(t.status),
    signal: call.signal,
  });
  const result = finalAnswer(ended, task.taskId);
  return {
    ...result,
    _meta: {
      ...(isObject(result._meta) ? result._meta : {}),
      [RELATED_TASK_META_KEY]: { taskId: task.taskId },
    },
  };
}

/** `tasks/list` (2025-11-25): the caller's own tasks that have not expired, oldest first, paged. */
export async function listTasks(
  core: ServerCore,
  call: TaskRequest,
): Promise<Record<string, unknown>> {
  const rt = runtime(core);
  const now = core.now();
  const principal = call.caller.principal.id;
  const tasks = (await rt.store.list(principal))
    .filter((t) => visibleTask(t, { principal, now }) !== undefined)
    .map(handshakeTask);
  return page("tasks", tasks, { cursor: call.params.cursor, pageSize: core.pageSize });
}

/**
 * A `subscriptions/listen` stream's `taskIds` (2026-07-28): the ids the caller may see (any other
 * is left out of the acknowledgement, as a nonexistent one would be), and a watch that sends
 * `notifications/tasks` — the task as `tasks/get` would answer — each time one of them changes,
 * until the stream ends. A request that asks for task ids without declaring the extension is
 * refused with `-32021`.
 *
 * @param core The server.
 * @param options Who listens, the ids asked for, how to send, and the stream's end.
 * @returns The ids agreed to, and a function that stops the watch.
 * @throws {JsonRpcError} `-32021` when the request does not declare the extension; `-32602` when
 *   `taskIds` is not an array of strings.
 */
export async function watchTasks(
  core: ServerCore,
  options: {
    caller: Caller;
    taskIds: unknown;
    send: (params: Record<string, unknown>) => void;
  },
): Promise<{ taskIds: string[]; stop: () => void }> {
  const { caller, send } = options;
  if (!declaresExtension(caller)) throw missingExtension("subscriptions/listen taskIds");
  if (
    !Array.isArray(options.taskIds) || !options.taskIds.every((id) => typeof id === "string")
  ) {
    throw protocolError(
      ERROR_CODES.INVALID_PARAMS,
      "Invalid params: notifications.taskIds must be an array of strings",
    );
  }
  const rt = runtime(core);
  const seen = new Map<string, number>();
  for (const id of new Set(options.taskIds as string[])) {
    const task = visibleTask(await rt.store.get(id), {
      principal: caller.principal.id,
      now: core.now(),
    });
    if (task) seen.set(id, task.revision);
  }
  let stopped = false;
  const look = async (ids: Iterable<string>) => {
    for (const id of ids) {
      if (stopped) return;
      const task = visibleTask(await rt.store.get(id), {
        principal: caller.principal.id,
        now: core.now(),
      });
      if (!task) {
        seen.delete(id);
        continue;
      }
      if (seen.get(id) === task.revision) continue;
      seen.set(id, task.revision);
      send(detailedTask(task));
      if (isTerminalTaskStatus(task.status)) seen.delete(id);
    }
  };
  const onChange = (id: string) => {
    if (seen.has(id)) look([id]).catch(() => {});
  };
  rt.watchers.add(onChange);
  const timer = setInterval(() => look([...seen.keys()]).catch(() => {}), rt.waitPollMs);
  return {
    taskIds: [...seen.keys()],
    stop: () => {
      stopped = true;
      clearInterval(timer);
      rt.watchers.delete(onChange);
    },
  };
}

/**
 * The server's task store (`McpServerOptions.tasks.store`, else its memory).
 *
 * @param core The server.
 * @returns The store.
 */
export function taskStoreOf(core: ServerCore): TaskStore {
  return runtime(core).store;
}

/**
 * Ends a task from this server, outside the call that made it (an approved call that ran): as
 * `finishTask`, and this server's waits on it wake at once.
 *
 * @param core The server.
 * @param taskId The task.
 * @param outcome How it ends.
 * @returns The task as stored afterwards; undefined when there is none.
 */
export async function finishTaskHere(
  core: ServerCore,
  taskId: string,
  outcome: TaskOutcome,
): Promise<TaskRecord | undefined> {
  const rt = runtime(core);
  const done = await finishTask(rt.store, { taskId, outcome, now: core.now() });
  changed(rt, taskId);
  return done;
}
