/**
 * One CLI command as data: its name, usage, summary and flags, and `run(ctx)` over a
 * {@linkcode CommandContext}. The table of commands (`commands/mod.ts`) is made of these, and
 * `estate --help`, each command's usage and the flags it accepts are derived from it.
 */
import type { Args } from "./_args.ts";
import type { CliIO } from "./_cli_io.ts";
import type { EstateStore } from "../store/mod.ts";

/** The flags a command takes besides the common ones (`--estate`, `--store`, `--json`). */
export interface CommandFlags {
  /** Flags that take a value (`--reason TEXT`). */
  values: string[];
  /** Flags that take none (`--force`). */
  booleans: string[];
}

/** What a command runs with: its arguments, where to write, the store (opened when asked for). */
export interface CommandContext {
  /** The parsed arguments after the command's name. */
  args: Args;
  /** Output streams, terminal flag, working folder. */
  io: CliIO;
  /** Whether `--json` was given. */
  json: boolean;
  /** `usage: estate …`: this command's usage line, for usage errors. */
  usage: string;
  /** Writes `human`, or `data` as pretty JSON with `--json`. */
  out(human: string, data: unknown): void;
  /** The estate the flags name, opened on first call and closed when the command ends. */
  openEstate(): Promise<EstateStore>;
  /** The clock (`CliIO.now`, else `new Date()`). */
  now(): Date;
}

/** One `estate` command. */
export interface CliCommand {
  /** Its name: `estate NAME`. */
  name: string;
  /** How to call it, without the leading `usage: `. */
  usage: string;
  /** What it does, for `estate --help` (lines of at most 100 characters). */
  summary: string;
  /** The flags it takes besides the common ones. */
  flags: CommandFlags;
  /**
   * Whether it takes its arguments unparsed: `estate serve` parses its own, and runs from
   * `cli.ts`, not `runCli`.
   */
  rawArgs?: boolean;
  /**
   * Runs it.
   *
   * @param ctx The arguments, output and store.
   * @returns The exit code (`EXIT`).
   * @throws {UsageError} For a usage or input error (exit 2).
   */
  run(ctx: CommandContext): Promise<number>;
}
