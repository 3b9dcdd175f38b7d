/**
 * The classifier's cost on recursive schemas (`tests/_recursive_schemas.ts`): `$defs` nodes of
 * growing number (depth) that each refer to several others (width), through `properties` and an
 * `anyOf` of references (under properties of its own, or as `additionalProperties`), with one
 * bound loosened in the last node (so the change sits inside every cycle) — the shape that took
 * seconds before the memo, the cycle rounds and the step budget. For each size: the schema's size
 * in bytes, the verdict (`(budget)`: the step budget decided it), and the median and spread (the
 * farthest run from the median) of `--runs` runs of `classifySchemaChange` and
 * `classifyOutputSchemaChange`.
 *
 *   deno task run bench/classify_cost_bench.ts [--runs 9]
 *
 * @module
 */
import { classifyOutputSchemaChange, classifySchemaChange } from "../mod.ts";
import { flag, markdownTable, median } from "./_stats.ts";
import { recursiveSchema } from "../tests/_recursive_schemas.ts";

const runs = flag(Deno.args, "runs", 9);
const rows: string[][] = [];
const sizes = [[1, 1], [2, 2], [3, 2], [4, 3], [6, 3], [6, 4], [8, 4], [10, 5]];
for (
  const [shape, [depth, width]] of (["members", "additional"] as const).flatMap((s) =>
    sizes.map((d) => [s, d] as const)
  )
) {
  const before = recursiveSchema(depth, width, 0, shape);
  const after = recursiveSchema(depth, width, 1, shape);
  for (
    const [name, classify] of [["input", classifySchemaChange], [
      "output",
      classifyOutputSchemaChange,
    ]] as const
  ) {
    const times: number[] = [];
    let verdict = "";
    for (let r = 0; r <= runs; r++) {
      const t0 = performance.now();
      const c = classify(before, after);
      const ms = performance.now() - t0;
      if (r > 0) times.push(ms); // the first run warms up
      verdict = `${c.bump}${
        c.changes.some((x) => x.message.includes("budget")) ? " (budget)" : ""
      }`;
    }
    const m = median(times);
    const spread = Math.max(...times.map((t) => Math.abs(t - m)));
    rows.push([
      shape,
      `${depth}×${width}`,
      String(JSON.stringify(before).length),
      name,
      verdict,
      m.toFixed(1),
      spread.toFixed(1),
    ]);
  }
}
console.log(
  markdownTable(
    ["anyOf", "depth×width", "bytes", "classify", "verdict", "median ms", "spread ms"],
    rows,
  ),
);
