/**
 * `estate check --against REF|DIR`: each draft tool file checked against the same file as it was
 * at a git ref (`git show REF:path`) or as it is under a folder — the `buf breaking --against
 * '.git#branch=main'` use case, with no estate.
 *
 * For each draft (the files given, or every `*.tool.json` as `estate check` finds them), the
 * baseline is the same path (relative to the repository's top for a ref, to the working folder for
 * a folder): a tool file there → the schemas are compared and the draft's version must be at least
 * the one the change requires of the baseline's (`version-too-low`, `version-unchanged`,
 * `not-newer`: errors; exit 1); no file there → a new tool file (`new`, information). A draft or a
 * baseline that cannot be read as a tool spec is reported (`unreadable`) and the others are still
 * checked; exit 2 then. `DIR` wins when a folder has the ref's name.
 *
 * Git runs at the edge, here: `git rev-parse`, `git cat-file -e`, `git show`. Not a repository, an
 * unknown ref or no git at all are one-line input errors (exit 2).
 *
 * @module
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { SchemaChange } from "../compat/schema_change.ts";
import { parseToolSpec, type ToolSpec, ToolSpecError } from "../estate/spec.ts";
import { EXIT, UsageError } from "./_args.ts";
import type { CheckReport, Finding } from "../report/finding.ts";
import { type Document, fieldFinding, parseDocument, relativeFile, toolFindings } from "./_diff.ts";
import { type Format, render, sortFindings } from "./_render.ts";
import { diffSpecs, versionVerdict } from "./_tool_diff.ts";

/** Where baselines come from: a git commit or a folder. */
interface BaselineSource {
  /** `git` or `folder`. */
  kind: "git" | "folder";
  /** What the user gave. */
  against: string;
  /** The commit the ref names (git only). */
  commit?: string;
  /** The folder (folder only). */
  dir?: string;
  /**
   * The baseline of a draft: its text, or undefined when the path is not there.
   *
   * @throws {UsageError} The draft is outside the repository or folder.
   */
  read(absolute: string): { where: string; text: string | undefined };
}

/** Runs git; a missing git is an input error. */
function git(
  args: string[],
  cwd: string,
): { status: number; stdout: string; stderr: string } {
  const r = spawnSync("git", args, {
    cwd,
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
    stdio: ["ignore", "pipe", "pipe"],
  });
  if (r.error) {
    throw new UsageError(
      `--against needs git, which could not run: ${r.error.message}`,
    );
  }
  return {
    status: r.status ?? 1,
    stdout: r.stdout ?? "",
    stderr: r.stderr ?? "",
  };
}

const firstLine = (text: string) => text.trim().split("\n")[0] ?? "";

/** The top of the repository the working folder is in, and the commit a ref names. */
function resolveRef(
  against: string,
  cwd: string,
): { root: string; commit: string } {
  const top = git(["rev-parse", "--show-toplevel"], cwd);
  if (top.status !== 0) {
    throw new UsageError(
      `--against ${against}: not a folder, and ${cwd} is not in a git repository (${
        firstLine(top.stderr)
      })`,
    );
  }
  const root = top.stdout.trim();
  const verified = git(
    [
      "rev-parse",
      "--verify",
      "--quiet",
      "--end-of-options",
      `${against}^{commit}`,
    ],
    cwd,
  );
  if (
    verified.status !== 0 || !/^[0-9a-f]{40,64}$/.test(verified.stdout.trim())
  ) {
    throw new UsageError(
      `--against ${against}: no such git ref (branch, tag or commit) in ${root}, and no such folder`,
    );
  }
  return { root, commit: verified.stdout.trim() };
}

/** The baselines at a git ref of the repository the working folder is in. */
function gitSource(against: string, cwd: string): BaselineSource {
  const { root, commit } = resolveRef(against, cwd);
  return {
    kind: "git",
    against,
    commit,
    read(absolute) {
      const rel = path.relative(root, fs.realpathSync(absolute)).split(path.sep)
        .join("/");
      if (rel.startsWith("../") || rel === ".." || path.isAbsolute(rel)) {
        throw new UsageError(`it is outside the git repository ${root}`);
      }
      const where = `${against}:${rel}`;
      if (git(["cat-file", "-e", `${commit}:${rel}`], root).status !== 0) {
        return { where, text: undefined };
      }
      const shown = git(["show", `${commit}:${rel}`], root);
      if (shown.status !== 0) {
        throw new UsageError(
          `cannot read ${where}: ${firstLine(shown.stderr)}`,
        );
      }
      return { where, text: shown.stdout };
    },
  };
}

/** The baselines under a folder: the same path relative to the working folder. */
function folderSource(
  against: string,
  dir: string,
  cwd: string,
): BaselineSource {
  return {
    kind: "folder",
    against,
    dir,
    read(absolute) {
      const rel = path.relative(cwd, absolute);
      if (rel.startsWith("..") || path.isAbsolute(rel)) {
        throw new UsageError(`it is outside the working folder ${cwd}`);
      }
      const file = path.join(dir, rel);
      const where = relativeFile(cwd, file);
      let text: string;
      try {
        text = fs.readFileSync(file, "utf8");
      } catch (e) {
        if ((e as { code?: string }).code === "ENOENT") {
          return { where, text: undefined };
        }
        throw new UsageError(`cannot read ${where}: ${(e as Error).message}`);
      }
      return { where, text };
    },
  };
}

