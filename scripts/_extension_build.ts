/**
 * The extension's bundle (`extension/dist/server.js`, which the LSP tests spawn), built when it is
 * missing or older than its sources: `npm ci` in `extension/` first when its `node_modules/` is
 * missing or older than `package-lock.json`, then `node extension/esbuild.mjs`. Only npm is
 * needed. It says on stderr what it does and how long it took.
 *
 * Once, and safe when several processes need it at the same moment (two test runs, or two test
 * files run in parallel): a lock folder (`extension/dist/.build-lock`) lets one process build
 * while the others wait and then find the bundle fresh; the bundle is written into a folder of its
 * own and renamed into `dist/`, so no process ever starts a half-written server. A lock left by a
 * process that died is taken over.
 *
 * @module
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import process from "node:process";

/** Commands the build runs (the tests substitute their own). */
export interface ExtensionBuildCommands {
  /** Installs `extension/node_modules` (run in `extension/`). */
  install: string[];
  /** Bundles into the given folder (run in `extension/`). */
  bundle: (outdir: string) => string[];
}

/** Options for {@linkcode ensureExtensionBuilt}. */
export interface ExtensionBuildOptions {
  /** The repository root. Default: this repository. */
  root?: string;
  /** Where progress goes, a line at a time. Default: stderr. */
  log?: (line: string) => void;
  /** The commands. Default: `npm ci` and `node esbuild.mjs --outdir DIR`. */
  commands?: ExtensionBuildCommands;
  /** How long to wait for another process's build before giving up. Default 10 minutes. */
  waitMs?: number;
}

/** What {@linkcode ensureExtensionBuilt} did. */
export type ExtensionBuildOutcome = "fresh" | "built";

const DEFAULT_COMMANDS: ExtensionBuildCommands = {
  install: ["npm", "ci", "--no-audit", "--no-fund", "--loglevel=error"],
  bundle: (outdir) => ["node", "esbuild.mjs", "--outdir", outdir],
};

/** The files the bundle is made of. */
const OUTPUTS = ["server.js", "server.js.map", "extension.js", "extension.js.map"];

function newestMtime(p: string, test: (name: string) => boolean): number {
  const stat = fs.statSync(p, { throwIfNoEntry: false });
  if (!stat) return 0;
  if (!stat.isDirectory()) return test(path.basename(p)) ? stat.mtimeMs : 0;
  let newest = 0;
  for (const entry of fs.readdirSync(p)) {
    newest = Math.max(newest, newestMtime(path.join(p, entry), test));
  }
  return newest;
}

function mtime(p: string): number {
  return fs.statSync(p, { throwIfNoEntry: false })?.mtimeMs ?? 0;
}

/** Whether `extension/node_modules` is installed and not older than the lock file. */
export function extensionDepsInstalled(root: string): boolean {
  const ext = path.join(root, "extension");
  const installed = mtime(path.join(ext, "node_modules", ".package-lock.json"));
  return installed > 0 &&
    fs.existsSync(path.join(ext, "node_modules", "esbuild", "package.json")) &&
    installed >= mtime(path.join(ext, "package-lock.json"));
}

/** Whether `extension/dist/server.js` exists and is not older than anything it is built from. */
export function extensionBundleFresh(root: string): boolean {
  const ext = path.join(root, "extension");
  const sources = Math.max(
    newestMtime(path.join(ext, "src"), (n) => n.endsWith(".ts")),
    newestMtime(path.join(root, "lib"), (n) => n.endsWith(".ts")),
    mtime(path.join(ext, "esbuild.mjs")),
    mtime(path.join(ext, "package.json")),
    mtime(path.join(ext, "package-lock.json")),
  );
  const built = Math.min(
    mtime(path.join(ext, "dist", "server.js")),
    mtime(path.join(ext, "dist", "extension.js")),
  );
  return built > 0 && built >= sources;
}

