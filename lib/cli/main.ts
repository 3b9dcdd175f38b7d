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
  LifecycleError,
  limitIssues,
  limitList,
  parseToolSpec,
  PublishError,
  type RejectionsAtNode,
  replayCalls,
  retireAfterProblem,
  RetirementError,
  type RetirementPlan,
  type SchemaChange,
  shortenIssue,
  shortenText,
  type StoredCall,
  ToolSpecError,
  type VersionImpact,
  versionImpact,
} from "../../mod.ts";
import { CorpusError, EstateDir, tornLineMessage } from "../store/mod.ts";
import { parseArgs, parseToolRef, UsageError } from "./_args.ts";

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

/** Exit codes. */
export const EXIT = { ok: 0, failed: 1, usage: 2 } as const;

const USAGE = `usage: estate <command> [options]

commands:
  check [FILES...]                       check draft tool files (*.tool.json) against the estate
  publish FILE                           publish a tool file
  deprecate NAME@VERSION [--reason TEXT] [--retire-after DATE]
                                         DATE: a calendar date after today; the version retires
                                         at 00:00 UTC the next day, by itself
  retire NAME@VERSION [--now --reason TEXT] [--force] [--recent-days N]
                                         needs the version deprecated and its date passed, or
                                         --now with a reason; --force to retire the only active
                                         version or one called in the last N (30) days
  list [--principal ID]                  what a principal discovers (all tools without --principal)
  replay NAME [--schema FILE]            replay stored calls through a schema (default: newest published)
  impact NAME@VERSION                    who called a version, how often, last seen (after
                                         retirement: who called it after it retired)

options:
  --estate DIR   the estate folder (default: corpus)
  --json         machine-readable output
`;

/**
 * Runs the CLI.
 *
 * @param argv The arguments after the program name.
 * @param io Output streams, terminal flag and working directory.
 * @returns The exit code.
 */
