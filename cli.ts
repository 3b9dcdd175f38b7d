/**
 * The `estate` command: `deno task estate <command>`. See `lib/cli/main.ts`.
 *
 * @module
 */
import process from "node:process";
import { runCli } from "./lib/cli/main.ts";

if (import.meta.main) {
  const code = runCli(process.argv.slice(2), {
    stdout: (t) => process.stdout.write(t),
    stderr: (t) => process.stderr.write(t),
    isTerminal: Boolean(process.stderr.isTTY),
    cwd: process.cwd(),
  });
  process.exitCode = code;
}
