/**
 * `estate init [DIR]`: a tool estate inside an existing repository. What it writes is decided by
 * a pure function ({@linkcode initFiles}); {@linkcode runInit} writes the files that are not there
 * yet (never one that is) and says what it created, what it kept and what to run next.
 *
 * The layout, relative to DIR (the repository, default the working folder):
 *
 * - `estate/estate.json`, `estate/rules.json`, `estate/principals.json` (one example principal:
 *   its bearer token is printed once and stored as its SHA-256), `estate/tools/` (the published
 *   versions, empty at first): the estate folder, which the CLI and the editor find by its
 *   `estate.json` (`findEstateDir`);
 * - `tools/<name>.tool.json`: a first draft with every required field and a `$schema` line;
 * - `.gitignore` (`node_modules/`) when the repository has none;
 * - `.githooks/pre-commit` (installed as `.git/hooks/pre-commit` when that is free): refuses a
 *   commit whose tool files need a higher version than they declare;
 * - with `--ci github` (the default), `.github/workflows/tool-estate.yml`, which runs the
 *   tool-estate GitHub Action of the installed package; with `--ci gitlab`, `.gitlab-ci.yml`.
 *
 * @module
 */
import fs from "node:fs";
import path from "node:path";
import { DEFAULT_ESTATE_FOLDER } from "../store/find_estate.ts";
import { ESTATE_CONFIG_FILE } from "../estate/estate_config.ts";
import { RULES_FILE } from "../estate/estate_files.ts";
import { isToolName, parseToolSpec } from "../estate/spec.ts";
import { UsageError } from "./_args.ts";
import { tokenSha256 } from "../mcp/transports/bearer_tokens.ts";
import { PACKAGE_NAME, TOOL_SCHEMA_URL } from "./_package.ts";

/** Where a CI job is written for: GitHub Actions, GitLab CI/CD, or none. */
export type InitCi = "github" | "gitlab" | "none";

/** The `--ci` values. */
export const INIT_CI: readonly InitCi[] = ["github", "gitlab", "none"];

/** What `estate init` scaffolds. */
export interface InitOptions {
  /** The first tool's name. Default: `example.lookup`. */
  tool?: string;
  /** Its owning team. Default: `my-team`. */
  owner?: string;
  /** The CI job to write. Default: `github`. */
  ci?: InitCi;
  /** The example principal's bearer token (random, made by the caller). */
  token: string;
  /** The token's SHA-256, lower-case hex. */
  tokenSha256: string;
}

/** One file `estate init` writes. */
export interface InitFile {
  /** Where, relative to the repository, `/`-separated. */
  path: string;
  /** Its text. */
  text: string;
  /** Whether it is executable (the hooks). */
  executable?: boolean;
  /** What it is for, said when it is created. */
  purpose: string;
}

/** The pre-commit hook's path, relative to the repository. */
export const HOOK_FILE = ".githooks/pre-commit";

const json = (value: unknown): string => JSON.stringify(value, null, 2) + "\n";

/** The first draft: every required field, the `$schema` line, a small strict input schema. */
function firstTool(name: string, owner: string): Record<string, unknown> {
  return {
    $schema: TOOL_SCHEMA_URL,
    name,
    version: "1.0.0",
    title: "Look up a record",
    description:
      "Returns one record of the system of record by its id: read-only, as of the last sync.",
    inputSchema: {
      type: "object",
      properties: {
        id: { type: "string", description: "The record's id.", minLength: 1 },
      },
      required: ["id"],
      additionalProperties: false,
    },
    sideEffect: "read",
    dataClassification: "internal",
    owner,
    requiredScopes: [`${name.split(".")[0]}:read`],
  };
}

