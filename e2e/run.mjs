// End-to-end test of the Tool Estate extension in real VS Code: code-server 4.139.1 (VS Code
// 1.139.1) on Node 24, driven headless through Debian's Chromium by playwright-core.
//
//   bash e2e/setup.sh && node e2e/run.mjs [--update-docs]
//
// VSIX=path/to.vsix tests a prebuilt package instead of running `npm run package` in extension/.
// --update-docs also copies the squiggle and quick-fix screenshots to docs/vscode-squiggle.png and
// docs/vscode-quickfix.png (the README's pictures; committed, so CI leaves them alone).
//
// One pass: package the extension, make a fresh profile, install the .vsix, start code-server on
// 127.0.0.1, then three scenarios in one browser page (a failed scenario skips its own remaining
// steps, not the next scenario's; default settings throughout, no toolEstate.estateFolder):
//   1. a fixture workspace (a copy of corpus/ plus a draft payments.lookup.tool.json at 2.1.0 with
//      a compatible change): open the draft from the Explorer, remove the `includeHistory`
//      property (a major change, so 2.1.0 is too low), wait for the squiggle and the Problems
//      entry, apply the quick fix, save, and read "version": "3.0.0" back from disk;
//   2. someone else's repository (e2e/_scratch_repo.mjs): `git init`, `estate init`, `estate
//      publish` of the example draft, an edit with several findings and a rules.json that raises
//      a severity; opened as a folder, the draft opened from the Explorer, the Problems panel
//      must list exactly what `estate check --format json` reports there (rule as
//      `tool-estate(<rule>)`, severity, message, line, column): the estate is found from
//      estate.json, and rules.json is honoured;
//   3. a multi-root .code-workspace of that repository and a second one (another edit, another
//      rules.json with an expired ignore): each folder's files show what `estate check` reports in
//      its own repository, rules.json's ignore-expired included.
// A difference is reported per repository as the findings only one side has, with every row of
// the Problems panel. Screenshots go to e2e/artifacts/ (NN-<step>.png; the repositories' Problems
// panels are estate-init-repo-problems and multi-root-problems) with code-server's log, VS Code's
// logs (extension host, the extension's output channel) and the browser console. The run folder
// (profile, workspace, scratch repositories, XDG dirs, TMPDIR) is a fresh temporary folder outside
// the repository (so no git repository encloses the workspace), removed at the end unless
// E2E_KEEP=1. The CLI runs as `deno run -A --config deno.runtime.jsonc cli.ts` (DENO=path for
// another deno). code-server and Chromium are killed at the end whatever happens; every wait is
// bounded and a watchdog ends a stuck run (E2E_TIMEOUT_MS, default 300000). The last line is
// `N passed, M failed`; the exit code is 0 only when all passed.
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import * as wb from "./_workbench.mjs";
import * as scratch from "./_scratch_repo.mjs";

// What the extension says and offers (extension/src: the server's version diagnostic and its
// quick fix). The draft is payments.lookup 2.1.0; the newest published version is 2.0.0.
const TOOL_FILE = "payments.lookup.tool.json";
const EXPECTED_DIAGNOSTIC = "version must be at least 3.0.0";
const QUICK_FIX_TITLE = "Set version to 3.0.0";
const FIXED_VERSION = "3.0.0";
// Listed (as a warning) before and after the fix.
const STILL_LISTED = "removed property includeHistory";

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, "..");
const runDir = fs.mkdtempSync(path.join(os.tmpdir(), "tool-estate-e2e-"));
const artifacts = path.join(here, "artifacts");
const cache = path.join(
  process.env.XDG_CACHE_HOME || path.join(os.homedir(), ".cache"),
  "tool-estate",
  "e2e",
);
const timeoutMs = Number(process.env.E2E_TIMEOUT_MS || 300_000);
const updateDocs = process.argv.includes("--update-docs");
// Every process this run starts carries this variable, so cleanup can find strays by it.
const MARKER = "TOOL_ESTATE_E2E_RUN";
const runId = `${process.pid}-${Date.now()}`;

const started = Date.now();
const secs = (t0) => `${((Date.now() - t0) / 1000).toFixed(1)}s`;
const log = (msg) => console.log(`[${secs(started).padStart(6)}] ${msg}`);

