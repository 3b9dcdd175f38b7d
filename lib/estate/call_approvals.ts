/**
 * Calls that wait on a person: `estate.json`'s `callApprovals` say which `tools/call`s need the
 * approval of someone other than the caller (a tool, or every tool of a side-effect class, for a
 * tenant, above an amount), and who may give it (principals holding an approver scope). Pure: which
 * rule a call falls under, the pending call a server keeps while it waits, and the decision on
 * it — who may decide, what they may see, and when a pending call has lapsed. The waiting itself
 * is the tasks extension's (a task per pending call); the pending calls are kept in the estate's
 * store so that any replica can answer and run them.
 *
 * Four eyes: the caller can never approve its own call; an approver must hold the rule's scope and
 * be able to see the tool (a pending call of a tool someone cannot see is, to them, not there at
 * all); a call runs once, with exactly the arguments approved (their SHA-256 is kept beside them);
 * and a call nobody decided before it expires fails safe (it is never run).
 *
 * @module
 */
import { isObject } from "../_object.ts";
import { parsePath } from "../schema/path.ts";
import { canSee, type Principal, SIDE_EFFECTS, type SideEffect, type ToolSpec } from "./spec.ts";
import { isToolPattern, toolPatternMatches } from "./_tool_pattern.ts";

/**
 * One rule of `estate.json`'s `callApprovals`: the calls it holds for a second person, and who may
 * decide them. Every field given must match for the rule to apply; the first rule that applies
 * decides.
 *
 * @example `payments.release` above 10,000 needs a `payments:approve` holder
 * ```json
 * { "tool": "payments.release", "above": { "path": "$.amount", "amount": 10000 },
 *   "approverScope": "payments:approve" }
 * ```
 */
export interface CallApprovalRule {
  /** The tool: a name, or a prefix ending in `.*`. Default: every tool. */
  tool?: string;
  /** Only tools of this side-effect class (e.g. `irreversible`). */
  sideEffect?: SideEffect;
  /** Only calls by principals of this tenant. */
  tenant?: string;
  /** Only when the number at `path` in the arguments (a `$` path) is above `amount`. */
  above?: { path: string; amount: number };
  /** The scope an approver must hold. */
  approverScope: string;
  /** How long a pending call waits for a decision, in minutes (default 60, at most a week). */
  expiresMinutes?: number;
}

const RULE_FIELDS = ["tool", "sideEffect", "tenant", "above", "approverScope", "expiresMinutes"];

/** How long a pending call waits by default, in minutes. */
export const DEFAULT_APPROVAL_MINUTES = 60;

/**
 * What is wrong with a `callApprovals` list (empty when nothing is), each problem naming its entry
 * and field.
 *
 * @param value The list, as read from `estate.json`.
 * @returns The problems.
 *
 * @example
 * ```ts
 * import { callApprovalProblems } from "@tool-estate/core";
 * import assert from "node:assert/strict";
 * assert.deepEqual(callApprovalProblems([{ tool: "payments.release", approverScope: "payments:approve" }]), []);
 * assert.deepEqual(callApprovalProblems([{ sideEffect: "risky" }]), [
 *   'callApprovals[0].sideEffect must be one of read, idempotent-write, write, irreversible, got "risky"',
 *   "callApprovals[0].approverScope must be a non-empty string, got undefined",
 * ]);
 * ```
 */
