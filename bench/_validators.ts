/**
 * The validators the benchmarks compare, set up alike: each asserts the same formats (ours:
 * `ASSERTED_FORMATS`; ajv through ajv-formats in "full" mode; schemasafe and cfworker assert their
 * own built-in checks of the same names), each reads the draft the schema declares. Every
 * contender compiles a schema into `(value) => number`: 0 when the value is valid, else how many
 * errors it reports (1 for the first-error and boolean forms).
 *
 * `compileSchema` is used only when `mod.ts` exports it: the benches run against whatever `lib/`
 * is.
 *
 * @module
 */
import Ajv from "ajv";
import addFormats from "ajv-formats";
import { validator as schemasafeValidator } from "@exodus/schemasafe";
import { Validator as CfValidator } from "@cfworker/json-schema";
import * as core from "../mod.ts";
import {
  ASSERTED_FORMATS,
  isValid,
  type JsonSchema,
  parsePath,
  type SchemaIssue,
  validateSchema,
} from "../mod.ts";
import type { WorkloadTool } from "./_mcp_tools.ts";
import type { Call } from "./_mcp_workload.ts";

/** A compiled validator: 0 when valid, else how many errors it reports. */
export type Check = (value: unknown) => number;

/** One validator in one configuration. */
export interface Contender {
  /** Its label in the tables. */
  name: string;
  /** Whose it is. */
  family: "ajv" | "schemasafe" | "cfworker" | "ours";
  /** Whether it reports every error (else the first, or only a yes or no). */
  allErrors: boolean;
  /** Compiles a schema; the first-call latency measures this and one call. */
  compile: (schema: JsonSchema, draft: WorkloadTool["draft"]) => Check;
  /** The errors it reports, for printing a disagreement. */
  explain: (schema: JsonSchema, draft: WorkloadTool["draft"], value: unknown) => unknown;
}

