/**
 * `estate`: the command line for people and for CI, like `buf breaking`. Human output by default,
 * `--json` for machines; exit codes 0 ok, 1 a check failed, 2 a usage or input error.
 *
 * @module
 */
import fs from "node:fs";
import path from "node:path";
import {
  checkDraft,
  type DraftFinding,
  type DraftReport,
  isToolName,
  LifecycleError,
  limitIssues,
  limitList,
  parseToolSpec,
  PublishError,
  type Rejections,
  type RejectionsAtNode,
  replayCallStream,
  retireAfterProblem,
  RetirementError,
  type RetirementPlan,
  type SchemaChange,
  shortenIssue,
  shortenText,
  type StoredCall,
  type ToolSpec,
  ToolSpecError,
  Version,
  type VersionImpact,
  versionImpactStream,
  type VersionRecord,
} from "../../mod.ts";
import { CorpusError, type EstateStore, tornLineMessage } from "../store/mod.ts";
import type { TransferCounts } from "../store/pg/transfer.ts";
import { type Args, EXIT, parseArgs, parseToolRef, UsageError } from "./_args.ts";
import {
  estateFolder,
  migrateSchema,
  openPostgres,
  openStore,
  redactUrl,
  STORE_FLAGS,
} from "./_open_store.ts";
import { addServer, listServers } from "./_servers.ts";
import { showDrift } from "./_drift.ts";
import { runDiff } from "./_diff.ts";
import { checkAgainst, withEstateAt } from "./_against.ts";
import { runChangelog } from "./_changelog.ts";
import {
  type CheckedFile,
  checkedToolFile,
  checkReport,
  type LoadedRules,
  parseRulesFile,
  readToolText,
  renderReport,
  REPORT_FORMATS,
  type ReportFormat,
  reportFormat,
  RulesFileError,
  unreadableFinding,
} from "../report/mod.ts";
import { readRulesFile } from "../store/read_rules.ts";
import { driftNotices } from "../estate/drift_notices.ts";
import type { DriftRecord } from "../estate/drift.ts";
import { RULES_FILE } from "../estate/estate_files.ts";
import { type Rule, RULES } from "../estate/rules.ts";
import { ESTATE_FILES, isEstateFileName } from "../estate/estate_files.ts";
import type { PgEstateStore } from "../store/pg/pg_store.ts";
import { PACKAGE_NAME, PACKAGE_VERSION } from "./_package.ts";
import { INIT_CI, type InitCi, initText, runInit } from "./init.ts";

/** The version SARIF reports name. */
const TOOL_VERSION: string = PACKAGE_VERSION;

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
}

export { EXIT } from "./_args.ts";

/** One command: how to call it, what it does, and the flags it takes besides the common ones. */
interface Command {
  usage: string;
  summary: string;
  values: string[];
  booleans: string[];
}

