/**
 * A handler's return value as the `CallToolResult` it stands for: a result as it is, any other
 * value as JSON text (and as `structuredContent` when it is an object). Shared by the call's
 * handler step (`_call_tool.ts`) and a task's work (`_tasks.ts`).
 *
 * @module
 */
import { isObject } from "../_object.ts";
import type { CallToolResult } from "./protocol.ts";

/**
 * Wraps a handler's return value as a `CallToolResult`.
 *
 * @param value What the handler returned.
 * @returns The result.
 */
export function asResult(value: unknown): CallToolResult {
  if (isObject(value) && Array.isArray(value.content)) {
    return value as unknown as CallToolResult;
  }
  const text = typeof value === "string" ? value : JSON.stringify(value ?? null);
  const result: CallToolResult = { content: [{ type: "text", text }] };
  if (isObject(value)) result.structuredContent = value;
  return result;
}
