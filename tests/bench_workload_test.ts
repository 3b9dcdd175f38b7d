/**
 * The validator benchmark's workload is what `docs/performance.md` says it is: deterministic; calls made
 * without a mistake are valid (for ajv too, not only for the validator under test) and calls made
 * with one are invalid; the wide search tool declares 300 optional properties and its calls send a
 * handful of them, in well over 100 distinct key sets; about 15% of calls carry a mistake, of
 * every kind.
 */
import assert from "node:assert/strict";
import Ajv from "ajv";
import addFormats from "ajv-formats";
import { ASSERTED_FORMATS, validateSchema } from "../mod.ts";
import { MCP_STYLE_TOOLS } from "../bench/_mcp_tools.ts";
import { distinctKeySets, makeCalls, type Mistake } from "../bench/_mcp_workload.ts";

Deno.test("makeCalls() gives the same calls for the same seed and others for another", () => {
  const a = makeCalls(MCP_STYLE_TOOLS, { perTool: 200 });
  const b = makeCalls(MCP_STYLE_TOOLS, { perTool: 200 });
  const c = makeCalls(MCP_STYLE_TOOLS, { perTool: 200, seed: 12 });
  assert.deepEqual(a.map((x) => x.text), b.map((x) => x.text));
  assert.notDeepEqual(a.map((x) => x.text), c.map((x) => x.text));
  assert.equal(a.length, 1000);
  for (let t = 0; t < MCP_STYLE_TOOLS.length; t++) {
    assert.equal(
      a.filter((x) => x.tool === t).length,
      200,
      MCP_STYLE_TOOLS[t].name,
    );
  }
});

Deno.test("calls made without a mistake are valid for validateSchema and ajv; with one, invalid for validateSchema", () => {
  // deno-lint-ignore no-explicit-any
  const ajv = new (Ajv as any)({ allErrors: true, strict: false });
  // deno-lint-ignore no-explicit-any
  (addFormats as any)(ajv, { mode: "full", formats: [...ASSERTED_FORMATS] });
  const compiled = MCP_STYLE_TOOLS.map((t) => ajv.compile(t.schema));
  const calls = makeCalls(MCP_STYLE_TOOLS, { perTool: 1000, seed: 5 });
  for (const c of calls) {
    const tool = MCP_STYLE_TOOLS[c.tool];
    const issues = validateSchema(tool.schema, c.args);
    if (c.mistake === undefined) {
      assert.deepEqual(issues, [], `${tool.name}: ${c.text}`);
      assert.ok(compiled[c.tool](c.args), `${tool.name} (ajv): ${c.text}`);
    } else {
      assert.ok(issues.length > 0, `${tool.name}, ${c.mistake}: ${c.text}`);
    }
  }
});

Deno.test("the wide search tool declares 300 optional properties; its calls send a handful, in many distinct key sets", () => {
  const t = MCP_STYLE_TOOLS.findIndex((x) => x.name === "search.query");
  const schema = MCP_STYLE_TOOLS[t].schema as {
    properties: object;
    required: string[];
  };
  assert.ok(
    Object.keys(schema.properties).length - schema.required.length >= 300,
  );
  const calls = makeCalls(MCP_STYLE_TOOLS, { perTool: 2000, mistakes: 0 });
  assert.ok(
    distinctKeySets(calls, t) >= 100,
    `${distinctKeySets(calls, t)} key sets`,
  );
  const sizes = calls.filter((c) => c.tool === t).map((c) => Object.keys(c.args).length);
  const mean = sizes.reduce((a, b) => a + b, 0) / sizes.length;
  assert.ok(mean >= 2 && mean <= 8, `mean ${mean} keys a call`);
  for (let i = 0; i < MCP_STYLE_TOOLS.length; i++) {
    assert.ok(distinctKeySets(calls, i) >= 20, MCP_STYLE_TOOLS[i].name);
  }
});

Deno.test("about 15% of calls carry a mistake, and every kind of mistake is made", () => {
  const calls = makeCalls(MCP_STYLE_TOOLS, { perTool: 2000 });
  const share = calls.filter((c) => c.mistake).length / calls.length;
  assert.ok(share >= 0.1 && share <= 0.2, `${share}`);
  const kinds = new Set<Mistake>(
    calls.flatMap((c) => c.mistake ? [c.mistake] : []),
  );
  assert.deepEqual([...kinds].sort(), [
    "bad enum",
    "extra key",
    "format",
    "missing required",
    "out of range",
    "pattern",
    "wrong type",
  ]);
});
