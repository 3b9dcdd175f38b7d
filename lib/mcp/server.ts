/**
 * The MCP server: {@linkcode McpServer} — its options, the sessions it opened, its
 * `subscriptions/listen` streams, its lifecycle, and what it tells them when the estate changes
 * (`list_changed`, on publish, deprecation, retirement on its date, or a principal's new scopes).
 * The protocol itself is served elsewhere, each part once: the methods both eras share in
 * `_methods.ts` (with `tools/call`'s steps in `_call_tool.ts`), the handshake era's sessions in
 * `_server_rev2025_11_25.ts`, the stateless 2026-07-28 revision in `_server_rev2026_07_28.ts`;
 * `classifyEra` (`era.ts`) tells a transport which of `handle` and `handleStateless` a message is
 * for. The registry decides which tools each principal sees; each prompt's, resource's and
 * template's declared `requires` decides, against the same discovery, what else they see — and
 * whatever a principal may not see is answered exactly as what does not exist.
 *
 * @module
 */
import { makeNotification } from "../jsonrpc/messages.ts";
import { type ApprovalSweep, startApprovalSweep } from "./_call_approval.ts";
import type { JsonRpcResponse } from "../jsonrpc/types.ts";
import type { EstateEvent } from "../estate/registry.ts";
import { canSee, type Principal } from "../estate/spec.ts";
import { RetirementTimer } from "./_retirement_timer.ts";
import { RequestStateSeal } from "./_request_state.ts";
import { type IdempotencyStore, memoryIdempotencyStore } from "../estate/idempotency.ts";
import { handleInSession, serveInSession, sessionRequests } from "./_server_rev2025_11_25.ts";
import { handleStateless, serveStateless } from "./_server_rev2026_07_28.ts";
import { CORES, type Listener, type ServerCore, visibleSignature } from "./_server_core.ts";
import { type SessionRequestHandler, SessionTable } from "./_sessions.ts";
import { mayRead } from "./_surfaces.ts";
import { STATELESS_META } from "./rev2026_07_28.ts";
import { scopeChallengeFor } from "./_call_tool.ts";
import type { ScopeChallenge, Served } from "./outcome.ts";
import type { ClassifiedMessage } from "../jsonrpc/envelope.ts";
import { isObject } from "../_object.ts";
import type { McpServerOptions, ServerTimers, StatelessOptions } from "./server_options.ts";
import type { OpenSessionOptions, Session } from "./session.ts";

export type { ScopeChallenge } from "./outcome.ts";
export type {
  CallApprovalOptions,
  CallRecord,
  ConfirmationRecord,
  McpServerOptions,
  ProbeRecord,
  ServerTimers,
  StatelessOptions,
} from "./server_options.ts";
export type { OpenSessionOptions, Session, SessionState } from "./session.ts";
export {
  LOG_LEVELS,
  type LogEntry,
  type LogLevel,
  MissingClientCapabilityError,
  type Notify,
  type ToolContext,
  type ToolHandler,
} from "./tool_handler.ts";
export {
  PromptArgumentError,
  type PromptCompletionRequest,
  type PromptContext,
  type PromptProvider,
  type PromptRequest,
  type PromptResult,
  type ResourceProvider,
} from "./providers.ts";

