/**
 * The Streamable HTTP transport: a real server on 127.0.0.1 (port 0), driven by our McpClient over
 * our client transport, by the official SDK's client, by raw `fetch` for exact statuses and
 * headers, and by raw sockets for what `fetch` will not send (a foreign Host, a request that
 * stalls half-way, bytes that are not HTTP).
 */
import assert from "node:assert/strict";
import net from "node:net";
// @ts-types="@modelcontextprotocol/sdk/client/index"
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
// @ts-types="@modelcontextprotocol/sdk/client/streamableHttp"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { McpClient, McpServer, type Principal, type ToolRegistry } from "../mod.ts";
import {
  bearerToken,
  bearerTokens,
  type McpHttpServer,
  serveHttp,
  type ServeHttpOptions,
  StreamableHttpClientTransport,
  StreamableHttpError,
  tokenSha256,
} from "../lib/mcp/transports/http_mod.ts";
import { SseDecoder } from "../lib/mcp/transports/_sse_parser.ts";
import { estate, OPERATOR, RETAIL, spec } from "./_mcp_fixtures.ts";

const TOKENS = { retail: "tok-retail-0001", operator: "tok-operator-0002" };
const ACCEPT_BOTH = "application/json, text/event-stream";
const INIT = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: {
    protocolVersion: "2025-11-25",
    capabilities: {},
    clientInfo: { name: "t", version: "1" },
  },
};

interface Fixture {
  http: McpHttpServer;
  server: McpServer;
  registry: ToolRegistry;
  /** How many handler runs are waiting to be cancelled (reference PMT-000777). */
  readonly waiting: number;
  /** Closes the HTTP server, then the MCP server. */
  close(): Promise<void>;
}

/**
 * A server over the fixture estate whose handlers echo their arguments; with `amount` set they
 * report progress twice first; for reference PMT-000777 they wait until cancelled.
 */
