/**
 * scripts/_extension_build.ts on a scratch repository, with stand-in commands for `npm ci` and the
 * bundler that log each run: missing dependencies are installed and the bundle built, once, even
 * when two processes need it at the same moment; a fresh bundle is left alone; a newer source is
 * rebuilt without reinstalling; a lock left by a dead process is taken over; a failing build says
 * why and leaves no lock.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";

const BUILD = new URL("../scripts/_extension_build.ts", import.meta.url).href;

/** A driver that runs ensureExtensionBuilt() in its own process with stand-in commands. */
const DRIVER = `
import { ensureExtensionBuilt } from ${JSON.stringify(BUILD)};
const root = Deno.args[0];
const fail = Deno.args[1] === "fail";
const sh = (script) => ["sh", "-c", script];
const outcome = await ensureExtensionBuilt({
  root,
  log: (line) => console.log("log: " + line),
  commands: {
    install: sh(
      "echo run >> ../install.log; sleep 0.3; mkdir -p node_modules/esbuild; " +
        "echo {} > node_modules/esbuild/package.json; echo {} > node_modules/.package-lock.json",
    ),
    bundle: (out) =>
      sh(
        fail ? "echo the bundler says why >&2; exit 3" : "echo run >> ../bundle.log; sleep 0.3; " +
          \`mkdir -p '\${out}'; echo server > '\${out}/server.js'; echo client > '\${out}/extension.js'\`,
      ),
  },
});
console.log("outcome: " + outcome);
`;

interface Run {
  code: number;
  outcome?: string;
  logs: string[];
  stderr: string;
}

function scratchRepo(): string {
  const root = Deno.makeTempDirSync({ prefix: "extension-build-" });
  for (
    const [file, text] of Object.entries({
      "extension/src/server.ts": "export {};\n",
      "extension/esbuild.mjs": "",
      "extension/package.json": "{}\n",
      "extension/package-lock.json": "{}\n",
      "lib/a.ts": "export const a = 1;\n",
      "driver.mjs": DRIVER,
    })
  ) {
    fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    fs.writeFileSync(path.join(root, file), text);
  }
  return root;
}

function start(root: string, ...args: string[]): Promise<Run> {
  return new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", path.join(root, "driver.mjs"), root, ...args],
    stdin: "null",
  }).output().then(({ code, stdout, stderr }) => {
    const lines = new TextDecoder().decode(stdout).split("\n");
    return {
      code,
      outcome: lines.find((l) => l.startsWith("outcome: "))?.slice(9),
      logs: lines.filter((l) => l.startsWith("log: ")).map((l) => l.slice(5)),
      stderr: new TextDecoder().decode(stderr),
    };
  });
}

function runs(root: string, log: "install" | "bundle"): number {
  const file = path.join(root, `${log}.log`);
  return fs.existsSync(file) ? fs.readFileSync(file, "utf8").trim().split("\n").length : 0;
}

/** Makes a file newer than anything built so far. */
function touchLater(file: string): void {
  const later = new Date(Date.now() + 2_000);
  fs.utimesSync(file, later, later);
}

Deno.test("ensureExtensionBuilt() installs and builds once for two processes at the same moment, then leaves a fresh bundle alone", async () => {
  const root = scratchRepo();
  try {
    // The stand-ins write ../install.log and ../bundle.log relative to extension/: the root.
    const [a, b] = await Promise.all([start(root), start(root)]);
    assert.equal(a.code, 0, a.stderr);
    assert.equal(b.code, 0, b.stderr);
    assert.deepEqual([a.outcome, b.outcome].sort(), ["built", "fresh"]);
    assert.equal(runs(root, "install"), 1);
    assert.equal(runs(root, "bundle"), 1);
    const builder = a.outcome === "built" ? a : b;
    assert.ok(
      builder.logs.some((l) => l.startsWith("extension: installing its npm dependencies")),
    );
    assert.ok(builder.logs.some((l) => l.startsWith("extension: built in ")));
    const dist = path.join(root, "extension", "dist");
    assert.deepEqual(fs.readdirSync(dist).sort(), [
      "extension.js",
      "server.js",
    ]);
    assert.equal(
      fs.readFileSync(path.join(dist, "server.js"), "utf8"),
      "server\n",
    );

    const again = await start(root);
    assert.equal(again.outcome, "fresh");
    assert.deepEqual(again.logs, [], "nothing to say when nothing is done");
    assert.equal(runs(root, "bundle"), 1);

    touchLater(path.join(root, "lib", "a.ts"));
    const rebuilt = await start(root);
    assert.equal(rebuilt.outcome, "built");
    assert.equal(
      runs(root, "install"),
      1,
      "fresh dependencies are not installed again",
    );
    assert.equal(runs(root, "bundle"), 2);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});

Deno.test("ensureExtensionBuilt() takes over a lock left by a dead process", async () => {
  const root = scratchRepo();
  try {
    const dead = new Deno.Command("true").spawn();
    await dead.status;
    const lock = path.join(root, "extension", "dist", ".build-lock");
    fs.mkdirSync(lock, { recursive: true });
    fs.writeFileSync(path.join(lock, "pid"), String(dead.pid));
    const run = await start(root);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.outcome, "built");
    assert.equal(fs.existsSync(lock), false);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});

Deno.test("ensureExtensionBuilt() fails with the bundler's output and leaves no lock and no partial bundle", async () => {
  const root = scratchRepo();
  try {
    const run = await start(root, "fail");
    assert.notEqual(run.code, 0);
    assert.match(run.stderr, /exited with 3:\nthe bundler says why/);
    assert.deepEqual(fs.readdirSync(path.join(root, "extension", "dist")), []);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});
