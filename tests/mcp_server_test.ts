import assert from "node:assert/strict";
import fc from "fast-check";
import { handleLine } from "../lib/mcp/transports/stdio.ts";
import type { JsonRpcResponse } from "../mod.ts";
import { estate, OPERATOR, ready, RETAIL, server, spec } from "./_mcp_fixtures.ts";

const call = (id: number, name: string, args: unknown, meta?: unknown) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: meta === undefined ? { name, arguments: args } : { name, arguments: args, _meta: meta },
});
const resultOf = (r: JsonRpcResponse | undefined) =>
  (r as { result: Record<string, unknown> }).result;
const errorOf = (r: JsonRpcResponse | undefined) =>
  (r as { error: { code: number; message: string; data?: unknown } }).error;

Deno.test("initialize negotiates leniently and declares tools with listChanged, resources, prompts, logging and completions", async () => {
  const { server: s } = server(estate());
  for (
    const [asked, got] of [["2025-06-18", "2025-06-18"], [
      "2024-11-05",
      "2024-11-05",
    ], [
      "1999-01-01",
      "2025-11-25",
    ]]
  ) {
    const session = s.openSession({ principal: RETAIL, notify: () => {} });
    const r = resultOf(
      await s.handle({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: asked, capabilities: {} },
      }, session),
    );
    assert.equal(r.protocolVersion, got);
    assert.deepEqual(r.capabilities, {
      tools: { listChanged: true },
      resources: { subscribe: true },
      prompts: {},
      logging: {},
      completions: {},
      tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } },
    });
  }
});

Deno.test("before initialized, only initialize and ping are served (-32600 otherwise)", async () => {
  const { server: s } = server(estate());
  const session = s.openSession({ principal: RETAIL, notify: () => {} });
  assert.equal(
    errorOf(
      await s.handle({ jsonrpc: "2.0", id: 1, method: "tools/list" }, session),
    ).code,
    -32600,
  );
  assert.deepEqual(
    resultOf(
      await s.handle({ jsonrpc: "2.0", id: 2, method: "ping" }, session),
    ),
    {},
  );
  await s.handle({
    jsonrpc: "2.0",
    id: 3,
    method: "initialize",
    params: { protocolVersion: "2025-11-25", capabilities: {} },
  }, session);
  // Initialized only after the notification.
  assert.equal(
    errorOf(
      await s.handle({ jsonrpc: "2.0", id: 4, method: "tools/list" }, session),
    ).code,
    -32600,
  );
  assert.equal(
    await s.handle(
      { jsonrpc: "2.0", method: "notifications/initialized" },
      session,
    ),
    undefined,
  );
  assert.ok(
    resultOf(
      await s.handle({ jsonrpc: "2.0", id: 5, method: "tools/list" }, session),
    ).tools,
  );
  assert.equal(
    errorOf(
      await s.handle({
        jsonrpc: "2.0",
        id: 6,
        method: "initialize",
        params: { protocolVersion: "2025-11-25" },
      }, session),
    ).code,
    -32600,
  );
  assert.equal(
    errorOf(
      await s.handle({ jsonrpc: "2.0", id: 7, method: "nope/nope" }, session),
    ).code,
    -32601,
  );
});

Deno.test("notifications are never answered, whatever they say", async () => {
  const { server: s } = server(estate());
  const session = await ready(s, RETAIL);
  for (
    const method of [
      "notifications/initialized",
      "notifications/cancelled",
      "unknown/thing",
      "tools/call",
      "initialize",
    ]
  ) {
    assert.equal(
      await s.handle(
        { jsonrpc: "2.0", method, params: { requestId: 99 } },
        session,
      ),
      undefined,
    );
  }
});