/** @type {{ name: string, status: "passed" | "failed" | "not run", detail?: string }[]} */
const results = [];
// A setup step failed (nothing more can run) / a step of the current scenario failed (its
// remaining steps are not run; the next scenario still runs).
let stopped = false;
let scenarioFailed = false;
/** @type {import('playwright-core').Browser | undefined} */
let browser;
/** @type {import('playwright-core').Page | undefined} */
let page;
/** @type {import('node:child_process').ChildProcess | undefined} */
let codeServer;
/** @type {import('node:fs').WriteStream | undefined} */
let consoleLog;
let shotIndex = 0;

// --- helpers ---------------------------------------------------------------------------------

/** Starts a scenario: its checks run even when an earlier scenario failed. */
function scenario(title) {
  scenarioFailed = false;
  log(`--- ${title}`);
}

/**
 * Runs one check; after a failure the scenario's remaining checks are recorded as not run (all
 * remaining checks, when `setup`: the run cannot go on without it).
 */
async function check(name, fn, { setup = false } = {}) {
  if (stopped || scenarioFailed) {
    results.push({ name, status: "not run" });
    return undefined;
  }
  const t0 = Date.now();
  try {
    const detail = await fn();
    results.push({ name, status: "passed", detail });
    log(`ok   ${name} (${secs(t0)})${detail ? `: ${detail}` : ""}`);
    return detail;
  } catch (error) {
    scenarioFailed = true;
    if (setup) stopped = true;
    const [message, ...more] = (error instanceof Error ? error.message : String(error)).split("\n");
    results.push({ name, status: "failed", detail: message });
    log(`FAIL ${name} (${secs(t0)}): ${message}`);
    for (const line of more) console.log(`         ${line}`);
    await shot("failure");
    return undefined;
  }
}

/** Saves a numbered screenshot in e2e/artifacts/ and returns its path (or undefined). */
async function shot(name) {
  if (!page) return undefined;
  const file = path.join(artifacts, `${String(++shotIndex).padStart(2, "0")}-${name}.png`);
  try {
    await page.screenshot({ path: file, timeout: 10_000 });
    return file;
  } catch (error) {
    log(`(screenshot ${name} failed: ${error.message.split("\n")[0]})`);
    return undefined;
  }
}

