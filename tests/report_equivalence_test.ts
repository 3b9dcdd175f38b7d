/**
 * The editor and the CLI say the same of the same files: `deno run cli.ts check --format json` in a
 * scratch repository (made by `estate init`) and the language server over real LSP on the same
 * files give identical findings — rule, severity, message, file, line, column, end — with the
 * estate's rules.json raising a rule, lowering another, turning one off, ignoring one (active)
 * and holding an expired ignore. And a workspace of two repositories checks each file against its
 * own estate and rules.json.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { estate } from "./_cli.ts";
import {
  corpusSpec,
  type Diagnostic,
  fileUri,
  type LspSession,
  ROOT,
  startServer,
} from "./_lsp_client.ts";

/** A finding as both sides can say it. */
interface Said {
  file: string;
  rule: string;
  severity: string;
  message: string;
  line: number;
  column: number;
  endLine: number;
  endColumn: number;
}

const SEVERITY: Record<number, string> = {
  1: "error",
  2: "warning",
  3: "info",
};

function json(value: unknown): string {
  return JSON.stringify(value, null, 2) + "\n";
}

/** A repository made by `estate init`, with payments.lookup@2.0.0 and fx.quote@1.0.0 published. */
async function makeRepo(prefix: string, rules: unknown): Promise<string> {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
  assert.equal(spawnSync("git", ["init", "-q"], { cwd: dir }).status, 0);
  const init = await estate(["init", ".", "--ci", "none"], dir);
  assert.equal(init.code, 0, init.err);
  fs.rmSync(path.join(dir, "tools"), { recursive: true });
  fs.mkdirSync(path.join(dir, "published"));
  for (
    const [name, version] of [["payments.lookup", "2.0.0"], [
      "fx.quote",
      "1.0.0",
    ]]
  ) {
    const file = path.join(dir, "published", `${name}.json`);
    fs.writeFileSync(file, json(corpusSpec(name, version)));
    const r = await estate(["publish", file], dir);
    assert.equal(r.code, 0, r.err);
  }
  fs.rmSync(path.join(dir, "published"), { recursive: true });
  fs.writeFileSync(path.join(dir, "estate", "rules.json"), json(rules));
  return dir;
}

/** The drafts: breaking and compatible edits, spec problems, broken JSON, a description lint. */
function writeDrafts(dir: string): string[] {
  const tools = path.join(dir, "tools");
  fs.mkdirSync(tools, { recursive: true });
  const lookup = corpusSpec("payments.lookup", "2.0.0");
  lookup.version = "2.1.0";
  // deno-lint-ignore no-explicit-any
  const props = (lookup.inputSchema as any).properties;
  delete props.includeHistory;
  props.channel = { type: "string", enum: ["web", "branch"] };
  const quote = corpusSpec("fx.quote", "1.0.0");
  quote.version = "1.1.0";
  // deno-lint-ignore no-explicit-any
  (quote.inputSchema as any).properties.channel = { type: "string" };
  const { owner: _owner, ...noOwner } = corpusSpec("fx.quote", "1.0.0");
  const files: Record<string, string> = {
    "lookup.tool.json": json(lookup),
    "quote.tool.json": json(quote),
    "bad.tool.json": json({
      ...noOwner,
      name: "fx.bad",
      sideEffect: "sometimes",
    }),
    "broken.tool.json": '{\n  "name": "fx.broken",\n  "version": \n}\n',
    "new.tool.json": json({
      ...corpusSpec("fx.quote", "1.0.0"),
      name: "fx.newer",
      description: "Owned by fx-desk. Quotes a rate.",
      owner: "fx-desk",
    }),
  };
  return Object.entries(files).map(([name, text]) => {
    fs.writeFileSync(path.join(tools, name), text);
    return path.join(tools, name);
  });
}

/** What `deno run cli.ts check --format json` says in the repository. */
function cliFindings(dir: string): Said[] {
  const r = spawnSync(
    "deno",
    [
      "run",
      "-A",
      "--quiet",
      path.join(ROOT, "cli.ts"),
      "check",
      "--format",
      "json",
    ],
    {
      cwd: dir,
      encoding: "utf8",
      env: { ...Deno.env.toObject(), NO_COLOR: "1" },
    },
  );
  assert.ok(r.stdout.trim().startsWith("{"), `${r.stdout}\n${r.stderr}`);
  const report = JSON.parse(r.stdout) as { findings: Said[] };
  return report.findings.map((f) => ({
    file: f.file,
    rule: f.rule,
    severity: f.severity,
    message: f.message,
    line: f.line,
    column: f.column,
    endLine: f.endLine ?? f.line,
    endColumn: f.endColumn ?? f.column,
  }));
}

/** A diagnostic as a finding of the file. */
function said(root: string, uri: string, d: Diagnostic): Said {
  return {
    file: path.relative(root, new URL(uri).pathname).split(path.sep).join("/"),
    rule: String(d.code),
    severity: SEVERITY[d.severity!],
    message: d.message,
    line: d.range.start.line + 1,
    column: d.range.start.character + 1,
    endLine: d.range.end.line + 1,
    endColumn: d.range.end.character + 1,
  };
}

