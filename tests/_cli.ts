/** Shared by the CLI tests: `estate ARGS` in this process, its exit code and what it printed. */
import { runCli } from "../lib/cli/main.ts";

/** What one `estate` run printed, and its exit code. */
export interface CliRun {
  /** The exit code. */
  code: number;
  /** Standard output. */
  out: string;
  /** Standard error. */
  err: string;
}

/**
 * Runs `estate ARGS` in `cwd` (not a terminal), with the clock `now` when given.
 *
 * @returns The exit code and what it printed.
 */
export async function estate(
  args: string[],
  cwd: string,
  now?: () => Date,
): Promise<CliRun> {
  let out = "", err = "";
  const code = await runCli(args, {
    stdout: (t) => (out += t),
    stderr: (t) => (err += t),
    isTerminal: false,
    cwd,
    ...(now ? { now } : {}),
  });
  return { code, out, err };
}
