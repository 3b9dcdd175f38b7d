/** Where the CLI writes, and what it knows of its terminal: `runCli`'s one handle on the world. */
import type { PublishTrace } from "../estate/publish_trace.ts";

/** Where the CLI writes, and what it knows of its terminal. */
export interface CliIO {
  /** Standard output (results). */
  stdout(text: string): void;
  /** Standard error (errors, progress). */
  stderr(text: string): void;
  /** Whether stderr is a terminal: progress is shown only then. */
  isTerminal: boolean;
  /** The working directory relative paths resolve against. */
  cwd: string;
  /**
   * The clock: lifecycle timestamps, whether a retire-after date is in the future or has passed
   * (a deprecated version past its date is retired), and what counts as a recent call.
   * Default: `new Date()`.
   */
  now?: () => Date;
  /**
   * Told what a publish does on its way to its decision: the candidate parsed, its schemas
   * classified (`estate publish` parses once and the store plans once; a test counts them).
   * Default: none.
   */
  trace?: PublishTrace;
}
