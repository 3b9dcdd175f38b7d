/**
 * The MCP client: one per connection (host, client, server). It does the handshake, caches
 * `tools/list` (walking every page) until the server says the list changed, and returns typed call
 * outcomes that separate tool errors, rejected arguments and protocol errors — what a host needs
 * to run the repair loop.
 *
 * @module
 */
import { validateEnvelope } from "../jsonrpc/envelope.ts";
import { makeNotification, makeRequest } from "../jsonrpc/messages.ts";
import type { JsonRpcId, JsonRpcParams } from "../jsonrpc/types.ts";
import { META_VERSION_KEY } from "../estate/spec.ts";
import type { SchemaIssue } from "../schema/types.ts";
import {
  type CallToolResult,
  type Implementation,
  LATEST_LEGACY_PROTOCOL_VERSION,
  LEGACY_PROTOCOL_VERSIONS,
  type ListedTool,
  type Prompt,
  type PromptMessage,
  type Resource,
  type ResourceContents,
} from "./protocol.ts";
import type { Transport } from "./transport.ts";

/** A JSON-RPC error the server answered with. */
export class McpProtocolError extends Error {
  /** The JSON-RPC error code. */
  readonly code: number;
  /** The error's data, if any. */
  readonly data: unknown;

  /**
   * Makes the error from the wire error.
   *
   * @param code The code.
   * @param message The message.
   * @param data The data.
   */
  constructor(code: number, message: string, data?: unknown) {
    super(message);
    this.name = "McpProtocolError";
    this.code = code;
    this.data = data;
  }
}

/** How a `tools/call` ended, as a host's repair loop needs to know it. */
export type CallOutcome =
  | { kind: "ok"; result: CallToolResult }
  /** The tool ran and failed: an observation for the model. */
  | { kind: "tool-error"; result: CallToolResult; message: string }
  /** The arguments were rejected before the tool ran, with every issue, sorted. */
  | { kind: "invalid-arguments"; issues: SchemaIssue[]; via: "protocol-error" | "tool-result" }
  /** Any other JSON-RPC error (unknown tool, bad params, internal error). */
  | { kind: "protocol-error"; code: number; message: string; data?: unknown };

/** Options for an {@linkcode McpClient}. */
export interface McpClientOptions {
  /** This client's `clientInfo`. */
  clientInfo?: Implementation;
  /** The revision to ask for. Default the newest handshake-era one. */
  protocolVersion?: string;
  /** Capabilities to declare. Default none. */
  capabilities?: Record<string, unknown>;
  /** How long a request may take. Default 30 s. */
  requestTimeoutMs?: number;
  /** The most pages a list is walked before giving up. Default 64. */
  maxPages?: number;
}

/** Options for one request. */
export interface RequestOptions {
  /** Cancels the request (the server is sent `notifications/cancelled`). */
  signal?: AbortSignal;
  /** Receives progress notifications (a progress token is sent). */
  onProgress?: (progress: { progress: number; total?: number; message?: string }) => void;
  /** Overrides the client's request timeout. */
  timeoutMs?: number;
  /** Extra `_meta` for the request. */
  meta?: Record<string, unknown>;
}

/** The server's answer to `initialize`. */
export interface InitializeResult {
  /** The negotiated revision. */
  protocolVersion: string;
  /** What the server offers. */
  capabilities: Record<string, unknown>;
  /** Who the server says it is. */
  serverInfo: Implementation;
  /** Instructions for the model. */
  instructions?: string;
}