export function callApprovalProblems(value: unknown): string[] {
  if (!Array.isArray(value)) return ["callApprovals must be an array of rules"];
  const problems: string[] = [];
  value.forEach((rule, i) => {
    const at = `callApprovals[${i}]`;
    if (!isObject(rule)) {
      problems.push(`${at} must be an object`);
      return;
    }
    if (rule.tool !== undefined && !isToolPattern(rule.tool)) {
      problems.push(
        `${at}.tool must be a tool name or a prefix ending in .*, got ${JSON.stringify(rule.tool)}`,
      );
    }
    if (
      rule.sideEffect !== undefined && !SIDE_EFFECTS.includes(rule.sideEffect as SideEffect)
    ) {
      problems.push(
        `${at}.sideEffect must be one of ${SIDE_EFFECTS.join(", ")}, got ${
          JSON.stringify(rule.sideEffect)
        }`,
      );
    }
    if (rule.tenant !== undefined && (typeof rule.tenant !== "string" || rule.tenant === "")) {
      problems.push(`${at}.tenant must be a non-empty string, got ${JSON.stringify(rule.tenant)}`);
    }
    if (rule.above !== undefined) {
      const above = rule.above;
      let path = false;
      try {
        path = isObject(above) && typeof above.path === "string" &&
          parsePath(above.path).length > 0;
      } catch {
        path = false;
      }
      if (!path || !isObject(above) || !Number.isFinite(above.amount)) {
        problems.push(
          `${at}.above must be {path, amount}: a $ path below the arguments (e.g. "$.amount") and a number, got ${
            JSON.stringify(above)
          }`,
        );
      }
    }
    if (typeof rule.approverScope !== "string" || rule.approverScope === "") {
      problems.push(
        `${at}.approverScope must be a non-empty string, got ${JSON.stringify(rule.approverScope)}`,
      );
    }
    const minutes = rule.expiresMinutes;
    if (
      minutes !== undefined &&
      !(typeof minutes === "number" && minutes > 0 && minutes <= 7 * 24 * 60)
    ) {
      problems.push(
        `${at}.expiresMinutes must be a number of minutes above 0 and at most 10080 (a week), got ${
          JSON.stringify(minutes)
        }`,
      );
    }
    for (const k of Object.keys(rule)) {
      if (!RULE_FIELDS.includes(k)) problems.push(`${at} has an unknown field ${k}`);
    }
  });
  return problems;
}

/** The value at a `$` path below the arguments, or undefined. */
function valueAt(args: unknown, path: string): unknown {
  let at: unknown = args;
  for (const seg of parsePath(path)) {
    if (typeof seg === "number") {
      if (!Array.isArray(at)) return undefined;
      at = at[seg];
    } else {
      if (!isObject(at) || !Object.hasOwn(at, seg)) return undefined;
      at = at[seg];
    }
  }
  return at;
}

/**
 * The rule a call falls under: the first of `rules` whose every field matches, or undefined when
 * the call needs no approval.
 *
 * An `above` rule applies when the number at its path is above its amount; a value there that is
 * not a number (the schema let it through) is held too: the rule fails safe.
 *
 * @param rules The estate's rules.
 * @param call The tool (its spec), who calls, and the arguments.
 * @returns The rule, and its index in the list.
 *
 * @example
 * ```ts
 * import { callApprovalFor } from "@tool-estate/core";
 * import assert from "node:assert/strict";
 * const rules = [{ tool: "payments.release", above: { path: "$.amount", amount: 10000 }, approverScope: "payments:approve" }];
 * const spec = { name: "payments.release", sideEffect: "irreversible" as const };
 * const caller = { id: "ops", scopes: [], tenant: "retail", clearance: "internal" as const };
 * assert.equal(callApprovalFor(rules, { spec, principal: caller, arguments: { amount: 500 } }), undefined);
 * assert.equal(callApprovalFor(rules, { spec, principal: caller, arguments: { amount: 25000 } })?.index, 0);
 * ```
 */
export function callApprovalFor(
  rules: readonly CallApprovalRule[],
  call: {
    spec: Pick<ToolSpec, "name" | "sideEffect">;
    principal: Principal;
    arguments: unknown;
  },
): { rule: CallApprovalRule; index: number } | undefined {
  for (const [index, rule] of rules.entries()) {
    if (rule.tool !== undefined && !toolPatternMatches(rule.tool, call.spec.name)) continue;
    if (rule.sideEffect !== undefined && rule.sideEffect !== call.spec.sideEffect) continue;
    if (rule.tenant !== undefined && rule.tenant !== call.principal.tenant) continue;
    if (rule.above !== undefined) {
      const v = valueAt(call.arguments, rule.above.path);
      if (v === undefined) continue; // nothing there: the amount is not above
      if (typeof v === "number" && !(v > rule.above.amount)) continue;
    }
    return { rule, index };
  }
  return undefined;
}

/**
 * Whether a rule may hold calls of a tool, whoever calls and with whatever arguments: its `tool`
 * and `sideEffect` match (its `tenant` and `above` depend on the call).
 *
 * @param rule The rule.
 * @param spec The tool's version.
 * @returns True when some call of it may fall under the rule.
 */
