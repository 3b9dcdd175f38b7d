/**
 * Prints the JSON-Schema-Test-Suite results per file as a Markdown table, for `docs/validation.md`:
 * `deno task suite-report`.
 */
import { validateSchema } from "../mod.ts";
import type { JsonSchema } from "../mod.ts";
import { loadSuite, suitePresent } from "./_suite.ts";

if (!suitePresent()) {
  console.error("../shared/JSON-Schema-Test-Suite is not beside this clone");
  Deno.exit(2);
}
const { cases, unsupported } = loadSuite();
const rows = new Map<
  string,
  { total: number; passed: number; skipped: number; reasons: Set<string> }
>();
for (const c of cases) {
  const row = rows.get(c.file) ??
    { total: 0, passed: 0, skipped: 0, reasons: new Set() };
  rows.set(c.file, row);
  row.total++;
  if (c.skip) {
    row.skipped++;
    row.reasons.add(c.skip);
    continue;
  }
  const ok = validateSchema(c.schema as JsonSchema, c.data, {
    formatAssertion: c.formatAssertion,
  })
    .length === 0;
  if (ok === c.valid) row.passed++;
}
console.log("| file | cases | passed | skipped | why skipped |");
console.log("| --- | ---: | ---: | ---: | --- |");
let total = 0, passed = 0, skipped = 0;
for (const [file, r] of rows) {
  total += r.total;
  passed += r.passed;
  skipped += r.skipped;
  console.log(
    `| ${file} | ${r.total} | ${r.passed} | ${r.skipped} | ${[...r.reasons].join("; ")} |`,
  );
}
for (const [file, reason] of Object.entries(unsupported)) {
  console.log(`| ${file} | — | — | all | ${reason} |`);
}
console.log(
  `| **all run files** | **${total}** | **${passed}** | **${skipped}** | |`,
);