interface Pending {
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
  timer: ReturnType<typeof setTimeout>;
  cleanup: () => void;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function looksLikeIssues(v: unknown): v is SchemaIssue[] {
  return Array.isArray(v) &&
    v.every((i) => isRecord(i) && typeof i.path === "string" && typeof i.keyword === "string");
}

/**
 * A client for one MCP server connection.
 *
 * @example
 * ```ts
 * import { createLinkedTransports, McpClient, McpServer, serveTransport, ToolRegistry } from "@tool-estate/core";
 * import assert from "node:assert/strict";
 *
 * const registry = new ToolRegistry();
 * registry.publish({
 *   name: "fx.quote", version: "1.0.0", title: "FX quote", description: "Quotes a rate from the pricing engine.",
 *   inputSchema: { type: "object", properties: { pair: { type: "string" } }, required: ["pair"] },
 *   sideEffect: "read", requiredScopes: [], dataClassification: "internal", tenants: [], owner: "treasury",
 * });
 * const server = new McpServer({ registry, handlerFor: () => ({ pair }) => ({ pair, rate: 1.17 }) });
 * const [near, far] = createLinkedTransports();
 * serveTransport(server, far, { id: "desk", scopes: [], tenant: "group", clearance: "internal" });
 * const client = new McpClient(near);
 * await client.connect();
 * assert.deepEqual((await client.listTools()).map((t) => t.name), ["fx.quote"]);
 * const bad = await client.callTool("fx.quote", {});
 * assert.equal(bad.kind, "invalid-arguments");
 * const ok = await client.callTool("fx.quote", { pair: "EURUSD" });
 * assert.equal(ok.kind, "ok");
 * await client.close();
 * ```
 */
export class McpClient {
  readonly #transport: Transport;
  readonly #options: McpClientOptions;
  readonly #pending = new Map<JsonRpcId, Pending>();
  readonly #progress = new Map<string | number, NonNullable<RequestOptions["onProgress"]>>();
  #nextId = 1;
  #closed = false;
  #init: InitializeResult | undefined;
  #tools: ListedTool[] | undefined;
  #listing: Promise<ListedTool[]> | undefined;
  #listCount = 0;
  #listeners = new Set<() => void>();

  /**
   * Makes a client on a transport (not yet connected).
   *
   * @param transport The connection.
   * @param options Client info, revision, timeouts, page cap.
   */
  constructor(transport: Transport, options: McpClientOptions = {}) {
    this.#transport = transport;
    this.#options = options;
    transport.onmessage = (m) => this.#receive(m);
    transport.onclose = () => this.#fail(new Error("the connection closed"));
  }

  /**
   * Does the handshake: `initialize`, then `notifications/initialized`.
   *
   * @returns The server's answer.
   * @throws {McpProtocolError} When the server refuses.
   * @throws {Error} When the server answers with a revision this client does not speak.
   */
  async connect(): Promise<InitializeResult> {
    const result = await this.request("initialize", {
      protocolVersion: this.#options.protocolVersion ?? LATEST_LEGACY_PROTOCOL_VERSION,
      capabilities: this.#options.capabilities ?? {},
      clientInfo: this.#options.clientInfo ?? { name: "tool-estate-client", version: "0.1.0" },
    }) as InitializeResult;
    if (!LEGACY_PROTOCOL_VERSIONS.includes(result.protocolVersion)) {
      await this.close();
      throw new Error(
        `the server offered protocol ${result.protocolVersion}, which this client does not speak`,
      );
    }
    this.#init = result;
    await this.notify("notifications/initialized");
    return result;
  }

  /** The server's `initialize` answer, once connected. */
  get server(): InitializeResult | undefined {
    return this.#init;
  }

  /** How many times the tool list was fetched from the server (each a walk of every page). */
  get listCount(): number {
    return this.#listCount;
  }

