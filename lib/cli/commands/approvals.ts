/**
 * `estate approvals --as ID`, `estate approvals approve ID --as ID [--note TEXT]`,
 * `estate approvals reject ID --as ID --reason TEXT`: calls that wait on a person (`estate.json`'s
 * `callApprovals`). Who acts is `--as`, a principal of `principals.json`: they see their own
 * pending calls and the ones they may decide, and nothing else — another's call of a tool they
 * cannot see is answered exactly as an id nobody holds.
 */
import {
  decideCall,
  type PendingCall,
  PendingCallDecisionError,
  pendingCallsFor,
  type PendingCallState,
  type Principal,
} from "../../../mod.ts";
import { type Args, EXIT, UsageError } from "../_args.ts";
import type { CliCommand, CommandContext } from "../_command.ts";
import { pendingDesk } from "../_pending_desk.ts";

const STATES: readonly PendingCallState[] = ["pending", "approved", "rejected", "expired", "ran"];
const ACTIONS = ["approve", "reject"] as const;

/** The principal `--as ID` names in the estate's `principals.json`. */
function actingPrincipal(
  args: Args,
  usage: string,
  principals: readonly Principal[],
): Principal {
  const as = args.flags.get("as");
  if (typeof as !== "string" || as.trim() === "") {
    throw new UsageError(`--as ID is required: the principal who acts; usage: ${usage}`);
  }
  const found = principals.find((p) => p.id === as.trim());
  if (!found) {
    throw new UsageError(
      `--as ${as.trim()}: no such principal in the estate's principals.json (${
        principals.map((p) => p.id).join(", ") || "it has none"
      })`,
    );
  }
  return found;
}

/** One line of the list. */
function line(c: PendingCall): string {
  const decided = c.decidedBy
    ? ` ${c.state} by ${c.decidedBy}${c.reason ? `: ${c.reason}` : ""}`
    : c.state === "pending"
    ? ` until ${c.expiresAt}`
    : "";
  return `${c.id}  ${`${c.tool}@${c.version}`.padEnd(28)} ${
    c.state.padEnd(8)
  } by ${c.caller} (${c.tenant}) ${JSON.stringify(c.arguments)}${decided}\n    rule: ${c.rule}\n`;
}

/** The full id a `PREFIX` names among the calls `who` may see (at least 8 characters). */
function resolveId(prefix: string, visible: readonly PendingCall[]): string {
  if (prefix.length < 8) {
    throw new PendingCallDecisionError(
      "not-found",
      `A pending call's id needs at least 8 characters, got ${JSON.stringify(prefix)}`,
    );
  }
  const matches = visible.filter((c) => c.id.startsWith(prefix));
  if (matches.length === 1) return matches[0].id;
  throw new PendingCallDecisionError(
    "not-found",
    matches.length === 0
      ? `No pending call ${prefix}`
      : `${prefix} names ${matches.length} pending calls; give more of the id`,
  );
}

/** `estate approvals`. */
export const approvalsCommand: CliCommand = {
  name: "approvals",
  usage:
    "estate approvals [approve ID [--note TEXT] | reject ID --reason TEXT] --as ID [--state STATE] [--tool NAME]",
  summary:
    "calls that wait on a person (estate.json callApprovals): the ones --as may see, or approve\n" +
    "or reject one (ID: at least 8 characters of its id); never the caller's own call",
  flags: { values: ["as", "note", "reason", "state", "tool"], booleans: [] },
  async run(ctx: CommandContext): Promise<number> {
    const { args, out } = ctx;
    const [action, id, ...rest] = args.positionals;
    if (rest.length || (action !== undefined && !ACTIONS.includes(action as "approve"))) {
      throw new UsageError(ctx.usage);
    }
    if (action !== undefined && id === undefined) throw new UsageError(ctx.usage);
    const state = args.flags.get("state") as string | undefined;
    if (state !== undefined && !STATES.includes(state as PendingCallState)) {
      throw new UsageError(`--state must be one of ${STATES.join(", ")}, got ${state}`);
    }
    const reason = args.flags.get(action === "reject" ? "reason" : "note") as string | undefined;
    if (action === "reject" && (reason === undefined || reason.trim() === "")) {
      throw new UsageError(`--reason TEXT is required: say why; usage: ${ctx.usage}`);
    }
    const estate = await ctx.openEstate();
    const who = actingPrincipal(args, ctx.usage, estate.principals());
    const desk = pendingDesk(estate, () => ctx.now().getTime());
    if (action === undefined) {
      const calls = await pendingCallsFor(desk, who, {
        ...(state ? { state: state as PendingCallState } : {}),
        ...(args.flags.get("tool") ? { tool: args.flags.get("tool") as string } : {}),
      });
      out(calls.length ? calls.map(line).join("") : "no pending calls\n", { calls });
      return EXIT.ok;
    }
    try {
      const full = resolveId(id, await pendingCallsFor(desk, who));
      const decided = await decideCall(desk, full, {
        by: who,
        approve: action === "approve",
        ...(reason ? { reason: reason.trim() } : {}),
      });
      out(
        decided.state === "approved"
          ? `approved ${decided.tool}@${decided.version} call ${decided.id} by ${decided.caller}: it runs once, with arguments sha256 ${decided.argumentsSha256}\n`
          : `rejected ${decided.tool}@${decided.version} call ${decided.id} by ${decided.caller}: ${decided.reason}\n`,
        { status: decided.state, call: decided },
      );
      return EXIT.ok;
    } catch (e) {
      if (!(e instanceof PendingCallDecisionError)) throw e;
      out(`${e.message}\n`, { status: "refused", reason: e.reason, message: e.message });
      return EXIT.failed;
    }
  },
};
