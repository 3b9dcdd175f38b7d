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
  type SchemaChange,
  shortenIssue,
  shortenText,
  type StoredCall,
  ToolSpecError,
} from "../../mod.ts";
import { CorpusError, EstateDir } from "../store/mod.ts";
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
}

/** Exit codes. */
export const EXIT = { ok: 0, failed: 1, usage: 2 } as const;

const USAGE = `usage: estate <command> [options]

commands:
  check [FILES...]                       check draft tool files (*.tool.json) against the estate
  publish FILE                           publish a tool file
  deprecate NAME@VERSION [--reason TEXT] [--retire-after DATE]
  retire NAME@VERSION [--reason TEXT]
  list [--principal ID]                  what a principal discovers (all tools without --principal)
  replay NAME [--schema FILE]            replay stored calls through a schema (default: newest published)
  impact NAME@VERSION                    who called a version, how often, last seen
  serve [--http HOST:PORT | --stdio --principal ID]
                                         the estate as a live MCP server (estate serve --help)

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
      values: ["estate", "reason", "retire-after", "principal", "schema"],
      booleans: ["json"],
    });
    const json = args.flags.has("json");
    const estateDir = path.resolve(io.cwd, String(args.flags.get("estate") ?? "corpus"));
    const openEstate = (): EstateDir => {
      if (!fs.existsSync(estateDir) || !fs.statSync(estateDir).isDirectory()) {
        throw new UsageError(`estate folder ${estateDir} does not exist (use --estate DIR)`);
      }
      return EstateDir.open(estateDir);
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
          : "estate retire NAME@VERSION [--reason TEXT]";
        if (args.positionals.length !== 1) throw new UsageError(`usage: ${usage}`);
        if (command === "retire" && args.flags.has("retire-after")) {
          throw new UsageError(`usage: ${usage}`);
        }
        const { name, version } = parseToolRef(args.positionals[0], usage);
        const reason = args.flags.get("reason") as string | undefined;
        const retireAfter = args.flags.get("retire-after") as string | undefined;
        if (retireAfter !== undefined && !/^\d{4}-\d{2}-\d{2}$/.test(retireAfter)) {
          throw new UsageError(
            `--retire-after must be a date like 2027-03-31, got ${JSON.stringify(retireAfter)}`,
          );
        }
        const estate = openEstate();
        try {
          const record = command === "deprecate"
            ? estate.deprecate(name, version, { reason, retireAfter })
            : estate.retire(name, version, { reason });
          out(`${name}@${version} is now ${record.state}\n`, {
            name,
            version,
            state: record.state,
          });
          return EXIT.ok;
        } catch (e) {
          if (e instanceof LifecycleError) {
            out(`${e.message}\n`, { status: "refused", message: e.message });
            return EXIT.failed;
          }
          throw e;
        }
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

function impact(
  estate: EstateDir,
  ref: { name: string; version: string },
  out: (h: string, d: unknown) => void,
): number {
  const record = estate.registry.versions(ref.name).find((v) => v.spec.version === ref.version);
  if (!record) throw new UsageError(`${ref.name}@${ref.version} is not a published version`);
  const callers = new Map<string, { principal: string; calls: number; lastSeen: string }>();
  for (const call of estate.readCalls(ref.name)) {
    if (call.version !== ref.version) continue;
    const c = callers.get(call.principal) ?? { principal: call.principal, calls: 0, lastSeen: "" };
    c.calls++;
    if (call.at > c.lastSeen) c.lastSeen = call.at;
    callers.set(call.principal, c);
  }
  const rows = [...callers.values()].sort((a, b) =>
    b.calls - a.calls || (a.principal < b.principal ? -1 : 1)
  );
  const total = rows.reduce((n, r) => n + r.calls, 0);
  const last = record.history.at(-1)!;
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
