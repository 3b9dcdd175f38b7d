/**
 * tool-estate in a team's own repository, as a new user meets it: the npm package packed and
 * installed into a temporary prefix (its `estate` bin on PATH), a fresh git repository elsewhere
 * (no deno.json, no clone of this one), `estate init`, a commit, a breaking edit; then
 * `estate check --against HEAD` in the GitHub and SARIF formats, the generated pre-commit hook,
 * the GitHub Action's steps (run with the `GITHUB_*` variables Actions sets) and the GitLab job's
 * script (with GitLab's `CI_*` variables), each passing and failing as `estate check` does. The
 * JSR route runs the same repository test through `deno install -g` of the `./cli` entry. No network:
 * npm installs the tarball's dependencies from its cache or the registry, nothing else is fetched.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Validator } from "@cfworker/json-schema";
import { parse as parseYaml } from "yaml";
import { buildNpm } from "../scripts/build_npm.ts";
import { parseToolSpec } from "../mod.ts";
import { PACKAGE_NAME, PACKAGE_VERSION, TOOL_SCHEMA_URL } from "../lib/cli/_package.ts";
import { postgresSkipReason, startPostgres } from "./_postgres.ts";

const ROOT = path.resolve(new URL("..", import.meta.url).pathname);
const denoJson = JSON.parse(
  fs.readFileSync(path.join(ROOT, "deno.json"), "utf8"),
);

interface Ran {
  code: number;
  out: string;
  err: string;
}

async function sh(
  command: string,
  args: string[],
  options: { cwd: string; env?: Record<string, string> },
): Promise<Ran> {
  const r = await new Deno.Command(command, {
    args,
    cwd: options.cwd,
    env: { NO_COLOR: "1", ...options.env },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const d = new TextDecoder();
  return { code: r.code, out: d.decode(r.stdout), err: d.decode(r.stderr) };
}

function must(r: Ran, what: string): Ran {
  assert.equal(r.code, 0, `${what} exited with ${r.code}:\n${r.out}${r.err}`);
  return r;
}

/** A scratch folder with its own HOME and git identity, removed afterwards. */
async function scratch(
  fn: (dir: string, env: Record<string, string>) => Promise<void>,
) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "own-repo-"));
  const home = path.join(dir, "home");
  fs.mkdirSync(home);
  const env: Record<string, string> = {
    HOME: home,
    PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
    GIT_AUTHOR_NAME: "New User",
    GIT_AUTHOR_EMAIL: "new.user@example.invalid",
    GIT_COMMITTER_NAME: "New User",
    GIT_COMMITTER_EMAIL: "new.user@example.invalid",
    GIT_CONFIG_NOSYSTEM: "1",
    // npm's cache stays where the machine keeps it (a fresh HOME would fetch every dependency).
    npm_config_cache: Deno.env.get("npm_config_cache") ??
      path.join(Deno.env.get("HOME") ?? os.homedir(), ".npm"),
  };
  try {
    await fn(dir, env);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

let packed: Promise<string> | undefined;
/** The npm package, built and packed once for this file. */
function tarball(): Promise<string> {
  packed ??= Promise.resolve().then(() => buildNpm());
  return packed;
}

/** A fresh git repository on `main`, with nothing of this one in it. */
async function newRepo(
  dir: string,
  env: Record<string, string>,
  options: { gitignore?: boolean } = {},
): Promise<string> {
  const repo = path.join(dir, "my-repo");
  fs.mkdirSync(repo);
  must(
    await sh("git", ["init", "-q", "-b", "main"], { cwd: repo, env }),
    "git init",
  );
  fs.writeFileSync(path.join(repo, "README.md"), "# my repo\n");
  if (options.gitignore ?? true) {
    fs.writeFileSync(path.join(repo, ".gitignore"), "node_modules/\n");
  }
  return repo;
}

const TOOL = "tools/example.lookup.tool.json";

/** Makes the first tool's `id` an integer (a major change) and leaves the version as it is. */
function breakingEdit(repo: string): void {
  const file = path.join(repo, TOOL);
  const spec = JSON.parse(fs.readFileSync(file, "utf8"));
  spec.inputSchema.properties.id.type = "integer";
  fs.writeFileSync(file, JSON.stringify(spec, null, 2) + "\n");
}

/** The 1-based line of `"version"` in the tool file. */
function versionLine(repo: string): number {
  const lines = fs.readFileSync(path.join(repo, TOOL), "utf8").split("\n");
  return lines.findIndex((l) => /^\s*"version":/.test(l)) + 1;
}

const sarifSchema = JSON.parse(
  fs.readFileSync(
    path.join(
      ROOT,
      "node_modules/@microsoft/jest-sarif/lib/schemas/sarif-2.1.0-rtm.5.json",
    ),
    "utf8",
  ),
);

/** SARIF 2.1.0 by an independent validator (@cfworker/json-schema, draft-04 as the schema is). */
function assertSarif(text: string): void {
  const result = new Validator(sarifSchema, "4", false).validate(
    JSON.parse(text),
  );
  assert.ok(result.valid, JSON.stringify(result.errors.slice(0, 5), null, 2));
}

/**
 * The user's flow with an `estate` on PATH: init, commit (through the hook), a breaking edit,
 * check in the github and sarif formats, the hook refusing the commit.
 */
async function userFlow(
  repo: string,
  env: Record<string, string>,
): Promise<void> {
  const run = (args: string[]) => sh("estate", args, { cwd: repo, env });
  const init = must(await run(["init"]), "estate init");
  assert.match(init.out, /created estate\/estate\.json/);
  assert.match(init.out, new RegExp(`created ${TOOL.replaceAll(".", "\\.")}`));
  assert.match(init.out, /installed \.git\/hooks\/pre-commit/);
  assert.match(init.out, /estate check --against HEAD/);
  must(await sh("git", ["add", "-A"], { cwd: repo, env }), "git add");
  must(
    await sh("git", ["commit", "-q", "-m", "Add a tool estate"], {
      cwd: repo,
      env,
    }),
    "the first commit, through the hook",
  );
  must(
    await run(["check", "--against", "HEAD"]),
    "check of the committed estate",
  );

  breakingEdit(repo);
  const github = await run([
    "check",
    "--against",
    "HEAD",
    "--format",
    "github",
  ]);
  assert.equal(github.code, 1, github.out + github.err);
  const line = versionLine(repo);
  assert.ok(line > 0);
  assert.match(
    github.out,
    new RegExp(
      `^::error file=${
        TOOL.replaceAll(".", "\\.")
      },line=${line},col=\\d+,endLine=${line},endColumn=\\d+,title=version-unchanged::major change against 1\\.0\\.0`,
      "m",
    ),
  );
  const sarif = await run(["check", "--against", "HEAD", "--format", "sarif"]);
  assert.equal(sarif.code, 1);
  assertSarif(sarif.out);

  const head = must(
    await sh("git", ["rev-parse", "HEAD"], { cwd: repo, env }),
    "rev-parse",
  ).out;
  must(await sh("git", ["add", "-A"], { cwd: repo, env }), "git add");
  const refused = await sh("git", ["commit", "-q", "-m", "break it"], {
    cwd: repo,
    env,
  });
  assert.notEqual(
    refused.code,
    0,
    "the pre-commit hook refuses the breaking commit",
  );
  assert.match(refused.out + refused.err, /version-unchanged/);
  assert.match(refused.err, /pre-commit: estate check failed/);
  assert.equal(
    must(
      await sh("git", ["rev-parse", "HEAD"], { cwd: repo, env }),
      "rev-parse",
    ).out,
    head,
    "nothing was committed",
  );
}

Deno.test("npm route: the packed package's estate bin in a fresh repository — init, commit, a breaking edit fails check --against HEAD at the version line, SARIF validates, the hook refuses the commit", async () => {
  const tgz = await tarball();
  await scratch(async (dir, env) => {
    const prefix = path.join(dir, "prefix");
    must(
      await sh("npm", [
        "install",
        "--global",
        "--prefix",
        prefix,
        "--no-audit",
        "--no-fund",
        "--loglevel=error",
        tgz,
      ], { cwd: dir, env }),
      "npm install --global --prefix",
    );
    env.PATH = `${path.join(prefix, "bin")}:${env.PATH}`;
    const version = must(
      await sh("estate", ["--version"], { cwd: dir, env }),
      "estate --version",
    );
    assert.equal(version.out, `estate ${PACKAGE_VERSION} (${PACKAGE_NAME})\n`);
    const repo = await newRepo(dir, env);
    assert.equal(fs.existsSync(path.join(repo, "deno.json")), false);
    await userFlow(repo, env);
  });
});

Deno.test("JSR route: the ./cli entry installed with deno install -g, the same repository test", async () => {
  assert.equal(denoJson.exports["./cli"], "./cli.ts", "./cli is exported");
  assert.ok(
    (denoJson.publish.include as string[]).includes("cli.ts") &&
      !(denoJson.publish.exclude ?? []).some((e: string) => e.startsWith("lib/cli")),
    "cli.ts and lib/cli/ are published",
  );
  await scratch(async (dir, env) => {
    // `deno install -g -A -n estate jsr:@tool-estate/core/cli` installs the entry with the
    // package's own imports, not the user's: here the entry with the runtime configuration.
    env.DENO_DIR = Deno.env.get("DENO_DIR") ??
      path.join(Deno.env.get("HOME") ?? os.homedir(), ".cache", "deno");
    const root = path.join(dir, "deno-root");
    must(
      await sh(Deno.execPath(), [
        "install",
        "-g",
        "-A",
        "-n",
        "estate",
        "--root",
        root,
        // The runtime lock is frozen and install records the entry in its own way: the pins in
        // deno.runtime.jsonc are exact versions.
        "--no-lock",
        "--config",
        path.join(ROOT, "deno.runtime.jsonc"),
        path.join(ROOT, "cli.ts"),
      ], { cwd: dir, env }),
      "deno install -g",
    );
    env.PATH = `${path.join(root, "bin")}:${path.dirname(Deno.execPath())}:${env.PATH}`;
    const repo = await newRepo(dir, env);
    await userFlow(repo, env);
  });
});

// --- The Action, run as Actions runs a composite action's steps -------------------------------

interface Step {
  id?: string;
  name?: string;
  if?: string;
  uses?: string;
  run?: string;
  shell?: string;
  env?: Record<string, string>;
  with?: Record<string, string>;
  "working-directory"?: string;
}

interface ActionRun {
  /** Each step's outcome: `ran` (with its exit code), `used` (a `uses:` step) or `skipped`. */
  steps: { name: string; outcome: "ran" | "used" | "skipped"; code?: number }[];
  /** The `uses:` steps that would have run, with their `with:` after substitution. */
  used: { uses: string; with: Record<string, string> }[];
  /** What the steps printed. */
  out: string;
  /** Whether the job failed (a step exited non-zero). */
  failed: boolean;
  /** The action's outputs. */
  outputs: Record<string, string>;
}

/** Runs a composite action's steps: `${{ }}` substituted, `if:` evaluated, `uses:` recorded. */
async function runAction(
  actionDir: string,
  inputs: Record<string, string>,
  context: {
    workspace: string;
    env: Record<string, string>;
    github: Record<string, string>;
  },
): Promise<ActionRun> {
  const action = parseYaml(
    fs.readFileSync(path.join(actionDir, "action.yml"), "utf8"),
  );
  const values: Record<string, string> = {};
  for (
    const [name, spec] of Object.entries(
      action.inputs as Record<string, { default?: string }>,
    )
  ) {
    values[name] = inputs[name] ?? spec.default ?? "";
  }
  const outputs: Record<string, Record<string, string>> = {};
  const lookup = (expr: string): string => {
    const e = expr.trim();
    const str = /^'(.*)'$/.exec(e);
    if (str) return str[1];
    if (e.startsWith("inputs.")) return values[e.slice(7)] ?? "";
    const step = /^steps\.([\w-]+)\.outputs\.([\w-]+)$/.exec(e);
    if (step) return outputs[step[1]]?.[step[2]] ?? "";
    if (e.startsWith("github.")) return context.github[e.slice(7)] ?? "";
    throw new Error(`the test's evaluator does not know ${e}`);
  };
  const substitute = (text: string) =>
    text.replace(/\$\{\{(.*?)\}\}/g, (_, expr: string) => lookup(expr));
  const condition = (text: string | undefined, failed: boolean): boolean => {
    if (text === undefined) return !failed;
    const body = text.replace(/^\s*\$\{\{(.*)\}\}\s*$/, "$1");
    let always = false;
    const ok = body.split("&&").every((term) => {
      const t = term.trim();
      if (t === "always()") return always = true;
      const m = /^(.+?)\s*(==|!=)\s*(.+)$/.exec(t);
      if (!m) throw new Error(`the test's evaluator does not know ${t}`);
      return (lookup(m[1]) === lookup(m[3])) === (m[2] === "==");
    });
    return ok && (always || !failed);
  };
  const run: ActionRun = {
    steps: [],
    used: [],
    out: "",
    failed: false,
    outputs: {},
  };
  const temp = fs.mkdtempSync(path.join(os.tmpdir(), "action-"));
  try {
    for (const [i, step] of (action.runs.steps as Step[]).entries()) {
      const name = step.name ?? step.id ?? `step ${i}`;
      if (!condition(step.if, run.failed)) {
        run.steps.push({ name, outcome: "skipped" });
        continue;
      }
      if (step.uses) {
        const w: Record<string, string> = {};
        for (const [k, v] of Object.entries(step.with ?? {})) {
          w[k] = substitute(String(v));
        }
        run.used.push({ uses: step.uses, with: w });
        run.steps.push({ name, outcome: "used" });
        continue;
      }
      assert.equal(
        step.shell,
        "bash",
        `${name}: a composite run step names its shell`,
      );
      const script = path.join(temp, `step-${i}.sh`);
      fs.writeFileSync(script, substitute(step.run!));
      const outputFile = path.join(temp, `output-${i}`);
      fs.writeFileSync(outputFile, "");
      const env: Record<string, string> = { ...context.env };
      for (const [k, v] of Object.entries(step.env ?? {})) {
        env[k] = substitute(String(v));
      }
      Object.assign(env, {
        GITHUB_ACTIONS: "true",
        CI: "true",
        GITHUB_WORKSPACE: context.workspace,
        GITHUB_ACTION_PATH: actionDir,
        GITHUB_OUTPUT: outputFile,
        GITHUB_STEP_SUMMARY: path.join(temp, "summary.md"),
        RUNNER_TEMP: temp,
        GITHUB_EVENT_NAME: context.github.event_name ?? "pull_request",
        GITHUB_BASE_REF: context.github.base_ref ?? "",
        GITHUB_HEAD_REF: context.github.head_ref ?? "",
        GITHUB_REPOSITORY: "new-user/my-repo",
        GITHUB_SHA: context.github.sha ?? "",
      });
      const cwd = path.resolve(
        context.workspace,
        substitute(step["working-directory"] ?? "."),
      );
      // As Actions runs a bash step: bash --noprofile --norc -eo pipefail {0}.
      const r = await sh("bash", [
        "--noprofile",
        "--norc",
        "-eo",
        "pipefail",
        script,
      ], {
        cwd,
        env,
      });
      run.out += r.out + r.err;
      run.steps.push({ name, outcome: "ran", code: r.code });
      if (r.code !== 0) run.failed = true;
      if (step.id) {
        outputs[step.id] = Object.fromEntries(
          fs.readFileSync(outputFile, "utf8").split("\n").filter((l) => l.includes("=")).map(
            (l) => [l.slice(0, l.indexOf("=")), l.slice(l.indexOf("=") + 1)],
          ),
        );
      }
    }
    for (
      const [name, spec] of Object.entries(
        action.outputs as Record<string, { value: string }>,
      )
    ) {
      run.outputs[name] = substitute(spec.value);
    }
    const summary = path.join(temp, "summary.md");
    if (fs.existsSync(summary)) run.out += fs.readFileSync(summary, "utf8");
  } finally {
    fs.rmSync(temp, { recursive: true, force: true });
  }
  return run;
}

/**
 * A repository as a pull request's checkout sees it: `estate init` committed on `main` and pushed
 * to `origin`, a branch `feature` with `edit` applied and committed (without the hook), the
 * package installed as the README says (`npm install --save-dev` of the tarball).
 */
async function pullRequest(
  dir: string,
  env: Record<string, string>,
  tgz: string,
  options: { ci: "github" | "gitlab"; edit: (repo: string) => void },
): Promise<string> {
  const repo = await newRepo(dir, env);
  must(await sh("npm", ["init", "-y"], { cwd: repo, env }), "npm init");
  must(
    await sh("npm", [
      "install",
      "--save-dev",
      "--no-audit",
      "--no-fund",
      "--loglevel=error",
      tgz,
    ], { cwd: repo, env }),
    "npm install --save-dev",
  );
  must(
    await sh("npx", ["estate", "init", "--ci", options.ci], { cwd: repo, env }),
    "npx estate init",
  );
  must(await sh("git", ["add", "-A"], { cwd: repo, env }), "git add");
  must(
    await sh("git", ["commit", "-q", "-m", "Add a tool estate"], {
      cwd: repo,
      env,
    }),
    "commit",
  );
  const origin = path.join(dir, "origin.git");
  must(
    await sh("git", ["clone", "-q", "--bare", repo, origin], { cwd: dir, env }),
    "bare clone",
  );
  must(
    await sh("git", ["remote", "add", "origin", origin], { cwd: repo, env }),
    "remote add",
  );
  must(await sh("git", ["fetch", "-q", "origin"], { cwd: repo, env }), "fetch");
  must(
    await sh("git", ["checkout", "-q", "-b", "feature"], { cwd: repo, env }),
    "branch",
  );
  options.edit(repo);
  must(
    await sh("git", ["commit", "-q", "--no-verify", "-am", "An edit"], {
      cwd: repo,
      env,
    }),
    "commit the edit",
  );
  return repo;
}

function bump(repo: string, version: string): void {
  const file = path.join(repo, TOOL);
  const spec = JSON.parse(fs.readFileSync(file, "utf8"));
  spec.version = version;
  fs.writeFileSync(file, JSON.stringify(spec, null, 2) + "\n");
}

Deno.test("the Action's steps fail a pull request with a breaking edit (annotations, SARIF, a failing last step) and pass it once the version is bumped", async () => {
  const tgz = await tarball();
  await scratch(async (dir, env) => {
    const repo = await pullRequest(dir, env, tgz, {
      ci: "github",
      edit: breakingEdit,
    });
    // The workflow estate init wrote uses the installed package's action.
    const workflow = parseYaml(
      fs.readFileSync(
        path.join(repo, ".github/workflows/tool-estate.yml"),
        "utf8",
      ),
    );
    const steps = workflow.jobs["estate-check"].steps as Step[];
    const uses = steps.find((s) => s.uses?.startsWith("./node_modules/"))!;
    assert.equal(uses.uses, `./node_modules/${PACKAGE_NAME}`);
    const actionDir = path.join(repo, uses.uses!);
    const github = {
      event_name: "pull_request",
      base_ref: "main",
      head_ref: "feature",
    };
    const context = { workspace: repo, env, github };

    const failing = await runAction(actionDir, { ...uses.with }, context);
    assert.equal(failing.failed, true, failing.out);
    assert.equal(failing.outputs.result, "failed");
    assert.deepEqual(failing.steps.map((s) => s.outcome), [
      "ran",
      "used",
      "ran",
    ]);
    assert.equal(
      failing.steps[0].code,
      0,
      "the check step itself passes, so SARIF is uploaded",
    );
    assert.equal(failing.steps[2].code, 1);
    assert.match(
      failing.out,
      new RegExp(
        `^::error file=${TOOL.replaceAll(".", "\\.")},line=${versionLine(repo)},`,
        "m",
      ),
    );
    assert.match(failing.out, /### tool-estate: failed/);
    assert.equal(failing.used[0].uses, "github/codeql-action/upload-sarif@v3");
    const sarifFile = failing.used[0].with.sarif_file;
    assert.ok(path.isAbsolute(sarifFile), sarifFile);
    assertSarif(fs.readFileSync(sarifFile, "utf8"));

    // The same as estate check says: exit 1 against origin/main.
    const direct = await sh("npx", [
      "estate",
      "check",
      "--against",
      "origin/main",
    ], {
      cwd: repo,
      env,
    });
    assert.equal(direct.code, 1);

    // fail-on never: the annotations, no failure.
    const never = await runAction(actionDir, { "fail-on": "never" }, context);
    assert.equal(never.failed, false, never.out);
    assert.equal(never.outputs.result, "passed");

    // A bad input is a usage error of the check step (exit 2), with an annotation.
    const bad = await runAction(actionDir, { "fail-on": "sometimes" }, context);
    assert.equal(bad.failed, true);
    assert.equal(bad.steps[0].code, 2);
    assert.match(
      bad.out,
      /::error title=tool-estate::fail-on takes error, warning, info or never/,
    );

    bump(repo, "2.0.0");
    must(
      await sh("git", ["commit", "-q", "-am", "Bump to 2.0.0"], {
        cwd: repo,
        env,
      }),
      "the bump passes the hook",
    );
    const passing = await runAction(actionDir, { ...uses.with }, context);
    assert.equal(passing.failed, false, passing.out);
    assert.equal(passing.outputs.result, "passed");
    assert.deepEqual(passing.steps.map((s) => s.outcome), [
      "ran",
      "used",
      "skipped",
    ]);
    assert.equal(
      (await sh("npx", ["estate", "check", "--against", "origin/main"], {
        cwd: repo,
        env,
      })).code,
      0,
    );
  });
});

Deno.test("the GitLab job estate init --ci gitlab writes fails a merge request with a breaking edit, with a JUnit report, and passes it once bumped", async () => {
  const tgz = await tarball();
  await scratch(async (dir, env) => {
    const repo = await pullRequest(dir, env, tgz, {
      ci: "gitlab",
      edit: breakingEdit,
    });
    const job = parseYaml(fs.readFileSync(path.join(repo, ".gitlab-ci.yml"), "utf8"))[
      "estate-check"
    ];
    assert.equal(job.artifacts.reports.junit, "estate-check.xml");
    const gitlab = {
      ...env,
      CI: "true",
      GITLAB_CI: "true",
      CI_PIPELINE_SOURCE: "merge_request_event",
      CI_MERGE_REQUEST_TARGET_BRANCH_NAME: "main",
      CI_PROJECT_DIR: repo,
    };
    // As the runner does: the script's lines in one shell, stopping at the first failing one.
    const script = (job.script as string[]).join("\n");
    const failing = await sh("bash", ["-e", "-c", script], {
      cwd: repo,
      env: gitlab,
    });
    assert.equal(failing.code, 1, failing.out + failing.err);
    assert.match(failing.out, /version-unchanged/);
    const junit = fs.readFileSync(path.join(repo, "estate-check.xml"), "utf8");
    assert.match(junit, /<failure[^>]*>/);
    assert.match(junit, /version-unchanged/);

    bump(repo, "2.0.0");
    const passing = await sh("bash", ["-e", "-c", script], {
      cwd: repo,
      env: gitlab,
    });
    assert.equal(passing.code, 0, passing.out + passing.err);
  });
});

Deno.test("estate init never overwrites a file, prints the principal's token once and stores its hash, and writes a first tool file that is a valid spec with the published schema's $schema", async () => {
  await scratch(async (dir, env) => {
    const repo = await newRepo(dir, env);
    fs.mkdirSync(path.join(repo, "estate"));
    fs.writeFileSync(
      path.join(repo, "estate", "rules.json"),
      '{"rules": {}}\n',
    );
    const cli = [
      "run",
      "-A",
      "--config",
      path.join(ROOT, "deno.runtime.jsonc"),
      "cli.ts",
    ];
    const first = must(
      await sh(
        Deno.execPath(),
        [...cli, "init", repo, "--ci", "none", "--owner", "payments-team"],
        {
          cwd: ROOT,
          env,
        },
      ),
      "estate init",
    );
    assert.match(
      first.out,
      /kept +estate\/rules\.json +\(it exists: not overwritten\)/,
    );
    assert.match(first.out, /kept +\.gitignore/);
    assert.doesNotMatch(
      first.out,
      /add node_modules/,
      "the repository's .gitignore has it",
    );
    assert.equal(
      fs.readFileSync(path.join(repo, "estate", "rules.json"), "utf8"),
      '{"rules": {}}\n',
    );
    assert.equal(
      fs.existsSync(path.join(repo, ".github")),
      false,
      "--ci none writes no job",
    );
    const token = /^ {2}(te_[A-Za-z0-9_-]{43})$/m.exec(first.out)?.[1];
    assert.ok(token, first.out);
    const principals = JSON.parse(
      fs.readFileSync(path.join(repo, "estate", "principals.json"), "utf8"),
    );
    const digest = new Uint8Array(
      await crypto.subtle.digest("SHA-256", new TextEncoder().encode(token)),
    );
    assert.equal(
      principals[0].tokenSha256,
      [...digest].map((b) => b.toString(16).padStart(2, "0")).join(""),
    );
    assert.ok(
      !fs.readFileSync(path.join(repo, "estate", "principals.json"), "utf8")
        .includes(token),
    );

    const tool = JSON.parse(fs.readFileSync(path.join(repo, TOOL), "utf8"));
    assert.equal(tool.$schema, TOOL_SCHEMA_URL);
    assert.equal(tool.owner, "payments-team");
    parseToolSpec(tool);
    const schema = JSON.parse(
      fs.readFileSync(path.join(ROOT, "schemas/tool.schema.json"), "utf8"),
    );
    assert.equal(
      schema.$id,
      TOOL_SCHEMA_URL,
      "the schema names where it is published",
    );
    for (const field of schema.required as string[]) {
      assert.ok(field in tool, field);
    }

    // Again: everything is kept, no token is printed.
    const again = must(
      await sh(Deno.execPath(), [...cli, "init", repo, "--ci", "gitlab"], {
        cwd: ROOT,
        env,
      }),
      "estate init again",
    );
    assert.doesNotMatch(again.out, /te_/);
    assert.match(again.out, /created \.gitlab-ci\.yml/);
    assert.match(again.out, /kept +estate\/principals\.json/);
    assert.equal(
      JSON.parse(
        fs.readFileSync(path.join(repo, "estate", "principals.json"), "utf8"),
      )[0]
        .tokenSha256,
      principals[0].tokenSha256,
    );
    const bad = await sh(Deno.execPath(), [
      ...cli,
      "init",
      repo,
      "--ci",
      "jenkins",
    ], {
      cwd: ROOT,
      env,
    });
    assert.equal(bad.code, 2);
    assert.match(bad.err, /--ci takes github, gitlab, none, got "jenkins"/);
  });
});

Deno.test("the CLI's package name and version are deno.json's", () => {
  assert.equal(PACKAGE_NAME, denoJson.name);
  assert.equal(PACKAGE_VERSION, denoJson.version);
});

Deno.test("a spec refused without a subject says so once: 'Invalid tool spec: …'", () => {
  assert.throws(
    () => parseToolSpec({}),
    (e: Error) => /^Invalid tool spec: /.test(e.message),
  );
});

/** The `sh` lines of the README's "In your own repository" section, block by block. */
function ownRepositoryBlocks(): string[][] {
  const text = fs.readFileSync(path.join(ROOT, "README.md"), "utf8");
  const start = text.indexOf("\n## In your own repository\n");
  assert.ok(start >= 0, "the README has an 'In your own repository' section");
  const section = text.slice(start + 1, text.indexOf("\n## ", start + 1));
  return [...section.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((m) =>
    m[1].split("\n").map((l) => l.replace(/\s+#\s.*$/, "").trim()).filter((l) =>
      l && !l.startsWith("#")
    )
  );
}

Deno.test("the README's 'In your own repository' commands run as printed in a fresh repository beside a clone, and the breaking edit it describes fails the check", async () => {
  const [build, own] = ownRepositoryBlocks();
  assert.deepEqual(build, ["npx -y deno@2.9.6 task npm"]);
  const tgz = await tarball(); // what `task npm` builds and packs
  assert.equal(
    path.basename(tgz),
    /\.\.\/tool-estate\/dist\/(\S+\.tgz)/.exec(own[0])?.[1],
    "the README installs the tarball task npm writes",
  );
  await scratch(async (dir, env) => {
    // This clone as the README names it (../tool-estate), holding the tarball.
    fs.mkdirSync(path.join(dir, "tool-estate", "dist"), { recursive: true });
    fs.copyFileSync(
      tgz,
      path.join(dir, "tool-estate", "dist", path.basename(tgz)),
    );
    // A repository with no .gitignore: estate init writes one, so git add -A leaves node_modules.
    const repo = await newRepo(dir, env, { gitignore: false });
    for (const line of own) {
      if (line === "npx estate serve") {
        // It serves until stopped: on a free port, until it says it listens; then Ctrl-C.
        const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
        const port = (listener.addr as Deno.NetAddr).port;
        listener.close();
        // In a session of its own, so that Ctrl-C can be sent as a terminal sends it: to the
        // process group (npm exec passes no signal on to the estate it runs).
        const child = new Deno.Command("setsid", {
          args: ["sh", "-c", `exec ${line} --http 127.0.0.1:${port}`],
          cwd: repo,
          env: { NO_COLOR: "1", ...env },
          stdin: "null",
          stdout: "null",
          stderr: "piped",
        }).spawn();
        const reader = child.stderr.pipeThrough(new TextDecoderStream())
          .getReader();
        let said = "";
        let killed = false;
        const stop = setTimeout(() => {
          killed = true;
          Deno.kill(-child.pid, "SIGKILL");
        }, 60_000);
        try {
          while (!said.includes("listening on")) {
            const { value, done } = await reader.read();
            if (done) break;
            said += value;
          }
          Deno.kill(-child.pid, "SIGINT");
          for (;;) {
            const { value, done } = await reader.read();
            if (done) break;
            said += value;
          }
        } finally {
          clearTimeout(stop);
          await child.status;
        }
        assert.match(
          said,
          new RegExp(`listening on http://127\\.0\\.0\\.1:${port}/mcp`),
          said,
        );
        // Every process holding its stderr has exited (the read ended) without the fallback kill,
        // and nothing listens on the port any more.
        assert.equal(
          killed,
          false,
          `Ctrl-C did not stop it within 60 s:\n${said}`,
        );
        await assert.rejects(Deno.connect({ hostname: "127.0.0.1", port }));
        continue;
      }
      must(await sh("sh", ["-c", line], { cwd: repo, env }), line);
    }
    assert.equal(
      must(
        await sh("git", ["ls-files", "node_modules"], { cwd: repo, env }),
        "ls-files",
      ).out,
      "",
      "nothing of node_modules/ was committed",
    );
    // "remove a property": the first tool's only property goes, and the check fails at its line.
    const file = path.join(repo, TOOL);
    const spec = JSON.parse(fs.readFileSync(file, "utf8"));
    delete spec.inputSchema.properties.id;
    spec.inputSchema.required = [];
    fs.writeFileSync(file, JSON.stringify(spec, null, 2) + "\n");
    const failed = await sh("sh", ["-c", "npx estate check --against HEAD"], {
      cwd: repo,
      env,
    });
    assert.equal(failed.code, 1, failed.out + failed.err);
    assert.match(failed.out, /version must be at least 2\.0\.0/);
  });
});

Deno.test({
  name: postgresSkipReason()
    ? `npm route over a database estate (ignored: ${postgresSkipReason()})`
    : "npm route over a database estate: the installed estate migrates an init'd estate into PostgreSQL, publishes, lists and checks there as over the folder",
  ignore: postgresSkipReason() !== undefined,
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const tgz = await tarball();
    const pg = await startPostgres();
    try {
      const url = await pg.createDatabase();
      await scratch(async (dir, env) => {
        const prefix = path.join(dir, "prefix");
        must(
          await sh("npm", [
            "install",
            "-g",
            "--prefix",
            prefix,
            "--no-audit",
            "--no-fund",
            tgz,
          ], {
            cwd: dir,
            env,
          }),
          "npm install -g",
        );
        env.PATH = `${path.join(prefix, "bin")}:${env.PATH}`;
        const repo = await newRepo(dir, env);
        const run = (args: string[]) => sh("estate", args, { cwd: repo, env });
        must(await run(["init", "--ci", "none"]), "init");
        const migrated = must(
          await run(["migrate", "--from", "estate", "--to", url]),
          "migrate",
        );
        assert.match(migrated.out, /migrated 0 tools/);
        const folder = must(
          await run(["publish", TOOL]),
          "publish into the folder",
        );
        const db = must(
          await run(["publish", TOOL, "--store", url]),
          "publish into the database",
        );
        assert.equal(db.out, folder.out);
        for (
          const args of [["list"], ["list", "--principal", "example-agent"], [
            "check",
            TOOL,
          ]]
        ) {
          const a = must(await run([...args, "--json"]), args.join(" "));
          const b = must(
            await run([...args, "--json", "--store", url]),
            `${args.join(" ")} --store`,
          );
          assert.deepEqual(
            JSON.parse(b.out),
            JSON.parse(a.out),
            args.join(" "),
          );
        }
        breakingEdit(repo);
        assert.equal((await run(["check", TOOL, "--store", url])).code, 1);
      });
    } finally {
      await pg.stop();
    }
  },
});