Deno.test("invalid envelopes get the reserved codes, with the id when it is readable", async () => {
  const { server: s } = server(estate());
  const session = await ready(s, RETAIL);
  assert.deepEqual(
    await s.handle({ jsonrpc: "1.0", id: 7, method: "ping" }, session),
    {
      jsonrpc: "2.0",
      id: 7,
      error: {
        code: -32600,
        message: 'Invalid Request: jsonrpc must be "2.0", got "1.0"',
      },
    },
  );
  assert.equal(
    errorOf(
      await s.handle({ jsonrpc: "2.0", id: 1.5, method: "ping" }, session),
    ).code,
    -32600,
  );
  assert.equal((await s.handle([1, 2], session))!.id, null);
  assert.equal(
    errorOf(
      await s.handle({
        jsonrpc: "2.0",
        id: 8,
        method: "tools/list",
        params: [1],
      }, session),
    )
      .code,
    -32602,
  );
});

Deno.test("tools/list is the principal's discovery, paginated by opaque cursors in a stable order", async () => {
  const { server: s } = server(estate(), { pageSize: 1 });
  const walk = async (principal: typeof RETAIL) => {
    const session = await ready(s, principal);
    const names: string[] = [];
    let cursor: string | undefined;
    for (let i = 0; i < 10; i++) {
      const r = resultOf(
        await s.handle({
          jsonrpc: "2.0",
          id: i,
          method: "tools/list",
          params: cursor === undefined ? {} : { cursor },
        }, session),
      );
      names.push(
        ...(r.tools as { name: string; _meta: Record<string, string> }[]).map((
          t,
        ) => `${t.name}@${t._meta["dev.tool-estate/version"]}`),
      );
      cursor = r.nextCursor as string | undefined;
      if (cursor === undefined) break;
    }
    return names;
  };
  assert.deepEqual(await walk(OPERATOR), [
    "payments.lookup@1.1.0",
    "payments.release@1.0.0",
    "policy.search@1.0.0",
  ]);
  assert.deepEqual(await walk(RETAIL), [
    "policy.search@1.0.0",
    "retail.transfers.lookup@1.0.0",
  ]);
  const session = await ready(s, RETAIL);
  for (const cursor of ["", "bogus", 5, "dGUxOjk5"]) {
    const e = errorOf(
      await s.handle({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/list",
        params: { cursor },
      }, session),
    );
    assert.equal(e.code, -32602, String(cursor));
  }
});

Deno.test("tools/list never carries scopes, tenants, classification or owner", async () => {
  const registry = estate();
  const { server: s } = server(registry);
  const session = await ready(s, OPERATOR);
  const text = JSON.stringify(
    await s.handle({ jsonrpc: "2.0", id: 1, method: "tools/list" }, session),
  );
  for (
    const secret of [
      '"payments:read"',
      '"payments:release"',
      '"wholesale"',
      '"restricted"',
      '"team"',
    ]
  ) {
    assert.equal(text.includes(secret), false, secret);
  }
});

Deno.test("tools/call: an unknown tool and an invisible one get byte-identical errors", async () => {
  const { server: s, ran, calls } = server(estate());
  const session = await ready(s, RETAIL);
  const unknown = JSON.stringify(
    await s.handle(
      call(1, "payments.teleport", { reference: "PMT-000001" }),
      session,
    ),
  );
  const hidden = JSON.stringify(
    await s.handle(
      call(1, "payments.release", { reference: "PMT-000001" }),
      session,
    ),
  );
  assert.equal(
    hidden.replace("payments.release", "payments.teleport"),
    unknown,
  );
  assert.equal(errorOf(JSON.parse(unknown)).code, -32602);
  assert.deepEqual([ran, calls], [[], []]);
});

Deno.test("tools/call checks params shape first", async () => {
  const { server: s } = server(estate());
  const session = await ready(s, OPERATOR);
  assert.match(
    errorOf(
      await s.handle(
        {
          jsonrpc: "2.0",
          id: 1,
          method: "tools/call",
          params: { arguments: {} },
        },
        session,
      ),
    ).message,
    /needs name/,
  );
  assert.match(
    errorOf(await s.handle(call(2, "payments.lookup", [1]), session)).message,
    /arguments must be an object/,
  );
  assert.match(
    errorOf(
      await s.handle(
        call(3, "payments.lookup", {}, {
          "dev.tool-estate/version": "latest!",
        }),
        session,
      ),
    ).message,
    /version constraint/,
  );
});

