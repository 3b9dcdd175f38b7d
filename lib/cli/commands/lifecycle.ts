/**
 * `estate deprecate` and `estate retire`: a version's lifecycle, a refusal by the lifecycle rules
 * exit 1 with why, and (for a retirement) who will break.
 */
import {
  LifecycleError,
  retireAfterProblem,
  RetirementError,
  type RetirementPlan,
} from "../../../mod.ts";
import { EXIT, parseToolRef, UsageError } from "../_args.ts";
import type { CliCommand, CommandContext } from "../_command.ts";
import { callerRows, callers } from "../_callers.ts";

/** `estate deprecate`. */
export const deprecateCommand: CliCommand = {
  name: "deprecate",
  usage: "estate deprecate NAME@VERSION [--reason TEXT] [--retire-after DATE] [--as ID]",
  summary:
    "deprecate a version (it stays resolvable by a pin it alone satisfies); DATE: a calendar\n" +
    "date after today, the version retires at 00:00 UTC the next day, by itself",
  flags: { values: ["reason", "retire-after", "as"], booleans: [] },
  async run(ctx: CommandContext): Promise<number> {
    const { args, out } = ctx;
    if (args.positionals.length !== 1) throw new UsageError(ctx.usage);
    const { name, version } = parseToolRef(args.positionals[0], deprecateCommand.usage);
    const reason = args.flags.get("reason") as string | undefined;
    const retireAfter = args.flags.get("retire-after") as
      | string
      | undefined;
    if (retireAfter !== undefined) {
      const problem = retireAfterProblem(retireAfter, ctx.now());
      if (problem) throw new UsageError(`--${problem}`);
    }
    const estate = await ctx.openEstate();
    return await lifecycleRefusal(out, async () => {
      const record = await estate.deprecate(name, version, {
        reason,
        retireAfter,
      });
      out(`${name}@${version} is now ${record.state}\n`, {
        name,
        version,
        state: record.state,
      });
      return EXIT.ok;
    });
  },
};

/** `estate retire`. */
export const retireCommand: CliCommand = {
  name: "retire",
  usage: "estate retire NAME@VERSION [--now --reason TEXT] [--force] [--recent-days N] [--as ID]",
  summary:
    "retire a version (it never resolves again): it needs the version deprecated and its date\n" +
    "passed, or --now with a reason; --force to retire the only active version or one called in\n" +
    "the last N (30) days — both print who will break",
  flags: { values: ["reason", "recent-days", "as"], booleans: ["now", "force"] },
  async run(ctx: CommandContext): Promise<number> {
    const { args, out } = ctx;
    if (args.positionals.length !== 1) throw new UsageError(ctx.usage);
    const { name, version } = parseToolRef(args.positionals[0], retireCommand.usage);
    const reason = args.flags.get("reason") as string | undefined;
    const early = args.flags.has("now");
    if (early && !reason?.trim()) {
      throw new UsageError(
        `--now retires before the rules allow: it needs --reason TEXT, which the lifecycle record keeps`,
      );
    }
    const days = args.flags.get("recent-days");
    const recentDays = days === undefined ? undefined : Number(days);
    if (
      recentDays !== undefined &&
      !(Number.isInteger(recentDays) && recentDays >= 0)
    ) {
      throw new UsageError(
        `--recent-days must be a whole number of days, got ${JSON.stringify(days)}`,
      );
    }
    const rules = { early, force: args.flags.has("force"), recentDays };
    const estate = await ctx.openEstate();
    return await lifecycleRefusal(out, async () => {
      // Who will break, as the estate stands now (the retirement decides again under the lock).
      const planned = await estate.planRetirement(name, version, {
        ...rules,
        reason,
      });
      const record = await estate.retire(name, version, { reason, rules });
      out(
        `${name}@${version} is now ${record.state}\n` + breakage(planned),
        {
          name,
          version,
          state: record.state,
          onlyActive: planned.onlyActive,
          impact: planned.impact,
        },
      );
      return EXIT.ok;
    });
  },
};

/** Runs a deprecation or retirement: a refusal by the lifecycle rules is exit 1, with why. */
async function lifecycleRefusal(
  out: (h: string, d: unknown) => void,
  fn: () => Promise<number>,
): Promise<number> {
  try {
    return await fn();
  } catch (e) {
    if (e instanceof RetirementError) {
      out(
        `${e.message}\n` + breakage(e.plan) +
          "  (--now --reason TEXT retires before the date; --force retires the only active version or one called recently)\n",
        {
          status: "refused",
          message: e.message,
          refusals: e.plan.refusals.map((r) => r.refusal),
          onlyActive: e.plan.onlyActive,
          impact: e.plan.impact,
        },
      );
      return EXIT.failed;
    }
    if (e instanceof LifecycleError) {
      out(`${e.message}\n`, { status: "refused", message: e.message });
      return EXIT.failed;
    }
    throw e;
  }
}

/** Who a retirement breaks: unpinned callers of the only active version, and recent callers. */
function breakage(plan: RetirementPlan): string {
  const id = `${plan.record.spec.name}@${plan.record.spec.version}`;
  let text = plan.onlyActive
    ? `  ${id} is the only active version of ${plan.record.spec.name}: unpinned calls find no version\n`
    : "";
  const recent = plan.impact.recent;
  if (recent.calls > 0) {
    text += `  ${callers(recent)} in the last ${plan.recentDays} days; their calls will fail:\n` +
      callerRows(recent);
  }
  return text;
}
