// End-to-end test of the web console that `estate serve` serves at /console, driven headless
// through Debian's Chromium by playwright-core, with axe-core's accessibility checks.
//
//   bash e2e/setup.sh && node e2e/console.mjs [--update-docs]
//
// --update-docs also copies the tool page's screenshot to docs/console.png (the README's picture;
// committed, so CI leaves it alone).
//
// One pass over a scratch estate (a copy of corpus/ with examples/pending-calls/: its principals,
// its approval rule for payments.release above 1,000,000, and the approvals.* tools published) and
// one `estate serve --http 127.0.0.1:0` on it:
//   0. the sign-in form, posted as Chromium posts it, signs in (every later scenario signs in the
//      same way, so nothing more runs when it does not; the failure names the Origin the browser
//      sent and the page's Referrer-Policy: under `no-referrer` Chromium posts forms with
//      `Origin: null`, which the server's Origin guard refuses);
//   1. two principals see different estates: retail-agent and wholesale-operator sign in through
//      the form in two browser contexts; each one's estate table lists exactly the tools the MCP
//      endpoint's own tools/list gives that bearer token (an oracle that is not the console), and
//      the two lists differ; the estate's Server filter has one option per choice;
//   2. a hidden tool's page (and its diff) answers exactly like a nonexistent one's (404,
//      byte-identical body);
//   3. a publish from the CLI appears live: retail-agent's estate page shows the new tool without a
//      reload (window.__noReload survives); wholesale-operator's page never shows it;
//   4. a major version published from the CLI: the tool page's compare form leads to a diff page
//      with a major bump and a witness (a call the old version accepts and the new one refuses);
//   5. an approver approves a held call: e2e/console_caller.ts calls payments.release over MCP as
//      wholesale-operator (2,450,000 EUR, above the rule's threshold) and waits; treasury-lead sees
//      the pending row appear on /console/approvals, approves it, and the caller's call completes;
//      the servers and audit pages answer;
//   6. axe-core finds no serious or critical violation on the sign-in, estate, tool, diff, servers,
//      approvals (with a second held call's decide form) and audit pages;
//   7. signing out from the header ends the session.
// A failed scenario skips its own remaining steps, not the next scenario's. Screenshots go to
// e2e/artifacts/console-NN-<step>.png, with the server's output (console-serve.log) and the
// callers' (console-caller.log, console-caller-2.log). The run folder (the scratch estate, the tool files published, XDG
// dirs, TMPDIR) is a fresh temporary folder outside the repository, removed at the end unless
// E2E_KEEP=1. The CLI runs as `deno run -A --config deno.runtime.jsonc cli.ts` (DENO=path for
// another deno). The server, the caller and Chromium are killed at the end whatever happens; every
// wait is bounded and a watchdog ends a stuck run (E2E_TIMEOUT_MS, default 240000). The last line
// is `N passed, M failed`; the exit code is 0 only when all passed.
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import readline from "node:readline";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

// The principals (examples/pending-calls/principals.json; `estate serve` prints the demo tokens).
const RETAIL = { id: "retail-agent", token: "demo-token-retail-agent" };
const WHOLESALE = { id: "wholesale-operator", token: "demo-token-wholesale-operator" };
const TREASURY = { id: "treasury-lead", token: "demo-token-treasury-lead" };
// Hidden from retail-agent (tenants: wholesale), and a name no version has.
const HIDDEN_FROM_RETAIL = "payments.release";
const NO_SUCH_TOOL = "no.such.tool";
// The tool the run publishes: retail.transfers.lookup 1.1.0 renamed (tenants: retail), then a
// 2.0.0 without its optional `includeFees` (a removed property: major).
const NEW_TOOL = "retail.statements.list";
const REMOVED_PROPERTY = "includeFees";
// Above the approval rule's 1,000,000 (examples/pending-calls/estate.json).
const HELD_CALL = { reference: "PMT-004211", approvedAmount: 2450000, currency: "EUR" };
const SECOND_HELD_CALL = { reference: "PMT-004212", approvedAmount: 1250000, currency: "EUR" };

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, "..");
const runDir = fs.mkdtempSync(path.join(os.tmpdir(), "tool-estate-console-e2e-"));
const artifacts = path.join(here, "artifacts");
const cache = path.join(
  process.env.XDG_CACHE_HOME || path.join(os.homedir(), ".cache"),
  "tool-estate",
  "e2e",
);
const timeoutMs = Number(process.env.E2E_TIMEOUT_MS || 240_000);
const updateDocs = process.argv.includes("--update-docs");
const deno = process.env.DENO || "deno";
const CLI = ["run", "-A", "--config", "deno.runtime.jsonc", "cli.ts"];
// Every process this run starts carries this variable, so cleanup can find strays by it.
const MARKER = "TOOL_ESTATE_E2E_RUN";
const runId = `${process.pid}-${Date.now()}`;

