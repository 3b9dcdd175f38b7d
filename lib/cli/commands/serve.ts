/** `estate serve`: listed here for `estate --help`; it runs from `cli.ts` (`runServe`), not `runCli`. */
import { UsageError } from "../_args.ts";
import type { CliCommand } from "../_command.ts";

/** `estate serve`: its usage and summary; `run` says where it runs. */
export const serveCommand: CliCommand = {
  name: "serve",
  usage: "estate serve [--http HOST:PORT | --stdio --principal ID] [--record-calls] [--estate DIR]",
  summary: "serve the estate as an MCP server (Streamable HTTP on 127.0.0.1:3000 by default);\n" +
    "estate serve --help lists its flags and limits",
  flags: { values: [], booleans: [] },
  rawArgs: true,
  run(): Promise<number> {
    throw new UsageError(
      "estate serve runs from the estate command (cli.ts), not runCli",
    );
  },
};