async function start(
  options: Partial<ServeHttpOptions> = {},
): Promise<Fixture> {
  const registry = estate();
  let waiting = 0;
  const server = new McpServer({
    registry,
    handlerFor: (t) => async (args, context) => {
      if (args.reference === "PMT-000777") {
        // Runs until cancelled.
        waiting++;
        await new Promise((resolve) => context.signal.addEventListener("abort", resolve));
        waiting--;
      }
      if (typeof args.amount === "number") {
        context.progress(1, 2, "halfway");
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
    ...options,
  });
  return {
    http,
    server,
    registry,
    get waiting() {
      return waiting;
    },
    close: async () => {
      await http.close();
      server.close();
    },
  };
}

/** Runs `body` with a fresh server, closed afterwards whatever happens. */
async function withServer(
  body: (f: Fixture) => Promise<void>,
  options: Partial<ServeHttpOptions> = {},
): Promise<void> {
  const f = await start(options);
  try {
    await body(f);
  } finally {
    await f.close();
  }
}

/** A connected McpClient over our transport, as a principal. */
async function connect(
  f: Fixture,
  token: string,
): Promise<{ client: McpClient; transport: StreamableHttpClientTransport }> {
  const transport = new StreamableHttpClientTransport(f.http.url, {
    token,
    reconnectDelayMs: 20,
  });
  const client = new McpClient(transport, { era: "handshake" });
  await client.connect();
  return { client, transport };
}

/** A raw POST with the headers a well-behaved client sends, overridable. */
async function post(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<Response> {
  return await fetch(url, {
    method: "POST",
    headers: {
      authorization: `Bearer ${TOKENS.operator}`,
      "content-type": "application/json",
      accept: ACCEPT_BOTH,
      ...headers,
    },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

/** Opens a session with raw requests (initialize, then initialized); returns its id. */
async function openSession(
  url: string,
  token = TOKENS.operator,
): Promise<string> {
  const res = await post(url, INIT, { authorization: `Bearer ${token}` });
  assert.equal(res.status, 200);
  await res.body?.cancel();
  const id = res.headers.get("mcp-session-id");
  assert.ok(id);
  const ack = await post(url, {
    jsonrpc: "2.0",
    method: "notifications/initialized",
  }, {
    authorization: `Bearer ${token}`,
    "mcp-session-id": id,
  });
  assert.equal(ack.status, 202);
  await ack.body?.cancel();
  return id;
}

/** The status and JSON-RPC error of a refused request, its body consumed. */
async function refusal(
  res: Response,
): Promise<{ status: number; code: number; message: string }> {
  const body = await res.json();
  return {
    status: res.status,
    code: body.error?.code,
    message: body.error?.message,
  };
}

/** Reads an SSE body until `stop` says so (or it ends); returns the parsed message events. */
async function readEvents(
  res: Response,
  stop: (messages: unknown[]) => boolean = () => false,
): Promise<unknown[]> {
  const decoder = new SseDecoder();
  const text = new TextDecoder();
  const reader = res.body!.getReader();
  const messages: unknown[] = [];
  try {
    while (!stop(messages)) {
      const { done, value } = await reader.read();
      if (done) break;
      for (const e of decoder.push(text.decode(value, { stream: true }))) {
        if (e.data !== "") messages.push(JSON.parse(e.data)); // "": a priming event
      }
    }
  } finally {
    await reader.cancel();
  }
  return messages;
}

/** Sends raw bytes on a socket and collects what comes back until the server closes it. */
function rawExchange(port: number, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, "127.0.0.1", () => socket.write(text));
    let got = "";
    socket.on("data", (d) => (got += d));
    socket.on("error", reject);
    socket.on("close", () => resolve(got));
  });
}

function rawPost(
  port: number,
  headers: Record<string, string>,
  body: string,
): string {
  const lines = Object.entries({
    host: `127.0.0.1:${port}`,
    "content-type": "application/json",
    accept: ACCEPT_BOTH,
    authorization: `Bearer ${TOKENS.operator}`,
    "content-length": String(new TextEncoder().encode(body).length),
    connection: "close",
    ...headers,
  }).map(([k, v]) => `${k}: ${v}\r\n`).join("");
  return `POST /mcp HTTP/1.1\r\n${lines}\r\n${body}`;
}

function statusOf(response: string): number {
  return Number(/^HTTP\/1\.1 (\d{3})/.exec(response)?.[1]);
}

const delay = (ms: number) => new Promise((r) => setTimeout(r, ms));

// ---------------------------------------------------------------------------------------------
// Through our client

Deno.test("http: McpClient over StreamableHttpClientTransport does the handshake and gets a session", async () => {
  await withServer(async (f) => {
    const { client, transport } = await connect(f, TOKENS.operator);
    assert.equal(client.server?.protocolVersion, "2025-11-25");
    assert.equal(transport.protocolVersion, "2025-11-25");
    assert.match(transport.sessionId!, /^[\x21-\x7e]{32}$/);
    assert.equal(f.http.sessionCount, 1);
    assert.equal(f.server.sessionCount, 1);
    await client.close();
    // close() sent DELETE: the session is gone on both sides.
    assert.equal(f.http.sessionCount, 0);
    assert.equal(f.server.sessionCount, 0);
  });
});

Deno.test("http: tools/list depends on the principal the bearer token stands for", async () => {
  await withServer(async (f) => {
    const operator = await connect(f, TOKENS.operator);
    const retail = await connect(f, TOKENS.retail);
    try {
      assert.deepEqual((await operator.client.listTools()).map((t) => t.name), [
        "payments.lookup",
        "payments.release",
        "policy.search",
      ]);
      assert.deepEqual((await retail.client.listTools()).map((t) => t.name), [
        "policy.search",
        "retail.transfers.lookup",
      ]);
      // Not visible is not callable.
      const hidden = await retail.client.callTool("payments.release", {
        reference: "PMT-000001",
      });
      assert.equal(hidden.kind, "protocol-error");
    } finally {
      await operator.client.close();
      await retail.client.close();
    }
  });
});

Deno.test("http: tools/call answers ok, and invalid arguments as an isError result with the issues", async () => {
  await withServer(async (f) => {
    const { client } = await connect(f, TOKENS.operator);
    try {
      const ok = await client.callTool("payments.lookup", {
        reference: "PMT-000001",
      });
      assert.equal(ok.kind, "ok");
      assert.deepEqual(ok.kind === "ok" && ok.result.structuredContent, {
        tool: "payments.lookup",
        version: "1.1.0",
        args: { reference: "PMT-000001" },
      });
      const bad = await client.callTool("payments.lookup", {
        reference: "nope",
        extra: 1,
      });
      assert.equal(bad.kind, "invalid-arguments");
      assert.deepEqual(
        bad.kind === "invalid-arguments" &&
          bad.issues.map((i) => `${i.path} ${i.keyword}`),
        ["$.extra additionalProperties", "$.reference pattern"],
      );
      const unknown = await client.callTool("payments.nope", {});
      assert.equal(unknown.kind === "protocol-error" && unknown.code, -32602);
    } finally {
      await client.close();
    }
  });
});

Deno.test("http: progress notifications reach the caller over the request's SSE answer", async () => {
  await withServer(async (f) => {
    const { client } = await connect(f, TOKENS.operator);
    try {
      const seen: unknown[] = [];
      const outcome = await client.callTool(
        "payments.lookup",
        { reference: "PMT-000001", amount: 5 },
        { onProgress: (p) => seen.push(p) },
      );
      assert.equal(outcome.kind, "ok");
      assert.deepEqual(seen, [
        { progress: 1, total: 2, message: "halfway" },
        { progress: 2, total: 2, message: undefined },
      ]);
    } finally {
      await client.close();
    }
  });
});

Deno.test("http: list_changed after registry.publish() arrives over the session's GET stream", async () => {
  await withServer(async (f) => {
    const operator = await connect(f, TOKENS.operator);
    const retail = await connect(f, TOKENS.retail);
    try {
      assert.equal((await operator.client.listTools()).length, 3);
      let retailTold = 0;
      retail.client.onToolsChanged(() => retailTold++);
      const told = new Promise<void>((resolve) => operator.client.onToolsChanged(resolve));
      await delay(50); // the GET streams are open
      f.registry.publish(
        spec("payments.status", "1.0.0", { requiredScopes: ["payments:read"] }),
      );
      await told;
      assert.deepEqual((await operator.client.listTools()).map((t) => t.name), [
        "payments.lookup",
        "payments.release",
        "payments.status",
        "policy.search",
      ]);
      assert.equal(operator.client.listCount, 2);
      assert.equal(
        retailTold,
        0,
        "the retail agent cannot see the new tool: not told",
      );
    } finally {
      await operator.client.close();
      await retail.client.close();
    }
  });
});

Deno.test("http: a notification sent while no GET stream is open waits for the stream", async () => {
  await withServer(async (f) => {
    const transport = new StreamableHttpClientTransport(f.http.url, {
      token: TOKENS.operator,
      listen: false,
    });
    const client = new McpClient(transport, { era: "handshake" });
    await client.connect();
    await client.listTools();
    f.registry.publish(
      spec("payments.status", "1.0.0", { requiredScopes: ["payments:read"] }),
    );
    const res = await fetch(f.http.url, {
      headers: {
        accept: "text/event-stream",
        authorization: `Bearer ${TOKENS.operator}`,
        "mcp-session-id": transport.sessionId!,
      },
    });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("content-type"), "text/event-stream");
    assert.deepEqual(await readEvents(res, (m) => m.length === 1), [
      { jsonrpc: "2.0", method: "notifications/tools/list_changed" },
    ]);
    await client.close();
  });
});

Deno.test("http: when the server ends the session, the client's next request fails with sessionEnded", async () => {
  await withServer(async (f) => {
    const errors: Error[] = [];
    const transport = new StreamableHttpClientTransport(f.http.url, {
      token: TOKENS.operator,
      onerror: (e) => errors.push(e),
    });
    const client = new McpClient(transport, { era: "handshake" });
    await client.connect();
    const closed = new Promise<void>((resolve) => {
      const previous = transport.onclose;
      transport.onclose = () => {
        previous?.();
        resolve();
      };
    });
    const del = await fetch(f.http.url, {
      method: "DELETE",
      headers: {
        authorization: `Bearer ${TOKENS.operator}`,
        "mcp-session-id": transport.sessionId!,
      },
    });
    assert.equal(del.status, 204);
    await assert.rejects(
      client.request("tools/list"),
      (e) =>
        e instanceof StreamableHttpError && e.sessionEnded &&
        /start a new session/.test(e.message),
    );
    await closed;
    assert.equal(transport.sessionId, undefined);
    assert.ok(
      errors.some((e) => e instanceof StreamableHttpError && e.sessionEnded),
    );
    await client.close();
  });
});

Deno.test("http: a session idle past sessionIdleMs ends (404); one with an open stream does not", async () => {
  await withServer(async (f) => {
    const idle = await openSession(f.http.url);
    const { client } = await connect(f, TOKENS.operator); // listens on GET
    await delay(300);
    const res = await post(f.http.url, {
      jsonrpc: "2.0",
      id: 2,
      method: "tools/list",
    }, {
      "mcp-session-id": idle,
    });
    assert.equal((await refusal(res)).status, 404);
    assert.equal((await client.listTools()).length, 3);
    await client.close();
  }, { sessionIdleMs: 100 });
});

Deno.test("http: reauthenticate() ends a revoked token's sessions at once and tells a principal whose scopes shrank", async () => {
  await withServer(async (f) => {
    const getStream = (session: string, token: string) =>
      fetch(f.http.url, {
        headers: {
          accept: "text/event-stream",
          authorization: `Bearer ${token}`,
          "mcp-session-id": session,
        },
      });
    const retail = await openSession(f.http.url, TOKENS.retail);
    const retailStream = await getStream(retail, TOKENS.retail);
    const operator = await openSession(f.http.url, TOKENS.operator);
    const operatorStream = await getStream(operator, TOKENS.operator);
    const list = (session: string, token: string) =>
      post(f.http.url, { jsonrpc: "2.0", id: 5, method: "tools/list" }, {
        authorization: `Bearer ${token}`,
        "mcp-session-id": session,
      });
    assert.equal(
      (await (await list(operator, TOKENS.operator)).json()).result.tools
        .length,
      3,
    );

    // principals.json changed: the retail agent's token rotated; the operator lost payments:release.
    const rotated = "tok-retail-0003";
    const result = await f.http.reauthenticate(bearerTokens([
      { ...RETAIL, token: rotated },
      {
        ...OPERATOR,
        scopes: ["payments:read", "policy:read"],
        token: TOKENS.operator,
      },
    ]));
    assert.deepEqual(result, { ended: 1, updated: 1 });
    assert.equal(f.http.sessionCount, 1);
    assert.deepEqual(
      await readEvents(retailStream),
      [],
      "the revoked session's stream ended",
    );
    const old = await refusal(await list(retail, TOKENS.retail));
    assert.equal(
      old.status,
      401,
      "the old token is refused on its next request",
    );
    const gone = await refusal(await list(retail, rotated));
    assert.equal(gone.status, 404, "the session opened with it ended");
    await openSession(f.http.url, rotated); // the new token works

    assert.deepEqual(await readEvents(operatorStream, (m) => m.length === 1), [
      { jsonrpc: "2.0", method: "notifications/tools/list_changed" },
    ]);
    const now = (await (await list(operator, TOKENS.operator)).json()).result.tools;
    assert.deepEqual(now.map((t: { name: string }) => t.name), [
      "payments.lookup",
      "policy.search",
    ]);
    assert.deepEqual(
      await f.http.reauthenticate(),
      { ended: 0, updated: 0 },
      "nothing changed since: nothing happens",
    );
  });
});

// ---------------------------------------------------------------------------------------------
// The official SDK's client

Deno.test("http: the official SDK client (1.32.2) lists, calls with progress, and hears list_changed", async () => {
  await withServer(async (f) => {
    const transport = new StreamableHTTPClientTransport(new URL(f.http.url), {
      requestInit: { headers: { Authorization: `Bearer ${TOKENS.operator}` } },
    });
    const client = new Client({ name: "sdk", version: "1.0.0" });
    await client.connect(transport);
    try {
      assert.deepEqual(client.getServerCapabilities()?.tools, {
        listChanged: true,
      });
      assert.equal((await client.listTools()).tools.length, 3);
      const result = await client.callTool(
        {
          name: "payments.lookup",
          arguments: { reference: "PMT-000001", amount: 1 },
        },
        undefined,
        { onprogress: () => {} },
      );
      assert.equal(result.isError, undefined);
      const changed = new Promise<void>((resolve) =>
        client.setNotificationHandler(
          ToolListChangedNotificationSchema,
          () => resolve(),
        )
      );
      await delay(50);
      f.registry.publish(
        spec("payments.status", "1.0.0", { requiredScopes: ["payments:read"] }),
      );
      await changed;
      await transport.terminateSession();
      assert.equal(f.http.sessionCount, 0);
    } finally {
      await client.close();
    }
  });
});

// ---------------------------------------------------------------------------------------------
// Raw fetch: exact statuses and headers

Deno.test("http: initialize answers JSON with Mcp-Session-Id; a notification gets 202 with no body", async () => {
  await withServer(async (f) => {
    const res = await post(f.http.url, INIT);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("content-type"), "application/json");
    assert.match(res.headers.get("mcp-session-id")!, /^[\x21-\x7e]+$/);
    assert.equal((await res.json()).result.protocolVersion, "2025-11-25");
    const ack = await post(f.http.url, {
      jsonrpc: "2.0",
      method: "notifications/initialized",
    }, {
      "mcp-session-id": res.headers.get("mcp-session-id")!,
    });
    assert.equal(ack.status, 202);
    assert.equal(await ack.text(), "");
  });
});

Deno.test("http: a failed initialize opens no session", async () => {
  await withServer(async (f) => {
    const res = await post(f.http.url, {
      ...INIT,
      params: { capabilities: {} },
    });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("mcp-session-id"), null);
    assert.equal((await res.json()).error.code, -32602);
    assert.equal(f.http.sessionCount, 0);
  });
});

