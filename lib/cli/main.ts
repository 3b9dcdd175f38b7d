/**
 * `estate`: the command line for people and for CI, like `buf breaking`. Human output by default,
 * `--json` for machines; exit codes 0 ok, 1 a check failed, 2 a usage or input error.
 *
 * The commands are a table (`commands/mod.ts`), each a {@linkcode CliCommand} in its own module;
 * this module dispatches to them, derives the help from the table, and renders errors.
 *
 * @module
 */
import process from "node:process";
import { ToolSpecError } from "../../mod.ts";
import { CorpusError, type EstateStore } from "../store/mod.ts";
import { EXIT, parseArgs, UsageError } from "./_args.ts";
import type { CliIO } from "./_cli_io.ts";
import type { CliCommand, CommandContext } from "./_command.ts";
import { openStore, STORE_FLAGS } from "./_open_store.ts";
import { PACKAGE_NAME, PACKAGE_VERSION } from "./_package.ts";
import { COMMANDS, findCommand } from "./commands/mod.ts";

export type { CliIO } from "./_cli_io.ts";
export { EXIT } from "./_args.ts";

const COMMON = `options for every command:
  --estate DIR   the estate folder (default: the nearest folder holding estate.json, from the
                 working folder up to the repository's root, or its estate/ subfolder;
                 else ./corpus)
  --store URL    the estate in a PostgreSQL database instead (postgres://user@host:port/db)
  --json         machine-readable output on stdout, errors included
  --help, -h     this command's usage

exit codes: 0 ok, 1 a check failed, 2 a usage or input error (one line on stderr; with --json, a
JSON object on stdout)
`;

const indent = (text: string, by: string) => text.split("\n").join(`\n${by}`);

const USAGE = `usage: estate <command> [options]

commands:
${COMMANDS.map((c) => `  ${c.usage}\n      ${indent(c.summary, "      ")}\n`).join("")}
${COMMON}`;

/** One command's usage text, for `estate COMMAND --help`. */
function commandUsage(c: CliCommand): string {
  return `usage: ${c.usage}\n\n${c.summary}\n\n${COMMON}`;
}

/**
 * Runs the CLI. It never throws: every failure is one line on stderr (or, with `--json`, a JSON
 * object on stdout) and an exit code — 1 when a check failed, 2 for a usage or input error or
 * anything else that stopped the command. A stack trace is printed only with `ESTATE_DEBUG=1`.
 *
 * @param argv The arguments after the program name.
 * @param io Output streams, terminal flag and working directory.
 * @returns The exit code.
 */
export async function runCli(argv: string[], io: CliIO): Promise<number> {
  const json = argv.includes("--json");
  try {
    return await run(argv, io, json);
  } catch (e) {
    const message = errorMessage(e);
    if (json) {
      io.stdout(
        JSON.stringify(
          { status: "error", message, exitCode: EXIT.usage },
          null,
          2,
        ) + "\n",
      );
    } else io.stderr(`estate: ${message}\n`);
    if (debugging() && e instanceof Error && e.stack) io.stderr(`${e.stack}\n`);
    return EXIT.usage;
  }
}

/** What went wrong, in one line: the error's own message for ours, its kind and message else. */
function errorMessage(e: unknown): string {
  if (
    e instanceof UsageError || e instanceof CorpusError ||
    e instanceof ToolSpecError
  ) {
    return e.message;
  }
  if (e instanceof Error) {
    const code = (e as { code?: unknown }).code;
    // A file system error (ENOENT, EACCES, ...) already names the file.
    if (typeof code === "string" && /^E[A-Z]+$/.test(code)) return e.message;
    return e.message || e.name;
  }
  return String(e);
}

function debugging(): boolean {
  try {
    return (globalThis as {
      process?: { env?: Record<string, string | undefined> };
    }).process?.env
      ?.ESTATE_DEBUG === "1";
  } catch {
    return false;
  }
}

/** Finds the command, answers `--help` and `--version`, and runs the command over its context. */
async function run(argv: string[], io: CliIO, json: boolean): Promise<number> {
  const [name, ...rest] = argv;
  if (!name && json) throw new UsageError("no command; see estate --help");
  if (!name || name === "help" || name === "--help" || name === "-h") {
    io.stdout(USAGE);
    return name ? EXIT.ok : EXIT.usage;
  }
  if (name === "--version" || name === "version") {
    io.stdout(
      json
        ? JSON.stringify({ name: PACKAGE_NAME, version: PACKAGE_VERSION }) + "\n"
        : `estate ${PACKAGE_VERSION} (${PACKAGE_NAME})\n`,
    );
    return EXIT.ok;
  }
  const command = findCommand(name);
  if (!command) {
    throw new UsageError(`unknown command ${JSON.stringify(name)}; see estate --help`);
  }
  if (rest.includes("--help") || rest.includes("-h")) {
    io.stdout(commandUsage(command));
    return EXIT.ok;
  }
  const args = command.rawArgs ? { positionals: rest, flags: new Map() } : parseArgs(rest, {
    values: [...STORE_FLAGS, ...command.flags.values],
    booleans: ["json", ...command.flags.booleans],
  });
  const now = io.now ?? (() => new Date());
  // Who acts, for the audit log: `--as` where a command takes it, else $ESTATE_ACTOR.
  const as = args.flags.get("as");
  const actor = typeof as === "string" && as.trim() !== "" ? as.trim() : envActor();
  // The store is opened once, when the command needs it, and closed when it ends.
  let opened: EstateStore | undefined;
  const ctx: CommandContext = {
    args,
    io,
    json,
    usage: `usage: ${command.usage}`,
    out: (human, data) => io.stdout(json ? JSON.stringify(data, null, 2) + "\n" : human),
    openEstate: async () => {
      opened ??= (await openStore(args.flags, {
        cwd: io.cwd,
        now,
        note: (message) => io.stderr(`estate: note: ${message}\n`),
        ...(io.trace ? { trace: io.trace } : {}),
        ...(actor ? { actor } : {}),
      })).store;
      return opened;
    },
    now,
  };
  try {
    return await command.run(ctx);
  } finally {
    await opened?.close();
  }
}

/** `$ESTATE_ACTOR`, when set and readable (Deno without --allow-env cannot read it). */
function envActor(): string | undefined {
  try {
    const value = process.env.ESTATE_ACTOR?.trim();
    return value ? value : undefined;
  } catch {
    return undefined;
  }
}
