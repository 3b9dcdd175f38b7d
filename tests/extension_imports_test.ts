/**
 * The extension is a thin adapter over the library's core: it imports nothing from `lib/cli/`
 * (the command-line front end); findings come from `lib/report/`, the estate from `lib/store/`.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";

const SRC = new URL("../extension/src/", import.meta.url).pathname;

/** Every module specifier a source imports or re-exports (static and dynamic). */
function specifiers(text: string): string[] {
  const code = text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/\/\/.*$/gm, "");
  const out: string[] = [];
  for (
    const m of code.matchAll(/\b(?:from|import)\s*\(?\s*["']([^"']+)["']/g)
  ) out.push(m[1]);
  return out;
}

Deno.test("extension/src imports nothing from lib/cli/", () => {
  const offenders: string[] = [];
  let seen = 0;
  for (const name of fs.readdirSync(SRC)) {
    if (!name.endsWith(".ts")) continue;
    for (
      const spec of specifiers(fs.readFileSync(path.join(SRC, name), "utf8"))
    ) {
      seen++;
      if (!spec.startsWith(".")) continue;
      const target = path.resolve(SRC, spec);
      const rel = path.relative(path.resolve(SRC, "../.."), target).split(
        path.sep,
      ).join("/");
      if (rel.startsWith("lib/cli/") || rel === "cli.ts") {
        offenders.push(`${name}: ${spec}`);
      }
    }
  }
  assert.ok(seen > 10, "the scan found the imports");
  assert.deepEqual(offenders, []);
});

Deno.test("the import scan sees a lib/cli import, static or dynamic", () => {
  assert.deepEqual(
    specifiers(
      'import { a } from "../../lib/cli/_x.ts";\nexport { b } from "./b.ts";\nawait import("../../lib/cli/y.ts");',
    ),
    ["../../lib/cli/_x.ts", "./b.ts", "../../lib/cli/y.ts"],
  );
});
