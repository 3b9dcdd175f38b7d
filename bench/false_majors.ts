/**
 * False majors and misses, side by side with Atlassian's `json-schema-diff`, on generated
 * non-breaking and breaking edits of tool input schemas (random tool schemas and the corpus's
 * `inputSchema`s), each verified independently (json-schema-faker values checked with ajv).
 * Prints a Markdown table, then the false majors and misses.
 *
 *   deno task run bench/false_majors.ts [--pairs 1000] [--seed 7] [--bases 200]
 */
import { baseSchemas, falseMajorTable, runFalseMajors } from "./_false_majors.ts";
import type { Obj } from "../tests/_nonbreaking_edits.ts";
import { flag as parseFlag } from "./_stats.ts";

function flag(name: string, fallback: number): number {
  return parseFlag(Deno.args, name, fallback);
}

const pairs = flag("pairs", 1000);
const seed = flag("seed", 7);
const bases = flag("bases", 200);

const corpus: Obj[] = [];
const root = new URL("../corpus/tools/", import.meta.url);
for await (const tool of Deno.readDir(root)) {
  if (!tool.isDirectory) continue;
  for await (const f of Deno.readDir(new URL(`${tool.name}/`, root))) {
    if (!/^\d+\.\d+\.\d+\.json$/.test(f.name)) continue;
    const spec = JSON.parse(await Deno.readTextFile(new URL(`${tool.name}/${f.name}`, root)));
    if (spec.inputSchema) corpus.push(spec.inputSchema);
  }
}
corpus.sort((a, b) => JSON.stringify(a) < JSON.stringify(b) ? -1 : 1);

const t0 = performance.now();
const run = await runFalseMajors(baseSchemas(bases, seed, corpus), { pairs, seed });
console.log(
  `false majors: ${pairs} tries per set, seed ${seed}, ${bases} random tool schemas + ${corpus.length} corpus inputSchemas; ` +
    `kept ${run.nonBreaking.verdicts.length} non-breaking (${run.nonBreaking.dropped} dropped: a value broke them) and ` +
    `${run.breaking.verdicts.length} breaking (${run.breaking.dropped} dropped: no witness found), ${
      ((performance.now() - t0) / 1000).toFixed(1)
    } s\n`,
);
console.log(falseMajorTable(run));
console.log(
  `\nnon-breaking edits used: ${
    Object.entries(run.ops).sort(([a], [b]) => a < b ? -1 : 1).map(([k, v]) => `${k} ${v}`).join(
      ", ",
    )
  }`,
);
if (run.falseMajors.length) {
  console.log(`\nfalse majors (${run.falseMajors.length}):`);
  for (const { pair, changes } of run.falseMajors.slice(0, 20)) {
    console.log(`- ${pair.ops.join(", ")}\n    ${changes.join("\n    ")}`);
  }
}
if (run.missed.length) {
  console.log(`\nmissed (${run.missed.length}):`);
  for (const { pair, value } of run.missed) {
    console.log(
      `- ${pair.ops.join(", ")}: ${JSON.stringify(value)}\n    before: ${
        JSON.stringify(pair.before)
      }\n    after:  ${JSON.stringify(pair.after)}`,
    );
  }
}
