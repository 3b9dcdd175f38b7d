/**
 * Proves the npm package the way a Node user gets it: builds and packs it (`build_npm.ts`), then
 * in a scratch Node project `npm install`s the tarball with `typescript@5`, `@types/node@20` and
 * `fast-check@4` from the registry, type-checks `npm/consumer/consumer.ts` with tsc (strict,
 * NodeNext: through the package's `exports` and its `.d.ts` files, which are checked too) and
 * runs it with Node: validation, classification, the registry, `./testing`, `./store`, `./http`
 * and `./stdio`, each with real behaviour, and `./postgres` without a database (its migrations read
 * from the `.sql` files the package ships).
 *
 *   deno task npm-check [--tarball FILE]     (default: build and pack first)
 *
 * @module
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import process from "node:process";
import { buildNpm } from "./build_npm.ts";

const ROOT = path.resolve(new URL("..", import.meta.url).pathname);

function step(text: string): void {
  console.log(`\n==> ${text}`);
}

function run(command: string, args: string[], cwd: string): string {
  const started = Date.now();
  const r = spawnSync(command, args, { cwd, encoding: "utf8" });
  const took = `${((Date.now() - started) / 1000).toFixed(1)} s`;
  if (r.error) throw new Error(`${command} ${args.join(" ")}: ${r.error.message}`);
  process.stdout.write(r.stdout + r.stderr);
  if (r.status !== 0) throw new Error(`${command} ${args.join(" ")} exited with ${r.status}`);
  console.log(`(${command} ${args[0]}: ${took})`);
  return r.stdout;
}

function main(): void {
  const i = Deno.args.indexOf("--tarball");
  let tarball: string;
  if (i >= 0) {
    tarball = path.resolve(Deno.args[i + 1]);
  } else {
    step("build and pack the npm package (scripts/build_npm.ts)");
    tarball = buildNpm();
  }
  const listing = spawnSync("tar", ["tzf", tarball], { encoding: "utf8" }).stdout.trim().split(
    "\n",
  );
  const stray = listing.filter((f) =>
    !/(\.js|\.d\.ts|package\.json|README\.md|LICENSE)$/.test(f) &&
    !/^package\/lib\/store\/pg\/migrations\/\d{3}_\w+\.sql$/.test(f) &&
    // The GitHub Action and the tool-file schema, shipped as they are.
    f !== "package/action.yml" && f !== "package/schemas/tool.schema.json"
  );
  if (stray.length > 0) throw new Error(`${tarball} holds files a Node user cannot use: ${stray}`);
  console.log(`${tarball}: ${listing.length} files, ${fs.statSync(tarball).size} bytes`);

  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "npm-consumer-"));
  try {
    fs.writeFileSync(
      path.join(dir, "package.json"),
      JSON.stringify({ name: "consumer", private: true, type: "module" }, null, 2) + "\n",
    );
    for (const file of ["consumer.ts", "tsconfig.json"]) {
      fs.copyFileSync(path.join(ROOT, "npm", "consumer", file), path.join(dir, file));
    }
    step(`npm install the tarball into a scratch project (${dir})`);
    run("npm", [
      "install",
      "--no-audit",
      "--no-fund",
      "--loglevel=error",
      tarball,
      "typescript@5",
      "@types/node@20",
      "fast-check@4",
    ], dir);
    const installed = JSON.parse(
      fs.readFileSync(path.join(dir, "node_modules/@tool-estate/core/package.json"), "utf8"),
    );
    for (const dep of Object.keys(installed.dependencies)) {
      if (!fs.existsSync(path.join(dir, "node_modules", dep, "package.json"))) {
        throw new Error(`npm did not install ${dep}, a dependency of the package`);
      }
    }
    const tsc = JSON.parse(
      fs.readFileSync(path.join(dir, "node_modules/typescript/package.json"), "utf8"),
    ).version;
    step(
      `tsc ${tsc}: type-check consumer.ts (strict, NodeNext; the package's .d.ts checked too), emit`,
    );
    run("node", ["node_modules/typescript/bin/tsc", "-p", "."], dir);
    const node = spawnSync("node", ["--version"], { encoding: "utf8" }).stdout.trim();
    step(`node consumer.js (Node ${node})`);
    const out = run("node", ["consumer.js"], dir);
    if (!/every check passed/.test(out)) throw new Error("consumer.js did not finish its checks");
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

try {
  main();
} catch (e) {
  console.error(`error: ${(e as Error).message}`);
  process.exitCode = 1;
}
