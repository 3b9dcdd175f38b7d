import fc from "fast-check";
import { arbitraryForSchema, SchemaGenerationError } from "../testing.ts";
import { toolSchema } from "../tests/_random_schemas.ts";
let n = 0, bad = 0;
for (const s of fc.sample(toolSchema, { numRuns: 3000, seed: 3 })) {
  try { fc.sample(arbitraryForSchema(s as any), { numRuns: 10, seed: 1 }); n++; } catch (e) {
    if (!(e instanceof SchemaGenerationError)) throw e;
    bad++; if (bad <= 12) console.log(e.message.slice(0, 400), "\n   ", JSON.stringify(s).slice(0, 600));
  }
}
console.log({ n, bad });