  /**
   * Subscribes to the server's `notifications/tools/list_changed` (after the cache is dropped).
   *
   * @param listener Called on each notification.
   * @returns A function that unsubscribes.
   */
  onToolsChanged(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * Sends a request and waits for its response.
   *
   * @param method The method.
   * @param params Its params.
   * @param options Cancellation, progress, timeout, `_meta`.
   * @returns The result.
   * @throws {McpProtocolError} For a JSON-RPC error response.
   * @throws {Error} On timeout, cancellation or a closed connection.
   */
  request(
    method: string,
    params: Record<string, unknown> = {},
    options: RequestOptions = {},
  ): Promise<unknown> {
    if (this.#closed) return Promise.reject(new Error("the client is closed"));
    const id = this.#nextId++;
    const meta: Record<string, unknown> = {
      ...(isRecord(params._meta) ? params._meta : {}),
      ...options.meta,
    };
    if (options.onProgress) {
      meta.progressToken = id;
      this.#progress.set(id, options.onProgress);
    }
    const body = Object.keys(meta).length ? { ...params, _meta: meta } : params;
    return new Promise((resolve, reject) => {
      const onAbort = (): void => {
        this.notify("notifications/cancelled", {
          requestId: id,
          reason: String(options.signal?.reason ?? "cancelled"),
        })
          .catch(() => {});
        settle(() => reject(new Error(`request ${method} was cancelled`)));
      };
      const cleanup = (): void => {
        clearTimeout(timer);
        this.#pending.delete(id);
        this.#progress.delete(id);
        options.signal?.removeEventListener("abort", onAbort);
      };
      const settle = (f: () => void): void => {
        cleanup();
        f();
      };
      const timeout = options.timeoutMs ?? this.#options.requestTimeoutMs ?? 30_000;
      const timer = setTimeout(
        () => settle(() => reject(new Error(`request ${method} timed out after ${timeout} ms`))),
        timeout,
      );
      if (options.signal?.aborted) {
        clearTimeout(timer);
        reject(new Error(`request ${method} was cancelled`));
        return;
      }
      options.signal?.addEventListener("abort", onAbort, { once: true });
      this.#pending.set(id, { resolve, reject, timer, cleanup });
      this.#transport.send(makeRequest(id, method, body as JsonRpcParams)).catch((e) =>
        settle(() => reject(e instanceof Error ? e : new Error(String(e))))
      );
    });
  }

  /**
   * Sends a notification.
   *
   * @param method The method.
   * @param params Its params.
   */
  notify(method: string, params?: Record<string, unknown>): Promise<void> {
    return this.#transport.send(makeNotification(method, params));
  }

  /**
   * The server's tools, from the cache when it is fresh; otherwise every page of `tools/list`.
   *
   * @returns The tools.
   * @throws {Error} When the server's pages do not end within the page cap.
   */
  listTools(): Promise<ListedTool[]> {
    if (this.#tools) return Promise.resolve(this.#tools);
    if (!this.#listing) {
      const listing = this.#listAll<ListedTool>("tools/list", "tools").then((tools) => {
        // Keep it only if no list_changed arrived meanwhile.
        if (this.#listing === listing) this.#tools = tools;
        return tools;
      }).finally(() => {
        if (this.#listing === listing) this.#listing = undefined;
      });
      this.#listing = listing;
      this.#listCount++;
    }
    return this.#listing;
  }

  async #listAll<T>(method: string, key: string): Promise<T[]> {
    const out: T[] = [];
    let cursor: string | undefined;
    const max = this.#options.maxPages ?? 64;
    for (let page = 0; page < max; page++) {
      const result = await this.request(method, cursor === undefined ? {} : { cursor }) as Record<
        string,
        unknown
      >;
      const items = result[key];
      if (!Array.isArray(items)) throw new Error(`${method} returned no ${key} list`);
      out.push(...items as T[]);
      if (typeof result.nextCursor !== "string") return out;
      cursor = result.nextCursor; // "" is a cursor, not the end
    }
    throw new Error(`${method} did not end within ${max} pages`);
  }

  /**
   * Calls a tool and classifies the outcome.
   *
   * @param name The tool.
   * @param args Its arguments.
   * @param options A version constraint to pin (sent under our `_meta` key), and request options.
   * @returns The outcome: ok, a tool error, rejected arguments (with every issue), or a protocol error.
   */
  async callTool(
    name: string,
    args: Record<string, unknown> = {},
    options: RequestOptions & { version?: string } = {},
  ): Promise<CallOutcome> {
    const meta = { ...options.meta };
    if (options.version !== undefined) meta[META_VERSION_KEY] = options.version;
    let result: CallToolResult;
    try {
      result = await this.request("tools/call", { name, arguments: args }, {
        ...options,
        meta,
      }) as CallToolResult;
    } catch (e) {
      if (!(e instanceof McpProtocolError)) throw e;
      const issues = isRecord(e.data) ? e.data.issues : undefined;
      if (e.code === -32602 && looksLikeIssues(issues)) {
        return { kind: "invalid-arguments", issues, via: "protocol-error" };
      }
      return { kind: "protocol-error", code: e.code, message: e.message, data: e.data };
    }
    if (result.isError) {
      const structured = isRecord(result.structuredContent)
        ? result.structuredContent.issues
        : undefined;
      if (looksLikeIssues(structured)) {
        return { kind: "invalid-arguments", issues: structured, via: "tool-result" };
      }
      const text = (result.content ?? []).filter((c) => c.type === "text").map((c) =>
        (c as { text: string }).text
      ).join("\n");
      return { kind: "tool-error", result, message: text };
    }
    return { kind: "ok", result };
  }

  /**
   * Every resource (all pages).
   *
   * @returns The resources.
   */
  listResources(): Promise<Resource[]> {
    return this.#listAll<Resource>("resources/list", "resources");
  }

  /**
   * Reads a resource.
   *
   * @param uri Its URI.
   * @returns Its contents.
   * @throws {McpProtocolError} With code -32002 (or -32602 from 2026 servers) when it does not exist.
   */
  async readResource(uri: string): Promise<ResourceContents[]> {
    const result = await this.request("resources/read", { uri }) as {
      contents: ResourceContents[];
    };
    return result.contents;
  }

  /**
   * Every prompt (all pages).
   *
   * @returns The prompts.
   */
  listPrompts(): Promise<Prompt[]> {
    return this.#listAll<Prompt>("prompts/list", "prompts");
  }

  /**
   * Gets a prompt.
   *
   * @param name The prompt.
   * @param args Its arguments.
   * @returns Its messages.
   */
  async getPrompt(
    name: string,
    args: Record<string, string> = {},
  ): Promise<{ description?: string; messages: PromptMessage[] }> {
    return await this.request("prompts/get", { name, arguments: args }) as {
      description?: string;
      messages: PromptMessage[];
    };
  }

  /** Closes the connection; pending requests fail. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#fail(new Error("the client is closed"));
    await this.#transport.close();
  }

  #fail(error: Error): void {
    this.#closed = true;
    for (const p of [...this.#pending.values()]) {
      p.cleanup();
      p.reject(error);
    }
  }

  #receive(message: unknown): void {
    let classified;
    try {
      classified = validateEnvelope(message);
    } catch {
      return; // not a JSON-RPC message: nothing to answer on the client side
    }
    if (classified.kind === "response") {
      const m = classified.message;
      const p = m.id === null ? undefined : this.#pending.get(m.id);
      if (!p) return; // late, cancelled or unknown: ignored
      p.cleanup();
      if ("error" in m) p.reject(new McpProtocolError(m.error.code, m.error.message, m.error.data));
      else p.resolve(m.result);
      return;
    }
    if (classified.kind === "request") {
      // No server-to-client requests are supported (no sampling, elicitation or roots): say so.
      this.#transport.send({
        jsonrpc: "2.0",
        id: classified.message.id,
        error: { code: -32601, message: `Method not found: ${classified.message.method}` },
      }).catch(() => {});
      return;
    }
    const n = classified.message;
    const params = isRecord(n.params) ? n.params : {};
    if (n.method === "notifications/tools/list_changed") {
      this.#tools = undefined;
      this.#listing = undefined;
      for (const l of [...this.#listeners]) l();
    } else if (n.method === "notifications/progress") {
      const cb = this.#progress.get(params.progressToken as string | number);
      if (cb && typeof params.progress === "number") {
        cb({
          progress: params.progress,
          total: typeof params.total === "number" ? params.total : undefined,
          message: typeof params.message === "string" ? params.message : undefined,
        });
      }
    }
  }
}
