/**
 * The MCP client: one per connection (host, client, server). It is dual-era: it first asks
 * `server/discover` (the stateless 2026-07-28 revision) and falls back to the `initialize`
 * handshake when the server does not answer as a modern one. It caches `tools/list` (walking
 * every page) until the server says the list changed or, in the modern era, until its `ttlMs`
 * runs out, and returns typed call outcomes that separate tool errors, rejected arguments and
 * protocol errors — what a host needs to run the repair loop.
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
import { META, MODERN_VERSIONS, verdictFromError } from "./_client_era.ts";
import { ERROR_CODES, MCP_ERROR_CODES } from "../jsonrpc/errors.ts";
import {
  type CacheScope,
  foldFreshness,
  type Freshness,
  listCacheKey,
  type ListCacheStore,
} from "./list_cache.ts";

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

/** A resource the server does not have: `-32002` (handshake era) or `-32602` (2026-07-28). */
export class ResourceNotFoundError extends McpProtocolError {
  /** The URI asked for. */
  readonly uri: string;

  /**
   * Makes the error from the server's error.
   *
   * @param uri The URI asked for.
   * @param code The code the server used (-32002 or -32602).
   * @param message The server's message.
   * @param data The error's data.
   */
  constructor(uri: string, code: number, message: string, data?: unknown) {
    super(code, message, data);
    this.name = "ResourceNotFoundError";
    this.uri = uri;
  }
}

/** A result whose `resultType` this client cannot use (`input_required`, or an unknown one). */
export class UnsupportedResultError extends Error {
  /** The `resultType` the server sent. */
  readonly resultType: unknown;

  /**
   * Makes the error.
   *
   * @param method The request's method.
   * @param resultType The `resultType` the server sent.
   */
  constructor(method: string, resultType: unknown) {
    super(
      resultType === "input_required"
        ? `${method}: the server asked for input (resultType "input_required"), which this client does not provide`
        : `${method}: the server answered with resultType ${
          JSON.stringify(resultType)
        }, which is not a known result type`,
    );
    this.name = "UnsupportedResultError";
    this.resultType = resultType;
  }
}

/** Which generation of MCP a connection speaks: the `initialize` handshake, or stateless 2026-07-28. */
export type McpClientEra = "legacy" | "modern";

/** What `subscriptions/listen` asks the server to send (2026-07-28). */
export interface ListenFilter {
  /** `notifications/tools/list_changed`. */
  toolsListChanged?: boolean;
  /** `notifications/prompts/list_changed`. */
  promptsListChanged?: boolean;
  /** `notifications/resources/list_changed`. */
  resourcesListChanged?: boolean;
  /** `notifications/resources/updated` for these URIs. */
  resourceSubscriptions?: string[];
}

/** An open `subscriptions/listen` stream. */
export interface Subscription {
  /** The subscription id (the listen request's JSON-RPC id). */
  readonly id: JsonRpcId;
  /** What the server acknowledged (the acknowledgement's params, without `_meta`). */
  readonly acknowledged: Record<string, unknown>;
  /** Settles when the subscription ends (the server ended it, it was closed, or the connection). */
  readonly closed: Promise<void>;
  /** Ends the subscription (cancels the listen request). */
  close(): Promise<void>;
}

