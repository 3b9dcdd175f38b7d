/**
 * The table of `estate` commands, in the order `estate --help` lists them: help, each command's
 * usage and the flags it accepts are derived from it.
 *
 * @module
 */
import type { CliCommand } from "../_command.ts";
import { initCommand } from "./init.ts";
import { checkCommand } from "./check.ts";
import { diffCommand } from "./diff.ts";
import { rulesCommand } from "./rules.ts";
import { publishCommand } from "./publish.ts";
import { approveCommand, proposalsCommand, proposeCommand, rejectCommand } from "./proposals.ts";
import { approvalsCommand } from "./approvals.ts";
import { deprecateCommand, retireCommand } from "./lifecycle.ts";
import { listCommand } from "./list.ts";
import { replayCommand } from "./replay.ts";
import { impactCommand } from "./impact.ts";
import { changelogCommand } from "./changelog.ts";
import { serversCommand } from "./servers.ts";
import { driftCommand } from "./drift.ts";
import { auditCommand } from "./audit.ts";
import { migrateCommand } from "./migrate.ts";
import { exportCommand } from "./export.ts";
import { principalsCommand } from "./principals.ts";
import { settingsCommand } from "./settings.ts";
import { serveCommand } from "./serve.ts";

/** Every command, in the order `estate --help` lists them. */
export const COMMANDS: readonly CliCommand[] = [
  initCommand,
  checkCommand,
  diffCommand,
  rulesCommand,
  publishCommand,
  proposeCommand,
  proposalsCommand,
  approveCommand,
  rejectCommand,
  approvalsCommand,
  deprecateCommand,
  retireCommand,
  listCommand,
  replayCommand,
  impactCommand,
  changelogCommand,
  serversCommand,
  driftCommand,
  auditCommand,
  migrateCommand,
  exportCommand,
  principalsCommand,
  settingsCommand,
  serveCommand,
];

/**
 * The command named `name`.
 *
 * @param name What followed `estate`.
 * @returns The command, or undefined when there is none by that name.
 */
export function findCommand(name: string): CliCommand | undefined {
  return COMMANDS.find((c) => c.name === name);
}
