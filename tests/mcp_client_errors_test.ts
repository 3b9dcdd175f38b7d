/**
 * How `McpClient` fails, by type rather than by text: an error answer is a `JsonRpcError` (and,
 * for code that still checks it, an `McpProtocolError`); no answer is a `PeerError` of kind
 * `timeout`, `cancelled` or `closed`; a missing resource a `ResourceNotFoundError`; MCP going
 * wrong an `McpClientError` with a `kind`. The server double is a `JsonRpcPeer`, which is also how
 * a server asks its client (answered `-32601`).
 */
import assert from "node:assert/strict";
import {
  createLinkedTransports,
  ERROR_CODES,
  JsonRpcError,
  JsonRpcPeer,
  McpClient,
  McpClientError,
  type McpClientOptions,
  McpProtocolError,
  PeerError,
  type ProtocolErrorReport,
  ResourceNotFoundError,
  UnsupportedResultError,
} from "../mod.ts";

/** A handshake-era server double on a peer, and a client connected to it. */
async function connected(
  options: McpClientOptions = {},
): Promise<{ client: McpClient; server: JsonRpcPeer }> {
  const [near, far] = createLinkedTransports();
  const server = new JsonRpcPeer(far);
  server.onRequest("initialize", (params) => ({
    protocolVersion: (params as { protocolVersion: string }).protocolVersion,
    capabilities: { tools: {} },
    serverInfo: { name: "double", version: "1.0.0" },
  }));
  const client = new McpClient(near, { era: "handshake", ...options });
  await client.connect();
  return { client, server };
}

Deno.test("McpProtocolError is a deprecated name: instanceof matches every JsonRpcError, both ways round", () => {
  const wire = new JsonRpcError(-32602, "Unknown tool: x", {
    data: { name: "x" },
  });
  assert.ok(wire instanceof McpProtocolError);
  const old = new McpProtocolError(-32601, "Method not found: y", {
    detail: 1,
  });
  assert.ok(old instanceof JsonRpcError);
  assert.ok(old instanceof McpProtocolError);
  assert.deepEqual([old.name, old.code, old.message, old.data], [
    "McpProtocolError",
    -32601,
    "Method not found: y",
    { detail: 1 },
  ]);
  assert.deepEqual(old.toJSON(), {
    code: -32601,
    message: "Method not found: y",
    data: { detail: 1 },
  });
  const missing = new ResourceNotFoundError("demo://x", -32002, "not found");
  assert.ok(
    missing instanceof JsonRpcError && missing instanceof McpProtocolError,
  );
  assert.ok(
    !(wire instanceof ResourceNotFoundError),
    "the subclass keeps the ordinary check",
  );
  assert.ok(!(new Error("x") instanceof McpProtocolError));
  assert.ok(!(new PeerError("closed", "x") instanceof McpProtocolError));
});

Deno.test("request(): an error answer rejects with JsonRpcError — code, message and data as sent", async () => {
  const { client, server } = await connected();
  server.onRequest("tools/call", () => {
    throw new JsonRpcError(-32000, "core banking is down", {
      data: { retryAfterMs: 500 },
    });
  });
  await assert.rejects(client.request("tools/call", { name: "t" }), (e) => {
    assert.ok(e instanceof JsonRpcError && !(e instanceof PeerError));
    assert.deepEqual([e.code, e.message, e.data], [
      -32000,
      "core banking is down",
      {
        retryAfterMs: 500,
      },
    ]);
    return true;
  });
  // callTool() turns it into an outcome instead.
  assert.deepEqual(await client.callTool("t"), {
    kind: "protocol-error",
    code: -32000,
    message: "core banking is down",
    data: { retryAfterMs: 500 },
  });
  await client.close();
});