Deno.test("schema-invalid arguments never reach the handler: -32602 with issues up to 2025-06-18, isError from 2025-11-25", async () => {
  const { server: s, ran, calls } = server(estate());
  const bad = { reference: "771", amount: "12", extra: true };
  const old = await ready(s, OPERATOR, "2025-06-18");
  const e = errorOf(await s.handle(call(1, "payments.lookup", bad), old));
  assert.equal(e.code, -32602);
  const issues = (e.data as { issues: { path: string; keyword: string }[] }).issues;
  assert.deepEqual(issues.map((i) => `${i.path} ${i.keyword}`), [
    "$.amount type",
    "$.extra additionalProperties",
    "$.reference pattern",
  ]);
  const now = await ready(s, OPERATOR, "2025-11-25");
  const r = resultOf(await s.handle(call(2, "payments.lookup", bad), now));
  assert.equal(r.isError, true);
  assert.deepEqual((r.structuredContent as { issues: unknown }).issues, issues);
  assert.match(
    (r.content as { text: string }[])[0].text,
    /^Invalid arguments for payments\.lookup:\n\$\.amount: expected number, got string \(type\)/,
  );
  assert.deepEqual(ran, []);
  assert.deepEqual(calls.map((c) => c.outcome), [
    "invalid-arguments",
    "invalid-arguments",
  ]);
});

Deno.test("a handler that throws gives an isError result without a stack trace", async () => {
  const { server: s, calls } = server(estate());
  const session = await ready(s, OPERATOR);
  const r = resultOf(
    await s.handle(
      call(1, "payments.lookup", { reference: "PMT-999999" }),
      session,
    ),
  );
  assert.deepEqual(r, {
    content: [{
      type: "text",
      text: "payments.lookup failed: core banking timed out",
    }],
    isError: true,
  });
  assert.equal(calls[0].outcome, "tool-error");
});

Deno.test("a per-call pin resolves deprecated versions; unpinned calls get the newest active", async () => {
  const registry = estate();
  const { server: s, ran } = server(registry);
  const session = await ready(s, OPERATOR);
  registry.deprecate("payments.lookup", "1.0.0");
  await s.handle(
    call(1, "payments.lookup", { reference: "PMT-000001" }),
    session,
  );
  await s.handle(
    call(2, "payments.lookup", { reference: "PMT-000001" }, {
      "dev.tool-estate/version": "~1.0.0",
    }),
    session,
  );
  assert.deepEqual(ran, ["payments.lookup@1.1.0", "payments.lookup@1.0.0"]);
  const none = errorOf(
    await s.handle(
      call(3, "payments.lookup", {}, { "dev.tool-estate/version": "^2.0.0" }),
      session,
    ),
  );
  assert.equal(none.message, "No version of payments.lookup satisfies ^2.0.0");
});

Deno.test("every call is logged with principal, tool, version, outcome and duration", async () => {
  let t = 1000;
  const { server: s, calls } = server(estate(), { now: () => (t += 5) });
  const session = await ready(s, OPERATOR);
  await s.handle(
    call(1, "policy.search", { reference: "PMT-000001" }),
    session,
  );
  assert.deepEqual(calls, [{
    principal: "wholesale-operator",
    tool: "policy.search",
    version: "1.0.0",
    outcome: "ok",
    durationMs: 5,
    at: new Date(1005).toISOString(),
    arguments: { reference: "PMT-000001" },
  }]);
});