/** The baseline source `--against` names: a folder when there is one by that name, else a ref. */
function baselineSource(against: string, cwd: string): BaselineSource {
  if (against === "") {
    throw new UsageError("--against needs a git ref or a folder");
  }
  const dir = path.resolve(cwd, against);
  if (fs.statSync(dir, { throwIfNoEntry: false })?.isDirectory()) {
    return folderSource(against, dir, cwd);
  }
  return gitSource(against, cwd);
}

/** What happened to one draft. */
interface FileResult {
  file: string;
  status: "ok" | "failed" | "new" | "unreadable";
  /** Where its baseline was looked for: `main:tools/a.tool.json`, `baseline/a.tool.json`. */
  baseline?: string;
  name?: string;
  version?: string;
  baselineVersion?: string;
  bump?: string;
  minimumVersion?: string;
  message?: string;
}

/** A change is a warning when major, information else; the version verdict decides the outcome. */
const severityOf = (c: SchemaChange) => c.bump === "major" ? "warning" as const : "info" as const;

function checkOne(
  absolute: string,
  source: BaselineSource,
  cwd: string,
): { result: FileResult; findings: Finding[] } {
  const file = relativeFile(cwd, absolute);
  const unreadable = (message: string) => ({
    result: { file, status: "unreadable" as const, message },
    findings: [{
      rule: "unreadable",
      severity: "error" as const,
      message,
      file,
      line: 1,
      column: 1,
    }],
  });
  let draft: Document;
  try {
    draft = parseDocument(fs.readFileSync(absolute, "utf8"), absolute, file);
    if (!draft.spec) {
      throw new UsageError(`${file} is not a tool file (no inputSchema)`);
    }
  } catch (e) {
    if (e instanceof UsageError || e instanceof ToolSpecError) {
      return unreadable(e.message);
    }
    const code = (e as { code?: unknown })?.code;
    if (typeof code === "string") {
      return unreadable(`cannot read ${file}: ${(e as Error).message}`);
    }
    throw e;
  }
  const spec = draft.spec;
  let baseline: { where: string; text: string | undefined };
  try {
    baseline = source.read(absolute);
  } catch (e) {
    if (e instanceof UsageError) return unreadable(`${file}: ${e.message}`);
    throw e;
  }
  const { where } = baseline;
  if (baseline.text === undefined) {
    return {
      result: {
        file,
        status: "new",
        baseline: where,
        name: spec.name,
        version: spec.version,
        message: `not at ${where}: a new tool file`,
      },
      findings: [fieldFinding(draft, "version", {
        rule: "new",
        severity: "info",
        message: `${spec.name}@${spec.version} is new: no ${where}`,
      })],
    };
  }
  let base: ToolSpec;
  try {
    let value: unknown;
    try {
      value = JSON.parse(baseline.text);
    } catch (e) {
      throw new UsageError(
        `${where} is not valid JSON: ${(e as Error).message}`,
      );
    }
    base = parseToolSpec(value, where);
  } catch (e) {
    if (e instanceof UsageError || e instanceof ToolSpecError) {
      return unreadable(
        `the baseline ${where} is not a tool file: ${e.message}`,
      );
    }
    throw e;
  }
  let diff, verdict;
  try {
    diff = diffSpecs(base, spec);
    verdict = versionVerdict(base, spec, diff);
  } catch (e) {
    return unreadable(
      `cannot compare ${file} with ${where}: ${(e as Error)?.message ?? e}`,
    );
  }
  const findings = toolFindings(
    base,
    draft as Document & { spec: ToolSpec },
    diff,
    severityOf,
  );
  return {
    result: {
      file,
      status: verdict.ok ? "ok" : "failed",
      baseline: where,
      name: spec.name,
      version: spec.version,
      baselineVersion: base.version,
      bump: diff.bump,
      ...(verdict.minimumVersion ? { minimumVersion: verdict.minimumVersion } : {}),
      message: verdict.message,
    },
    findings,
  };
}

function statusLine(r: FileResult): string {
  switch (r.status) {
    case "unreadable":
      return `ERR  ${r.file}: ${r.message}`;
    case "new":
      return `new  ${r.file}: ${r.name}@${r.version} (not at ${r.baseline})`;
    default:
      return `${
        r.status === "ok" ? "ok  " : "FAIL"
      } ${r.file}: ${r.name}@${r.version} against ${r.baselineVersion} (${r.baseline}), ${r.message}`;
  }
}