Deno.test("request(): no answer in time is PeerError timeout (message kept), and the server is not told", async () => {
  const { client, server } = await connected({ requestTimeoutMs: 20 });
  const cancelled: unknown[] = [];
  server.onNotification(
    "notifications/cancelled",
    (params) => void cancelled.push(params),
  );
  server.onRequest("slow", () => new Promise(() => {}));
  await assert.rejects(client.request("slow"), (e) => {
    assert.ok(e instanceof PeerError);
    assert.deepEqual([e.kind, e.method, e.message], [
      "timeout",
      "slow",
      "request slow timed out after 20 ms",
    ]);
    return true;
  });
  await assert.rejects(
    client.request("slow", {}, { timeoutMs: 5 }),
    (e) =>
      e instanceof PeerError &&
      e.message === "request slow timed out after 5 ms",
  );
  await new Promise((r) => setTimeout(r, 5));
  assert.deepEqual(cancelled, []);
  await client.close();
});

Deno.test("callTool(): a cancelled call is PeerError cancelled, and the server's handler sees the abort", async () => {
  const { client, server } = await connected();
  let aborted: unknown;
  server.onRequest("tools/call", (_params, ctx) =>
    new Promise(() => {
      ctx.signal.addEventListener("abort", () => (aborted = ctx.signal.reason));
    }));
  const controller = new AbortController();
  const call = client.callTool("t", {}, { signal: controller.signal });
  await new Promise((r) => setTimeout(r, 5));
  controller.abort("user gave up");
  await assert.rejects(
    call,
    (e) =>
      e instanceof PeerError && e.kind === "cancelled" &&
      e.message === "request tools/call was cancelled",
  );
  await new Promise((r) => setTimeout(r, 5));
  assert.equal(aborted, "user gave up");
  await client.close();
});

Deno.test("close(): waiting requests fail as PeerError closed; the connection closing says so too", async () => {
  const { client, server } = await connected();
  server.onRequest("hang", () => new Promise(() => {}));
  const waiting = client.request("hang");
  await new Promise((r) => setTimeout(r, 5));
  await client.close();
  await assert.rejects(
    waiting,
    (e) =>
      e instanceof PeerError && e.kind === "closed" &&
      e.message === "the client is closed",
  );
  await assert.rejects(
    client.request("hang"),
    (e) => e instanceof PeerError && e.kind === "closed",
  );

  const other = await connected();
  other.server.onRequest("hang", () => new Promise(() => {}));
  const cut = other.client.request("hang");
  await new Promise((r) => setTimeout(r, 5));
  await other.server.close();
  await assert.rejects(
    cut,
    (e) =>
      e instanceof PeerError && e.kind === "closed" &&
      e.message === "the connection closed",
  );
});

Deno.test("a server's request to the client is answered -32601 naming the method; garbage is reported, not answered", async () => {
  const reports: ProtocolErrorReport[] = [];
  const { client, server } = await connected({
    onProtocolError: (r) => reports.push(r),
  });
  for (
    const method of [
      "sampling/createMessage",
      "elicitation/create",
      "roots/list",
    ]
  ) {
    await assert.rejects(
      server.request(method, {}),
      (e) =>
        e instanceof JsonRpcError && e.code === ERROR_CODES.METHOD_NOT_FOUND &&
        e.message === `Method not found: ${method}`,
    );
  }
  const [near, far] = createLinkedTransports();
  const seen: unknown[] = [];
  far.onmessage = (m) => seen.push(m);
  const quiet = new McpClient(near, {
    onProtocolError: (r) => reports.push(r),
  });
  await far.send({ jsonrpc: "1.0", id: 1, method: "x" } as never);
  await far.send({ jsonrpc: "2.0", id: 77, result: {} });
  await new Promise((r) => setTimeout(r, 5));
  assert.deepEqual(seen, [], "the client answers no garbage");
  assert.deepEqual(reports.map((r) => r.kind), [
    "invalid-message",
    "unknown-response",
  ]);
  await quiet.close();
  await client.close();
});

