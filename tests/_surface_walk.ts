/**
 * Connections for the surface-leak law: a raw client per principal, in either era (the
 * 2025-11-25 handshake with a session, or the stateless 2026-07-28), over either transport
 * (`serveStdio` on a pair of streams, or Streamable HTTP on 127.0.0.1 by `fetch`). Each records
 * every byte its principal receives — responses, notifications, HTTP status lines and headers,
 * SSE streams — with the names the request itself carried (an echo tells the client nothing).
 */
import { PassThrough } from "node:stream";
import { type McpServer, type Principal, STATELESS_META } from "../mod.ts";
import { serveStdio } from "../lib/mcp/transports/stdio.ts";
import type { McpHttpServer } from "../lib/mcp/transports/http_mod.ts";
import { SseDecoder } from "../lib/mcp/transports/_sse_parser.ts";

/** The two eras. */
export type Era = "2025-11-25" | "2026-07-28";
/** The two transports. */
export type Wire = "stdio" | "http";

/** One thing a principal received. */
export interface Received {
  /** What it answered, e.g. `tools/call payments.lookup`, or `stream` for notifications. */
  surface: string;
  /** Every byte, as text. */
  text: string;
  /** The names the request carried (tool, prompt, URI): the client sent them itself. */
  echoes: string[];
}

/** A principal's connection. */
export interface Connection {
  /** `retail-agent 2026-07-28 http`. */
  readonly label: string;
  /** Everything received so far. */
  readonly received: Received[];
  /** Sends a request and returns its JSON-RPC response. */
  request(
    method: string,
    params?: Record<string, unknown>,
  ): Promise<Record<string, unknown>>;
  /**
   * Opens the era's notification channel: the handshake era's GET stream (on stdio, the one
   * stream), or a `subscriptions/listen` for list changes and these resources.
   */
  listen(uris: string[]): Promise<void>;
  /** Ends the connection and its streams. */
  close(): Promise<void>;
}

const ENVELOPE = {
  [STATELESS_META.protocolVersion]: "2026-07-28",
  [STATELESS_META.clientCapabilities]: {},
  [STATELESS_META.logLevel]: "debug",
};

/** The names a request carries: `params.name`, `params.uri`, `params.ref.name`/`uri`. */
function echoesOf(params: Record<string, unknown>): string[] {
  const ref = (params.ref ?? {}) as Record<string, unknown>;
  return [params.name, params.uri, ref.name, ref.uri].filter((v): v is string =>
    typeof v === "string" && v !== ""
  );
}

function surfaceOf(method: string, params: Record<string, unknown>): string {
  const [name] = echoesOf(params);
  return name === undefined ? method : `${method} ${name}`;
}

function withEnvelope(
  era: Era,
  params: Record<string, unknown>,
): Record<string, unknown> {
  if (era === "2025-11-25") return params;
  return {
    ...params,
    _meta: { ...ENVELOPE, ...(params._meta as object ?? {}) },
  };
}

/** A connection over `serveStdio` on in-memory streams: the same code `estate serve --stdio` runs. */
export async function stdioConnection(
  server: McpServer,
  principal: Principal,
  era: Era,
): Promise<Connection> {
  const input = new PassThrough();
  const output = new PassThrough();
  const served = serveStdio(server, { principal, input, output });
  const received: Received[] = [];
  const pending = new Map<
    number,
    { surface: string; echoes: string[]; resolve: (m: never) => void }
  >();
  let buffer = "";
  output.on("data", (chunk: Uint8Array) => {
    buffer += new TextDecoder().decode(chunk);
    let nl: number;
    while ((nl = buffer.indexOf("\n")) !== -1) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      const message = JSON.parse(line);
      const waiting = message.method === undefined ? pending.get(message.id) : undefined;
      if (waiting) {
        pending.delete(message.id);
        received.push({
          surface: waiting.surface,
          text: line,
          echoes: waiting.echoes,
        });
        waiting.resolve(message as never);
      } else {
        received.push({ surface: "stream", text: line, echoes: [] });
      }
    }
  });
  let next = 1;
  const send = (message: unknown) => input.write(JSON.stringify(message) + "\n");
  const request = (method: string, params: Record<string, unknown> = {}) => {
    const id = next++;
    return new Promise<Record<string, unknown>>((resolve) => {
      pending.set(id, {
        surface: surfaceOf(method, params),
        echoes: echoesOf(params),
        resolve,
      });
      send({ jsonrpc: "2.0", id, method, params: withEnvelope(era, params) });
    });
  };
  if (era === "2025-11-25") {
    await request("initialize", {
      protocolVersion: era,
      capabilities: {},
      clientInfo: { name: "leak-law", version: "1" },
    });
    send({ jsonrpc: "2.0", method: "notifications/initialized" });
    await request("logging/setLevel", { level: "debug" });
  }
  return {
    label: `${principal.id} ${era} stdio`,
    received,
    request,
    listen: async (uris) => {
      if (era === "2025-11-25") {
        for (const uri of uris) await request("resources/subscribe", { uri });
      } else {
        // Answered only when the stream ends (stdin closes): not awaited.
        void request("subscriptions/listen", {
          notifications: {
            toolsListChanged: true,
            resourceSubscriptions: uris,
          },
        });
      }
    },
    close: async () => {
      input.end();
      await served;
    },
  };
}

