/**
 * The Streamable HTTP transport's stateless (2026-07-28) path, by raw `fetch` for exact statuses,
 * headers and bodies: header/body agreement, status mapping, SSE for subscriptions/listen,
 * closing a stream as cancellation, and the handshake era beside it.
 */
import assert from "node:assert/strict";
import { McpServer, STATELESS_META, type ToolRegistry } from "../mod.ts";
import { bearerTokens, type McpHttpServer, serveHttp } from "../lib/mcp/transports/http_mod.ts";
import { SseDecoder } from "../lib/mcp/transports/_sse_parser.ts";
import { estate, OPERATOR, RETAIL, spec } from "./_mcp_fixtures.ts";

const TOKENS = { retail: "tok-retail-0001", operator: "tok-operator-0002" };
const VERSION = "2026-07-28";
const ENVELOPE = {
  [STATELESS_META.protocolVersion]: VERSION,
  [STATELESS_META.clientCapabilities]: {},
};

interface Fixture {
  http: McpHttpServer;
  server: McpServer;
  registry: ToolRegistry;
  aborted: string[];
}

async function withServer(body: (f: Fixture) => Promise<void>): Promise<void> {
  const registry = estate();
  const aborted: string[] = [];
  const server = new McpServer({
    registry,
    handlerFor: (t) => async (args, context) => {
      if (args.reference === "PMT-000777") {
        await new Promise((resolve) =>
          context.signal.addEventListener("abort", () => {
            aborted.push(t.name);
            resolve(undefined);
          })
        );
      }
      if (typeof args.amount === "number") {
        context.progress(1, 2);
        context.progress(2, 2);
      }
      return { tool: t.name, version: t.version, args };
    },
  });
  const http = await serveHttp(server, {
    authenticate: bearerTokens([
      { ...RETAIL, token: TOKENS.retail },
      { ...OPERATOR, token: TOKENS.operator },
    ]),
    keepAliveMs: 0,
  });
  try {
    await body({ http, server, registry, aborted });
  } finally {
    await http.close();
    server.close();
  }
}

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

/** POSTs a stateless request with the headers a conforming client sends, overridable. */
function post(
  url: string,
  body: { method: string; params?: Record<string, unknown> },
  headers: Record<string, string | undefined> = {},
  signal?: AbortSignal,
): Promise<Response> {
  const name = body.params?.name ?? body.params?.uri;
  const all: Record<string, string | undefined> = {
    authorization: `Bearer ${TOKENS.operator}`,
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": VERSION,
    "mcp-method": body.method,
    ...(typeof name === "string" ? { "mcp-name": name } : {}),
    ...headers,
  };
  const sent: Record<string, string> = {};
  for (const [k, v] of Object.entries(all)) if (v !== undefined) sent[k] = v;
  return fetch(url, {
    method: "POST",
    headers: sent,
    body: JSON.stringify(body),
    signal,
  });
}

async function errorOf(
  res: Response,
): Promise<{ status: number; code: number; id: unknown }> {
  const body = await res.json();
  return { status: res.status, code: body.error?.code, id: body.id };
}

/** Reads SSE message events until `count` arrived; leaves the stream open. */
async function events(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  count: number,
  into: Record<string, unknown>[],
): Promise<void> {
  const decoder = new SseDecoder();
  const text = new TextDecoder();
  while (into.length < count) {
    const { done, value } = await reader.read();
    if (done) return;
    for (const e of decoder.push(text.decode(value, { stream: true }))) {
      into.push(JSON.parse(e.data));
    }
  }
}

const delay = (ms: number) => new Promise((r) => setTimeout(r, ms));

Deno.test("http modern: tools/list and server/discover over one POST, no session", async () => {
  await withServer(async (f) => {
    const r = await post(f.http.url, req(1, "tools/list"));
    assert.equal(r.status, 200);
    assert.equal(r.headers.get("mcp-session-id"), null);
    const body = await r.json();
    assert.equal(body.result.resultType, "complete");
    assert.equal(body.result.cacheScope, "private");
    assert.equal(body.result.ttlMs, 0);
    assert.deepEqual(
      body.result.tools.map((t: { name: string }) => t.name),
      ["payments.lookup", "payments.release", "policy.search"],
    );
    const d = await (await post(f.http.url, req(2, "server/discover"))).json();
    assert.deepEqual(d.result.supportedVersions, [VERSION]);
    assert.equal(f.http.sessionCount, 0);
  });
});