Deno.test("readResource(): -32002 and -32602 become ResourceNotFoundError; other codes stay JsonRpcError", async () => {
  const { client, server } = await connected();
  server.onRequest("resources/read", (params) => {
    const uri = (params as { uri: string }).uri;
    const code = uri === "demo://old" ? -32002 : uri === "demo://new" ? -32602 : -32603;
    throw new JsonRpcError(code, `no ${uri}`);
  });
  for (
    const [uri, code] of [["demo://old", -32002], [
      "demo://new",
      -32602,
    ]] as const
  ) {
    await assert.rejects(client.readResource(uri), (e) => {
      assert.ok(e instanceof ResourceNotFoundError);
      assert.deepEqual([e.uri, e.code, e.message], [uri, code, `no ${uri}`]);
      return true;
    });
  }
  await assert.rejects(
    client.readResource("demo://boom"),
    (e) =>
      e instanceof JsonRpcError && !(e instanceof ResourceNotFoundError) &&
      e.code === -32603,
  );
  await client.close();
});

Deno.test("UnsupportedResultError is neither a wire error nor a peer error", () => {
  const e = new UnsupportedResultError("tools/call", "input_required");
  assert.ok(!(e instanceof JsonRpcError) && !(e instanceof PeerError));
  assert.match(e.message, /asked for input/);
});

function kind(k: McpClientError["kind"], message: RegExp) {
  return (e: unknown): boolean => {
    assert.ok(
      e instanceof McpClientError,
      `expected an McpClientError, got ${e}`,
    );
    assert.equal(e.kind, k);
    assert.match(e.message, message);
    return true;
  };
}

Deno.test("McpClientError kinds: unsupported-revision, page-limit, malformed-result, wrong-era (messages kept)", async () => {
  // A handshake-era server offering a revision this client does not speak.
  const [near, far] = createLinkedTransports();
  const odd = new JsonRpcPeer(far);
  odd.onRequest("initialize", () => ({
    protocolVersion: "1999-01-01",
    capabilities: {},
    serverInfo: { name: "odd", version: "0" },
  }));
  await assert.rejects(
    new McpClient(near, { era: "handshake" }).connect(),
    kind(
      "unsupported-revision",
      /offered protocol 1999-01-01, which this client does not speak/,
    ),
  );
  // era: "stateless" against a server without server/discover.
  const [near2, far2] = createLinkedTransports();
  new JsonRpcPeer(far2);
  const modernOnly = new McpClient(near2, { era: "stateless" });
  await assert.rejects(modernOnly.connect(), (e) => {
    kind(
      "unsupported-revision",
      /not a 2026-07-28 server this client can speak/,
    )(e);
    assert.ok(
      (e as Error).cause instanceof JsonRpcError,
      "the refusal is kept as the cause",
    );
    return true;
  });
  await modernOnly.close();

  const { client, server } = await connected({ maxPages: 2 });
  server.onRequest("tools/list", () => ({ tools: [], nextCursor: "again" }));
  server.onRequest("prompts/list", () => ({ notPrompts: [] }));
  await assert.rejects(
    client.listTools(),
    kind("page-limit", /^tools\/list did not end within 2 pages$/),
  );
  await assert.rejects(
    client.listPrompts(),
    kind("malformed-result", /^prompts\/list returned no prompts list$/),
  );
  await assert.rejects(
    client.listen({ toolsListChanged: true }),
    kind("wrong-era", /handshake era/),
  );
  await client.close();
});

Deno.test("listen(): not acknowledged in time is PeerError timeout, and the listen request is cancelled", async () => {
  const [near, far] = createLinkedTransports();
  const server = new JsonRpcPeer(far);
  server.onRequest("server/discover", () => ({
    supportedVersions: ["2026-07-28"],
    capabilities: {},
    resultType: "complete",
    ttlMs: 0,
    cacheScope: "public",
  }));
  let listening: AbortSignal | undefined;
  server.onRequest("subscriptions/listen", (_params, ctx) =>
    new Promise(() => {
      listening = ctx.signal;
    }));
  const client = new McpClient(near, { requestTimeoutMs: 20 });
  await client.connect();
  assert.equal(client.era, "stateless");
  await assert.rejects(client.listen({ toolsListChanged: true }), (e) => {
    assert.ok(e instanceof PeerError);
    assert.deepEqual([e.kind, e.message], [
      "timeout",
      "subscriptions/listen was not acknowledged in time",
    ]);
    return true;
  });
  await new Promise((r) => setTimeout(r, 5));
  assert.equal(listening?.aborted, true);
  await client.close();
});
