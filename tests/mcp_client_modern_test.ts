import assert from "node:assert/strict";
import {
  createLinkedTransports,
  type ListCacheEntry,
  McpClient,
  type McpClientOptions,
  McpProtocolError,
  ResourceNotFoundError,
  type Transport,
  UnsupportedResultError,
} from "../mod.ts";

const PV = "io.modelcontextprotocol/protocolVersion";
const SUB = "io.modelcontextprotocol/subscriptionId";

type Reply = { result: Record<string, unknown> } | {
  error: { code: number; message: string; data?: unknown };
} | "silence";

type Handler = (
  params: Record<string, unknown>,
  id: number | string,
  far: Transport,
) => Reply;

interface Double {
  client: McpClient;
  /** Every request the double received, in order. */
  received: { method: string; params: Record<string, unknown> }[];
  far: Transport;
}

/** A server double speaking raw JSON-RPC: each method answered by its handler; others -32601. */
function double(
  handlers: Record<string, Handler>,
  options: McpClientOptions = {},
): Double {
  const [near, far] = createLinkedTransports();
  const received: Double["received"] = [];
  far.onmessage = (raw) => {
    const m = raw as {
      id?: number | string;
      method?: string;
      params?: Record<string, unknown>;
    };
    if (m.method === undefined) return;
    received.push({ method: m.method, params: m.params ?? {} });
    if (m.id === undefined) return;
    const handler = handlers[m.method];
    const reply: Reply = handler ? handler(m.params ?? {}, m.id, far) : {
      error: { code: -32601, message: `Method not found: ${m.method}` },
    };
    if (reply === "silence") return;
    far.send({ jsonrpc: "2.0", id: m.id, ...reply } as never).catch(() => {});
  };
  return {
    client: new McpClient(near, { era: "auto", ...options }),
    received,
    far,
  };
}

const DISCOVERED: Handler = () => ({
  result: {
    supportedVersions: ["2026-07-28"],
    capabilities: { tools: { listChanged: true } },
    resultType: "complete",
    ttlMs: 0,
    cacheScope: "public",
    _meta: {
      "io.modelcontextprotocol/serverInfo": {
        name: "double",
        version: "1.0.0",
      },
    },
  },
});

const INITIALIZED: Handler = (params) => ({
  result: {
    protocolVersion: params.protocolVersion,
    capabilities: { tools: {} },
    serverInfo: { name: "legacy-double", version: "1.0.0" },
  },
});

function tools(
  names: string[],
  extra: Record<string, unknown> = { ttlMs: 60_000, cacheScope: "public" },
): Handler {
  return () => ({
    result: {
      tools: names.map((name) => ({ name, inputSchema: { type: "object" } })),
      resultType: "complete",
      ...extra,
    },
  });
}

Deno.test("connect() picks the modern era on a discover result and sends no initialize", async () => {
  const { client, received } = double({
    "server/discover": DISCOVERED,
    "tools/list": tools(["a"]),
  });
  const init = await client.connect();
  assert.equal(client.era, "stateless");
  assert.equal(client.protocolVersion, "2026-07-28");
  assert.deepEqual(init.serverInfo, { name: "double", version: "1.0.0" });
  await client.listTools();
  assert.deepEqual(received.map((r) => r.method), [
    "server/discover",
    "tools/list",
  ]);
  for (const r of received) {
    const meta = r.params._meta as Record<string, unknown>;
    assert.equal(meta[PV], "2026-07-28");
    assert.deepEqual(meta["io.modelcontextprotocol/clientCapabilities"], {
      extensions: { "io.modelcontextprotocol/tasks": {} },
    });
    assert.equal(
      (meta["io.modelcontextprotocol/clientInfo"] as { name: string }).name,
      "tool-estate-client",
    );
  }
  await client.close();
});

for (
  const [what, reply] of [
    ["-32601", { error: { code: -32601, message: "Method not found" } }],
    ["-32600", { error: { code: -32600, message: "Server not initialized" } }],
    ["an application code", { error: { code: 17, message: "nope" } }],
    ["-32022 naming only legacy versions", {
      error: {
        code: -32022,
        message: "unsupported",
        data: { supported: ["2025-11-25"] },
      },
    }],
  ] as const
) {
  Deno.test(`connect() falls back to initialize when discover fails with ${what}`, async () => {
    const { client, received } = double({
      "server/discover": () => reply as Reply,
      initialize: INITIALIZED,
    });
    const init = await client.connect();
    assert.equal(client.era, "handshake");
    assert.equal(init.protocolVersion, "2025-11-25");
    assert.deepEqual(received.map((r) => r.method), [
      "server/discover",
      "initialize",
      "notifications/initialized",
    ]);
    await client.close();
  });
}

