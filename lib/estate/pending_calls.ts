/**
 * The pending-call desk: what every surface of call approvals does with the estate's pending calls
 * — hold a call, list the ones a principal may see, decide one, and claim an approved one to run
 * it — in one place, so that `estate approvals`, the MCP tool surface (`approvals.pending`,
 * `approvals.decide`) and the server holding the calls never disagree. The rules (who may see and
 * decide, when a call lapses) are those of `callApprovals` (`decidePendingCall`, `pendingCallAt`); this module applies them to a
 * {@linkcode PendingCallStore} shared by every replica.
 *
 * @module
 */
import { canonicalJson } from "../schema/json_equal.ts";
import {
  type CallApprovalRule,
  callApprovalRuleText,
  decidePendingCall,
  DEFAULT_APPROVAL_MINUTES,
  mayViewPendingCall,
  type PendingCall,
  pendingCallAt,
  PendingCallDecisionError,
  type PendingCallState,
  type PendingCallStore,
} from "./call_approvals.ts";
import type { Principal, ToolSpec } from "./spec.ts";
import { finishTask, type TaskStore } from "./tasks.ts";
import { type AuditEvent, sha256Hex } from "./audit.ts";

/** What the desk works on: the store, the tools' specs, and the clock. */
export interface PendingCallDesk {
  /** Where the pending calls are kept. */
  store: PendingCallStore;
  /**
   * The spec of a tool's version as the estate has it now, or undefined when it has none (a
   * pending call of a tool the estate no longer has is seen by its caller only).
   */
  specOf(tool: string, version: string): ToolSpec | undefined;
  /** The time (ms since the epoch). */
  now(): number;
  /**
   * The tasks the callers wait on (a pending call's id is its task's): a rejection, and a call
   * that lapsed, end the caller's task where it is decided. Absent: the tasks are not ended here.
   */
  tasks?: TaskStore;
  /**
   * The estate's audit log: each step of a pending call (`pending-call` events: held, approved,
   * rejected, expired, ran — who, when, the call's id, its caller and the arguments' SHA-256, never
   * their values). Absent: nothing is recorded here.
   */
  audit?: (event: AuditEvent) => unknown;
}

/** Records a step of a pending call in the audit log, when the desk has one. */
async function audited(
  desk: PendingCallDesk,
  call: PendingCall,
  by: string | undefined,
  extra: Record<string, unknown> = {},
): Promise<void> {
  await desk.audit?.({
    kind: "pending-call",
    at: new Date(desk.now()).toISOString(),
    ...(by === undefined ? {} : { principal: by }),
    tool: call.tool,
    version: call.version,
    detail: {
      id: call.id,
      state: call.state,
      caller: call.caller,
      argumentsSha256: call.argumentsSha256,
      ...(call.reason ? { reason: call.reason } : {}),
      ...extra,
    },
  });
}

/** Ends the caller's task of a call that will not run: a tool error saying why. */
async function endTask(desk: PendingCallDesk, call: PendingCall, why: string): Promise<void> {
  if (!desk.tasks) return;
  await finishTask(desk.tasks, {
    taskId: call.id,
    now: desk.now(),
    outcome: {
      result: {
        content: [{ type: "text", text: `${call.tool} was not run: ${why}` }],
        isError: true,
      },
      statusMessage: why,
    },
  });
}

/** A call that lapsed undecided: recorded (by nobody), and its task ended. */
async function lapse(desk: PendingCallDesk, call: PendingCall): Promise<void> {
  await audited(desk, call, undefined, { expiresAt: call.expiresAt });
  await endTask(desk, call, notRunWhy(call));
}

/** Why a call will not run, in words. */
function notRunWhy(call: PendingCall): string {
  return call.state === "rejected"
    ? `rejected by ${call.decidedBy}: ${call.reason}`
    : `nobody approved it by ${call.expiresAt}`;
}

/**
 * SHA-256 (hex) of a value's canonical JSON: what an approver approves.
 *
 * @param value The arguments.
 * @returns 64 hex digits.
 */
export async function argumentsDigest(value: unknown): Promise<string> {
  return await sha256Hex(canonicalJson(value));
}

/**
 * Holds a call for a second person: keeps it in the store, `pending`, lapsing after the rule's
 * minutes. The arguments kept are a copy: what is approved is exactly what runs.
 *
 * @param desk The desk.
 * @param call The version called, who calls, the arguments, and the rule that holds it.
 * @returns The pending call as kept (its id is the task's the caller waits on).
 */
export async function holdCall(
  desk: PendingCallDesk,
  call: {
    spec: Pick<ToolSpec, "name" | "version">;
    principal: Principal;
    arguments: Record<string, unknown>;
    rule: CallApprovalRule;
    /** The id to give it (default: a random UUID); a server gives the task's. */
    id?: string;
  },
): Promise<PendingCall> {
  const now = desk.now();
  const args = structuredClone(call.arguments);
  const minutes = call.rule.expiresMinutes ?? DEFAULT_APPROVAL_MINUTES;
  const pending: PendingCall = {
    id: call.id ?? crypto.randomUUID(),
    tool: call.spec.name,
    version: call.spec.version,
    caller: call.principal.id,
    tenant: call.principal.tenant,
    principal: structuredClone(call.principal),
    arguments: args,
    argumentsSha256: await argumentsDigest(args),
    rule: callApprovalRuleText(call.rule),
    approverScope: call.rule.approverScope,
    createdAt: new Date(now).toISOString(),
    expiresAt: new Date(now + minutes * 60_000).toISOString(),
    state: "pending",
  };
  await desk.store.hold(pending);
  await audited(desk, pending, pending.caller, {
    rule: pending.rule,
    approverScope: pending.approverScope,
    expiresAt: pending.expiresAt,
  });
  return pending;
}

