/** `estate rules`: the rules of the checking commands, each id, default severity and meaning. */
import { RULES_FILE } from "../../estate/estate_files.ts";
import { type Rule, RULES } from "../../estate/rules.ts";
import { EXIT, UsageError } from "../_args.ts";
import type { CliCommand, CommandContext } from "../_command.ts";

/** `estate rules`. */
export const rulesCommand: CliCommand = {
  name: "rules",
  usage: "estate rules",
  summary: "the rules of the checking commands: each id, its default severity and what it means\n" +
    "(docs/rules.md has an example of each); configure them in the estate's rules.json",
  flags: { values: [], booleans: [] },
  run(ctx: CommandContext): Promise<number> {
    if (ctx.args.positionals.length) throw new UsageError(ctx.usage);
    ctx.out(rulesText(), { rules: RULES });
    return Promise.resolve(EXIT.ok);
  },
};

/** The rules as `estate rules` lists them. */
function rulesText(): string {
  const width = Math.max(...RULES.map((r) => r.id.length));
  const line = (r: Rule) =>
    `  ${r.id.padEnd(width)}  ${
      (r.kind === "change" ? `${r.defaultSeverity} (${r.usualBump})` : r.defaultSeverity).padEnd(
        15,
      )
    } ${r.summary.replace(/`/g, "")}${r.fixed ? " [fixed]" : ""}\n`;
  return "schema changes (warning when major, info otherwise; the usual bump in brackets):\n" +
    RULES.filter((r) => r.kind === "change").map(line).join("") +
    "checks ([fixed]: a refusal of publish, it cannot be lowered, turned off or ignored):\n" +
    RULES.filter((r) => r.kind === "check").map(line).join("") +
    `configure them in the estate's ${RULES_FILE}: {"rules": {"<id>": "error"|"warning"|"info"|"off"},\n` +
    `"ignore": [{"rule": "<id>", "tool"?, "field"?, "path"?, "reason": "…", "expires": "YYYY-MM-DD"}]};\n` +
    "docs/rules.md explains each rule with an example\n";
}