/**
 * An MCP server over a governed estate: handshake-era revisions 2024-11-05 to 2025-11-25 through
 * sessions ({@linkcode McpServer.handle}), and the stateless 2026-07-28 revision
 * ({@linkcode McpServer.handleStateless}) beside them.
 *
 * @example
 * ```ts
 * import { McpServer, ToolRegistry } from "@tool-estate/core";
 * import assert from "node:assert/strict";
 *
 * const registry = new ToolRegistry();
 * registry.publish({
 *   name: "policy.search", version: "1.0.0", title: "Search policies", description: "Searches the policy library.",
 *   inputSchema: { type: "object", properties: { query: { type: "string" } }, required: ["query"] },
 *   sideEffect: "read", requiredScopes: [], dataClassification: "internal", tenants: [], owner: "compliance",
 * });
 * const server = new McpServer({ registry, handlerFor: () => ({ query }) => `3 passages match ${query}` });
 * const session = server.openSession({
 *   principal: { id: "analyst", scopes: [], tenant: "group", clearance: "internal" },
 *   notify: () => {},
 * });
 * await server.handle({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } } }, session);
 * assert.equal(await server.handle({ jsonrpc: "2.0", method: "notifications/initialized" }, session), undefined);
 * const res = await server.handle({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "policy.search", arguments: { query: "cut-off" } } }, session);
 * assert.deepEqual(res, { jsonrpc: "2.0", id: 2, result: { content: [{ type: "text", text: "3 passages match cut-off" }] } });
 * ```
 */
export class McpServer {
  readonly #options: McpServerOptions;
  /** The sessions this server opened: another server's are unknown here. */
  readonly #sessions = new SessionTable();
  /** The open `subscriptions/listen` streams that asked for `list_changed`. */
  readonly #listeners = new Set<Listener>();
  readonly #closed = new AbortController();
  readonly #unsubscribe: () => void;
  readonly #retirement: RetirementTimer;
  /** What the methods and era wrappers see of this server. */
  readonly #core: ServerCore;
  /** Serves the requests of this server's sessions. */
  readonly #serveSession: SessionRequestHandler;
  /** Runs approved calls and ends lapsed ones (with `callApprovals`). */
  readonly #approvals: ApprovalSweep | undefined;

