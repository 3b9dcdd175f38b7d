/**
 * What the editor pays per keystroke: `checkDraft` — the function the VS Code extension's language
 * server runs on every change of a `*.tool.json` — of a draft of the wide MCP-style search tool
 * (`search.query` from `_mcp_tools.ts`: 306 declared properties, 300 of them optional facets)
 * against its published version and 100,000 stored calls, edit after edit, with the stored calls
 * replayed through a `CallIndex`. The first update builds the index; the figures that matter are
 * every update after it: median, p95 and max, and of each update the time spent in the index (the
 * rest is the plan's other work: classifying the change, finding a breaking call). Side by side:
 * the same updates replaying the calls from scratch.
 *
 * Two call logs, both valid against the published version:
 *
 *   realistic  the benchmark generator's calls: each sends `q`, some of scope/sort/order/page/
 *              per_page, and a handful of facets (0 to 8, most 1 to 3) drawn by popularity, so
 *              some key sets recur and many are rare (thousands of distinct key sets);
 *   scattered  each call sends `q` and 12 facets drawn uniformly: nearly every call has a key set
 *              of its own, the index's worst case.
 *
 *   deno task run bench/editor_latency.ts [--calls 100000] [--updates 40] [--log realistic|scattered|both]
 *
 * @module
 */
import {
  CallIndex,
  checkDraft,
  type JsonSchema,
  type StoredCall,
  ToolRegistry,
  type ToolSpec,
} from "../mod.ts";
import { type Args, MCP_STYLE_TOOLS } from "./_mcp_tools.ts";
import { Rand } from "./_rand.ts";
import { flag, int, markdownTable, median, ms, quantile } from "./_stats.ts";

const CALLS = flag(Deno.args, "calls", 100_000);
const UPDATES = flag(Deno.args, "updates", 40);
const LOG = Deno.args.find((a) => a.startsWith("--log="))?.slice(6) ??
  (Deno.args.includes("--log") ? Deno.args[Deno.args.indexOf("--log") + 1] : "both");

const SEARCH = MCP_STYLE_TOOLS.find((t) => t.name === "search.query")!;
const SCHEMA = SEARCH.schema as { properties: Record<string, Record<string, unknown>> };
const FACETS = Object.keys(SCHEMA.properties).filter((k) => k.includes("_") && k !== "per_page");

const v1: ToolSpec = {
  name: "search.query",
  version: "1.0.0",
  title: "Search",
  description: "Search code, issues, messages, files and events. Reads the search index.",
  inputSchema: SEARCH.schema,
  sideEffect: "read",
  requiredScopes: [],
  dataClassification: "internal",
  tenants: [],
  owner: "bench",
};

/** The stored calls of one log: valid arguments, as the published version accepted them. */
function callLog(kind: string, n: number): StoredCall[] {
  const r = new Rand(kind === "realistic" ? 42 : 43);
  const calls: StoredCall[] = [];
  for (let i = 0; i < n; i++) {
    let args: Args;
    if (kind === "realistic") args = SEARCH.args(r);
    else {
      // q and 12 facets drawn uniformly, values from the realistic generator's facets.
      const template = SEARCH.args(r);
      args = { q: template.q };
      for (const f of r.some(FACETS, 12)) args[f] = valueFor(f, r);
    }
    calls.push({
      version: "1.0.0",
      arguments: args,
      principal: "agent",
      at: "2026-11-01T00:00:00Z",
    });
  }
  return calls;
}

/** A valid value for facet `f`: the realistic generator's calls until one sends `f`. */
const FACET_VALUES = new Map<string, unknown[]>();
function valueFor(f: string, r: Rand): unknown {
  let values = FACET_VALUES.get(f);
  if (!values) {
    values = [];
    const g = new Rand(7);
    for (let i = 0; i < 400_000 && values.length < 16; i++) {
      const a = SEARCH.args(g);
      if (f in a) values.push(a[f]);
    }
    if (values.length === 0) throw new Error(`no value for ${f}`);
    FACET_VALUES.set(f, values);
  }
  return r.pick(values);
}

