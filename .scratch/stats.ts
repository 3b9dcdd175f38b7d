import fc from "fast-check";
import { classifySchemaChange, validateSchema } from "../mod.ts";
import { arbitraryForSchema, SchemaGenerationError } from "../testing.ts";
import { applyEdits, editArb, toolSchema } from "../tests/_random_schemas.ts";
const N = Number(Deno.args[0] ?? 2000);
const changeArb = fc.tuple(toolSchema, fc.array(editArb, { minLength: 1, maxLength: 3 })).map(([before, edits]) => ({ before, ...applyEdits(before, edits) }));
const bumps: Record<string, number> = {}; let skipped = 0, checked = 0, failures = 0, genErr = 0;
const reasons: Record<string, number> = {};
for (const { before, schema: after, ops } of fc.sample(changeArb, { numRuns: N, seed: Number(Deno.args[1] ?? 42) })) {
  const r = classifySchemaChange(before as any, after as any);
  bumps[r.bump] = (bumps[r.bump] ?? 0) + 1;
  if (r.bump === "major") continue;
  let vals: unknown[];
  try { vals = fc.sample(arbitraryForSchema(before as any), { numRuns: 8, seed: 7 }); } catch (e) { if (e instanceof SchemaGenerationError) { skipped++; const k = e.message.replace(/for \$[^:]*/, "").slice(0, 80); reasons[k] = (reasons[k] ?? 0) + 1; continue; } throw e; }
  checked++;
  for (const v of vals) {
    const issues = validateSchema(after as any, v);
    if (issues.length) { failures++; if (failures <= 3) console.log("FAIL", ops, r.bump, JSON.stringify(r.changes), "\nB", JSON.stringify(before), "\nA", JSON.stringify(after), "\nV", JSON.stringify(v), issues); break; }
  }
}
console.log({ bumps, skipped, checked, failures }, reasons);