/** Every command, in the order `estate --help` lists them. */
const COMMANDS: Record<string, Command> = {
  init: {
    usage: "estate init [DIR] [--ci github|gitlab|none] [--tool NAME] [--owner TEAM]",
    summary:
      "scaffold a tool estate in a repository (DIR, default the working folder): estate/ with\n" +
      "estate.json, rules.json and principals.json (one example principal: its token is printed\n" +
      "once, stored hashed), a first tool file tools/NAME.tool.json (default example.lookup), a\n" +
      "pre-commit hook (.githooks/pre-commit, installed into .git/hooks when that is free) and a CI\n" +
      "job (--ci: github, the default, writes .github/workflows/tool-estate.yml; gitlab writes\n" +
      ".gitlab-ci.yml). It never overwrites a file, and says what to run next",
    values: ["ci", "tool", "owner"],
    booleans: [],
  },
  check: {
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
    values: ["against", "format", "rules"],
    booleans: [],
  },
  diff: {
    usage:
      "estate diff OLD NEW [--fail-on patch|minor|major] [--format text|json|sarif|junit|github]",
    summary:
      "the changes from one tool file (or bare JSON Schema) to another, each with its bump and its\n" +
      "line:column in NEW, and whether NEW's version is enough; no estate needed; exit 1 when a\n" +
      "change's bump is at or above --fail-on (default major) or the version is not enough",
    values: ["fail-on", "format"],
    booleans: [],
  },
  rules: {
    usage: "estate rules",
    summary:
      "the rules of the checking commands: each id, its default severity and what it means\n" +
      "(docs/rules.md has an example of each); configure them in the estate's rules.json",
    values: [],
    booleans: [],
  },
  publish: {
    usage: "estate publish FILE",
    summary: "publish a tool file",
    values: [],
    booleans: [],
  },
  deprecate: {
    usage: "estate deprecate NAME@VERSION [--reason TEXT] [--retire-after DATE]",
    summary:
      "deprecate a version (it stays resolvable by a pin it alone satisfies); DATE: a calendar\n" +
      "date after today, the version retires at 00:00 UTC the next day, by itself",
    values: ["reason", "retire-after"],
    booleans: [],
  },
  retire: {
    usage: "estate retire NAME@VERSION [--now --reason TEXT] [--force] [--recent-days N]",
    summary:
      "retire a version (it never resolves again): it needs the version deprecated and its date\n" +
      "passed, or --now with a reason; --force to retire the only active version or one called in\n" +
      "the last N (30) days — both print who will break",
    values: ["reason", "recent-days"],
    booleans: ["now", "force"],
  },
  list: {
    usage: "estate list [--principal ID]",
    summary: "what a principal discovers (every tool and version without --principal)",
    values: ["principal"],
    booleans: [],
  },
  replay: {
    usage: "estate replay NAME [--schema FILE | --version VERSION]",
    summary:
      "replay a tool's stored calls: each call against the newest version of the major line it\n" +
      "was made on; --schema or --version replays every call against that one schema",
    values: ["schema", "version"],
    booleans: [],
  },
  impact: {
    usage: "estate impact NAME@VERSION",
    summary:
      "who called a version, how often, last seen (after retirement: who called it after it\n" +
      "retired, the calls that now fail)",
    values: [],
    booleans: [],
  },
  changelog: {
    usage: "estate changelog NAME [--from VERSION] [--to VERSION]",
    summary:
      "Markdown release notes of a tool, newest first: what changed in each published version\n" +
      "against the one before (schemas by bump, other fields) and its deprecation or retirement;\n" +
      "--from V starts after V, --to V ends at V",
    values: ["from", "to"],
    booleans: [],
  },
  servers: {
    usage: "estate servers [add FILE [--update]]",
    summary:
      "the MCP servers the estate did not write (servers/<id>.json): each with its owner, how it\n" +
      "is reached, the identity it must prove and the tools it may serve (quarantined ones marked);\n" +
      "add FILE registers a server record, refused when it lists a tool another server serves, or\n" +
      "when a different record has its id and --update is not given",
    values: [],
    booleans: ["update"],
  },
  drift: {
    usage: "estate drift [--server ID] [--tool NAME]",
    summary:
      "what the gateway observed of upstream servers (drift.jsonl), grouped by server and tool,\n" +
      "newest first: schema changes (compatible, or quarantined until a version is published),\n" +
      "changed descriptions and annotations, unavailable servers, refused identities, dropped tools",
    values: ["server", "tool"],
    booleans: [],
  },
  migrate: {
    usage: "estate migrate [--from DIR] --to postgres://…",
    summary:
      "bring the database's schema up to date (the migrations in lib/store/pg/migrations/ it\n" +
      "lacks, in order); with --from, then copy a folder estate into the empty database\n" +
      "(versions, lifecycles, stored calls, servers, drift, principals, each file's bytes kept),\n" +
      "all or nothing",
    values: ["from", "to"],
    booleans: [],
  },
  export: {
    usage: "estate export --store postgres://… --to DIR",
    summary:
      "write the estate in a database out as a folder estate (for review in git); a migrated\n" +
      "folder comes back byte for byte",
    values: ["to"],
    booleans: [],
  },
  principals: {
    usage: "estate principals [set FILE] --store postgres://…",
    summary:
      "the principals of the estate; set FILE replaces them with a principals.json (in a folder\n" +
      "estate, edit its principals.json): every replica takes it in at once",
    values: [],
    booleans: [],
  },
  settings: {
    usage: "estate settings [set FILE] --store postgres://…",
    summary:
      "the estate's settings files, estate.json (its compatibility mode) and rules.json (rule\n" +
      "severities and ignores for estate check), and whether each is set; set FILE stores one in a\n" +
      "database estate, named by its file name (in a folder estate, edit the file): every replica\n" +
      "takes it in at once",
    values: [],
    booleans: [],
  },
  serve: {
    usage:
      "estate serve [--http HOST:PORT | --stdio --principal ID] [--record-calls] [--estate DIR]",
    summary: "serve the estate as an MCP server (Streamable HTTP on 127.0.0.1:3000 by default);\n" +
      "estate serve --help lists its flags and limits",
    values: [],
    booleans: [],
  },
};

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
${
  Object.values(COMMANDS).map((c) => `  ${c.usage}\n      ${indent(c.summary, "      ")}\n`).join(
    "",
  )
}
${COMMON}`;

/** One command's usage text, for `estate COMMAND --help`. */
function commandUsage(name: string): string {
  const c = COMMANDS[name];
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

async function run(argv: string[], io: CliIO, json: boolean): Promise<number> {
  const [command, ...rest] = argv;
  if (!command && json) throw new UsageError("no command; see estate --help");
  if (
    !command || command === "help" || command === "--help" || command === "-h"
  ) {
    io.stdout(USAGE);
    return command ? EXIT.ok : EXIT.usage;
  }
  if (command === "--version" || command === "version") {
    io.stdout(
      json
        ? JSON.stringify({ name: PACKAGE_NAME, version: PACKAGE_VERSION }) +
          "\n"
        : `estate ${PACKAGE_VERSION} (${PACKAGE_NAME})\n`,
    );
    return EXIT.ok;
  }
  const spec = COMMANDS[command];
  if (!spec) {
    throw new UsageError(
      `unknown command ${JSON.stringify(command)}; see estate --help`,
    );
  }
  if (rest.includes("--help") || rest.includes("-h")) {
    io.stdout(commandUsage(command));
    return EXIT.ok;
  }
  if (command === "serve") {
    throw new UsageError(
      "estate serve runs from the estate command (cli.ts), not runCli",
    );
  }
  const args = parseArgs(rest, {
    values: [...STORE_FLAGS, ...spec.values],
    booleans: ["json", ...spec.booleans],
  });
  const now = io.now ?? (() => new Date());
  // The store is opened once, when the command needs it, and closed when it ends.
  let opened: EstateStore | undefined;
  const openEstate = async (): Promise<EstateStore> => {
    opened ??= (await openStore(args.flags, {
      cwd: io.cwd,
      now,
      note: (message) => io.stderr(`estate: note: ${message}\n`),
    })).store;
    return opened;
  };
  try {
    return await runCommand(command, spec, args, io, json, openEstate, now);
  } finally {
    await opened?.close();
  }
}

/** Runs one command over the store `openEstate` opens. */
async function runCommand(
  command: string,
  spec: Command,
  args: Args,
  io: CliIO,
  json: boolean,
  openEstate: () => Promise<EstateStore>,
  now: () => Date,
): Promise<number> {
  const usage = `usage: ${spec.usage}`;
  const out = (human: string, data: unknown): void =>
    io.stdout(json ? JSON.stringify(data, null, 2) + "\n" : human);
  switch (command) {
    case "init": {
      if (args.positionals.length > 1) throw new UsageError(usage);
      const ci = args.flags.get("ci") ?? "github";
      if (!(INIT_CI as readonly unknown[]).includes(ci)) {
        throw new UsageError(
          `--ci takes ${INIT_CI.join(", ")}, got ${JSON.stringify(ci)}`,
        );
      }
      if (args.flags.has("estate") || args.flags.has("store")) {
        throw new UsageError(
          "estate init writes the estate folder estate/ in DIR; --estate and --store are for the other commands",
        );
      }
      const options = {
        ci: ci as InitCi,
        ...(typeof args.flags.get("tool") === "string"
          ? { tool: String(args.flags.get("tool")) }
          : {}),
        ...(typeof args.flags.get("owner") === "string"
          ? { owner: String(args.flags.get("owner")) }
          : {}),
      };
      const root = path.resolve(io.cwd, args.positionals[0] ?? ".");
      const result = runInit(root, options);
      out(initText(result), { status: "initialized", ...result });
      return EXIT.ok;
    }
    case "check": {
      const format = checkFormat(args, json);
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
            now,
            note: (message) => io.stderr(`estate: note: ${message}\n`),
          });
          try {
            return await check(args.positionals, store, io, {
              format,
              rules: rulesAt(dir),
              now: now(),
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
      const estate = await openEstate();
      // A database estate's own rules.json is in the database.
      const stored = rulesFlag === undefined && args.flags.has("store")
        ? (estate as PgEstateStore).estateFile(RULES_FILE)
        : undefined;
      const rules = stored !== undefined
        ? asUsage(() => parseRulesFile(stored, RULES_FILE))
        : rulesAt(
          args.flags.has("store") ? undefined : estateFolder(args.flags, io.cwd),
        );
      return await check(args.positionals, estate, io, {
        format,
        rules,
        now: now(),
      });
    }
    case "rules":
      if (args.positionals.length) throw new UsageError(usage);
      out(rulesText(), { rules: RULES });
      return EXIT.ok;
    case "diff":
      return runDiff(args.positionals, {
        failOn: args.flags.get("fail-on"),
        cwd: io.cwd,
        format: checkFormat(args, json),
        stdout: io.stdout,
        usage,
      });
    case "publish": {
      if (args.positionals.length !== 1) throw new UsageError(usage);
      const file = path.resolve(io.cwd, args.positionals[0]);
      const estate = await openEstate();
      try {
        const result = await estate.publish(readSpecFile(file));
        const plan = result.plan;
        const id = `${plan.spec.name}@${plan.spec.version}`;
        out(
          result.status === "published"
            ? `published ${id} (${
              plan.baseline
                ? `${plan.bump} change against ${plan.baseline.spec.version}`
                : "new tool"
            })\n`
            : `${id} is already published with this content; nothing written\n`,
          {
            status: result.status,
            name: plan.spec.name,
            version: plan.spec.version,
            bump: plan.bump,
            newTool: plan.baseline === undefined,
          },
        );
        return EXIT.ok;
      } catch (e) {
        if (e instanceof PublishError) {
          out(`${e.message}\n`, {
            status: "refused",
            refusal: e.refusal,
            message: e.message,
            rejectedCalls: e.rejected.count,
          });
          return EXIT.failed;
        }
        throw e;
      }
    }
    case "deprecate":
    case "retire": {
      if (args.positionals.length !== 1) throw new UsageError(usage);
      const { name, version } = parseToolRef(args.positionals[0], spec.usage);
      const reason = args.flags.get("reason") as string | undefined;
      if (command === "deprecate") {
        const retireAfter = args.flags.get("retire-after") as
          | string
          | undefined;
        if (retireAfter !== undefined) {
          const problem = retireAfterProblem(retireAfter, now());
          if (problem) throw new UsageError(`--${problem}`);
        }
        const estate = await openEstate();
        return await lifecycleRefusal(out, async () => {
          const record = await estate.deprecate(name, version, {
            reason,
            retireAfter,
          });
          out(`${name}@${version} is now ${record.state}\n`, {
            name,
            version,
            state: record.state,
          });
          return EXIT.ok;
        });
      }
      const early = args.flags.has("now");
      if (early && !reason?.trim()) {
        throw new UsageError(
          `--now retires before the rules allow: it needs --reason TEXT, which the lifecycle record keeps`,
        );
      }
      const days = args.flags.get("recent-days");
      const recentDays = days === undefined ? undefined : Number(days);
      if (
        recentDays !== undefined &&
        !(Number.isInteger(recentDays) && recentDays >= 0)
      ) {
        throw new UsageError(
          `--recent-days must be a whole number of days, got ${JSON.stringify(days)}`,
        );
      }
      const rules = { early, force: args.flags.has("force"), recentDays };
      const estate = await openEstate();
      return await lifecycleRefusal(out, async () => {
        // Who will break, as the estate stands now (the retirement decides again under the lock).
        const planned = await estate.planRetirement(name, version, {
          ...rules,
          reason,
        });
        const record = await estate.retire(name, version, { reason, rules });
        out(
          `${name}@${version} is now ${record.state}\n` + breakage(planned),
          {
            name,
            version,
            state: record.state,
            onlyActive: planned.onlyActive,
            impact: planned.impact,
          },
        );
        return EXIT.ok;
      });
    }
    case "list":
      if (args.positionals.length) throw new UsageError(usage);
      return list(
        await openEstate(),
        args.flags.get("principal") as string | undefined,
        out,
      );
    case "replay": {
      if (args.positionals.length !== 1) throw new UsageError(usage);
      if (!isToolName(args.positionals[0])) {
        throw new UsageError(
          `${JSON.stringify(args.positionals[0])} is not a tool name; ${usage}`,
        );
      }
      if (args.flags.has("schema") && args.flags.has("version")) {
        throw new UsageError(
          `--schema and --version exclude each other; ${usage}`,
        );
      }
      return await replay(
        await openEstate(),
        args.positionals[0],
        {
          schemaFile: args.flags.get("schema") as string | undefined,
          version: args.flags.get("version") as string | undefined,
        },
        io,
        out,
      );
    }
    case "impact": {
      if (args.positionals.length !== 1) throw new UsageError(usage);
      return await impact(
        await openEstate(),
        parseToolRef(args.positionals[0], spec.usage),
        out,
      );
    }
    case "changelog":
      return await runChangelog(args.positionals, {
        from: args.flags.get("from"),
        to: args.flags.get("to"),
        versions: async (name) => (await openEstate()).registry.versions(name),
        json,
        stdout: io.stdout,
        usage,
      });
    case "servers": {
      const [sub, ...files] = args.positionals;
      if (sub === undefined) {
        if (args.flags.has("update")) {
          throw new UsageError(`--update goes with add FILE; ${usage}`);
        }
        return await listServers(await openEstate(), out);
      }
      if (sub !== "add" || files.length !== 1) throw new UsageError(usage);
      const file = path.resolve(io.cwd, files[0]);
      if (!fs.statSync(file, { throwIfNoEntry: false })?.isFile()) {
        throw new UsageError(`cannot read ${file}: no such file`);
      }
      return await addServer(await openEstate(), file, {
        update: args.flags.has("update"),
        cwd: io.cwd,
      }, out);
    }
    case "migrate": {
      const from = args.flags.get("from"), to = args.flags.get("to");
      if (args.positionals.length || typeof to !== "string" || from === true) {
        throw new UsageError(usage);
      }
      if (args.flags.has("store") || args.flags.has("estate")) {
        throw new UsageError(
          `migrate takes --from DIR and --to URL only; ${usage}`,
        );
      }
      if (from === undefined) {
        const applied = await migrateSchema(to);
        out(
          applied.length
            ? `applied ${applied.length} migration${applied.length === 1 ? "" : "s"} to ${
              redactUrl(to)
            }: ${applied.join(", ")}\n`
            : `the schema of ${redactUrl(to)} is up to date\n`,
          { status: "migrated", to: redactUrl(to), applied },
        );
        return EXIT.ok;
      }
      return await migrate(path.resolve(io.cwd, from), to, { io, now, out });
    }
    case "export": {
      const to = args.flags.get("to");
      if (args.positionals.length || typeof to !== "string") {
        throw new UsageError(usage);
      }
      const url = args.flags.get("store");
      if (typeof url !== "string") {
        throw new UsageError(
          `export writes a database estate out as a folder: it needs --store URL; ${usage}`,
        );
      }
      const store = await openPostgres(url, now);
      try {
        const dir = path.resolve(io.cwd, to);
        // The database modules are loaded only when a database is named.
        const { exportToFolder } = await import("../store/pg/transfer.ts");
        const result = await exportToFolder(store, dir);
        out(
          `exported ${counts(result)} to ${
            path.relative(io.cwd, dir) || "."
          } (${result.files.length} files)\n`,
          { status: "exported", to: dir, ...result },
        );
        return EXIT.ok;
      } finally {
        await store.close();
      }
    }
    case "principals": {
      const url = args.flags.get("store");
      const [sub, ...files] = args.positionals;
      if (sub !== undefined && (sub !== "set" || files.length !== 1)) {
        throw new UsageError(usage);
      }
      if (sub === "set") {
        if (typeof url !== "string") {
          throw new UsageError(
            "principals set is for a database estate (--store URL); in a folder estate, edit its principals.json",
          );
        }
        const file = path.resolve(io.cwd, files[0]);
        const text = readText(file);
        const store = await openPostgres(url, now);
        try {
          await store.setPrincipalsText(text);
          const ids = store.principals().map((p) => p.id);
          out(
            `set ${ids.length} principal${ids.length === 1 ? "" : "s"}: ${ids.join(", ")}\n`,
            {
              status: "set",
              principals: ids,
            },
          );
          return EXIT.ok;
        } finally {
          await store.close();
        }
      }
      const estate = await openEstate();
      const principals = estate.principals().map((p) => ({
        id: p.id,
        tenant: p.tenant,
        clearance: p.clearance,
        scopes: p.scopes,
      }));
      out(
        principals.map((p) =>
          `${p.id} (${p.tenant}, clearance ${p.clearance}): ${p.scopes.join(" ")}\n`
        ).join(""),
        { principals },
      );
      return EXIT.ok;
    }
    case "settings":
      return await settings(args, io, now, usage, out);
    case "drift": {
      if (args.positionals.length) throw new UsageError(usage);
      return await showDrift(await openEstate(), {
        server: args.flags.get("server") as string | undefined,
        tool: args.flags.get("tool") as string | undefined,
      }, out);
    }
  }
  throw new UsageError(
    `unknown command ${JSON.stringify(command)}; see estate --help`,
  );
}

/** "12 tools, 15 versions, 1,000 calls, …": what a transfer copied. */
function counts(c: TransferCounts): string {
  const n = (k: number, one: string, many = `${one}s`) =>
    `${k.toLocaleString("en")} ${k === 1 ? one : many}`;
  return [
    n(c.tools, "tool"),
    n(c.versions, "version"),
    n(c.lifecycleEvents, "lifecycle event"),
    n(c.calls, "stored call"),
    n(c.servers, "server"),
    n(c.drift, "drift record"),
    n(c.principals, "principal"),
  ].join(", ");
}

/** `estate migrate`: a folder estate into an empty database, all or nothing. */
async function migrate(
  from: string,
  to: string,
  context: { io: CliIO; now: () => Date; out: (h: string, d: unknown) => void },
): Promise<number> {
  if (!fs.statSync(from, { throwIfNoEntry: false })?.isDirectory()) {
    throw new UsageError(`estate folder ${from} does not exist (--from DIR)`);
  }
  const store = await openPostgres(to, context.now);
  const { migrateToPostgres } = await import("../store/pg/transfer.ts");
  try {
    const result = await migrateToPostgres(from, store, {
      onTornLine: (torn) => context.io.stderr(`estate: note: ${tornLineMessage(torn)}\n`),
    });
    const notes = result.changed.map((c) => `  ${c.file}: ${c.note}\n`).join(
      "",
    );
    context.out(
      `migrated ${counts(result)} from ${path.relative(context.io.cwd, from) || "."} to ${
        redactUrl(to)
      }\n` +
        (result.changed.length
          ? `${result.changed.length} file(s) will not export byte for byte:\n${notes}`
          : "") +
        (result.skipped.length
          ? `not part of the estate, not copied: ${result.skipped.join(", ")}\n`
          : ""),
      { status: "migrated", from, to: redactUrl(to), ...result },
    );
    return EXIT.ok;
  } catch (e) {
    if (/already holds an estate/.test((e as Error).message)) {
      context.out(`${(e as Error).message}\n`, {
        status: "refused",
        message: (e as Error).message,
      });
      return EXIT.failed;
    }
    throw e;
  } finally {
    await store.close();
  }
}

/** Reads a tool file: JSON errors and spec problems are input errors naming the file. */
function readSpecFile(file: string) {
  return parseSpecText(readText(file), file);
}

/** A file the command was given, as text: a file that cannot be read is an input error. */
function readText(file: string): string {
  try {
    return fs.readFileSync(file, "utf8");
  } catch (e) {
    throw new UsageError(`cannot read ${file}: ${(e as Error).message}`);
  }
}

/** A tool file's text as a spec: JSON errors and spec problems are input errors naming the file. */
function parseSpecText(text: string, file: string) {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new UsageError(`${file} is not valid JSON: ${(e as Error).message}`);
  }
  return parseToolSpec(value, file);
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

/** "and 3 more findings": the line or clause that says what a list left out. */
function more(n: number, what: string): string {
  return `and ${n} more ${what}${n === 1 ? "" : "s"}`;
}

const shortenFinding = (f: DraftFinding): DraftFinding => ({
  ...f,
  target: f.target.field === "inputSchema"
    ? { field: "inputSchema", path: shortenText(f.target.path) }
    : f.target,
  message: shortenText(f.message),
});

const shortenChange = (c: SchemaChange): SchemaChange => ({
  ...c,
  path: shortenText(c.path),
  message: shortenText(c.message),
});

const shortenNode = (n: RejectionsAtNode): RejectionsAtNode => ({
  ...n,
  schemaPath: shortenText(n.schemaPath),
  example: shortenIssue(n.example),
});

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

/** `--format`, with `--json` its synonym for json. */
function checkFormat(args: Args, json: boolean): ReportFormat {
  const value = args.flags.get("format");
  if (value === undefined) return json ? "json" : "text";
  const format = reportFormat(String(value));
  if (!format) {
    throw new UsageError(
      `--format takes one of ${REPORT_FORMATS.join(", ")}, got ${JSON.stringify(value)}`,
    );
  }
  if (json && format !== "json") {
    throw new UsageError(`--json and --format ${format} exclude each other`);
  }
  return format;
}

/**
 * `estate settings [set FILE]`: which settings files the estate has; `set` stores one in a
 * database estate.
 */
async function settings(
  args: Args,
  io: CliIO,
  now: () => Date,
  usage: string,
  out: (human: string, data: unknown) => void,
): Promise<number> {
  const url = args.flags.get("store");
  const [sub, ...files] = args.positionals;
  if (sub !== undefined && (sub !== "set" || files.length !== 1)) {
    throw new UsageError(usage);
  }
  if (sub === "set") {
    const name = path.basename(files[0]);
    if (!isEstateFileName(name)) {
      throw new UsageError(
        `settings set takes ${ESTATE_FILES.join(" or ")} (the file's name says which), got ${name}`,
      );
    }
    if (typeof url !== "string") {
      throw new UsageError(
        `settings set is for a database estate (--store URL); in a folder estate, edit its ${name}`,
      );
    }
    const file = path.resolve(io.cwd, files[0]);
    const text = readText(file);
    const store = await openPostgres(url, now);
    try {
      try {
        await store.setEstateFile(name, text);
      } catch (e) {
        throw new UsageError(`cannot set ${(e as Error).message}`);
      }
      out(`set ${name} in ${redactUrl(url)}\n`, { status: "set", file: name });
      return EXIT.ok;
    } finally {
      await store.close();
    }
  }
  let has: (name: string) => boolean;
  if (typeof url === "string") {
    if (args.flags.has("estate")) {
      throw new UsageError(
        "--store and --estate exclude each other: the estate is in one place",
      );
    }
    const store = await openPostgres(url, now);
    try {
      const set = new Set<string>(
        ESTATE_FILES.filter((n) => store.estateFile(n) !== undefined),
      );
      has = (name) => set.has(name);
    } finally {
      await store.close();
    }
  } else {
    const dir = estateFolder(args.flags, io.cwd);
    has = (name) => fs.existsSync(path.join(dir, name));
  }
  const list = ESTATE_FILES.map((file) => ({ file, set: has(file) }));
  out(
    list.map((f) => `${f.file}: ${f.set ? "set" : "not set"}\n`).join(""),
    { settings: list },
  );
  return EXIT.ok;
}