Deno.test("list_changed goes to each session whose view changed, and only then", async () => {
  const registry = estate();
  const { server: s } = server(registry);
  const retailNotes: unknown[] = [],
    operatorNotes: unknown[] = [],
    fresh: unknown[] = [];
  await ready(s, RETAIL, "2025-11-25", retailNotes);
  await ready(s, OPERATOR, "2025-11-25", operatorNotes);
  s.openSession({ principal: OPERATOR, notify: (m) => fresh.push(m) }); // not initialized: never told
  registry.publish(spec("payments.release", "1.1.0", {
    sideEffect: "irreversible",
    requiredScopes: ["payments:release"],
    dataClassification: "restricted",
    tenants: ["wholesale"],
    title: "Release 1.1",
  }));
  assert.equal(operatorNotes.length, 1);
  assert.deepEqual(operatorNotes[0], {
    jsonrpc: "2.0",
    method: "notifications/tools/list_changed",
  });
  assert.equal(retailNotes.length, 0);
  registry.deprecate("payments.lookup", "1.0.0"); // 1.1.0 is what they see: no change
  assert.equal(operatorNotes.length, 1);
  registry.retire("retail.transfers.lookup", "1.0.0");
  assert.deepEqual([retailNotes.length, operatorNotes.length, fresh.length], [
    1,
    1,
    0,
  ]);
});

Deno.test("a cancelled request gets no response; progress goes out when a token was sent", async () => {
  const registry = estate();
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const notes: unknown[] = [];
  const { server: s } = server(registry, {
    handlerFor: () => async (_args, ctx) => {
      ctx.progress(1, 3);
      ctx.progress(1, 3); // not increasing: dropped
      ctx.progress(2, 3, "halfway");
      await gate;
      return "done";
    },
  });
  const session = await ready(s, OPERATOR, "2025-11-25", notes);
  const pending = s.handle(
    call(1, "policy.search", { reference: "PMT-000001" }, {
      progressToken: "tok",
    }),
    session,
  );
  const cancelled = s.handle(
    call(2, "policy.search", { reference: "PMT-000001" }),
    session,
  );
  assert.equal(
    await s.handle({
      jsonrpc: "2.0",
      method: "notifications/cancelled",
      params: { requestId: 2, reason: "user" },
    }, session),
    undefined,
  );
  release();
  assert.equal(await cancelled, undefined);
  assert.deepEqual(resultOf(await pending), {
    content: [{ type: "text", text: "done" }],
  });
  assert.deepEqual(notes, [
    {
      jsonrpc: "2.0",
      method: "notifications/progress",
      params: { progressToken: "tok", progress: 1, total: 3 },
    },
    {
      jsonrpc: "2.0",
      method: "notifications/progress",
      params: {
        progressToken: "tok",
        progress: 2,
        total: 3,
        message: "halfway",
      },
    },
  ]);
});

Deno.test("resources and prompts: lists, reads, and the error codes for unknown ones", async () => {
  const { server: s } = server(estate(), {
    resources: {
      list: () => [{ uri: "bank://policies/A", name: "A" }],
      templates: () => [{ uriTemplate: "bank://policies/{id}", name: "policy" }],
      read: (uri) => uri === "bank://policies/A" ? [{ uri, text: "Policy A" }] : undefined,
    },
    prompts: {
      list: () => [{
        name: "investigate",
        arguments: [{ name: "reference", required: true }],
      }],
      get: (name, args) => {
        if (name !== "investigate") return undefined;
        if (!args.reference) throw new (class extends Error {})("x");
        return {
          messages: [{
            role: "user",
            content: { type: "text", text: `look at ${args.reference}` },
          }],
        };
      },
    },
  });
  const session = await ready(s, RETAIL);
  const h = (id: number, method: string, params: unknown) =>
    s.handle({ jsonrpc: "2.0", id, method, params }, session);
  assert.deepEqual(resultOf(await h(1, "resources/list", {})), {
    resources: [{ uri: "bank://policies/A", name: "A" }],
  });
  assert.deepEqual(
    resultOf(await h(2, "resources/templates/list", {})).resourceTemplates,
    [{
      uriTemplate: "bank://policies/{id}",
      name: "policy",
    }],
  );
  assert.deepEqual(
    resultOf(await h(3, "resources/read", { uri: "bank://policies/A" })),
    {
      contents: [{ uri: "bank://policies/A", text: "Policy A" }],
    },
  );
  assert.equal(
    errorOf(await h(4, "resources/read", { uri: "bank://policies/Z" })).code,
    -32002,
  );
  assert.equal(
    resultOf(await h(5, "prompts/list", {})).prompts instanceof Array,
    true,
  );
  assert.deepEqual(
    resultOf(
      await h(6, "prompts/get", {
        name: "investigate",
        arguments: { reference: "PMT-1" },
      }),
    )
      .messages,
    [
      { role: "user", content: { type: "text", text: "look at PMT-1" } },
    ],
  );
  assert.equal(
    errorOf(await h(7, "prompts/get", { name: "nope" })).code,
    -32602,
  );
  assert.equal(
    errorOf(
      await h(8, "prompts/get", {
        name: "investigate",
        arguments: { reference: 5 },
      }),
    ).code,
    -32602,
  );
});

