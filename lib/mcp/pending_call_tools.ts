/**
 * The approver's tool surface: two tools, `approvals.pending` and `approvals.decide`, through which
 * an approver's own agent or UI lists the calls that wait on a person and decides one — the same
 * desk `estate approvals` works through, so the CLI and the MCP surface never disagree. The tools
 * are governed like every other: an estate publishes their specs (`PENDING_CALL_TOOL_SPECS`, or
 * the files of `examples/pending-calls/`) and serves them with {@linkcode pendingCallHandlers};
 * each call answers only for its caller: their own calls and the ones they may decide, and an id
 * they may not see is answered exactly as one nobody holds.
 *
 * @module
 */
import { decideCall, type PendingCallDesk, pendingCallsFor } from "../estate/pending_calls.ts";
import {
  type PendingCall,
  PendingCallDecisionError,
  type PendingCallState,
} from "../estate/call_approvals.ts";
import type { ToolSpec } from "../estate/spec.ts";
import type { CallToolResult } from "./protocol.ts";
import type { ToolHandler } from "./tool_handler.ts";

/** The states a pending call can be in, as the tools accept them. */
const STATES: readonly PendingCallState[] = ["pending", "approved", "rejected", "expired", "ran"];

/** The tool that lists pending calls. */
export const PENDING_CALLS_TOOL = "approvals.pending";
/** The tool that decides one. */
export const DECIDE_CALL_TOOL = "approvals.decide";

/**
 * The specs of the two tools, version 1.0.0: read-only listing, a write decision; visible in every
 * tenant to every principal (each call answers for its caller only). Publish them in an estate
 * whose `callApprovals` hold calls; a deployment may publish its own versions instead (a narrower
 * tenant list, a scope to see them).
 */
export const PENDING_CALL_TOOL_SPECS: readonly ToolSpec[] = [
  {
    name: PENDING_CALLS_TOOL,
    version: "1.0.0",
    title: "List calls that wait on an approval",
    description:
      "List the tool calls held for a second person's approval that you may see: your own, and the ones you may approve or reject. Each has its id, the tool and version, who called, the exact arguments and their SHA-256, the rule that held it, when it lapses and where it stands.",
    inputSchema: {
      type: "object",
      properties: {
        state: { enum: [...STATES], description: "Only calls in this state." },
        tool: { type: "string", description: "Only calls of this tool." },
      },
      additionalProperties: false,
    },
    sideEffect: "read",
    requiredScopes: [],
    dataClassification: "internal",
    tenants: [],
    owner: "tool-estate",
  },
  {
    name: DECIDE_CALL_TOOL,
    version: "1.0.0",
    title: "Approve or reject a call that waits on an approval",
    description:
      "Approve or reject one pending call by its id. You cannot decide your own call, only ones whose rule names you as an approver. An approved call runs once, with exactly the arguments shown; a rejection needs a reason, which the caller is told.",
    inputSchema: {
      type: "object",
      properties: {
        id: { type: "string", minLength: 1, description: "The pending call's id." },
        decision: { enum: ["approve", "reject"] },
        reason: {
          type: "string",
          maxLength: 500,
          description: "Why (required to reject; a note when approving).",
        },
      },
      required: ["id", "decision"],
      additionalProperties: false,
    },
    sideEffect: "write",
    requiredScopes: [],
    dataClassification: "internal",
    tenants: [],
    owner: "tool-estate",
  },
];

/** A list of calls as the tool answers it. */
function listed(calls: PendingCall[]): CallToolResult {
  const text = calls.length
    ? calls.map((c) =>
      `${c.id} ${c.tool}@${c.version} ${c.state} by ${c.caller}: ${JSON.stringify(c.arguments)}`
    ).join("\n")
    : "No pending calls.";
  return { content: [{ type: "text", text }], structuredContent: { calls } };
}

/**
 * The handlers of the two tools over a desk: give them to the server's `handlerFor` before the
 * system's own (`estate serve` does when the estate publishes the tools).
 *
 * @param desk The estate's pending calls, specs and clock (and tasks: a rejection ends its task).
 * @param onDecided Told of each decision made through the tools (a server runs an approved call
 *   at once: `McpServer.sweepPendingCalls`).
 * @returns `handlerFor` for the two tools: undefined for any other.
 *
 * @example
 * ```ts
 * import { memoryPendingCalls, pendingCallHandlers, PENDING_CALL_TOOL_SPECS } from "@tool-estate/core";
 * import assert from "node:assert/strict";
 * const handlerFor = pendingCallHandlers({ store: memoryPendingCalls(), specOf: () => undefined, now: Date.now });
 * assert.equal(typeof handlerFor(PENDING_CALL_TOOL_SPECS[0]), "function");
 * ```
 */
export function pendingCallHandlers(
  desk: PendingCallDesk,
  onDecided?: (call: PendingCall) => void,
): (spec: ToolSpec) => ToolHandler | undefined {
  const pending: ToolHandler = async (args, ctx) =>
    listed(
      await pendingCallsFor(desk, ctx.principal, {
        ...(typeof args.state === "string" ? { state: args.state as PendingCallState } : {}),
        ...(typeof args.tool === "string" ? { tool: args.tool } : {}),
      }),
    );
  const decide: ToolHandler = async (args, ctx): Promise<CallToolResult> => {
    const reason = typeof args.reason === "string" && args.reason.trim() !== ""
      ? args.reason.trim()
      : undefined;
    try {
      const call = await decideCall(desk, String(args.id), {
        by: ctx.principal,
        approve: args.decision === "approve",
        ...(reason ? { reason } : {}),
      });
      onDecided?.(call);
      return {
        content: [{
          type: "text",
          text: call.state === "approved"
            ? `Approved ${call.tool}@${call.version} call ${call.id} by ${call.caller}: it runs once, with arguments sha256 ${call.argumentsSha256}.`
            : `Rejected ${call.tool}@${call.version} call ${call.id} by ${call.caller}: ${call.reason}.`,
        }],
        structuredContent: { call },
      };
    } catch (e) {
      if (!(e instanceof PendingCallDecisionError)) throw e;
      return {
        content: [{ type: "text", text: e.message }],
        structuredContent: { refused: e.reason },
        isError: true,
      };
    }
  };
  return (spec) =>
    spec.name === PENDING_CALLS_TOOL
      ? pending
      : spec.name === DECIDE_CALL_TOOL
      ? decide
      : undefined;
}
