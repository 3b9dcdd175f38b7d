/**
 * Resumable SSE streams over Streamable HTTP (revision 2025-11-25, "Resumability and
 * Redelivery", SEP-1699). The server: event ids naming their stream, a priming event, replay after
 * `Last-Event-ID` of that stream only, the replay buffer's bounds, ids it cannot resume. The
 * client: an answer stream the server closes early is resumed with GET + `Last-Event-ID` after
 * the server's `retry`, against a scripted server, against our server over a connection that
 * drops, and within bounded attempts; the GET stream resumes too; nothing arrives twice. Then the
 * replay buffer and the client's cursor on their own.
 */
import assert from "node:assert/strict";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { McpClient, McpServer, PeerError, type Progress, ToolRegistry } from "../mod.ts";
import {
  bearerTokens,
  type McpHttpServer,
  serveHttp,
  type ServeHttpOptions,
  StreamableHttpClientTransport,
} from "../lib/mcp/transports/http_mod.ts";
import { SseDecoder, type SseEvent } from "../lib/mcp/transports/_sse_parser.ts";
import { SseCursor } from "../lib/mcp/transports/_sse_cursor.ts";
import { ReplayLog } from "../lib/mcp/transports/_sse_replay.ts";
import { estate, OPERATOR, spec } from "./_mcp_fixtures.ts";

const TOKEN = "tok-operator-0002";
const AUTH = { authorization: `Bearer ${TOKEN}` };

interface Fixture {
  readonly url: string;
  readonly http: McpHttpServer;
  readonly registry: ToolRegistry;
  /** Lets the call for `reference` past its gate (between its two progress notifications). */
  release(reference: string): void;
}

/**
 * Runs `body` with a server whose tools report progress 1, wait at a gate (one per reference)
 * until released, report progress 2, and answer with their reference.
 */
async function withServer(
  body: (f: Fixture) => Promise<void>,
  options: Partial<ServeHttpOptions> = {},
): Promise<void> {
  const gates = new Map<string, PromiseWithResolvers<void>>();
  const gate = (reference: string) => {
    let g = gates.get(reference);
    if (!g) gates.set(reference, g = Promise.withResolvers<void>());
    return g;
  };
  const registry = estate();
  const server = new McpServer({
    registry,
    handlerFor: () => async (args, context) => {
      context.progress(1, 2, "one");
      await gate(String(args.reference)).promise;
      context.progress(2, 2, "two");
      return { reference: args.reference };
    },
  });
  const http = await serveHttp(server, {
    authenticate: bearerTokens([{ ...OPERATOR, token: TOKEN }]),
    ...options,
  });
  try {
    await body({
      url: http.url,
      http,
      registry,
      release: (r) => gate(r).resolve(),
    });
  } finally {
    for (const g of gates.values()) g.resolve();
    await http.close();
    server.close();
  }
}

/** Opens a 2025-11-25 session with raw requests; returns its id. */
async function openSession(url: string): Promise<string> {
  const init = await fetch(url, {
    method: "POST",
    headers: {
      ...AUTH,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: {
        protocolVersion: "2025-11-25",
        capabilities: {},
        clientInfo: { name: "t", version: "1" },
      },
    }),
  });
  await init.body?.cancel();
  const session = init.headers.get("mcp-session-id")!;
  const ack = await post(url, session, {
    jsonrpc: "2.0",
    method: "notifications/initialized",
  });
  assert.equal(ack.status, 202);
  await ack.body?.cancel();
  return session;
}

function post(
  url: string,
  session: string,
  message: unknown,
): Promise<Response> {
  return fetch(url, {
    method: "POST",
    headers: {
      ...AUTH,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-session-id": session,
    },
    body: JSON.stringify(message),
  });
}

/** Calls `payments.lookup` for `reference` with a progress token: its answer is SSE. */
async function call(
  url: string,
  session: string,
  id: number,
  reference: string,
): Promise<Events> {
  const res = await post(url, session, {
    jsonrpc: "2.0",
    id,
    method: "tools/call",
    params: {
      name: "payments.lookup",
      arguments: { reference },
      _meta: { progressToken: `p${id}` },
    },
  });
  assert.equal(res.headers.get("content-type"), "text/event-stream");
  return new Events(res);
}