/** The i-th keystroke-sized edit, on top of the ones before: reword, loosen, add, or tighten. */
function draft(i: number): ToolSpec {
  const props = structuredClone(SCHEMA.properties);
  for (let k = 0; k <= i; k++) {
    const name = FACETS[(k * 37) % FACETS.length];
    const f = props[name];
    switch (k % 4) {
      case 0:
        f.description = `Filter on ${name.replaceAll("_", " ")}, edit ${k}`;
        break;
      case 1: // loosen
        if (f.enum) f.enum = [...f.enum as string[], `value${k}`];
        else if (typeof f.maxLength === "number") f.maxLength = f.maxLength * 2;
        else if (typeof f.maxItems === "number") f.maxItems = f.maxItems * 2;
        else f.description = `Loosened ${k}`;
        break;
      case 2:
        props[`extra_${k}`] = { type: "string", description: `Added in edit ${k}` };
        break;
      case 3: // tighten: rejects some stored calls
        if (f.type === "integer") f.maximum = 40;
        else if (f.type === "string" && !f.format && !f.pattern) f.maxLength = 5;
        break;
    }
  }
  return {
    ...v1,
    version: "1.1.0",
    inputSchema: { ...v1.inputSchema as object, properties: props } as JsonSchema,
  };
}

function time(fn: () => void): number {
  const t = performance.now();
  fn();
  return performance.now() - t;
}

interface Figures {
  log: string;
  keySets: number;
  first: number;
  indexed: number[];
  replays: number[];
  full: number[];
  rejected: number;
}

function measure(log: string): Figures {
  const calls = callLog(log, CALLS);
  const keySets = new Set(calls.map((c) => Object.keys(c.arguments as Args).sort().join("\u0000")))
    .size;
  const registry = new ToolRegistry({ storedCalls: () => calls });
  registry.restore({ spec: v1, history: [] });
  const index = new CallIndex(calls);
  // The time each update spends in the index, apart from the rest of checkDraft.
  let inIndex = 0;
  const replay = {
    replay: (schema: ToolSpec["inputSchema"], o: { major: number; sample: number }) => {
      const t = performance.now();
      const r = index.rejections(schema, o);
      inIndex += performance.now() - t;
      return r;
    },
  };
  const first = time(() => checkDraft(draft(0), registry, replay));
  const indexed: number[] = [];
  const replays: number[] = [];
  let rejected = 0;
  for (let i = 1; i <= UPDATES; i++) {
    inIndex = 0;
    indexed.push(time(() => {
      rejected = checkDraft(draft(i), registry, replay).rejected.count;
    }));
    replays.push(inIndex);
  }
  const full: number[] = [];
  for (let i = 1; i <= Math.min(5, UPDATES); i++) {
    full.push(time(() => checkDraft(draft(i), registry)));
  }
  return { log, keySets, first, indexed, replays, full, rejected };
}

const logs = LOG === "both" ? ["realistic", "scattered"] : [LOG];
console.log(
  `checkDraft of search.query (${Object.keys(SCHEMA.properties).length} properties) against ${
    int(CALLS)
  } stored calls, ${UPDATES} updates; Deno ${Deno.version.deno}, ${navigator.hardwareConcurrency} cores\n`,
);
const results = logs.map(measure);
console.log(markdownTable(
  [
    "call log",
    "distinct key sets",
    "first update (builds the index)",
    "median",
    "p95",
    "max",
    "of which in the index (median / p95)",
    "replaying every call (median)",
    "÷ indexed median",
  ],
  results.map((f) => [
    f.log,
    int(f.keySets),
    ms(f.first),
    ms(median(f.indexed)),
    ms(quantile(f.indexed, 0.95)),
    ms(Math.max(...f.indexed)),
    `${ms(median(f.replays))} / ${ms(quantile(f.replays, 0.95))}`,
    ms(median(f.full)),
    `${(median(f.full) / median(f.indexed)).toFixed(0)}×`,
  ]),
));
for (const f of results) {
  console.log(`\n${f.log}: the last draft rejects ${int(f.rejected)} stored calls`);
}
