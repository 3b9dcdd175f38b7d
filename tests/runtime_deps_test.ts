/**
 * The main job fetches only what it runs: `deno task serve`, `estate` and `demo` run with
 * deno.runtime.jsonc, whose lock holds exactly the npm packages the CLI and the demo import, at the
 * versions and integrity deno.lock has; and on a copy of the repository without node_modules, with
 * a Deno cache holding only those packages and every download failing, the three tasks work.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";

const ROOT = path.resolve(new URL("..", import.meta.url).pathname);
const RUNTIME_TASKS = ["serve", "estate", "demo"];

interface Lock {
  specifiers: Record<string, string>;
  npm: Record<string, { integrity: string; dependencies?: string[] }>;
}

function readJson<T>(file: string): T {
  return JSON.parse(fs.readFileSync(path.join(ROOT, file), "utf8"));
}

function runtimeConfig(): { imports: Record<string, string> } {
  const text = fs.readFileSync(path.join(ROOT, "deno.runtime.jsonc"), "utf8");
  return JSON.parse(text.replace(/^\s*\/\/.*$/gm, ""));
}

async function deno(
  args: string[],
  options: { cwd?: string; env?: Record<string, string> } = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args,
    cwd: options.cwd ?? ROOT,
    env: { NO_COLOR: "1", ...options.env },
    stdin: "null",
  }).output();
  const decode = (b: Uint8Array) => new TextDecoder().decode(b);
  return { code, stdout: decode(stdout), stderr: decode(stderr) };
}

Deno.test("the runtime tasks use deno.runtime.jsonc, whose lock is the CLI's and the demo's npm imports at deno.lock's versions and integrity", async () => {
  const tasks = readJson<{ tasks: Record<string, string> }>("deno.json").tasks;
  for (const task of RUNTIME_TASKS) {
    assert.match(tasks[task], /^deno run --config deno\.runtime\.jsonc /, task);
  }

  // What the CLI (serve included) and the demo import from npm, resolved with the runtime config.
  const imported = new Set<string>();
  for (const entry of ["cli.ts", "demo.ts"]) {
    const { code, stdout, stderr } = await deno([
      "info",
      "--json",
      "--config",
      "deno.runtime.jsonc",
      entry,
    ]);
    assert.equal(code, 0, stderr);
    const graph = JSON.parse(stdout) as {
      npmPackages: Record<string, unknown>;
    };
    for (const id of Object.keys(graph.npmPackages)) imported.add(id);
  }

  const runtime = readJson<Lock>("deno.runtime.lock");
  const full = readJson<Lock>("deno.lock");
  assert.deepEqual(Object.keys(runtime.npm).sort(), [...imported].sort());
  assert.deepEqual(
    Object.values(runtimeConfig().imports).map((s) => s.replace(/^npm:/, ""))
      .sort(),
    [...imported].sort(),
  );
  for (const [name, entry] of Object.entries(runtime.npm)) {
    assert.deepEqual(entry, full.npm[name], `${name} as deno.lock has it`);
  }
});

Deno.test("serve, estate and demo work on a fresh copy with only their npm packages cached and every download failing", async () => {
  const scratch = await Deno.makeTempDir({ prefix: "runtime-deps-" });
  try {
    const repo = path.join(scratch, "repo");
    for (
      const p of [
        "deno.json",
        "deno.lock",
        "deno.runtime.jsonc",
        "deno.runtime.lock",
        "cli.ts",
        "demo.ts",
        "mod.ts",
        "lib",
        // The CLI's positions come from the editor's code until it moves into lib/.
        "examples",
        "corpus",
      ]
    ) {
      fs.cpSync(path.join(ROOT, p), path.join(repo, p), { recursive: true });
    }
    // A Deno cache with the runtime lock's packages and nothing else.
    const info = await deno(["info", "--json"]);
    const npmCache = path.join(
      JSON.parse(info.stdout).npmCache,
      "registry.npmjs.org",
    );
    const denoDir = path.join(scratch, "deno-dir");
    const seeded = path.join(denoDir, "npm", "registry.npmjs.org");
    for (const id of Object.keys(readJson<Lock>("deno.runtime.lock").npm)) {
      const name = id.slice(0, id.lastIndexOf("@"));
      const version = id.slice(id.lastIndexOf("@") + 1);
      fs.mkdirSync(path.join(seeded, name), { recursive: true });
      fs.cpSync(
        path.join(npmCache, name, version),
        path.join(seeded, name, version),
        {
          recursive: true,
        },
      );
      fs.cpSync(
        path.join(npmCache, name, "registry.json"),
        path.join(seeded, name, "registry.json"),
      );
    }
    const offline = {
      DENO_DIR: denoDir,
      HTTP_PROXY: "http://127.0.0.1:9",
      HTTPS_PROXY: "http://127.0.0.1:9",
      NO_PROXY: "",
      PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
      HOME: scratch,
    };

    const list = await deno([
      "task",
      "estate",
      "list",
      "--principal",
      "retail-agent",
    ], {
      cwd: repo,
      env: offline,
    });
    assert.equal(list.code, 0, list.stderr);
    assert.match(list.stdout, /^retail-agent .* sees 5 tools:/);

    const demo = await deno(["task", "demo"], { cwd: repo, env: offline });
    assert.equal(demo.code, 0, demo.stderr);
    assert.match(
      demo.stdout,
      /resolve payments\.lookup ~1\.0\.0: +nothing \(retired\)/,
    );

    const serve = new Deno.Command(Deno.execPath(), {
      args: ["task", "serve", "--http", "127.0.0.1:0"],
      cwd: repo,
      env: { NO_COLOR: "1", ...offline },
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    let banner = "";
    const stderr = new Response(serve.stderr).text();
    for await (
      const chunk of serve.stdout.pipeThrough(new TextDecoderStream())
    ) {
      banner += chunk;
      if (/Ctrl-C stops it/.test(banner)) break;
    }
    // `deno task` runs the command in a child process: stop the whole group through the task.
    serve.kill("SIGINT");
    await serve.status;
    assert.match(banner, /URL: http:\/\/127\.0\.0\.1:\d+\/mcp/, await stderr);

    assert.equal(
      fs.existsSync(path.join(repo, "node_modules")),
      false,
      "no node_modules/",
    );
    assert.deepEqual(
      fs.readdirSync(seeded).sort(),
      Object.keys(readJson<Lock>("deno.runtime.lock").npm).map((id) =>
        id.slice(0, id.lastIndexOf("@"))
      ).sort(),
      "nothing else in the cache",
    );
  } finally {
    await Deno.remove(scratch, { recursive: true });
  }
});