Deno.test("http modern: header/body mismatches get 400 with -32020 and the request id", async () => {
  await withServer(async (f) => {
    const call = req(3, "tools/call", {
      name: "policy.search",
      arguments: { reference: "PMT-000001" },
    });
    const cases: Record<string, string | undefined>[] = [
      { "mcp-protocol-version": "2025-11-25" },
      { "mcp-method": "tools/list" },
      { "mcp-method": undefined },
      { "mcp-name": "payments.lookup" },
      { "mcp-name": undefined },
    ];
    for (const headers of cases) {
      assert.deepEqual(
        await errorOf(await post(f.http.url, call, headers)),
        { status: 400, code: -32020, id: 3 },
        JSON.stringify(headers),
      );
    }
    // Header and body disagree on the revision: the mismatch (-32020) is what is reported, even
    // when the body's revision is also unsupported.
    const other = req(4, "tools/list", {
      _meta: { [STATELESS_META.protocolVersion]: "v999.0.0" },
    });
    assert.deepEqual(await errorOf(await post(f.http.url, other)), {
      status: 400,
      code: -32020,
      id: 4,
    });
    const encoded = "=?base64?" + btoa("policy.search") + "?=";
    assert.equal(
      (await post(f.http.url, call, { "mcp-name": encoded })).status,
      200,
    );
    const read = req(4, "resources/read", { uri: "bank://x" });
    assert.equal(
      (await errorOf(await post(f.http.url, read, { "mcp-name": "bank://y" })))
        .code,
      -32020,
    );
  });
});

Deno.test("http modern: unknown or removed method 404 -32601; bad version 400 -32022; bad envelope 400 -32602", async () => {
  await withServer(async (f) => {
    for (
      const method of ["foo/bar", "ping", "initialize", "logging/setLevel"]
    ) {
      assert.deepEqual(await errorOf(await post(f.http.url, req(5, method))), {
        status: 404,
        code: -32601,
        id: 5,
      }, method);
    }
    const old = req(6, "tools/list", {
      _meta: { [STATELESS_META.protocolVersion]: "1999-01-01" },
    });
    const r = await post(f.http.url, old, {
      "mcp-protocol-version": "1999-01-01",
    });
    assert.equal(r.status, 400);
    const body = await r.json();
    assert.equal(body.error.code, -32022);
    assert.deepEqual(body.error.data, {
      supported: [VERSION],
      requested: "1999-01-01",
    });
    const noCaps = {
      jsonrpc: "2.0",
      id: 7,
      method: "tools/list",
      params: { _meta: { [STATELESS_META.protocolVersion]: VERSION } },
    };
    assert.deepEqual(await errorOf(await post(f.http.url, noCaps)), {
      status: 400,
      code: -32602,
      id: 7,
    });
    // The header alone names the era: a modern header without an envelope is a bad envelope.
    const bare = { jsonrpc: "2.0", id: 8, method: "tools/list" };
    assert.deepEqual(await errorOf(await post(f.http.url, bare)), {
      status: 400,
      code: -32602,
      id: 8,
    });
  });
});

Deno.test("http modern: unknown tool is 200 + -32602; invalid arguments 200 + isError", async () => {
  await withServer(async (f) => {
    const unknown = await post(
      f.http.url,
      req(9, "tools/call", { name: "no.such" }),
    );
    assert.equal(unknown.status, 200);
    assert.equal((await unknown.json()).error.code, -32602);
    const bad = await post(
      f.http.url,
      req(10, "tools/call", {
        name: "policy.search",
        arguments: { reference: 1 },
      }),
    );
    assert.equal(bad.status, 200);
    const body = await bad.json();
    assert.equal(body.result.isError, true);
    assert.equal(body.result.resultType, "complete");
  });
});

Deno.test("http modern: GET and DELETE without a session get 405", async () => {
  await withServer(async (f) => {
    for (const method of ["GET", "DELETE"]) {
      const r = await fetch(f.http.url, {
        method,
        headers: {
          authorization: `Bearer ${TOKENS.operator}`,
          accept: "text/event-stream",
          "mcp-protocol-version": VERSION,
        },
      });
      assert.equal(r.status, 405, method);
      assert.ok(r.headers.get("allow")?.includes("POST"));
      await r.body?.cancel();
    }
  });
});

Deno.test("http modern: subscriptions/listen streams the ack, then the principal's list_changed; closing cancels", async () => {
  await withServer(async (f) => {
    const controller = new AbortController();
    const r = await post(
      f.http.url,
      req("L1", "subscriptions/listen", {
        notifications: { toolsListChanged: true },
      }),
      { authorization: `Bearer ${TOKENS.retail}` },
      controller.signal,
    );
    assert.equal(r.status, 200);
    assert.equal(r.headers.get("content-type"), "text/event-stream");
    const reader = r.body!.getReader();
    const got: Record<string, unknown>[] = [];
    await events(reader, 1, got);
    assert.equal(got[0].method, "notifications/subscriptions/acknowledged");
    assert.deepEqual(got[0].params, {
      _meta: { [STATELESS_META.subscriptionId]: "L1" },
      notifications: { toolsListChanged: true },
    });
    // Invisible to RETAIL: nothing; visible: a tagged list_changed.
    f.registry.publish(
      spec("payments.refund", "1.0.0", {
        requiredScopes: ["payments:read"],
        tenants: ["wholesale"],
      }),
    );
    f.registry.publish(
      spec("policy.explain", "1.0.0", { requiredScopes: ["policy:read"] }),
    );
    await events(reader, 2, got);
    assert.equal(got.length, 2);
    assert.equal(got[1].method, "notifications/tools/list_changed");
    assert.deepEqual(got[1].params, {
      _meta: { [STATELESS_META.subscriptionId]: "L1" },
    });
    assert.equal(f.server.listenerCount, 1);
    controller.abort();
    await reader.cancel().catch(() => {});
    for (let i = 0; i < 100 && f.server.listenerCount > 0; i++) await delay(10);
    assert.equal(f.server.listenerCount, 0);
  });
});

