/**
 * Builds the npm package of the library, what the npm registry would serve: `dist/npm/` holds ESM
 * JavaScript and `.d.ts` types for each entry point of deno.json's `exports` (`.`, `./testing`,
 * `./store`, `./stdio`, `./http`, `./gateway`, `./postgres`; npm/tsconfig.json lists their files),
 * the PostgreSQL store's migrations (`lib/store/pg/migrations/*.sql`, read beside the compiled
 * `migrate.js`), a `package.json` with an `exports` map (`types` and `default` for each), the
 * README for Node users (`npm/README.md`) and the LICENSE; then `npm pack` writes
 * `dist/tool-estate-core-<version>.tgz`.
 *
 *   deno task npm            (prints the tarball's path on stdout)
 *
 * tsc (npm `typescript`, from deno.json) compiles the TypeScript source as it is, with
 * `rewriteRelativeImportExtensions` turning `./x.ts` into `./x.js`; the `.d.ts` files get the same
 * rewrite here. `scripts/check_npm_package.ts` installs the tarball into a scratch Node project and
 * uses it.
 *
 * @module
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import process from "node:process";

const ROOT = path.resolve(new URL("..", import.meta.url).pathname);
const OUT = path.join(ROOT, "dist", "npm");

interface DenoJson {
  name: string;
  version: string;
  license: string;
  exports: Record<string, string>;
  imports: Record<string, string>;
}

/** The npm version range of a dependency deno.json imports as `npm:name@version`. */
function range(deno: DenoJson, name: string): string {
  const spec = deno.imports[name];
  const m = /^npm:(?:@?[^@]+)@(\d+\.\d+\.\d+)$/.exec(spec ?? "");
  if (!m) throw new Error(`deno.json imports no exact npm version of ${name} (got ${spec})`);
  return `^${m[1]}`;
}

/** The package.json of the npm package. */
export function packageJson(deno: DenoJson): Record<string, unknown> {
  const exports: Record<string, { types: string; default: string } | string> = {};
  for (const [entry, file] of Object.entries(deno.exports)) {
    const js = file.replace(/\.ts$/, ".js");
    exports[entry] = { types: js.replace(/\.js$/, ".d.ts"), default: js };
  }
  // The tool-file JSON Schema, for editors and tools that resolve it from node_modules.
  exports["./schemas/tool.schema.json"] = "./schemas/tool.schema.json";
  return {
    name: deno.name,
    version: deno.version,
    description:
      "Govern an estate of MCP tools: JSON Schema validation, schema-change classification, an immutable tool registry, an MCP server and client (stdio, Streamable HTTP).",
    license: deno.license,
    type: "module",
    exports,
    bin: { estate: BIN },
    files: [
      "*.js",
      "*.d.ts",
      "bin/",
      "lib/",
      "examples/",
      "schemas/",
      "action.yml",
      "README.md",
      "LICENSE",
    ],
    sideEffects: false,
    engines: { node: ">=20" },
    dependencies: {
      jose: range(deno, "jose"),
      "jsonc-parser": range(deno, "jsonc-parser"),
      postgres: range(deno, "postgres"),
      re2js: range(deno, "re2js"),
      semver: range(deno, "semver"),
    },
    // ./testing hands out fast-check arbitraries: they must come from the caller's own fast-check.
    peerDependencies: { "fast-check": range(deno, "fast-check") },
    peerDependenciesMeta: { "fast-check": { optional: true } },
    keywords: ["mcp", "model-context-protocol", "json-schema", "semver", "registry"],
  };
}

