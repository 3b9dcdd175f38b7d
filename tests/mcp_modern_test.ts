import assert from "node:assert/strict";
import { PassThrough } from "node:stream";
import {
  isModernMessage,
  type JsonRpcResponse,
  META_VERSION_KEY,
  MissingClientCapabilityError,
  readStatelessEnvelope,
  STATELESS_META,
  statelessHeaderProblem,
} from "../mod.ts";
import { serveStdio } from "../lib/mcp/transports/stdio.ts";
import { estate, OPERATOR, ready, RETAIL, server, spec } from "./_mcp_fixtures.ts";

const ENVELOPE = {
  [STATELESS_META.protocolVersion]: "2026-07-28",
  [STATELESS_META.clientCapabilities]: {},
};
const req = (
  id: number | string,
  method: string,
  params: Record<string, unknown> = {},
) => ({
  jsonrpc: "2.0",
  id,
  method,
  params: {
    ...params,
    _meta: { ...ENVELOPE, ...(params._meta as object ?? {}) },
  },
});
const resultOf = (r: JsonRpcResponse | undefined) =>
  (r as { result: Record<string, unknown> }).result;
const errorOf = (r: JsonRpcResponse | undefined) =>
  (r as { error: { code: number; message: string; data?: unknown } }).error;
const delay = (ms: number) => new Promise((r) => setTimeout(r, ms));

const resources = {
  list: () => [{ uri: "bank://policies/cutoff", name: "cutoff" }],
  templates: () => [{ uriTemplate: "bank://policies/{id}", name: "policy" }],
  read: (uri: string) =>
    uri === "bank://policies/cutoff" ? [{ uri, text: "16:00 CET" }] : undefined,
};
const prompts = {
  list: () => [{
    name: "summarise",
    arguments: [{ name: "topic", required: true }],
  }],
  get: (name: string, args: Record<string, string>) =>
    name === "summarise"
      ? {
        messages: [{
          role: "user" as const,
          content: { type: "text" as const, text: `Summarise ${args.topic}` },
        }],
      }
      : undefined,
  complete: () => ["cut-off", "cutover"],
};

