// Scratch repositories for the e2e test, made the way a user makes one: `git init`, `estate init`,
// `estate publish` of the example draft, then an edit and a rules.json. `estate check --format
// json` in the repository says what the editor must show. The CLI runs from this repository's
// cli.ts with `deno run -A --config deno.runtime.jsonc` (DENO=path overrides `deno`), with the
// scratch repository as its working directory: it finds the estate from estate.json, as the
// language server does. Nothing here knows VS Code.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

/** The draft `estate init` writes, relative to the repository. */
export const DRAFT = "tools/example.lookup.tool.json";

/**
 * @typedef {{ file: string, rule: string, severity: "error" | "warning" | "info",
 *   message: string, line: number, column: number }} Finding
 *   A finding as both `estate check` and the Problems panel can say it (file: relative to the
 *   repository, with `/`; line and column 1-based).
 */

/**
 * Runs `estate ARGS` in `cwd`; returns its exit code and output.
 * @param {string} root this repository (where cli.ts is)
 * @param {string[]} args
 * @param {string} cwd
 * @returns {{ code: number, out: string, err: string }}
 */
export function estate(root, args, cwd) {
  const deno = process.env.DENO || "deno";
  const r = spawnSync(
    deno,
    [
      "run",
      "-A",
      "--quiet",
      "--config",
      path.join(root, "deno.runtime.jsonc"),
      path.join(root, "cli.ts"),
      ...args,
    ],
    {
      cwd,
      encoding: "utf8",
      timeout: 60_000,
      killSignal: "SIGKILL",
      env: { ...process.env, NO_COLOR: "1" },
    },
  );
  if (r.error) throw new Error(`${deno} … cli.ts ${args.join(" ")} in ${cwd}: ${r.error.message}`);
  return { code: r.status ?? -1, out: r.stdout, err: r.stderr };
}

/** `estate ARGS` that must exit 0. */
function estateOk(root, args, cwd) {
  const r = estate(root, args, cwd);
  if (r.code !== 0) {
    throw new Error(`estate ${args.join(" ")} in ${cwd}: exit ${r.code}\n${r.out}${r.err}`);
  }
  return r.out;
}

/**
 * Makes a repository in `dir` (created; must not exist): `git init`, `estate init . --ci none`,
 * `estate publish` of the draft (example.lookup@1.0.0), then `edit(draft)` on the draft's JSON
 * (written back with 2-space indent) and `rules` as estate/rules.json.
 * @param {string} root this repository
 * @param {string} dir
 * @param {{ edit: (draft: any) => void, rules: unknown }} options
 * @returns {string} dir
 */
export function makeRepo(root, dir, { edit, rules }) {
  fs.mkdirSync(dir, { recursive: true });
  const git = spawnSync("git", ["init", "-q"], { cwd: dir, encoding: "utf8" });
  if (git.status !== 0) throw new Error(`git init in ${dir}: ${git.stderr || git.error}`);
  estateOk(root, ["init", ".", "--ci", "none"], dir);
  for (const made of ["estate/estate.json", "estate/rules.json", DRAFT]) {
    if (!fs.existsSync(path.join(dir, made))) throw new Error(`estate init made no ${made}`);
  }
  estateOk(root, ["publish", DRAFT], dir);
  const file = path.join(dir, DRAFT);
  const draft = JSON.parse(fs.readFileSync(file, "utf8"));
  edit(draft);
  fs.writeFileSync(file, `${JSON.stringify(draft, null, 2)}\n`);
  fs.writeFileSync(path.join(dir, "estate/rules.json"), `${JSON.stringify(rules, null, 2)}\n`);
  return dir;
}

/**
 * What `estate check --format json` reports in the repository (it exits 1 when there are
 * errors; any other exit, or output that is not the report, throws).
 * @param {string} root this repository
 * @param {string} dir the scratch repository
 * @returns {Finding[]}
 */
export function checkFindings(root, dir) {
  const r = estate(root, ["check", "--format", "json"], dir);
  let report;
  try {
    report = JSON.parse(r.out);
  } catch {
    throw new Error(
      `estate check --format json in ${dir}: exit ${r.code}, not JSON\n${r.out}${r.err}`,
    );
  }
  if (r.code > 1 || !Array.isArray(report.findings)) {
    throw new Error(`estate check --format json in ${dir}: exit ${r.code}\n${r.out}${r.err}`);
  }
  return report.findings.map((f) => ({
    file: f.file,
    rule: f.rule,
    severity: f.severity,
    message: f.message,
    line: f.line,
    column: f.column,
  }));
}

/** One line per finding, for messages: `file:line:col severity rule: message`. */
export function formatFinding(f) {
  return `${f.file}:${f.line}:${f.column} ${f.severity} ${f.rule}: ${f.message}`;
}

/**
 * Compares two lists of findings as multisets. Returns undefined when equal, else a description
 * of what only one side has.
 * @param {Finding[]} expected what `estate check` says
 * @param {Finding[]} shown what VS Code shows
 * @returns {string | undefined}
 */
export function diffFindings(expected, shown) {
  const left = expected.map(formatFinding).sort();
  const right = shown.map(formatFinding).sort();
  const onlyExpected = [...left];
  const onlyShown = [];
  for (const line of right) {
    const i = onlyExpected.indexOf(line);
    if (i >= 0) onlyExpected.splice(i, 1);
    else onlyShown.push(line);
  }
  if (!onlyExpected.length && !onlyShown.length) return undefined;
  return [
    `estate check reports ${left.length}, VS Code shows ${right.length}`,
    ...onlyExpected.map((l) => `only in estate check: ${l}`),
    ...onlyShown.map((l) => `only in VS Code:      ${l}`),
  ].join("\n");
}