Deno.test("http: initialize past maxSessions gets 503; ending a session makes room", async () => {
  await withServer(async (f) => {
    const first = await openSession(f.http.url);
    const r = await refusal(await post(f.http.url, INIT));
    assert.equal(r.status, 503);
    assert.match(r.message, /too many open sessions/);
    const del = await fetch(f.http.url, {
      method: "DELETE",
      headers: {
        authorization: `Bearer ${TOKENS.operator}`,
        "mcp-session-id": first,
      },
    });
    await del.body?.cancel();
    const ok = await post(f.http.url, INIT);
    assert.equal(ok.status, 200);
    await ok.body?.cancel();
  }, { maxSessions: 1 });
});

Deno.test("http: past maxSessionsPerPrincipal a principal's idle-longest session ends; others still get in; 503 names the quota when none is idle", async () => {
  await withServer(async (f) => {
    const list = (session: string, token = TOKENS.operator) =>
      post(f.http.url, { jsonrpc: "2.0", id: 7, method: "tools/list" }, {
        authorization: `Bearer ${token}`,
        "mcp-session-id": session,
      });
    const status = async (session: string, token = TOKENS.operator) => {
      const res = await list(session, token);
      await res.body?.cancel();
      return res.status;
    };
    const s1 = await openSession(f.http.url);
    const s2 = await openSession(f.http.url);
    const s3 = await openSession(f.http.url);
    assert.equal(await status(s1), 200); // s1 used last: s2 is now the one idle longest
    const s4 = await openSession(f.http.url);
    const s5 = await openSession(f.http.url);
    assert.deepEqual(
      [
        await status(s1),
        await status(s2),
        await status(s3),
        await status(s4),
        await status(s5),
      ],
      [200, 404, 404, 200, 200],
      "quota 3: s2, then s3, ended; s1 was used more recently",
    );
    assert.equal(f.http.sessionCount, 3);

    // Another principal is not affected.
    const retail = [
      await openSession(f.http.url, TOKENS.retail),
      await openSession(f.http.url, TOKENS.retail),
    ];
    for (const r of retail) assert.equal(await status(r, TOKENS.retail), 200);

    // None of the operator's sessions idle (two GET streams, one call in flight): 503.
    const streams = await Promise.all([s1, s4].map((id) =>
      fetch(f.http.url, {
        headers: {
          accept: "text/event-stream",
          authorization: `Bearer ${TOKENS.operator}`,
          "mcp-session-id": id,
        },
      })
    ));
    const running = post(f.http.url, {
      jsonrpc: "2.0",
      id: 8,
      method: "tools/call",
      params: {
        name: "payments.lookup",
        arguments: { reference: "PMT-000777" },
      },
    }, { "mcp-session-id": s5 }).catch(() => undefined); // dropped when the server closes
    for (let i = 0; i < 200 && f.waiting === 0; i++) await delay(10); // the call is under way
    assert.equal(f.waiting, 1);
    const full = await refusal(await post(f.http.url, INIT));
    assert.equal(full.status, 503);
    assert.match(
      full.message,
      /wholesale-operator has 3 sessions open, the most one principal may hold \(maxSessionsPerPrincipal\), and none is idle/,
    );
    assert.equal(f.http.sessionCount, 5);
    assert.equal(await status(retail[0], TOKENS.retail), 200);
    await openSession(f.http.url, TOKENS.retail); // still room for others
    for (const r of streams) await r.body?.cancel();
    await f.close(); // ends the call in flight
    await (await running)?.body?.cancel();
  }, { maxSessionsPerPrincipal: 3, maxSessions: 10 });
});