Deno.test("connect() falls back to initialize when discover times out", async () => {
  const { client, received } = double({
    "server/discover": () => "silence",
    initialize: INITIALIZED,
  }, {
    discoverTimeoutMs: 30,
  });
  await client.connect();
  assert.equal(client.era, "handshake");
  assert.deepEqual(received.map((r) => r.method).slice(0, 2), [
    "server/discover",
    "initialize",
  ]);
  // Legacy requests carry no modern envelope.
  assert.equal(received[1].params._meta, undefined);
  await client.close();
});

Deno.test("connect() only ever asks for a modern version it speaks, and accepts -32022's list", async () => {
  const { client, received } = double({
    "server/discover": (params) =>
      (params._meta as Record<string, unknown>)[PV] === "2026-07-28"
        ? DISCOVERED(params, 0, null!)
        : {
          error: {
            code: -32022,
            message: "Unsupported protocol version",
            data: { supported: ["2026-07-28"], requested: "2026-01-01" },
          },
        },
  }, { protocolVersion: "2026-01-01" });
  await client.connect();
  assert.equal(client.era, "stateless");
  assert.equal(client.protocolVersion, "2026-07-28");
  assert.deepEqual(
    received.map((r) => (r.params._meta as Record<string, unknown>)[PV]),
    ["2026-07-28"],
    "a version it does not speak is never asked for",
  );
  await client.close();
});

Deno.test("connect() gives up when -32022 names no version in common (and does not loop)", async () => {
  const { client, received } = double({
    "server/discover": () => ({
      error: {
        code: -32022,
        message: "Unsupported protocol version",
        data: {
          supported: ["2026-07-28", "2099-01-01"],
          requested: "2026-07-28",
        },
      },
    }),
  });
  await assert.rejects(client.connect(), /not a 2026-07-28 server/);
  assert.equal(received.length, 1);
  await client.close();
});

Deno.test("era: handshake never sends server/discover; era: stateless refuses a handshake-era server", async () => {
  const legacy = double({ initialize: INITIALIZED }, { era: "handshake" });
  await legacy.client.connect();
  assert.deepEqual(legacy.received.map((r) => r.method), [
    "initialize",
    "notifications/initialized",
  ]);
  await legacy.client.close();
  const modern = double({ initialize: INITIALIZED }, { era: "stateless" });
  await assert.rejects(modern.client.connect(), /not a 2026-07-28 server/);
  assert.deepEqual(modern.received.map((r) => r.method), ["server/discover"]);
  await modern.client.close();
});

Deno.test("era: the deprecated legacy and modern still mean handshake and stateless; era reports the new word", async () => {
  const legacy = double({ initialize: INITIALIZED }, { era: "legacy" });
  await legacy.client.connect();
  assert.deepEqual(legacy.received.map((r) => r.method), [
    "initialize",
    "notifications/initialized",
  ]);
  assert.equal(legacy.client.era, "handshake");
  await legacy.client.close();
  const modern = double({ "server/discover": DISCOVERED }, { era: "modern" });
  await modern.client.connect();
  assert.deepEqual(modern.received.map((r) => r.method), ["server/discover"]);
  assert.equal(modern.client.era, "stateless");
  await modern.client.close();
  const refused = double({ initialize: INITIALIZED }, { era: "modern" });
  await assert.rejects(refused.client.connect(), /not a 2026-07-28 server/);
  await refused.client.close();
});

Deno.test("modern tools/list cache: fresh for ttlMs, then re-listed; ttlMs 0 re-lists every time", async () => {
  let now = 1_000;
  const { client } = double({
    "server/discover": DISCOVERED,
    "tools/list": tools(["a", "b"], { ttlMs: 500, cacheScope: "public" }),
  }, { now: () => now });
  await client.connect();
  await client.listTools();
  now += 499;
  await client.listTools();
  assert.equal(client.listCount, 1);
  now += 1;
  assert.deepEqual((await client.listTools()).map((t) => t.name), ["a", "b"]);
  assert.equal(client.listCount, 2);
  await client.close();

  const zero = double({
    "server/discover": DISCOVERED,
    "tools/list": tools(["a"], { ttlMs: 0, cacheScope: "public" }),
  });
  await zero.client.connect();
  await zero.client.listTools();
  await zero.client.listTools();
  await zero.client.listTools();
  assert.equal(zero.client.listCount, 3);
  await zero.client.close();
});

