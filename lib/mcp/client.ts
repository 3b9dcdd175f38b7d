/**
 * The MCP client: one per connection (host, client, server). It is dual-era: it first asks
 * `server/discover` (the stateless 2026-07-28 revision) and falls back to the `initialize`
 * handshake when the server does not answer as a stateless one. It caches `tools/list` (walking
 * every page) until the server says the list changed or, in the stateless era, until its `ttlMs`
 * runs out, and returns typed call outcomes that separate tool errors, rejected arguments and
 * protocol errors — what a host needs to run the repair loop.
 *
 * The client is a {@linkcode JsonRpcPeer} with MCP's method wrappers: an error answer rejects with
 * a {@linkcode JsonRpcError}; no answer (a timeout, a cancellation, a closed connection) with a
 * {@linkcode PeerError}. Its parts have their own modules: the era negotiation
 * (`_client_era.ts`), the tools cache (`_client_tools.ts`, over `list_cache.ts`), the listen
 * streams (`_client_subscriptions.ts`), the call outcomes (`_client_outcome.ts`), the host's
 * policy for what the server asks of it (`server_requests.ts`, enforced by `_client_governor.ts`;
 * 2026-07-28 `input_required` results in `_client_input_required.ts`).
 *
 * @module
 */
import { linkSignals } from "../jsonrpc/signals.ts";
import type { DeprecationNotice } from "../estate/deprecation.ts";
import { ERROR_CODES, JsonRpcError, MCP_ERROR_CODES } from "../jsonrpc/errors.ts";
import { JsonRpcPeer } from "../jsonrpc/peer.ts";
import type { PeerCall, Progress, ProtocolErrorReport } from "../jsonrpc/peer_types.ts";
import { isObject } from "../_object.ts";
import { META_VERSION_KEY } from "../estate/spec.ts";
import { IDEMPOTENCY_META_KEY } from "../estate/idempotency.ts";
import { mayRunTwice, retryable, retryDelayMs } from "./_client_retry.ts";
import type {
  CallToolResult,
  Implementation,
  ListedTool,
  Prompt,
  PromptMessage,
  Resource,
  ResourceContents,
} from "./protocol.ts";
import type { Transport } from "./transport.ts";
import type { ListCacheStore } from "./list_cache.ts";
import { checkResultType, McpClientError, ResourceNotFoundError } from "./client_errors.ts";
import {
  envelope,
  eraOption,
  type InitializeResult,
  type McpClientEraOption,
  negotiateEra,
} from "./_client_era.ts";
import type { ProtocolEra } from "./methods.ts";
import { type Walked, walkPages } from "./_client_pages.ts";
import { ToolsCache } from "./_client_tools.ts";
import { type ListenFilter, type Subscription, Subscriptions } from "./_client_subscriptions.ts";
import { type CallOutcome, errorOutcome, resultOutcome } from "./_client_outcome.ts";
import { serverRequestCapabilities, type ServerRequestPolicy } from "./server_requests.ts";
import { ServerRequestLog, type ServerRequestRecord } from "./server_request_log.ts";
import { type CallCharge, ServerRequestGovernor } from "./_client_governor.ts";
import { fulfilInputRequired } from "./_client_input_required.ts";
import { awaitTask, isCreateTaskResult } from "./_client_tasks.ts";
import { TASKS_EXTENSION } from "./tasks.ts";

export {
  type InputRequestRefusal,
  InputRequestRefusedError,
  McpClientError,
  type McpClientErrorKind,
  McpProtocolError,
  ResourceNotFoundError,
  type ResourceNotFoundErrorOptions,
  UnsupportedResultError,
} from "./client_errors.ts";
export type { InitializeResult, McpClientEra, McpClientEraOption } from "./_client_era.ts";
export type { ListenFilter, Subscription } from "./_client_subscriptions.ts";
export type { CallOutcome } from "./_client_outcome.ts";

