/** `estate init [DIR]`: scaffold a tool estate in a repository. */
import path from "node:path";
import { EXIT, UsageError } from "../_args.ts";
import type { CliCommand, CommandContext } from "../_command.ts";
import { INIT_CI, type InitCi, initText, runInit } from "../init.ts";

/** `estate init`. */
export const initCommand: CliCommand = {
  name: "init",
  usage: "estate init [DIR] [--ci github|gitlab|none] [--tool NAME] [--owner TEAM]",
  summary:
    "scaffold a tool estate in a repository (DIR, default the working folder): estate/ with\n" +
    "estate.json, rules.json and principals.json (one example principal: its token is printed\n" +
    "once, stored hashed), a first tool file tools/NAME.tool.json (default example.lookup), a\n" +
    "pre-commit hook (.githooks/pre-commit, installed into .git/hooks when that is free) and a CI\n" +
    "job (--ci: github, the default, writes .github/workflows/tool-estate.yml; gitlab writes\n" +
    ".gitlab-ci.yml). It never overwrites a file, and says what to run next",
  flags: { values: ["ci", "tool", "owner"], booleans: [] },
  run(ctx: CommandContext): Promise<number> {
    const { args, io } = ctx;
    if (args.positionals.length > 1) throw new UsageError(ctx.usage);
    const ci = args.flags.get("ci") ?? "github";
    if (!(INIT_CI as readonly unknown[]).includes(ci)) {
      throw new UsageError(
        `--ci takes ${INIT_CI.join(", ")}, got ${JSON.stringify(ci)}`,
      );
    }
    if (args.flags.has("estate") || args.flags.has("store")) {
      throw new UsageError(
        "estate init writes the estate folder estate/ in DIR; --estate and --store are for the other commands",
      );
    }
    const options = {
      ci: ci as InitCi,
      ...(typeof args.flags.get("tool") === "string"
        ? { tool: String(args.flags.get("tool")) }
        : {}),
      ...(typeof args.flags.get("owner") === "string"
        ? { owner: String(args.flags.get("owner")) }
        : {}),
    };
    const root = path.resolve(io.cwd, args.positionals[0] ?? ".");
    const result = runInit(root, options);
    ctx.out(initText(result), { status: "initialized", ...result });
    return Promise.resolve(EXIT.ok);
  },
};
