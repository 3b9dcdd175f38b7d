/**
 * discover() on an estate of 10,000 tools (3 versions each), side by side with one for 1,000 tools,
 * so the ratio shows how cost grows with the estate; and per principal, to show that 100
 * principals cost 100 single discoveries (no per-principal state). Run:
 * `deno task bench bench/discover_bench.ts`.
 */
import { type Principal, ToolRegistry, type ToolSpec } from "../mod.ts";

const TENANTS = ["retail", "wholesale", "group"];
const CLASSES = ["public", "internal", "confidential", "restricted"] as const;

function estate(size: number): ToolRegistry {
  const r = new ToolRegistry();
  for (let i = 0; i < size; i++) {
    for (const version of ["1.0.0", "1.1.0", "2.0.0"]) {
      const spec: ToolSpec = {
        name: `domain${i % 50}.tool${i}`,
        version,
        title: `Tool ${i}`,
        description: `Tool number ${i}.`,
        inputSchema: { type: "object", properties: { id: { type: "string" } } },
        sideEffect: "read",
        requiredScopes: [`scope:${i % 100}`],
        dataClassification: CLASSES[i % 4],
        tenants: i % 3 === 0 ? [] : [TENANTS[i % 3]],
        owner: "team",
      };
      r.restore({
        spec,
        history: [{
          state: version === "1.0.0" ? "deprecated" : "active",
          at: "2026-01-01T00:00:00Z",
        }],
      });
    }
  }
  return r;
}

const small = estate(1_000);
const large = estate(10_000);
// Sees about 1% of the tools: one scope of a hundred.
const principal: Principal = {
  id: "p",
  scopes: ["scope:7"],
  tenant: "retail",
  clearance: "restricted",
};
const principals: Principal[] = Array.from(
  { length: 100 },
  (_, i) => ({ ...principal, id: `p${i}`, scopes: [`scope:${i}`] }),
);
// Warm the indexes (built lazily after a change).
small.discover(principal);
large.discover(principal);
console.log(`10,000 tools: principal sees ${large.discover(principal).length}`);

Deno.bench({ name: "discover, 1,000 tools", group: "size", baseline: true }, () => {
  small.discover(principal);
});
Deno.bench({ name: "discover, 10,000 tools", group: "size" }, () => {
  large.discover(principal);
});
Deno.bench({ name: "discover for 100 principals, 10,000 tools", group: "principals" }, () => {
  for (const p of principals) large.discover(p);
});