Deno.test("http: a request answers JSON without progress, and SSE (progress, then response) with it", async () => {
  await withServer(async (f) => {
    const session = await openSession(f.http.url);
    const call = (id: number, meta: Record<string, unknown>) =>
      post(f.http.url, {
        jsonrpc: "2.0",
        id,
        method: "tools/call",
        params: {
          name: "payments.lookup",
          arguments: { reference: "PMT-000001", amount: 1 },
          _meta: meta,
        },
      }, { "mcp-session-id": session, "mcp-protocol-version": "2025-11-25" });
    const plain = await call(2, {});
    assert.equal(plain.headers.get("content-type"), "application/json");
    assert.equal((await plain.json()).id, 2);
    const streamed = await call(3, { progressToken: "p3" });
    assert.equal(streamed.status, 200);
    assert.equal(streamed.headers.get("content-type"), "text/event-stream");
    assert.equal(
      streamed.headers.get("cache-control"),
      "no-cache, no-transform",
    );
    const messages = await readEvents(streamed) as Record<string, unknown>[];
    assert.deepEqual(messages.map((m) => m.method ?? `response ${m.id}`), [
      "notifications/progress",
      "notifications/progress",
      "response 3",
    ]);
    assert.deepEqual(messages[0].params, {
      progressToken: "p3",
      progress: 1,
      total: 2,
      message: "halfway",
    });
  });
});

Deno.test("http: a cancelled request's answer ends as an empty SSE stream, with no response", async () => {
  await withServer(async (f) => {
    const session = await openSession(f.http.url);
    const headers = { "mcp-session-id": session };
    const pending = post(f.http.url, {
      jsonrpc: "2.0",
      id: 5,
      method: "tools/call",
      params: {
        name: "payments.lookup",
        arguments: { reference: "PMT-000777" },
      },
    }, headers);
    await delay(50);
    const cancel = await post(f.http.url, {
      jsonrpc: "2.0",
      method: "notifications/cancelled",
      params: { requestId: 5, reason: "user gave up" },
    }, headers);
    assert.equal(cancel.status, 202);
    const answer = await pending;
    assert.equal(answer.status, 200);
    assert.equal(answer.headers.get("content-type"), "text/event-stream");
    assert.deepEqual(await readEvents(answer), []);
    // Through the client: the call rejects, and the session goes on.
    const { client } = await connect(f, TOKENS.operator);
    const abort = new AbortController();
    const call = client.callTool(
      "payments.lookup",
      { reference: "PMT-000777" },
      {
        signal: abort.signal,
      },
    );
    setTimeout(() => abort.abort(), 50);
    await assert.rejects(call, /was cancelled/);
    assert.equal(
      (await client.callTool("payments.lookup", { reference: "PMT-000001" }))
        .kind,
      "ok",
    );
    await client.close();
  });
});

Deno.test("http: a request without Mcp-Session-Id gets 400; an unknown one 404; a deleted one 404", async () => {
  await withServer(async (f) => {
    const list = { jsonrpc: "2.0", id: 7, method: "tools/list" };
    const missing = await post(f.http.url, list);
    assert.deepEqual(await refusal(missing), {
      status: 400,
      code: -32600,
      message:
        "Bad Request: tools/list needs an Mcp-Session-Id header; start a session with initialize",
    });
    const unknown = await refusal(
      await post(f.http.url, list, { "mcp-session-id": "nope" }),
    );
    assert.equal(unknown.status, 404);
    assert.match(
      unknown.message,
      /does not exist or has ended; start a new one with initialize/,
    );

    const session = await openSession(f.http.url);
    assert.equal(
      (await post(f.http.url, list, { "mcp-session-id": session })).status,
      200,
    );
    const del = await fetch(f.http.url, {
      method: "DELETE",
      headers: {
        authorization: `Bearer ${TOKENS.operator}`,
        "mcp-session-id": session,
      },
    });
    assert.equal(del.status, 204);
    assert.equal(await del.text(), "");
    assert.equal(f.server.sessionCount, 0);
    assert.equal(
      (await refusal(
        await post(f.http.url, list, { "mcp-session-id": session }),
      )).status,
      404,
    );
    const again = await fetch(f.http.url, {
      method: "DELETE",
      headers: {
        authorization: `Bearer ${TOKENS.operator}`,
        "mcp-session-id": session,
      },
    });
    assert.equal((await refusal(again)).status, 404);
    const get = await fetch(f.http.url, {
      headers: {
        authorization: `Bearer ${TOKENS.operator}`,
        accept: "text/event-stream",
      },
    });
    assert.equal((await refusal(get)).status, 405); // no handshake-era session: 405 (2026-07-28)
  });
});