/** How a `tools/call` ended, as a host's repair loop needs to know it. */
export type CallOutcome =
  | { kind: "ok"; result: CallToolResult }
  /** The tool ran and failed: an observation for the model. */
  | { kind: "tool-error"; result: CallToolResult; message: string }
  /**
   * The arguments were rejected before the tool ran, with the issues sorted — every one, or (from
   * a server that limits its answers, as this library's does) the first ones and in `omitted` how
   * many more there are.
   */
  | {
    kind: "invalid-arguments";
    issues: SchemaIssue[];
    via: "protocol-error" | "tool-result";
    /** How many issues the server left out of its answer; 0 when none (absent: not told). */
    omitted?: number;
  }
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
  /**
   * Which era to speak. `"auto"` asks `server/discover` first and falls back to `initialize` on
   * any error that is not a recognized 2026-07-28 one, or on a timeout (the default); `"legacy"`
   * only does the handshake; `"modern"` only speaks 2026-07-28 (fails otherwise).
   */
  era?: "auto" | McpClientEra;
  /** How long `server/discover` may take before the server counts as handshake-era. Default 3 s. */
  discoverTimeoutMs?: number;
  /**
   * The authorization context this client's requests run in (e.g. the principal's id): private
   * cached results are shared only with clients of the same partition. Without it, private
   * results stay in this client.
   */
  cachePartition?: string;
  /** A store shared by the clients of one host for cached list results (modern era). */
  cacheStore?: ListCacheStore;
  /** The server's identity within the shared store. Default its `serverInfo` name and version. */
  cacheKey?: string;
  /** The clock, in milliseconds (for tests). Default `Date.now`. */
  now?: () => number;
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

interface Listening {
  acknowledge: (params: Record<string, unknown>) => void;
  end: () => void;
}

interface Pending {
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
  timer: ReturnType<typeof setTimeout> | undefined;
  cleanup: () => void;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Accepts a result whose `resultType` is missing or `"complete"`; throws otherwise. */
function checkResultType(method: string, result: Record<string, unknown>): void {
  const t = result.resultType;
  if (t !== undefined && t !== "complete") throw new UnsupportedResultError(method, t);
}

/** The `omitted` count an invalid-arguments answer carries beside its issues; 0 when absent. */
function omittedOf(data: Record<string, unknown>): number {
  const n = data.omitted;
  return typeof n === "number" && Number.isSafeInteger(n) && n > 0 ? n : 0;
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
  #era: McpClientEra | undefined;
  #modernVersion: string | undefined;
  #tools: ListedTool[] | undefined;
  #toolsFresh: { expiresAt: number; scope: CacheScope } | undefined;
  #listing: Promise<ListedTool[]> | undefined;
  #listCount = 0;
  #listeners = new Set<() => void>();
  readonly #subscriptions = new Map<JsonRpcId, Listening>();
  #autoListen: Promise<Subscription | undefined> | undefined;

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
   * Connects. With `era: "legacy"` it does `initialize` then
   * `notifications/initialized`. With `era: "auto"` (the default) it first sends
   * `server/discover` under the 2026-07-28 envelope: a discover result means modern; an
   * unsupported-version error naming a modern version this client speaks means modern at that
   * version; any other error, or no answer within `discoverTimeoutMs`, means a handshake-era
   * server, and it does `initialize` then `notifications/initialized`.
   *
   * @returns The server's answer (for a modern server, its discover result in the same shape).
   * @throws {McpProtocolError} When the server refuses.
   * @throws {Error} When the server speaks no revision this client does (or, with
   *   `era: "modern"`, is not modern).
   */
  async connect(): Promise<InitializeResult> {
    const era = this.#options.era ?? "auto";
    if (era !== "legacy") {
      const modern = await this.#discover(era === "modern");
      if (modern) return modern;
    }
    return await this.#initialize();
  }

  async #initialize(): Promise<InitializeResult> {
    const result = await this.request("initialize", {
      protocolVersion: this.#options.protocolVersion ?? LATEST_LEGACY_PROTOCOL_VERSION,
      capabilities: this.#options.capabilities ?? {},
      clientInfo: this.#clientInfo(),
    }) as InitializeResult;
    if (!LEGACY_PROTOCOL_VERSIONS.includes(result.protocolVersion)) {
      await this.close();
      throw new Error(
        `the server offered protocol ${result.protocolVersion}, which this client does not speak`,
      );
    }
    this.#init = result;
    this.#era = "legacy";
    await this.notify("notifications/initialized");
    return result;
  }

