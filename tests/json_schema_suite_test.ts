import assert from "node:assert/strict";
import { validateSchema } from "../mod.ts";
import type { JsonSchema } from "../mod.ts";
import { loadSuite, suitePresent } from "./_suite.ts";

if (!suitePresent()) {
  Deno.test({
    name:
      "JSON-Schema-Test-Suite: skipped, ../shared/JSON-Schema-Test-Suite is not beside this clone (CI requires it)",
    ignore: true,
    fn() {},
  });
} else {
  for (const c of loadSuite().cases) {
    Deno.test({
      name: `suite ${c.file} :: ${c.group} :: ${c.description}${
        c.skip ? ` (skipped: ${c.skip})` : ""
      }`,
      ignore: c.skip !== undefined,
      fn() {
        const issues = validateSchema(c.schema as JsonSchema, c.data, {
          formatAssertion: c.formatAssertion,
        });
        assert.equal(issues.length === 0, c.valid, JSON.stringify(issues));
      },
    });
  }
}
