/**
 * `McpClient.callTool` retries: a call whose answer is lost (the server ran it, the client heard
 * nothing in time) is sent again with the same idempotency key, which the client drew itself for a
 * tool that may not run twice, and is answered with the stored outcome: the handler ran once. A
 * tool listed as read-only is retried without a key. A caller's own key is sent as given.
 */
import assert from "node:assert/strict";
import {
  createLinkedTransports,
  IDEMPOTENCY_META_KEY,
  IDEMPOTENT_REPLAY_META_KEY,
  type JsonRpcMessage,
  McpClient,
  McpServer,
  serveTransport,
  ToolRegistry,
  type Transport,
} from "../mod.ts";
import { OPERATOR, spec } from "./_mcp_fixtures.ts";
import {
  bearerTokens,
  serveHttp,
  StreamableHttpClientTransport,
} from "../lib/mcp/transports/http_mod.ts";

/** A client whose transport drops the first answer to a tools/call; it records each call's _meta. */
function lossyClient() {
  const registry = new ToolRegistry();
  registry.publish(spec("payments.release", "1.0.0", { sideEffect: "write" }));
  registry.publish(spec("payments.lookup", "1.0.0", { sideEffect: "read" }));
  let ran = 0;
  const server = new McpServer({
    registry,
    handlerFor: () => (args) => {
      ran++;
      return { reference: args.reference, run: ran };
    },
  });
  const [near, far] = createLinkedTransports();
  serveTransport(server, far, OPERATOR);
  const calls = new Set<unknown>();
  const sent: Record<string, unknown>[] = [];
  let dropped = false;
  const lossy: Transport = {
    send: (m: JsonRpcMessage, o) => {
      if ("method" in m && m.method === "tools/call" && "id" in m) {
        calls.add(m.id);
        sent.push({ ...((m.params as Record<string, unknown>)?._meta as Record<string, unknown>) });
      }
      return near.send(m, o);
    },
    close: () => near.close(),
  };
  near.onmessage = (m) => {
    const id = (m as { id?: unknown }).id;
    if (!dropped && calls.has(id) && !("method" in (m as object))) {
      dropped = true; // lost on the way back: the server ran the call
      return;
    }
    lossy.onmessage?.(m);
  };
  near.onclose = (reason) => lossy.onclose?.(reason);
  return { client: new McpClient(lossy), ran: () => ran, sent, server };
}

Deno.test("callTool() with retries: the lost answer of a write is retried with the key the client drew, and answered with the stored outcome — the handler ran once", async () => {
  const c = lossyClient();
  await c.client.connect();
  const outcome = await c.client.callTool("payments.release", { reference: "PMT-000001" }, {
    retries: 2,
    timeoutMs: 300,
    retryDelayMs: 1,
  });
  assert.equal(outcome.kind, "ok");
  if (outcome.kind !== "ok") return;
  assert.deepEqual(outcome.result.structuredContent, { reference: "PMT-000001", run: 1 });
  assert.equal(outcome.result._meta?.[IDEMPOTENT_REPLAY_META_KEY], true);
  assert.equal(c.ran(), 1);
  assert.equal(c.sent.length, 2);
  const [first, second] = c.sent.map((m) => m[IDEMPOTENCY_META_KEY]);
  assert.match(String(first), /^[0-9a-f-]{36}$/);
  assert.equal(second, first, "the same key on every attempt");
  await c.client.close();
  c.server.close();
});

Deno.test("callTool() with retries: a read-only tool is retried without a key (it may run twice); a caller's own key is sent as given", async () => {
  const c = lossyClient();
  await c.client.connect();
  const read = await c.client.callTool("payments.lookup", { reference: "PMT-000002" }, {
    retries: 1,
    timeoutMs: 300,
    retryDelayMs: 1,
  });
  assert.equal(read.kind, "ok");
  assert.equal(c.ran(), 2);
  assert.deepEqual(c.sent.map((m) => m[IDEMPOTENCY_META_KEY]), [undefined, undefined]);
  const own = await c.client.callTool("payments.release", { reference: "PMT-000003" }, {
    idempotencyKey: "order-77",
  });
  assert.equal(own.kind, "ok");
  assert.equal(c.sent.at(-1)?.[IDEMPOTENCY_META_KEY], "order-77");
  await c.client.close();
  c.server.close();
});

Deno.test("callTool() with retries over HTTP: a gateway's 502 after the call ran upstream is retried with the same key and answered from the store — the handler ran once", async () => {
  const registry = new ToolRegistry();
  registry.publish(spec("payments.release", "1.0.0", { sideEffect: "write" }));
  let ran = 0;
  const server = new McpServer({
    registry,
    handlerFor: () => (args) => ({ reference: args.reference, run: ++ran }),
  });
  const http = await serveHttp(server, {
    authenticate: bearerTokens([{ ...OPERATOR, token: "operator" }]),
  });
  // A proxy in front that forwards every POST and loses the answer to the first tools/call.
  let lost = false;
  const keys: unknown[] = [];
  const proxy = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    const body = await req.text();
    const upstream = await fetch(http.url, { method: req.method, headers: req.headers, body });
    const text = await upstream.text();
    if (body.includes('"tools/call"')) {
      keys.push(JSON.parse(body).params?._meta?.[IDEMPOTENCY_META_KEY]);
      if (!lost) {
        lost = true;
        return new Response("bad gateway", { status: 502 });
      }
    }
    return new Response(text, { status: upstream.status, headers: upstream.headers });
  });
  try {
    const client = new McpClient(
      new StreamableHttpClientTransport(`http://127.0.0.1:${proxy.addr.port}/mcp`, {
        headers: { authorization: "Bearer operator" },
      }),
      { era: "stateless" },
    );
    await client.connect();
    const outcome = await client.callTool("payments.release", { reference: "PMT-000077" }, {
      retries: 2,
      retryDelayMs: 5,
    });
    assert.equal(outcome.kind, "ok", JSON.stringify(outcome));
    assert.equal(ran, 1);
    assert.equal(keys.length, 2);
    assert.equal(typeof keys[0], "string");
    assert.equal(keys[0], keys[1], "the retry carried the key of the first attempt");
    if (outcome.kind === "ok") {
      assert.equal(outcome.result._meta?.[IDEMPOTENT_REPLAY_META_KEY], true);
    }
    await client.close();
  } finally {
    await proxy.shutdown();
    await http.close();
    server.close();
  }
});
