/**
 * `estate check [FILES...]`: draft tool files against the estate (or, with `--against`, against
 * the same files at a git ref or under a folder), each finding with its rule id and place.
 */
import fs from "node:fs";
import path from "node:path";
import { checkDraft, type DraftReport, limitList, shortenText } from "../../../mod.ts";
import { CorpusError, draftApproval, type EstateStore } from "../../store/mod.ts";
import {
  type CheckedFile,
  checkedToolFile,
  checkReport,
  type LoadedRules,
  parseRulesFile,
  readToolText,
  renderReport,
  type ReportFormat,
  RulesFileError,
  unreadableFinding,
} from "../../report/mod.ts";
import { readRulesFile } from "../../store/read_rules.ts";
import { driftNotices } from "../../estate/drift_notices.ts";
import type { DriftRecord } from "../../estate/drift.ts";
import { RULES_FILE } from "../../estate/estate_files.ts";
import { EXIT, UsageError } from "../_args.ts";
import type { CliIO } from "../_cli_io.ts";
import type { CliCommand, CommandContext } from "../_command.ts";
import { checkFormat } from "../_check_format.ts";
import { estateFolder, openStore } from "../_open_store.ts";
import { checkAgainst, withEstateAt } from "../_against.ts";
import { PACKAGE_VERSION } from "../_package.ts";
import { readText } from "../_read_text.ts";
import { shortenChange, shortenFinding, shortenNode } from "../_shorten.ts";

/** The version SARIF reports name. */
const TOOL_VERSION: string = PACKAGE_VERSION;

/** `estate check`. */
export const checkCommand: CliCommand = {
  name: "check",
  usage:
    "estate check [FILES...] [--against REF|DIR [--estate DIR]] [--format text|json|sarif|junit|github] [--rules FILE]",
  summary:
    "check draft tool files (*.tool.json) against the estate; without FILES, every *.tool.json\n" +
    "under the working folder except node_modules, dist, testdata and fixtures folders. Each\n" +
    "finding has a rule id and a place (file:line:col); the estate's rules.json (a database\n" +
    "estate's as estate settings set it; or --rules FILE)\n" +
    "sets rule severities and ignores (estate rules lists the rules; docs/rules.md). --format:\n" +
    "text (default), json (= --json), sarif (SARIF 2.1.0), junit (JUnit XML), github (workflow\n" +
    "annotations). --against: each draft against the same file at a git ref (git show REF:path)\n" +
    "or under a folder, with no estate: the version must be at least what the change requires\n" +
    "of that one's; --against REF --estate DIR: against the estate folder DIR as the ref has it",
  flags: { values: ["against", "format", "rules"], booleans: [] },
  async run(ctx: CommandContext): Promise<number> {
    const { args, io } = ctx;
    const format = checkFormat(args, ctx.json);
    const against = args.flags.get("against");
    const estateFlag = args.flags.get("estate");
    const rulesFlag = args.flags.get("rules");
    const rulesAt = (dir: string | undefined) =>
      rulesFlag !== undefined
        ? loadRules(path.resolve(io.cwd, String(rulesFlag)), io.cwd, true)
        : dir === undefined
        ? undefined
        : loadRules(path.join(dir, RULES_FILE), io.cwd, false);
    if (typeof against === "string" && typeof estateFlag === "string") {
      // The drafts against the estate as the ref has it.
      return await withEstateAt(against, estateFlag, io.cwd, async (dir) => {
        const { store } = await openStore(new Map([["estate", dir]]), {
          cwd: io.cwd,
          now: ctx.now,
          note: (message) => io.stderr(`estate: note: ${message}\n`),
        });
        try {
          return await check(args.positionals, store, io, {
            format,
            rules: rulesAt(dir),
            now: ctx.now(),
          });
        } finally {
          await store.close();
        }
      });
    }
    if (typeof against === "string") {
      if (args.flags.has("store")) {
        throw new UsageError(
          "--against compares the drafts with files (at a git ref or in a folder), not with a database estate: drop --store, or check against the database without --against",
        );
      }
      return checkAgainst(args.positionals, {
        against,
        cwd: io.cwd,
        format,
        stdout: io.stdout,
        findToolFiles,
      });
    }
    const estate = await ctx.openEstate();
    // A database estate's own rules.json is in the database.
    const stored = rulesFlag === undefined && args.flags.has("store")
      ? await estate.estateFile(RULES_FILE)
      : undefined;
    const rules = stored !== undefined
      ? asUsage(() => parseRulesFile(stored, RULES_FILE))
      : rulesAt(
        args.flags.has("store") ? undefined : estateFolder(args.flags, io.cwd),
      );
    return await check(args.positionals, estate, io, {
      format,
      rules,
      now: ctx.now(),
    });
  },
};

/**
 * Reads a rules file for `estate check`: its problems are input errors.
 *
 * @param file The file's absolute path.
 * @param cwd The working folder (findings name the file relative to it).
 * @param required Whether a missing file is an error (it was named with `--rules`).
 */