/** What the language server shows for the files (and on the estate's rules.json). */
async function editorFindings(
  ls: LspSession,
  root: string,
  files: string[],
): Promise<Said[]> {
  const out: Said[] = [];
  for (const file of files) {
    const p = await ls.open(file);
    out.push(...p.diagnostics.map((d) => said(root, p.uri, d)));
  }
  const rulesUri = fileUri(path.join(root, "estate", "rules.json"));
  const rules = ls.published.filter((p) => p.uri === rulesUri).at(-1);
  out.push(...(rules?.diagnostics ?? []).map((d) => said(root, rulesUri, d)));
  return out;
}

function sorted(findings: Said[]): Said[] {
  const key = (f: Said) =>
    `${f.file}\u0000${String(f.line).padStart(6)}\u0000${
      String(f.column).padStart(6)
    }\u0000${f.rule}\u0000${f.message}`;
  return [...findings].sort((a, b) => key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0);
}

const RULES = {
  rules: {
    "property-added": "error",
    "description": "info",
    "version-ok": "off",
  },
  ignore: [
    {
      rule: "property-removed",
      tool: "payments.lookup",
      reason: "the client that sent includeHistory is retired",
      expires: "2099-12-31",
    },
    {
      rule: "enum-narrowed",
      reason: "migration of the old channels",
      expires: "2020-01-31",
    },
  ],
};

Deno.test("estate check --format json and the language server give identical findings for the same files and rules.json", async () => {
  const dir = await makeRepo("estate-equiv-", RULES);
  const ls = await startServer(dir);
  try {
    const files = writeDrafts(dir);
    const cli = sorted(cliFindings(dir));
    const editor = sorted(await editorFindings(ls, dir, files));
    // The rules did their work on both sides (so the comparison is not of two empty lists).
    const rules = new Set(cli.map((f) => f.rule));
    for (
      const r of ["version-too-low", "spec", "unreadable", "ignore-expired"]
    ) {
      assert.ok(rules.has(r), `${r} in ${[...rules]}`);
    }
    assert.ok(!rules.has("property-removed"), "the active ignore holds");
    assert.ok(!rules.has("version-ok"), "off is off");
    assert.ok(
      cli.some((f) => f.rule === "property-added" && f.severity === "error"),
    );
    assert.ok(
      cli.some((f) => f.rule === "description" && f.severity === "info"),
    );
    assert.ok(
      cli.some((f) => f.file === "estate/rules.json" && f.rule === "ignore-expired"),
    );
    assert.deepEqual(editor, cli);
    assert.equal(await ls.close(), 0);
  } finally {
    ls.process.kill();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

Deno.test("LSP: two workspace folders, two estates: each file is checked against its own estate and rules.json, and a rules.json change is noticed", async () => {
  const a = await makeRepo("estate-root-a-", { rules: {} });
  const b = await makeRepo("estate-root-b-", {
    rules: { "property-added": "off" },
  });
  const ls = await startServer(a);
  try {
    await ls.connection.sendNotification(
      "workspace/didChangeWorkspaceFolders",
      {
        event: { added: [{ uri: fileUri(b), name: "b" }], removed: [] },
      },
    );
    // The same compatible draft in both.
    const quote = corpusSpec("fx.quote", "1.0.0");
    quote.version = "1.1.0";
    // deno-lint-ignore no-explicit-any
    (quote.inputSchema as any).properties.channel = { type: "string" };
    const files = [a, b].map((root) => {
      fs.mkdirSync(path.join(root, "tools"), { recursive: true });
      const file = path.join(root, "tools", "quote.tool.json");
      fs.writeFileSync(file, json(quote));
      return file;
    });
    const [inA, inB] = [await ls.open(files[0]), await ls.open(files[1])];
    assert.deepEqual(inA.diagnostics.map((d) => d.code), [
      "version-ok",
      "property-added",
    ]);
    assert.deepEqual(inB.diagnostics.map((d) => d.code), ["version-ok"]);
    assert.match(ls.statuses.at(-1)!.detail, /in the estate estate\//);
    // Each estate is watched.
    const watched = JSON.stringify(ls.registrations.at(-1)?.registerOptions);
    for (const root of [a, b]) {
      assert.ok(
        watched.includes(JSON.stringify(fileUri(path.join(root, "estate")))),
        watched,
      );
    }
    // b's rules.json raises property-added: the watcher's change re-checks b's draft.
    const rulesB = path.join(b, "estate", "rules.json");
    fs.writeFileSync(rulesB, json({ rules: { "property-added": "warning" } }));
    const next = ls.nextDiagnostics(fileUri(files[1]));
    await ls.connection.sendNotification("workspace/didChangeWatchedFiles", {
      changes: [{ uri: fileUri(rulesB), type: 2 }],
    });
    const after = await next;
    assert.deepEqual(after.diagnostics.map((d) => [d.code, d.severity]), [
      ["property-added", 2],
      ["version-ok", 3],
    ]);
    assert.equal(await ls.close(), 0);
  } finally {
    ls.process.kill();
    for (const dir of [a, b]) fs.rmSync(dir, { recursive: true, force: true });
  }
});