  /**
   * Makes a server and subscribes it to the registry's changes.
   *
   * @param options The registry, handlers, resources, prompts and logging.
   */
  constructor(options: McpServerOptions) {
    this.#options = options;
    const now = options.now ?? Date.now;
    const timers: ServerTimers = options.timers ?? {
      setTimeout: (fn, ms) => setTimeout(fn, ms),
      clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
    };
    this.#retirement = new RetirementTimer({
      registry: options.registry,
      timers,
      now,
      wanted: () =>
        !this.#closed.signal.aborted &&
        (this.#sessions.size > 0 || this.#listeners.size > 0),
    });
    let seal: RequestStateSeal | undefined;
    let keys: IdempotencyStore | undefined;
    this.#core = {
      idempotency: () => keys ??= options.idempotency ?? memoryIdempotencyStore(),
      requestStates: () =>
        seal ??= new RequestStateSeal(
          options.requestStateKey ?? crypto.getRandomValues(new Uint8Array(32)),
          options.spentStates,
        ),
      options,
      pageSize: options.pageSize ?? 50,
      now,
      closed: this.#closed.signal,
      addListener: (listener) => {
        this.#listeners.add(listener);
        this.#retirement.arm();
        return () => {
          if (this.#listeners.delete(listener)) this.#retirement.arm();
        };
      },
    };
    this.#serveSession = sessionRequests(this.#core);
    CORES.set(this, this.#core);
    this.#unsubscribe = options.registry.subscribe((e) => this.#estateChanged(e));
    this.#approvals = startApprovalSweep(
      this.#core,
      options.callApprovals?.onError ??
        ((e) => console.error(`pending calls: ${(e as Error).message}`)),
    );
  }

  /**
   * Looks at the pending calls now (with `callApprovals`): runs each approved call this server
   * claims, ends the tasks of calls that lapsed. The server does this every `sweepMs` by itself;
   * call it after a decision to act at once.
   *
   * @returns Resolves when the pass is done.
   */
  async sweepPendingCalls(): Promise<void> {
    this.#approvals?.poke();
    await this.#approvals?.idle();
  }

  /**
   * Opens a session for one connection.
   *
   * @param options Who is connected, and how to send them notifications.
   * @returns The session to pass to {@linkcode McpServer.handle}.
   */
  openSession(options: OpenSessionOptions): Session {
    const s = this.#sessions.open(options, this.#serveSession);
    this.#retirement.arm();
    return s;
  }

  /**
   * Closes a session: in-flight requests are aborted and it gets no more notifications. A
   * session another server opened is not this server's to close: nothing happens.
   *
   * @param session The session.
   */
  closeSession(session: Session): void {
    const s = this.#sessions.get(session);
    if (!s) return;
    this.#sessions.close(s);
    this.#retirement.arm();
  }

  /** How many sessions are open. */
  get sessionCount(): number {
    return this.#sessions.size;
  }

  /** Stops listening to the registry and closes every session. */
  close(): void {
    this.#unsubscribe();
    for (const s of [...this.#sessions]) this.closeSession(s);
    this.#closed.abort(); // ends every subscriptions/listen
    this.#retirement.arm();
  }

  /**
   * Takes in a principal's new scopes, tenant or clearance (its entry in `principals.json` was
   * edited, say): every open session and `subscriptions/listen` stream of `principal.id` is
   * served as the new principal from its next request on, and each whose visible tools changed
   * gets `notifications/tools/list_changed`, exactly as after a publish; the others get nothing.
   * Requests already running finish as the principal they started as. Ending the sessions of a
   * revoked credential is the transport's part (see `McpHttpServer.reauthenticate`).
   *
   * @param principal The principal as it is now.
   * @returns How many open sessions and listen streams are that principal's.
   *
   * @example
   * ```ts
   * import { McpServer, ToolRegistry } from "@tool-estate/core";
   * import assert from "node:assert/strict";
   *
   * const registry = new ToolRegistry();
   * registry.publish({
   *   name: "fx.quote", version: "1.0.0", title: "FX quote", description: "Quotes a rate from the pricing engine.",
   *   inputSchema: { type: "object" }, sideEffect: "read", requiredScopes: ["fx:quote"],
   *   dataClassification: "internal", tenants: [], owner: "treasury",
   * });
   * const server = new McpServer({ registry, handlerFor: () => undefined });
   * const told: string[] = [];
   * const desk = { id: "desk", scopes: ["fx:quote"], tenant: "group", clearance: "internal" as const };
   * const session = server.openSession({ principal: desk, notify: (m) => told.push(m.method) });
   * await server.handle({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } } }, session);
   * await server.handle({ jsonrpc: "2.0", method: "notifications/initialized" }, session);
   * assert.equal(server.updatePrincipal({ ...desk, scopes: [] }), 1);
   * assert.deepEqual(told, ["notifications/tools/list_changed"]);
   * const list = await server.handle({ jsonrpc: "2.0", id: 2, method: "tools/list" }, session);
   * assert.deepEqual((list as { result: { tools: unknown[] } }).result.tools, []);
   * ```
   */
  updatePrincipal(principal: Principal): number {
    const now: Principal = { ...principal, scopes: [...principal.scopes] };
    let count = 0;
    for (const l of this.#listeners) {
      if (l.principal.id !== principal.id) continue;
      l.principal = now;
      count++;
    }
    for (const s of this.#sessions) {
      if (s.principal.id !== principal.id) continue;
      s.principal = now;
      s.tools = undefined;
      count++;
    }
    this.#tellChanged((p) => p.id === principal.id);
    return count;
  }

  /**
   * Serves one session as the principal its latest credential stands for: the transport
   * authenticates every request, and a session's next request may carry a token with other scopes
   * (a step-up, a refresh that narrowed them). From then on the session sees and calls as that
   * principal; when its visible tools changed it gets `notifications/tools/list_changed`. The
   * principal's other sessions are untouched (see {@linkcode McpServer.updatePrincipal} for a
   * change to the principal itself). Requests already running finish as they started.
   *
   * @param session A session this server opened.
   * @param principal The principal as this request's credential has it: the session's principal
   *   id, other scopes, tenant or clearance.
   * @returns Whether the session is open (a closed or unknown one is left alone).
   * @throws {TypeError} When the principal is another than the session's.
   *
   * @example
   * ```ts
   * import { McpServer, ToolRegistry } from "@tool-estate/core";
   * import assert from "node:assert/strict";
   *
   * const server = new McpServer({ registry: new ToolRegistry(), handlerFor: () => undefined });
   * const desk = { id: "desk", scopes: ["fx:quote"], tenant: "group", clearance: "internal" as const };
   * const session = server.openSession({ principal: desk, notify: () => {} });
   * assert.equal(server.updateSessionPrincipal(session, { ...desk, scopes: ["fx:quote", "fx:trade"] }), true);
   * assert.deepEqual(session.principal.scopes, ["fx:quote", "fx:trade"]);
   * ```
   */
  updateSessionPrincipal(session: Session, principal: Principal): boolean {
    const s = this.#sessions.get(session);
    if (!s || s.state === "closed") return false;
    if (s.principal.id !== principal.id) {
      throw new TypeError(
        `updateSessionPrincipal(): session ${s.id} is ${s.principal.id}'s, not ${principal.id}'s`,
      );
    }
    s.principal = { ...principal, scopes: [...principal.scopes] };
    s.tools = undefined;
    if (s.state !== "ready") return true;
    const now = visibleSignature(this.#options.registry, s.principal);
    if (now !== s.visible) {
      s.visible = now;
      try {
        s.notify(makeNotification("notifications/tools/list_changed"));
      } catch {
        // A transport that failed to send closes its own session.
      }
    }
    return true;
  }

  /**
   * The step-up answer a request needs before it is handled: for a `tools/call` of a version the
   * principal may see whose `callScopes` its credential does not all carry, the scopes missing and
   * the scopes the call needs; undefined for anything else — a tool (or pinned version) the
   * principal may not see included, which `handle` answers exactly as one that does not exist. A
   * transport with an answer of its own for this (HTTP: 403 `insufficient_scope` with the scopes)
   * asks before handling the request and, given a challenge, answers with it instead; the call is
   * logged then (`onCall`, outcome `insufficient-scope`). Without that, the call's own step
   * refuses it with a tool error naming the scopes.
   *
   * @param message A parsed JSON-RPC message.
   * @param principal Who sends it, as authenticated for this request.
   * @returns The challenge, or undefined.
   *
   * @example
   * ```ts
   * import { McpServer, ToolRegistry } from "@tool-estate/core";
   * import assert from "node:assert/strict";
   *
   * const registry = new ToolRegistry();
   * registry.publish({
   *   name: "payments.release", version: "1.0.0", title: "Release", description: "Releases a held payment.",
   *   inputSchema: { type: "object" }, sideEffect: "irreversible", requiredScopes: ["payments:read"],
   *   callScopes: ["payments:release"], dataClassification: "internal", tenants: [], owner: "payments",
   * });
   * const server = new McpServer({ registry, handlerFor: () => undefined });
   * const call = { jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "payments.release", arguments: {} } };
   * const reader = { id: "ops", scopes: ["payments:read"], tenant: "group", clearance: "internal" as const };
   * assert.deepEqual(server.scopeChallenge(call, reader), {
   *   tool: "payments.release", version: "1.0.0", missing: ["payments:release"], needed: ["payments:read", "payments:release"],
   * });
   * assert.equal(server.scopeChallenge(call, { ...reader, scopes: [] }), undefined); // cannot see it
   * ```
   */
  scopeChallenge(
    message: unknown,
    principal: Principal,
  ): ScopeChallenge | undefined {
    if (
      !isObject(message) || message.method !== "tools/call" ||
      !("id" in message)
    ) {
      return undefined;
    }
    const challenge = scopeChallengeFor(this.#core, {
      principal,
      params: message.params,
    });
    if (challenge) {
      const params = message.params as Record<string, unknown>;
      this.#options.onCall?.({
        principal: principal.id,
        tool: challenge.tool,
        version: challenge.version,
        outcome: "insufficient-scope",
        durationMs: 0,
        at: new Date(this.#core.now()).toISOString(),
        arguments: params.arguments ?? {},
      });
    }
    return challenge;
  }

  /** How many `subscriptions/listen` streams are open. */
  get listenerCount(): number {
    return this.#listeners.size;
  }

  /**
   * Handles one parsed message of the stateless 2026-07-28 revision (see `classifyEra`):
   * no session, no connection history — the request alone and the principal the transport
   * authenticated for it decide the answer.
   *
   * Every result carries `resultType: "complete"` and `_meta["io.modelcontextprotocol/serverInfo"]`;
   * list, read and `server/discover` results carry `ttlMs` and `cacheScope`, computed: `"public"`
   * only when the answer is the same for every principal — `tools/list` when each tool's newest
   * version admits everyone; a prompt or resource list or read when its provider says it ignores
   * the principal (`variesByPrincipal: false`) and no `requires` involved keeps anyone out;
   * `server/discover` always — and `"private"` otherwise. A bad envelope gets `-32602`, an
   * unsupported revision `-32022`, a method this revision does not have (`initialize`, `ping`,
   * `logging/setLevel`, `resources/subscribe`, ...) `-32601`.
   *
   * `subscriptions/listen` sends `notifications/subscriptions/acknowledged` at once, then
   * (when asked with `toolsListChanged: true`) `notifications/tools/list_changed` whenever the
   * principal's visible tools change, each tagged with the listen request's id; it resolves when
   * the signal aborts (undefined: a cancelled request gets no response) or the server closes.
   *
   * @param message A value from `JSON.parse`.
   * @param options The authenticated principal, the notification channel, the cancel signal.
   * @returns The response; undefined for a notification, a response, or a cancelled request.
   *
   * @example
   * ```ts
   * import { McpServer, ToolRegistry } from "@tool-estate/core";
   * import assert from "node:assert/strict";
   *
   * const registry = new ToolRegistry();
   * registry.publish({
   *   name: "risk.exposure.get", version: "1.0.0", title: "Exposure", description: "Reads the risk warehouse.",
   *   inputSchema: { type: "object" }, sideEffect: "read", requiredScopes: ["risk:read"],
   *   dataClassification: "restricted", tenants: ["group"], owner: "group-risk",
   * });
   * const server = new McpServer({ registry, handlerFor: () => undefined });
   * const _meta = {
   *   "io.modelcontextprotocol/protocolVersion": "2026-07-28",
   *   "io.modelcontextprotocol/clientCapabilities": {},
   * };
   * const res = await server.handleStateless(
   *   { jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta } },
   *   { principal: { id: "analyst", scopes: [], tenant: "group", clearance: "internal" } },
   * );
   * assert.deepEqual((res as { result: Record<string, unknown> }).result.tools, []);
   * // Someone else would see the tool: the answer depends on who asks.
   * assert.equal((res as { result: Record<string, unknown> }).result.cacheScope, "private");
   * ```
   */
  async handleStateless(
    message: unknown,
    options: StatelessOptions,
  ): Promise<JsonRpcResponse | undefined> {
    return await handleStateless(this.#core, { ...options, message });
  }

  /**
   * Serves one message of the stateless revision whose envelope the transport already checked
   * (`validateEnvelope`), as {@linkcode McpServer.handleStateless} does, and says what happened:
   * the outcome a transport maps to its own answer (the HTTP transport: status and headers) without
   * deciding the message again.
   *
   * @param message The message, as `validateEnvelope` classified it.
   * @param options The authenticated principal, the notification channel, the cancel signal, the
   *   transport's header check.
   * @returns The response (none for a notification, a response or a cancelled request) and the
   *   outcome.
   */
  async serveStateless(
    message: ClassifiedMessage,
    options: StatelessOptions,
  ): Promise<Served> {
    return await serveStateless(this.#core, { ...options, classified: message });
  }

  /**
   * Serves one message from a session's client whose envelope the transport already checked
   * (`validateEnvelope`), as {@linkcode McpServer.handle} does, and says what happened: the
   * outcome a transport maps to its own answer (a `step-up` outcome: HTTP answers 403 with the
   * challenge instead of the response).
   *
   * @param message The message, as `validateEnvelope` classified it.
   * @param session The connection's session, from this server's `openSession()`.
   * @returns The response (none for a notification, a response or a cancelled request) and the
   *   outcome.
   * @throws {TypeError} When the session is not one this server opened.
   */
  async serve(message: ClassifiedMessage, session: Session): Promise<Served> {
    const s = this.#sessions.get(session);
    if (!s) {
      throw new TypeError(
        "serve() needs a session from this server's openSession()",
      );
    }
    return await serveInSession(this.#core, { classified: message, session: s });
  }

  /**
   * Handles one parsed JSON-RPC message from a session's client.
   *
   * @param message A value from `JSON.parse` (anything: invalid messages get the right error).
   * @param session The connection's session, from this server's `openSession()`: sessions
   *   belong to the server that opened them.
   * @returns The response for a request; undefined for a notification, a response, or a request
   *   the client cancelled. Never a response to a notification.
   * @throws {TypeError} When the session is not one this server opened (another server's
   *   included).
   */
  async handle(
    message: unknown,
    session: Session,
  ): Promise<JsonRpcResponse | undefined> {
    const s = this.#sessions.get(session);
    if (!s) {
      throw new TypeError(
        "handle() needs a session from this server's openSession()",
      );
    }
    return await handleInSession(this.#core, { message, session: s });
  }

  /**
   * Tells every session subscribed to a resource that it changed
   * (`notifications/resources/updated`) — every session whose principal may read it: a
   * subscription to a URI the principal may not see is kept (answered `{}`, as for any URI) but
   * hears nothing until it may.
   *
   * @param uri The resource.
   */
  resourceUpdated(uri: string): void {
    for (const s of this.#sessions) {
      if (
        s.state === "ready" && s.subscriptions.has(uri) &&
        mayRead(this.#options, { uri, principal: s.principal })
      ) {
        s.notify(makeNotification("notifications/resources/updated", { uri }));
      }
    }
  }

  /**
   * After a publish, deprecation or retirement: tell each session and listener whose view changed
   * — what `tools/list` shows, or, for a retirement, a version it could have reached by a pin.
   */
  #estateChanged(event?: EstateEvent): void {
    for (const s of this.#sessions) s.tools = undefined;
    // A retired version stops resolving for pins too: whoever could see it is affected, even when
    // their list (newest active versions) is the same.
    const retired = event?.type === "retired"
      ? this.#options.registry.version(event.name, event.version)?.spec
      : undefined;
    this.#tellChanged(
      () => true,
      (p) => retired !== undefined && canSee(retired, p),
    );
  }

  /**
   * Tells each listener and session of the principals chosen whose visible tools changed, or who
   * is `affected` otherwise; then sets the retirement timer again.
   */
  #tellChanged(
    chosen: (principal: Principal) => boolean,
    affected: (principal: Principal) => boolean = () => false,
  ): void {
    for (const l of this.#listeners) {
      if (!chosen(l.principal)) continue;
      const now = visibleSignature(this.#options.registry, l.principal);
      if (now === l.visible && !affected(l.principal)) continue;
      l.visible = now;
      try {
        l.notify(
          makeNotification("notifications/tools/list_changed", {
            _meta: { [STATELESS_META.subscriptionId]: l.id },
          }),
          l.id,
        );
      } catch {
        // A transport that failed to send cancels its own request.
      }
    }
    for (const s of this.#sessions) {
      if (s.state !== "ready" || !chosen(s.principal)) continue;
      const now = visibleSignature(this.#options.registry, s.principal);
      if (now === s.visible && !affected(s.principal)) continue;
      s.visible = now;
      try {
        s.notify(makeNotification("notifications/tools/list_changed"));
      } catch {
        // A transport that failed to send closes its own session.
      }
    }
    this.#retirement.arm();
  }
}