function hook(estateDir: string): string {
  return `#!/bin/sh
# tool-estate pre-commit hook, written by \`estate init\`: refuses a commit whose staged tool files
# (*.tool.json) need a higher version than they declare, checked against the last commit
# (estate check --against HEAD). Skip it once with \`git commit --no-verify\`.
cd "$(git rev-parse --show-toplevel)" || exit 1
files=$(git diff --cached --name-only --diff-filter=ACMR -- '*.tool.json')
[ -n "$files" ] || exit 0
if [ -x node_modules/.bin/estate ]; then
  estate=node_modules/.bin/estate
elif command -v estate >/dev/null 2>&1; then
  estate=estate
else
  echo "pre-commit: the estate command is not installed (npm install --save-dev ${PACKAGE_NAME})" >&2
  exit 1
fi
if git rev-parse --verify --quiet HEAD >/dev/null; then
  # shellcheck disable=SC2086 # one file a word: tool file names have no spaces
  "$estate" check --against HEAD $files
else
  # The first commit: the drafts against the estate (${estateDir}/, found by its estate.json).
  # shellcheck disable=SC2086
  "$estate" check $files
fi
status=$?
[ "$status" -eq 0 ] || echo "pre-commit: estate check failed (exit $status): fix the findings above, or commit with --no-verify" >&2
exit "$status"
`;
}

function githubWorkflow(): string {
  return `# Written by \`estate init\`: checks the tool files of every pull request against its base
# branch with the tool-estate GitHub Action of the installed package (${PACKAGE_NAME}):
# annotations on the changed lines, a SARIF upload for code scanning, and a failing check when a
# tool file needs a higher version than it declares.
name: tool-estate
on:
  pull_request:
  push:
    branches: [main]
permissions:
  contents: read
  security-events: write
jobs:
  estate-check:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
        with:
          fetch-depth: 0
      - uses: actions/setup-node@v4
        with:
          node-version: 20
      - run: npm ci
      - uses: ./node_modules/${PACKAGE_NAME}
        with:
          fail-on: error
`;
}

function gitlabJob(): string {
  return `# Written by \`estate init\`: checks the tool files of every merge request against its target
# branch with the estate command of the installed package (${PACKAGE_NAME}); the findings become
# the merge request's test report (JUnit) and the job fails when a tool file needs a higher
# version than it declares. Merge this job into your own .gitlab-ci.yml if you have one.
estate-check:
  image: node:20
  rules:
    - if: $CI_PIPELINE_SOURCE == "merge_request_event"
  variables:
    GIT_DEPTH: 0
  script:
    - npm ci
    - git fetch origin "$CI_MERGE_REQUEST_TARGET_BRANCH_NAME"
    - npx estate check --against "origin/$CI_MERGE_REQUEST_TARGET_BRANCH_NAME" --format junit > estate-check.xml || status=$?
    - npx estate check --against "origin/$CI_MERGE_REQUEST_TARGET_BRANCH_NAME" || true
    - exit "\${status:-0}"
  artifacts:
    when: always
    reports:
      junit: estate-check.xml
`;
}

/**
 * The files `estate init` writes, in the order it lists them. Pure: the caller makes the token.
 *
 * @param options The tool, owner, CI and the example principal's token.
 * @returns The files, each with its path relative to the repository.
 * @throws {UsageError} When the tool name or owner is not valid.
 */