Deno.test("modern cache across pages: the shortest ttlMs wins; a missing ttlMs is not cached", async () => {
  let now = 0;
  const { client } = double({
    "server/discover": DISCOVERED,
    "tools/list": (params) =>
      params.cursor === undefined
        ? {
          result: {
            tools: [{ name: "a", inputSchema: { type: "object" } }],
            nextCursor: "",
            ttlMs: 1000,
            cacheScope: "public",
          },
        }
        : {
          result: {
            tools: [{ name: "b", inputSchema: { type: "object" } }],
            ttlMs: 100,
            cacheScope: "public",
          },
        },
  }, { now: () => now });
  await client.connect();
  assert.deepEqual((await client.listTools()).map((t) => t.name), ["a", "b"]);
  now = 99;
  await client.listTools();
  assert.equal(client.listCount, 1);
  now = 100;
  await client.listTools();
  assert.equal(client.listCount, 2);
  await client.close();

  const bare = double({
    "server/discover": DISCOVERED,
    "tools/list": () => ({ result: { tools: [] } }),
  });
  await bare.client.connect();
  await bare.client.listTools();
  await bare.client.listTools();
  assert.equal(bare.client.listCount, 2);
  await bare.client.close();
});

Deno.test("cacheScope: shared entries serve every client of the store; private ones only their partition", async () => {
  const store = new Map<string, ListCacheEntry>();
  const open = (scope: string, partition?: string): McpClient =>
    double({
      "server/discover": DISCOVERED,
      "tools/list": tools(["t"], { ttlMs: 60_000, cacheScope: scope }),
    }, { cacheStore: store, cachePartition: partition }).client;

  const s1 = open("public"), s2 = open("public");
  await s1.connect();
  await s2.connect();
  await s1.listTools();
  await s2.listTools();
  assert.deepEqual([s1.listCount, s2.listCount], [1, 0]);
  await s1.close();
  await s2.close();
  store.clear();

  const alice = open("private", "alice"), alice2 = open("private", "alice");
  const bob = open("private", "bob"),
    nobody = open("private"),
    nobody2 = open("private");
  for (const c of [alice, alice2, bob, nobody, nobody2]) await c.connect();
  await alice.listTools();
  await alice2.listTools();
  await bob.listTools();
  await nobody.listTools();
  await nobody2.listTools();
  assert.deepEqual(
    [alice, alice2, bob, nobody, nobody2].map((c) => c.listCount),
    [1, 0, 1, 1, 1],
    "private results cross neither partitions nor partition-less clients",
  );
  assert.equal(store.size, 2);
  for (const c of [alice, alice2, bob, nobody, nobody2]) await c.close();
});

Deno.test("resultType: missing means complete; input_required and unknown types are errors", async () => {
  const { client } = double({
    "server/discover": DISCOVERED,
    "tools/call": (params) => ({
      result: params.name === "plain"
        ? { content: [{ type: "text", text: "ok" }] }
        : params.name === "mrtr"
        ? { resultType: "input_required", inputRequests: {} }
        : { resultType: "partial", content: [] },
    }),
  });
  await client.connect();
  assert.equal((await client.callTool("plain")).kind, "ok");
  await assert.rejects(
    client.callTool("mrtr"),
    (e) => e instanceof UnsupportedResultError && e.resultType === "input_required",
  );
  await assert.rejects(
    client.callTool("odd"),
    (e) => e instanceof UnsupportedResultError && /"partial"/.test(e.message),
  );
  await client.close();
});

Deno.test("listen() routes tools/list_changed with its subscriptionId to the cache; others are ignored", async () => {
  let listenId: number | string | undefined;
  let names = ["a"];
  const { client, far, received } = double({
    "server/discover": DISCOVERED,
    "tools/list": () => tools(names)({}, 0, null!),
    "subscriptions/listen": (_params, id, far) => {
      listenId = id;
      far.send({
        jsonrpc: "2.0",
        method: "notifications/subscriptions/acknowledged",
        params: {
          notifications: { toolsListChanged: true },
          _meta: { [SUB]: id },
        },
      });
      return "silence"; // the stream stays open
    },
  });
  await client.connect();
  await client.listTools();
  const sub = await client.listen({ toolsListChanged: true });
  assert.equal(sub.id, listenId);
  assert.deepEqual(sub.acknowledged, {
    notifications: { toolsListChanged: true },
  });
  assert.deepEqual(received.at(-1)?.params.notifications, {
    toolsListChanged: true,
  });
  let told = 0;
  client.onToolsChanged(() => told++);
  const changed = (subscriptionId: unknown) =>
    far.send({
      jsonrpc: "2.0",
      method: "notifications/tools/list_changed",
      params: subscriptionId === undefined ? {} : { _meta: { [SUB]: subscriptionId } },
    });
  await changed(undefined); // not on a subscription: the modern era ignores it
  await changed(9999);
  await new Promise((r) => setTimeout(r, 5));
  assert.equal(told, 0);
  names = ["a", "b"];
  await changed(listenId);
  await new Promise((r) => setTimeout(r, 5));
  assert.equal(told, 1);
  assert.deepEqual((await client.listTools()).map((t) => t.name), ["a", "b"]);
  assert.equal(client.listCount, 2);
  await sub.close();
  const cancel = received.find((r) => r.method === "notifications/cancelled");
  assert.equal(cancel?.params.requestId, listenId);
  await client.close();
});

