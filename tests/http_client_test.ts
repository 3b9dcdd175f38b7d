/**
 * `StreamableHttpClientTransport` on its own, against a scripted `fetch`: the headers of each era,
 * JSON and SSE answers, refusals (the JSON-RPC error a 2026-07-28 server puts in a 4xx body is
 * delivered, anything else is a `StreamableHttpError`), a session the server ended, the GET stream
 * (405, reconnects, giving up), `cancel(id)`, and `close()`. Then under a `JsonRpcPeer`: the
 * transport moves messages and closes streams; ids, waiting, cancellation and progress are the
 * peer's.
 */
import assert from "node:assert/strict";
import { JsonRpcPeer, PeerError, type Progress } from "../mod.ts";
import {
  StreamableHttpClientTransport,
  StreamableHttpError,
} from "../lib/mcp/transports/http_client.ts";

const URL_ = "http://mcp.test/mcp";
const PV = "io.modelcontextprotocol/protocolVersion";
const STATELESS_META = {
  [PV]: "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
};

interface Exchange {
  method: string;
  headers: Headers;
  body: Record<string, unknown> | undefined;
  signal: AbortSignal;
}

type Answer = (x: Exchange) => Response | Promise<Response>;

/** A `fetch` that records each exchange and answers with `answer`. */
function scripted(answer: Answer): { fetch: typeof fetch; seen: Exchange[] } {
  const seen: Exchange[] = [];
  const f = async (
    _input: unknown,
    init: RequestInit = {},
  ): Promise<Response> => {
    const x: Exchange = {
      method: init.method ?? "GET",
      headers: new Headers(init.headers),
      body: typeof init.body === "string" ? JSON.parse(init.body) : undefined,
      signal: init.signal!,
    };
    seen.push(x);
    return await answer(x);
  };
  return { fetch: f as typeof fetch, seen };
}

function json(
  value: unknown,
  status = 200,
  headers: Record<string, string> = {},
): Response {
  return new Response(JSON.stringify(value), {
    status,
    headers: { "content-type": "application/json", ...headers },
  });
}

/** An SSE answer the test writes to; it ends with an error when the client aborts its fetch. */
function sse(signal: AbortSignal): {
  response: Response;
  push: (message: unknown) => void;
  raw: (text: string) => void;
  end: () => void;
  aborted: Promise<void>;
  readonly ended: boolean;
} {
  const encoder = new TextEncoder();
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let aborted!: () => void;
  let ended = false;
  const abortedP = new Promise<void>((resolve) => (aborted = () => {
    ended = true;
    resolve();
  }));
  const body = new ReadableStream<Uint8Array>({
    start: (c) => void (controller = c),
  });
  signal.addEventListener("abort", () => {
    aborted();
    try {
      controller.error(signal.reason);
    } catch {
      // already ended
    }
  });
  return {
    response: new Response(body, {
      headers: { "content-type": "text/event-stream" },
    }),
    push: (m) =>
      controller.enqueue(
        encoder.encode(`event: message\ndata: ${JSON.stringify(m)}\n\n`),
      ),
    raw: (text) => controller.enqueue(encoder.encode(text)),
    end: () => {
      try {
        controller.close();
      } catch {
        // the client closed it first
      }
    },
    aborted: abortedP,
    get ended() {
      return ended;
    },
  };
}

const INITIALIZE = {
  jsonrpc: "2.0" as const,
  id: 1,
  method: "initialize",
  params: {
    protocolVersion: "2025-06-18",
    capabilities: {},
    clientInfo: { name: "t", version: "1" },
  },
};

/** Answers initialize with a session; notifications 202; GET 405; anything else by `rest`. */
function legacyServer(
  rest: Answer = () => new Response(null, { status: 500 }),
): Answer {
  return (x) => {
    if (x.method === "GET") return new Response(null, { status: 405 });
    if (x.method === "DELETE") return new Response(null, { status: 204 });
    if (x.body?.method === "initialize") {
      return json(
        {
          jsonrpc: "2.0",
          id: x.body.id,
          result: {
            protocolVersion: "2025-06-18",
            capabilities: {},
            serverInfo: { name: "s" },
          },
        },
        200,
        { "mcp-session-id": "sess-1" },
      );
    }
    if (x.body?.id === undefined) return new Response(null, { status: 202 });
    return rest(x);
  };
}