function loadRules(file: string, cwd: string, required: boolean): LoadedRules {
  const name = path.relative(cwd, file).split(path.sep).join("/");
  return asUsage(() => readRulesFile(file, name, { required }));
}

/** Runs `f`, a `RulesFileError` turned into an input error with the same message. */
function asUsage<T>(f: () => T): T {
  try {
    return f();
  } catch (e) {
    if (e instanceof RulesFileError) throw new UsageError(e.message);
    throw e;
  }
}

/**
 * The estate's drift records for `estate check`; a log that cannot be read is said on stderr (as
 * the editor warns of it) and counts as none.
 */
async function readDriftOnce(
  estate: EstateStore,
  io: CliIO,
): Promise<DriftRecord[]> {
  const records: DriftRecord[] = [];
  try {
    for await (const r of estate.readDrift()) records.push(r);
  } catch (e) {
    if (!(e instanceof CorpusError)) throw e;
    io.stderr(`estate: note: the drift log could not be read: ${e.message}\n`);
    return [];
  }
  return records;
}

async function check(
  files: string[],
  estate: EstateStore,
  io: CliIO,
  options: { format: ReportFormat; rules?: LoadedRules; now: Date },
): Promise<number> {
  const targets = files.length ? files.map((f) => path.resolve(io.cwd, f)) : findToolFiles(io.cwd);
  if (targets.length === 0) {
    throw new UsageError("no *.tool.json files to check");
  }
  const reports: (DraftReport & { file: string })[] = [];
  const checked: CheckedFile[] = [];
  // A file that cannot be read as a tool spec is reported, and the others are still checked.
  const unreadable: { file: string; message: string }[] = [];
  // The gateway's drift log, read once: its notices are findings of the tools' files.
  let drift: DriftRecord[] | undefined;
  for (const target of targets) {
    const file = path.relative(io.cwd, target).split(path.sep).join("/");
    let text: string;
    try {
      text = readText(target);
    } catch (e) {
      if (!(e instanceof UsageError)) throw e;
      unreadable.push({ file, message: e.message });
      checked.push({
        file,
        findings: [unreadableFinding(file, undefined, e.message)],
        header: { status: "error", text: shortenText(e.message) },
      });
      continue;
    }
    const read = readToolText(file, text);
    if (!read.ok) {
      unreadable.push({ file, message: read.message });
      checked.push(checkedToolFile(file, text, read));
      continue;
    }
    const replay = await estate.replayFor(read.spec);
    const approval = await draftApproval(estate, text);
    const report = checkDraft(read.spec, estate.registry, {
      replay,
      ...(approval ? { approval } : {}),
    });
    reports.push({ file, ...report });
    drift ??= await readDriftOnce(estate, io);
    const notices = driftNotices(drift, read.spec.name, estate.registry);
    checked.push(
      checkedToolFile(file, text, {
        ok: true,
        spec: read.spec,
        report,
        notices,
      }),
    );
  }
  const report = checkReport("check", checked, {
    rules: options.rules,
    now: options.now,
  });
  io.stdout(renderReport(report, options.format, {
    toolVersion: TOOL_VERSION,
    json: {
      reports: reports.map(limitedReport),
      errors: unreadable,
    },
  }));
  return unreadable.length ? EXIT.usage : report.ok ? EXIT.ok : EXIT.failed;
}

/** Folders `estate check` never looks into for draft tool files: dependencies, output, fixtures. */
const SKIPPED_FOLDERS = new Set([
  "node_modules",
  "dist",
  "testdata",
  "fixtures",
  "__fixtures__",
]);

/** Finds draft tool files under a folder, skipping dependencies, build output and test fixtures. */
function findToolFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const entry of fs.readdirSync(d, { withFileTypes: true })) {
      if (entry.name.startsWith(".") || SKIPPED_FOLDERS.has(entry.name)) {
        continue;
      }
      const p = path.join(d, entry.name);
      if (entry.isDirectory()) walk(p);
      else if (entry.isFile() && entry.name.endsWith(".tool.json")) out.push(p);
    }
  };
  walk(dir);
  return out.sort();
}

/**
 * A draft report as `estate check --json` prints it: its lists cut as every answer is
 * (`limitList`), each with the count of what was left out.
 */
function limitedReport(
  r: DraftReport & { file: string },
): Record<string, unknown> {
  const findings = limitList(r.findings, { shorten: shortenFinding });
  const changes = limitList(r.changes, { shorten: shortenChange });
  const byNode = limitList(r.rejected.byNode, { shorten: shortenNode });
  return {
    ...r,
    changes: changes.items,
    omittedChanges: changes.omitted,
    rejected: {
      count: r.rejected.count,
      byNode: byNode.items,
      omittedNodes: byNode.omitted,
    },
    findings: findings.items,
    omittedFindings: findings.omitted,
  };
}