/** Runs a command to completion with a time limit; throws with the output's tail on failure. */
function run(cmd, args, options) {
  const t0 = Date.now();
  const r = spawnSync(cmd, args, { encoding: "utf8", killSignal: "SIGKILL", ...options });
  const out = `${r.stdout ?? ""}${r.stderr ?? ""}`;
  if (r.error || r.status !== 0) {
    const why = r.error ? r.error.message : `exit ${r.status ?? r.signal}`;
    throw new Error(`${cmd} ${args.join(" ")}: ${why} after ${secs(t0)}\n${out.slice(-2000)}`);
  }
  return out;
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `fn` until it returns a truthy value or `ms` pass; returns the last value. */
async function poll(fn, ms, every = 250) {
  const end = Date.now() + ms;
  for (;;) {
    const value = await fn();
    if (value || Date.now() > end) return value;
    await sleep(every);
  }
}

/** Races a promise against a time limit. */
function within(promise, ms, what) {
  let timer;
  return Promise.race([
    promise,
    new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

// --- fixture ---------------------------------------------------------------------------------

/**
 * The draft: payments.lookup 2.0.0 bumped to 2.1.0 with a new optional property (a minor change,
 * so 2.1.0 is right). Returns its text and the lines the test edits.
 */
function draftTool() {
  const published = JSON.parse(
    fs.readFileSync(path.join(root, "corpus/tools/payments.lookup/2.0.0.json"), "utf8"),
  );
  const draft = structuredClone(published);
  draft.version = "2.1.0";
  draft.inputSchema.properties.includeFees = {
    type: "boolean",
    default: false,
    description: "Also return the fees charged.",
  };
  const text = `${JSON.stringify(draft, null, 2)}\n`;
  const lines = text.split("\n");
  const start = lines.findIndex((l) => l.trim() === '"includeHistory": {');
  const indent = lines[start].match(/^ */)[0];
  const end = lines.findIndex((l, i) => i > start && l === `${indent}},`);
  const versionLine = lines.findIndex((l) => l.trim().startsWith('"version":'));
  if (start < 0 || end < 0 || versionLine < 0) throw new Error("fixture: unexpected layout");
  return {
    text,
    // 1-based, inclusive: the whole `"includeHistory": { ... },` block.
    removeFrom: start + 1,
    removeTo: end + 1,
    versionLine: versionLine + 1,
    // Inside the version's value, `"2.1.0"`.
    versionColumn: lines[versionLine].indexOf('"2.1.0"') + 3,
  };
}

/** Fresh profile (user data, extensions, XDG dirs, TMPDIR) and workspace in the run folder. */
function makeRunFolder(draft) {
  const dirs = {
    ws: path.join(runDir, "workspace"),
    user: path.join(runDir, "user-data"),
    ext: path.join(runDir, "extensions"),
    config: path.join(runDir, "xdg/config"),
    data: path.join(runDir, "xdg/data"),
    cache: path.join(runDir, "xdg/cache"),
    tmp: path.join(runDir, "tmp"),
  };
  for (const dir of Object.values(dirs)) fs.mkdirSync(dir, { recursive: true });
  fs.cpSync(path.join(root, "corpus"), path.join(dirs.ws, "corpus"), { recursive: true });
  fs.writeFileSync(path.join(dirs.ws, TOOL_FILE), draft.text);
  fs.mkdirSync(path.join(dirs.user, "User"), { recursive: true });
  fs.writeFileSync(
    path.join(dirs.user, "User/settings.json"),
    JSON.stringify(
      {
        "workbench.startupEditor": "none",
        "security.workspace.trust.enabled": false,
        "telemetry.telemetryLevel": "off",
        "extensions.autoCheckUpdates": false,
        "extensions.autoUpdate": false,
        "extensions.ignoreRecommendations": true,
        "update.mode": "none",
        "workbench.tips.enabled": false,
        "workbench.enableExperiments": false,
        "workbench.secondarySideBar.defaultVisibility": "hidden",
        "chat.disableAIFeatures": true,
        "json.schemaDownload.enable": false,
        "git.openRepositoryInParentFolders": "never",
        "files.autoSave": "off",
        "editor.minimap.enabled": false,
      },
      null,
      2,
    ),
  );
  return dirs;
}

// --- the extension ---------------------------------------------------------------------------

/** VSIX=path, else `npm run package` in extension/ (after `npm ci` when node_modules is missing). */
function packageExtension() {
  if (process.env.VSIX) {
    const vsix = path.resolve(process.env.VSIX);
    if (!fs.existsSync(vsix)) throw new Error(`VSIX=${vsix} does not exist`);
    return vsix;
  }
  const ext = path.join(root, "extension");
  const manifest = path.join(ext, "package.json");
  if (!fs.existsSync(manifest)) {
    throw new Error(`no ${manifest}: build the extension first or set VSIX=path/to.vsix`);
  }
  const pkg = JSON.parse(fs.readFileSync(manifest, "utf8"));
  if (!pkg.scripts?.package) throw new Error(`${manifest} has no "package" script`);
  if (!fs.existsSync(path.join(ext, "node_modules"))) {
    const install = fs.existsSync(path.join(ext, "package-lock.json")) ? "ci" : "install";
    log(`npm ${install} in extension/`);
    run("npm", [install, "--no-audit", "--no-fund"], { cwd: ext, timeout: 300_000 });
  }
  const t0 = Date.now();
  run("npm", ["run", "package"], { cwd: ext, timeout: 180_000 });
  const vsix = newestVsix(ext, t0);
  if (!vsix) throw new Error("npm run package made no .vsix in extension/");
  return vsix;
}

/** The newest .vsix in `dir` (where vsce writes by default) written since `since`. */
function newestVsix(dir, since) {
  let best;
  for (const name of fs.readdirSync(dir)) {
    if (!name.endsWith(".vsix")) continue;
    const file = path.join(dir, name);
    const mtime = fs.statSync(file).mtimeMs;
    if (mtime >= since - 1000 && (!best || mtime > best.mtime)) best = { file, mtime };
  }
  return best?.file;
}

// --- processes -------------------------------------------------------------------------------

function loadTools() {
  const file = process.env.E2E_TOOLS || path.join(cache, "tools.json");
  if (!fs.existsSync(file)) throw new Error(`${file} is missing: run bash e2e/setup.sh first`);
  const tools = JSON.parse(fs.readFileSync(file, "utf8"));
  for (const key of ["node24", "codeServer", "playwrightCore", "chromium"]) {
    if (!tools[key] || !fs.existsSync(tools[key])) {
      throw new Error(`${file}: ${key} (${tools[key]}) is missing: run bash e2e/setup.sh`);
    }
  }
  return tools;
}

function childEnv(tools, dirs) {
  return {
    ...process.env,
    PATH: `${path.dirname(tools.node24)}${path.delimiter}${process.env.PATH}`,
    XDG_CONFIG_HOME: dirs.config,
    XDG_DATA_HOME: dirs.data,
    XDG_CACHE_HOME: dirs.cache,
    TMPDIR: dirs.tmp,
    [MARKER]: runId,
  };
}

async function startCodeServer(tools, dirs, env) {
  const port = await freePort();
  const logFile = fs.openSync(path.join(artifacts, "code-server.log"), "w");
  codeServer = spawn(
    tools.codeServer,
    [
      "--auth=none",
      `--bind-addr=127.0.0.1:${port}`,
      `--user-data-dir=${dirs.user}`,
      `--extensions-dir=${dirs.ext}`,
      "--disable-telemetry",
      "--disable-update-check",
      "--disable-workspace-trust",
      "--disable-getting-started-override",
      dirs.ws,
    ],
    { env, stdio: ["ignore", logFile, logFile], detached: true },
  );
  fs.closeSync(logFile);
  let exited;
  codeServer.on("exit", (code, signal) => (exited = `exit ${code ?? signal}`));
  const healthy = await poll(async () => {
    if (exited) return true;
    try {
      const r = await fetch(`http://127.0.0.1:${port}/healthz`, {
        signal: AbortSignal.timeout(2_000),
      });
      return r.ok;
    } catch {
      return false;
    }
  }, 30_000);
  if (exited) {
    throw new Error(`code-server ended at start (${exited}); see artifacts/code-server.log`);
  }
  if (!healthy) throw new Error("code-server's /healthz did not answer within 30 s");
  return port;
}

/** Stops the browser and code-server, then any process still carrying this run's marker. */
async function cleanup() {
  if (page) {
    await within(page.close(), 5_000, "page.close()").catch(() => {});
    page = undefined;
  }
  if (browser) {
    await within(browser.close(), 10_000, "browser.close()").catch(() => {});
    browser = undefined;
  }
  if (codeServer?.pid && codeServer.exitCode === null && codeServer.signalCode === null) {
    const group = -codeServer.pid;
    try {
      process.kill(group, "SIGTERM");
    } catch { /* already gone */ }
    const gone = await poll(
      () => codeServer.exitCode !== null || codeServer.signalCode !== null,
      5_000,
    );
    if (!gone) {
      try {
        process.kill(group, "SIGKILL");
      } catch { /* already gone */ }
    }
  }
  // Children that left code-server's process group (or a Chromium Playwright failed to reap).
  for (const pid of markedProcesses()) {
    try {
      process.kill(pid, "SIGKILL");
      log(`killed stray process ${pid}`);
    } catch { /* already gone */ }
  }
}

function markedProcesses() {
  const needle = `${MARKER}=${runId}\0`;
  const pids = [];
  for (const name of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      if (fs.readFileSync(`/proc/${name}/environ`, "latin1").includes(needle)) pids.push(+name);
    } catch { /* exited, or not ours to read */ }
  }
  return pids;
}

// --- the test --------------------------------------------------------------------------------

async function main() {
  fs.rmSync(artifacts, { recursive: true, force: true });
  fs.mkdirSync(artifacts, { recursive: true });
  const draft = draftTool();
  const dirs = makeRunFolder(draft);
  const toolPath = path.join(dirs.ws, TOOL_FILE);
  // Playwright's temporary Chromium profile goes to os.tmpdir(): keep it in the run folder too.
  process.env.TMPDIR = dirs.tmp;
  let tools, env, vsix, port;

  await check("setup: tools from e2e/setup.sh are present", () => {
    tools = loadTools();
    env = childEnv(tools, dirs);
    return undefined;
  }, { setup: true });

  await check("the extension packages into a .vsix", () => {
    vsix = packageExtension();
    return `${path.relative(root, vsix)} (${Math.round(fs.statSync(vsix).size / 1024)} KB)`;
  }, { setup: true });

  await check("code-server installs the .vsix", () => {
    const out = run(
      tools.codeServer,
      [`--user-data-dir=${dirs.user}`, `--extensions-dir=${dirs.ext}`, "--install-extension", vsix],
      { env, timeout: 120_000 },
    );
    if (!/successfully installed/i.test(out)) throw new Error(`unexpected output: ${out.trim()}`);
    return out.trim().split("\n").at(-1);
  }, { setup: true });

  await check("code-server serves the workbench and Chromium loads it", async () => {
    port = await startCodeServer(tools, dirs, env);
    const req = createRequire(path.join(tools.playwrightCore, "package.json"));
    const { chromium } = req(tools.playwrightCore);
    browser = await chromium.launch({
      executablePath: tools.chromium,
      env,
      timeout: 60_000,
      args: [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
      ],
    });
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    page = await context.newPage();
    page.setDefaultTimeout(15_000);
    consoleLog = fs.createWriteStream(path.join(artifacts, "browser-console.log"));
    page.on("console", (m) => consoleLog.write(`${m.type()}: ${m.text()}\n`));
    page.on("pageerror", (e) => consoleLog.write(`pageerror: ${e.message}\n`));
    // Leaving a workspace (scenarios 2 and 3) must not be held up by a "leave the page?" prompt.
    page.on("dialog", (d) => (d.type() === "beforeunload" ? d.accept() : d.dismiss()));
    const url = `http://127.0.0.1:${port}/?folder=${encodeURIComponent(dirs.ws)}`;
    await page.goto(url, { timeout: 30_000 });
    await wb.waitForWorkbench(page, 60_000);
    await shot("workbench");
    return `port ${port}`;
  }, { setup: true });

  scenario("a copy of corpus/ with a draft: squiggle, Problems, hover, quick fix");
  await check(`${TOOL_FILE} opens from the Explorer`, async () => {
    await wb.openFromExplorer(page, TOOL_FILE, 15_000);
    await shot("tool-file-open");
  });

  await check("removing includeHistory puts an error squiggle on version", async () => {
    await wb.focusEditor(page);
    await wb.deleteLines(page, draft.removeFrom, draft.removeTo);
    const t0 = Date.now();
    await wb.waitForSquiggleOnLine(page, '"version"', 60_000);
    return `after ${secs(t0)}`;
  });

  await check(`Problems lists "${EXPECTED_DIAGNOSTIC}"`, async () => {
    const row = await wb.problemsRow(page, EXPECTED_DIAGNOSTIC, 15_000);
    await shot("problems");
    await wb.goTo(page, draft.versionLine, draft.versionColumn);
    await wb.showHover(page, EXPECTED_DIAGNOSTIC, 10_000);
    const file = await shot("squiggle-hover");
    if (file && updateDocs) fs.copyFileSync(file, path.join(root, "docs/vscode-squiggle.png"));
    return row;
  });

  await check(`the quick fix "${QUICK_FIX_TITLE}" is offered on version`, async () => {
    await wb.goTo(page, draft.versionLine, draft.versionColumn);
    const titles = await wb.openQuickFix(page, QUICK_FIX_TITLE, 15_000);
    const file = await shot("quick-fix");
    if (file && updateDocs) fs.copyFileSync(file, path.join(root, "docs/vscode-quickfix.png"));
    return titles.join(" | ");
  });

  await check(`applying it and saving writes "version": "${FIXED_VERSION}" to disk`, async () => {
    await wb.applyQuickFix(page, QUICK_FIX_TITLE);
    await wb.save(page, 10_000);
    const saved = await poll(() => {
      try {
        return JSON.parse(fs.readFileSync(toolPath, "utf8")).version === FIXED_VERSION;
      } catch {
        return false; // mid-write
      }
    }, 10_000);
    const onDisk = JSON.parse(fs.readFileSync(toolPath, "utf8"));
    if (!saved) throw new Error(`version on disk is ${onDisk.version}, not ${FIXED_VERSION}`);
    if ("includeHistory" in onDisk.inputSchema.properties) {
      throw new Error("includeHistory is still on disk: the edit was not saved");
    }
    return `"version": "${onDisk.version}", includeHistory gone`;
  });

  await check("the version diagnostic and its squiggle are gone after the fix", async () => {
    // The removed property is still reported (as a change, not an error): its row proves the
    // panel shows the re-checked file rather than an empty list between two renders.
    const cleared = await poll(async () => {
      const rows = await wb.problemsRows(page);
      return rows.some((r) => r.includes(STILL_LISTED)) &&
        !rows.some((r) => r.includes(EXPECTED_DIAGNOSTIC));
    }, 15_000);
    await shot("after-fix");
    const rows = await wb.problemsRows(page);
    if (!cleared) throw new Error(`Problems after the fix: ${rows.join(" | ") || "(none)"}`);
    if (await wb.hasSquiggleOnLine(page, '"version"')) {
      throw new Error("an error squiggle is still on the version line");
    }
    return `remaining: ${rows.join(" | ")}`;
  });

  await estateRepos(port);
}

// --- someone else's repository: estate init, no corpus, no settings -------------------------

/**
 * The scratch repositories: what each edit and rules.json is, and what `estate check` must say
 * there before the editor is compared with it (so that two empty lists never pass, and rules.json
 * is seen to be read).
 */
const REPOS = {
  alpha: {
    // The published example with id now an integer, its minLength gone and a new optional
    // property, still at 1.0.0: immutable (error), type-narrowed (warning), and type-widened,
    // bound-loosened, property-added (info, but rules.json raises type-widened to a warning).
    edit(draft) {
      const props = draft.inputSchema.properties;
      props.id.type = "integer";
      delete props.id.minLength;
      props.limit = { type: "integer", description: "At most this many records." };
    },
    rules: { rules: { "type-widened": "warning" }, ignore: [] },
    musts: [
      ["immutable", "error"],
      ["type-narrowed", "warning"],
      ["type-widened", "warning"],
      ["property-added", "info"],
    ],
  },
  beta: {
    // 1.1.0 with a new required property (major: version-too-low) and a new optional one (info,
    // raised to an error by rules.json), and an expired ignore: ignore-expired on rules.json.
    edit(draft) {
      draft.version = "1.1.0";
      draft.inputSchema.properties.region = { type: "string", description: "The region." };
      draft.inputSchema.properties.verbose = { type: "boolean", description: "Say more." };
      draft.inputSchema.required.push("region");
    },
    rules: {
      rules: { "property-added": "error" },
      ignore: [{ rule: "bound-loosened", reason: "an old migration", expires: "2020-01-31" }],
    },
    musts: [
      ["version-too-low", "error"],
      ["required-added", "warning"],
      ["property-added", "error"],
      ["ignore-expired", "error", "estate/rules.json"],
    ],
  },
};

/**
 * The Problems panel's markers from `source` as findings of the repositories in `repos` (by the
 * folder in each file row's label); markers from other sources, and of files in none of them,
 * are returned apart.
 * @param {import('playwright-core').Page} page
 * @param {{ name: string, dir: string }[]} repos
 * @param {boolean} multiRoot whether the workspace is the repositories as its folders
 */
async function shownFindings(page, repos, multiRoot) {
  const markers = await wb.problemsMarkers(page);
  /** @type {Record<string, scratch.Finding[]>} */
  const byRepo = Object.fromEntries(repos.map((r) => [r.name, []]));
  const others = [];
  for (const m of markers) {
    const where = fileOfRow(m.file, repos, multiRoot);
    if (m.source !== SOURCE || !where) {
      others.push(`${m.file}: ${m.text}`);
      continue;
    }
    byRepo[where.repo].push({
      file: where.file,
      rule: m.code,
      severity: m.severity,
      message: m.message,
      line: m.line,
      column: m.column,
    });
  }
  return { byRepo, others, markers };
}

/** The diagnostics' source, as the Problems panel prints it before `(rule)`. */
const SOURCE = "tool-estate";

/**
 * The repository and the repository-relative path of a Problems file row, from its aria-label
 * ("5 problems in file example.lookup.tool.json of folder tools", without " of folder …" at the
 * top; in a multi-root workspace the folder is "alpha • tools", the workspace folder's name first).
 */
function fileOfRow(label, repos, multiRoot) {
  const m = /in file (.+?)(?: of folder (.+))?$/.exec(label);
  if (!m) return undefined;
  const [, name, folder = ""] = m;
  let parts = folder.split(/\s*[•/\\]\s*/).filter(Boolean);
  let repo = repos[0].name;
  if (multiRoot) {
    if (!repos.some((r) => r.name === parts[0])) return undefined;
    [repo, ...parts] = parts;
  }
  return { repo, file: [...parts, name].join("/") };
}

/**
 * Waits until the Problems panel shows, for each repository, exactly what `estate check` said
 * there; throws with the difference when it does not within `ms`.
 */
async function waitForSameFindings(page, repos, multiRoot, ms) {
  let last;
  // The list is virtual: only rows in view exist. A maximized panel holds them all.
  await wb.maximizePanel(page);
  const same = await poll(
    async () => {
      last = await shownFindings(page, repos, multiRoot);
      return repos.every((r) => !scratch.diffFindings(r.expected, last.byRepo[r.name]));
    },
    ms,
    500,
  );
  if (!same) {
    const diffs = repos.map((r) => {
      const d = scratch.diffFindings(r.expected, last.byRepo[r.name]);
      return d ? `${r.name} (${r.dir}): ${d}` : `${r.name}: same`;
    });
    const rows = last.markers.map((m) =>
      `  [${m.file}] Ln ${m.line}, Col ${m.column} ${m.severity} ${m.source}(${m.code}): ${m.message}`
    );
    throw new Error(
      [
        `after ${ms / 1000} s the Problems panel still differs from estate check`,
        ...diffs,
        "Problems rows:",
        ...(rows.length ? rows : ["  (none)"]),
      ].join("\n"),
    );
  }
  const count = repos.map((r) => `${r.name} ${r.expected.length}`).join(", ");
  const others = last.others.length ? `; not ours: ${last.others.join(" | ")}` : "";
  return `${count} findings, same rule, severity, message, line and column${others}`;
}

/** Makes a repository from REPOS[name] and takes `estate check`'s findings there. */
function makeScratchRepo(base, name) {
  const spec = REPOS[name];
  const dir = scratch.makeRepo(root, path.join(base, name), spec);
  // Someone else's repository: outside this one, no corpus/, no deno.json.
  if (!path.relative(root, dir).startsWith("..")) throw new Error(`${dir} is inside ${root}`);
  for (const absent of ["corpus", "deno.json"]) {
    if (fs.existsSync(path.join(dir, absent))) throw new Error(`${dir} has ${absent}`);
  }
  const expected = scratch.checkFindings(root, dir);
  const missing = spec.musts.filter(([rule, severity, file = scratch.DRAFT]) =>
    !expected.some((f) => f.rule === rule && f.severity === severity && f.file === file)
  );
  if (missing.length) {
    throw new Error(
      `estate check in ${name} lacks ${missing.map((m) => m.join(" ")).join(", ")}:\n${
        expected.map(scratch.formatFinding).join("\n")
      }`,
    );
  }
  return { name, dir, expected };
}

/**
 * Scenarios 2 and 3: the .vsix in repositories made by `estate init` (no corpus/, no deno.json,
 * no toolEstate.estateFolder), one opened as a folder, then both as a multi-root workspace.
 */
async function estateRepos(port) {
  scenario("a repository made by estate init, opened as a folder");
  const base = path.join(runDir, "repos");
  let alpha, beta;
  await check("estate init, publish, edit, rules.json: estate check reports", () => {
    alpha = makeScratchRepo(base, "alpha");
    beta = makeScratchRepo(base, "beta");
    return [alpha, beta].map((r) =>
      `${r.name}: ${r.expected.map((f) => `${f.rule} ${f.severity}`).join(", ")}`
    ).join("; ");
  });

  await check("VS Code opens the repository; the draft opens from the Explorer", async () => {
    await page.goto(`http://127.0.0.1:${port}/?folder=${encodeURIComponent(alpha.dir)}`, {
      timeout: 30_000,
    });
    await wb.waitForWorkbench(page, 60_000);
    await wb.openPathFromExplorer(page, scratch.DRAFT.split("/"), 15_000);
  });

  await check("Problems shows what estate check reports in the repository", async () => {
    const detail = await waitForSameFindings(page, [alpha], false, 60_000);
    await shot("estate-init-repo-problems");
    return detail;
  });

  scenario("a multi-root workspace of two estate init repositories");
  await check("VS Code opens the .code-workspace; both drafts open from the Explorer", async () => {
    if (!alpha || !beta) throw new Error("the repositories were not made");
    const file = path.join(base, "estates.code-workspace");
    fs.writeFileSync(
      file,
      JSON.stringify({ folders: [{ path: "alpha" }, { path: "beta" }], settings: {} }, null, 2),
    );
    // code-server now and then opens a workspace with no folders ("You have not yet added a folder
    // to the workspace") when a folder window was open just before; loading it again shows them.
    // One more load is allowed, never more, and each attempt is bounded.
    for (let attempt = 1;; attempt++) {
      await page.goto(`http://127.0.0.1:${port}/?workspace=${encodeURIComponent(file)}`, {
        timeout: 30_000,
      });
      try {
        await wb.waitForWorkbench(page, 30_000);
        break;
      } catch (e) {
        if (attempt === 2) throw e;
        await shot("multi-root-empty-workspace-reloaded");
      }
    }
    for (const repo of [alpha, beta]) {
      await wb.openPathFromExplorer(page, [repo.name, ...scratch.DRAFT.split("/")], 15_000);
    }
  });

  await check(
    "Problems shows, for each folder, what estate check reports in its repository",
    async () => {
      const detail = await waitForSameFindings(page, [alpha, beta], true, 60_000);
      await shot("multi-root-problems");
      return detail;
    },
  );
}

/** Copies VS Code's logs (extension host, the extension's output channel) into the artifacts. */
function keepLogs() {
  try {
    const logs = path.join(runDir, "user-data", "logs");
    if (fs.existsSync(logs)) {
      fs.cpSync(logs, path.join(artifacts, "vscode-logs"), { recursive: true });
    }
  } catch (error) {
    log(`(copying VS Code's logs failed: ${error.message})`);
  }
}

// --- entry -----------------------------------------------------------------------------------

function summary() {
  const count = (s) => results.filter((r) => r.status === s).length;
  const notRun = count("not run");
  if (notRun) log(`${notRun} not run after a failure`);
  log(`artifacts: ${path.relative(process.cwd(), artifacts) || "."}`);
  console.log(`${count("passed")} passed, ${count("failed")} failed`);
  return count("failed") === 0 && notRun === 0 && results.length > 0 ? 0 : 1;
}

let finishing = false;
async function finish(extraFailure) {
  if (finishing) return;
  finishing = true;
  if (extraFailure) {
    stopped = true;
    results.push({ name: extraFailure, status: "failed" });
    log(`FAIL ${extraFailure}`);
  }
  await within(cleanup(), 20_000, "cleanup").catch((e) => log(`cleanup: ${e.message}`));
  consoleLog?.end();
  keepLogs();
  if (process.env.E2E_KEEP === "1") log(`run folder kept: ${runDir}`);
  else fs.rmSync(runDir, { recursive: true, force: true });
  process.exit(summary());
}

const watchdog = setTimeout(
  () => finish(`watchdog: the run took more than ${timeoutMs} ms`),
  timeoutMs,
);
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) {
  process.on(signal, () => finish(`interrupted by ${signal}`));
}
main()
  .catch((error) => {
    stopped = true;
    results.push({ name: "harness", status: "failed", detail: error.message });
    log(`FAIL harness: ${error.stack}`);
  })
  .finally(() => {
    clearTimeout(watchdog);
    return finish();
  });