Deno.test("property: any JSON values and text lines never throw, never answer a notification, and answer each request once", async () => {
  const registry = estate();
  const { server: s } = server(registry);
  const request = fc.record({
    jsonrpc: fc.constant("2.0"),
    id: fc.oneof(fc.integer(), fc.string()),
    method: fc.constantFrom(
      "initialize",
      "ping",
      "tools/list",
      "tools/call",
      "resources/read",
      "prompts/get",
      "x/y",
    ),
    params: fc.oneof(
      fc.jsonValue(),
      fc.record({
        name: fc.constantFrom("payments.lookup", "policy.search", "x"),
        arguments: fc.jsonValue(),
        cursor: fc.jsonValue(),
      }, { requiredKeys: [] }),
    ),
  }, { requiredKeys: ["jsonrpc", "id", "method"] });
  const notification = fc.record({
    jsonrpc: fc.constant("2.0"),
    method: fc.constantFrom(
      "notifications/initialized",
      "notifications/cancelled",
      "tools/call",
      "x",
    ),
    params: fc.oneof(fc.constant(undefined), fc.object()),
  }, { requiredKeys: ["jsonrpc", "method"] }).map((
    n,
  ) => (n.params === undefined ? { jsonrpc: n.jsonrpc, method: n.method } : n));
  const message = fc.oneof(
    request.map((m) => ({
      kind: "request" as const,
      text: JSON.stringify(m),
      id: m.id,
    })),
    notification.map((m) => ({
      kind: "notification" as const,
      text: JSON.stringify(m),
    })),
    fc.jsonValue().map((v) => ({
      kind: "value" as const,
      text: JSON.stringify(v) ?? "null",
    })),
    fc.string().map((t) => ({
      kind: "text" as const,
      text: t.replace(/\n/g, " "),
    })),
  );
  await fc.assert(
    fc.asyncProperty(fc.array(message, { maxLength: 25 }), async (messages) => {
      const session = s.openSession({ principal: OPERATOR, notify: () => {} });
      for (const m of messages) {
        const out = await handleLine(s, session, m.text);
        if (m.kind === "notification") assert.equal(out, undefined, m.text);
        if (m.kind === "request") {
          const r = JSON.parse(out!);
          assert.equal(r.jsonrpc, "2.0");
          assert.equal(r.id, m.id);
          assert.equal(("result" in r) !== ("error" in r), true);
          if ("error" in r) {
            assert.ok(
              Number.isInteger(r.error.code) &&
                typeof r.error.message === "string",
            );
          }
        }
        if (out !== undefined) {
          const r = JSON.parse(out);
          assert.ok("result" in r || "error" in r, out);
        }
      }
      s.closeSession(session);
    }),
    { numRuns: 300 },
  );
});