function delay(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

Deno.test("handshake era: the session id and revision come from the initialize answer; token and headers on every request", async () => {
  const { fetch, seen } = scripted(
    legacyServer((x) => json({ jsonrpc: "2.0", id: x.body!.id, result: {} })),
  );
  const t = new StreamableHttpClientTransport(URL_, {
    fetch,
    token: "t0k",
    headers: { "x-tenant": "group" },
  });
  const got: unknown[] = [];
  t.onmessage = (m) => got.push(m);
  await t.send(INITIALIZE);
  assert.deepEqual([t.sessionId, t.protocolVersion], ["sess-1", "2025-06-18"]);
  await t.send({ jsonrpc: "2.0", method: "notifications/initialized" });
  await t.send({ jsonrpc: "2.0", id: 2, method: "tools/list" });
  const [init, initialized, list] = seen.filter((x) => x.method === "POST");
  for (const x of [init, initialized, list]) {
    assert.equal(x.headers.get("authorization"), "Bearer t0k");
    assert.equal(x.headers.get("x-tenant"), "group");
    assert.equal(
      x.headers.get("accept"),
      "application/json, text/event-stream",
    );
    assert.equal(x.headers.get("content-type"), "application/json");
  }
  assert.deepEqual(
    [init, list].map((
      x,
    ) => [
      x.headers.get("mcp-session-id"),
      x.headers.get("mcp-protocol-version"),
    ]),
    [[null, null], ["sess-1", "2025-06-18"]],
  );
  assert.deepEqual(got.map((m) => (m as { id: number }).id), [1, 2]);
  await t.close();
});

Deno.test("an SSE answer is delivered event by event; comments, other events and non-JSON data are skipped", async () => {
  let stream!: ReturnType<typeof sse>;
  const { fetch } = scripted((x) => {
    stream = sse(x.signal);
    return stream.response;
  });
  const t = new StreamableHttpClientTransport(URL_, { fetch, listen: false });
  const got: unknown[] = [];
  t.onmessage = (m) => got.push(m);
  await t.send({
    jsonrpc: "2.0",
    id: 5,
    method: "tools/call",
    params: { name: "x" },
  });
  stream.push({
    jsonrpc: "2.0",
    method: "notifications/progress",
    params: { progress: 1 },
  });
  stream.raw(": keep-alive\n\nevent: other\ndata: {}\n\ndata: not json\n\n");
  stream.raw('data: {"jsonrpc":"2.0",');
  stream.raw('"id":5,"result":{}}\n\n');
  stream.end();
  await delay(10);
  assert.deepEqual(got, [
    {
      jsonrpc: "2.0",
      method: "notifications/progress",
      params: { progress: 1 },
    },
    { jsonrpc: "2.0", id: 5, result: {} },
  ]);
  await t.close();
});

Deno.test("2026-07-28: MCP-Protocol-Version, Mcp-Method and Mcp-Name (base64 when not plain ASCII), never a session", async () => {
  const { fetch, seen } = scripted((x) => json({ jsonrpc: "2.0", id: x.body!.id, result: {} }));
  const t = new StreamableHttpClientTransport(URL_, { fetch });
  t.onmessage = () => {};
  for (
    const [method, params] of [
      ["tools/call", { name: "fx.quote" }],
      ["prompts/get", { name: " padded" }],
      ["resources/read", { uri: "demo://ünï" }],
      ["tools/list", {}],
    ] as const
  ) {
    await t.send({
      jsonrpc: "2.0",
      id: 1,
      method,
      params: { ...params, _meta: STATELESS_META },
    });
  }
  const b64 = (s: string) =>
    `=?base64?${btoa(String.fromCharCode(...new TextEncoder().encode(s)))}?=`;
  assert.deepEqual(
    seen.map((x) => [
      x.headers.get("mcp-protocol-version"),
      x.headers.get("mcp-method"),
      x.headers.get("mcp-name"),
      x.headers.get("mcp-session-id"),
    ]),
    [
      ["2026-07-28", "tools/call", "fx.quote", null],
      ["2026-07-28", "prompts/get", b64(" padded"), null],
      ["2026-07-28", "resources/read", b64("demo://ünï"), null],
      ["2026-07-28", "tools/list", null, null],
    ],
  );
  await t.close();
});

Deno.test("2026-07-28 refusals: a JSON-RPC error for the request in a 4xx body is delivered; anything else is StreamableHttpError", async () => {
  const { fetch } = scripted((x) => {
    const name = (x.body!.params as { name?: string }).name;
    if (name === "rpc") {
      return json({
        jsonrpc: "2.0",
        id: x.body!.id,
        error: { code: -32022, message: "no" },
      }, 400);
    }
    if (name === "other-id") {
      return json({
        jsonrpc: "2.0",
        id: 999,
        error: { code: -32022, message: "not yours" },
      }, 400);
    }
    if (name === "auth") {
      return json({ error: { message: "token expired" } }, 401);
    }
    return new Response("bad gateway", { status: 502 });
  });
  const t = new StreamableHttpClientTransport(URL_, { fetch });
  const got: unknown[] = [];
  t.onmessage = (m) => got.push(m);
  const call = (name: string) =>
    t.send({
      jsonrpc: "2.0",
      id: 3,
      method: "tools/call",
      params: { name, _meta: STATELESS_META },
    });
  await call("rpc");
  assert.deepEqual(got, [{
    jsonrpc: "2.0",
    id: 3,
    error: { code: -32022, message: "no" },
  }]);
  for (
    const [name, status, text] of [
      ["other-id", 400, "not yours"],
      ["auth", 401, "token expired"],
      ["gw", 502, "bad gateway"],
    ] as const
  ) {
    await assert.rejects(call(name), (e) => {
      assert.ok(e instanceof StreamableHttpError);
      assert.equal(e.status, status);
      assert.ok(e.message.includes(`HTTP ${status}: ${text}`), e.message);
      return true;
    });
  }
  await t.close();
});

Deno.test("a 404 for the session ends it: sessionEnded, onerror, later sends refused, onclose after the rejection", async () => {
  const { fetch } = scripted(
    legacyServer(() => json({ error: { message: "gone" } }, 404)),
  );
  const errors: Error[] = [];
  const t = new StreamableHttpClientTransport(URL_, {
    fetch,
    onerror: (e) => errors.push(e),
  });
  t.onmessage = () => {};
  const order: string[] = [];
  t.onclose = () => order.push("onclose");
  await t.send(INITIALIZE);
  await t.send({ jsonrpc: "2.0", id: 2, method: "tools/list" }).catch((e) => {
    order.push("rejected");
    assert.ok(e instanceof StreamableHttpError && e.sessionEnded);
    assert.match(
      e.message,
      /ended MCP session sess-1 \(gone\); start a new session/,
    );
  });
  await delay(5);
  assert.deepEqual(order, ["rejected", "onclose"]);
  assert.equal(t.sessionId, undefined);
  assert.ok(
    errors.length === 1 && (errors[0] as StreamableHttpError).sessionEnded,
  );
  await assert.rejects(
    t.send({ jsonrpc: "2.0", id: 3, method: "tools/list" }),
    (e) =>
      e instanceof StreamableHttpError && e.status === 0 &&
      /is closed/.test(e.message),
  );
});

Deno.test("no answer at all is status 0; an answer of an unexpected type is refused", async () => {
  const down = new StreamableHttpClientTransport(URL_, {
    fetch: () => Promise.reject(new TypeError("connection refused")),
  });
  await assert.rejects(
    down.send({ jsonrpc: "2.0", id: 1, method: "ping" }),
    (e) =>
      e instanceof StreamableHttpError && e.status === 0 &&
      /connection refused/.test(e.message),
  );
  await down.close();
  const odd = new StreamableHttpClientTransport(URL_, {
    fetch: () =>
      Promise.resolve(
        new Response("<html>", { headers: { "content-type": "text/html" } }),
      ),
  });
  await assert.rejects(
    odd.send({ jsonrpc: "2.0", id: 1, method: "ping" }),
    (e) =>
      e instanceof StreamableHttpError &&
      /unexpected Content-Type "text\/html"/.test(e.message),
  );
  await odd.close();
});

Deno.test("cancel(id) closes a 2026-07-28 request's SSE answer; a handshake-era stream or an answered request says false", async () => {
  const streams: ReturnType<typeof sse>[] = [];
  const { fetch } = scripted((x) => {
    const s = sse(x.signal);
    streams.push(s);
    return s.response;
  });
  const t = new StreamableHttpClientTransport(URL_, { fetch, listen: false });
  t.onmessage = () => {};
  await t.send({
    jsonrpc: "2.0",
    id: 1,
    method: "subscriptions/listen",
    params: { _meta: STATELESS_META },
  });
  await t.send({
    jsonrpc: "2.0",
    id: 2,
    method: "tools/call",
    params: { name: "slow" },
  });
  assert.equal(
    t.cancel(2),
    false,
    "a handshake-era disconnect is no cancellation",
  );
  assert.equal(t.cancel(1), true);
  await streams[0].aborted;
  assert.equal(t.cancel(1), false, "already closed");
  assert.equal(t.cancel(99), false);
  await t.close();
});

Deno.test("close() ends an SSE answer whose body does not stop when its fetch is aborted", async () => {
  // A body that ignores the abort (as a fetch's body sometimes does): the reader must be
  // cancelled, or close() waits for it for ever.
  let cancelled = false;
  const { fetch } = scripted(() =>
    new Response(
      new ReadableStream<Uint8Array>({
        cancel: () => void (cancelled = true),
      }),
      { headers: { "content-type": "text/event-stream" } },
    )
  );
  const t = new StreamableHttpClientTransport(URL_, { fetch, listen: false });
  t.onmessage = () => {};
  await t.send({
    jsonrpc: "2.0",
    id: 1,
    method: "subscriptions/listen",
    params: { _meta: STATELESS_META },
  });
  await t.close();
  assert.equal(cancelled, true);
});

Deno.test("the GET stream opens after notifications/initialized, delivers notifications, and reopens after a drop", async () => {
  let gets = 0;
  let stream!: ReturnType<typeof sse>;
  const { fetch } = scripted((x) => {
    if (x.method === "GET") {
      gets++;
      assert.equal(x.headers.get("mcp-session-id"), "sess-1");
      assert.equal(x.headers.get("accept"), "text/event-stream");
      stream = sse(x.signal);
      return stream.response;
    }
    return legacyServer()(x);
  });
  const t = new StreamableHttpClientTransport(URL_, {
    fetch,
    reconnectDelayMs: 1,
  });
  const got: unknown[] = [];
  t.onmessage = (m) => got.push(m);
  await t.send(INITIALIZE);
  await delay(5);
  assert.equal(gets, 0, "no GET before notifications/initialized");
  await t.send({ jsonrpc: "2.0", method: "notifications/initialized" });
  await delay(5);
  assert.equal(gets, 1);
  stream.push({ jsonrpc: "2.0", method: "notifications/tools/list_changed" });
  stream.end();
  await delay(20);
  assert.equal(gets, 2, "reopened after the drop");
  stream.push({ jsonrpc: "2.0", method: "notifications/tools/list_changed" });
  await delay(5);
  assert.equal(
    got.filter((m) => (m as { method?: string }).method === "notifications/tools/list_changed")
      .length,
    2,
  );
  await t.close();
});

Deno.test("the GET stream: 405 means none; it gives up after maxReconnects failures in a row (onerror); listen: false opens none", async () => {
  const none = scripted(legacyServer());
  const t1 = new StreamableHttpClientTransport(URL_, {
    fetch: none.fetch,
    reconnectDelayMs: 1,
  });
  t1.onmessage = () => {};
  await t1.send(INITIALIZE);
  await t1.send({ jsonrpc: "2.0", method: "notifications/initialized" });
  await delay(20);
  assert.equal(none.seen.filter((x) => x.method === "GET").length, 1);
  await t1.close();

  const errors: Error[] = [];
  const failing = scripted((x) =>
    x.method === "GET" ? new Response("busy", { status: 503 }) : legacyServer()(x)
  );
  const t2 = new StreamableHttpClientTransport(URL_, {
    fetch: failing.fetch,
    reconnectDelayMs: 1,
    maxReconnects: 2,
    onerror: (e) => errors.push(e),
  });
  t2.onmessage = () => {};
  await t2.send(INITIALIZE);
  await t2.send({ jsonrpc: "2.0", method: "notifications/initialized" });
  await delay(50);
  assert.equal(failing.seen.filter((x) => x.method === "GET").length, 3);
  assert.equal(errors.length, 1);
  assert.match(errors[0].message, /failed 3 times in a row; stopped listening/);
  await t2.close();

  const quiet = scripted(legacyServer());
  const t3 = new StreamableHttpClientTransport(URL_, {
    fetch: quiet.fetch,
    listen: false,
  });
  t3.onmessage = () => {};
  await t3.send(INITIALIZE);
  await t3.send({ jsonrpc: "2.0", method: "notifications/initialized" });
  await delay(10);
  assert.equal(quiet.seen.filter((x) => x.method === "GET").length, 0);
  await t3.close();
});

Deno.test("close() ends the session with DELETE, stops the streams, calls onclose once, and is idempotent", async () => {
  let stream!: ReturnType<typeof sse>;
  const { fetch, seen } = scripted((x) => {
    if (x.method === "GET") {
      stream = sse(x.signal);
      return stream.response;
    }
    return legacyServer()(x);
  });
  const t = new StreamableHttpClientTransport(URL_, { fetch });
  t.onmessage = () => {};
  let closes = 0;
  t.onclose = () => closes++;
  await t.send(INITIALIZE);
  await t.send({ jsonrpc: "2.0", method: "notifications/initialized" });
  await delay(5);
  await t.close();
  await stream.aborted;
  await t.close();
  const del = seen.find((x) => x.method === "DELETE")!;
  assert.equal(del.headers.get("mcp-session-id"), "sess-1");
  assert.equal(closes, 1);
  assert.equal(t.sessionId, undefined);
});

Deno.test("under a JsonRpcPeer: a 2026-07-28 cancel closes the stream and sends no notification; progress and the answer ride the SSE", async () => {
  const streams = new Map<number, ReturnType<typeof sse>>();
  const { fetch, seen } = scripted((x) => {
    if (x.body?.id === undefined) return new Response(null, { status: 202 });
    const s = sse(x.signal);
    streams.set(x.body.id as number, s);
    return s.response;
  });
  const peer = new JsonRpcPeer(
    new StreamableHttpClientTransport(URL_, { fetch, listen: false }),
  );
  const updates: Progress[] = [];
  const work = peer.request("tools/call", { name: "a", _meta: STATELESS_META }, {
    onProgress: (p) => updates.push(p),
  });
  const controller = new AbortController();
  const doomed = peer.request("tools/call", { name: "b", _meta: STATELESS_META }, {
    signal: controller.signal,
  });
  await delay(5);
  const token = (seen[0].body!.params as { _meta: { progressToken: number } })._meta
    .progressToken;
  streams.get(1)!.push({
    jsonrpc: "2.0",
    method: "notifications/progress",
    params: { progressToken: token, progress: 1, total: 2 },
  });
  streams.get(1)!.push({ jsonrpc: "2.0", id: 1, result: { done: true } });
  assert.deepEqual(await work, { done: true });
  assert.deepEqual(updates, [{ progress: 1, total: 2, message: undefined }]);
  controller.abort();
  await assert.rejects(
    doomed,
    (e) => e instanceof PeerError && e.kind === "cancelled",
  );
  await streams.get(2)!.aborted;
  assert.deepEqual(seen.map((x) => x.body?.method), [
    "tools/call",
    "tools/call",
  ]);
  assert.equal(peer.pendingRequests, 0);
  await peer.close();
});

Deno.test("under a JsonRpcPeer: a handshake-era cancel is notifications/cancelled (the stream stays), and a 404 fails the request with sessionEnded", async () => {
  let stream!: ReturnType<typeof sse>;
  const { fetch, seen } = scripted(legacyServer((x) => {
    if ((x.body!.params as { name?: string } | undefined)?.name === "slow") {
      stream = sse(x.signal);
      return stream.response;
    }
    return json({ error: { message: "gone" } }, 404);
  }));
  const peer = new JsonRpcPeer(
    new StreamableHttpClientTransport(URL_, { fetch, listen: false }),
  );
  await peer.request("initialize", INITIALIZE.params);
  const controller = new AbortController();
  const slow = peer.request("tools/call", { name: "slow" }, {
    signal: controller.signal,
  });
  await delay(5);
  controller.abort("enough");
  await assert.rejects(
    slow,
    (e) => e instanceof PeerError && e.kind === "cancelled",
  );
  await delay(5);
  const cancel = seen.find((x) => x.body?.method === "notifications/cancelled");
  assert.deepEqual(cancel?.body?.params, { requestId: 2, reason: "enough" });
  assert.equal(cancel?.headers.get("mcp-session-id"), "sess-1");
  await assert.rejects(
    peer.request("tools/list"),
    (e) => e instanceof StreamableHttpError && e.sessionEnded,
  );
  await delay(5);
  assert.equal(
    peer.closed,
    true,
    "the transport closed after the session ended",
  );
  assert.equal(stream.ended, true, "ending the session stopped the streams");
});
