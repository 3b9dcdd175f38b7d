import fc from "fast-check";
import { classifySchemaChange, validateSchema } from "../mod.ts";
import { arbitraryForSchema, SchemaGenerationError } from "../testing.ts";
type O = Record<string, unknown>;
const small = fc.constantFrom(0, 1, 2, 3);
const val = fc.constantFrom<unknown>(0, 1, 2, 1.5, "a", "b", "", true, null, [], {});
const { s } = fc.letrec<{ s: unknown }>((tie) => ({
  s: fc.oneof({ maxDepth: 3, depthSize: "small" },
    { weight: 1, arbitrary: fc.constantFrom(true, false, {}) },
    { weight: 6, arbitrary: fc.record({
      type: fc.constantFrom("integer", "number", "string", "boolean", "null", "array", "object", ["integer", "string"], ["number", "null"]),
      minimum: small, maximum: fc.constantFrom(2, 3, 5), exclusiveMinimum: small, exclusiveMaximum: fc.constantFrom(1, 3, 5),
      multipleOf: fc.constantFrom(1, 2, 0.5), minLength: small, maxLength: fc.constantFrom(1, 3, 5),
      pattern: fc.constantFrom("^a", "b", "^[ab]*$"), format: fc.constantFrom("date", "email"),
      enum: fc.uniqueArray(val, { minLength: 1, maxLength: 3, selector: (v) => JSON.stringify(v) }), const: val,
      items: tie("s"), prefixItems: fc.array(tie("s"), { maxLength: 2 }), contains: tie("s"), minContains: small, maxContains: fc.constantFrom(1, 2, 3),
      minItems: small, maxItems: fc.constantFrom(1, 2, 4), uniqueItems: fc.boolean(),
      properties: fc.dictionary(fc.constantFrom("a", "b", "c"), tie("s"), { maxKeys: 3 }),
      required: fc.subarray(["a", "b", "c"]), additionalProperties: tie("s"),
      patternProperties: fc.dictionary(fc.constantFrom("^a", "^b", "c$"), tie("s"), { maxKeys: 2 }),
      propertyNames: fc.constantFrom({ maxLength: 1 }, { enum: ["a", "b"] }, { pattern: "^[ab]$" }),
      dependentRequired: fc.dictionary(fc.constantFrom("a", "b"), fc.subarray(["a", "b", "c"]), { maxKeys: 2 }),
      minProperties: small, maxProperties: fc.constantFrom(1, 2, 3),
      anyOf: fc.array(tie("s"), { minLength: 1, maxLength: 3 }), oneOf: fc.array(tie("s"), { minLength: 1, maxLength: 3 }),
      allOf: fc.array(tie("s"), { minLength: 1, maxLength: 2 }), not: tie("s"), if: tie("s"), then: tie("s"), else: tie("s"),
      default: val,
    }, { requiredKeys: [] }).chain((o) => fc.shuffledSubarray(Object.keys(o), { minLength: 0, maxLength: 3 }).map((keys) =>
      Object.fromEntries(keys.map((k) => [k, (o as O)[k]])))) },
  ),
}));
// mutate: pick random subschema and replace with random or delete a keyword
function nodes(x: unknown, out: O[] = []): O[] {
  if (typeof x !== "object" || x === null || Array.isArray(x)) return out;
  out.push(x as O);
  for (const v of Object.values(x as O)) {
    if (Array.isArray(v)) v.forEach((y) => nodes(y, out)); else if (typeof v === "object" && v) { nodes(v, out); for (const w of Object.values(v as O)) nodes(w, out); }
  }
  return out;
}
const pairArb = fc.tuple(s, s, fc.nat(), fc.nat(), fc.boolean()).map(([a, r, i, j, del]) => {
  const b = structuredClone(a);
  const ns = nodes(b);
  if (!ns.length) return [a, r];
  const n = ns[i % ns.length]; const keys = Object.keys(n);
  if (del && keys.length) delete n[keys[j % keys.length]];
  else if (keys.length) n[keys[j % keys.length]] = structuredClone(r); else return [a, r];
  return [a, b];
});
const N = Number(Deno.args[0] ?? 5000);
let checked = 0, fails = 0; const bumps: Record<string, number> = {};
for (const [a, b] of fc.sample(pairArb, { numRuns: N, seed: Number(Deno.args[1] ?? 1) })) {
  let r;
  try { r = classifySchemaChange(a as any, b as any); } catch (e) { console.log("CRASH", e, JSON.stringify(a), JSON.stringify(b)); fails++; continue; }
  bumps[r.bump] = (bumps[r.bump] ?? 0) + 1;
  if (r.bump === "major") continue;
  let vals: unknown[];
  try { vals = fc.sample(arbitraryForSchema(a as any), { numRuns: 10, seed: 3 }); } catch (e) { if (e instanceof SchemaGenerationError) continue; console.log("GENCRASH", e, JSON.stringify(a)); fails++; continue; }
  checked++;
  for (const v of vals) {
    if (validateSchema(b as any, v).length) { fails++; if (fails < 6) console.log("UNSOUND", r.bump, JSON.stringify(r.changes), "\n A", JSON.stringify(a), "\n B", JSON.stringify(b), "\n V", JSON.stringify(v)); break; }
  }
}
console.log({ bumps, checked, fails });
