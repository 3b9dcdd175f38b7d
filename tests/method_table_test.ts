// The method table (lib/mcp/methods.ts) is the one place a method's facts live: every list the
// server and the transports use is its projection, and each era's server answers exactly the
// table's methods of that era (anything else is -32601).
import assert from "node:assert/strict";
import {
  type JsonRpcResponse,
  MCP_METHODS,
  type McpMethodName,
  methodsOf,
  PROTOCOL_ERAS,
  type ProtocolEra,
  serverCapabilitiesOf,
  type ServerRequestMethod,
  STATELESS_META,
  STATELESS_METHODS,
  statelessHeaderProblem,
} from "../mod.ts";
import { SHARED_METHODS } from "../lib/mcp/_methods.ts";
import { BEFORE_READY, SESSION_METHODS } from "../lib/mcp/_server_rev2025_11_25.ts";
import { STATELESS_ONLY_METHODS } from "../lib/mcp/_server_rev2026_07_28.ts";
import { estate, RETAIL, server } from "./_mcp_fixtures.ts";

const NAMES = Object.keys(MCP_METHODS) as McpMethodName[];

/** The table's client-to-server methods of an era, computed here from the facts alone. */
function servedIn(era: ProtocolEra): McpMethodName[] {
  return NAMES.filter((n) =>
    MCP_METHODS[n].eras.includes(era) && MCP_METHODS[n].sentBy.includes("client")
  );
}

const errorCode = (r: JsonRpcResponse | undefined): number | undefined =>
  r !== undefined && "error" in r ? r.error.code : undefined;

Deno.test("methodsOf() is the table filtered by era and sender, in the table's order", () => {
  for (const era of PROTOCOL_ERAS) {
    assert.deepEqual(methodsOf(era, { sentBy: "client" }), servedIn(era));
    assert.deepEqual(methodsOf(era), NAMES.filter((n) => MCP_METHODS[n].eras.includes(era)));
  }
  // Every method exists in some era and has a sender.
  for (const name of NAMES) {
    assert.ok(MCP_METHODS[name].eras.length > 0, name);
    assert.ok(MCP_METHODS[name].sentBy.length > 0, name);
  }
});

Deno.test("the stateless methods list is the table's client-to-server methods of the stateless era", () => {
  assert.deepEqual([...STATELESS_METHODS], servedIn("stateless"));
});

Deno.test("the session gate lets through exactly the table's beforeReady methods", () => {
  assert.deepEqual(
    [...BEFORE_READY].sort(),
    NAMES.filter((n) => MCP_METHODS[n].beforeReady === true).sort(),
  );
});

Deno.test("each era has a handler for exactly the table's client-to-server methods of that era", () => {
  const shared = Object.keys(SHARED_METHODS);
  const session = Object.keys(SESSION_METHODS);
  const stateless = Object.keys(STATELESS_ONLY_METHODS);
  assert.deepEqual(
    shared.sort(),
    servedIn("handshake").filter((n) => servedIn("stateless").includes(n)).sort(),
  );
  assert.deepEqual(
    session.sort(),
    servedIn("handshake").filter((n) => !servedIn("stateless").includes(n)).sort(),
  );
  assert.deepEqual(
    stateless.sort(),
    servedIn("stateless").filter((n) => !servedIn("handshake").includes(n)).sort(),
  );
});

Deno.test("Mcp-Name is checked for exactly the stateless methods the table names a param of", () => {
  for (const method of servedIn("stateless")) {
    const params = { _meta: { [STATELESS_META.protocolVersion]: "2026-07-28" } };
    const headers = { "mcp-protocol-version": "2026-07-28", "mcp-method": method };
    const problem = statelessHeaderProblem(headers, { method, params });
    const named = MCP_METHODS[method].named;
    assert.equal(problem !== undefined, named !== undefined, method);
    if (named !== undefined) assert.match(problem ?? "", new RegExp(`params\\.${named}`));
  }
});

