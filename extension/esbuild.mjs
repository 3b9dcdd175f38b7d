// Bundles the extension (client) and the language server, each into one CommonJS file under
// dist/, against the library's TypeScript source in ../lib. `--minify` for packaging; `--outdir DIR`
// writes elsewhere (the tests build beside dist/ and rename into place: scripts/_extension_build.ts).
//
//   node esbuild.mjs [--minify] [--outdir DIR]
import fs from "node:fs";
import path from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import * as esbuild from "esbuild";

const here = path.dirname(fileURLToPath(import.meta.url));
const minify = process.argv.includes("--minify");
const outdirArg = process.argv.indexOf("--outdir");
const outdir = outdirArg >= 0 ? path.resolve(process.argv[outdirArg + 1]) : path.join(here, "dist");

// The library's own npm imports (semver, re2js) resolve from this folder's node_modules, whatever
// is (or is not) installed beside the library.
const libraryDeps = {
  name: "library-deps",
  setup(build) {
    build.onResolve({ filter: /^[a-z@][^:]*$/ }, (args) => {
      if (args.importer.startsWith(here + path.sep) || args.pluginData === "library-deps") {
        return undefined;
      }
      return build.resolve(args.path, {
        kind: args.kind,
        resolveDir: here,
        pluginData: "library-deps",
      });
    });
  },
};

const common = {
  bundle: true,
  platform: "node",
  format: "cjs",
  target: "node20",
  // jsonc-parser's "main" is a UMD build that esbuild cannot follow; its "module" build works.
  mainFields: ["module", "main"],
  sourcemap: minify ? false : "linked",
  minify,
  logLevel: "warning",
  plugins: [libraryDeps],
};

// The tool-file JSON Schema (package.json's jsonValidation) is the library's, published beside it.
fs.mkdirSync(outdir, { recursive: true });
fs.copyFileSync(
  path.join(here, "..", "schemas", "tool.schema.json"),
  path.join(outdir, "tool.schema.json"),
);

await Promise.all([
  esbuild.build({
    ...common,
    entryPoints: [path.join(here, "src/extension.ts")],
    outfile: path.join(outdir, "extension.js"),
    external: ["vscode"],
  }),
  esbuild.build({
    ...common,
    entryPoints: [path.join(here, "src/server.ts")],
    outfile: path.join(outdir, "server.js"),
  }),
]);