Deno.test("http: MCP-Protocol-Version must be a supported revision (400 otherwise); absent is fine", async () => {
  await withServer(async (f) => {
    const list = { jsonrpc: "2.0", id: 7, method: "tools/list" };
    const session = await openSession(f.http.url);
    for (
      const bad of ["invalid-protocol-version", "2000-01-01", "2099-01-01"]
    ) {
      const variants: Record<string, string>[] = [{}, {
        "mcp-session-id": session,
      }];
      for (const headers of variants) {
        const r = await refusal(
          await post(f.http.url, list, {
            ...headers,
            "mcp-protocol-version": bad,
          }),
        );
        assert.equal(r.status, 400, bad);
        assert.match(
          r.message,
          /MCP-Protocol-Version .* is not supported; this server speaks 2025-11-25/,
        );
      }
    }
    const get = await fetch(f.http.url, {
      headers: {
        authorization: `Bearer ${TOKENS.operator}`,
        accept: "text/event-stream",
        "mcp-session-id": session,
        "mcp-protocol-version": "1999-12-31",
      },
    });
    assert.equal((await refusal(get)).status, 400);
    // Absent: the session's negotiated revision applies. Another supported one is accepted too.
    const variants: Record<string, string>[] = [{}, {
      "mcp-protocol-version": "2025-03-26",
    }];
    for (const headers of variants) {
      const ok = await post(f.http.url, list, {
        ...headers,
        "mcp-session-id": session,
      });
      assert.equal(ok.status, 200);
      assert.equal((await ok.json()).result.tools.length, 3);
    }
  });
});

Deno.test("http: a foreign Origin gets 403; the server's own origin and allowedOrigins pass with CORS", async () => {
  await withServer(async (f) => {
    const foreign = await refusal(
      await post(f.http.url, INIT, { origin: "http://evil.example.com" }),
    );
    assert.equal(foreign.status, 403);
    assert.match(
      foreign.message,
      /Origin "http:\/\/evil\.example\.com" is not allowed/,
    );
    assert.equal(
      (await refusal(await post(f.http.url, INIT, { origin: "null" }))).status,
      403,
    );
    const own = await post(f.http.url, INIT, {
      origin: `http://localhost:${f.http.port}`,
    });
    assert.equal(own.status, 200);
    await own.body?.cancel();
    const fromConsole = await post(f.http.url, INIT, {
      origin: "https://console.bank.example",
    });
    assert.equal(fromConsole.status, 200);
    assert.equal(
      fromConsole.headers.get("access-control-allow-origin"),
      "https://console.bank.example",
    );
    assert.match(
      fromConsole.headers.get("access-control-expose-headers")!,
      /mcp-session-id/,
    );
    await fromConsole.body?.cancel();
    const preflight = await fetch(f.http.url, {
      method: "OPTIONS",
      headers: {
        origin: "https://console.bank.example",
        "access-control-request-method": "POST",
      },
    });
    assert.equal(preflight.status, 204);
    assert.match(
      preflight.headers.get("access-control-allow-headers")!,
      /mcp-protocol-version/,
    );
    await preflight.body?.cancel();
  }, { allowedOrigins: ["https://console.bank.example"] });
});

Deno.test("http: a Host other than the loopback names gets 403 (DNS rebinding)", async () => {
  await withServer(async (f) => {
    const body = JSON.stringify(INIT);
    const evil = await rawExchange(
      f.http.port,
      rawPost(f.http.port, { host: "evil.example.com" }, body),
    );
    assert.equal(statusOf(evil), 403);
    assert.match(
      evil,
      /Host \\"evil\.example\.com\\" is not one this MCP server answers to/,
    );
    for (
      const host of [
        `localhost:${f.http.port}`,
        `127.0.0.1:${f.http.port}`,
        `[::1]:${f.http.port}`,
      ]
    ) {
      const ok = await rawExchange(
        f.http.port,
        rawPost(f.http.port, { host }, body),
      );
      assert.equal(statusOf(ok), 200, host);
    }
    const portless = await rawExchange(
      f.http.port,
      rawPost(f.http.port, { host: "localhost" }, body),
    );
    assert.equal(statusOf(portless), 403);
  });
});

Deno.test("http: no token gets 401 with WWW-Authenticate: Bearer; a wrong token says invalid_token", async () => {
  await withServer(async (f) => {
    const none = await post(f.http.url, INIT, { authorization: "" });
    assert.equal(none.status, 401);
    assert.equal(
      none.headers.get("www-authenticate"),
      'Bearer realm="mcp", resource_metadata="https://mcp.bank.example/.well-known/oauth-protected-resource"',
    );
    assert.match(
      (await refusal(none)).message,
      /needs an Authorization: Bearer <token> header/,
    );
    const wrong = await post(f.http.url, INIT, {
      authorization: "Bearer tok-retail-0009",
    });
    assert.equal(wrong.status, 401);
    assert.match(
      wrong.headers.get("www-authenticate")!,
      /^Bearer realm="mcp", error="invalid_token"/,
    );
    await wrong.body?.cancel();
    // Every request is authenticated, not just initialize.
    const session = await openSession(f.http.url);
    const later = await post(f.http.url, {
      jsonrpc: "2.0",
      id: 2,
      method: "tools/list",
    }, {
      "mcp-session-id": session,
      authorization: "",
    });
    assert.equal((await refusal(later)).status, 401);
  }, {
    resourceMetadataUrl: "https://mcp.bank.example/.well-known/oauth-protected-resource",
  });
});

