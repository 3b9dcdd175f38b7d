/**
 * The classifier's cost on recursive schemas: `$defs` nodes of growing number (depth) that each
 * refer to several others (width), through `properties` and an `anyOf` of references, with one
 * bound loosened in the last node (so the change sits inside every cycle) — the shape that took
 * seconds before the memo and the step budget. For each size: the schema's size in bytes, the
 * verdict, and the median and spread (the farthest run from the median) of `--runs` runs of
 * `classifySchemaChange` and `classifyOutputSchemaChange`.
 *
 *   deno task run bench/classify_cost_bench.ts [--runs 9]
 *
 * @module
 */
import { classifyOutputSchemaChange, classifySchemaChange, type JsonSchema } from "../mod.ts";
import { flag, markdownTable, median } from "./_stats.ts";

/** A recursive schema: `depth` nodes, each referring to `width` others. */
export function recursiveSchema(depth: number, width: number, variant: number): JsonSchema {
  const defs: Record<string, unknown> = {};
  for (let i = 0; i < depth; i++) {
    const refs = Array.from({ length: width }, (_, j) => ({
      $ref: `#/$defs/n${(i + j + 1) % depth}`,
    }));
    defs[`n${i}`] = {
      type: "object",
      properties: Object.fromEntries(refs.map((r, j) => [`p${j}`, r])),
      anyOf: refs.map((r) => ({ ...r })),
      ...(i === depth - 1 ? { maxProperties: 5 + variant } : {}),
    };
  }
  return { type: "object", properties: { root: { $ref: "#/$defs/n0" } }, $defs: defs };
}

const runs = flag(Deno.args, "runs", 9);
const rows: string[][] = [];
for (const [depth, width] of [[1, 1], [2, 2], [3, 2], [4, 3], [6, 3], [6, 4], [8, 4], [10, 5]]) {
  const before = recursiveSchema(depth, width, 0), after = recursiveSchema(depth, width, 1);
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
  markdownTable(["depth×width", "bytes", "classify", "verdict", "median ms", "spread ms"], rows),
);