/** The rules as `estate rules` lists them. */
function rulesText(): string {
  const width = Math.max(...RULES.map((r) => r.id.length));
  const line = (r: Rule) =>
    `  ${r.id.padEnd(width)}  ${
      (r.kind === "change" ? `${r.defaultSeverity} (${r.usualBump})` : r.defaultSeverity).padEnd(
        15,
      )
    } ${r.summary.replace(/`/g, "")}${r.fixed ? " [fixed]" : ""}\n`;
  return "schema changes (warning when major, info otherwise; the usual bump in brackets):\n" +
    RULES.filter((r) => r.kind === "change").map(line).join("") +
    "checks ([fixed]: a refusal of publish, it cannot be lowered, turned off or ignored):\n" +
    RULES.filter((r) => r.kind === "check").map(line).join("") +
    `configure them in the estate's ${RULES_FILE}: {"rules": {"<id>": "error"|"warning"|"info"|"off"},\n` +
    `"ignore": [{"rule": "<id>", "tool"?, "field"?, "path"?, "reason": "…", "expires": "YYYY-MM-DD"}]};\n` +
    "docs/rules.md explains each rule with an example\n";
}

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
    const report = checkDraft(read.spec, estate.registry, { replay });
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

function list(
  estate: EstateStore,
  principalId: string | undefined,
  out: (h: string, d: unknown) => void,
): number {
  const registry = estate.registry;
  if (principalId === undefined) {
    const tools = registry.names().map((name) => ({
      name,
      versions: registry.versions(name).map((v) => ({
        version: v.spec.version,
        state: v.state,
      })),
    }));
    const width = Math.max(0, ...tools.map((t) => t.name.length));
    out(
      tools.map((t) =>
        `${t.name.padEnd(width)}  ${
          t.versions.map((v) => `${v.version}${v.state === "active" ? "" : ` (${v.state})`}`).join(
            ", ",
          )
        }\n`
      )
        .join(""),
      { tools },
    );
    return EXIT.ok;
  }
  const principal = estate.principal(principalId);
  if (!principal) {
    throw new UsageError(
      `no principal ${JSON.stringify(principalId)} in the estate; known: ${
        estate.principals().map((p) => p.id).join(", ")
      }`,
    );
  }
  const seen = registry.discover(principal);
  out(
    `${principal.id} (${principal.tenant}, clearance ${principal.clearance}) sees ${seen.length} tool${
      seen.length === 1 ? "" : "s"
    }:\n` +
      (() => {
        const ids = seen.map((s) => `${s.name}@${s.version}`);
        const width = Math.max(0, ...ids.map((id) => id.length));
        return seen.map((s, i) => `  ${ids[i].padEnd(width)}  ${s.title}\n`)
          .join("");
      })(),
    {
      principal: principal.id,
      tools: seen.map((s) => ({
        name: s.name,
        version: s.version,
        title: s.title,
      })),
    },
  );
  return EXIT.ok;
}

