// The client's side of tasks: a `tools/call` answered with a task is waited on here, so that
// `McpClient.callTool` returns the call's result as if the server had answered at once.
// 2026-07-28 (the extension io.modelcontextprotocol/tasks): `resultType: "task"`, then `tasks/get`
// every `pollIntervalMs` until the task ends (its result or error inlined), answering its
// `inputRequests` through the host's policy with `tasks/update`. 2025-11-25: `{task}`, then
// `tasks/get` every `pollInterval` until the task ends, then `tasks/result`. A cancelled wait sends
// `tasks/cancel`.

import { ERROR_CODES, JsonRpcError } from "../jsonrpc/errors.ts";
import { isObject } from "../_object.ts";
import { InputRequestRefusedError } from "./client_errors.ts";
import { ServerRequestRefusal } from "./_client_governor.ts";
import type { ProtocolEra } from "./methods.ts";

/** What waiting on a task needs from its client. */
export interface TaskWaitHost {
  /** The connection's era. */
  era: ProtocolEra;
  /** Sends one request (with the era's envelope) and resolves with its result. */
  request(method: string, params: Record<string, unknown>): Promise<unknown>;
  /** Serves one input request under the host's policy; rejects with a `JsonRpcError` if refused. */
  serve(method: string, params: unknown): Promise<Record<string, unknown>>;
  /** Ends the wait (the task is cancelled on the server). */
  signal?: AbortSignal;
}

/** The shortest and longest wait between two polls, in ms, whatever the server suggests. */
const MIN_POLL_MS = 10;
const MAX_POLL_MS = 30_000;

/**
 * Whether a `tools/call` result is a task (2026-07-28 `resultType: "task"`, 2025-11-25 `{task}`).
 *
 * @param era The connection's era.
 * @param result The result.
 * @returns True for a `CreateTaskResult`.
 */
export function isCreateTaskResult(era: ProtocolEra, result: unknown): boolean {
  if (!isObject(result)) return false;
  if (era === "stateless") return result.resultType === "task" && typeof result.taskId === "string";
  return isObject(result.task) && typeof result.task.taskId === "string" &&
    !Array.isArray(result.content);
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", stop);
      resolve();
    }, ms);
    const stop = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener("abort", stop, { once: true });
  });

function pollMs(task: Record<string, unknown>, key: "pollIntervalMs" | "pollInterval"): number {
  const ms = task[key];
  return typeof ms === "number" && Number.isFinite(ms)
    ? Math.min(MAX_POLL_MS, Math.max(MIN_POLL_MS, ms))
    : 1000;
}

const TERMINAL = new Set(["completed", "failed", "cancelled"]);

/**
 * Waits on the task a `tools/call` was answered with and returns the call's result.
 *
 * @param created The `CreateTaskResult`.
 * @param host The client.
 * @returns The call's result (a `CallToolResult`).
 * @throws {JsonRpcError} The task's error when it failed; `-32603` when it was cancelled.
 * @throws {InputRequestRefusedError} When the task asks for input the host's policy refuses.
 */
export async function awaitTask(
  created: Record<string, unknown>,
  host: TaskWaitHost,
): Promise<Record<string, unknown>> {
  const stateless = host.era === "stateless";
  let task = (stateless ? created : created.task) as Record<string, unknown>;
  const taskId = task.taskId as string;
  const answered = new Set<string>();
  try {
    while (!TERMINAL.has(task.status as string)) {
      if (stateless && task.status === "input_required" && isObject(task.inputRequests)) {
        await answer(taskId, task.inputRequests, { host, answered });
      }
      await sleep(pollMs(task, stateless ? "pollIntervalMs" : "pollInterval"), host.signal);
      const got = await host.request("tasks/get", { taskId });
      if (!isObject(got) || got.taskId !== taskId) {
        throw new JsonRpcError(
          ERROR_CODES.INTERNAL_ERROR,
          `tasks/get for ${taskId} answered with another task or none`,
        );
      }
      task = got;
    }
  } catch (e) {
    if (host.signal?.aborted || e instanceof InputRequestRefusedError) {
      await host.request("tasks/cancel", { taskId }).catch(() => {});
    }
    throw e;
  }
  if (!stateless) {
    return await host.request("tasks/result", { taskId }) as Record<string, unknown>;
  }
  if (task.status === "completed" && isObject(task.result)) return task.result;
  if (task.status === "failed" && isObject(task.error)) {
    const error = task.error;
    throw new JsonRpcError(
      typeof error.code === "number" ? error.code : ERROR_CODES.INTERNAL_ERROR,
      typeof error.message === "string" ? error.message : `task ${taskId} failed`,
      error.data === undefined ? {} : { data: error.data },
    );
  }
  throw new JsonRpcError(
    ERROR_CODES.INTERNAL_ERROR,
    `Task ${taskId} was ${String(task.status)}${
      typeof task.statusMessage === "string" ? `: ${task.statusMessage}` : ""
    }`,
  );
}

/** Answers a task's input requests not answered before (each key once), with `tasks/update`. */
async function answer(
  taskId: string,
  requests: Record<string, unknown>,
  options: { host: TaskWaitHost; answered: Set<string> },
): Promise<void> {
  const { host, answered } = options;
  const responses: Record<string, unknown> = {};
  for (const [key, request] of Object.entries(requests)) {
    if (answered.has(key)) continue;
    if (!isObject(request) || typeof request.method !== "string") {
      throw new InputRequestRefusedError("tools/call", {
        key,
        reason: "the task's input request has no method",
      });
    }
    try {
      responses[key] = await host.serve(request.method, request.params);
    } catch (e) {
      if (!(e instanceof JsonRpcError)) throw e;
      throw new InputRequestRefusedError("tools/call", {
        key,
        inputMethod: request.method,
        code: e.code,
        reason: e instanceof ServerRequestRefusal ? e.reason : e.message,
      });
    }
    answered.add(key);
  }
  if (Object.keys(responses).length) {
    await host.request("tasks/update", { taskId, inputResponses: responses });
  }
}