export function callApprovalMayHold(
  rule: CallApprovalRule,
  spec: Pick<ToolSpec, "name" | "sideEffect">,
): boolean {
  return (rule.tool === undefined || toolPatternMatches(rule.tool, spec.name)) &&
    (rule.sideEffect === undefined || rule.sideEffect === spec.sideEffect);
}

/**
 * A rule in words, as a pending call names it.
 *
 * @param rule The rule.
 * @returns E.g. `payments.release, $.amount above 10000: approved by a holder of payments:approve`.
 */
export function callApprovalRuleText(rule: CallApprovalRule): string {
  const parts = [rule.tool ?? "every tool"];
  if (rule.sideEffect) parts.push(`${rule.sideEffect} tools`);
  if (rule.tenant) parts.push(`tenant ${rule.tenant}`);
  if (rule.above) parts.push(`${rule.above.path} above ${rule.above.amount}`);
  return `${parts.join(", ")}: approved by a holder of ${rule.approverScope}`;
}

/** Where a pending call stands. */
export type PendingCallState = "pending" | "approved" | "rejected" | "expired" | "ran";

/** A call held for a second person's decision, as the store keeps it. */
export interface PendingCall {
  /** Its id: random, and the id of the task the caller waits on. */
  id: string;
  /** The tool and the version the call resolved to. */
  tool: string;
  /** The version. */
  version: string;
  /** Who called (a principal's id) and its tenant. */
  caller: string;
  /** The caller's tenant. */
  tenant: string;
  /** The caller as it called (scopes, tenant, clearance): the approved call runs as it. */
  principal?: Principal;
  /** The arguments, exactly as they will run once approved. */
  arguments: Record<string, unknown>;
  /** SHA-256 (hex) of the arguments' canonical JSON: what an approver approved. */
  argumentsSha256: string;
  /** The rule that held it, in words, and the scope an approver needs. */
  rule: string;
  /** The scope an approver needs. */
  approverScope: string;
  /** When it was held and when it lapses (ISO 8601). */
  createdAt: string;
  /** When it lapses undecided. */
  expiresAt: string;
  /** Where it stands. */
  state: PendingCallState;
  /** Who decided, when, and why (a rejection's reason, an approval's note). */
  decidedBy?: string;
  /** When it was decided. */
  decidedAt?: string;
  /** The reason given. */
  reason?: string;
}

/**
 * A pending call as it stands at `now`: one undecided past its time has expired.
 *
 * @param call The call as stored.
 * @param now The time (ms since the epoch).
 * @returns The call, `expired` when it lapsed undecided.
 */
export function pendingCallAt(call: PendingCall, now: number): PendingCall {
  return call.state === "pending" && Date.parse(call.expiresAt) <= now
    ? { ...call, state: "expired" }
    : call;
}

/**
 * Whether `who` may see a pending call: its caller may, and so may a holder of its approver scope
 * who can see its tool. Everyone else is told nothing, exactly as for a call that does not exist.
 *
 * @param call The pending call.
 * @param who Who asks.
 * @param spec The tool's spec (the version the call resolved to), or undefined when the estate no
 *   longer has it.
 * @returns True when they may.
 */
export function mayViewPendingCall(
  call: PendingCall,
  who: Principal,
  spec: ToolSpec | undefined,
): boolean {
  if (who.id === call.caller) return true;
  return spec !== undefined && who.scopes.includes(call.approverScope) && canSee(spec, who);
}

/** Why a decision on a pending call was refused. */
export type DecisionRefusal =
  | "not-found"
  | "own-call"
  | "not-approver"
  | "decided"
  | "expired"
  | "no-reason";

/** A decision refused: why, and the message to show. */
export class PendingCallDecisionError extends Error {
  /** Why it was refused. */
  readonly reason: DecisionRefusal;

  /**
   * Makes the error.
   *
   * @param reason Why.
   * @param message What to tell the one deciding.
   */
  constructor(reason: DecisionRefusal, message: string) {
    super(message);
    this.name = "PendingCallDecisionError";
    this.reason = reason;
  }
}

