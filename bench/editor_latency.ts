/**
 * What the editor pays per keystroke: `checkDraft` of a draft with a 300-property input schema
 * against its published version and 100,000 stored calls, edit after edit, with the stored calls
 * replayed through a `CallIndex`. The first update builds the index; the figure that matters is
 * every update after it. Side by side: the same updates replaying the calls from scratch.
 *
 *   deno run -A bench/editor_latency.ts [calls] [updates]
 *
 * @module
 */
import { CallIndex, checkDraft, type StoredCall, ToolRegistry, type ToolSpec } from "../mod.ts";
import { rng } from "./_calls.ts";

const CALLS = Number(Deno.args[0] ?? 100_000);
const UPDATES = Number(Deno.args[1] ?? 40);
const PROPS = 300;

const kinds = ["string", "integer", "number", "boolean", "enum"] as const;
const properties: Record<string, Record<string, unknown>> = {};
for (let p = 0; p < PROPS; p++) {
  const kind = kinds[p % kinds.length];
  properties[`field${p}`] = kind === "enum"
    ? { enum: ["A", "B", "C", "D"], description: `Field ${p}` }
    : kind === "string"
    ? { type: "string", maxLength: 64, description: `Field ${p}` }
    : kind === "integer"
    ? { type: "integer", minimum: 0, description: `Field ${p}` }
    : { type: kind, description: `Field ${p}` };
}
const v1: ToolSpec = {
  name: "wide.tool",
  version: "1.0.0",
  title: "A wide tool",
  description: "A tool with three hundred optional fields. Reads a test system.",
  inputSchema: { type: "object", properties, required: ["field0"], additionalProperties: false },
  sideEffect: "read",
  requiredScopes: [],
  dataClassification: "internal",
  tenants: [],
  owner: "bench",
};

const r = rng(42);
const calls: StoredCall[] = [];
for (let i = 0; i < CALLS; i++) {
  const args: Record<string, unknown> = { field0: `ref-${i}` };
  for (let k = 0; k < 12; k++) {
    const p = 1 + Math.floor(r() * (PROPS - 1));
    const kind = kinds[p % kinds.length];
    args[`field${p}`] = kind === "enum"
      ? ["A", "B", "C", "D"][Math.floor(r() * 4)]
      : kind === "string"
      ? `text-${Math.floor(r() * 5000)}`
      : kind === "integer"
      ? Math.floor(r() * 1000)
      : kind === "number"
      ? Math.round(r() * 1e6) / 100
      : r() < 0.5;
  }
  calls.push({ version: "1.0.0", arguments: args, principal: "agent", at: "2026-11-01T00:00:00Z" });
}

const registry = new ToolRegistry({ storedCalls: () => calls });
registry.restore({ spec: v1, history: [] });

/** The i-th keystroke-sized edit: reword, loosen, add an optional field, or tighten one field. */
function draft(i: number): ToolSpec {
  const props = structuredClone(properties);
  for (let k = 0; k <= i; k++) {
    const p = 1 + ((k * 37) % (PROPS - 1));
    const f = props[`field${p}`];
    switch (k % 4) {
      case 0:
        f.description = `Field ${p}, edit ${k}`;
        break;
      case 1:
        if (f.type === "string") f.maxLength = 128;
        else if (f.enum) f.enum = [...(f.enum as string[]), `E${k}`];
        break;
      case 2:
        props[`extra${k}`] = { type: "string" };
        break;
      case 3:
        if (f.type === "integer") f.maximum = 990; // rejects the stored calls above 990
        break;
    }
  }
  return {
    ...v1,
    version: "1.1.0",
    inputSchema: { ...v1.inputSchema as object, properties: props },
  };
}

function time(fn: () => void): number {
  const t = performance.now();
  fn();
  return performance.now() - t;
}

const index = new CallIndex(calls);
const replay = {
  replay: (schema: ToolSpec["inputSchema"], o: { major: number; sample: number }) =>
    index.rejections(schema, o),
};
const first = time(() => checkDraft(draft(0), registry, replay));
const indexed: number[] = [];
let rejectedLast = 0;
for (let i = 1; i <= UPDATES; i++) {
  indexed.push(time(() => {
    rejectedLast = checkDraft(draft(i), registry, replay).rejected.count;
  }));
}
const full: number[] = [];
for (let i = 1; i <= Math.min(5, UPDATES); i++) {
  full.push(time(() => checkDraft(draft(i), registry)));
}

const q = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))];
console.log(
  `checkDraft of a ${PROPS}-property schema against ${CALLS.toLocaleString("en")} stored calls`,
);
console.log(`(last draft: ${rejectedLast.toLocaleString("en")} stored calls rejected)\n`);
console.log(`first update (builds the index):          ${first.toFixed(0)} ms`);
console.log(
  `each update after it, with the index:      median ${q(indexed, 0.5).toFixed(1)} ms, p95 ${
    q(indexed, 0.95).toFixed(1)
  } ms, max ${Math.max(...indexed).toFixed(1)} ms (${UPDATES} updates)`,
);
console.log(
  `each update replaying every call instead: median ${
    q(full, 0.5).toFixed(0)
  } ms (${full.length} updates)`,
);
console.log(
  `ratio, full replay ÷ indexed (median):    ${(q(full, 0.5) / q(indexed, 0.5)).toFixed(0)}×`,
);