Deno.test("http: a session answers only the principal that opened it (403 for another's token)", async () => {
  await withServer(async (f) => {
    const session = await openSession(f.http.url, TOKENS.operator);
    const asRetail = {
      authorization: `Bearer ${TOKENS.retail}`,
      "mcp-session-id": session,
    };
    const r = await refusal(
      await post(
        f.http.url,
        { jsonrpc: "2.0", id: 2, method: "tools/list" },
        asRetail,
      ),
    );
    assert.deepEqual(r, {
      status: 403,
      code: -32600,
      message:
        "Forbidden: the MCP session in Mcp-Session-Id belongs to another principal than retail-agent",
    });
    const get = await fetch(f.http.url, {
      headers: { ...asRetail, accept: "text/event-stream" },
    });
    assert.equal((await refusal(get)).status, 403);
    const del = await fetch(f.http.url, {
      method: "DELETE",
      headers: asRetail,
    });
    assert.equal((await refusal(del)).status, 403);
    assert.equal(f.http.sessionCount, 1);
  });
});

Deno.test("http: a body over maxBodyBytes gets 413, and the server still answers", async () => {
  await withServer(async (f) => {
    const big = JSON.stringify({
      ...INIT,
      params: { ...INIT.params, pad: "x".repeat(5000) },
    });
    const r = await refusal(await post(f.http.url, big));
    assert.deepEqual(r, {
      status: 413,
      code: -32600,
      message: "Content Too Large: the request body exceeds 4096 bytes",
    });
    // Without Content-Length (chunked), counted as it arrives.
    const chunked = await fetch(f.http.url, {
      method: "POST",
      headers: {
        authorization: `Bearer ${TOKENS.operator}`,
        "content-type": "application/json",
        accept: ACCEPT_BOTH,
      },
      body: new Blob([big]).stream(),
    });
    assert.equal((await refusal(chunked)).status, 413);
    const ok = await post(f.http.url, INIT);
    assert.equal(ok.status, 200);
    await ok.body?.cancel();
  }, { maxBodyBytes: 4096 });
});

Deno.test("http: garbage gets 400: invalid JSON -32700, not JSON-RPC or a batch -32600", async () => {
  await withServer(async (f) => {
    const garbage = await refusal(
      await post(f.http.url, '{"jsonrpc": "2.0", "id": 1,'),
    );
    assert.equal(garbage.status, 400);
    assert.equal(garbage.code, -32700);
    const res = await post(f.http.url, "\u0000\u0001not json");
    assert.equal((await res.json()).id, null);
    for (
      const body of [42, { hello: "world" }, [INIT], [], {
        jsonrpc: "2.0",
        id: null,
        method: "x",
      }]
    ) {
      const r = await refusal(await post(f.http.url, body));
      assert.equal(r.status, 400, JSON.stringify(body));
      assert.equal(r.code, -32600, JSON.stringify(body));
    }
    const invalidUtf8 = await fetch(f.http.url, {
      method: "POST",
      headers: {
        authorization: `Bearer ${TOKENS.operator}`,
        "content-type": "application/json",
        accept: ACCEPT_BOTH,
      },
      body: new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]),
    });
    assert.equal(
      (await refusal(invalidUtf8)).message,
      "Bad Request: the body is not valid UTF-8",
    );
  });
});

Deno.test("http: wrong Accept 406, wrong Content-Type 415, other methods 405, other paths 404", async () => {
  await withServer(async (f) => {
    const jsonOnly = await refusal(
      await post(f.http.url, INIT, { accept: "application/json" }),
    );
    assert.equal(jsonOnly.status, 406);
    assert.equal(
      (await refusal(await post(f.http.url, INIT, { accept: "" }))).status,
      406,
    );
    const wildcard = await post(f.http.url, INIT, { accept: "*/*" });
    assert.equal(wildcard.status, 200);
    await wildcard.body?.cancel();
    const text = await refusal(
      await post(f.http.url, INIT, { "content-type": "text/plain" }),
    );
    assert.equal(text.status, 415);
    const session = await openSession(f.http.url);
    const get = await fetch(f.http.url, {
      headers: {
        authorization: `Bearer ${TOKENS.operator}`,
        accept: "application/json",
        "mcp-session-id": session,
      },
    });
    assert.equal((await refusal(get)).status, 406);
    const put = await fetch(f.http.url, {
      method: "PUT",
      headers: { authorization: `Bearer ${TOKENS.operator}` },
      body: "{}",
    });
    assert.equal(put.status, 405);
    assert.equal(put.headers.get("allow"), "GET, POST, DELETE");
    await put.body?.cancel();
    const elsewhere = await refusal(
      await post(f.http.url.replace("/mcp", "/sse"), INIT),
    );
    assert.equal(elsewhere.status, 404);
    assert.match(
      elsewhere.message,
      /\/sse is not the MCP endpoint; send MCP messages to \/mcp/,
    );
  });
});

Deno.test("http: a second GET stream replaces the first; DELETE ends the open stream", async () => {
  await withServer(async (f) => {
    const session = await openSession(f.http.url);
    const headers = {
      authorization: `Bearer ${TOKENS.operator}`,
      accept: "text/event-stream",
      "mcp-session-id": session,
    };
    const first = await fetch(f.http.url, { headers });
    assert.equal(first.status, 200);
    const second = await fetch(f.http.url, { headers });
    assert.equal(second.status, 200);
    assert.deepEqual(await readEvents(first), [], "the first stream ended");
    const del = await fetch(f.http.url, { method: "DELETE", headers });
    assert.equal(del.status, 204);
    assert.deepEqual(
      await readEvents(second),
      [],
      "the second ended with the session",
    );
  });
});