const started = Date.now();
const secs = (t0) => `${((Date.now() - t0) / 1000).toFixed(1)}s`;
const log = (msg) => console.log(`[${secs(started).padStart(6)}] ${msg}`);

/** @type {{ name: string, status: "passed" | "failed" | "not run", detail?: string }[]} */
const results = [];
let stopped = false;
let scenarioFailed = false;
/** @type {import('playwright-core').Browser | undefined} */
let browser;
/** The page a failure's screenshot shows. @type {import('playwright-core').Page | undefined} */
let current;
/** @type {import('node:child_process').ChildProcess[]} */
const children = [];
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
    await shot(current, "failure");
    return undefined;
  }
}

/** Saves a numbered screenshot e2e/artifacts/console-NN-name.png and returns its path. */
async function shot(page, name) {
  if (!page || page.isClosed()) return undefined;
  const file = path.join(artifacts, `console-${String(++shotIndex).padStart(2, "0")}-${name}.png`);
  try {
    await page.screenshot({ path: file, fullPage: true, timeout: 10_000 });
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

const sorted = (names) => [...names].sort();
const same = (a, b) => a.length === b.length && a.every((x, i) => x === b[i]);
/** What only one side has, for a failure message. */
function difference(aName, a, bName, b) {
  const onlyA = a.filter((x) => !b.includes(x));
  const onlyB = b.filter((x) => !a.includes(x));
  return `only ${aName}: [${onlyA.join(", ")}]; only ${bName}: [${onlyB.join(", ")}]`;
}

// --- the estate and the server ---------------------------------------------------------------

function loadTools() {
  const file = process.env.E2E_TOOLS || path.join(cache, "tools.json");
  if (!fs.existsSync(file)) throw new Error(`${file} is missing: run bash e2e/setup.sh first`);
  const tools = JSON.parse(fs.readFileSync(file, "utf8"));
  for (const key of ["playwrightCore", "chromium", "axeCore"]) {
    if (!tools[key] || !fs.existsSync(tools[key])) {
      throw new Error(`${file}: ${key} (${tools[key]}) is missing: run bash e2e/setup.sh`);
    }
  }
  return tools;
}

function childEnv() {
  const dirs = {
    XDG_CONFIG_HOME: path.join(runDir, "xdg/config"),
    XDG_DATA_HOME: path.join(runDir, "xdg/data"),
    TMPDIR: path.join(runDir, "tmp"),
  };
  for (const dir of Object.values(dirs)) fs.mkdirSync(dir, { recursive: true });
  // Deno's own cache (DENO_DIR, else under XDG_CACHE_HOME) stays where it is: the runtime
  // dependencies are already there.
  return { ...process.env, ...dirs, NO_COLOR: "1", [MARKER]: runId };
}

/** `estate publish FILE --estate DIR`; returns the CLI's output. */
function publish(env, estate, file) {
  return run(deno, [...CLI, "publish", file, "--estate", estate], {
    cwd: root,
    env,
    timeout: 60_000,
  }).trim();
}

/** The scratch estate: corpus/ plus examples/pending-calls/ (principals, rule, approvals tools). */
function makeEstate(env) {
  const estate = path.join(runDir, "estate");
  fs.cpSync(path.join(root, "corpus"), estate, { recursive: true });
  const example = path.join(root, "examples/pending-calls");
  for (const name of ["principals.json", "estate.json"]) {
    fs.copyFileSync(path.join(example, name), path.join(estate, name));
  }
  const out = [];
  for (const name of fs.readdirSync(example).filter((n) => /^approvals\..*\.tool\.json$/.test(n))) {
    out.push(publish(env, estate, path.join(example, name)));
  }
  if (out.length === 0) throw new Error(`no approvals.*.tool.json in ${example}`);
  return { estate, detail: out.join("; ") };
}

/** Spawns a process in its own group, marked, with its output teed to a log in the artifacts. */
function spawnLogged(cmd, args, env, logName) {
  const child = spawn(cmd, args, {
    cwd: root,
    env,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  const logStream = fs.createWriteStream(path.join(artifacts, logName));
  child.stdout.pipe(logStream, { end: false });
  child.stderr.pipe(logStream, { end: false });
  child.on("exit", () => setTimeout(() => logStream.end(), 100));
  return child;
}

/** `estate serve --http 127.0.0.1:0`; resolves to the URL it prints (`URL: http://…/mcp`). */
async function startServer(env, estate) {
  const server = spawnLogged(
    deno,
    [...CLI, "serve", "--http", "127.0.0.1:0", "--estate", estate],
    env,
    "console-serve.log",
  );
  const lines = readline.createInterface({ input: server.stdout });
  const url = await within(
    new Promise((resolve, reject) => {
      lines.on("line", (line) => {
        const m = line.match(/^\s*URL: (http:\/\/127\.0\.0\.1:\d+\/mcp)\b/);
        if (m) resolve(m[1]);
      });
      server.on(
        "exit",
        (code, signal) =>
          reject(new Error(`estate serve exited (${code ?? signal}); see console-serve.log`)),
      );
    }),
    60_000,
    "estate serve printing its URL",
  );
  // The URL is printed before the socket listens: wait (bounded) until /console/sign-in answers.
  const up = await poll(
    () => fetch(new URL("/console/sign-in", url)).then((r) => r.ok, () => false),
    20_000,
  );
  if (!up) throw new Error(`${url}: /console/sign-in does not answer`);
  return url;
}

/**
 * What a client declares to the MCP oracle: every capability a corpus tool `uses` (sampling,
 * elicitation, roots). tools/list leaves out a tool whose `uses` the client lacks
 * (drafts.review uses elicitation and roots, policy.summarize sampling), while the console lists
 * every tool the principal may see whatever client will call it; with these declared, both speak
 * of the same principal's estate.
 */
const ORACLE_CAPABILITIES = { sampling: {}, elicitation: { form: {} }, roots: {} };

/** The MCP endpoint's own tools/list for a bearer token (2026-07-28, stateless), every page. */
async function mcpToolNames(mcpUrl, token) {
  const names = [];
  let cursor;
  for (let page = 0; page < 20; page++) {
    const params = {
      ...(cursor ? { cursor } : {}),
      _meta: {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": ORACLE_CAPABILITIES,
      },
    };
    const r = await fetch(mcpUrl, {
      method: "POST",
      headers: {
        authorization: `Bearer ${token}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": "tools/list",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: page + 1, method: "tools/list", params }),
      signal: AbortSignal.timeout(15_000),
    });
    const text = await r.text();
    if (!r.ok) throw new Error(`tools/list: HTTP ${r.status}: ${text.slice(0, 300)}`);
    const body = JSON.parse(text);
    if (!body.result) throw new Error(`tools/list: ${text.slice(0, 300)}`);
    names.push(...body.result.tools.map((t) => t.name));
    cursor = body.result.nextCursor;
    if (!cursor) return sorted(names);
  }
  throw new Error("tools/list: more than 20 pages");
}

/**
 * Starts e2e/console_caller.ts: wholesale-operator calls payments.release with `args` over MCP
 * and waits; its JSON lines are pushed to `lines`.
 */
function startCaller(env, mcpUrl, args, logName, lines) {
  const child = spawnLogged(
    deno,
    [
      ...CLI.slice(0, -1),
      "e2e/console_caller.ts",
      mcpUrl,
      WHOLESALE.token,
      "payments.release",
      JSON.stringify(args),
    ],
    { ...env, TIMEOUT_MS: "120000" },
    logName,
  );
  readline.createInterface({ input: child.stdout }).on("line", (line) => {
    try {
      lines.push(JSON.parse(line));
    } catch { /* not ours */ }
  });
  return child;
}

// --- the browser -----------------------------------------------------------------------------

async function launchBrowser(tools, env) {
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
}

/** A fresh browser context (its own cookies) and page, with the page's errors logged. */
async function newPage(label, options = {}) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 860 }, ...options });
  context.setDefaultTimeout(15_000);
  context.setDefaultNavigationTimeout(20_000);
  const page = await context.newPage();
  page.on("pageerror", (e) => log(`(${label} page error: ${e.message})`));
  page.on("console", (m) => {
    if (m.type() === "error") log(`(${label} console error: ${m.text()})`);
  });
  return page;
}

/** Signs in through the form; ends on the page `next` leads to. */
async function signIn(page, base, principal, next = "/console/") {
  await page.goto(`${base}/console/sign-in?next=${encodeURIComponent(next)}`);
  await page.fill('input[name="token"]', principal.token);
  await Promise.all([
    page.waitForURL((u) => u.pathname !== "/console/sign-in", { timeout: 15_000 }),
    page.locator('form:has(input[name="token"]) [type="submit"]').click(),
  ]);
  const who = (await page.locator("[data-principal]").textContent({ timeout: 5_000 }))?.trim();
  if (who !== principal.id) throw new Error(`signed in as ${principal.id}, the header says ${who}`);
}

/** The names of the estate table's rows. */
const consoleToolNames = async (page) =>
  sorted(await page.$$eval("tr[data-tool]", (rows) => rows.map((r) => r.dataset.tool)));

/** axe-core's violations on the page (injected here), every impact. */
async function axeViolations(page, axeSource) {
  await page.addScriptTag({ content: axeSource });
  const violations = await page.evaluate(async () => {
    const r = await globalThis.axe.run(document, { resultTypes: ["violations"] });
    return r.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.map((n) => n.target.join(" ")),
    }));
  });
  return violations;
}

// --- scenarios -------------------------------------------------------------------------------

async function main() {
  fs.mkdirSync(artifacts, { recursive: true });
  for (const name of fs.readdirSync(artifacts)) {
    if (name.startsWith("console-")) fs.rmSync(path.join(artifacts, name), { force: true });
  }
  let tools, env, estate, mcpUrl, base;

  scenario("setup");
  await check("e2e/setup.sh's tools are there", () => {
    tools = loadTools();
    env = childEnv();
    const axe = JSON.parse(
      fs.readFileSync(path.join(path.dirname(tools.axeCore), "package.json"), "utf8"),
    );
    return `chromium ${tools.chromium}, axe-core ${axe.version}`;
  }, { setup: true });
  await check(
    "scratch estate: corpus/ + examples/pending-calls/, approvals tools published",
    () => {
      const made = makeEstate(env);
      estate = made.estate;
      return made.detail;
    },
    { setup: true },
  );
  await check("estate serve --http 127.0.0.1:0 prints its URL and serves /console", async () => {
    mcpUrl = await startServer(env, estate);
    base = new URL(mcpUrl).origin;
    return mcpUrl;
  }, { setup: true });
  await check("Chromium starts", () => launchBrowser(tools, env), { setup: true });
  if (stopped) return;

  // --- 0 ---
  scenario("signing in through the form, as the browser posts it");
  const plain = await newPage("plain");
  current = plain;
  await check("the sign-in page shows a token form", async () => {
    await plain.goto(`${base}/console/`);
    // Not signed in: the console sends the browser to the sign-in form.
    await plain.locator('input[name="token"]').waitFor();
    if (!new URL(plain.url()).pathname.startsWith("/console/sign-in")) {
      throw new Error(`/console/ unsigned led to ${plain.url()}, not the sign-in page`);
    }
    await shot(plain, "sign-in");
  });
  await check(
    "the form signs retail-agent in (303 to /console/, the session cookie set)",
    async () => {
      const posted = plain.waitForResponse((r) => r.request().method() === "POST", {
        timeout: 15_000,
      });
      await plain.fill('input[name="token"]', RETAIL.token);
      await plain.locator('form:has(input[name="token"]) [type="submit"]').click();
      const response = await posted;
      if (response.status() !== 303) {
        const page = await plain.request.get(`${base}/console/sign-in`);
        throw new Error(
          `POST /console/sign-in answered ${response.status()}: ${
            (await response.text()).slice(0, 200)
          }\nthe browser sent Origin: ${response.request().headers().origin ?? "(none)"}; ` +
            `the sign-in page's Referrer-Policy is ${page.headers()["referrer-policy"]}`,
        );
      }
      await plain.waitForURL((u) => u.pathname === "/console/");
      const cookie = (await plain.context().cookies()).find((c) => c.path === "/console");
      if (!cookie?.httpOnly || cookie.sameSite !== "Strict") {
        throw new Error(`the session cookie is ${JSON.stringify(cookie)}`);
      }
    },
    { setup: true },
  );
  await plain.context().close();

  // --- 1 ---
  scenario("two principals see different estates");
  const retail = await newPage("retail-agent");
  const wholesale = await newPage("wholesale-operator");
  current = retail;
  let retailNames, wholesaleNames;
  await check("retail-agent signs in through the form", () => signIn(retail, base, RETAIL));
  await check("wholesale-operator signs in through the form (another context)", async () => {
    current = wholesale;
    await signIn(wholesale, base, WHOLESALE);
  });
  await check("retail-agent's estate table = MCP tools/list for its token", async () => {
    current = retail;
    retailNames = await consoleToolNames(retail);
    const oracle = await mcpToolNames(mcpUrl, RETAIL.token);
    if (!same(retailNames, oracle)) {
      throw new Error(
        `console vs tools/list: ${difference("console", retailNames, "MCP", oracle)}`,
      );
    }
    const count = await retail.locator("[data-count]").getAttribute("data-count");
    if (Number(count) !== retailNames.length) {
      throw new Error(`[data-count] says ${count}, the table has ${retailNames.length} rows`);
    }
    await shot(retail, "estate-retail-agent");
    return `${retailNames.length} tools: ${retailNames.join(", ")}`;
  });
  await check("wholesale-operator's estate table = MCP tools/list for its token", async () => {
    current = wholesale;
    wholesaleNames = await consoleToolNames(wholesale);
    const oracle = await mcpToolNames(mcpUrl, WHOLESALE.token);
    if (!same(wholesaleNames, oracle)) {
      throw new Error(
        `console vs tools/list: ${difference("console", wholesaleNames, "MCP", oracle)}`,
      );
    }
    await shot(wholesale, "estate-wholesale-operator");
    return `${wholesaleNames.length} tools: ${wholesaleNames.join(", ")}`;
  });
  await check("a tool with stored calls: its timeline, chart and callers", async () => {
    current = retail;
    await retail.goto(`${base}/console/tools/retail.transfers.lookup`, { timeout: 10_000 });
    await retail.locator("figure[data-chart] svg.chart").waitFor({ timeout: 5_000 });
    const versions = await retail.locator("[data-timeline] li[data-version]").count();
    const sections = await retail.locator("section[data-impact]").count();
    if (versions !== 2 || sections !== 2) {
      throw new Error(
        `${versions} versions on the timeline, ${sections} impact sections; want 2 and 2`,
      );
    }
    await shot(retail, "tool-with-calls");
    await retail.goto(`${base}/console/`, { timeout: 10_000 });
    return "2 versions, a chart, who calls each";
  });
  await check("the two estates differ", () => {
    if (!retailNames || !wholesaleNames) throw new Error("an estate table was not read");
    if (same(retailNames, wholesaleNames)) throw new Error(`both list ${retailNames.join(", ")}`);
    return difference("retail-agent", retailNames, "wholesale-operator", wholesaleNames);
  });

  scenario("the estate's filter form");
  current = retail;
  await check(
    'the Server filter\'s options have distinct values; unfiltered, "any" is selected',
    async () => {
      await retail.goto(`${base}/console/`);
      const options = await retail.$$eval(
        'form.filters select[name="server"] option',
        (os) =>
          os.map((o) => ({ value: o.value, label: o.textContent.trim(), selected: o.selected })),
      );
      const shown = options.map((o) =>
        `${JSON.stringify(o.value)}=${o.label}${o.selected ? "*" : ""}`
      )
        .join(", ");
      const values = options.map((o) => o.value);
      if (new Set(values).size !== values.length) {
        throw new Error(
          `options with the same value (one filter cannot be told from another): ${shown}`,
        );
      }
      const selected = options.filter((o) => o.selected);
      if (selected.length !== 1 || selected[0].value !== "") {
        throw new Error(`with no filter, the selected option is not "any": ${shown}`);
      }
      return shown;
    },
  );

  // --- 2 ---
  scenario("a hidden tool's page answers exactly like a nonexistent one's");
  current = retail;
  await check(
    `retail-agent: /console/tools/${HIDDEN_FROM_RETAIL} and /console/tools/${NO_SUCH_TOOL} are the same 404`,
    async () => {
      const hidden = await retail.request.get(`${base}/console/tools/${HIDDEN_FROM_RETAIL}`);
      const missing = await retail.request.get(`${base}/console/tools/${NO_SUCH_TOOL}`);
      const [a, b] = [await hidden.body(), await missing.body()];
      if (hidden.status() !== 404 || missing.status() !== 404) {
        throw new Error(
          `statuses ${hidden.status()} (hidden) and ${missing.status()} (nonexistent), not 404`,
        );
      }
      if (!a.equals(b)) {
        const at = [...a].findIndex((x, i) => x !== b[i]);
        throw new Error(
          `bodies differ (${a.length} vs ${b.length} bytes) from byte ${at}:\n` +
            `hidden:      ${a.subarray(Math.max(0, at - 60), at + 80).toString()}\n` +
            `nonexistent: ${b.subarray(Math.max(0, at - 60), at + 80).toString()}`,
        );
      }
      // The same for the pages under a tool: its diff.
      for (const tail of ["/diff?from=1.0.0&to=1.0.0", "/diff"]) {
        const h = await retail.request.get(`${base}/console/tools/${HIDDEN_FROM_RETAIL}${tail}`);
        const m = await retail.request.get(`${base}/console/tools/${NO_SUCH_TOOL}${tail}`);
        const [hb, mb] = [await h.body(), await m.body()];
        if (h.status() !== m.status() || !hb.equals(mb)) {
          throw new Error(
            `${tail}: hidden answers ${h.status()} (${hb.length} bytes), nonexistent ` +
              `${m.status()} (${mb.length} bytes)` + (hb.equals(mb) ? "" : ", bodies differ"),
          );
        }
      }
      // The same request as wholesale-operator (who may see it) is a tool page, not that 404.
      const seen = await wholesale.request.get(`${base}/console/tools/${HIDDEN_FROM_RETAIL}`);
      if (seen.status() !== 200) {
        throw new Error(
          `wholesale-operator gets ${seen.status()} for ${HIDDEN_FROM_RETAIL}, not 200`,
        );
      }
      await retail.goto(`${base}/console/tools/${HIDDEN_FROM_RETAIL}`);
      await shot(retail, "hidden-tool-404");
      return `404, ${a.length} identical bytes (its diff pages alike); wholesale-operator gets 200`;
    },
  );

  // --- 3 ---
  scenario("a publish from the CLI appears live");
  const published = JSON.parse(
    fs.readFileSync(path.join(root, "corpus/tools/retail.transfers.lookup/1.1.0.json"), "utf8"),
  );
  await check(
    `the CLI publishes ${NEW_TOOL}@1.0.0; retail-agent's open page shows it, no reload`,
    async () => {
      await retail.goto(`${base}/console/`);
      await wholesale.goto(`${base}/console/`);
      await retail.locator("tr[data-tool]").first().waitFor();
      // Give the page's EventSource a moment to connect before the change it must hear.
      await sleep(1_000);
      await retail.evaluate(() => (globalThis.__noReload = 1));
      await wholesale.evaluate(() => (globalThis.__noReload = 1));
      const tool = {
        ...structuredClone(published),
        name: NEW_TOOL,
        version: "1.0.0",
        title: "List a retail customer's statements",
      };
      const file = path.join(runDir, `${NEW_TOOL}-1.0.0.tool.json`);
      fs.writeFileSync(file, `${JSON.stringify(tool, null, 2)}\n`);
      const out = publish(env, estate, file);
      const t0 = Date.now();
      await retail.locator(`tr[data-tool="${NEW_TOOL}"]`).waitFor({ timeout: 15_000 });
      const kept = await retail.evaluate(() => globalThis.__noReload);
      if (kept !== 1) throw new Error("the page reloaded (globalThis.__noReload is gone)");
      await shot(retail, "estate-live-publish");
      return `${out}; row after ${secs(t0)}`;
    },
  );
  await check(`wholesale-operator's page does not show ${NEW_TOOL}`, async () => {
    current = wholesale;
    // The retail page has had the change; give the wholesale page as long again to (wrongly) show
    // it, then ask the server afresh.
    await sleep(2_000);
    if (await wholesale.locator(`tr[data-tool="${NEW_TOOL}"]`).count()) {
      throw new Error(`wholesale-operator's live page shows ${NEW_TOOL}`);
    }
    await wholesale.reload();
    if (await wholesale.locator(`tr[data-tool="${NEW_TOOL}"]`).count()) {
      throw new Error(`wholesale-operator's reloaded page shows ${NEW_TOOL}`);
    }
    const names = await consoleToolNames(wholesale);
    if (wholesaleNames && !same(names, wholesaleNames)) {
      throw new Error(
        `wholesale-operator's estate changed: ${
          difference("now", names, "before", wholesaleNames)
        }`,
      );
    }
  });

  // --- 4 ---
  scenario("a major version: the compare form leads to a diff with a witness");
  current = retail;
  await check(`the CLI publishes ${NEW_TOOL}@2.0.0 without ${REMOVED_PROPERTY}`, () => {
    const tool = { ...structuredClone(published), name: NEW_TOOL, version: "2.0.0" };
    tool.title = "List a retail customer's statements";
    delete tool.inputSchema.properties[REMOVED_PROPERTY];
    const file = path.join(runDir, `${NEW_TOOL}-2.0.0.tool.json`);
    fs.writeFileSync(file, `${JSON.stringify(tool, null, 2)}\n`);
    return publish(env, estate, file);
  });
  await check("the tool page shows both versions on its timeline", async () => {
    // The server follows the estate folder: the publish reaches it within moments, not at once.
    let versions = [];
    const both = await poll(
      async () => {
        await retail.goto(`${base}/console/tools/${NEW_TOOL}`);
        versions = await retail.$$eval(
          "[data-timeline] li[data-version]",
          (items) => items.map((i) => i.dataset.version),
        );
        return versions.includes("1.0.0") && versions.includes("2.0.0");
      },
      15_000,
      500,
    );
    if (!both) {
      throw new Error(`after 15 s the timeline lists ${versions.join(", ")}, not 1.0.0 and 2.0.0`);
    }
    await shot(retail, "tool");
    return versions.join(", ");
  });
  await check("compare 1.0.0 → 2.0.0: [data-bump] major, [data-witness] visible", async () => {
    const form = retail.locator(`form:has(select[name="from"])`);
    await form.locator('select[name="from"]').selectOption("1.0.0");
    await form.locator('select[name="to"]').selectOption("2.0.0");
    await Promise.all([
      retail.waitForURL((u) => u.pathname === `/console/tools/${NEW_TOOL}/diff`),
      form.locator('[type="submit"]').click(),
    ]);
    const q = new URL(retail.url()).searchParams;
    if (q.get("from") !== "1.0.0" || q.get("to") !== "2.0.0") {
      throw new Error(`the form led to ${retail.url()}`);
    }
    const bump = (await retail.locator("[data-bump]").first().textContent())?.trim() ?? "";
    const bumpAttr = await retail.locator("[data-bump]").first().getAttribute("data-bump");
    if (!/major/i.test(`${bumpAttr} ${bump}`)) {
      throw new Error(`[data-bump] says "${bump}" (${bumpAttr})`);
    }
    const witness = retail.locator("[data-witness]").first();
    await witness.waitFor({ state: "visible", timeout: 5_000 });
    const rules = await retail.$$eval(
      "[data-changes] tr[data-rule]",
      (rows) => rows.map((r) => r.dataset.rule),
    );
    await shot(retail, "diff");
    const text = (await witness.textContent())?.replace(/\s+/g, " ").trim() ?? "";
    return `bump ${bumpAttr ?? bump}; rules ${rules.join(", ")}; witness: ${text.slice(0, 160)}`;
  });

  // --- 5 ---
  scenario("an approver approves a held call; the caller's call completes");
  const treasury = await newPage("treasury-lead");
  current = treasury;
  let caller, pendingId;
  const callerLines = [];
  await check("treasury-lead signs in and opens /console/approvals", async () => {
    await signIn(treasury, base, TREASURY, "/console/approvals");
    if (new URL(treasury.url()).pathname !== "/console/approvals") {
      await treasury.goto(`${base}/console/approvals`);
    }
    await treasury.locator("h1").waitFor();
    await sleep(1_000); // the EventSource connects
    await treasury.evaluate(() => (globalThis.__noReload = 1));
  });
  await check(
    `wholesale-operator's call of payments.release (${HELD_CALL.approvedAmount} ${HELD_CALL.currency}) is held`,
    async () => {
      caller = startCaller(env, mcpUrl, HELD_CALL, "console-caller.log", callerLines);
      const calling = await poll(() => callerLines.find((l) => l.event === "calling"), 30_000);
      if (!calling) {
        throw new Error("the caller did not start its call within 30 s (console-caller.log)");
      }
      const early = callerLines.find((l) => l.event === "result" || l.event === "error");
      if (early) throw new Error(`the call returned at once: ${JSON.stringify(early)}`);
      return `caller pid ${caller.pid}`;
    },
  );
  await check("the pending row appears on treasury-lead's open page, no reload", async () => {
    const row = treasury.locator('tr[data-pending][data-state="pending"]').first();
    await row.waitFor({ timeout: 15_000 });
    pendingId = await row.getAttribute("data-pending");
    if ((await treasury.evaluate(() => globalThis.__noReload)) !== 1) {
      throw new Error("the page reloaded (globalThis.__noReload is gone)");
    }
    const text = (await row.textContent()) ?? "";
    for (const want of ["payments.release", WHOLESALE.id, HELD_CALL.reference]) {
      if (!text.includes(want)) {
        throw new Error(`the row lacks ${want}: ${text.replace(/\s+/g, " ")}`);
      }
    }
    await shot(treasury, "approvals-pending");
    return pendingId;
  });
  await check("treasury-lead approves; the page shows the decision", async () => {
    const row = treasury.locator(`tr[data-pending="${pendingId}"]`);
    await row.locator('input[name="reason"]').fill("e2e: amount matches the held payment");
    await row.locator('button[name="decision"][value="approve"]').click();
    const decision = treasury.locator("p[data-decision]").first();
    await decision.waitFor({ timeout: 15_000 });
    return (await decision.textContent())?.replace(/\s+/g, " ").trim();
  });
  await check("the caller's call completes (not an error) within 30 s", async () => {
    const end = await poll(
      () => callerLines.find((l) => l.event === "result" || l.event === "error"),
      30_000,
    );
    if (!end) throw new Error("no result from the caller within 30 s of the approval");
    if (end.event !== "result" || end.kind !== "ok" || end.isError) {
      throw new Error(`the call ended ${JSON.stringify(end)}`);
    }
    const exited = await poll(() => caller.exitCode !== null, 10_000);
    if (!exited || caller.exitCode !== 0) throw new Error(`the caller exited ${caller.exitCode}`);
    return end.text;
  });
  await check("the decided row shows the call approved and run", async () => {
    await treasury.goto(`${base}/console/approvals`);
    const row = treasury.locator(`tr[data-pending="${pendingId}"]`).first();
    await row.waitFor({ timeout: 5_000 });
    const state = await row.getAttribute("data-state");
    if (!["ran", "approved"].includes(state ?? "")) {
      throw new Error(`data-state is ${state}: ${(await row.textContent())?.replace(/\s+/g, " ")}`);
    }
    await shot(treasury, "approvals-decided");
    return `data-state=${state}`;
  });

  // Screenshots of the remaining pages (retail-agent).
  for (const [name, where] of [["servers", "/console/servers"], ["audit", "/console/audit"]]) {
    await check(`${where} answers`, async () => {
      current = retail;
      const r = await retail.goto(`${base}${where}`);
      if (r?.status() !== 200) throw new Error(`${where}: HTTP ${r?.status()}`);
      if (name === "audit") {
        await treasury.goto(`${base}${where}`);
        const verdicts = await treasury.locator("[data-audit-verdict]").count();
        if (!verdicts) throw new Error("treasury-lead's audit page has no [data-audit-verdict]");
        await shot(treasury, "audit-treasury-lead");
      }
      await shot(retail, name);
    });
  }

  // --- 6 ---
  scenario("accessibility: axe-core, no serious or critical violation");
  const axeSource = fs.readFileSync(tools.axeCore, "utf8");
  // The console's CSP (script-src 'self') forbids the inline script axe is injected as; a context
  // with bypassCSP lets it run. Only this context bypasses it: the scenarios above run under the
  // real CSP, so a page that needed inline script would have failed there.
  const axeRetail = await newPage("axe retail-agent", { bypassCSP: true });
  const axeTreasury = await newPage("axe treasury-lead", { bypassCSP: true });
  const pages = [
    ["sign-in", axeRetail, "/console/sign-in", null],
    ["estate", axeRetail, "/console/", RETAIL],
    ["tool", axeRetail, `/console/tools/${NEW_TOOL}`, null],
    ["diff", axeRetail, `/console/tools/${NEW_TOOL}/diff?from=1.0.0&to=2.0.0`, null],
    ["servers", axeRetail, "/console/servers", null],
    ["approvals", axeTreasury, "/console/approvals", TREASURY],
    ["audit", axeTreasury, "/console/audit", null],
  ];
  // A second held call, so the approvals page is checked with its decide form on it (the first
  // one is decided by now). It stays pending; cleanup ends its caller.
  const secondLines = [];
  await check("a second held call waits (for the approvals page's form)", async () => {
    current = axeTreasury;
    startCaller(env, mcpUrl, SECOND_HELD_CALL, "console-caller-2.log", secondLines);
    const calling = await poll(() => secondLines.find((l) => l.event === "calling"), 30_000);
    if (!calling) throw new Error("the second caller did not start its call within 30 s");
  });
  for (const [name, page, where, signInAs] of pages) {
    scenarioFailed = false; // each page is its own check
    await check(`axe: the ${name} page, ${where}`, async () => {
      current = page;
      if (signInAs) await signIn(page, base, signInAs);
      if (name === "approvals") {
        const form = await poll(
          async () => {
            await page.goto(`${base}${where}`);
            return (await page.locator('tr[data-state="pending"] form').count()) > 0;
          },
          15_000,
          500,
        );
        if (!form) throw new Error("no pending row with its decide form within 15 s");
      }
      const r = await page.goto(`${base}${where}`);
      if (r?.status() !== 200) throw new Error(`${where}: HTTP ${r?.status()}`);
      const at = new URL(page.url());
      if (`${at.pathname}${at.search}` !== where) throw new Error(`${where} led to ${page.url()}`);
      const all = await axeViolations(page, axeSource);
      const describe = (v) => `${v.impact} ${v.id}: ${v.help} — ${v.nodes.slice(0, 4).join(" | ")}`;
      const bad = all.filter((v) => v.impact === "serious" || v.impact === "critical");
      if (bad.length) {
        throw new Error(
          `${bad.length} serious/critical violation(s):\n${all.map(describe).join("\n")}`,
        );
      }
      return all.length
        ? `none serious or critical; ${all.map((v) => `${v.impact} ${v.id}`).join(", ")}`
        : "no violations";
    });
  }

  scenario("sign-out");
  await check(
    "retail-agent signs out from the header; /console/ asks to sign in again",
    async () => {
      current = retail;
      await retail.goto(`${base}/console/`);
      await Promise.all([
        retail.waitForURL((u) => u.pathname !== "/console/"),
        retail.locator('form[action="/console/sign-out"] [type="submit"]').click(),
      ]);
      await retail.goto(`${base}/console/`);
      await retail.locator('input[name="token"]').waitFor({ timeout: 5_000 });
      const cookies = (await retail.context().cookies()).map((c) => c.name);
      if (cookies.length) throw new Error(`cookies left: ${cookies.join(", ")}`);
      return `now at ${new URL(retail.url()).pathname}`;
    },
  );

  if (updateDocs) {
    const estateShot = fs.readdirSync(artifacts).find((n) =>
      /^console-\d+-tool-with-calls\.png$/.test(n)
    );
    await check("--update-docs: docs/console.png", () => {
      if (!estateShot) throw new Error("no estate screenshot was taken");
      fs.copyFileSync(path.join(artifacts, estateShot), path.join(root, "docs/console.png"));
      return `from ${estateShot}`;
    });
  }
}

// --- cleanup and entry -----------------------------------------------------------------------

async function cleanup() {
  if (browser) {
    await within(browser.close(), 10_000, "browser.close()").catch(() => {});
    browser = undefined;
  }
  for (const child of children) {
    if (!child.pid || child.exitCode !== null || child.signalCode !== null) continue;
    try {
      process.kill(-child.pid, "SIGTERM");
    } catch { /* already gone */ }
    const gone = await poll(() => child.exitCode !== null || child.signalCode !== null, 5_000);
    if (!gone) {
      try {
        process.kill(-child.pid, "SIGKILL");
      } catch { /* already gone */ }
    }
  }
  // Children that left their process group (or a Chromium Playwright failed to reap).
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