/** One schema a replay runs calls through, and which calls it takes. */
interface ReplayLine {
  /** What the calls are replayed against: a published version or a file. */
  against: string;
  schema: ToolSpec["inputSchema"];
  /** Only calls of this major line; all calls when undefined. */
  major?: number;
}

async function replay(
  estate: EstateStore,
  name: string,
  options: { schemaFile?: string; version?: string },
  io: CliIO,
  out: (h: string, d: unknown) => void,
): Promise<number> {
  const versions = estate.registry.versions(name);
  const lines: ReplayLine[] = [];
  if (options.schemaFile !== undefined) {
    const file = path.resolve(io.cwd, options.schemaFile);
    let value: unknown;
    try {
      value = JSON.parse(fs.readFileSync(file, "utf8"));
    } catch (e) {
      throw new UsageError(
        `cannot read ${file} as JSON: ${(e as Error).message}`,
      );
    }
    // A tool file gives its input schema; any other JSON object is taken as the schema itself.
    const isSpec = typeof value === "object" && value !== null &&
      "inputSchema" in value;
    const schema = isSpec ? parseToolSpec(value, file).inputSchema : value as never;
    lines.push({ against: path.relative(io.cwd, file), schema });
  } else {
    if (!versions.length) {
      throw new UsageError(`no tool ${JSON.stringify(name)} in the estate`);
    }
    if (options.version !== undefined) {
      const v = versions.find((r) => r.spec.version === options.version);
      if (!v) {
        throw new UsageError(
          `${name}@${options.version} is not a published version; published: ${
            versions.map((r) => r.spec.version).join(", ")
          }`,
        );
      }
      lines.push({
        against: `${name}@${v.spec.version}`,
        schema: v.spec.inputSchema,
      });
    } else {
      // Each call against the contract its caller had: the newest version of its major line.
      const newest = new Map<number, VersionRecord>();
      for (const r of versions) {
        newest.set(Version.parse(r.spec.version).major, r);
      }
      for (const [major, r] of [...newest].sort((a, b) => a[0] - b[0])) {
        lines.push({
          against: `${name}@${r.spec.version}`,
          schema: r.spec.inputSchema,
          major,
        });
      }
    }
  }
  const started = Date.now();
  const progress = io.isTerminal
    ? (n: number) => io.stderr(`\rreplayed ${n.toLocaleString("en")} calls...`)
    : undefined;
  let total = 0, replayed = 0;
  // A call's major line, from its version text: parsed once per distinct version, not per call.
  const majors = new Map<string, number | undefined>();
  const majorOf = (v: string): number | undefined => {
    if (!majors.has(v)) {
      let m: number | undefined;
      try {
        m = Version.parse(v).major;
      } catch {
        m = undefined;
      }
      majors.set(v, m);
    }
    return majors.get(v);
  };
  const results: { line: ReplayLine; result: Rejections }[] = [];
  for (const [i, line] of lines.entries()) {
    // Counted as they stream by; the replay keeps each call's position in the stream.
    const counted = async function* (
      calls: AsyncIterable<StoredCall> | Iterable<StoredCall>,
    ) {
      for await (const c of calls) {
        if (i === 0) total++;
        if (line.major === undefined || majorOf(c.version) === line.major) {
          replayed++;
        }
        yield c;
      }
    };
    const result = await replayCallStream(
      line.schema,
      counted(estate.readCalls(name)),
      {
        major: line.major,
        onProgress: i === 0 ? progress : undefined,
        sample: 5,
      },
    );
    results.push({ line, result });
  }
  if (progress) io.stderr("\r\x1b[K");
  const seconds = (Date.now() - started) / 1000;
  const rejected = results.reduce((n, r) => n + r.result.count, 0);
  const notReplayed = total - replayed;
  const rendered = results.map(({ line, result }) => {
    // Every list cut as every answer is: a stored call with 92,000 issues prints 100 of them.
    const nodes = limitList(result.byNode, { shorten: shortenNode });
    const first = result.first.map((r) => {
      const { issues, omitted } = limitIssues(r.issues);
      return { ...r, issues, omittedIssues: omitted };
    });
    return { line, result, nodes, first };
  });
  const human =
    `replayed ${replayed} of ${total} stored call${total === 1 ? "" : "s"} of ${name} in ${
      seconds.toFixed(1)
    } s: ${rejected} rejected${
      notReplayed
        ? `; ${notReplayed} made on a major line with no published version (not replayed)`
        : ""
    }\n` +
    rendered.map(({ line, result, nodes, first }) =>
      `${
        line.major === undefined ? "all calls" : `${line.major}.x calls`
      } against ${line.against}: ${result.count} rejected\n` +
      nodes.items.map((n) =>
        `  ${
          String(n.count).padStart(7)
        } at ${n.schemaPath}: ${n.example.path} ${n.example.message}\n`
      ).join("") +
      (nodes.omitted ? `  … ${more(nodes.omitted, "other rejecting node")}\n` : "") +
      first.map((r) =>
        `  call ${r.index} (${r.call.principal}, ${r.call.at}, ${r.call.version}): ${
          r.issues.map((i) => `${i.path} ${i.message}`).join("; ")
        }${r.omittedIssues ? `; ${more(r.omittedIssues, "issue")}` : ""}\n`
      ).join("")
    ).join("");
  out(human, {
    name,
    stored: total,
    replayed,
    notReplayed,
    rejected,
    lines: rendered.map(({ line, result, nodes, first }) => ({
      major: line.major ?? null,
      against: line.against,
      rejected: result.count,
      byNode: nodes.items,
      omittedNodes: nodes.omitted,
      first,
    })),
  });
  return rejected ? EXIT.failed : EXIT.ok;
}