/** A GET on the session, with `Last-Event-ID` when given. */
async function get(
  url: string,
  session: string,
  lastEventId?: string,
): Promise<Events> {
  const res = await fetch(url, {
    headers: {
      ...AUTH,
      accept: "text/event-stream",
      "mcp-session-id": session,
      ...(lastEventId === undefined ? {} : { "last-event-id": lastEventId }),
    },
  });
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("content-type"), "text/event-stream");
  return new Events(res);
}

/** An SSE answer read event by event, priming events included. */
class Events {
  readonly #reader: ReadableStreamDefaultReader<Uint8Array>;
  readonly #decoder = new SseDecoder();
  readonly #text = new TextDecoder();
  readonly #queue: SseEvent[] = [];

  constructor(res: Response) {
    this.#reader = res.body!.getReader();
  }

  /** The next event; undefined once the stream ended. */
  async next(): Promise<SseEvent | undefined> {
    while (this.#queue.length === 0) {
      const { done, value } = await this.#reader.read();
      if (done) return undefined;
      this.#queue.push(
        ...this.#decoder.push(this.#text.decode(value, { stream: true })),
      );
    }
    return this.#queue.shift();
  }

  /** The next message event (priming events skipped), with its id. */
  async message(): Promise<
    { id: string; message: Record<string, unknown> } | undefined
  > {
    for (let e = await this.next(); e !== undefined; e = await this.next()) {
      if (e.data !== "") return { id: e.id!, message: JSON.parse(e.data) };
    }
    return undefined;
  }

  /** Every message event until the stream ends. */
  async rest(): Promise<{ id: string; message: Record<string, unknown> }[]> {
    const out = [];
    for (
      let m = await this.message();
      m !== undefined;
      m = await this.message()
    ) out.push(m);
    return out;
  }

  /** Drops the connection. */
  async cancel(): Promise<void> {
    await this.#reader.cancel().catch(() => {});
  }
}

const streamOf = (id: string) => id.split("-")[0];
const progressOf = (m: Record<string, unknown>) => (m.params as { progress?: number }).progress;

Deno.test("server: a POST's stream dropped mid-call resumes with GET + Last-Event-ID: the events after it, the response, then the end", async () => {
  await withServer(async (f) => {
    const session = await openSession(f.url);
    const answer = await call(f.url, session, 7, "PMT-000001");
    const priming = await answer.next();
    assert.equal(priming?.data, "", "a priming event comes first");
    // Of its own type: a client that parses every `message` event's data as JSON without skipping
    // empty data (the AI SDK's MCP client) passes over it; every client still takes its id.
    assert.equal(priming?.event, "priming");
    assert.match(priming!.id!, /^[0-9]+-0$/);
    const stream = streamOf(priming!.id!);
    const first = await answer.message();
    assert.equal(first?.id, `${stream}-1`);
    assert.equal(first?.message.method, "notifications/progress");
    await answer.cancel(); // the connection drops; the call goes on
    f.release("PMT-000001");
    const resumed = await get(f.url, session, first!.id);
    const rest = await resumed.rest(); // ends after the response
    assert.deepEqual(rest.map((e) => e.id), [`${stream}-2`, `${stream}-3`]);
    assert.equal(progressOf(rest[0].message), 2);
    assert.equal(rest[1].message.id, 7);
    assert.deepEqual(rest[1].message.result, {
      content: [{
        type: "text",
        text: JSON.stringify({ reference: "PMT-000001" }),
      }],
      structuredContent: { reference: "PMT-000001" },
    });
    // From the priming id: every message of the stream, once each, in order.
    const again = await get(f.url, session, priming!.id);
    assert.deepEqual(
      (await again.rest()).map((e) => e.id),
      [1, 2, 3].map((n) => `${stream}-${n}`),
    );
  });
});