Deno.test("http: a stalled or half-closed request times out without holding up anyone else", async () => {
  await withServer(async (f) => {
    const head = (length: number) =>
      `POST /mcp HTTP/1.1\r\nhost: 127.0.0.1:${f.http.port}\r\n` +
      `authorization: Bearer ${TOKENS.operator}\r\ncontent-type: application/json\r\n` +
      `accept: ${ACCEPT_BOTH}\r\ncontent-length: ${length}\r\n\r\n`;
    const sockets: net.Socket[] = [];
    const exchange = (text: string, halfClose = false) =>
      new Promise<{ response: string; ms: number }>((resolve) => {
        const t0 = Date.now();
        const socket = net.connect(
          { port: f.http.port, host: "127.0.0.1", allowHalfOpen: true },
          () => {
            socket.write(text);
            if (halfClose) socket.end();
          },
        );
        sockets.push(socket);
        let response = "";
        socket.on("data", (d) => (response += d));
        socket.on("error", () => {});
        socket.on("end", () => socket.destroy()); // the server closed its side
        socket.on("close", () => resolve({ response, ms: Date.now() - t0 }));
      });
    try {
      const stalledBody = exchange(head(500) + '{"jsonrpc":"2.0",');
      const stalledHead = exchange(
        "POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-le",
      );
      const halfClosed = exchange(head(500) + '{"jsonrpc":', true);
      // Meanwhile the server answers others at once.
      const t0 = Date.now();
      const ok = await post(f.http.url, INIT);
      assert.equal(ok.status, 200);
      await ok.body?.cancel();
      assert.ok(
        Date.now() - t0 < 250,
        "answered before the stalled requests timed out",
      );

      const body = await stalledBody;
      assert.equal(statusOf(body.response), 408);
      assert.match(body.response, /did not arrive within 300 ms/);
      assert.ok(body.ms >= 250 && body.ms < 2000, `closed after ${body.ms} ms`);
      const headers = await stalledHead;
      assert.ok(
        headers.ms >= 250 && headers.ms < 2000,
        `dropped after ${headers.ms} ms`,
      );
      const half = await halfClosed;
      assert.ok(
        half.ms < 2000,
        `half-closed request ended after ${half.ms} ms`,
      );
      const after = await post(f.http.url, INIT);
      assert.equal(after.status, 200);
      await after.body?.cancel();
    } finally {
      for (const s of sockets) s.destroy();
    }
  }, { requestTimeoutMs: 300 });
});

/** A raw TCP connection to the server that collects what comes back until the server closes it. */
class RawConnection {
  received = "";
  closed = false;
  readonly done: Promise<void>;
  readonly #conn: Deno.Conn;

  private constructor(conn: Deno.Conn) {
    this.#conn = conn;
    this.done = (async () => {
      const buffer = new Uint8Array(4096);
      const text = new TextDecoder();
      try {
        for (;;) {
          const n = await conn.read(buffer);
          if (n === null) break;
          this.received += text.decode(buffer.subarray(0, n), { stream: true });
        }
      } catch { /* reset by the server */ }
      this.closed = true;
    })();
  }

  static async open(port: number): Promise<RawConnection> {
    return new RawConnection(
      await Deno.connect({ hostname: "127.0.0.1", port }),
    );
  }

  /** Sends text; false when the connection is already closed. */
  async send(text: string): Promise<boolean> {
    if (this.closed) return false;
    try {
      await this.#conn.write(new TextEncoder().encode(text));
      return true;
    } catch {
      return false;
    }
  }

  close(): void {
    try {
      this.#conn.close();
    } catch { /* already closed */ }
  }
}

/** Polls until `check` holds; fails naming `what` when it never does. */
async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 400 && !check(); i++) await delay(10);
  assert.ok(check(), `never happened: ${what}`);
}

Deno.test("http: a client sending its headers a byte at a time is cut off at headersTimeoutMs with 408, though never idle", async () => {
  await withServer(async (f) => {
    const conn = await RawConnection.open(f.http.port);
    const head = `POST /mcp HTTP/1.1\r\nhost: 127.0.0.1:${f.http.port}\r\n` +
      `x-slow: ${"a".repeat(300)}\r\n\r\n`;
    let sent = 0;
    try {
      // One byte every 20 ms: never idle for requestTimeoutMs, but slower than headersTimeoutMs.
      while (sent < head.length && await conn.send(head[sent])) {
        sent++;
        await delay(20);
      }
      await conn.done;
      assert.ok(
        sent < head.length,
        `the headers were all sent (${sent} bytes) before the cut`,
      );
      assert.equal(statusOf(conn.received), 408);
      assert.match(
        conn.received,
        /headers did not arrive within 200 ms \(headersTimeoutMs\)/,
      );
      const ok = await post(f.http.url, INIT);
      assert.equal(ok.status, 200);
      await ok.body?.cancel();
    } finally {
      conn.close();
    }
  }, { headersTimeoutMs: 200, requestTimeoutMs: 5_000 });
});

/** Opens `n` raw connections and waits until the server counts them. */
async function holdConnections(
  f: Fixture,
  n: number,
): Promise<RawConnection[]> {
  const held: RawConnection[] = [];
  for (let i = 0; i < n; i++) held.push(await RawConnection.open(f.http.port));
  await until(() => f.http.connectionCount === n, `${n} connections counted`);
  return held;
}

/** A complete request on a raw connection: the status of the answer (the server then closes). */
async function rawStatus(conn: RawConnection, port: number): Promise<number> {
  await conn.send(rawPost(port, {}, JSON.stringify(INIT)));
  await conn.done;
  return statusOf(conn.received);
}

Deno.test("http: connections past maxConnectionsPerAddress are refused at once with 503; the open ones still work", async () => {
  await withServer(async (f) => {
    const held = await holdConnections(f, 3);
    try {
      const excess = await RawConnection.open(f.http.port);
      held.push(excess);
      assert.equal(await rawStatus(excess, f.http.port), 503);
      assert.match(
        excess.received,
        /3 connections are open from 127\.0\.0\.1, the most one address may hold \(maxConnectionsPerAddress\)/,
      );
      assert.equal(
        f.http.connectionCount,
        3,
        "the refused connection was never counted",
      );
      assert.equal(
        await rawStatus(held[0], f.http.port),
        200,
        "an open connection still works",
      );
      await until(
        () => f.http.connectionCount === 2,
        "the closed connection uncounted",
      );
      const next = await RawConnection.open(f.http.port);
      held.push(next);
      assert.equal(await rawStatus(next, f.http.port), 200, "room again");
    } finally {
      for (const c of held) c.close();
    }
  }, { maxConnectionsPerAddress: 3, maxConnections: 100 });
});

Deno.test("http: connections past maxConnections are refused at once with 503; the open ones still work", async () => {
  await withServer(async (f) => {
    const held = await holdConnections(f, 3);
    try {
      const excess = await RawConnection.open(f.http.port);
      held.push(excess);
      assert.equal(await rawStatus(excess, f.http.port), 503);
      assert.match(
        excess.received,
        /this MCP server has 3 connections open, the most it holds \(maxConnections\)/,
      );
      assert.equal(
        await rawStatus(held[1], f.http.port),
        200,
        "an open connection still works",
      );
      await until(
        () => f.http.connectionCount === 2,
        "the closed connection uncounted",
      );
      const res = await post(f.http.url, INIT); // fetch gets in again
      assert.equal(res.status, 200);
      await res.body?.cancel();
    } finally {
      for (const c of held) c.close();
    }
  }, { maxConnections: 3, maxConnectionsPerAddress: 100 });
});