export function runCli(argv: string[], io: CliIO): number {
  const [command, ...rest] = argv;
  try {
    if (!command || command === "help" || command === "--help" || command === "-h") {
      io.stdout(USAGE);
      return command ? EXIT.ok : EXIT.usage;
    }
    const args = parseArgs(rest, {
      values: ["estate", "reason", "retire-after", "principal", "schema", "recent-days"],
      booleans: ["json", "now", "force"],
    });
    const now = io.now ?? (() => new Date());
    const json = args.flags.has("json");
    const estateDir = path.resolve(io.cwd, String(args.flags.get("estate") ?? "corpus"));
    const openEstate = (): EstateDir => {
      if (!fs.existsSync(estateDir) || !fs.statSync(estateDir).isDirectory()) {
        throw new UsageError(`estate folder ${estateDir} does not exist (use --estate DIR)`);
      }
      // A torn last line of calls.jsonl is no error: it is said once, on stderr.
      const told = new Set<string>();
      return EstateDir.open(estateDir, {
        now,
        onTornLine: (torn) => {
          const message = tornLineMessage(torn);
          if (told.has(message)) return;
          told.add(message);
          io.stderr(`estate: note: ${message}\n`);
        },
      });
    };
    const out = (human: string, data: unknown): void =>
      io.stdout(json ? JSON.stringify(data, null, 2) + "\n" : human);
    switch (command) {
      case "check":
        return check(args.positionals, openEstate(), io, json);
      case "publish": {
        if (args.positionals.length !== 1) throw new UsageError("usage: estate publish FILE");
        const file = path.resolve(io.cwd, args.positionals[0]);
        const estate = openEstate();
        try {
          const result = estate.publish(readSpecFile(file));
          const id = `${result.plan.spec.name}@${result.plan.spec.version}`;
          out(
            result.status === "published"
              ? `published ${id} (${result.plan.bump} change${
                result.plan.baseline ? ` against ${result.plan.baseline.spec.version}` : ""
              })\n`
              : `${id} is already published with this content; nothing written\n`,
            {
              status: result.status,
              name: result.plan.spec.name,
              version: result.plan.spec.version,
              bump: result.plan.bump,
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
        const usage = command === "deprecate"
          ? "estate deprecate NAME@VERSION [--reason TEXT] [--retire-after DATE]"
          : "estate retire NAME@VERSION [--now --reason TEXT] [--force] [--recent-days N]";
        if (args.positionals.length !== 1) throw new UsageError(`usage: ${usage}`);
        const only = command === "deprecate" ? ["now", "force", "recent-days"] : ["retire-after"];
        for (const flag of only) {
          if (args.flags.has(flag)) {
            throw new UsageError(`--${flag} is not an option of ${command}; usage: ${usage}`);
          }
        }
        const { name, version } = parseToolRef(args.positionals[0], usage);
        const reason = args.flags.get("reason") as string | undefined;
        if (command === "deprecate") {
          const retireAfter = args.flags.get("retire-after") as string | undefined;
          if (retireAfter !== undefined) {
            const problem = retireAfterProblem(retireAfter, now());
            if (problem) throw new UsageError(`--${problem}`);
          }
          const estate = openEstate();
          return lifecycleRefusal(out, () => {
            const record = estate.deprecate(name, version, { reason, retireAfter });
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
        if (recentDays !== undefined && !(Number.isInteger(recentDays) && recentDays >= 0)) {
          throw new UsageError(
            `--recent-days must be a whole number of days, got ${JSON.stringify(days)}`,
          );
        }
        const rules = { early, force: args.flags.has("force"), recentDays };
        const estate = openEstate();
        return lifecycleRefusal(out, () => {
          // Who will break, as the estate stands now (the retirement decides again under the lock).
          const planned = estate.registry.planRetirement(name, version, { ...rules, reason });
          const record = estate.retire(name, version, { reason, rules });
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
        return list(openEstate(), args.flags.get("principal") as string | undefined, out);
      case "replay":
        return replay(
          openEstate(),
          args.positionals,
          args.flags.get("schema") as string | undefined,
          io,
          out,
        );
      case "impact": {
        const usage = "estate impact NAME@VERSION";
        if (args.positionals.length !== 1) throw new UsageError(`usage: ${usage}`);
        return impact(openEstate(), parseToolRef(args.positionals[0], usage), out);
      }
      default:
        throw new UsageError(`unknown command ${JSON.stringify(command)}\n\n${USAGE}`);
    }
  } catch (e) {
    if (e instanceof UsageError || e instanceof CorpusError || e instanceof ToolSpecError) {
      io.stderr(`estate: ${e.message}\n`);
      return EXIT.usage;
    }
    if (
      e instanceof Error && "code" in e && typeof (e as { code: unknown }).code === "string" &&
      /^E[A-Z]+$/.test((e as { code: string }).code)
    ) {
      io.stderr(`estate: ${e.message}\n`);
      return EXIT.usage;
    }
    throw e;
  }
}

/** Reads a tool file: JSON errors and spec problems are input errors naming the file. */
function readSpecFile(file: string) {
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (e) {
    throw new UsageError(`cannot read ${file}: ${(e as Error).message}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new UsageError(`${file} is not valid JSON: ${(e as Error).message}`);
  }
  return parseToolSpec(value, file);
}

/** Finds draft tool files under a folder, skipping dependencies and build output. */
function findToolFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const entry of fs.readdirSync(d, { withFileTypes: true })) {
      if (entry.name.startsWith(".") || entry.name === "node_modules" || entry.name === "dist") {
        continue;
      }
      const p = path.join(d, entry.name);
      if (entry.isDirectory()) walk(p);
      else if (entry.name.endsWith(".tool.json")) out.push(p);
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
function limitedReport(r: DraftReport & { file: string }): Record<string, unknown> {
  const findings = limitList(r.findings, { shorten: shortenFinding });
  const changes = limitList(r.changes, { shorten: shortenChange });
  const byNode = limitList(r.rejected.byNode, { shorten: shortenNode });
  return {
    ...r,
    changes: changes.items,
    omittedChanges: changes.omitted,
    rejected: { count: r.rejected.count, byNode: byNode.items, omittedNodes: byNode.omitted },
    findings: findings.items,
    omittedFindings: findings.omitted,
  };
}

function check(files: string[], estate: EstateDir, io: CliIO, json: boolean): number {
  const targets = files.length ? files.map((f) => path.resolve(io.cwd, f)) : findToolFiles(io.cwd);
  if (targets.length === 0) throw new UsageError("no *.tool.json files to check");
  const reports: (DraftReport & { file: string })[] = [];
  for (const file of targets) {
    reports.push({
      file: path.relative(io.cwd, file),
      ...checkDraft(readSpecFile(file), estate.registry),
    });
  }
  const failed = reports.filter((r) => !r.ok).length;
  if (json) {
    io.stdout(
      JSON.stringify({ ok: failed === 0, reports: reports.map(limitedReport) }, null, 2) + "\n",
    );
  } else {
    for (const r of reports) {
      const against = r.baseline
        ? ` against ${r.name}@${r.baseline.version} (${r.baseline.state})`
        : " (new tool)";
      io.stdout(
        `${r.ok ? "ok  " : "FAIL"} ${r.file}: ${r.name}@${r.version}${against}, ${r.bump} change\n`,
      );
      const shown = limitList(r.findings, { shorten: shortenFinding });
      for (const f of shown.items) {
        const where = f.target.field === "inputSchema" || f.target.field === "outputSchema"
          ? `${f.target.field} ${f.target.path}`
          : f.target.field;
        io.stdout(`  ${f.severity.padEnd(11)} ${where}: ${f.message}\n`);
      }
      if (shown.omitted) io.stdout(`  … ${more(shown.omitted, "finding")}\n`);
    }
    io.stdout(`${reports.length} checked, ${failed} failed\n`);
  }
  return failed ? EXIT.failed : EXIT.ok;
}

function list(
  estate: EstateDir,
  principalId: string | undefined,
  out: (h: string, d: unknown) => void,
): number {
  const registry = estate.registry;
  if (principalId === undefined) {
    const tools = registry.names().map((name) => ({
      name,
      versions: registry.versions(name).map((v) => ({ version: v.spec.version, state: v.state })),
    }));
    out(
      tools.map((t) =>
        `${t.name.padEnd(28)} ${
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
      seen.map((s) => `  ${s.name}@${s.version}  ${s.title}\n`).join(""),
    {
      principal: principal.id,
      tools: seen.map((s) => ({ name: s.name, version: s.version, title: s.title })),
    },
  );
  return EXIT.ok;
}

function replay(
  estate: EstateDir,
  positionals: string[],
  schemaFile: string | undefined,
  io: CliIO,
  out: (h: string, d: unknown) => void,
): number {
  if (positionals.length !== 1) throw new UsageError("usage: estate replay NAME [--schema FILE]");
  const name = positionals[0];
  let schema;
  let against: string;
  if (schemaFile !== undefined) {
    const file = path.resolve(io.cwd, schemaFile);
    let value: unknown;
    try {
      value = JSON.parse(fs.readFileSync(file, "utf8"));
    } catch (e) {
      throw new UsageError(`cannot read ${file} as JSON: ${(e as Error).message}`);
    }
    // A tool file gives its input schema; any other JSON object is taken as the schema itself.
    const isSpec = typeof value === "object" && value !== null && "inputSchema" in value;
    schema = isSpec ? parseToolSpec(value, file).inputSchema : value as never;
    against = path.relative(io.cwd, file);
  } else {
    const newest = estate.registry.versions(name).at(-1);
    if (!newest) throw new UsageError(`no tool ${JSON.stringify(name)} in the estate`);
    schema = newest.spec.inputSchema;
    against = `${name}@${newest.spec.version}`;
  }
  const started = Date.now();
  const progress = io.isTerminal
    ? (n: number) => io.stderr(`\rreplayed ${n.toLocaleString("en")} calls...`)
    : undefined;
  let total = 0;
  const counted = function* (calls: Iterable<StoredCall>) {
    for (const c of calls) {
      total++;
      yield c;
    }
  };
  const result = replayCalls(schema, counted(estate.readCalls(name)), {
    onProgress: progress,
    sample: 5,
  });
  if (progress) io.stderr("\r\x1b[K");
  const seconds = (Date.now() - started) / 1000;
  // Every list cut as every answer is: a stored call with 92,000 issues prints 100 of them.
  const nodes = limitList(result.byNode, { shorten: shortenNode });
  const first = result.first.map((r) => {
    const { issues, omitted } = limitIssues(r.issues);
    return { ...r, issues, omittedIssues: omitted };
  });
  out(
    `replayed ${total} stored call${total === 1 ? "" : "s"} of ${name} against ${against} in ${
      seconds.toFixed(1)
    } s: ${result.count} rejected\n` +
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
      ).join(""),
    {
      name,
      against,
      replayed: total,
      rejected: result.count,
      byNode: nodes.items,
      omittedNodes: nodes.omitted,
      first,
    },
  );
  return result.count ? EXIT.failed : EXIT.ok;
}

/** Runs a deprecation or retirement: a refusal by the lifecycle rules is exit 1, with why. */
function lifecycleRefusal(out: (h: string, d: unknown) => void, fn: () => number): number {
  try {
    return fn();
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

function impact(
  estate: EstateDir,
  ref: { name: string; version: string },
  out: (h: string, d: unknown) => void,
): number {
  const record = estate.registry.versions(ref.name).find((v) => v.spec.version === ref.version);
  if (!record) throw new UsageError(`${ref.name}@${ref.version} is not a published version`);
  const last = record.history.at(-1)!;
  const retiredAt = record.state === "retired" ? last.at : undefined;
  const report = versionImpact(
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
    { name: ref.name, version: ref.version, state: record.state, calls: total, callers: rows },
  );
  return EXIT.ok;
}
