/** `estate drift`: what the gateway observed of upstream servers, grouped by server and tool. */
import { UsageError } from "../_args.ts";
import type { CliCommand, CommandContext } from "../_command.ts";
import { showDrift } from "../_drift.ts";

/** `estate drift`. */
export const driftCommand: CliCommand = {
  name: "drift",
  usage: "estate drift [--server ID] [--tool NAME]",
  summary:
    "what the gateway observed of upstream servers (drift.jsonl), grouped by server and tool,\n" +
    "newest first: schema changes (compatible, or quarantined until a version is published),\n" +
    "changed descriptions and annotations, unavailable servers, refused identities, dropped tools",
  flags: { values: ["server", "tool"], booleans: [] },
  async run(ctx: CommandContext): Promise<number> {
    if (ctx.args.positionals.length) throw new UsageError(ctx.usage);
    return await showDrift(await ctx.openEstate(), {
      server: ctx.args.flags.get("server") as string | undefined,
      tool: ctx.args.flags.get("tool") as string | undefined,
    }, ctx.out);
  },
};
