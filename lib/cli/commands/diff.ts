/** `estate diff OLD NEW`: the changes from one tool file (or bare JSON Schema) to another. */
import type { CliCommand, CommandContext } from "../_command.ts";
import { checkFormat } from "../_check_format.ts";
import { runDiff } from "../_diff.ts";

/** `estate diff`. */
export const diffCommand: CliCommand = {
  name: "diff",
  usage:
    "estate diff OLD NEW [--fail-on patch|minor|major] [--format text|json|sarif|junit|github]",
  summary:
    "the changes from one tool file (or bare JSON Schema) to another, each with its bump and its\n" +
    "line:column in NEW, and whether NEW's version is enough; no estate needed; exit 1 when a\n" +
    "change's bump is at or above --fail-on (default major) or the version is not enough",
  flags: { values: ["fail-on", "format"], booleans: [] },
  run(ctx: CommandContext): Promise<number> {
    return Promise.resolve(runDiff(ctx.args.positionals, {
      failOn: ctx.args.flags.get("fail-on"),
      cwd: ctx.io.cwd,
      format: checkFormat(ctx.args, ctx.json),
      stdout: ctx.io.stdout,
      usage: ctx.usage,
    }));
  },
};