/** The value at a JSON pointer (`/a/0`, `#/a/0`) or `$` path, shown beside an error. */
function valueAt(value: unknown, where: string): string {
  const segs = where.startsWith("$")
    ? parsePath(where)
    : where.replace(/^#/, "").split("/").slice(1).map((s) =>
      s.replaceAll("~1", "/").replaceAll("~0", "~")
    );
  let at = value;
  for (const s of segs) at = (at as Record<string, unknown> | undefined)?.[s as string];
  const text = JSON.stringify(at) ?? "absent";
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

function newAjv(allErrors: boolean) {
  // deno-lint-ignore no-explicit-any
  const ajv = new (Ajv as any)({ allErrors, strict: false });
  // deno-lint-ignore no-explicit-any
  (addFormats as any)(ajv, { mode: "full", formats: [...ASSERTED_FORMATS] });
  ajv.compile({ type: "object", properties: { warm: { type: "string", format: "date" } } });
  return ajv;
}

type CompiledAjv = ((v: unknown) => boolean) & { errors?: unknown[] | null };

function ajvContender(allErrors: boolean): Contender {
  const ajv = newAjv(allErrors);
  return {
    name: allErrors ? "ajv (allErrors)" : "ajv (first error)",
    family: "ajv",
    allErrors,
    compile(schema) {
      const v = ajv.compile(schema) as CompiledAjv;
      return (x) => v(x) ? 0 : v.errors!.length;
    },
    explain(schema, _draft, value) {
      const v = ajv.compile(schema) as CompiledAjv;
      v(value);
      return (v.errors ?? []).map((e) => {
        const { instancePath, message } = e as { instancePath: string; message: string };
        return `${instancePath} ${message} (${valueAt(value, instancePath)})`;
      });
    },
  };
}

function schemasafeOptions(allErrors: boolean) {
  // Its defaults otherwise. Not `isJSON: true`: tempting for JSON.parse output, but it makes the
  // generated code test `data.x !== undefined` instead of `"x" in data`, which is 2.5× slower here
  // on the wide schema (V8, objects of many shapes).
  return { includeErrors: true, allErrors };
}

function schemasafeContender(allErrors: boolean): Contender {
  return {
    name: allErrors ? "schemasafe (all errors)" : "schemasafe (first error)",
    family: "schemasafe",
    allErrors,
    compile(schema) {
      // deno-lint-ignore no-explicit-any
      const v = schemasafeValidator(schema as any, schemasafeOptions(allErrors));
      // deno-lint-ignore no-explicit-any
      return (x) => v(x as any) ? 0 : v.errors!.length;
    },
    explain(schema, _draft, value) {
      // deno-lint-ignore no-explicit-any
      const v = schemasafeValidator(schema as any, schemasafeOptions(true));
      // deno-lint-ignore no-explicit-any
      v(value as any);
      return (v.errors ?? []).map((e) =>
        `${e.instanceLocation} ${e.keywordLocation} (${valueAt(value, e.instanceLocation)})`
      );
    },
  };
}

function cfworkerContender(allErrors: boolean): Contender {
  return {
    name: allErrors ? "cfworker (all errors)" : "cfworker (first error)",
    family: "cfworker",
    allErrors,
    compile(schema, draft) {
      // deno-lint-ignore no-explicit-any
      const v = new CfValidator(schema as any, draft, !allErrors);
      return (x) => {
        const r = v.validate(x);
        return r.valid ? 0 : r.errors.length;
      };
    },
    explain(schema, draft, value) {
      // deno-lint-ignore no-explicit-any
      const r = new CfValidator(schema as any, draft, false).validate(value);
      return r.errors.filter((e) => e.keyword !== "properties" && e.keyword !== "$ref").map((e) =>
        `${e.instanceLocation} ${e.keyword}: ${e.error} (${valueAt(value, e.instanceLocation)})`
      );
    },
  };
}

const explainOurs = (schema: JsonSchema, _draft: string, value: unknown) =>
  validateSchema(schema, value).map((i) =>
    `${i.path} ${i.keyword}: ${i.message} (${valueAt(value, i.path)})`
  );

/** `compileSchema` from mod.ts, if this `lib/` has it. */
type CompiledSchema = ((value: unknown) => SchemaIssue[]) & {
  isValid?: (value: unknown) => boolean;
};
const compileSchema = (core as Record<string, unknown>).compileSchema as
  | ((schema: JsonSchema) => CompiledSchema)
  | undefined;

/** Whether this `lib/` exports `compileSchema` (its columns appear only then). */
export const HAS_COMPILE_SCHEMA: boolean = typeof compileSchema === "function";

/** Ours: `validateSchema`, `isValid` and, when exported, `compileSchema` and its `isValid`. */
export function ourContenders(): Contender[] {
  const out: Contender[] = [
    {
      name: "validateSchema (all issues, sorted)",
      family: "ours",
      allErrors: true,
      compile: (schema) => (x) => validateSchema(schema, x).length,
      explain: explainOurs,
    },
    {
      name: "isValid",
      family: "ours",
      allErrors: false,
      compile: (schema) => (x) => isValid(schema, x) ? 0 : 1,
      explain: explainOurs,
    },
  ];
  if (compileSchema) {
    out.push({
      name: "compileSchema() (all issues, sorted)",
      family: "ours",
      allErrors: true,
      compile(schema) {
        const v = compileSchema(schema);
        return (x) => v(x).length;
      },
      explain: explainOurs,
    });
    if (typeof compileSchema({}).isValid === "function") {
      out.push({
        name: "compileSchema().isValid",
        family: "ours",
        allErrors: false,
        compile(schema) {
          const v = compileSchema(schema);
          return (x) => v.isValid!(x) ? 0 : 1;
        },
        explain: explainOurs,
      });
    }
  }
  return out;
}

/** Every contender: ajv, schemasafe and cfworker, each with all errors and with the first; ours. */
export function allContenders(): Contender[] {
  return [
    ajvContender(true),
    ajvContender(false),
    schemasafeContender(true),
    schemasafeContender(false),
    cfworkerContender(true),
    cfworkerContender(false),
    ...ourContenders(),
  ];
}

/** A group of calls on which the contenders do not all agree. */
export interface Disagreement {
  /** Which contenders called these calls valid (the others invalid). */
  validFor: string[];
  /** How many calls. */
  count: number;
  /** A few of them, with what each family said. */
  examples: { tool: string; mistake?: string; args: string; said: Record<string, unknown> }[];
}

/** The outcome of the cross-check. */
export interface CrossCheck {
  /** Per call: valid (all agree), invalid (all agree), or undefined (they disagree). */
  verdicts: (boolean | undefined)[];
  /** The disagreements, largest group first. */
  disagreements: Disagreement[];
}

/**
 * Runs every contender on every call and compares their verdicts. Calls they disagree on are
 * grouped by who said valid, with examples; the benchmarks time only calls all agree on.
 */
export function crossCheck(
  tools: readonly WorkloadTool[],
  calls: readonly Call[],
  contenders: readonly Contender[],
  compiled: Check[][],
): CrossCheck {
  const verdicts: (boolean | undefined)[] = [];
  const groups = new Map<string, Disagreement>();
  for (let i = 0; i < calls.length; i++) {
    const c = calls[i];
    const valid = compiled.map((byTool) => byTool[c.tool](c.args) === 0);
    if (valid.every((v) => v === valid[0])) {
      verdicts.push(valid[0]);
      continue;
    }
    verdicts.push(undefined);
    const validFor = contenders.filter((_, k) => valid[k]).map((k) => k.name);
    const key = validFor.join("|");
    let g = groups.get(key);
    if (!g) groups.set(key, g = { validFor, count: 0, examples: [] });
    g.count++;
    if (g.examples.length < 3) {
      const tool = tools[c.tool];
      const said: Record<string, unknown> = {};
      for (const family of ["ours", "ajv", "schemasafe", "cfworker"]) {
        const k = contenders.find((x) => x.family === family && x.allErrors)!;
        said[family] = k.explain(tool.schema, tool.draft, c.args);
      }
      g.examples.push({ tool: tool.name, mistake: c.mistake, args: c.text, said });
    }
  }
  return { verdicts, disagreements: [...groups.values()].sort((a, b) => b.count - a.count) };
}