/** `./x.ts` → `./x.js` in the import and export specifiers of a declaration file. */
export function rewriteDeclaration(text: string): string {
  return text.replace(
    /((?:from|import)\s*\(?\s*)(["'])(\.{1,2}\/[^"']+)\.ts\2/g,
    (_, lead, quote, base) => `${lead}${quote}${base}.js${quote}`,
  );
}

function run(command: string, args: string[], cwd: string): string {
  const r = spawnSync(command, args, { cwd, encoding: "utf8" });
  if (r.error) throw new Error(`${command} ${args.join(" ")}: ${r.error.message}`);
  if (r.status !== 0) {
    throw new Error(
      `${command} ${args.join(" ")} exited with ${r.status}:\n${r.stdout}${r.stderr}`,
    );
  }
  return r.stdout;
}

/** The `estate` command's file in the package: Node runs the compiled `cli.js`'s `main`. */
export const BIN = "bin/estate.js";

/** The bin's text: `cli.js` runs nothing when imported, so the bin calls its `main`. */
export const BIN_TEXT = `#!/usr/bin/env node
// The estate command (npm bin): the CLI compiled from cli.ts, run by Node 20 or newer.
import process from "node:process";
import { main } from "../cli.js";
process.exitCode = await main(process.argv.slice(2));
`;

/** Files the package ships as they are in the repository: the Action and the tool-file schema. */
const VERBATIM = ["action.yml", path.join("schemas", "tool.schema.json")];

/** The folder of the PostgreSQL store's migrations, relative to the repository and the package. */
const MIGRATIONS = path.join("lib", "store", "pg", "migrations");

function declarations(dir: string): string[] {
  return fs.readdirSync(dir, { recursive: true, encoding: "utf8" })
    .filter((f) => f.endsWith(".d.ts"))
    .map((f) => path.join(dir, f));
}

/**
 * Builds `dist/npm/` and packs it.
 *
 * @returns The tarball's path.
 * @throws {Error} When tsc or npm fails, with their output; when an entry point of deno.json's
 *   `exports` was not compiled (npm/tsconfig.json does not list it).
 */
export function buildNpm(): string {
  const deno = JSON.parse(fs.readFileSync(path.join(ROOT, "deno.json"), "utf8")) as DenoJson;
  fs.rmSync(OUT, { recursive: true, force: true });
  const tsc = path.join(ROOT, "node_modules", "typescript", "bin", "tsc");
  if (!fs.existsSync(tsc)) throw new Error(`${tsc} is missing: run deno install first`);
  run("node", [tsc, "-p", path.join(ROOT, "npm", "tsconfig.json")], ROOT);
  for (const file of declarations(OUT)) {
    fs.writeFileSync(file, rewriteDeclaration(fs.readFileSync(file, "utf8")));
  }
  for (const [entry, file] of Object.entries(deno.exports)) {
    const js = file.replace(/\.ts$/, ".js");
    for (const out of [js, js.replace(/\.js$/, ".d.ts")]) {
      if (!fs.existsSync(path.join(OUT, out))) {
        throw new Error(
          `tsc did not emit ${out} for the entry point ${entry}: list ${file} in npm/tsconfig.json`,
        );
      }
    }
  }
  fs.mkdirSync(path.join(OUT, MIGRATIONS), { recursive: true });
  for (const name of fs.readdirSync(path.join(ROOT, MIGRATIONS))) {
    if (name.endsWith(".sql")) {
      fs.copyFileSync(path.join(ROOT, MIGRATIONS, name), path.join(OUT, MIGRATIONS, name));
    }
  }
  fs.mkdirSync(path.join(OUT, path.dirname(BIN)), { recursive: true });
  fs.writeFileSync(path.join(OUT, BIN), BIN_TEXT, { mode: 0o755 });
  for (const file of VERBATIM) {
    fs.mkdirSync(path.join(OUT, path.dirname(file)), { recursive: true });
    fs.copyFileSync(path.join(ROOT, file), path.join(OUT, file));
  }
  fs.writeFileSync(
    path.join(OUT, "package.json"),
    JSON.stringify(packageJson(deno), null, 2) + "\n",
  );
  fs.copyFileSync(path.join(ROOT, "npm", "README.md"), path.join(OUT, "README.md"));
  fs.copyFileSync(path.join(ROOT, "LICENSE"), path.join(OUT, "LICENSE"));
  const packed = JSON.parse(
    run("npm", ["pack", "--json", "--pack-destination", path.dirname(OUT)], OUT),
  ) as { filename: string }[];
  return path.join(path.dirname(OUT), packed[0].filename);
}

if (import.meta.main) {
  try {
    console.log(buildNpm());
  } catch (e) {
    console.error((e as Error).message);
    process.exitCode = 1;
  }
}
