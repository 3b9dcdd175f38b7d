/** `estate changelog NAME`: Markdown release notes of a tool, newest first. */
import type { CliCommand, CommandContext } from "../_command.ts";
import { runChangelog } from "../_changelog.ts";

/** `estate changelog`. */
export const changelogCommand: CliCommand = {
  name: "changelog",
  usage: "estate changelog NAME [--from VERSION] [--to VERSION]",
  summary:
    "Markdown release notes of a tool, newest first: what changed in each published version\n" +
    "against the one before (schemas by bump, other fields) and its deprecation or retirement;\n" +
    "--from V starts after V, --to V ends at V",
  flags: { values: ["from", "to"], booleans: [] },
  async run(ctx: CommandContext): Promise<number> {
    return await runChangelog(ctx.args.positionals, {
      from: ctx.args.flags.get("from"),
      to: ctx.args.flags.get("to"),
      versions: async (name) => (await ctx.openEstate()).registry.versions(name),
      json: ctx.json,
      stdout: ctx.io.stdout,
      usage: ctx.usage,
    });
  },
};