Deno.test("listen() ends when the server answers the listen request, and is refused in the legacy era", async () => {
  const { client } = double({
    "server/discover": DISCOVERED,
    "subscriptions/listen": (_params, id, far) => {
      far.send({
        jsonrpc: "2.0",
        method: "notifications/subscriptions/acknowledged",
        params: { _meta: { [SUB]: id } },
      });
      setTimeout(
        () => far.send({ jsonrpc: "2.0", id, result: { resultType: "complete" } }),
        5,
      );
      return "silence";
    },
  });
  await client.connect();
  const sub = await client.listen({ toolsListChanged: true });
  await sub.closed;
  await client.close();

  const legacy = double({ initialize: INITIALIZED }, { era: "handshake" });
  await legacy.client.connect();
  await assert.rejects(
    legacy.client.listen({ toolsListChanged: true }),
    /handshake era/,
  );
  await legacy.client.close();
});

for (const code of [-32002, -32602]) {
  Deno.test(`readResource() throws ResourceNotFoundError for ${code}`, async () => {
    const { client } = double({
      "server/discover": DISCOVERED,
      "resources/read": (params) => ({
        error: {
          code,
          message: `Resource ${params.uri} not found`,
          data: { uri: params.uri },
        },
      }),
    });
    await client.connect();
    await assert.rejects(client.readResource("demo://nope"), (e) => {
      assert.ok(e instanceof ResourceNotFoundError);
      assert.ok(e instanceof McpProtocolError);
      assert.equal(e.code, code);
      assert.equal(e.uri, "demo://nope");
      return true;
    });
    await client.close();
  });
}

Deno.test("over Streamable HTTP: modern headers, JSON-RPC errors in 4xx bodies, and a listen stream", async () => {
  const { StreamableHttpClientTransport } = await import(
    "../lib/mcp/transports/http_client.ts"
  );
  const seen: { method: string; headers: Record<string, string | null> }[] = [];
  const encoder = new TextEncoder();
  let push: ((message: unknown) => void) | undefined;
  let listenCancelled!: () => void;
  const cancelled = new Promise<void>((resolve) => (listenCancelled = resolve));
  const server = Deno.serve({
    hostname: "127.0.0.1",
    port: 0,
    onListen: () => {},
  }, async (req) => {
    const body = await req.json();
    seen.push({
      method: body.method,
      headers: Object.fromEntries(
        ["mcp-protocol-version", "mcp-method", "mcp-name", "mcp-session-id"]
          .map((
            h,
          ) => [h, req.headers.get(h)]),
      ),
    });
    const json = (value: unknown, status = 200) =>
      new Response(JSON.stringify(value), {
        status,
        headers: { "content-type": "application/json" },
      });
    if (body.id === undefined) return new Response(null, { status: 202 });
    if (body.method === "server/discover") {
      return json({
        jsonrpc: "2.0",
        id: body.id,
        result: (DISCOVERED({}, 0, null!) as { result: unknown }).result,
      });
    }
    if (body.method === "tools/list") {
      return json({
        jsonrpc: "2.0",
        id: body.id,
        result: { tools: [], ttlMs: 60_000, cacheScope: "public" },
      });
    }
    if (body.method === "subscriptions/listen") {
      const stream = new ReadableStream<Uint8Array>({
        start(controller) {
          push = (m) =>
            controller.enqueue(
              encoder.encode(`data: ${JSON.stringify(m)}\n\n`),
            );
          push({
            jsonrpc: "2.0",
            method: "notifications/subscriptions/acknowledged",
            params: { _meta: { [SUB]: body.id } },
          });
        },
        cancel() {
          listenCancelled();
        },
      });
      return new Response(stream, {
        headers: { "content-type": "text/event-stream" },
      });
    }
    return json({
      jsonrpc: "2.0",
      id: body.id,
      error: { code: -32601, message: `Method not found: ${body.method}` },
    }, 404);
  });
  const url = `http://127.0.0.1:${server.addr.port}/mcp`;
  const client = new McpClient(new StreamableHttpClientTransport(url), {
    era: "auto",
  });
  try {
    await client.connect();
    assert.equal(client.era, "stateless");
    await client.listTools();
    await assert.rejects(
      client.request("foo/bar"),
      (e) => e instanceof McpProtocolError && e.code === -32601,
    );
    await assert.rejects(
      client.readResource("demo://ünïcode"),
      (e) => e instanceof McpProtocolError && e.code === -32601,
    );
    const sub = await client.listen({ toolsListChanged: true });
    let told = 0;
    client.onToolsChanged(() => told++);
    push!({
      jsonrpc: "2.0",
      method: "notifications/tools/list_changed",
      params: { _meta: { [SUB]: sub.id } },
    });
    await new Promise((r) => setTimeout(r, 20));
    assert.equal(told, 1);
    await client.listTools();
    assert.equal(client.listCount, 2);
    await sub.close();
    await cancelled; // closing the stream is the cancellation
    assert.equal(
      seen.filter((s) => s.method === "notifications/cancelled").length,
      0,
    );
    for (const s of seen) {
      assert.equal(s.headers["mcp-protocol-version"], "2026-07-28", s.method);
      assert.equal(s.headers["mcp-method"], s.method);
      assert.equal(s.headers["mcp-session-id"], null);
    }
    const read = seen.find((s) => s.method === "resources/read")!;
    const utf8 = String.fromCharCode(
      ...new TextEncoder().encode("demo://ünïcode"),
    );
    assert.equal(read.headers["mcp-name"], `=?base64?${btoa(utf8)}?=`);
  } finally {
    await client.close();
    await server.shutdown();
  }
});