Deno.test("server: a replay is of the named stream only; resuming a POST's stream leaves the GET stream open", async () => {
  await withServer(async (f) => {
    const session = await openSession(f.url);
    const standalone = await get(f.url, session);
    const standalonePriming = await standalone.next();
    const a = await call(f.url, session, 1, "PMT-000001");
    const b = await call(f.url, session, 2, "PMT-000002");
    const aFirst = (await a.message())!;
    const bFirst = (await b.message())!;
    assert.notEqual(streamOf(aFirst.id), streamOf(bFirst.id));
    assert.notEqual(streamOf(aFirst.id), streamOf(standalonePriming!.id!));
    await a.cancel();
    f.release("PMT-000002");
    assert.equal((await b.rest()).at(-1)?.message.id, 2); // b is answered on its own stream
    f.release("PMT-000001");
    const resumed = await get(f.url, session, aFirst.id);
    const rest = await resumed.rest();
    assert.ok(
      rest.every((e) => streamOf(e.id) === streamOf(aFirst.id)),
      JSON.stringify(rest),
    );
    assert.deepEqual(rest.map((e) => e.message.id ?? progressOf(e.message)), [
      2,
      1,
    ]);
    // The GET stream was not replaced: a list_changed still arrives on it.
    f.registry.publish(spec("policy.new", "1.0.0"));
    const changed = await standalone.message();
    assert.equal(changed?.message.method, "notifications/tools/list_changed");
    assert.equal(streamOf(changed!.id), streamOf(standalonePriming!.id!));
    await standalone.cancel();
  });
});

Deno.test("server: the GET stream resumes after its Last-Event-ID, with no priming and the same stream", async () => {
  await withServer(async (f) => {
    const session = await openSession(f.url);
    const first = await get(f.url, session);
    const priming = (await first.next())!;
    const stream = streamOf(priming.id!);
    f.registry.publish(spec("policy.one", "1.0.0"));
    const one = (await first.message())!;
    assert.equal(one.id, `${stream}-1`);
    await first.cancel();
    // Sent into the dropped connection (kept) or, once the drop was noticed, queued: either way
    // it arrives once on the resumed stream.
    f.registry.publish(spec("policy.two", "1.0.0"));
    const resumed = await get(f.url, session, one.id);
    const next = (await resumed.next())!;
    assert.equal(next.id, `${stream}-2`);
    assert.equal(
      JSON.parse(next.data).method,
      "notifications/tools/list_changed",
    );
    await resumed.cancel();
  });
});

Deno.test("server: events past replayMaxEvents are evicted; resuming from before them starts a fresh GET stream", async () => {
  await withServer(async (f) => {
    const session = await openSession(f.url);
    f.release("PMT-000001");
    const answer = await call(f.url, session, 3, "PMT-000001");
    const all = await answer.rest(); // progress 1, progress 2, response: only the last one is kept
    const stream = streamOf(all[0].id);
    const kept = await get(f.url, session, all[1].id);
    assert.deepEqual((await kept.rest()).map((e) => e.id), [`${stream}-3`]);
    const fresh = await get(f.url, session, all[0].id);
    const primed = (await fresh.next())!;
    assert.equal(primed.data, "");
    assert.notEqual(streamOf(primed.id!), stream);
    f.registry.publish(spec("policy.new", "1.0.0"));
    const next = (await fresh.message())!; // nothing replayed: the next message is new
    assert.equal(next.message.method, "notifications/tools/list_changed");
    await fresh.cancel();
  }, { replayMaxEvents: 1 });
});

