/**
 * Raw HTTP to an MCP server, for tests that watch the wire: POSTs with a bearer token, a
 * 2026-07-28 `subscriptions/listen` stream, and the messages of an SSE response as they arrive.
 */
import assert from "node:assert/strict";
import { STATELESS_META } from "../mod.ts";
import { SseDecoder } from "../lib/mcp/transports/_sse_parser.ts";

const ACCEPT = "application/json, text/event-stream";

/** The stateless revision. */
export const MODERN = "2026-07-28";

/** The `_meta` every 2026-07-28 request carries. */
export const ENVELOPE: Record<string, unknown> = {
  [STATELESS_META.protocolVersion]: MODERN,
  [STATELESS_META.clientCapabilities]: {},
};

/** A JSON-RPC POST with a bearer token (and more headers). */
export function post(
  url: URL,
  body: unknown,
  token: string,
  headers: Record<string, string> = {},
): Promise<Response> {
  return fetch(url, {
    method: "POST",
    headers: {
      authorization: `Bearer ${token}`,
      "content-type": "application/json",
      accept: ACCEPT,
      ...headers,
    },
    body: JSON.stringify(body),
  });
}

/**
 * Opens a handshake-era session with a bearer token: `initialize` (200, with the client's
 * `capabilities`), then `notifications/initialized` (202); returns the session's id.
 */
export async function openSession(
  url: URL,
  token: string,
  capabilities: Record<string, unknown> = {},
): Promise<string> {
  const init = await post(url, {
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: {
      protocolVersion: "2025-11-25",
      capabilities,
      clientInfo: { name: "t", version: "1" },
    },
  }, token);
  assert.equal(init.status, 200);
  await init.body?.cancel();
  const id = init.headers.get("mcp-session-id")!;
  const ack = await post(url, { jsonrpc: "2.0", method: "notifications/initialized" }, token, {
    "mcp-session-id": id,
  });
  assert.equal(ack.status, 202);
  await ack.body?.cancel();
  return id;
}

/** The messages of an SSE response as they arrive, and whether it ended. */
export class Events {
  readonly messages: { method?: string; params?: Record<string, unknown> }[] = [];
  ended = false;
  readonly #reader: ReadableStreamDefaultReader<Uint8Array>;

  constructor(res: Response) {
    assert.equal(res.status, 200);
    const reader = res.body!.getReader();
    this.#reader = reader;
    const decoder = new SseDecoder();
    const text = new TextDecoder();
    (async () => {
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          for (const e of decoder.push(text.decode(value, { stream: true }))) {
            if (e.data !== "") this.messages.push(JSON.parse(e.data)); // "": a priming event
          }
        }
      } catch { /* cancelled */ }
      this.ended = true;
    })();
  }

  methods(): (string | undefined)[] {
    return this.messages.map((m) => m.method);
  }

  async close(): Promise<void> {
    await this.#reader.cancel().catch(() => {});
  }
}

/** A 2026-07-28 `subscriptions/listen` stream for tool list changes, as `token`. */
export async function listen(
  url: URL,
  token: string,
  id: string,
): Promise<Events> {
  const res = await post(
    url,
    {
      jsonrpc: "2.0",
      id,
      method: "subscriptions/listen",
      params: { notifications: { toolsListChanged: true }, _meta: ENVELOPE },
    },
    token,
    { "mcp-protocol-version": MODERN, "mcp-method": "subscriptions/listen" },
  );
  return new Events(res);
}