/** Options for an {@linkcode McpClient}. */
export interface McpClientOptions {
  /** This client's `clientInfo`. */
  clientInfo?: Implementation;
  /** The revision to ask for. Default the newest handshake-era one. */
  protocolVersion?: string;
  /**
   * Capabilities to declare. Default none. `sampling`, `elicitation` and `roots` are declared from
   * `serverRequests` only (what its policy allows); the same keys here are ignored.
   */
  capabilities?: Record<string, unknown>;
  /**
   * What the server may ask of this client — sampling, elicitation (form, URL), roots — and the
   * caps on it. Default: everything refused, nothing declared (the default for a third-party
   * server). See {@linkcode ServerRequestPolicy}.
   */
  serverRequests?: ServerRequestPolicy;
  /**
   * The server's name in the server-request log and in what callbacks are given (the server's
   * words are attributed to it). Default its self-reported `serverInfo` name (`McpHost` gives its
   * server id).
   */
  serverName?: string;
  /** Told about every server-initiated request (served, refused or failed). */
  onServerRequest?: (record: ServerRequestRecord) => void;
  /**
   * The log server-initiated requests are kept in (a host shares one among its clients). Default
   * one of this client's own, of 1000 records.
   */
  serverRequestLog?: ServerRequestLog;
  /**
   * Whether this client takes tasks (`tools/call`s the server answers with a handle to poll):
   * declared on every 2026-07-28 request (the extension `io.modelcontextprotocol/tasks`) and, in
   * 2025-11-25, asked for (the `task` param) where the server offers task-augmented `tools/call`
   * and the tool's listing (`listTools()`, fetched first when not cached) says
   * `execution.taskSupport` is `optional` or `required`. `callTool` waits on a
   * task by itself (`tasks/get` at the server's poll interval, answering its input requests
   * through `serverRequests`) and returns the call's result. Default true.
   */
  tasks?: boolean;
  /** How long a request may take. Default 30 s. */
  requestTimeoutMs?: number;
  /** The most pages a list is walked before giving up. Default 64. */
  maxPages?: number;
  /**
   * Which era to speak. `"auto"` asks `server/discover` first and falls back to `initialize` on
   * any error that is not a recognized 2026-07-28 one, or on a timeout (the default);
   * `"handshake"` only does the handshake; `"stateless"` only speaks 2026-07-28 (fails
   * otherwise). The deprecated `"legacy"` and `"modern"` mean `"handshake"` and `"stateless"`.
   */
  era?: McpClientEraOption;
  /** How long `server/discover` may take before the server counts as handshake-era. Default 3 s. */
  discoverTimeoutMs?: number;
  /**
   * The authorization context this client's requests run in (e.g. the principal's id): private
   * cached results are shared only with clients of the same partition. Without it, private
   * results stay in this client.
   */
  cachePartition?: string;
  /** A store shared by the clients of one host for cached list results (stateless era). */
  cacheStore?: ListCacheStore;
  /** The server's identity within the shared store. Default its `serverInfo` name and version. */
  cacheKey?: string;
  /** The clock, in milliseconds (for tests). Default `Date.now`. */
  now?: () => number;
  /**
   * Told what the connection ignored: a message from the server that is not JSON-RPC, an answer
   * to no request this client waits for (late, cancelled or timed out). Default: nothing.
   */
  onProtocolError?: (report: ProtocolErrorReport) => void;
}

/** Options for one request. */
export interface RequestOptions {
  /** Cancels the request (the server is sent `notifications/cancelled`). */
  signal?: AbortSignal;
  /** Receives progress notifications (a progress token is sent). */
  onProgress?: (progress: Progress) => void;
  /** Overrides the client's request timeout. */
  timeoutMs?: number;
  /** Extra `_meta` for the request. */
  meta?: Record<string, unknown>;
}

/** Options for {@linkcode McpClient.callTool}: request options, a pin, and retries. */
export interface CallToolOptions extends RequestOptions {
  /** A version constraint to pin (sent under `_meta["dev.tool-estate/version"]`). */
  version?: string;
  /**
   * How many times to send the call again when no answer came in time (a `PeerError` of kind
   * `timeout`) or the server said the first call with its idempotency key is still running
   * (`-32050`). Default 0. A tool not listed as read-only or idempotent is sent with an idempotency
   * key (one per call, the same on every attempt), so a retry is answered with the first attempt's
   * stored outcome instead of running it twice.
   */
  retries?: number;
  /** The first wait between attempts, in milliseconds, doubling (at most 5 s). Default 200. */
  retryDelayMs?: number;
  /**
   * The idempotency key to send (`_meta["dev.tool-estate/idempotencyKey"]`): 1 to 255 printable
   * ASCII characters. Default: none, or a random one when `retries` is set for a tool that may not
   * run twice.
   */
  idempotencyKey?: string;
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
  readonly #peer: JsonRpcPeer;
  readonly #options: McpClientOptions;
  readonly #tools: ToolsCache;
  readonly #subscriptions: Subscriptions;
  readonly #listeners = new Set<() => void>();
  readonly #requestListeners = new Set<(record: ServerRequestRecord) => void>();
  readonly #deprecationListeners = new Set<(notice: DeprecationNotice) => void>();
  /** The deprecated versions already told of (`tool@version`). */
  readonly #deprecated = new Set<string>();
  readonly #governor: ServerRequestGovernor;
  readonly #log: ServerRequestLog;
  readonly #closing = new AbortController();
  #init: InitializeResult | undefined;
  #era: ProtocolEra | undefined;
  #statelessVersion: string | undefined;

