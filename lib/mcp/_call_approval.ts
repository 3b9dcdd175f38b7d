/**
 * Calls that wait on a person, on the server: the **approval** step of `tools/call` — a call the
 * estate's `callApprovals` hold becomes a task that waits (nothing runs), and a pending call in
 * the store under the task's id — and the server's **sweep**, which runs every approved call once
 * (whichever replica claims it first) with exactly the arguments approved, and ends the task of a
 * call that lapsed undecided. A rejection ends its task where it is decided (the desk does it), on
 * any replica or from `estate approvals`.
 *
 * @module
 */
import {
  callApprovalFor,
  callApprovalMayHold,
  type CallApprovalRule,
  callApprovalRuleText,
  DEFAULT_APPROVAL_MINUTES,
} from "../estate/call_approvals.ts";
import {
  claimApprovedCall,
  holdCall,
  type PendingCallDesk,
  settleExpiry,
} from "../estate/pending_calls.ts";
import type { Principal, ToolSpec } from "../estate/spec.ts";
import type { RequestContext } from "../jsonrpc/peer_types.ts";
import type { Caller, ServerCore } from "./_server_core.ts";
import type { CallToolResult } from "./protocol.ts";
import type { CallRecord } from "./server_options.ts";
import { asTask, isTaskDeferral } from "./tasks.ts";
import { deferToTask, finishTaskHere, taskStoreOf } from "./_tasks.ts";
import { asResult } from "./_call_result.ts";
import { MissingClientCapabilityError } from "./tool_handler.ts";
import { auditCall } from "./_call_audit.ts";

/** How often the sweep looks for decided calls by default, in ms. */
const DEFAULT_SWEEP_MS = 1000;

/** How long a held call's task is kept after the call lapses: the caller can still read why. */
const TASK_GRACE_MS = 3_600_000;

/** The desk of a server: its pending calls, its registry's specs, its clock, its tasks. */
export function serverDesk(core: ServerCore): PendingCallDesk | undefined {
  const approvals = core.options.callApprovals;
  if (!approvals) return undefined;
  const registry = core.options.registry;
  return {
    store: approvals.pendingCalls,
    specOf: (tool, version) => registry.version(tool, version)?.spec,
    now: () => core.now(),
    tasks: taskStoreOf(core),
    ...(core.options.audit ? { audit: (event) => core.options.audit!.append(event) } : {}),
  };
}

/**
 * The rule that holds a call, when the server has `callApprovals` and one applies.
 *
 * @param core The server.
 * @param call Who calls which version with which arguments.
 * @returns The rule, or undefined when the call runs now.
 */
export function approvalRuleFor(
  core: ServerCore,
  call: { caller: Caller; spec: ToolSpec; args: Record<string, unknown> },
): CallApprovalRule | undefined {
  const approvals = core.options.callApprovals;
  if (!approvals) return undefined;
  return callApprovalFor(approvals.rules(), {
    spec: call.spec,
    principal: call.caller.principal,
    arguments: call.args,
  })?.rule;
}

/**
 * Whether the server's `callApprovals` may hold calls of a version (a rule names its tool and side
 * effect, whatever the caller and arguments): 2025-11-25's `tools/list` then lists it as taking a
 * task (`execution.taskSupport: "optional"`).
 *
 * @param core The server.
 * @param spec The version.
 * @returns True when some call of it may be held.
 */
export function mayHoldCalls(core: ServerCore, spec: ToolSpec): boolean {
  const rules = core.options.callApprovals?.rules() ?? [];
  return rules.some((rule) => callApprovalMayHold(rule, spec));
}

/**
 * Step 7, approval: holds the call for a second person. The call becomes a task (for a client that
 * can take one; any other waits on it) that stays `working` until the call is decided, and a
 * pending call under the task's id. Nothing runs now.
 *
 * @param core The server.
 * @param call The call, the rule that holds it, and its log.
 * @returns The era's `CreateTaskResult`, or (a client that cannot take a task) the call's final
 *   result once decided and run.
 */
export async function holdForApproval(
  core: ServerCore,
  call: {
    caller: Caller;
    spec: ToolSpec;
    args: Record<string, unknown>;
    task: Record<string, unknown> | undefined;
    context: RequestContext;
    rule: CallApprovalRule;
    record: (outcome: CallRecord["outcome"]) => void;
  },
): Promise<CallToolResult> {
  const desk = serverDesk(core)!;
  const { caller, spec, rule } = call;
  const minutes = rule.expiresMinutes ?? DEFAULT_APPROVAL_MINUTES;
  const deferral = asTask({
    statusMessage: `Waiting for approval (${callApprovalRuleText(rule)}); nothing runs until then`,
    ttlMs: minutes * 60_000 + TASK_GRACE_MS,
    onCreated: async (task) => {
      await holdCall(desk, {
        id: task.taskId,
        spec,
        principal: caller.principal,
        arguments: call.args,
        rule,
      });
    },
  });
  let held = false;
  return await deferToTask(core, {
    caller,
    spec,
    task: call.task,
    context: call.context,
    deferral,
    // The call is logged `held` now, and again with its outcome when it runs.
    record: (outcome) => {
      if (held) return;
      held = true;
      call.record(outcome === "ok" ? "held" : outcome);
    },
  });
}

