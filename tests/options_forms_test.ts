/**
 * Public functions that took three or more positional parameters now take an options object
 * after at most two; the positional forms are deprecated and keep working. Each pair must agree.
 */
import assert from "node:assert/strict";
import {
  type CacheScope,
  type JsonRpcId,
  type JsonRpcParams,
  listCacheKey,
  makeRequest,
  McpHost,
  meetsRequirement,
  type Principal,
  type Requirement,
  ToolRegistry,
} from "../mod.ts";
import { spec } from "./_mcp_fixtures.ts";

Deno.test("makeRequest({ id, method, params }) builds what makeRequest(id, method, params) builds, and refuses the same", () => {
  const cases: [JsonRpcId, string, JsonRpcParams | undefined][] = [
    [1, "tools/list", undefined],
    ["a", "tools/call", { name: "x" }],
    [-3, "sum", [1, 2]],
  ];
  for (const [id, method, params] of cases) {
    assert.deepEqual(
      makeRequest({ id, method, params }),
      makeRequest(id, method, params),
    );
  }
  assert.equal("params" in makeRequest({ id: 1, method: "tools/list" }), false);
  assert.throws(() => makeRequest({ id: 1.5, method: "m" }), {
    name: "TypeError",
    message: "makeRequest(): id must be a string or an integer, got 1.5",
  });
  assert.throws(() => makeRequest({ id: 1, method: 42 as unknown as string }), {
    name: "TypeError",
    message: "makeRequest(): method must be a string, got 42",
  });
  assert.throws(
    () =>
      makeRequest({
        id: 1,
        method: "m",
        params: 3 as unknown as JsonRpcParams,
      }),
    TypeError,
  );
  // An object id in the positional form is still a bad id, not the parts.
  assert.throws(() => makeRequest({} as unknown as number, "m"), {
    message: "makeRequest(): id must be a string or an integer, got an object",
  });
});

Deno.test("listCacheKey(server, method, { scope, partition }) is the key of the positional form", () => {
  const scopes: CacheScope[] = ["public", "private"];
  for (const scope of scopes) {
    for (const partition of [undefined, "", "alice", "bob"]) {
      assert.equal(
        listCacheKey("s", "tools/list", { scope, partition }),
        listCacheKey("s", "tools/list", scope, partition),
      );
    }
  }
  assert.notEqual(
    listCacheKey("s", "tools/list", { scope: "private", partition: "alice" }),
    listCacheKey("s", "tools/list", { scope: "private", partition: "bob" }),
  );
});

Deno.test("McpHost.exposedName(server, name, { collides }) is the name of the positional form", () => {
  for (const collides of [true, false]) {
    assert.equal(
      McpHost.exposedName("crm", "search", { collides }),
      McpHost.exposedName("crm", "search", collides),
    );
  }
  assert.equal(
    McpHost.exposedName("crm", "search", { collides: true }),
    "crm__search",
  );
});

Deno.test("meetsRequirement(requirement, principal, { registry }) decides as the positional form", () => {
  const registry = new ToolRegistry();
  registry.publish(spec("payments.lookup", "1.0.0"));
  const published = registry.latest("payments.lookup")!;
  const principals: Principal[] = [
    {
      id: "ops",
      scopes: published.requiredScopes,
      tenant: published.tenants[0] ?? "any",
      clearance: "restricted",
    },
    { id: "retail", scopes: [], tenant: "retail", clearance: "public" },
  ];
  const requirements: (Requirement | undefined)[] = [
    undefined,
    {},
    { tools: ["payments.lookup"] },
    { tools: ["no.such.tool"] },
    { scopes: ["payments:read"] },
    { tenants: ["retail"] },
    { clearance: "confidential" },
  ];
  const verdicts: boolean[] = [];
  for (const p of principals) {
    for (const r of requirements) {
      const verdict = meetsRequirement(r, p, { registry });
      assert.equal(
        verdict,
        meetsRequirement(r, p, registry),
        JSON.stringify([p.id, r]),
      );
      verdicts.push(verdict);
    }
  }
  // The cases tell something apart: both verdicts occur.
  assert.deepEqual(new Set(verdicts), new Set([true, false]));
});
