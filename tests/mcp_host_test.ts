/**
 * `McpHost`: one client per server, their tools in one list — namespaced `<server>__<name>` only
 * where two servers share a name, decided by the set of names alone — and calls routed by the
 * exposed name to the server that owns the tool, under its own name. Each server is a double on
 * a `JsonRpcPeer` that records what it was asked.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { createLinkedTransports, JsonRpcPeer, McpClient, McpHost } from "../mod.ts";

interface Served {
  client: McpClient;
  /** Every tools/call the server received: the tool's name and the `_meta` it carried. */
  calls: { name: string; args: unknown; meta: Record<string, unknown> }[];
}

/** A handshake-era server listing `names`, answering each call with its own id and the tool. */
async function served(id: string, names: string[]): Promise<Served> {
  const [near, far] = createLinkedTransports();
  const server = new JsonRpcPeer(far);
  const calls: Served["calls"] = [];
  server.onRequest("initialize", () => ({
    protocolVersion: "2025-11-25",
    capabilities: { tools: {} },
    serverInfo: { name: id, version: "1.0.0" },
  }));
  server.onRequest("tools/list", () => ({
    tools: names.map((name) => ({ name, inputSchema: { type: "object" } })),
  }));
  server.onRequest("tools/call", (params) => {
    const p = params as {
      name: string;
      arguments: unknown;
      _meta?: Record<string, unknown>;
    };
    calls.push({ name: p.name, args: p.arguments, meta: p._meta ?? {} });
    return { content: [{ type: "text", text: `${id}:${p.name}` }] };
  });
  const client = new McpClient(near, { era: "handshake" });
  await client.connect();
  return { client, calls };
}

Deno.test("McpHost.exposedName() namespaces only a colliding name", () => {
  assert.equal(McpHost.exposedName("crm", "search", true), "crm__search");
  assert.equal(McpHost.exposedName("crm", "search", false), "search");
});

Deno.test("McpHost.add() refuses an id that is taken or not [A-Za-z0-9_.-]+", async () => {
  const { client } = await served("s", []);
  const host = new McpHost();
  host.add("crm-1.v2_x", client);
  assert.throws(
    () => host.add("crm-1.v2_x", client),
    /server id crm-1\.v2_x is already in use/,
  );
  for (const bad of ["", "a b", "a__b/c", "ünï"]) {
    assert.throws(() => host.add(bad, client), TypeError, bad);
  }
  await client.close();
});

Deno.test("McpHost.tools() sorts by exposed name and namespaces only the names two servers share", async () => {
  const crm = await served("crm", ["search", "crm.customer.get"]);
  const pay = await served("payments", ["search", "payments.lookup"]);
  const host = new McpHost();
  host.add("payments", pay.client);
  host.add("crm", crm.client);
  assert.deepEqual(
    (await host.tools()).map((t) => `${t.name} -> ${t.server}:${t.tool.name}`),
    [
      "crm.customer.get -> crm:crm.customer.get",
      "crm__search -> crm:search",
      "payments.lookup -> payments:payments.lookup",
      "payments__search -> payments:search",
    ],
  );
  await crm.client.close();
  await pay.client.close();
});

Deno.test("McpHost.callTool() routes by exposed name to the owning server under its own name, with the pin", async () => {
  const crm = await served("crm", ["search"]);
  const pay = await served("payments", ["search", "payments.lookup"]);
  const host = new McpHost();
  host.add("crm", crm.client);
  host.add("payments", pay.client);
  const r = await host.callTool("payments__search", { q: 1 }, {
    version: "^1.2.0",
  });
  assert.deepEqual(r.kind === "ok" && r.result.content, [{
    type: "text",
    text: "payments:search",
  }]);
  assert.deepEqual(pay.calls, [{
    name: "search",
    args: { q: 1 },
    meta: { "dev.tool-estate/version": "^1.2.0" },
  }]);
  assert.deepEqual(crm.calls, []);
  const lookup = await host.callTool("payments.lookup");
  assert.equal(lookup.kind === "ok" && lookup.result.content[0].type, "text");
  assert.deepEqual(pay.calls.at(-1)?.args, {});
  await crm.client.close();
  await pay.client.close();
});

Deno.test("McpHost.callTool() answers an unknown exposed name (the bare colliding one included) like an unknown tool", async () => {
  const a = await served("a", ["search"]);
  const b = await served("b", ["search"]);
  const host = new McpHost();
  host.add("a", a.client);
  host.add("b", b.client);
  for (const name of ["search", "nope", "c__search"]) {
    assert.deepEqual(await host.callTool(name), {
      kind: "protocol-error",
      code: -32602,
      message: `Unknown tool: ${name}`,
    });
  }
  assert.deepEqual([a.calls, b.calls], [[], []]);
  await a.client.close();
  await b.client.close();
});

Deno.test("property: exposed names are unique, stable under the order servers are added, and map back to their tool", async () => {
  const names = fc.uniqueArray(
    fc.constantFrom<string>("search", "get", "list", "a.b", "x_y"),
    {
      maxLength: 4,
    },
  );
  await fc.assert(
    fc.asyncProperty(
      fc.uniqueArray(fc.constantFrom<string>("crm", "pay", "risk", "fx"), {
        minLength: 1,
        maxLength: 4,
      }),
      fc.array(names, { minLength: 4, maxLength: 4 }),
      async (ids, lists) => {
        const servers = await Promise.all(
          ids.map((id, i) => served(id, lists[i])),
        );
        const forward = new McpHost(), backward = new McpHost();
        ids.forEach((id, i) => forward.add(id, servers[i].client));
        [...ids].reverse().forEach((id) => backward.add(id, servers[ids.indexOf(id)].client));
        const tools = await forward.tools();
        assert.deepEqual(tools, await backward.tools());
        const exposed = tools.map((t) => t.name);
        assert.equal(new Set(exposed).size, exposed.length);
        assert.equal(exposed.length, lists.slice(0, ids.length).flat().length);
        for (const t of tools) {
          assert.ok(lists[ids.indexOf(t.server)].includes(t.tool.name));
        }
        for (const s of servers) await s.client.close();
      },
    ),
    { numRuns: 40 },
  );
});