/** Runs a deprecation or retirement: a refusal by the lifecycle rules is exit 1, with why. */
async function lifecycleRefusal(
  out: (h: string, d: unknown) => void,
  fn: () => Promise<number>,
): Promise<number> {
  try {
    return await fn();
  } catch (e) {
    if (e instanceof RetirementError) {
      out(
        `${e.message}\n` + breakage(e.plan) +
          "  (--now --reason TEXT retires before the date; --force retires the only active version or one called recently)\n",
        {
          status: "refused",
          message: e.message,
          refusals: e.plan.refusals.map((r) => r.refusal),
          onlyActive: e.plan.onlyActive,
          impact: e.plan.impact,
        },
      );
      return EXIT.failed;
    }
    if (e instanceof LifecycleError) {
      out(`${e.message}\n`, { status: "refused", message: e.message });
      return EXIT.failed;
    }
    throw e;
  }
}

/** Who a retirement breaks: unpinned callers of the only active version, and recent callers. */
function breakage(plan: RetirementPlan): string {
  const id = `${plan.record.spec.name}@${plan.record.spec.version}`;
  let text = plan.onlyActive
    ? `  ${id} is the only active version of ${plan.record.spec.name}: unpinned calls find no version\n`
    : "";
  const recent = plan.impact.recent;
  if (recent.calls > 0) {
    text += `  ${callers(recent)} in the last ${plan.recentDays} days; their calls will fail:\n` +
      callerRows(recent);
  }
  return text;
}