function run(command: string[], cwd: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command[0], command.slice(1), { cwd, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (d) => (output += d));
    child.stderr.on("data", (d) => (output += d));
    child.on("error", (e) => reject(new Error(`${command.join(" ")} in ${cwd}: ${e.message}`)));
    child.on("close", (code) => {
      if (code === 0) resolve();
      else reject(new Error(`${command.join(" ")} in ${cwd} exited with ${code}:\n${output}`));
    });
  });
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Takes the lock folder, waiting while another live process holds it.
 *
 * @returns Whether this process had to wait (someone else was building).
 */
async function lock(dir: string, waitMs: number, log: (line: string) => void): Promise<boolean> {
  const started = Date.now();
  let waited = false;
  for (;;) {
    try {
      fs.mkdirSync(dir);
      fs.writeFileSync(path.join(dir, "pid"), String(process.pid));
      return waited;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
    }
    let pid = 0;
    try {
      pid = Number(fs.readFileSync(path.join(dir, "pid"), "utf8"));
    } catch {
      // Not written yet, or released just now.
    }
    const age = Date.now() - mtime(dir);
    // A holder that died (or one that never wrote its pid within a few seconds) left it behind.
    if ((pid > 0 && !alive(pid)) || (!(pid > 0) && age > 5_000)) {
      fs.rmSync(dir, { recursive: true, force: true });
      continue;
    }
    if (Date.now() - started > waitMs) {
      throw new Error(`${dir} is held by process ${pid} for more than ${waitMs} ms`);
    }
    if (!waited) log(`extension: another process is building ${path.dirname(dir)}; waiting`);
    waited = true;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * Builds `extension/dist/` (the language server the LSP tests spawn, and the client) when it is
 * missing or stale, installing `extension/node_modules` first when needed.
 *
 * @param options The root, the log, the commands.
 * @returns `"fresh"` when nothing had to be done (or another process just did it), `"built"`.
 * @throws {Error} When `npm ci` or the bundler fails, with its output.
 */
export async function ensureExtensionBuilt(
  options: ExtensionBuildOptions = {},
): Promise<ExtensionBuildOutcome> {
  const root = options.root ?? path.resolve(new URL("..", import.meta.url).pathname);
  const log = options.log ?? ((line: string) => process.stderr.write(line + "\n"));
  const commands = options.commands ?? DEFAULT_COMMANDS;
  if (extensionDepsInstalled(root) && extensionBundleFresh(root)) return "fresh";
  const ext = path.join(root, "extension");
  const dist = path.join(ext, "dist");
  fs.mkdirSync(dist, { recursive: true });
  const lockDir = path.join(dist, ".build-lock");
  await lock(lockDir, options.waitMs ?? 600_000, log);
  try {
    if (extensionDepsInstalled(root) && extensionBundleFresh(root)) return "fresh";
    const seconds = (t: number) => ((Date.now() - t) / 1000).toFixed(1);
    if (!extensionDepsInstalled(root)) {
      const t = Date.now();
      log(
        `extension: installing its npm dependencies (${
          commands.install.join(" ")
        } in extension/): the LSP tests run its bundled language server`,
      );
      await run(commands.install, ext);
      log(`extension: installed in ${seconds(t)} s`);
    }
    const t = Date.now();
    const out = path.join(dist, `.build-${process.pid}`);
    fs.rmSync(out, { recursive: true, force: true });
    log(
      `extension: building extension/dist/server.js and extension.js (${
        commands.bundle("DIR").join(" ")
      })`,
    );
    try {
      await run(commands.bundle(out), ext);
      for (const name of OUTPUTS) {
        if (fs.existsSync(path.join(out, name))) {
          fs.renameSync(path.join(out, name), path.join(dist, name));
        }
      }
    } finally {
      fs.rmSync(out, { recursive: true, force: true });
    }
    log(`extension: built in ${seconds(t)} s`);
    return "built";
  } finally {
    fs.rmSync(lockDir, { recursive: true, force: true });
  }
}

if (import.meta.main) {
  try {
    await ensureExtensionBuilt();
  } catch (e) {
    console.error((e as Error).message);
    process.exitCode = 1;
  }
}