Deno.test("logging: tool log messages follow logging/setLevel and go out as related to their request", async () => {
  const sent: [unknown, unknown][] = [];
  const { server: s } = server(estate(), {
    handlerFor: () => (_args, ctx) => {
      ctx.log("debug", "detail");
      ctx.log("warning", { slow: true }, "core-banking");
      return "ok";
    },
  });
  const session = s.openSession({
    principal: OPERATOR,
    notify: (m, related) => sent.push([m, related]),
  });
  await s.handle({
    jsonrpc: "2.0",
    id: 0,
    method: "initialize",
    params: { protocolVersion: "2025-11-25", capabilities: {} },
  }, session);
  await s.handle(
    { jsonrpc: "2.0", method: "notifications/initialized" },
    session,
  );
  await s.handle(
    call(1, "policy.search", { reference: "PMT-000001" }),
    session,
  );
  assert.deepEqual(
    sent.map((
      [m, r],
    ) => [(m as { params: { level: string } }).params.level, r]),
    [[
      "debug",
      1,
    ], ["warning", 1]],
  );
  assert.deepEqual(
    resultOf(
      await s.handle({
        jsonrpc: "2.0",
        id: 2,
        method: "logging/setLevel",
        params: { level: "info" },
      }, session),
    ),
    {},
  );
  sent.length = 0;
  await s.handle(
    call(3, "policy.search", { reference: "PMT-000001" }),
    session,
  );
  assert.deepEqual(sent.map(([m]) => m), [{
    jsonrpc: "2.0",
    method: "notifications/message",
    params: { level: "warning", data: { slow: true }, logger: "core-banking" },
  }]);
  assert.equal(
    errorOf(
      await s.handle({
        jsonrpc: "2.0",
        id: 4,
        method: "logging/setLevel",
        params: { level: "loud" },
      }, session),
    ).code,
    -32602,
  );
});

Deno.test("completion/complete asks the prompt provider; resources/subscribe gets updates", async () => {
  const notes: unknown[] = [];
  const { server: s } = server(estate(), {
    prompts: {
      list: () => [],
      get: () => undefined,
      complete: (_name, _arg, value) =>
        ["PMT-004211", "PMT-004212"].filter((r) => r.startsWith(value)),
    },
  });
  const session = await ready(s, RETAIL, "2025-11-25", notes);
  const h = (id: number, method: string, params: unknown) =>
    s.handle({ jsonrpc: "2.0", id, method, params }, session);
  const c = resultOf(
    await h(1, "completion/complete", {
      ref: { type: "ref/prompt", name: "investigate" },
      argument: { name: "reference", value: "PMT-0042" },
    }),
  );
  assert.deepEqual(c, {
    completion: {
      values: ["PMT-004211", "PMT-004212"],
      total: 2,
      hasMore: false,
    },
  });
  assert.equal(errorOf(await h(2, "completion/complete", {})).code, -32602);
  assert.deepEqual(
    resultOf(await h(3, "resources/subscribe", { uri: "bank://policies/A" })),
    {},
  );
  s.resourceUpdated("bank://policies/A");
  s.resourceUpdated("bank://policies/B");
  await h(4, "resources/unsubscribe", { uri: "bank://policies/A" });
  s.resourceUpdated("bank://policies/A");
  assert.deepEqual(notes, [{
    jsonrpc: "2.0",
    method: "notifications/resources/updated",
    params: { uri: "bank://policies/A" },
  }]);
});

Deno.test("a session belongs to the server that opened it: another server neither answers nor closes it", async () => {
  const a = server(estate()).server;
  const b = server(estate()).server;
  const session = await ready(a, OPERATOR);
  const list = { jsonrpc: "2.0", id: 1, method: "tools/list", params: {} };
  // B answers A's session as it answers any session it never opened.
  const foreign = b.openSession({ principal: OPERATOR, notify: () => {} });
  b.closeSession(foreign);
  const stranger = { ...foreign };
  for (const s of [session, stranger]) {
    await assert.rejects(
      () => b.handle(list, s),
      (e: unknown) => e instanceof TypeError && /this server's openSession/.test(e.message),
    );
  }
  b.closeSession(session);
  assert.equal(b.sessionCount, 0);
  b.close();
  assert.equal(a.sessionCount, 1);
  const tools = resultOf(await a.handle(list, session)).tools as {
    name: string;
  }[];
  assert.ok(tools.length > 0);
  a.close();
});