Deno.test("http: bytes that are not HTTP never crash the server", async () => {
  await withServer(async (f) => {
    const junk = [
      "\x00\x01\x02\x03garbage\r\n\r\n",
      "GET /mcp HTTP/9.9\r\n\r\n",
      "POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-length: -5\r\n\r\n",
      "POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\ntransfer-encoding: chunked\r\n\r\nzz\r\n",
    ];
    for (const text of junk) await rawExchange(f.http.port, text);
    const ok = await post(f.http.url, INIT);
    assert.equal(ok.status, 200);
    await ok.body?.cancel();
  }, { requestTimeoutMs: 300 });
});

Deno.test("http: close() ends open streams and sessions and resolves once the socket is closed", async () => {
  const f = await start();
  const errors: Error[] = [];
  const transport = new StreamableHttpClientTransport(f.http.url, {
    token: TOKENS.operator,
    maxReconnects: 1,
    reconnectDelayMs: 10,
    closeTimeoutMs: 200,
    onerror: (e) => errors.push(e),
  });
  const client = new McpClient(transport, { era: "handshake" });
  await client.connect();
  await delay(50);
  await f.close();
  assert.equal(f.http.sessionCount, 0);
  assert.equal(f.server.sessionCount, 0);
  await assert.rejects(fetch(f.http.url), TypeError);
  // The client's GET stream dropped; it retries (bounded) and gives up.
  await delay(200);
  assert.ok(
    errors.some((e) => /failed 2 times in a row; stopped listening/.test(e.message)),
    errors.map((e) => e.message).join("\n"),
  );
  await client.close();
  await f.close(); // idempotent
});

// ---------------------------------------------------------------------------------------------
// Configuration and helpers

Deno.test("serveHttp() refuses a non-loopback address without allowedHosts", async () => {
  const server = new McpServer({
    registry: estate(),
    handlerFor: () => undefined,
  });
  await assert.rejects(
    serveHttp(server, { hostname: "0.0.0.0", authenticate: () => RETAIL }),
    (e) =>
      e instanceof TypeError &&
      /0\.0\.0\.0 \(not a loopback address\) needs allowedHosts/.test(
        e.message,
      ),
  );
  server.close();
});

Deno.test("serveHttp() names the address when it cannot listen", async () => {
  await withServer(async (f) => {
    const other = new McpServer({
      registry: estate(),
      handlerFor: () => undefined,
    });
    await assert.rejects(
      serveHttp(other, { port: f.http.port, authenticate: () => RETAIL }),
      new RegExp(
        `serveHttp\\(\\): cannot listen on 127\\.0\\.0\\.1:${f.http.port}`,
      ),
    );
    other.close();
  });
});

Deno.test("bearerTokens() maps each token to its principal, without the token, and refuses clashes", async () => {
  const authenticate = bearerTokens([
    { ...RETAIL, token: "a" },
    { ...OPERATOR, token: "b" },
    { ...OPERATOR, id: "no-token" },
  ]);
  const as = async (authorization: string): Promise<Principal | undefined> =>
    await authenticate({
      method: "POST",
      path: "/mcp",
      headers: { authorization },
    });
  assert.deepEqual(await as("Bearer a"), RETAIL);
  assert.deepEqual(await as("bearer b"), OPERATOR);
  for (
    const h of ["Bearer c", "Bearer", "Basic a", "Bearer a b", "", "Bearer aa"]
  ) {
    assert.equal(await as(h), undefined, h);
  }
  assert.throws(
    () => bearerTokens([{ ...RETAIL, token: "x" }, { ...OPERATOR, token: "x" }]),
    /principals retail-agent and wholesale-operator share a token/,
  );
  assert.throws(
    () => bearerTokens([{ ...RETAIL, token: "" }]),
    /retail-agent has an empty token/,
  );
  assert.equal(bearerToken("Bearer  abc=="), "abc==");
});

Deno.test("bearerTokens() matches a stored tokenSha256 by the SHA-256 of the presented token; hashes must be well-formed and unique", async () => {
  // SHA-256("a"), from RFC 6234's tooling (sha256sum): not computed by the code under test.
  const A = "ca978112ca1bbdcafac231b39a23dc4da786eff8147c4e72b9807785afee48bb";
  assert.equal(tokenSha256("a"), A);
  const authenticate = bearerTokens([
    { ...RETAIL, tokenSha256: A.toUpperCase() },
    { ...OPERATOR, token: "b" },
  ]);
  const as = async (authorization: string): Promise<Principal | undefined> =>
    await authenticate({
      method: "POST",
      path: "/mcp",
      headers: { authorization },
    });
  assert.deepEqual(
    await as("Bearer a"),
    RETAIL,
    "the principal comes back without the hash",
  );
  assert.deepEqual(await as("Bearer b"), OPERATOR);
  for (const h of ["Bearer " + A, "Bearer A", "Bearer c", "Bearer aa"]) {
    assert.equal(await as(h), undefined, h);
  }
  assert.throws(
    () =>
      bearerTokens([{ ...RETAIL, tokenSha256: A }, {
        ...OPERATOR,
        token: "a",
      }]),
    /principals retail-agent and wholesale-operator share a token/,
  );
  assert.throws(
    () => bearerTokens([{ ...RETAIL, tokenSha256: "abc" }]),
    /retail-agent: tokenSha256 must be 64 hexadecimal digits/,
  );
  assert.throws(
    () => bearerTokens([{ ...RETAIL, tokenSha256: A, token: "a" }]),
    /retail-agent has both token and tokenSha256/,
  );
});

Deno.test("SseDecoder handles any chunking, CRLF/CR/LF line ends, comments and multi-line data", () => {
  const stream = ': hi\r\nevent: message\r\nid: 7\r\ndata: {"a":\r\ndata: 1}\r\n\r\n' +
    "retry: 1500\ndata: x\n\n:keep-alive\n\nevent: other\rdata: y\r\r";
  const expected = [
    { event: "message", data: '{"a":\n1}', id: "7" },
    { event: "message", data: "x", id: "7" },
    { event: "other", data: "y", id: "7" },
  ];
  for (let size = 1; size <= stream.length; size++) {
    const d = new SseDecoder();
    const events = [];
    for (let i = 0; i < stream.length; i += size) {
      events.push(...d.push(stream.slice(i, i + size)));
    }
    assert.deepEqual(events, expected, `chunks of ${size}`);
    assert.equal(d.retry, 1500);
  }
});