export function initFiles(options: InitOptions): InitFile[] {
  const name = options.tool ?? "example.lookup";
  const owner = options.owner ?? "my-team";
  if (!isToolName(name)) {
    throw new UsageError(
      `--tool ${
        JSON.stringify(name)
      } is not a tool name (1-128 characters of A-Z a-z 0-9 _ . - not starting with ".")`,
    );
  }
  if (!owner.trim()) throw new UsageError("--owner must not be empty");
  const tool = firstTool(name, owner);
  // The template is checked as every tool file is: it must be a valid spec.
  parseToolSpec(tool, `the first tool file (${name})`);
  const estate = DEFAULT_ESTATE_FOLDER;
  const namespace = name.split(".")[0];
  const files: InitFile[] = [
    {
      path: `${estate}/${ESTATE_CONFIG_FILE}`,
      text: json({ compatibility: "backward" }),
      purpose: "the estate's settings (compatibility mode: backward); marks the estate folder",
    },
    {
      path: `${estate}/${RULES_FILE}`,
      text: json({ rules: {}, ignore: [] }),
      purpose: "rule severities and ignores for estate check (estate rules lists the rules)",
    },
    {
      path: `${estate}/principals.json`,
      text: json([{
        id: "example-agent",
        description: "An example agent: replace it with your own principals.",
        scopes: [`${namespace}:read`],
        tenant: "default",
        clearance: "internal",
        tokenSha256: options.tokenSha256,
      }]),
      purpose: "who may see and call which tools: one example principal, example-agent",
    },
    {
      path: `${estate}/tools/.gitkeep`,
      text: "",
      purpose: "the published versions (estate publish writes tools/<name>/<version>.json)",
    },
    {
      path: `tools/${name}.tool.json`,
      text: json(tool),
      purpose: "your first tool: edit it, check it, publish it",
    },
    {
      path: ".gitignore",
      text: "node_modules/\n",
      purpose: "keeps installed packages (npm install) out of git",
    },
    {
      path: HOOK_FILE,
      text: hook(estate),
      executable: true,
      purpose: "refuses a commit whose tool files need a higher version",
    },
  ];
  const ci = options.ci ?? "github";
  if (ci === "github") {
    files.push({
      path: ".github/workflows/tool-estate.yml",
      text: githubWorkflow(),
      purpose: "estate check on every pull request: annotations, SARIF, a failing check",
    });
  } else if (ci === "gitlab") {
    files.push({
      path: ".gitlab-ci.yml",
      text: gitlabJob(),
      purpose: "estate check on every merge request: a JUnit report, a failing job",
    });
  }
  return files;
}

/** What `estate init` did. */
export interface InitResult {
  /** The repository, absolute. */
  root: string;
  /** The files it wrote, relative. */
  created: string[];
  /** What each file it meant to write is for, by its relative path. */
  purposes: Record<string, string>;
  /** The files that were there already and were left as they are, relative. */
  kept: string[];
  /** Whether it installed `.git/hooks/pre-commit` (it does when the repository has none). */
  hookInstalled: boolean;
  /** Why the hook was not installed, when it was not. */
  hookNote?: string;
  /** What else the user should know (a `.gitignore` without `node_modules/`). */
  notes: string[];
  /** The example principal's token, when `principals.json` was created (shown once). */
  token?: string;
}