Deno.test("isModernMessage() decides the era by the _meta envelope alone", () => {
  assert.equal(isModernMessage(req(1, "tools/list")), true);
  assert.equal(
    isModernMessage({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/list",
      params: { _meta: { [STATELESS_META.clientCapabilities]: {} } },
    }),
    true,
  );
  assert.equal(
    isModernMessage({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: {},
    }),
    false,
  );
  assert.equal(
    isModernMessage({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    false,
  );
  assert.equal(isModernMessage(null), false);
});

Deno.test("readStatelessEnvelope() needs a string version and object capabilities (-32602), a served version (-32022)", () => {
  assert.deepEqual(readStatelessEnvelope({ _meta: ENVELOPE }), {
    protocolVersion: "2026-07-28",
    clientCapabilities: {},
  });
  assert.throws(
    () => readStatelessEnvelope({ _meta: { [STATELESS_META.clientCapabilities]: {} } }),
    { code: -32602 },
  );
  assert.throws(
    () =>
      readStatelessEnvelope({
        _meta: { [STATELESS_META.protocolVersion]: "2026-07-28" },
      }),
    { code: -32602 },
  );
  assert.throws(
    () =>
      readStatelessEnvelope({
        _meta: { ...ENVELOPE, [STATELESS_META.clientCapabilities]: [] },
      }),
    { code: -32602 },
  );
  assert.throws(
    () =>
      readStatelessEnvelope({
        _meta: { ...ENVELOPE, [STATELESS_META.protocolVersion]: "2025-11-25" },
      }),
    {
      code: -32022,
      data: { supported: ["2026-07-28"], requested: "2025-11-25" },
    },
  );
});

Deno.test("handleStateless(): envelope errors, unsupported version with data, removed methods -32601", async () => {
  const { server: s } = server(estate());
  const bad = await s.handleStateless(
    {
      jsonrpc: "2.0",
      id: 1,
      method: "tools/list",
      params: { _meta: { [STATELESS_META.protocolVersion]: "2026-07-28" } },
    },
    { principal: RETAIL },
  );
  assert.equal(errorOf(bad).code, -32602);
  const old = await s.handleStateless(
    req(2, "tools/list", {
      _meta: { [STATELESS_META.protocolVersion]: "1999-01-01" },
    }),
    { principal: RETAIL },
  );
  assert.deepEqual(errorOf(old), {
    code: -32022,
    message: 'Unsupported protocol version "1999-01-01"; this server speaks 2026-07-28',
    data: { supported: ["2026-07-28"], requested: "1999-01-01" },
  });
  for (
    const method of [
      "initialize",
      "ping",
      "logging/setLevel",
      "resources/subscribe",
      "resources/unsubscribe",
      "foo/bar",
    ]
  ) {
    const r = await s.handleStateless(
      req(3, method, { uri: "x", level: "info" }),
      {
        principal: RETAIL,
      },
    );
    assert.equal(errorOf(r).code, -32601, method);
    assert.equal((r as { id: unknown }).id, 3);
  }
  assert.equal(s.sessionCount, 0); // nothing stateful was made
});

Deno.test("server/discover names versions, capabilities, serverInfo, cache fields and resultType", async () => {
  const { server: s } = server(estate(), {
    serverInfo: { name: "estate", version: "9.9.9" },
    instructions: "Use payments tools carefully.",
    cacheTtlMs: 60_000,
  });
  const r = resultOf(
    await s.handleStateless(req(1, "server/discover"), { principal: RETAIL }),
  );
  assert.deepEqual(r, {
    supportedVersions: ["2026-07-28"],
    capabilities: {
      tools: { listChanged: true },
      resources: {},
      prompts: {},
      completions: {},
      extensions: { "io.modelcontextprotocol/tasks": {} },
    },
    instructions: "Use payments tools carefully.",
    ttlMs: 60_000,
    cacheScope: "public",
    resultType: "complete",
    _meta: { [STATELESS_META.serverInfo]: { name: "estate", version: "9.9.9" } },
  });
});

Deno.test("stateless tools/list depends only on the principal: private, deterministic, no history", async () => {
  const { server: s } = server(estate());
  const names = async (p: typeof RETAIL) => {
    const r = resultOf(
      await s.handleStateless(req(1, "tools/list"), { principal: p }),
    );
    assert.equal(r.cacheScope, "private");
    assert.equal(r.ttlMs, 0);
    assert.equal(r.resultType, "complete");
    return (r.tools as { name: string }[]).map((t) => t.name);
  };
  const retail = await names(RETAIL);
  const operator = await names(OPERATOR);
  assert.deepEqual(retail, ["policy.search", "retail.transfers.lookup"]);
  assert.deepEqual(operator, [
    "payments.lookup",
    "payments.release",
    "policy.search",
  ]);
  assert.deepEqual(await names(RETAIL), retail); // the operator's request changed nothing
});

Deno.test("stateless tools/call: unknown and invisible tools get byte-identical -32602; bad args isError; pins", async () => {
  const { server: s, ran } = server(estate());
  const unknown = await s.handleStateless(
    req(1, "tools/call", {
      name: "payments.release",
      arguments: { reference: "PMT-000001" },
    }),
    { principal: RETAIL },
  );
  const missing = await s.handleStateless(
    req(1, "tools/call", {
      name: "payments.release",
      arguments: { reference: "PMT-000001" },
    }),
    { principal: { ...RETAIL, id: "nobody", scopes: [] } },
  );
  assert.equal(JSON.stringify(unknown), JSON.stringify(missing));
  assert.equal(errorOf(unknown).code, -32602);
  const nope = await s.handleStateless(
    req(1, "tools/call", { name: "no.such" }),
    {
      principal: RETAIL,
    },
  );
  assert.equal(errorOf(nope).message, "Unknown tool: no.such");

  const invalid = resultOf(
    await s.handleStateless(
      req(2, "tools/call", {
        name: "policy.search",
        arguments: { reference: 7 },
      }),
      { principal: RETAIL },
    ),
  );
  assert.equal(invalid.isError, true);
  assert.equal(invalid.resultType, "complete");
  assert.ok(
    (invalid.structuredContent as { issues: unknown[] }).issues.length > 0,
  );
  assert.deepEqual(ran, []);

  const pinned = resultOf(
    await s.handleStateless(
      req(3, "tools/call", {
        name: "payments.lookup",
        arguments: { reference: "PMT-000001" },
        _meta: { [META_VERSION_KEY]: "~1.0.0" },
      }),
      { principal: OPERATOR },
    ),
  );
  assert.equal(
    (pinned.structuredContent as { version: string }).version,
    "1.0.0",
  );
  assert.equal(pinned.resultType, "complete");
  assert.deepEqual(ran, ["payments.lookup@1.0.0"]);
});

Deno.test("stateless resources and prompts: cache fields, not-found -32602 (never -32002), prompts/get, completion", async () => {
  const { server: s } = server(estate(), { resources, prompts });
  for (
    const method of [
      "resources/list",
      "resources/templates/list",
      "prompts/list",
    ]
  ) {
    const r = resultOf(
      await s.handleStateless(req(1, method), { principal: RETAIL }),
    );
    assert.equal(r.cacheScope, "private", method);
    assert.equal(r.ttlMs, 0, method);
    assert.equal(r.resultType, "complete", method);
  }
  const read = resultOf(
    await s.handleStateless(
      req(2, "resources/read", { uri: "bank://policies/cutoff" }),
      {
        principal: RETAIL,
      },
    ),
  );
  assert.deepEqual(read.contents, [{
    uri: "bank://policies/cutoff",
    text: "16:00 CET",
  }]);
  assert.equal(read.cacheScope, "private");
  const missing = await s.handleStateless(
    req(3, "resources/read", { uri: "bank://nope" }),
    {
      principal: RETAIL,
    },
  );
  assert.equal(errorOf(missing).code, -32602);
  // The handshake era keeps -32002.
  const session = await ready(s, RETAIL);
  const legacy = await s.handle(
    {
      jsonrpc: "2.0",
      id: 4,
      method: "resources/read",
      params: { uri: "bank://nope" },
    },
    session,
  );
  assert.equal(errorOf(legacy).code, -32002);
  const prompt = resultOf(
    await s.handleStateless(
      req(5, "prompts/get", {
        name: "summarise",
        arguments: { topic: "cut-offs" },
      }),
      { principal: RETAIL },
    ),
  );
  assert.equal(prompt.resultType, "complete");
  assert.equal(prompt.ttlMs, undefined);
  const done = resultOf(
    await s.handleStateless(
      req(6, "completion/complete", {
        ref: { type: "ref/prompt", name: "summarise" },
        argument: { name: "topic", value: "cut" },
      }),
      { principal: RETAIL },
    ),
  );
  assert.deepEqual(done.completion, {
    values: ["cut-off", "cutover"],
    total: 2,
    hasMore: false,
  });
});

Deno.test("stateless tools/call sends log messages only at the requested logLevel", async () => {
  const { server: s } = server(estate(), {
    handlerFor: () => (_args, ctx) => {
      ctx.log("info", "working");
      ctx.log("error", "bad");
      return "ok";
    },
  });
  const call = (meta: Record<string, unknown>) => {
    const notes: unknown[] = [];
    return s.handleStateless(
      req(1, "tools/call", {
        name: "policy.search",
        arguments: { reference: "PMT-000001" },
        _meta: meta,
      }),
      { principal: RETAIL, notify: (m) => notes.push(m) },
    ).then(() => notes.length);
  };
  assert.equal(await call({}), 0);
  assert.equal(await call({ [STATELESS_META.logLevel]: "error" }), 1);
  assert.equal(await call({ [STATELESS_META.logLevel]: "debug" }), 2);
});

Deno.test("a cancelled stateless request gets no response and its handler sees the abort", async () => {
  let aborted = false;
  const { server: s } = server(estate(), {
    handlerFor: () => (_args, ctx) =>
      new Promise((resolve) => {
        ctx.signal.addEventListener("abort", () => {
          aborted = true;
          resolve("late");
        });
      }),
  });
  const controller = new AbortController();
  const pending = s.handleStateless(
    req(1, "tools/call", {
      name: "policy.search",
      arguments: { reference: "PMT-000001" },
    }),
    { principal: RETAIL, signal: controller.signal },
  );
  await delay(10);
  controller.abort();
  assert.equal(await pending, undefined);
  assert.equal(aborted, true);
});

Deno.test("subscriptions/listen: ack first, then list_changed only when the principal's view changes", async () => {
  const registry = estate();
  const { server: s } = server(registry);
  const notes: { method: string; params: Record<string, unknown> }[] = [];
  const controller = new AbortController();
  const listening = s.handleStateless(
    req("sub-1", "subscriptions/listen", {
      notifications: { toolsListChanged: true },
    }),
    {
      principal: RETAIL,
      notify: (m) => notes.push(m as (typeof notes)[number]),
      signal: controller.signal,
    },
  );
  assert.deepEqual(notes, [{
    jsonrpc: "2.0",
    method: "notifications/subscriptions/acknowledged",
    params: {
      _meta: { [STATELESS_META.subscriptionId]: "sub-1" },
      notifications: { toolsListChanged: true },
    },
  }]);
  assert.equal(s.listenerCount, 1);
  // A tool RETAIL cannot see: nothing.
  registry.publish(
    spec("payments.refund", "1.0.0", {
      requiredScopes: ["payments:read"],
      tenants: ["wholesale"],
    }),
  );
  assert.equal(notes.length, 1);
  // A tool RETAIL can see: list_changed, tagged.
  registry.publish(
    spec("policy.explain", "1.0.0", { requiredScopes: ["policy:read"] }),
  );
  assert.equal(notes.length, 2);
  assert.equal(notes[1].method, "notifications/tools/list_changed");
  assert.deepEqual(notes[1].params, {
    _meta: { [STATELESS_META.subscriptionId]: "sub-1" },
  });
  controller.abort();
  assert.equal(await listening, undefined); // cancelled: no response
  assert.equal(s.listenerCount, 0);
  registry.publish(
    spec("policy.other", "1.0.0", { requiredScopes: ["policy:read"] }),
  );
  assert.equal(notes.length, 2);
});

Deno.test("updatePrincipal(): that principal's sessions and listen streams see the new scopes; list_changed only where the view changed", async () => {
  const registry = estate();
  const { server: s } = server(registry);
  const operatorNotes: { method: string }[] = [], otherOperator: unknown[] = [];
  const retailNotes: unknown[] = [],
    listenNotes: { method: string; params: unknown }[] = [];
  const operator = await ready(s, OPERATOR, "2025-11-25", operatorNotes);
  await ready(s, { ...OPERATOR }, "2025-11-25", otherOperator);
  const retail = await ready(s, RETAIL, "2025-11-25", retailNotes);
  const controller = new AbortController();
  const listening = s.handleStateless(
    req("L", "subscriptions/listen", {
      notifications: { toolsListChanged: true },
    }),
    {
      principal: OPERATOR,
      notify: (m) => listenNotes.push(m as (typeof listenNotes)[number]),
      signal: controller.signal,
    },
  );
  const names = async (session: typeof operator) =>
    (resultOf(
      await s.handle({ jsonrpc: "2.0", id: 9, method: "tools/list" }, session),
    )
      .tools as { name: string }[]).map((t) => t.name);
  assert.deepEqual(await names(operator), [
    "payments.lookup",
    "payments.release",
    "policy.search",
  ]);

  // The operator loses payments:release: two sessions and one listen stream are theirs.
  const fewer = { ...OPERATOR, scopes: ["payments:read", "policy:read"] };
  assert.equal(s.updatePrincipal(fewer), 3);
  assert.deepEqual(operatorNotes, [{
    jsonrpc: "2.0",
    method: "notifications/tools/list_changed",
  }]);
  assert.equal(otherOperator.length, 1);
  assert.equal(retailNotes.length, 0, "another principal is not told");
  assert.equal(listenNotes.length, 2);
  assert.deepEqual(listenNotes[1], {
    jsonrpc: "2.0",
    method: "notifications/tools/list_changed",
    params: { _meta: { [STATELESS_META.subscriptionId]: "L" } },
  });
  assert.deepEqual(await names(operator), ["payments.lookup", "policy.search"]);
  const call = await s.handle({
    jsonrpc: "2.0",
    id: 10,
    method: "tools/call",
    params: {
      name: "payments.release",
      arguments: { reference: "PMT-000001" },
    },
  }, operator);
  assert.equal(
    errorOf(call).code,
    -32602,
    "a tool no longer visible cannot be called",
  );

  // A change that leaves the view as it was tells nobody.
  assert.equal(s.updatePrincipal({ ...fewer, clearance: "confidential" }), 3);
  assert.deepEqual([operatorNotes.length, listenNotes.length], [1, 2]);
  assert.deepEqual(retail.principal, RETAIL);
  assert.equal(s.updatePrincipal({ ...RETAIL, id: "nobody" }), 0);
  controller.abort();
  assert.equal(await listening, undefined);
});

Deno.test("subscriptions/listen without toolsListChanged gets an ack but no list_changed; server close ends it", async () => {
  const registry = estate();
  const { server: s } = server(registry);
  const notes: { method: string; params: Record<string, unknown> }[] = [];
  const listening = s.handleStateless(
    req(7, "subscriptions/listen", { notifications: {} }),
    {
      principal: RETAIL,
      notify: (m) => notes.push(m as (typeof notes)[number]),
    },
  );
  registry.publish(
    spec("policy.explain", "1.0.0", { requiredScopes: ["policy:read"] }),
  );
  assert.deepEqual(notes.map((n) => n.method), [
    "notifications/subscriptions/acknowledged",
  ]);
  assert.deepEqual(notes[0].params.notifications, {});
  s.close();
  const r = resultOf(await listening);
  assert.equal(r.resultType, "complete");
  assert.deepEqual(
    (r._meta as Record<string, unknown>)[STATELESS_META.subscriptionId],
    7,
  );
  const bad = await s.handleStateless(req(8, "subscriptions/listen"), {
    principal: RETAIL,
  });
  assert.equal(errorOf(bad).code, -32602);
});

Deno.test("statelessHeaderProblem() checks version, method and name (base64 sentinel decoded)", () => {
  const body = req(1, "tools/call", { name: "fx.café" });
  const ok = {
    "mcp-protocol-version": "2026-07-28",
    "mcp-method": "tools/call",
    "mcp-name": "=?base64?" +
      btoa(String.fromCharCode(...new TextEncoder().encode("fx.café"))) +
      "?=",
  };
  assert.equal(statelessHeaderProblem(ok, body), undefined);
  assert.match(
    statelessHeaderProblem({ ...ok, "mcp-protocol-version": "2025-11-25" }, body)!,
    /MCP-Protocol-Version/,
  );
  assert.match(
    statelessHeaderProblem({ ...ok, "mcp-method": "tools/list" }, body)!,
    /Mcp-Method/,
  );
  assert.match(
    statelessHeaderProblem({ ...ok, "mcp-name": "fx.cafe" }, body)!,
    /Mcp-Name/,
  );
  assert.match(
    statelessHeaderProblem({ ...ok, "mcp-name": undefined }, body)!,
    /Mcp-Name/,
  );
  // Names are needed only for tools/call, resources/read, prompts/get.
  assert.equal(
    statelessHeaderProblem(
      { ...ok, "mcp-method": "tools/list", "mcp-name": undefined },
      req(1, "tools/list"),
    ),
    undefined,
  );
});

Deno.test("stdio: a modern line is served statelessly beside the legacy session; listen notifies; cancel", async () => {
  const registry = estate();
  const { server: s } = server(registry);
  const input = new PassThrough();
  const output = new PassThrough();
  const lines: Record<string, unknown>[] = [];
  let buffer = "";
  output.on("data", (c: Uint8Array) => {
    buffer += new TextDecoder().decode(c);
    let nl;
    while ((nl = buffer.indexOf("\n")) !== -1) {
      lines.push(JSON.parse(buffer.slice(0, nl)));
      buffer = buffer.slice(nl + 1);
    }
  });
  const done = serveStdio(s, { principal: RETAIL, input, output });
  const send = (m: unknown) => input.write(JSON.stringify(m) + "\n");
  const waitFor = async (pred: (l: Record<string, unknown>) => boolean) => {
    for (let i = 0; i < 200; i++) {
      const hit = lines.find(pred);
      if (hit) return hit;
      await delay(5);
    }
    throw new Error("timed out; got " + JSON.stringify(lines));
  };
  send({
    jsonrpc: "2.0",
    id: "init",
    method: "initialize",
    params: { protocolVersion: "2025-11-25", capabilities: {} },
  });
  await waitFor((l) => l.id === "init");
  send({ jsonrpc: "2.0", method: "notifications/initialized" });
  send(req("m1", "tools/list"));
  const list = await waitFor((l) => l.id === "m1");
  assert.equal((list.result as Record<string, unknown>).cacheScope, "private");
  send({ jsonrpc: "2.0", id: "l1", method: "tools/list" }); // legacy, on the session
  const legacy = await waitFor((l) => l.id === "l1");
  assert.equal(
    (legacy.result as Record<string, unknown>).cacheScope,
    undefined,
  );
  send(
    req("sub", "subscriptions/listen", {
      notifications: { toolsListChanged: true },
    }),
  );
  await waitFor((l) => l.method === "notifications/subscriptions/acknowledged");
  registry.publish(
    spec("policy.explain", "1.0.0", { requiredScopes: ["policy:read"] }),
  );
  const changed = lines.filter((l) => l.method === "notifications/tools/list_changed");
  // One for the legacy session (untagged), one for the subscription (tagged).
  assert.equal(changed.length, 2);
  assert.deepEqual(
    changed.map((l) => (l.params as { _meta?: Record<string, unknown> } | undefined)?._meta),
    [{ [STATELESS_META.subscriptionId]: "sub" }, undefined],
  );
  send({
    jsonrpc: "2.0",
    method: "notifications/cancelled",
    params: { requestId: "sub" },
  });
  for (let i = 0; i < 50 && s.listenerCount > 0; i++) await delay(5);
  assert.equal(s.listenerCount, 0);
  input.end();
  await done;
  assert.equal(lines.some((l) => l.id === "sub"), false); // cancelled: no response
});

Deno.test("a tool needing a capability the client did not declare: -32021 in 2026-07-28, a tool error before", async () => {
  const { server: s } = server(estate(), {
    handlerFor: () => (_args, ctx) => {
      if (!Object.hasOwn(ctx.clientCapabilities, "sampling")) {
        throw new MissingClientCapabilityError({ sampling: {} });
      }
      return "sampled";
    },
  });
  const call = (caps: Record<string, unknown>) =>
    s.handleStateless(
      req(1, "tools/call", {
        name: "policy.search",
        arguments: { reference: "PMT-000001" },
        _meta: { [STATELESS_META.clientCapabilities]: caps },
      }),
      { principal: OPERATOR },
    );
  const e = errorOf(await call({}));
  assert.equal(e.code, -32021);
  assert.deepEqual(e.data, { requiredCapabilities: { sampling: {} } });
  assert.deepEqual(resultOf(await call({ sampling: {} })).content, [{
    type: "text",
    text: "sampled",
  }]);
  // The handshake era sees the capabilities declared in initialize, and has no -32021: the
  // refusal is a tool error naming the capability.
  const session = await ready(s, OPERATOR);
  const legacy = await s.handle({
    jsonrpc: "2.0",
    id: 2,
    method: "tools/call",
    params: { name: "policy.search", arguments: { reference: "PMT-000001" } },
  }, session);
  const refused = resultOf(legacy);
  assert.equal(refused.isError, true);
  assert.match(
    (refused.content as { text: string }[])[0].text,
    /needs the client capability \{"sampling":\{\}\}, which this client did not declare/,
  );
});
