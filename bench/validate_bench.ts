/**
 * validateSchema() against ajv (allErrors) on the same schemas and the same stored calls, with
 * JSON.parse of the calls as the yardstick. Run: `deno task bench bench/validate_bench.ts`.
 */
import Ajv from "ajv";
import addFormats from "ajv-formats";
import { isValid, validateSchema } from "../mod.ts";
import { type Call, makeCalls, SCHEMAS } from "./_calls.ts";

const calls = makeCalls(2_000);
const parsed = calls.map((c) => ({ tool: c.tool, args: JSON.parse(c.text) as unknown }));
// deno-lint-ignore no-explicit-any
const ajv = new (Ajv as any)({ allErrors: true, strict: false });
// Both sides assert the same formats (ajv-formats' "full" mode, like ours: real calendar dates).
// deno-lint-ignore no-explicit-any
(addFormats as any)(ajv, { mode: "full", formats: ["date", "date-time", "email", "uuid"] });
const ajvValidators = Object.fromEntries(
  Object.entries(SCHEMAS).map(([k, s]) => [k, ajv.compile(s)]),
);
const valid = parsed.filter((c) => isValid(SCHEMAS[c.tool], c.args));
const invalid = parsed.filter((c) => !isValid(SCHEMAS[c.tool], c.args));
const validTexts: Call[] = calls.filter((_, i) => isValid(SCHEMAS[parsed[i].tool], parsed[i].args));
const bytes = calls.reduce((n, c) => n + c.text.length, 0) / calls.length;
console.log(
  `${calls.length} calls, ${valid.length} valid, ${invalid.length} invalid, mean ${
    bytes.toFixed(0)
  } bytes`,
);

let sink = 0;

Deno.bench({ name: "JSON.parse of the valid calls", group: "valid", baseline: true }, () => {
  for (const c of validTexts) sink += (JSON.parse(c.text) as object) ? 1 : 0;
});
Deno.bench({ name: "validateSchema (all errors) on the valid calls", group: "valid" }, () => {
  for (const c of valid) sink += validateSchema(SCHEMAS[c.tool], c.args).length;
});
Deno.bench({ name: "ajv allErrors on the valid calls", group: "valid" }, () => {
  for (const c of valid) sink += ajvValidators[c.tool](c.args) ? 0 : 1;
});

Deno.bench({ name: "JSON.parse of all calls", group: "corpus", baseline: true }, () => {
  for (const c of calls) sink += (JSON.parse(c.text) as object) ? 1 : 0;
});
Deno.bench(
  { name: "validateSchema (all errors) on all calls (10% invalid)", group: "corpus" },
  () => {
    for (const c of parsed) sink += validateSchema(SCHEMAS[c.tool], c.args).length;
  },
);
Deno.bench({ name: "ajv allErrors on all calls (10% invalid)", group: "corpus" }, () => {
  for (const c of parsed) {
    const v = ajvValidators[c.tool];
    sink += v(c.args) ? 0 : v.errors.length;
  }
});

Deno.bench({
  name: "validateSchema (all errors, sorted) on the invalid calls",
  group: "invalid",
  baseline: true,
}, () => {
  for (const c of invalid) sink += validateSchema(SCHEMAS[c.tool], c.args).length;
});
Deno.bench({ name: "ajv allErrors on the invalid calls", group: "invalid" }, () => {
  for (const c of invalid) {
    const v = ajvValidators[c.tool];
    sink += v(c.args) ? 0 : v.errors.length;
  }
});

globalThis.addEventListener("unload", () => {
  if (sink === -1) console.log(sink);
});