Deno.test("server: with replayWindowMs 0 an answered request's stream is gone at once; replayMaxEvents 0 sends no ids", async () => {
  await withServer(async (f) => {
    const session = await openSession(f.url);
    f.release("PMT-000001");
    const all = await (await call(f.url, session, 3, "PMT-000001")).rest();
    const fresh = await get(f.url, session, all[0].id);
    const primed = (await fresh.next())!;
    assert.equal(primed.data, "");
    assert.notEqual(streamOf(primed.id!), streamOf(all[0].id));
    await fresh.cancel();
  }, { replayWindowMs: 0 });
  await withServer(async (f) => {
    const session = await openSession(f.url);
    f.release("PMT-000001");
    const answer = await call(f.url, session, 3, "PMT-000001");
    const events: SseEvent[] = [];
    for (let e = await answer.next(); e; e = await answer.next()) {
      events.push(e);
    }
    assert.equal(events.length, 3); // no priming event
    assert.ok(events.every((e) => e.id === undefined && e.data !== ""));
  }, { replayMaxEvents: 0 });
});

Deno.test("server: a bogus Last-Event-ID (malformed, unknown, another session's) starts a fresh stream and harms nothing", async () => {
  await withServer(async (f) => {
    const other = await openSession(f.url);
    f.release("PMT-000001");
    const theirs = await (await call(f.url, other, 3, "PMT-000001")).rest();
    const session = await openSession(f.url);
    const ids = [
      "nonsense",
      "",
      " ",
      "-1-2",
      "1-1-1",
      "999-0",
      "1-999",
      "1e3-0",
      "99999999999999999999-1",
      "x".repeat(4000),
      theirs[0].id,
    ];
    for (const id of ids) {
      const res = await get(f.url, session, id);
      const first = (await res.next())!;
      assert.equal(
        first.data,
        "",
        `Last-Event-ID ${JSON.stringify(id.slice(0, 20))}`,
      );
      await res.cancel();
    }
    // Nothing of the other session leaked; the session still works.
    const last = await get(f.url, session, theirs[0].id);
    await last.next();
    f.registry.publish(spec("policy.new", "1.0.0"));
    assert.equal(
      (await last.message())?.message.method,
      "notifications/tools/list_changed",
    );
    await last.cancel();
    const list = await post(f.url, session, {
      jsonrpc: "2.0",
      id: 9,
      method: "tools/list",
    });
    assert.equal(list.status, 200);
    await list.body?.cancel();
  });
});

Deno.test("client: a call whose stream our server loses mid-call is answered after GET + Last-Event-ID, each progress once", async () => {
  await withServer(async (f) => {
    let cut = false;
    // A fetch that drops the tools/call connection right after the first progress arrived.
    const dropping = (async (input: string | URL | Request, init: RequestInit = {}) => {
      const body = typeof init.body === "string" ? init.body : "";
      if (cut || init.method !== "POST" || !body.includes('"tools/call"')) {
        return await fetch(input, init);
      }
      cut = true;
      const inner = new AbortController();
      init.signal?.addEventListener("abort", () => inner.abort());
      const res = await fetch(input, { ...init, signal: inner.signal });
      const reader = res.body!.getReader();
      const text = new TextDecoder();
      let seen = "";
      const stream = new ReadableStream<Uint8Array>({
        async pull(controller) {
          const { done, value } = await reader.read();
          if (done) return controller.close();
          controller.enqueue(value);
          seen += text.decode(value, { stream: true });
          if (seen.includes("notifications/progress")) {
            inner.abort();
            await reader.cancel().catch(() => {});
            controller.close();
            f.release("PMT-000001");
          }
        },
        cancel: () => inner.abort(),
      });
      return new Response(stream, {
        status: res.status,
        headers: res.headers,
      });
    }) as typeof fetch;
    const transport = new StreamableHttpClientTransport(f.url, {
      token: TOKEN,
      reconnectDelayMs: 10,
      fetch: dropping,
    });
    const client = new McpClient(transport, { era: "handshake" });
    await client.connect();
    try {
      const progress: Progress[] = [];
      const outcome = await client.callTool("payments.lookup", {
        reference: "PMT-000001",
      }, {
        onProgress: (p) => progress.push(p),
      });
      assert.ok(cut);
      assert.equal(outcome.kind, "ok");
      assert.deepEqual(progress.map((p) => p.progress), [1, 2]);
    } finally {
      await client.close();
    }
  });
});

