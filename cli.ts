/**
 * The `estate` command line: `estate check`, `estate init`, `estate serve`, … (`estate --help`).
 *
 * Run it from JSR with `deno run -A jsr:@tool-estate/core/cli <command>`, install it with
 * `deno install -g -A -n estate jsr:@tool-estate/core/cli`, or from npm: the package's `estate`
 * bin runs this module compiled for Node 20. In this repository: `deno task estate <command>`.
 *
 * @example
 * ```ts ignore
 * import { main } from "@tool-estate/core/cli";
 * const code = await main(["check", "--against", "origin/main", "--format", "github"]);
 * ```
 *
 * @module
 */
import process from "node:process";
import { runCli } from "./lib/cli/main.ts";
import { stopOnDriverFault } from "./lib/cli/_driver_fault.ts";

/**
 * Runs the `estate` command with the process's standard streams and working folder. `serve`
 * loads the MCP server (and the example bank's handlers) only when it is asked for.
 *
 * @param argv The arguments after the program's name.
 * @returns The exit code: 0 ok, 1 a check failed, 2 a usage or input error.
 */
export async function main(argv: string[]): Promise<number> {
  const io = {
    stdout: (t: string) => process.stdout.write(t),
    stderr: (t: string) => process.stderr.write(t),
    isTerminal: Boolean(process.stderr.isTTY),
    cwd: process.cwd(),
  };
  stopOnDriverFault({ stderr: io.stderr, exit: (code) => process.exit(code) });
  if (argv[0] !== "serve") return await runCli(argv, io);
  const [{ runServe }, { exampleBank }] = await Promise.all([
    import("./lib/cli/serve.ts"),
    import("./examples/bank_system.ts"),
  ]);
  return await runServe(argv.slice(1), io, { system: (estate) => exampleBank(estate) });
}

if (import.meta.main) {
  process.exitCode = await main(process.argv.slice(2));
}
