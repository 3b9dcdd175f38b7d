// docs/threat-model.md proves each control by a test it names: every named test must exist.
import assert from "node:assert/strict";
import fs from "node:fs";

Deno.test("docs/threat-model.md names only tests that exist, in the files it says", () => {
  const doc = fs.readFileSync(
    new URL("../docs/threat-model.md", import.meta.url),
    "utf8",
  );
  const cited = [
    ...doc.matchAll(/`([a-z0-9_]+_test\.ts)` — ((?:"[^"]+"(?:,\s)?)+)/g),
  ];
  assert.ok(cited.length >= 10, `only ${cited.length} citations found`);
  const missing: string[] = [];
  for (const [, file, names] of cited) {
    const text = fs.readFileSync(new URL(`./${file}`, import.meta.url), "utf8");
    for (const [, wrapped] of names.matchAll(/"([^"]+)"/g)) {
      const name = wrapped.replace(/\s+/g, " "); // the formatter wraps prose
      if (!text.includes(`Deno.test("${name}"`)) {
        missing.push(`${file}: ${name}`);
      }
    }
  }
  assert.deepEqual(missing, []);
});
