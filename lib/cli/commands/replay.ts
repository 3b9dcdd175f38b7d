/**
 * `estate replay NAME`: a tool's stored calls replayed, each against the newest version of its
 * major line, or all against one schema (`--schema FILE`, `--version VERSION`).
 */
import fs from "node:fs";
import path from "node:path";
import {
  isToolName,
  limitIssues,
  limitList,
  parseToolSpec,
  type Rejections,
  replayCallStream,
  type StoredCall,
  type ToolSpec,
  Version,
  type VersionRecord,
} from "../../../mod.ts";
import type { EstateStore } from "../../store/mod.ts";
import { EXIT, UsageError } from "../_args.ts";
import type { CliIO } from "../_cli_io.ts";
import type { CliCommand, CommandContext } from "../_command.ts";
import { more, shortenNode } from "../_shorten.ts";

/** `estate replay`. */
export const replayCommand: CliCommand = {
  name: "replay",
  usage: "estate replay NAME [--schema FILE | --version VERSION]",
  summary:
    "replay a tool's stored calls: each call against the newest version of the major line it\n" +
    "was made on; --schema or --version replays every call against that one schema",
  flags: { values: ["schema", "version"], booleans: [] },
  async run(ctx: CommandContext): Promise<number> {
    const { args, usage } = ctx;
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
      await ctx.openEstate(),
      args.positionals[0],
      {
        schemaFile: args.flags.get("schema") as string | undefined,
        version: args.flags.get("version") as string | undefined,
      },
      ctx.io,
      ctx.out,
    );
  },
};

/** One schema a replay runs calls through, and which calls it takes. */
interface ReplayLine {
  /** What the calls are replayed against: a published version or a file. */
  against: string;
  schema: ToolSpec["inputSchema"];
  /** Only calls of this major line; all calls when undefined. */
  major?: number;
}

/** The schemas to replay against: the one `--schema` or `--version` names, else each major line's newest. */
function replayLines(
  versions: VersionRecord[],
  name: string,
  options: { schemaFile?: string; version?: string },
  io: CliIO,
): ReplayLine[] {
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
    return lines;
  }
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
    return lines;
  }
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
  return lines;
}

async function replay(
  estate: EstateStore,
  name: string,
  options: { schemaFile?: string; version?: string },
  io: CliIO,
  out: (h: string, d: unknown) => void,
): Promise<number> {
  const lines = replayLines(estate.registry.versions(name), name, options, io);
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