  /** Tries the modern era; undefined means "fall back to the handshake". */
  async #discover(required: boolean): Promise<InitializeResult | undefined> {
    const asked = this.#options.protocolVersion;
    let version = asked !== undefined && MODERN_VERSIONS.includes(asked)
      ? asked
      : MODERN_VERSIONS[0];
    const timeoutMs = this.#options.discoverTimeoutMs ?? 3000;
    for (let attempt = 0; attempt < MODERN_VERSIONS.length + 1; attempt++) {
      let result: unknown;
      try {
        result = await this.request("server/discover", {}, {
          timeoutMs,
          meta: this.#envelope(version),
        });
      } catch (e) {
        if (this.#closed) throw e;
        const verdict = e instanceof McpProtocolError
          ? verdictFromError(e.code, e.data, { asked: version, legacy: LEGACY_PROTOCOL_VERSIONS })
          : { kind: "legacy" as const };
        if (verdict.kind === "retry") {
          version = verdict.version;
          continue;
        }
        if (
          e instanceof McpProtocolError &&
          e.code === MCP_ERROR_CODES.MISSING_REQUIRED_CLIENT_CAPABILITY
        ) throw e; // a modern server that needs more than this client declared
        if (required || verdict.kind === "no-common-version") {
          throw new Error(
            `server/discover: the server is not a 2026-07-28 server this client can speak (${
              e instanceof Error ? e.message : String(e)
            })`,
            { cause: e },
          );
        }
        return undefined;
      }
      const r = isRecord(result) ? result : {};
      checkResultType("server/discover", r);
      const meta = isRecord(r._meta) ? r._meta : {};
      const rawInfo = isRecord(meta[META.serverInfo]) ? meta[META.serverInfo] : r.serverInfo;
      const info: Implementation = isRecord(rawInfo) && typeof rawInfo.name === "string"
        ? rawInfo as unknown as Implementation
        : { name: "unknown", version: "" };
      const discovered: InitializeResult = {
        protocolVersion: version,
        capabilities: isRecord(r.capabilities) ? r.capabilities : {},
        serverInfo: info,
        ...(typeof r.instructions === "string" ? { instructions: r.instructions } : {}),
      };
      this.#init = discovered;
      this.#era = "modern";
      this.#modernVersion = version;
      return discovered;
    }
    throw new Error("server/discover: the server kept refusing every version this client speaks");
  }

