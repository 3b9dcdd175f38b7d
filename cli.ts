/**
 * The `estate` command: `deno task estate <command>`. See `lib/cli/main.ts`.
 *
 * @module
 */
import process from "node:process";
import { runCli } from "./lib/cli/main.ts";
import { runServe } from "./lib/cli/serve.ts";
import { exampleBank } from "./examples/bank_system.ts";
import { stopOnDriverFault } from "./lib/cli/_driver_fault.ts";

if (import.meta.main) {
  const argv = process.argv.slice(2);
  const io = {
    stdout: (t: string) => process.stdout.write(t),
    stderr: (t: string) => process.stderr.write(t),
    isTerminal: Boolean(process.stderr.isTTY),
    cwd: process.cwd(),
  };
  stopOnDriverFault({ stderr: io.stderr, exit: (code) => process.exit(code) });
  process.exitCode = argv[0] === "serve"
    ? await runServe(argv.slice(1), io, { system: (estate) => exampleBank(estate) })
    : await runCli(argv, io);
}