/** What a deferred run of a handler may not do: ask the client anything. */
function noAsk(): Promise<never> {
  return Promise.reject(new MissingClientCapabilityError({ elicitation: {} }));
}

/**
 * Runs an approved call: claimed first (exactly one replica runs it), then the version's handler
 * with the arguments as approved and the caller as it called, its outcome logged as a call and
 * given to the task.
 */
async function runApproved(core: ServerCore, desk: PendingCallDesk, id: string): Promise<void> {
  const call = await claimApprovedCall(desk, id);
  if (!call) return;
  const started = core.now();
  const spec = desk.specOf(call.tool, call.version);
  const handler = spec && core.options.handlerFor(spec);
  const principal: Principal = call.principal ??
    { id: call.caller, tenant: call.tenant, scopes: [], clearance: "public" };
  let result: CallToolResult;
  if (!spec || !handler) {
    result = {
      content: [{ type: "text", text: `${call.tool}@${call.version} is not available right now` }],
      isError: true,
    };
  } else {
    try {
      const value = await handler(structuredClone(call.arguments), {
        principal,
        spec,
        signal: core.closed,
        progress: () => {},
        log: () => {},
        clientCapabilities: {},
        sample: noAsk,
        elicit: noAsk,
        listRoots: noAsk,
        canTakeTask: false,
      });
      result = isTaskDeferral(value)
        ? {
          content: [{
            type: "text",
            text: `${call.tool}: an approved call cannot become another task`,
          }],
          isError: true,
        }
        : asResult(value);
    } catch (e) {
      result = {
        content: [{ type: "text", text: `${call.tool}: ${(e as Error).message}` }],
        isError: true,
      };
    }
  }
  const record: CallRecord = {
    principal: call.caller,
    tool: call.tool,
    version: call.version,
    outcome: result.isError ? "tool-error" : "ok",
    durationMs: core.now() - started,
    at: new Date(started).toISOString(),
    arguments: call.arguments,
  };
  core.options.onCall?.(record);
  if (spec) auditCall(core.options.audit, { record, classification: spec.dataClassification });
  await finishTaskHere(core, id, {
    result: result as unknown as Record<string, unknown>,
    statusMessage: `Approved by ${call.decidedBy}${call.reason ? ` (${call.reason})` : ""}; ran`,
  });
}

/** One pass: run what was approved, end what lapsed. */
async function sweep(core: ServerCore, desk: PendingCallDesk): Promise<void> {
  const now = core.now();
  for (const call of await desk.store.list()) {
    if (core.closed.aborted) return;
    if (call.state === "approved") await runApproved(core, desk, call.id);
    else if (call.state === "pending" && Date.parse(call.expiresAt) <= now) {
      await settleExpiry(desk, call.id);
    }
  }
}

/**
 * Starts the server's sweep of pending calls (when it has `callApprovals`): every `sweepMs`, and
 * at once when {@linkcode ApprovalSweep.poke}d (a decision made on this server). Stops when the
 * server closes.
 *
 * @param core The server.
 * @param report Where a failed pass is told (the next pass tries again).
 * @returns The sweep, or undefined when the server holds no calls.
 */
export function startApprovalSweep(
  core: ServerCore,
  report: (e: unknown) => void,
): ApprovalSweep | undefined {
  const desk = serverDesk(core);
  if (!desk) return undefined;
  const every = core.options.callApprovals?.sweepMs ?? DEFAULT_SWEEP_MS;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let running: Promise<void> | undefined;
  let again = false;
  const pass = (): void => {
    if (core.closed.aborted) return;
    if (running) {
      again = true;
      return;
    }
    clearTimeout(timer);
    running = sweep(core, desk).catch(report).finally(() => {
      running = undefined;
      if (core.closed.aborted) return;
      if (again) {
        again = false;
        pass();
      } else timer = setTimeout(pass, every);
    });
  };
  core.closed.addEventListener("abort", () => clearTimeout(timer), { once: true });
  timer = setTimeout(pass, every);
  return {
    poke: pass,
    idle: async () => {
      while (running) await running;
    },
  };
}

/** A server's sweep of pending calls. */
export interface ApprovalSweep {
  /** Runs a pass now (or right after the one running). */
  poke(): void;
  /** Resolves when no pass is running. */
  idle(): Promise<void>;
}