/**
 * The pending calls `who` may see (their own calls, and the calls they may decide), oldest
 * first, each as it stands now (an undecided one past its time is `expired`).
 *
 * @param desk The desk.
 * @param who Who asks.
 * @param filter Only calls in this state, or of this tool.
 * @returns The calls.
 */
export async function pendingCallsFor(
  desk: PendingCallDesk,
  who: Principal,
  filter: { state?: PendingCallState; tool?: string } = {},
): Promise<PendingCall[]> {
  const now = desk.now();
  return (await desk.store.list())
    .filter((c) => mayViewPendingCall(c, who, desk.specOf(c.tool, c.version)))
    .map((c) => pendingCallAt(c, now))
    .filter((c) =>
      (filter.state === undefined || c.state === filter.state) &&
      (filter.tool === undefined || c.tool === filter.tool)
    );
}

/**
 * One pending call `who` may see, as it stands now; undefined — exactly as for an id nobody
 * holds — when they may not.
 *
 * @param desk The desk.
 * @param id The call's id.
 * @param who Who asks.
 * @returns The call, or undefined.
 */
export async function pendingCallFor(
  desk: PendingCallDesk,
  id: string,
  who: Principal,
): Promise<PendingCall | undefined> {
  const call = await desk.store.get(id);
  if (!call || !mayViewPendingCall(call, who, desk.specOf(call.tool, call.version))) {
    return undefined;
  }
  return pendingCallAt(call, desk.now());
}

/**
 * Decides a pending call, once: approved or rejected by `by` (see `decidePendingCall` for who may),
 * kept as a compare-and-set on the store, so that of two approvers on two replicas exactly one
 * decides; the other is told who did. An undecided call past its time is kept `expired`.
 *
 * @param desk The desk.
 * @param id The call's id (an id `by` may not see is answered exactly as an unknown one).
 * @param decision Who decides, approve or not, and why (a rejection needs a reason).
 * @returns The call as decided.
 * @throws {PendingCallDecisionError} When the decision is refused.
 */
export async function decideCall(
  desk: PendingCallDesk,
  id: string,
  decision: { by: Principal; approve: boolean; reason?: string },
): Promise<PendingCall> {
  const stored = await desk.store.get(id);
  if (!stored) throw new PendingCallDecisionError("not-found", `No pending call ${id}`);
  const spec = desk.specOf(stored.tool, stored.version);
  const now = desk.now();
  let decided: PendingCall;
  try {
    decided = decidePendingCall(stored, { ...decision, now }, spec);
  } catch (e) {
    if (e instanceof PendingCallDecisionError && e.reason === "expired") {
      const lapsed = pendingCallAt(stored, now);
      if (await desk.store.change(lapsed, "pending")) {
        await lapse(desk, lapsed);
      }
    }
    throw e;
  }
  if (await desk.store.change(decided, "pending")) {
    await audited(desk, decided, decision.by.id);
    if (decided.state === "rejected") await endTask(desk, decided, notRunWhy(decided));
    return decided;
  }
  // Another decided it between the read and the write: say who, as a second decision is told.
  const now2 = await desk.store.get(id);
  throw new PendingCallDecisionError(
    "decided",
    `Pending call ${id} was ${now2?.state ?? "decided"} already${
      now2?.decidedBy ? ` by ${now2.decidedBy}` : ""
    }`,
  );
}

/**
 * Claims an approved call to run it: `approved` → `ran`, a compare-and-set, so that of every
 * replica that sees the approval exactly one runs the call (at most once: a replica that stops
 * while running it does not hand it to another).
 *
 * @param desk The desk.
 * @param id The call's id.
 * @returns The call to run (its arguments exactly as approved), or undefined when it is not
 *   approved or another replica claimed it.
 */
export async function claimApprovedCall(
  desk: PendingCallDesk,
  id: string,
): Promise<PendingCall | undefined> {
  const stored = await desk.store.get(id);
  if (!stored || stored.state !== "approved") return undefined;
  const ran: PendingCall = { ...stored, state: "ran" };
  if (!await desk.store.change(ran, "approved")) return undefined;
  await audited(desk, ran, ran.caller, { approvedBy: ran.decidedBy });
  return stored;
}

/**
 * Marks an undecided call past its time `expired` in the store (it will never run) and ends its
 * task, once (of several replicas settling it, one does).
 *
 * @param desk The desk.
 * @param id The call's id.
 * @returns The call as it stands now, or undefined when there is none.
 */
export async function settleExpiry(
  desk: PendingCallDesk,
  id: string,
): Promise<PendingCall | undefined> {
  const stored = await desk.store.get(id);
  if (!stored) return undefined;
  const now = pendingCallAt(stored, desk.now());
  if (now.state === "expired" && stored.state === "pending") {
    if (!await desk.store.change(now, "pending")) return await desk.store.get(id);
    await lapse(desk, now);
  }
  return now;
}