  /**
   * Makes a client on a transport (not yet connected).
   *
   * @param transport The connection; the client takes over its `onmessage` and `onclose`.
   * @param options Client info, revision, timeouts, page cap, the policy for server requests.
   * @throws {RangeError} When a limit of `serverRequests.limits` is not a non-negative integer.
   */
  constructor(transport: Transport, options: McpClientOptions = {}) {
    this.#options = options;
    this.#peer = new JsonRpcPeer(transport, {
      requestTimeoutMs: options.requestTimeoutMs ?? 30_000,
      // As this client has always behaved: a timeout stops waiting without telling the server
      // (a handshake-era server may not even know server/discover), and it answers nothing the
      // server sends that is not JSON-RPC.
      cancelOnTimeout: false,
      answerInvalid: false,
      ...(options.onProtocolError ? { onProtocolError: options.onProtocolError } : {}),
    });
    // Server-to-client requests are served only as the host's policy allows (by default none:
    // each is answered -32601); every one is logged. A ping is answered as the handshake era
    // requires, and not logged.
    this.#log = options.serverRequestLog ?? new ServerRequestLog();
    this.#governor = new ServerRequestGovernor({
      policy: options.serverRequests ?? {},
      server: () => this.#serverName(),
      era: () => this.#era,
      now: () => (options.now ?? Date.now)(),
      record: (record) => this.#recordServerRequest(record),
    });
    this.#peer.onRequest("ping", () => ({}));
    this.#peer.onOtherRequest((params, context) =>
      this.#governor.serve(context.method, params, {
        via: "request",
        signal: context.signal,
      })
    );
    this.#peer.onClose(() => this.#closing.abort(new Error("the client is closed")));
    this.#peer.onNotification(
      "notifications/tools/list_changed",
      (params) => this.#toolsChanged(isObject(params) ? params : {}),
    );
    this.#peer.onNotification(
      "notifications/subscriptions/acknowledged",
      (params) => {
        if (this.#era === "stateless") {
          this.#subscriptions.acknowledged(
            isObject(params) ? params : {},
          );
        }
      },
    );
    this.#peer.onNotification("notifications/cancelled", (params) => {
      if (this.#era === "stateless") {
        this.#subscriptions.cancelled(isObject(params) ? params : {});
      }
    });
    this.#tools = new ToolsCache({
      era: () => this.#era,
      serverInfo: () => this.#init?.serverInfo,
      fetch: () => this.#walk<ListedTool>("tools/list", "tools"),
      now: () => (options.now ?? Date.now)(),
      store: options.cacheStore,
      partition: options.cachePartition,
      serverKey: options.cacheKey,
    });
    this.#subscriptions = new Subscriptions({
      start: (params, signal) =>
        this.#start("subscriptions/listen", params, {
          timeoutMs: Infinity,
          signal,
        }),
      ackTimeoutMs: options.requestTimeoutMs ?? 30_000,
    });
  }

  /**
   * Connects. With `era: "handshake"` it does `initialize` then
   * `notifications/initialized`. With `era: "auto"` (the default) it first sends
   * `server/discover` under the 2026-07-28 envelope: a discover result means stateless; an
   * unsupported-version error naming a stateless version this client speaks means stateless at
   * that version; any other error, or no answer within `discoverTimeoutMs`, means a
   * handshake-era server, and it does `initialize` then `notifications/initialized`.
   *
   * @returns The server's answer (for a stateless server, its discover result in the same shape).
   * @throws {JsonRpcError} When the server refuses.
   * @throws {PeerError} When the connection closes first, or `initialize` times out.
   * @throws {McpClientError} Of kind `unsupported-revision` when the server speaks no revision
   *   this client does (or, with `era: "stateless"`, is not stateless).
   */
  connect(): Promise<InitializeResult> {
    const options = this.#options;
    return negotiateEra({
      request: (method, params, opts) => this.request(method, params, opts),
      notify: (method) => this.notify(method),
      closed: () => this.#peer.closed,
      close: () => this.close(),
    }, {
      era: eraOption(options.era),
      protocolVersion: options.protocolVersion,
      capabilities: this.#capabilities("stateless"),
      handshakeCapabilities: this.#capabilities("handshake"),
      clientInfo: this.#clientInfo(),
      discoverTimeoutMs: options.discoverTimeoutMs ?? 3000,
    }, (era, server) => {
      this.#era = era;
      this.#init = server;
      if (era === "stateless") this.#statelessVersion = server.protocolVersion;
    });
  }

  #clientInfo(): Implementation {
    return this.#options.clientInfo ??
      { name: "tool-estate-client", version: "0.1.0" };
  }

  /** The capabilities declared: the caller's, with the server-request ones from the policy. */
  #capabilities(era: ProtocolEra): Record<string, unknown> {
    const own = { ...this.#options.capabilities };
    delete own.sampling;
    delete own.elicitation;
    delete own.roots;
    const declared: Record<string, unknown> = {
      ...own,
      ...serverRequestCapabilities(this.#options.serverRequests ?? {}, { era }),
    };
    if (era === "stateless" && this.#options.tasks !== false) {
      declared.extensions = {
        ...(isObject(own.extensions) ? own.extensions : {}),
        [TASKS_EXTENSION]: {},
      };
    }
    return declared;
  }

  #serverName(): string {
    return this.#options.serverName ?? this.#init?.serverInfo.name ?? "server";
  }

  #recordServerRequest(record: ServerRequestRecord): void {
    this.#log.add(record);
    this.#options.onServerRequest?.(record);
    for (const listener of [...this.#requestListeners]) listener(record);
  }

  /**
   * The server-initiated requests this client handled (or, with a shared `serverRequestLog`,
   * those of every client sharing it), oldest first.
   */
  get serverRequestLog(): ServerRequestLog {
    return this.#log;
  }

  /**
   * Subscribes to the record of every server-initiated request (served, refused or failed).
   *
   * @param listener Called with each record.
   * @returns A function that unsubscribes.
   */
  onServerRequest(listener: (record: ServerRequestRecord) => void): () => void {
    this.#requestListeners.add(listener);
    return () => this.#requestListeners.delete(listener);
  }

  /**
   * Tells the server the host's roots changed (`notifications/roots/list_changed`), so it asks
   * `roots/list` again. Only in the handshake era and when the policy allows roots (then
   * `roots.listChanged` was declared); 2026-07-28 has no such notification (the server asks again
   * through its next `input_required` result).
   *
   * @returns Whether the notification was sent.
   */
  async rootsChanged(): Promise<boolean> {
    if (this.#era !== "handshake" || !this.#options.serverRequests?.roots) {
      return false;
    }
    await this.notify("notifications/roots/list_changed");
    return true;
  }

  /** The server's `initialize` answer (or discover result), once connected. */
  get server(): InitializeResult | undefined {
    return this.#init;
  }

  /** The era the connection speaks, once connected: `handshake` or `stateless`. */
  get era(): ProtocolEra | undefined {
    return this.#era;
  }

  /** The negotiated revision, once connected (e.g. `2025-11-25` or `2026-07-28`). */
  get protocolVersion(): string | undefined {
    return this.#init?.protocolVersion;
  }

  /** How many times the tool list was fetched from the server (each a walk of every page). */
  get listCount(): number {
    return this.#tools.count;
  }

  /**
   * Subscribes to the server's `notifications/tools/list_changed` (after the cache is dropped).
   * In the stateless era, when the server declares `tools.listChanged`, the first listener also
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
      this.#era === "stateless" && isObject(tools) && tools.listChanged === true
    ) {
      this.#subscriptions.ensureToolsStream();
    }
    return () => this.#listeners.delete(listener);
  }

  /**
   * Sends a request and waits for its response. In the 2026-07-28 era the request carries the
   * envelope (it wins over caller `_meta`), and a result whose `resultType` is not `"complete"`
   * is refused.
   *
   * @param method The method.
   * @param params Its params.
   * @param options Cancellation, progress, timeout, `_meta`.
   * @returns The result.
   * @throws {JsonRpcError} For a JSON-RPC error response (`instanceof McpProtocolError` holds
   *   too).
   * @throws {PeerError} On timeout (`timeout`), cancellation (`cancelled`) or a closed
   *   connection (`closed`).
   * @throws {UnsupportedResultError} For a 2026-07-28 result the client cannot use.
   */
  request(
    method: string,
    params: Record<string, unknown> = {},
    options: RequestOptions = {},
  ): Promise<unknown> {
    return this.#start(method, params, options).result;
  }

  #start(
    method: string,
    params: Record<string, unknown>,
    options: RequestOptions,
    inputRequired = false,
  ): PeerCall {
    const meta: Record<string, unknown> = {
      ...(isObject(params._meta) ? params._meta : {}),
      ...options.meta,
      ...(this.#statelessVersion === undefined ? {} : envelope(this.#statelessVersion, {
        capabilities: this.#capabilities("stateless"),
        clientInfo: this.#clientInfo(),
      })),
    };
    const body = Object.keys(meta).length ? { ...params, _meta: meta } : params;
    const call = this.#peer.start(method, body, {
      ...(options.signal ? { signal: options.signal } : {}),
      ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
      ...(options.onProgress ? { onProgress: options.onProgress } : {}),
    });
    if (this.#era !== "stateless") return call;
    return {
      ...call,
      result: call.result.then((value) => {
        if (
          isObject(value) &&
          !(inputRequired && value.resultType === "input_required") &&
          !(method === "tools/call" && this.#options.tasks !== false && value.resultType === "task")
        ) {
          checkResultType(method, value);
        }
        return value;
      }),
    };
  }

  /**
   * Sends a notification.
   *
   * @param method The method.
   * @param params Its params.
   * @returns Resolves once the transport took it.
   */
  notify(method: string, params?: Record<string, unknown>): Promise<void> {
    return this.#peer.notify(method, params);
  }

  /**
   * The server's tools, from the cache when it is fresh; otherwise every page of `tools/list`.
   * Handshake era: cached until `notifications/tools/list_changed`. Stateless era: cached for the
   * shortest `ttlMs` of the pages (0 = asked again every time), shared through `cacheStore`
   * when `cacheScope` is `"public"`, or within `cachePartition` when `"private"`; dropped when a
   * `subscriptions/listen` stream says the list changed.
   *
   * @returns The tools.
   * @throws {McpClientError} Of kind `page-limit` when the server's pages do not end within the
   *   page cap, `malformed-result` when a page has no tool list.
   */
  listTools(): Promise<ListedTool[]> {
    return this.#tools.list();
  }

  /**
   * Opens a `subscriptions/listen` stream (2026-07-28) and resolves once the server acknowledged
   * it. `notifications/tools/list_changed` carrying its subscription id drop the tool cache and
   * reach {@linkcode McpClient.onToolsChanged} listeners.
   *
   * @param filter What to be told about.
   * @returns The open subscription.
   * @throws {McpClientError} Of kind `wrong-era` in the handshake era (list_changed arrives on
   *   the session there), or `malformed-result` when the server answers the request without
   *   acknowledging it.
   * @throws {JsonRpcError} When the server refuses it.
   * @throws {PeerError} Of kind `timeout` when it is not acknowledged within the request
   *   timeout; `cancelled` or `closed` when it ends before.
   */
  listen(filter: ListenFilter): Promise<Subscription> {
    if (this.#era !== "stateless") {
      return Promise.reject(
        new McpClientError(
          "wrong-era",
          "subscriptions/listen is a 2026-07-28 request; this connection speaks the handshake era, where list_changed arrives without asking",
        ),
      );
    }
    return this.#subscriptions.listen(filter);
  }

  /**
   * Calls a tool and classifies the outcome.
   *
   * @param name The tool.
   * @param args Its arguments.
   * @param options A version constraint to pin (sent under our `_meta` key), retries (with an
   *   idempotency key for a tool that may not run twice), and request options.
   * @returns The outcome: ok, a tool error, rejected arguments (with the issues the server sent, and
   *   how many it left out), or a protocol error.
   * @throws {PeerError} When no answer came (timeout, cancellation, closed connection).
   * @throws {InputRequestRefusedError} When a 2026-07-28 server asked for input (an
   *   `input_required` result) that the host's policy refuses, or asked more often than
   *   `maxInputRounds`: the call is not retried. Input the policy allows is given and the call
   *   sent again, up to that cap.
   */
  async callTool(
    name: string,
    args: Record<string, unknown> = {},
    options: CallToolOptions = {},
  ): Promise<CallOutcome> {
    const meta = { ...options.meta };
    if (options.version !== undefined) meta[META_VERSION_KEY] = options.version;
    const retries = options.retries ?? 0;
    let key = options.idempotencyKey;
    if (key === undefined && retries > 0 && !(await this.#mayRunTwice(name))) {
      key = crypto.randomUUID();
    }
    if (key !== undefined) meta[IDEMPOTENCY_META_KEY] = key;
    let result: CallToolResult;
    const params: Record<string, unknown> = { name, arguments: args };
    if (this.#offersTasks()) {
      const tools = this.#tools.peek() ?? await this.#listedTools();
      if (this.#asksForTask(name, tools)) params.task = {};
    }
    for (let attempt = 0;; attempt++) {
      try {
        result = await this.#withInput("tools/call", params, {
          ...options,
          meta,
        }, `tools/call ${name}`) as CallToolResult;
        break;
      } catch (e) {
        // 2025-11-25: a tool that runs only as a task, called without the task param before the
        // tools were listed, is refused with -32601; listed, it is asked again as a task.
        if (
          e instanceof JsonRpcError && e.code === ERROR_CODES.METHOD_NOT_FOUND &&
          params.task === undefined && this.#asksForTask(name, await this.#listedTools())
        ) {
          params.task = {};
          attempt--;
          continue;
        }
        if (attempt < retries && retryable(e) && !options.signal?.aborted) {
          await new Promise((r) =>
            setTimeout(r, retryDelayMs(attempt, e, options.retryDelayMs ?? 200))
          );
          continue;
        }
        if (e instanceof JsonRpcError) return errorOutcome(e);
        throw e;
      }
    }
    const outcome = resultOutcome(result);
    const notice = "deprecation" in outcome ? outcome.deprecation : undefined;
    if (notice && !this.#deprecated.has(`${notice.tool}@${notice.version}`)) {
      this.#deprecated.add(`${notice.tool}@${notice.version}`);
      for (const listener of this.#deprecationListeners) {
        try {
          listener(notice);
        } catch {
          // a listener that throws must not change the call's outcome
        }
      }
    }
    return outcome;
  }

  /**
   * Hears when a call reaches a deprecated version: the server's notice (the reason, the date it
   * stops working, the version to move to), once per tool version for this client. Every call's
   * outcome carries it too (`deprecation`).
   *
   * @param listener Called with the notice.
   * @returns A function that unsubscribes.
   */
  onDeprecation(listener: (notice: DeprecationNotice) => void): () => void {
    this.#deprecationListeners.add(listener);
    return () => this.#deprecationListeners.delete(listener);
  }

  /**
   * Every resource (all pages).
   *
   * @returns The resources.
   */
  async listResources(): Promise<Resource[]> {
    return (await this.#walk<Resource>("resources/list", "resources")).items;
  }

  /**
   * Reads a resource.
   *
   * @param uri Its URI.
   * @returns Its contents.
   * @throws {ResourceNotFoundError} When it does not exist: code -32002 (handshake era) or -32602
   *   (2026-07-28; both accepted in either era).
   * @throws {InputRequestRefusedError} When the server asked for input the host's policy refuses
   *   (as for {@linkcode McpClient.callTool}).
   */
  async readResource(uri: string): Promise<ResourceContents[]> {
    let result: { contents: ResourceContents[] };
    try {
      result = await this.#withInput(
        "resources/read",
        { uri },
        {},
        `resources/read ${uri}`,
      ) as {
        contents: ResourceContents[];
      };
    } catch (e) {
      if (
        e instanceof JsonRpcError &&
        (e.code === MCP_ERROR_CODES.RESOURCE_NOT_FOUND ||
          e.code === ERROR_CODES.INVALID_PARAMS)
      ) {
        throw new ResourceNotFoundError({
          uri,
          code: e.code,
          message: e.message,
          data: e.data,
        });
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
  async listPrompts(): Promise<Prompt[]> {
    return (await this.#walk<Prompt>("prompts/list", "prompts")).items;
  }

  /**
   * Gets a prompt.
   *
   * @param name The prompt.
   * @param args Its arguments.
   * @returns Its messages.
   * @throws {InputRequestRefusedError} When the server asked for input the host's policy refuses
   *   (as for {@linkcode McpClient.callTool}).
   */
  async getPrompt(
    name: string,
    args: Record<string, string> = {},
  ): Promise<{ description?: string; messages: PromptMessage[] }> {
    return await this.#withInput(
      "prompts/get",
      { name, arguments: args },
      {},
      `prompts/get ${name}`,
    ) as {
      description?: string;
      messages: PromptMessage[];
    };
  }

  /** Closes the connection; pending requests fail (a {@linkcode PeerError} of kind `closed`). */
  async close(): Promise<void> {
    await this.#peer.close("the client is closed");
  }

  /**
   * Sends a request that may be answered `input_required` (2026-07-28) and fulfils those results
   * through the policy; counts the server-initiated requests made during it (`maxPerCall`).
   */
  async #withInput(
    method: string,
    params: Record<string, unknown>,
    options: RequestOptions,
    label: string,
  ): Promise<unknown> {
    const call: CallCharge = this.#governor.openCall(label);
    const linked = options.signal ? linkSignals(options.signal, this.#closing.signal) : undefined;
    const signal = linked?.signal ?? this.#closing.signal;
    try {
      // The handshake era has no input_required results: a request is answered once.
      const result = this.#era !== "stateless"
        ? await this.#start(method, params, options).result
        : await fulfilInputRequired(method, params, {
          send: (p) => this.#start(method, p, options, true).result,
          serve: (m, p) => this.#governor.serve(m, p, { via: "input-required", signal, call }),
          maxRounds: this.#governor.limits.maxInputRounds,
        });
      const era = this.#era ?? "handshake";
      if (
        method !== "tools/call" || this.#options.tasks === false ||
        !isCreateTaskResult(era, result)
      ) return result;
      // A task: waited on here, so the caller gets the call's result.
      return await awaitTask(result as Record<string, unknown>, {
        era,
        request: (m, p) => this.#start(m, p, { signal }).result,
        serve: (m, p) => this.#governor.serve(m, p, { via: "input-required", signal, call }),
        signal,
      });
    } finally {
      linked?.release();
      this.#governor.closeCall(call);
    }
  }

  #walk<T>(method: string, key: string): Promise<Walked<T>> {
    return walkPages<T>((m, params) => this.request(m, params), {
      method,
      key,
      maxPages: this.#options.maxPages ?? 64,
    });
  }

  /**
   * Whether to ask a handshake-era server for a task (the `task` param): it offers task-augmented
   * `tools/call` and lists the tool with `execution.taskSupport` `optional` or `required`.
   */
  #asksForTask(name: string, tools: ListedTool[] | undefined): boolean {
    if (!this.#offersTasks()) return false;
    const support = tools?.find((t) => t.name === name)?.execution?.taskSupport;
    return support === "optional" || support === "required";
  }

  /** Whether a handshake-era server offers task-augmented `tools/call` (and we take tasks). */
  #offersTasks(): boolean {
    if (this.#era === "stateless" || this.#options.tasks === false) return false;
    const offered = this.#init?.capabilities.tasks;
    if (!isObject(offered) || !isObject(offered.requests)) return false;
    const tools = offered.requests.tools;
    return isObject(tools) && isObject(tools.call);
  }

  /** The tools as listed, or undefined when they cannot be listed. */
  async #listedTools(): Promise<ListedTool[] | undefined> {
    try {
      return await this.#tools.list();
    } catch {
      return undefined;
    }
  }

  /** Whether a tool may run twice: listed as read-only or idempotent (an unlisted one may not). */
  async #mayRunTwice(name: string): Promise<boolean> {
    try {
      return mayRunTwice((await this.#tools.list()).find((t) => t.name === name));
    } catch {
      return false;
    }
  }

  /** `notifications/tools/list_changed`; in the stateless era only on an open listen stream. */
  #toolsChanged(params: Record<string, unknown>): void {
    if (this.#era === "stateless" && !this.#subscriptions.owns(params)) return;
    this.#tools.drop();
    for (const l of [...this.#listeners]) l();
  }
}