/** "12 calls from 3 principals". */
function callers(t: { calls: number; callers: unknown[] }): string {
  return `${t.calls} call${t.calls === 1 ? "" : "s"} from ${t.callers.length} principal${
    t.callers.length === 1 ? "" : "s"
  }`;
}

function callerRows(t: VersionImpact["recent"]): string {
  return t.callers.map((r) =>
    `  ${r.principal.padEnd(24)} ${String(r.calls).padStart(6)} calls, last seen ${r.lastSeen}\n`
  ).join("");
}

async function impact(
  estate: EstateStore,
  ref: { name: string; version: string },
  out: (h: string, d: unknown) => void,
): Promise<number> {
  const record = estate.registry.versions(ref.name).find((v) => v.spec.version === ref.version);
  if (!record) {
    throw new UsageError(
      `${ref.name}@${ref.version} is not a published version`,
    );
  }
  const last = record.history.at(-1)!;
  const retiredAt = record.state === "retired" ? last.at : undefined;
  const report = await versionImpactStream(
    estate.readCalls(ref.name),
    ref.version,
    retiredAt === undefined ? {} : { retiredAt },
  );
  const rows = report.callers;
  const total = report.calls;
  if (retiredAt !== undefined) {
    // After retirement: the calls made since then are the ones that now fail.
    const after = report.afterRetirement;
    out(
      `${ref.name}@${ref.version} (retired ${retiredAt}${last.reason ? `: ${last.reason}` : ""}): ${
        after.calls
          ? `${callers(after)} after it retired; these calls now fail`
          : "no calls after it retired"
      } (${callers(report)} in all)\n` + callerRows(after),
      {
        name: ref.name,
        version: ref.version,
        state: record.state,
        retiredAt,
        calls: total,
        callers: rows,
        afterRetirement: after,
      },
    );
    return EXIT.ok;
  }
  out(
    `${ref.name}@${ref.version} (${record.state}${
      last.retireAfter ? `, retire after ${last.retireAfter}` : ""
    }): ${total} call${total === 1 ? "" : "s"} from ${rows.length} principal${
      rows.length === 1 ? "" : "s"
    }${rows.length ? " who must migrate before retirement" : ""}\n` +
      rows.map((r) =>
        `  ${r.principal.padEnd(24)} ${
          String(r.calls).padStart(6)
        } calls, last seen ${r.lastSeen}\n`
      ).join(""),
    {
      name: ref.name,
      version: ref.version,
      state: record.state,
      calls: total,
      callers: rows,
    },
  );
  return EXIT.ok;
}