Deno.test("listen(): a server's notifications/cancelled ends the subscription without an echo", async () => {
  const { client, far, received } = double({
    "server/discover": DISCOVERED,
    "subscriptions/listen": (_params, id, far) => {
      far.send({
        jsonrpc: "2.0",
        method: "notifications/subscriptions/acknowledged",
        params: { _meta: { [SUB]: id } },
      });
      return "silence";
    },
  });
  await client.connect();
  const sub = await client.listen({ toolsListChanged: true });
  await far.send({
    jsonrpc: "2.0",
    method: "notifications/cancelled",
    params: { requestId: sub.id, reason: "shutting down" },
  });
  await sub.closed;
  assert.equal(
    received.filter((r) => r.method === "notifications/cancelled").length,
    0,
  );
  await client.close();
});

Deno.test("onToolsChanged() in the modern era opens one listen stream when tools.listChanged", async () => {
  let listenId: number | string | undefined;
  const { client, far, received } = double({
    "server/discover": DISCOVERED,
    "tools/list": tools(["a"]),
    "subscriptions/listen": (_params, id, far) => {
      listenId = id;
      far.send({
        jsonrpc: "2.0",
        method: "notifications/subscriptions/acknowledged",
        params: { _meta: { [SUB]: id } },
      });
      return "silence";
    },
  });
  await client.connect();
  let told = 0;
  client.onToolsChanged(() => told++);
  client.onToolsChanged(() => {});
  await new Promise((r) => setTimeout(r, 5));
  assert.equal(
    received.filter((r) => r.method === "subscriptions/listen").length,
    1,
  );
  await far.send({
    jsonrpc: "2.0",
    method: "notifications/tools/list_changed",
    params: { _meta: { [SUB]: listenId } },
  });
  await new Promise((r) => setTimeout(r, 5));
  assert.equal(told, 1);
  await client.close();
});

Deno.test("listen() rejects when the server answers the listen request without acknowledging it", async () => {
  const { client } = double({
    "server/discover": DISCOVERED,
    "subscriptions/listen": () => ({ result: { resultType: "complete" } }),
  });
  await client.connect();
  await assert.rejects(
    client.listen({ toolsListChanged: true }),
    /without acknowledging/,
  );
  await client.close();
});

Deno.test("connect(): only a DiscoverResult is modern — a server answering server/discover with {} gets initialize", async () => {
  const { client, received } = double({
    "server/discover": () => ({ result: {} }),
    initialize: INITIALIZED,
  });
  const init = await client.connect();
  assert.equal(client.era, "handshake");
  assert.equal(init.protocolVersion, "2025-11-25");
  assert.deepEqual(received.map((r) => r.method), [
    "server/discover",
    "initialize",
    "notifications/initialized",
  ]);
  // Required modern: the same answer is refused, naming why.
  const strict = double({ "server/discover": () => ({ result: {} }) }, {
    era: "stateless",
  });
  await assert.rejects(strict.client.connect(), /not a DiscoverResult/);
});
