/**
 * The false-major measurement: generated non-breaking and breaking edits of tool input schemas
 * (`tests/_nonbreaking_edits.ts`), each verified by values from json-schema-faker checked with
 * ajv, classified by `classifySchemaChange` and by Atlassian's `json-schema-diff` (breaking when
 * it reports values removed by the new schema).
 */
import fc from "fast-check";
import jsonSchemaDiff from "json-schema-diff";
import { classifySchemaChange, type JsonSchema } from "../mod.ts";
import {
  breakingPair,
  type EditedPair,
  findBreakingValue,
  nonBreakingPair,
  type Obj,
} from "../tests/_nonbreaking_edits.ts";
import { toolSchema } from "../tests/_random_schemas.ts";

/** One classified pair: whether each tool calls it breaking (`error`: json-schema-diff threw). */
export interface Verdicts {
  ours: boolean;
  jsd: boolean | "error";
}

/** The result of a run. */
export interface FalseMajorRun {
  /** Verified non-breaking pairs, and how many generated pairs a value disproved (dropped). */
  nonBreaking: { verdicts: Verdicts[]; dropped: number };
  /** Verified breaking pairs (each with a witness), and how many had none (dropped). */
  breaking: { verdicts: Verdicts[]; dropped: number };
  /** The non-breaking pairs we call major, for a reader to inspect. */
  falseMajors: { pair: EditedPair; changes: string[] }[];
  /** The breaking pairs we call minor or patch (each a soundness bug). */
  missed: { pair: EditedPair; value: unknown }[];
  /** How many non-breaking pairs each edit appears in. */
  ops: Record<string, number>;
}

/** Base schemas: `count` random tool schemas (fast-check, `seed`) and the given corpus schemas. */
export function baseSchemas(count: number, seed: number, corpus: Obj[]): Obj[] {
  return [...fc.sample(toolSchema, { numRuns: count, seed }), ...corpus];
}

async function jsdBreaking(before: Obj, after: Obj): Promise<boolean | "error"> {
  try {
    const r = await jsonSchemaDiff.diffSchemas({
      sourceSchema: before as never,
      destinationSchema: after as never,
    });
    return r.removalsFound;
  } catch {
    return "error";
  }
}

/**
 * Generates `pairs` non-breaking and `pairs` breaking edits from `bases` (seeded), drops pairs the
 * independent check contradicts (a non-breaking pair with a value the new schema rejects; a
 * breaking pair without a witness), and classifies the rest with both tools.
 */
export async function runFalseMajors(
  bases: Obj[],
  options: { pairs: number; seed: number; values?: number },
): Promise<FalseMajorRun> {
  const { pairs, seed } = options;
  const values = options.values ?? 6;
  const run: FalseMajorRun = {
    nonBreaking: { verdicts: [], dropped: 0 },
    breaking: { verdicts: [], dropped: 0 },
    falseMajors: [],
    missed: [],
    ops: {},
  };
  for (let i = 0; i < pairs; i++) {
    const s = seed * 1_000_003 + i;
    const base = bases[i % bases.length];
    const good = nonBreakingPair(base, s);
    if (good) {
      if (findBreakingValue(good.before, good.after, s, values)) {
        run.nonBreaking.dropped++;
      } else {
        for (const op of good.ops) run.ops[op] = (run.ops[op] ?? 0) + 1;
        const ours = classifySchemaChange(good.before as JsonSchema, good.after as JsonSchema);
        run.nonBreaking.verdicts.push({
          ours: ours.bump === "major",
          jsd: await jsdBreaking(good.before, good.after),
        });
        if (ours.bump === "major") {
          run.falseMajors.push({
            pair: good,
            changes: ours.changes.filter((c) => c.bump === "major").map((c) =>
              `${c.path} ${c.kind}: ${c.message}`
            ),
          });
        }
      }
    }
    const bad = breakingPair(base, s);
    if (bad) {
      const witness = findBreakingValue(bad.before, bad.after, s, values);
      if (!witness) {
        run.breaking.dropped++;
      } else {
        const ours = classifySchemaChange(bad.before as JsonSchema, bad.after as JsonSchema);
        run.breaking.verdicts.push({
          ours: ours.bump === "major",
          jsd: await jsdBreaking(bad.before, bad.after),
        });
        if (ours.bump !== "major") run.missed.push({ pair: bad, value: witness.value });
      }
    }
  }
  return run;
}

const pct = (a: number, b: number): string => b === 0 ? "-" : `${(100 * a / b).toFixed(1)} %`;

/** Our false majors and misses over a run's pairs. */
export function ourCounts(run: FalseMajorRun): { falseMajors: number; missed: number } {
  return {
    falseMajors: run.nonBreaking.verdicts.filter((v) => v.ours).length,
    missed: run.breaking.verdicts.filter((v) => !v.ours).length,
  };
}

/**
 * The run as a Markdown table: both tools on every pair (json-schema-diff's errors counted as
 * breaking), then both on the pairs json-schema-diff handles.
 */
export function falseMajorTable(run: FalseMajorRun): string {
  const lines = [
    "| pairs | classifier | false majors (non-breaking called breaking) | missed (breaking not called breaking) | json-schema-diff errors |",
    "|---|---|---|---|---|",
  ];
  const scopes: [string, (v: Verdicts) => boolean][] = [
    ["all", () => true],
    ["json-schema-diff handles", (v) => v.jsd !== "error"],
  ];
  for (const [scope, keep] of scopes) {
    const nb = run.nonBreaking.verdicts.filter(keep), b = run.breaking.verdicts.filter(keep);
    const errors = [...nb, ...b].filter((v) => v.jsd === "error").length;
    const tools: [string, (v: Verdicts) => boolean][] = [
      ["tool-estate `classifySchemaChange`", (v) => v.ours],
      ["`json-schema-diff@1.0.0` (removals found)", (v) => v.jsd !== false],
    ];
    for (const [name, calls] of tools) {
      const fm = nb.filter(calls).length, missed = b.filter((v) => !calls(v)).length;
      lines.push(
        `| ${scope} (${nb.length} + ${b.length}) | ${name} | ${fm} / ${nb.length} (${
          pct(fm, nb.length)
        }) | ${missed} / ${b.length} (${pct(missed, b.length)}) | ${errors} |`,
      );
    }
  }
  return lines.join("\n");
}