Deno.test("http modern: reauthenticate() closes a revoked token's listen stream and tells a changed principal's", async () => {
  await withServer(async (f) => {
    const listen = async (id: string, token: string) => {
      const r = await post(
        f.http.url,
        req(id, "subscriptions/listen", {
          notifications: { toolsListChanged: true },
        }),
        { authorization: `Bearer ${token}` },
      );
      assert.equal(r.status, 200);
      const reader = r.body!.getReader();
      const got: Record<string, unknown>[] = [];
      await events(reader, 1, got); // the acknowledgement
      return { reader, got };
    };
    const retail = await listen("R", TOKENS.retail);
    const operator = await listen("O", TOKENS.operator);
    assert.equal(f.server.listenerCount, 2);
    const result = await f.http.reauthenticate(bearerTokens([
      { ...RETAIL, token: "tok-retail-0003" },
      {
        ...OPERATOR,
        scopes: ["payments:read", "policy:read"],
        token: TOKENS.operator,
      },
    ]));
    assert.deepEqual(result, { ended: 1, updated: 1 });
    assert.equal(
      (await retail.reader.read()).done,
      true,
      "the revoked listen stream ended",
    );
    await events(operator.reader, 2, operator.got);
    assert.deepEqual(operator.got[1], {
      jsonrpc: "2.0",
      method: "notifications/tools/list_changed",
      params: { _meta: { [STATELESS_META.subscriptionId]: "O" } },
    });
    const old = await post(f.http.url, req(3, "tools/list"), {
      authorization: `Bearer ${TOKENS.retail}`,
    });
    assert.equal(old.status, 401);
    await old.body?.cancel();
    const list = await (await post(f.http.url, req(4, "tools/list"))).json();
    assert.deepEqual(
      list.result.tools.map((t: { name: string }) => t.name),
      ["payments.lookup", "policy.search"],
    );
    await operator.reader.cancel();
    for (let i = 0; i < 100 && f.server.listenerCount > 0; i++) await delay(10);
    assert.equal(f.server.listenerCount, 0);
  });
});

Deno.test("http modern: closing a tools/call response stream aborts the handler", async () => {
  await withServer(async (f) => {
    const controller = new AbortController();
    const pending = post(
      f.http.url,
      req(11, "tools/call", {
        name: "policy.search",
        arguments: { reference: "PMT-000777" },
      }),
      {},
      controller.signal,
    ).catch(() => undefined);
    await delay(100);
    controller.abort();
    await pending;
    for (let i = 0; i < 100 && f.aborted.length === 0; i++) await delay(10);
    assert.deepEqual(f.aborted, ["policy.search"]);
  });
});

Deno.test("http modern: progress goes on an SSE stream before the response", async () => {
  await withServer(async (f) => {
    const r = await post(
      f.http.url,
      req(12, "tools/call", {
        name: "policy.search",
        arguments: { reference: "PMT-000001", amount: 1 },
        _meta: { progressToken: "p" },
      }),
    );
    assert.equal(r.headers.get("content-type"), "text/event-stream");
    const got: Record<string, unknown>[] = [];
    await events(r.body!.getReader(), 3, got);
    assert.deepEqual(got.map((m) => m.method ?? m.id), [
      "notifications/progress",
      "notifications/progress",
      12,
    ]);
  });
});

Deno.test("http modern: the handshake era keeps working beside it", async () => {
  await withServer(async (f) => {
    const headers = {
      authorization: `Bearer ${TOKENS.operator}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
    };
    const init = await fetch(f.http.url, {
      method: "POST",
      headers,
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-11-25", capabilities: {} },
      }),
    });
    const session = init.headers.get("mcp-session-id")!;
    assert.ok(session);
    await init.body?.cancel();
    const ack = await fetch(f.http.url, {
      method: "POST",
      headers: { ...headers, "mcp-session-id": session },
      body: JSON.stringify({
        jsonrpc: "2.0",
        method: "notifications/initialized",
      }),
    });
    assert.equal(ack.status, 202);
    const list = await fetch(f.http.url, {
      method: "POST",
      headers: { ...headers, "mcp-session-id": session },
      body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" }),
    });
    const body = await list.json();
    assert.equal(body.result.tools.length, 3);
    assert.equal(body.result.resultType, undefined);
    assert.equal(f.http.sessionCount, 1);
    // A stateless request carrying the session id is still stateless.
    const modern = await post(f.http.url, req(3, "tools/list"), {
      "mcp-session-id": session,
    });
    assert.equal((await modern.json()).result.resultType, "complete");
  });
});
