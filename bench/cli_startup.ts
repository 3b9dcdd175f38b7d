/**
 * Start-up of `estate check` on one tool file, warm, by the route a user runs it, side by side in
 * interleaved rounds (each round runs every route once, in a rotated order), from outside: the
 * whole process, start to exit. Routes:
 *
 *   npm bin       the npm package's `estate` (cli.ts compiled for Node 20), installed into a prefix
 *   npx estate    the same package as a dev dependency, through `npx estate` (the README's route)
 *   deno run      `deno run -A --config deno.runtime.jsonc cli.ts` (the JSR entry, from the cache)
 *   npm deno bin  the same through the npm `deno` package's launcher (`node bin.cjs run …`): what an
 *                 npm bin that starts the Deno binary would cost, the route not taken
 *   deno task     `deno task estate` in this clone (Deno on PATH)
 *   npx deno task `npx -y deno@2.9.6 task estate` in this clone (the route the README gave before)
 *
 * Each checks the first tool file of a repository made by `estate init`, against its estate.
 *
 *   deno task run bench/cli_startup.ts [--rounds 15]
 *
 * @module
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { buildNpm } from "../scripts/build_npm.ts";
import { median, rotate } from "./_stats.ts";

const ROOT = path.resolve(new URL("..", import.meta.url).pathname);
const DENO_VERSION = /^DENO_VERSION=(\S+)$/m.exec(
  fs.readFileSync(path.join(ROOT, ".ci/run"), "utf8"),
)![1];

function run(command: string, args: string[], cwd: string): void {
  const r = spawnSync(command, args, { cwd, encoding: "utf8" });
  if (r.status !== 0) {
    throw new Error(
      `${command} ${args.join(" ")} exited with ${r.status}:\n${r.stdout}${r.stderr}`,
    );
  }
}

const roundsArg = Deno.args.indexOf("--rounds");
const rounds = roundsArg >= 0 ? Number(Deno.args[roundsArg + 1]) : 15;

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "cli-startup-"));
try {
  const tgz = buildNpm();
  const prefix = path.join(dir, "prefix");
  run("npm", ["install", "-g", "--prefix", prefix, "--no-audit", "--no-fund", tgz], dir);
  const repo = path.join(dir, "repo");
  fs.mkdirSync(repo);
  run("git", ["init", "-q"], repo);
  run("npm", ["init", "-y"], repo);
  run("npm", ["install", "-D", "--no-audit", "--no-fund", tgz], repo);
  run(path.join(prefix, "bin", "estate"), ["init", "--ci", "none"], repo);
  const denoPkg = path.join(dir, "deno-pkg");
  run(
    "npm",
    ["install", "--prefix", denoPkg, "--no-audit", "--no-fund", `deno@${DENO_VERSION}`],
    dir,
  );
  const file = path.join(repo, "tools", "example.lookup.tool.json");
  const estate = path.join(repo, "estate");
  const deno = Deno.execPath();
  const routes: { name: string; command: string; args: string[]; cwd: string }[] = [
    { name: "npm bin", command: path.join(prefix, "bin", "estate"), args: [], cwd: repo },
    { name: "npx estate", command: "npx", args: ["estate"], cwd: repo },
    {
      name: "deno run",
      command: deno,
      args: ["run", "-A", "--config", path.join(ROOT, "deno.runtime.jsonc"), `${ROOT}/cli.ts`],
      cwd: repo,
    },
    {
      name: "npm deno bin",
      command: "node",
      args: [
        path.join(denoPkg, "node_modules", "deno", "bin.cjs"),
        "run",
        "-A",
        "--config",
        path.join(ROOT, "deno.runtime.jsonc"),
        `${ROOT}/cli.ts`,
      ],
      cwd: repo,
    },
    { name: "deno task", command: deno, args: ["task", "-q", "estate"], cwd: ROOT },
    {
      name: "npx deno task",
      command: "npx",
      args: ["-y", `deno@${DENO_VERSION}`, "task", "-q", "estate"],
      cwd: ROOT,
    },
  ];
  const check = ["check", "--estate", estate, file];
  const times = new Map(routes.map((r) => [r.name, [] as number[]]));
  // One warm-up run each: caches filled, nothing counted.
  for (const r of routes) run(r.command, [...r.args, ...check], r.cwd);
  for (let round = 0; round < rounds; round++) {
    for (const r of rotate(routes, round)) {
      const started = performance.now();
      run(r.command, [...r.args, ...check], r.cwd);
      times.get(r.name)!.push(performance.now() - started);
    }
  }
  const base = times.get("npx deno task")!;
  console.log(
    `estate check on one file, warm, ${rounds} interleaved rounds (${os.cpus().length} cores)\n`,
  );
  console.log("| route | min ms | median ms | max ms | vs npx deno task |");
  console.log("|---|---:|---:|---:|---:|");
  for (const r of routes) {
    const t = times.get(r.name)!;
    const ratio = median(t.map((x, i) => x / base[i]));
    console.log(
      `| ${r.name} | ${Math.min(...t).toFixed(0)} | ${median(t).toFixed(0)} | ${
        Math.max(...t).toFixed(0)
      } | ${ratio.toFixed(2)}× |`,
    );
  }
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