/** A random bearer token: `te_` and 32 random bytes, base64url. */
function randomToken(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  const b64 = btoa(String.fromCharCode(...bytes));
  return "te_" +
    b64.replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

/** The git folder of a repository root (`.git` may be a file: a worktree or submodule). */
function gitDir(root: string): string | undefined {
  const dotGit = path.join(root, ".git");
  try {
    const st = fs.statSync(dotGit);
    if (st.isDirectory()) return dotGit;
    const m = /^gitdir:\s*(.+)$/m.exec(fs.readFileSync(dotGit, "utf8"));
    return m ? path.resolve(root, m[1].trim()) : undefined;
  } catch {
    return undefined;
  }
}

const HOOK_SHIM = `#!/bin/sh
# Installed by \`estate init\`: runs the repository's tool-estate hook (${HOOK_FILE}).
exec "$(git rev-parse --show-toplevel)/${HOOK_FILE}" "$@"
`;

/**
 * Scaffolds an estate in a repository: writes each of {@linkcode initFiles} that does not exist
 * (never overwriting one), and installs the pre-commit hook into `.git/hooks/` when the repository
 * has none there.
 *
 * @param root The repository's folder (created when missing).
 * @param options The tool, owner and CI (the token is made here).
 * @returns What was created and kept.
 * @throws {UsageError} When a file cannot be written, or an option is not valid.
 */
export function runInit(
  root: string,
  options: Omit<InitOptions, "token" | "tokenSha256">,
): InitResult {
  const token = randomToken();
  const files = initFiles({
    ...options,
    token,
    tokenSha256: tokenSha256(token),
  });
  const result: InitResult = {
    root,
    purposes: Object.fromEntries(files.map((f) => [f.path, f.purpose])),
    created: [],
    kept: [],
    hookInstalled: false,
    notes: [],
  };
  try {
    fs.mkdirSync(root, { recursive: true });
    for (const f of files) {
      const target = path.join(root, ...f.path.split("/"));
      fs.mkdirSync(path.dirname(target), { recursive: true });
      try {
        fs.writeFileSync(target, f.text, {
          flag: "wx",
          mode: f.executable ? 0o755 : 0o644,
        });
      } catch (e) {
        if ((e as { code?: string }).code !== "EEXIST") throw e;
        result.kept.push(f.path);
        continue;
      }
      result.created.push(f.path);
      if (f.path.endsWith("/principals.json")) result.token = token;
    }
  } catch (e) {
    throw new UsageError(`estate init in ${root}: ${(e as Error).message}`);
  }
  if (result.kept.includes(".gitignore")) {
    const ignored = fs.readFileSync(path.join(root, ".gitignore"), "utf8")
      .split(/\r?\n/)
      .some((l) => /^\/?node_modules\/?$/.test(l.trim()));
    if (!ignored) {
      result.notes.push("add node_modules/ to .gitignore before git add -A");
    }
  }
  const git = gitDir(root);
  if (!git) {
    result.hookNote = `${root} is not the root of a git repository: run git init, then estate ` +
      `init again to install the hook`;
    return result;
  }
  const installed = path.join(git, "hooks", "pre-commit");
  try {
    fs.mkdirSync(path.dirname(installed), { recursive: true });
    fs.writeFileSync(installed, HOOK_SHIM, { flag: "wx", mode: 0o755 });
    result.hookInstalled = true;
  } catch (e) {
    if ((e as { code?: string }).code !== "EEXIST") {
      throw new UsageError(
        `estate init: cannot install ${installed}: ${(e as Error).message}`,
      );
    }
    result.hookNote = fs.readFileSync(installed, "utf8").includes(HOOK_FILE)
      ? undefined
      : `the repository has a pre-commit hook already (${installed}), kept as it is: have it run ${HOOK_FILE}`;
  }
  return result;
}

/**
 * What `estate init` prints: what it created and kept, the token once, what to run next.
 *
 * @param r What it did.
 * @returns The text.
 */
export function initText(r: InitResult): string {
  const width = Math.max(0, ...[...r.created, ...r.kept].map((p) => p.length));
  const lines = [`estate init: a tool estate in ${r.root}`];
  for (const p of r.created) {
    lines.push(`  created ${p.padEnd(width)}  ${r.purposes[p] ?? ""}`);
  }
  for (const p of r.kept) {
    lines.push(`  kept    ${p.padEnd(width)}  (it exists: not overwritten)`);
  }
  if (r.hookInstalled) {
    lines.push(`  installed .git/hooks/pre-commit (it runs ${HOOK_FILE})`);
  }
  if (r.hookNote) lines.push(`  note: ${r.hookNote}`);
  for (const note of r.notes) lines.push(`  note: ${note}`);
  if (r.token) {
    lines.push(
      "",
      "The example principal's bearer token, shown once (principals.json keeps only its SHA-256):",
      `  ${r.token}`,
    );
  }
  const tool = [...r.created, ...r.kept].find((p) => p.endsWith(".tool.json"));
  lines.push(
    "",
    "Next (npx estate … when installed with npm install --save-dev):",
    `  git add -A && git commit -m "Add a tool estate"`,
    `  estate check --against HEAD       your drafts against the last commit (CI: --against origin/main)`,
  );
  if (tool) lines.push(`  estate publish ${tool}   publish it into estate/`);
  lines.push(
    `  estate serve                      the estate as an MCP server on 127.0.0.1:3000`,
  );
  return lines.join("\n") + "\n";
}