/**
 * Decides a pending call: approved or rejected by `by`, at `now`. Refused (thrown) when `by` may
 * not see it (exactly as for an unknown id), is its caller, lacks the approver scope, or when it
 * was decided already or has expired.
 *
 * @param call The pending call, as stored.
 * @param decision Who decides, what, why, and when.
 * @param spec The tool's spec, or undefined when the estate no longer has it.
 * @returns The call as decided.
 * @throws {PendingCallDecisionError} When the decision is refused.
 */
export function decidePendingCall(
  call: PendingCall,
  decision: { by: Principal; approve: boolean; reason?: string; now: number },
  spec: ToolSpec | undefined,
): PendingCall {
  const { by, approve, reason, now } = decision;
  if (!mayViewPendingCall(call, by, spec)) {
    throw new PendingCallDecisionError("not-found", `No pending call ${call.id}`);
  }
  if (by.id === call.caller) {
    throw new PendingCallDecisionError(
      "own-call",
      `${by.id} cannot decide pending call ${call.id}: it is their own call; another holder of ${call.approverScope} must`,
    );
  }
  if (!by.scopes.includes(call.approverScope)) {
    throw new PendingCallDecisionError(
      "not-approver",
      `${by.id} cannot decide pending call ${call.id}: it needs ${call.approverScope}`,
    );
  }
  const current = pendingCallAt(call, now);
  if (current.state === "expired") {
    throw new PendingCallDecisionError(
      "expired",
      `Pending call ${call.id} expired at ${call.expiresAt} undecided; it will not run`,
    );
  }
  if (current.state !== "pending") {
    throw new PendingCallDecisionError(
      "decided",
      `Pending call ${call.id} was ${current.state} already${
        current.decidedBy ? ` by ${current.decidedBy}` : ""
      }`,
    );
  }
  if (!approve && !reason) {
    throw new PendingCallDecisionError(
      "no-reason",
      `Rejecting pending call ${call.id} needs a reason`,
    );
  }
  return {
    ...call,
    state: approve ? "approved" : "rejected",
    decidedBy: by.id,
    decidedAt: new Date(now).toISOString(),
    ...(reason ? { reason } : {}),
  };
}

/**
 * Where pending calls are kept, shared by every replica that may be asked about them: the memory
 * of one server ({@linkcode memoryPendingCalls}), or the estate's store (`EstateStore.pendingCalls`).
 * A decision is a compare-and-set: of two approvers deciding one call at once, exactly one wins.
 */
export interface PendingCallStore {
  /** Keeps a new pending call (its id is new). */
  hold(call: PendingCall): void | Promise<void>;
  /** One pending call by id, as stored; undefined when there is none. */
  get(id: string): PendingCall | undefined | Promise<PendingCall | undefined>;
  /** Every pending call kept, oldest first (callers filter them with `mayViewPendingCall`). */
  list(): PendingCall[] | Promise<PendingCall[]>;
  /**
   * Replaces a call that is still in state `from` with `next` (same id); false when it is not
   * (another decided it, or it ran).
   */
  change(next: PendingCall, from: PendingCallState): boolean | Promise<boolean>;
}

/**
 * Pending calls in memory: one server's, gone when it stops.
 *
 * @returns The store.
 *
 * @example
 * ```ts
 * import { memoryPendingCalls } from "@tool-estate/core";
 * import assert from "node:assert/strict";
 * const store = memoryPendingCalls();
 * assert.deepEqual(store.list(), []);
 * ```
 */
export function memoryPendingCalls(): PendingCallStore & {
  get(id: string): PendingCall | undefined;
  list(): PendingCall[];
  change(next: PendingCall, from: PendingCallState): boolean;
  hold(call: PendingCall): void;
} {
  const calls = new Map<string, PendingCall>();
  return {
    hold(call) {
      if (calls.has(call.id)) throw new Error(`Pending call ${call.id} exists already`);
      calls.set(call.id, structuredClone(call));
    },
    get(id) {
      const call = calls.get(id);
      return call && structuredClone(call);
    },
    list() {
      return [...calls.values()].map((c) => structuredClone(c));
    },
    change(next, from) {
      const stored = calls.get(next.id);
      if (!stored || stored.state !== from) return false;
      calls.set(next.id, structuredClone(next));
      return true;
    },
  };
}