/**
 * Runs `estate check [FILES...] --against REF|DIR`.
 *
 * @param files The drafts given (resolved against `cwd`); none: every draft `findToolFiles` finds.
 * @param options The baseline, the working folder, the output, and `estate check`'s discovery.
 * @returns 0, 1 when a version is not enough, 2 when a file could not be read.
 * @throws {UsageError} No drafts, no such ref or folder, not a git repository.
 */
export function checkAgainst(
  files: string[],
  options: {
    against: string;
    cwd: string;
    format: Format;
    stdout: (text: string) => void;
    findToolFiles: (dir: string) => string[];
  },
): number {
  const { cwd } = options;
  const source = baselineSource(options.against, cwd);
  // A baseline folder inside the working folder holds baselines, not drafts.
  const inBaseline = (f: string) =>
    source.dir !== undefined && !path.relative(source.dir, f).startsWith("..");
  const targets = files.length
    ? files.map((f) => path.resolve(cwd, f))
    : options.findToolFiles(cwd).filter((f) => !inBaseline(f));
  if (targets.length === 0) {
    throw new UsageError("no *.tool.json files to check");
  }
  const results: FileResult[] = [];
  const findings: Finding[] = [];
  for (const target of targets) {
    const one = checkOne(target, source, cwd);
    results.push(one.result);
    findings.push(...one.findings);
  }
  const count = (s: FileResult["status"]) => results.filter((r) => r.status === s).length;
  const failed = count("failed"), unreadable = count("unreadable");
  const report: CheckReport = {
    command: "check",
    files: results.map((r) => r.file),
    findings: sortFindings(findings),
    ok: failed === 0 && unreadable === 0,
  };
  options.stdout(render(report, options.format, {
    lines: [
      ...results.map(statusLine),
      `${results.length} checked against ${options.against}${
        source.commit ? ` (${source.commit.slice(0, 12)})` : ""
      }, ${failed} failed${count("new") ? `, ${count("new")} new` : ""}${
        unreadable ? `, ${unreadable} could not be read` : ""
      }`,
    ],
    data: {
      against: options.against,
      kind: source.kind,
      ...(source.commit ? { commit: source.commit } : {}),
      checked: results.length,
      failed,
      new: count("new"),
      unreadable,
      results,
    },
  }));
  return unreadable ? EXIT.usage : failed ? EXIT.failed : EXIT.ok;
}

/**
 * Runs `fn` over a copy of an estate folder as it was at a git ref (`git ls-tree`, `git show`
 * of each file, byte for byte), removed afterwards: `estate check --against REF --estate DIR`
 * checks the drafts against the estate as the ref has it.
 *
 * @param against The ref.
 * @param estate The estate folder (relative to `cwd`), which must be in the repository at the ref.
 * @param cwd The working folder, in the repository.
 * @param fn What to do with the copy's path.
 * @returns What `fn` returns.
 * @throws {UsageError} A folder for `against`, not a repository, an unknown ref, the estate not
 *   at the ref.
 */
export async function withEstateAt<T>(
  against: string,
  estate: string,
  cwd: string,
  fn: (dir: string) => Promise<T>,
): Promise<T> {
  if (
    fs.statSync(path.resolve(cwd, against), { throwIfNoEntry: false })
      ?.isDirectory()
  ) {
    throw new UsageError(
      `--against ${against} is a folder: drafts are compared with the files under it; with --estate, --against takes a git ref`,
    );
  }
  const { root, commit } = resolveRef(against, cwd);
  const absolute = path.resolve(cwd, estate);
  let real: string;
  try {
    real = fs.realpathSync(absolute);
  } catch {
    real = path.resolve(fs.realpathSync(cwd), estate);
  }
  const rel = path.relative(root, real).split(path.sep).join("/");
  if (
    rel === "" || rel.startsWith("../") || rel === ".." || path.isAbsolute(rel)
  ) {
    throw new UsageError(
      `--estate ${estate} is not inside the git repository ${root}`,
    );
  }
  const listed = git([
    "ls-tree",
    "-r",
    "-z",
    "--name-only",
    commit,
    "--",
    `${rel}/`,
  ], root);
  const names = listed.stdout.split("\0").filter((n) => n !== "");
  if (
    listed.status !== 0 || !names.some((n) => n.startsWith(`${rel}/tools/`))
  ) {
    throw new UsageError(
      `--against ${against}: ${rel}/tools is not at ${against}`,
    );
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "estate-at-ref-"));
  try {
    const copy = path.join(dir, path.basename(rel));
    for (const name of names) {
      const shown = spawnSync("git", ["show", `${commit}:${name}`], {
        cwd: root,
        maxBuffer: 1024 * 1024 * 1024,
        stdio: ["ignore", "pipe", "pipe"],
      });
      if (shown.status !== 0) {
        throw new UsageError(
          `cannot read ${against}:${name}: ${firstLine(String(shown.stderr))}`,
        );
      }
      const target = path.join(copy, name.slice(rel.length + 1));
      fs.mkdirSync(path.dirname(target), { recursive: true });
      fs.writeFileSync(target, shown.stdout);
    }
    return await fn(copy);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