function headerText(res: Response): string {
  return [
    `HTTP ${res.status}`,
    ...[...res.headers].map(([k, v]) => `${k}: ${v}`),
  ].join("\n");
}

/** Reads a streaming body into `into` as it arrives, until it ends or is aborted. */
async function drain(
  res: Response,
  into: Received,
  surface: string,
): Promise<void> {
  into.surface = surface;
  into.text = headerText(res) + "\n\n";
  const reader = res.body!.getReader();
  const text = new TextDecoder();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      into.text += text.decode(value, { stream: true });
    }
  } catch {
    // aborted
  }
}

/** A connection over Streamable HTTP with the principal's bearer token, by raw `fetch`. */
export async function httpConnection(
  http: McpHttpServer,
  principal: Principal,
  token: string,
  era: Era,
): Promise<Connection> {
  const received: Received[] = [];
  const streams: { controller: AbortController; done: Promise<void> }[] = [];
  let session: string | undefined;
  let next = 1;
  const headers = (
    method: string,
    params: Record<string, unknown>,
  ): Record<string, string> => {
    const h: Record<string, string> = {
      authorization: `Bearer ${token}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
    };
    if (era === "2026-07-28") {
      h["mcp-protocol-version"] = era;
      h["mcp-method"] = method;
      const name = params.name ?? params.uri;
      if (typeof name === "string") h["mcp-name"] = name;
    } else if (session !== undefined) {
      h["mcp-protocol-version"] = era;
      h["mcp-session-id"] = session;
    }
    return h;
  };
  const post = (body: Record<string, unknown>, signal?: AbortSignal) => {
    const params = (body.params ?? {}) as Record<string, unknown>;
    return fetch(http.url, {
      method: "POST",
      headers: headers(String(body.method), params),
      body: JSON.stringify({ ...body, params: withEnvelope(era, params) }),
      signal,
    });
  };
  const request = async (
    method: string,
    params: Record<string, unknown> = {},
  ) => {
    const id = next++;
    const res = await post({ jsonrpc: "2.0", id, method, params });
    const body = await res.text();
    received.push({
      surface: surfaceOf(method, params),
      text: `${headerText(res)}\n\n${body}`,
      echoes: echoesOf(params),
    });
    if (method === "initialize") {
      session = res.headers.get("mcp-session-id") ?? undefined;
    }
    if (
      !(res.headers.get("content-type") ?? "").includes("text/event-stream")
    ) {
      return JSON.parse(body);
    }
    const events = new SseDecoder().push(body + "\n\n").filter((e) => e.data !== "") // priming
      .map((e) => JSON.parse(e.data));
    return events.find((e) => e.id === id && e.method === undefined);
  };
  const stream = (
    open: (signal: AbortSignal) => Promise<Response>,
    surface: string,
  ) => {
    const controller = new AbortController();
    const into: Received = { surface, text: "", echoes: [] };
    received.push(into);
    const done = open(controller.signal).then(
      (res) => drain(res, into, surface),
      () => {},
    );
    streams.push({ controller, done });
  };
  if (era === "2025-11-25") {
    await request("initialize", {
      protocolVersion: era,
      capabilities: {},
      clientInfo: { name: "leak-law", version: "1" },
    });
    const initialized = await post({
      jsonrpc: "2.0",
      method: "notifications/initialized",
    });
    received.push({
      surface: "notifications/initialized",
      text: headerText(initialized),
      echoes: [],
    });
    await initialized.body?.cancel();
    await request("logging/setLevel", { level: "debug" });
  }
  return {
    label: `${principal.id} ${era} http`,
    received,
    request,
    listen: async (uris) => {
      if (era === "2025-11-25") {
        stream((signal) =>
          fetch(http.url, {
            method: "GET",
            headers: {
              authorization: `Bearer ${token}`,
              accept: "text/event-stream",
              "mcp-session-id": session!,
              "mcp-protocol-version": era,
            },
            signal,
          }), "GET stream");
        for (const uri of uris) await request("resources/subscribe", { uri });
      } else {
        stream((signal) =>
          post({
            jsonrpc: "2.0",
            id: next++,
            method: "subscriptions/listen",
            params: {
              notifications: {
                toolsListChanged: true,
                resourceSubscriptions: uris,
              },
            },
          }, signal), "subscriptions/listen stream");
      }
      await new Promise((r) => setTimeout(r, 50));
    },
    close: async () => {
      for (const s of streams) s.controller.abort();
      await Promise.all(streams.map((s) => s.done));
      if (session !== undefined) {
        const res = await fetch(http.url, {
          method: "DELETE",
          headers: {
            authorization: `Bearer ${token}`,
            "mcp-session-id": session,
          },
        });
        await res.body?.cancel();
      }
    },
  };
}