Deno.test("serverCapabilitiesOf() announces each capability of the era's methods, with their flags", () => {
  assert.deepEqual(serverCapabilitiesOf("handshake"), {
    tools: { listChanged: true },
    resources: { subscribe: true },
    prompts: {},
    logging: {},
    completions: {},
    tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } },
  });
  assert.deepEqual(serverCapabilitiesOf("stateless"), {
    tools: { listChanged: true },
    resources: {},
    prompts: {},
    completions: {},
    extensions: { "io.modelcontextprotocol/tasks": {} },
  });
  for (const era of PROTOCOL_ERAS) {
    // 2026-07-28 spells tasks as an extension.
    const names = servedIn(era).flatMap((n) => MCP_METHODS[n].capability?.name ?? [])
      .map((n) => n === "tasks" && era === "stateless" ? "extensions" : n);
    assert.deepEqual(Object.keys(serverCapabilitiesOf(era)).sort(), [...new Set(names)].sort());
  }
});

Deno.test("the servers announce the table's capabilities: initialize and server/discover", async () => {
  const { server: s } = server(estate());
  const session = s.openSession({ principal: RETAIL, notify: () => {} });
  const init = await s.handle({
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-11-25", capabilities: {} },
  }, session);
  assert.ok(init && "result" in init);
  assert.deepEqual(
    (init.result as Record<string, unknown>).capabilities,
    serverCapabilitiesOf("handshake"),
  );
  const discover = await s.handleStateless({
    jsonrpc: "2.0",
    id: 1,
    method: "server/discover",
    params: {
      _meta: {
        [STATELESS_META.protocolVersion]: "2026-07-28",
        [STATELESS_META.clientCapabilities]: {},
      },
    },
  }, { principal: RETAIL });
  assert.ok(discover && "result" in discover);
  assert.deepEqual(
    (discover.result as Record<string, unknown>).capabilities,
    serverCapabilitiesOf("stateless"),
  );
});

Deno.test("a handshake-era session answers exactly the table's handshake methods (others -32601)", async () => {
  const { server: s } = server(estate());
  const session = s.openSession({ principal: RETAIL, notify: () => {} });
  let id = 0;
  const send = (method: string, params: Record<string, unknown> = {}) =>
    s.handle({ jsonrpc: "2.0", id: ++id, method, params }, session);
  // Before the handshake is ready the gate refuses (-32600) every method but the beforeReady ones.
  for (const method of NAMES) {
    if (MCP_METHODS[method].beforeReady) continue;
    assert.equal(errorCode(await send(method)), -32600, method);
  }
  assert.equal(errorCode(await send("ping")), undefined);
  assert.equal(
    errorCode(await send("initialize", { protocolVersion: "2025-11-25", capabilities: {} })),
    undefined,
  );
  await s.handle({ jsonrpc: "2.0", method: "notifications/initialized" }, session);
  for (const method of [...NAMES, "no/such-method"]) {
    const code = errorCode(await send(method));
    const served = servedIn("handshake").includes(method as McpMethodName);
    if (served) assert.notEqual(code, -32601, method);
    else assert.equal(code, -32601, method);
  }
});

Deno.test("the stateless server answers exactly the table's stateless methods (others -32601)", async () => {
  const { server: s } = server(estate());
  let id = 0;
  for (const method of [...NAMES, "no/such-method"]) {
    const controller = new AbortController();
    const answer = s.handleStateless({
      jsonrpc: "2.0",
      id: ++id,
      method,
      params: {
        _meta: {
          [STATELESS_META.protocolVersion]: "2026-07-28",
          [STATELESS_META.clientCapabilities]: {},
        },
      },
    }, { principal: RETAIL, signal: controller.signal });
    // A listen stream stays open until cancelled; its params are refused first here (-32602).
    const code = errorCode(await answer);
    const served = servedIn("stateless").includes(method as McpMethodName);
    if (served) assert.notEqual(code, -32601, method);
    else assert.equal(code, -32601, method);
  }
});

Deno.test("the server-to-client requests a client governs are the table's, each with its client capability", () => {
  // Keyed by ServerRequestMethod: the type makes this list the policy's methods exactly.
  const governed: Record<ServerRequestMethod, string> = {
    "sampling/createMessage": "sampling",
    "elicitation/create": "elicitation",
    "roots/list": "roots",
  };
  const fromTable = Object.fromEntries(
    NAMES.filter((n) => MCP_METHODS[n].sentBy.includes("server") && MCP_METHODS[n].clientCapability)
      .map((n) => [n, MCP_METHODS[n].clientCapability]),
  );
  assert.deepEqual(fromTable, governed);
});
