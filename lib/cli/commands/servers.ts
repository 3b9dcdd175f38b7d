/** `estate servers [add FILE]`: the MCP servers the estate did not write, and registering one. */
import fs from "node:fs";
import path from "node:path";
import { UsageError } from "../_args.ts";
import type { CliCommand, CommandContext } from "../_command.ts";
import { addServer, listServers } from "../_servers.ts";

/** `estate servers`. */
export const serversCommand: CliCommand = {
  name: "servers",
  usage: "estate servers [add FILE [--update]]",
  summary:
    "the MCP servers the estate did not write (servers/<id>.json): each with its owner, how it\n" +
    "is reached, the identity it must prove and the tools it may serve (quarantined ones marked);\n" +
    "add FILE registers a server record, refused when it lists a tool another server serves, or\n" +
    "when a different record has its id and --update is not given",
  flags: { values: [], booleans: ["update"] },
  async run(ctx: CommandContext): Promise<number> {
    const { args, usage } = ctx;
    const [sub, ...files] = args.positionals;
    if (sub === undefined) {
      if (args.flags.has("update")) {
        throw new UsageError(`--update goes with add FILE; ${usage}`);
      }
      return await listServers(await ctx.openEstate(), ctx.out);
    }
    if (sub !== "add" || files.length !== 1) throw new UsageError(usage);
    const file = path.resolve(ctx.io.cwd, files[0]);
    if (!fs.statSync(file, { throwIfNoEntry: false })?.isFile()) {
      throw new UsageError(`cannot read ${file}: no such file`);
    }
    return await addServer(await ctx.openEstate(), file, {
      update: args.flags.has("update"),
      cwd: ctx.io.cwd,
    }, ctx.out);
  },
};