  #clientInfo(): Implementation {
    return this.#options.clientInfo ?? { name: "tool-estate-client", version: "0.1.0" };
  }

  #envelope(version: string): Record<string, unknown> {
    return {
      [META.protocolVersion]: version,
      [META.clientCapabilities]: this.#options.capabilities ?? {},
      [META.clientInfo]: this.#clientInfo(),
    };
  }

  /** The server's `initialize` answer (or discover result), once connected. */
  get server(): InitializeResult | undefined {
    return this.#init;
  }

  /** The era the connection speaks, once connected. */
  get era(): McpClientEra | undefined {
    return this.#era;
  }

  /** The negotiated revision, once connected (e.g. `2025-11-25` or `2026-07-28`). */
  get protocolVersion(): string | undefined {
    return this.#init?.protocolVersion;
  }

  /** How many times the tool list was fetched from the server (each a walk of every page). */
  get listCount(): number {
    return this.#listCount;
  }

  /**
   * Subscribes to the server's `notifications/tools/list_changed` (after the cache is dropped).
   * In the modern era, when the server declares `tools.listChanged`, the first listener also
   * opens a `subscriptions/listen` stream for it (once per client, and not when
   * {@linkcode McpClient.listen} already asked for it), since that is the only way the
   * notification arrives there.
   *
   * @param listener Called on each notification.
   * @returns A function that unsubscribes.
   */
  onToolsChanged(listener: () => void): () => void {
    this.#listeners.add(listener);
    const tools = this.#init?.capabilities.tools;
    if (
      this.#era === "modern" && !this.#autoListen && isRecord(tools) && tools.listChanged === true
    ) {
      this.#autoListen = this.#listen({ toolsListChanged: true }).catch(
        () => undefined, // the TTL still bounds staleness
      );
    }
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
    return this.#call(method, params, options);
  }

  #call(
    method: string,
    params: Record<string, unknown>,
    options: RequestOptions,
    onId?: (id: JsonRpcId) => void,
  ): Promise<unknown> {
    if (this.#closed) return Promise.reject(new Error("the client is closed"));
    const id = this.#nextId++;
    onId?.(id);
    const meta: Record<string, unknown> = {
      ...(isRecord(params._meta) ? params._meta : {}),
      ...options.meta,
      // In the modern era every request carries the envelope (it wins over caller `_meta`).
      ...(this.#modernVersion === undefined ? {} : this.#envelope(this.#modernVersion)),
    };
    if (options.onProgress) {
      meta.progressToken = id;
      this.#progress.set(id, options.onProgress);
    }
    const body = Object.keys(meta).length ? { ...params, _meta: meta } : params;
    return new Promise((resolve, reject) => {
      const onAbort = (): void => {
        // A transport that cancels by itself (closing an HTTP stream) needs no notification.
        if (!this.#transport.cancel?.(id)) {
          this.notify("notifications/cancelled", {
            requestId: id,
            reason: String(options.signal?.reason ?? "cancelled"),
          })
            .catch(() => {});
        }
        settle(() => reject(new Error(`request ${method} was cancelled`)));
      };
      const cleanup = (): void => {
        if (timer !== undefined) clearTimeout(timer);
        this.#pending.delete(id);
        this.#progress.delete(id);
        options.signal?.removeEventListener("abort", onAbort);
      };
      const settle = (f: () => void): void => {
        cleanup();
        f();
      };
      const timeout = options.timeoutMs ?? this.#options.requestTimeoutMs ?? 30_000;
      const timer = Number.isFinite(timeout)
        ? setTimeout(
          () => settle(() => reject(new Error(`request ${method} timed out after ${timeout} ms`))),
          timeout,
        )
        : undefined;
      if (options.signal?.aborted) {
        if (timer !== undefined) clearTimeout(timer);
        reject(new Error(`request ${method} was cancelled`));
        return;
      }
      options.signal?.addEventListener("abort", onAbort, { once: true });
      const era = this.#era;
      const accept = (value: unknown): void => {
        if (era === "modern" && isRecord(value)) {
          try {
            checkResultType(method, value);
          } catch (e) {
            reject(e as Error);
            return;
          }
        }
        resolve(value);
      };
      this.#pending.set(id, { resolve: accept, reject, timer, cleanup });
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
   * Handshake era: cached until `notifications/tools/list_changed`. Modern era: cached for the
   * shortest `ttlMs` of the pages (0 = asked again every time), shared through `cacheStore`
   * when `cacheScope` is `"public"`, or within `cachePartition` when `"private"`; dropped when a
   * `subscriptions/listen` stream says the list changed.
   *
   * @returns The tools.
   * @throws {Error} When the server's pages do not end within the page cap.
   */
  listTools(): Promise<ListedTool[]> {
    const cached = this.#cachedTools();
    if (cached) return Promise.resolve(cached);
    if (!this.#listing) {
      const listing = this.#listAll<ListedTool>("tools/list", "tools").then(
        ({ items: tools, freshness }) => {
          // Keep it only if no list_changed arrived meanwhile.
          if (this.#listing === listing) this.#storeTools(tools, freshness);
          return tools;
        },
      ).finally(() => {
        if (this.#listing === listing) this.#listing = undefined;
      });
      this.#listing = listing;
      this.#listCount++;
    }
    return this.#listing;
  }

  #now(): number {
    return (this.#options.now ?? Date.now)();
  }

  #storeKey(scope: CacheScope): string | undefined {
    if (!this.#options.cacheStore) return undefined;
    if (scope === "private" && this.#options.cachePartition === undefined) return undefined;
    const info = this.#init?.serverInfo;
    const server = this.#options.cacheKey ?? `${info?.name ?? ""}@${info?.version ?? ""}`;
    return listCacheKey(server, "tools/list", scope, this.#options.cachePartition);
  }

  #cachedTools(): ListedTool[] | undefined {
    if (this.#era !== "modern") return this.#tools;
    const now = this.#now();
    if (this.#tools && this.#toolsFresh && now < this.#toolsFresh.expiresAt) return this.#tools;
    this.#tools = undefined;
    this.#toolsFresh = undefined;
    const store = this.#options.cacheStore;
    for (const scope of ["private", "public"] as const) {
      const key = this.#storeKey(scope);
      const entry = key === undefined ? undefined : store?.get(key);
      if (entry && entry.scope === scope && now < entry.expiresAt) {
        return entry.items as ListedTool[];
      }
    }
    return undefined;
  }

  #storeTools(tools: ListedTool[], freshness: Freshness | undefined): void {
    if (this.#era !== "modern" || !freshness) {
      this.#tools = tools;
      return;
    }
    if (freshness.ttlMs <= 0) return; // not cacheable: asked again next time
    const expiresAt = this.#now() + freshness.ttlMs;
    this.#tools = tools;
    this.#toolsFresh = { expiresAt, scope: freshness.scope };
    const key = this.#storeKey(freshness.scope);
    if (key !== undefined) {
      this.#options.cacheStore!.set(key, { items: tools, expiresAt, scope: freshness.scope });
    }
  }

  #dropTools(): void {
    this.#tools = undefined;
    this.#toolsFresh = undefined;
    this.#listing = undefined;
    if (this.#era === "modern") {
      for (const scope of ["private", "public"] as const) {
        const key = this.#storeKey(scope);
        if (key !== undefined) this.#options.cacheStore!.delete(key);
      }
    }
  }

  async #listAll<T>(
    method: string,
    key: string,
  ): Promise<{ items: T[]; freshness: Freshness | undefined }> {
    const out: T[] = [];
    let freshness: Freshness | undefined;
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
      freshness = foldFreshness(freshness, result);
      if (typeof result.nextCursor !== "string") return { items: out, freshness };
      cursor = result.nextCursor; // "" is a cursor, not the end
    }
    throw new Error(`${method} did not end within ${max} pages`);
  }

  /**
   * Opens a `subscriptions/listen` stream (2026-07-28) and resolves once the server acknowledged
   * it. `notifications/tools/list_changed` carrying its subscription id drop the tool cache and
   * reach {@linkcode McpClient.onToolsChanged} listeners.
   *
   * @param filter What to be told about.
   * @returns The open subscription.
   * @throws {Error} In the handshake era (list_changed arrives on the session there), or when the
   *   server refuses or ends the request before acknowledging it.
   */
  listen(filter: ListenFilter): Promise<Subscription> {
    if (this.#era !== "modern") {
      return Promise.reject(
        new Error(
          "subscriptions/listen is a 2026-07-28 request; this connection speaks the handshake era, where list_changed arrives without asking",
        ),
      );
    }
    const opened = this.#listen(filter);
    // A stream that already carries tools/list_changed makes the automatic one unnecessary.
    if (filter.toolsListChanged) this.#autoListen ??= opened.catch(() => undefined);
    return opened;
  }

  #listen(filter: ListenFilter): Promise<Subscription> {
    const controller = new AbortController();
    let id: JsonRpcId = -1;
    let endSubscription!: () => void;
    const closed = new Promise<void>((resolve) => (endSubscription = resolve));
    return new Promise<Subscription>((resolve, reject) => {
      let acked = false;
      const ackTimer = setTimeout(() => {
        if (acked) return;
        controller.abort("not acknowledged");
        reject(new Error(`subscriptions/listen was not acknowledged in time`));
      }, this.#options.requestTimeoutMs ?? 30_000);
      const subscription = (acknowledged: Record<string, unknown>): Subscription => ({
        id,
        acknowledged,
        closed,
        close: () => {
          controller.abort("closed by the client");
          return closed;
        },
      });
      const request = this.#call("subscriptions/listen", { notifications: { ...filter } }, {
        timeoutMs: Infinity,
        signal: controller.signal,
      }, (requestId) => {
        id = requestId;
        this.#subscriptions.set(id, {
          acknowledge: (params) => {
            if (acked) return;
            acked = true;
            clearTimeout(ackTimer);
            resolve(subscription(params));
          },
          end: () => {
            // The server ended it (notifications/cancelled): no cancellation goes back.
            const pending = this.#pending.get(id);
            pending?.cleanup();
            pending?.reject(new Error("the server ended the subscription"));
          },
        });
      });
      request.then(() => {
        clearTimeout(ackTimer);
        if (!acked) {
          reject(new Error("the server answered subscriptions/listen without acknowledging it"));
        }
      }, (e) => {
        clearTimeout(ackTimer);
        if (!acked) reject(e);
      }).finally(() => {
        this.#subscriptions.delete(id);
        endSubscription();
      });
    });
  }

  /**
   * Calls a tool and classifies the outcome.
   *
   * @param name The tool.
   * @param args Its arguments.
   * @param options A version constraint to pin (sent under our `_meta` key), and request options.
   * @returns The outcome: ok, a tool error, rejected arguments (with the issues the server sent, and
   *   how many it left out), or a protocol error.
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
        const omitted = omittedOf(e.data as Record<string, unknown>);
        return { kind: "invalid-arguments", issues, via: "protocol-error", omitted };
      }
      return { kind: "protocol-error", code: e.code, message: e.message, data: e.data };
    }
    if (result.isError) {
      const structured = isRecord(result.structuredContent)
        ? result.structuredContent.issues
        : undefined;
      if (looksLikeIssues(structured)) {
        const omitted = omittedOf(result.structuredContent as Record<string, unknown>);
        return { kind: "invalid-arguments", issues: structured, via: "tool-result", omitted };
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
    return this.#listAll<Resource>("resources/list", "resources").then((r) => r.items);
  }

  /**
   * Reads a resource.
   *
   * @param uri Its URI.
   * @returns Its contents.
   * @throws {ResourceNotFoundError} When it does not exist: code -32002 (handshake era) or -32602
   *   (2026-07-28; both accepted in either era).
   */
  async readResource(uri: string): Promise<ResourceContents[]> {
    let result: { contents: ResourceContents[] };
    try {
      result = await this.request("resources/read", { uri }) as { contents: ResourceContents[] };
    } catch (e) {
      if (
        e instanceof McpProtocolError &&
        (e.code === MCP_ERROR_CODES.RESOURCE_NOT_FOUND || e.code === ERROR_CODES.INVALID_PARAMS)
      ) {
        throw new ResourceNotFoundError(uri, e.code, e.message, e.data);
      }
      throw e;
    }
    return result.contents;
  }

  /**
   * Every prompt (all pages).
   *
   * @returns The prompts.
   */
  listPrompts(): Promise<Prompt[]> {
    return this.#listAll<Prompt>("prompts/list", "prompts").then((r) => r.items);
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

  /** The open subscription with this id (a server may echo a numeric id as a string). */
  #subscription(id: unknown): Listening | undefined {
    if (typeof id !== "string" && typeof id !== "number") return undefined;
    const exact = this.#subscriptions.get(id);
    if (exact) return exact;
    for (const [key, listening] of this.#subscriptions) {
      if (String(key) === String(id)) return listening;
    }
    return undefined;
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
    const meta = isRecord(params._meta) ? params._meta : {};
    const subscription = this.#era === "modern"
      ? this.#subscription(meta[META.subscriptionId])
      : undefined;
    if (n.method === "notifications/tools/list_changed") {
      // Modern era: only on a listen stream, tagged with its id; anything else is not ours.
      if (this.#era === "modern" && !subscription) return;
      this.#dropTools();
      for (const l of [...this.#listeners]) l();
    } else if (n.method === "notifications/subscriptions/acknowledged") {
      const { _meta: _, ...granted } = params;
      subscription?.acknowledge(granted);
    } else if (n.method === "notifications/cancelled" && this.#era === "modern") {
      this.#subscription(params.requestId)?.end();
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