/** A scripted handshake-era server on 127.0.0.1; `onGet` answers GETs (none: 405). */
async function scriptedServer(
  onGet: (req: IncomingMessage, res: ServerResponse) => void,
  onCall: (
    res: ServerResponse,
    call: { id: unknown; params: Record<string, unknown> },
  ) => void,
): Promise<{ url: string; close: () => Promise<void> }> {
  const server = createServer((req, res) => {
    if (req.method === "GET") return onGet(req, res);
    if (req.method === "DELETE") return res.writeHead(204).end();
    let text = "";
    req.on("data", (d) => (text += d));
    req.on("end", () => {
      const m = JSON.parse(text);
      const json = (result: unknown) =>
        res.writeHead(200, {
          "content-type": "application/json",
          "mcp-session-id": "s-1",
        })
          .end(JSON.stringify({ jsonrpc: "2.0", id: m.id, result }));
      if (m.id === undefined) return res.writeHead(202).end();
      if (m.method === "initialize") {
        return json({
          protocolVersion: "2025-11-25",
          capabilities: { tools: {} },
          serverInfo: { name: "s", version: "1" },
        });
      }
      if (m.method === "tools/list") {
        return json({
          tools: [{ name: "slow", inputSchema: { type: "object" } }],
        });
      }
      onCall(res, m);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

const progressEvent = (id: string, progressToken: unknown, progress: number) =>
  `id: ${id}\nevent: message\ndata: ${
    JSON.stringify({
      jsonrpc: "2.0",
      method: "notifications/progress",
      params: { progressToken, progress },
    })
  }\n\n`;

Deno.test("client: a stream the server closes after `retry` is resumed by GET with Last-Event-ID, session and revision; a replayed event is dropped", async () => {
  const gets: Record<string, string | string[] | undefined>[] = [];
  let callId: unknown;
  let token: unknown;
  const server = await scriptedServer((req, res) => {
    if (req.headers["last-event-id"] === undefined) {
      return res.writeHead(405).end();
    }
    gets.push(req.headers);
    res.writeHead(200, { "content-type": "text/event-stream" });
    // Sends c-1 again (already delivered), then the rest, then the response twice; stays open.
    res.write(progressEvent("c-1", token, 1) + progressEvent("c-2", token, 2));
    const response = {
      jsonrpc: "2.0",
      id: callId,
      result: { content: [{ type: "text", text: "done" }] },
    };
    res.write(`id: c-3\nevent: message\ndata: ${JSON.stringify(response)}\n\n`);
    res.write(`id: c-4\nevent: message\ndata: ${JSON.stringify(response)}\n\n`);
  }, (res, call) => {
    callId = call.id;
    token = (call.params._meta as { progressToken?: unknown }).progressToken;
    res.writeHead(200, { "content-type": "text/event-stream" });
    // A priming event with retry, a progress, then the connection closes before the response.
    res.end(`id: c-0\nretry: 5\ndata: \n\n` + progressEvent("c-1", token, 1));
  });
  const transport = new StreamableHttpClientTransport(server.url, {
    reconnectDelayMs: 60_000,
  });
  const messages: unknown[] = [];
  const client = new McpClient(transport, { era: "handshake" });
  try {
    await client.connect();
    const onmessage = transport.onmessage!;
    transport.onmessage = (m) => {
      messages.push(m);
      onmessage(m);
    };
    const progress: number[] = [];
    const outcome = await client.callTool("slow", {}, {
      onProgress: (p) => progress.push(p.progress),
    });
    assert.equal(outcome.kind, "ok");
    assert.deepEqual(progress, [1, 2]);
    assert.equal(
      messages.filter((m) => (m as { id?: unknown }).id === callId).length,
      1,
    );
    assert.equal(gets.length, 1);
    assert.equal(gets[0]["last-event-id"], "c-1");
    assert.equal(gets[0]["mcp-session-id"], "s-1");
    assert.equal(gets[0]["mcp-protocol-version"], "2025-11-25");
  } finally {
    await client.close();
    await server.close();
  }
});

Deno.test("client: resuming gives up after maxReconnects attempts in a row that bring nothing (onerror); each sends Last-Event-ID", async () => {
  const lastIds: (string | undefined)[] = [];
  const server = await scriptedServer((req, res) => {
    if (req.headers["last-event-id"] === undefined) {
      return res.writeHead(405).end();
    }
    lastIds.push(req.headers["last-event-id"] as string);
    res.writeHead(503).end();
  }, (res) => {
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.end(`id: r-0\ndata: \n\n`);
  });
  const gaveUp = Promise.withResolvers<Error>();
  const transport = new StreamableHttpClientTransport(server.url, {
    maxReconnects: 2,
    reconnectDelayMs: 1,
    onerror: (e) => gaveUp.resolve(e),
  });
  const client = new McpClient(transport, { era: "handshake" });
  try {
    await client.connect();
    const failed = assert.rejects(
      client.callTool("slow", {}, { timeoutMs: 60_000 }),
      (e) => e instanceof PeerError && e.kind === "closed", // no answer: it fails when closed
    );
    const error = await gaveUp.promise;
    assert.match(
      error.message,
      /ended before the response.*failed 3 times in a row/,
    );
    assert.deepEqual(lastIds, ["r-0", "r-0", "r-0"]);
    await client.close();
    await failed;
  } finally {
    await client.close();
    await server.close();
  }
});

Deno.test("client: the GET stream reconnects with its Last-Event-ID and drops an event sent again", async () => {
  const seen: (string | undefined)[] = [];
  const notification = (id: string, method: string) =>
    `id: ${id}\nevent: message\ndata: ${JSON.stringify({ jsonrpc: "2.0", method })}\n\n`;
  const server = await scriptedServer((req, res) => {
    seen.push(req.headers["last-event-id"] as string | undefined);
    res.writeHead(200, { "content-type": "text/event-stream" });
    if (seen.length === 1) {
      res.end(
        `retry: 1\n\n` +
          notification("g-1", "notifications/tools/list_changed"),
      );
    } else {
      res.write(notification("g-1", "notifications/tools/list_changed"));
      res.write(notification("g-2", "notifications/resources/list_changed"));
    }
  }, (res) => res.writeHead(500).end());
  const transport = new StreamableHttpClientTransport(server.url);
  const methods: string[] = [];
  const two = Promise.withResolvers<void>();
  transport.onmessage = (m) => {
    const method = (m as { method?: string }).method;
    if (method !== undefined) methods.push(method);
    if (method === "notifications/resources/list_changed") two.resolve();
  };
  try {
    await transport.send({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: {
        protocolVersion: "2025-11-25",
        capabilities: {},
        clientInfo: { name: "t", version: "1" },
      },
    });
    await transport.send({
      jsonrpc: "2.0",
      method: "notifications/initialized",
    });
    await two.promise;
    assert.deepEqual(seen, [undefined, "g-1"]);
    assert.deepEqual(methods, [
      "notifications/tools/list_changed",
      "notifications/resources/list_changed",
    ]);
  } finally {
    await transport.close();
    await server.close();
  }
});

Deno.test("SseCursor: the last event id (a priming event's too) and retry carry over connections; replays are dropped", () => {
  const cursor = new SseCursor();
  cursor.connect();
  let chunk = cursor.push("id: a-0\nretry: 250\n\n"); // no data: not an event, but an id
  assert.deepEqual(chunk.events, []);
  assert.ok(chunk.progressed);
  assert.equal(cursor.lastEventId, "a-0");
  assert.equal(cursor.retry, 250);
  chunk = cursor.push("id: a-1\ndata: {}\n\ndata: [1]\n\n");
  assert.deepEqual(chunk.events.map((e) => [e.id, e.data]), [["a-1", "{}"], [
    "a-1",
    "[1]",
  ]]);
  cursor.connect();
  assert.equal(cursor.lastEventId, "a-1");
  chunk = cursor.push("id: a-1\ndata: {}\n\n");
  assert.deepEqual(chunk, { events: [], progressed: false }); // sent again: dropped
  chunk = cursor.push("id: a-2\ndata: {}\n\nid:\n\n");
  assert.deepEqual(chunk.events.map((e) => e.id), ["a-2"]);
  assert.equal(cursor.lastEventId, undefined); // an empty id resets it: no Last-Event-ID
  assert.equal(cursor.retry, 250);
  assert.equal(new SseDecoder().lastEventId, undefined);
});

Deno.test("ReplayLog: ids per stream, and the bounds: events (completed streams first), bytes, the window; bogus ids", () => {
  let now = 1_000;
  const message = (n: number) => ({
    jsonrpc: "2.0" as const,
    method: "m",
    params: { n },
  });
  const log = new ReplayLog(
    { maxEvents: 3, maxBytes: 10_000, windowMs: 100 },
    () => now,
  );
  const a = log.open(false);
  const b = log.open(false);
  assert.deepEqual([a.number, b.number], [1, 2]);
  a.send(message(1));
  a.send(message(2));
  assert.equal(log.find("1-0")?.stream, a);
  assert.equal(log.find("1-2")?.after, 2);
  b.send(message(3));
  b.send(message(4)); // a fourth event: the oldest, a's first, goes
  assert.equal(log.size, 3);
  assert.equal(log.find("1-0"), undefined);
  assert.equal(log.find("1-1")?.stream, a);
  a.complete();
  b.send(message(5)); // over the bound again: the completed stream goes whole
  assert.equal(log.find("1-1"), undefined);
  assert.equal(log.find("1-2"), undefined);
  assert.deepEqual(b.kept.map((e) => e.seq), [1, 2, 3]);
  b.complete();
  now += 100; // the window after completion
  assert.equal(log.find("2-0"), undefined);
  assert.equal(log.size, 0);
  assert.equal(log.bytes, 0);
  // A GET stream's events age out one by one; a stream with nothing left and no connection goes.
  const g = log.open(true);
  g.send(message(6));
  now += 50;
  g.send(message(7));
  now += 60;
  assert.equal(log.find("3-0"), undefined);
  assert.equal(log.find("3-1")?.after, 1);
  now += 50;
  assert.equal(log.find("3-1"), undefined);
  for (
    const bogus of [
      "",
      "x",
      "3",
      "3-",
      "-3-1",
      "3-1-1",
      "3-99",
      "99-0",
      "1e2-0",
    ]
  ) {
    assert.equal(log.find(bogus), undefined, bogus);
  }
  // Bytes: an event larger than the bound is not kept, so nothing before it resumes.
  const small = new ReplayLog(
    { maxEvents: 10, maxBytes: 64, windowMs: 100 },
    () => now,
  );
  const s = small.open(false);
  s.send(message(1));
  assert.equal(small.find("1-0")?.after, 0);
  s.send({ jsonrpc: "2.0", method: "m", params: { text: "x".repeat(100) } });
  assert.equal(small.find("1-0"), undefined);
  assert.equal(small.find("1-1"), undefined);
  assert.equal(small.find("1-2")?.after, 2);
  assert.equal(small.size, 0);
  small.close();
  assert.equal(small.find("1-2"), undefined);
  // maxEvents 0: nothing kept, nothing found.
  const off = new ReplayLog({ maxEvents: 0, maxBytes: 0, windowMs: 0 });
  assert.equal(off.open(false).send(message(1)), false); // no connection: went nowhere
  assert.equal(off.find("1-0"), undefined);
});

Deno.test("serveHttp() refuses replay limits that are not whole numbers of 0 or more", async () => {
  const server = new McpServer({
    registry: new ToolRegistry(),
    handlerFor: () => undefined,
  });
  for (const bad of [Number.NaN, -1, 1.5, Infinity]) {
    await assert.rejects(
      serveHttp(server, {
        authenticate: () => undefined,
        replayMaxEvents: bad,
      }),
      (e) =>
        e instanceof TypeError &&
        /replayMaxEvents must be a whole number/.test(e.message),
    );
  }
  server.close();
});
