/**
 * The MCP server core, transport-agnostic: `handle(message, session)` takes one parsed message
 * and its connection's session and returns the response — or nothing, for a notification, a
 * response, or a request that was cancelled. `handleStateless(message, {principal})` serves the
 * stateless 2026-07-28 revision beside it (a transport picks with `isModernMessage`). The
 * registry decides which tools each principal sees; each prompt's, resource's and template's
 * declared `requires` decides, against the same discovery, what else they see — and whatever a
 * principal may not see is answered exactly as what does not exist.
 *
 * @module
 */
import { ERROR_CODES, JsonRpcError, MCP_ERROR_CODES } from "../jsonrpc/errors.ts";
import { validateEnvelope } from "../jsonrpc/envelope.ts";
import { makeError, makeNotification, makeResult } from "../jsonrpc/messages.ts";
import type {
  JsonRpcId,
  JsonRpcNotification,
  JsonRpcRequest,
  JsonRpcResponse,
} from "../jsonrpc/types.ts";
import { isValidConstraint } from "../compat/semver.ts";
import type { EstateEvent, ToolRegistry } from "../estate/registry.ts";
import {
  admitsEveryone,
  everyoneMeets,
  type Guarded,
  meetsRequirement,
  type Requirement,
} from "../estate/requirement.ts";
import {
  canSee,
  type McpTool,
  META_VERSION_KEY,
  type Principal,
  toMcpTool,
  type ToolSpec,
} from "../estate/spec.ts";
import { validateSchema } from "../schema/validate.ts";
import { type CacheScope, itemsForEveryone, uriRequirements, visibleItems } from "./_surfaces.ts";
import { type LimitedIssues, limitIssues, shortenText } from "../schema/issue_limit.ts";
import {
  checkModernRequest,
  MODERN_META,
  MODERN_PROTOCOL_VERSIONS,
  type ModernEnvelope,
} from "./rev2026_07_28.ts";
import {
  type CallToolResult,
  type Implementation,
  invalidArgumentsAsToolError,
  LEGACY_PROTOCOL_VERSIONS,
  negotiateProtocolVersion,
  type Prompt,
  type PromptMessage,
  type Resource,
  type ResourceContents,
  type ResourceTemplate,
} from "./protocol.ts";

/** What a tool handler gets besides its (validated) arguments. */
export interface ToolContext {
  /** Who is calling. */
  principal: Principal;
  /** The version being called. */
  spec: ToolSpec;
  /** Aborted when the caller cancels the request. */
  signal: AbortSignal;
  /** Reports progress, when the caller asked for it (a no-op otherwise); `progress` must increase. */
  progress(progress: number, total?: number, message?: string): void;
  /**
   * Sends a log message to the client (`notifications/message`), when its level is at or above
   * the level the client set with `logging/setLevel` (everything, until it sets one).
   */
  log(level: LogLevel, data: unknown, logger?: string): void;
  /**
   * The capabilities the client declared (in the handshake, or in the request's 2026-07-28
   * envelope). A handler that needs one it lacks throws {@linkcode MissingClientCapabilityError}.
   */
  clientCapabilities: Record<string, unknown>;
}

/**
 * Thrown by a tool handler that needs a client capability the client did not declare: the call is
 * answered with the protocol error `-32021` (MissingRequiredClientCapability, 2026-07-28) carrying
 * `data.requiredCapabilities`, instead of an `isError` result.
 */
export class MissingClientCapabilityError extends Error {
  /** The capabilities needed, e.g. `{ sampling: {} }`. */
  readonly requiredCapabilities: Record<string, unknown>;

  /**
   * Makes the error.
   *
   * @param requiredCapabilities The capabilities the tool needs, e.g. `{ sampling: {} }`.
   */
  constructor(requiredCapabilities: Record<string, unknown>) {
    super(`Missing required client capability: ${Object.keys(requiredCapabilities).join(", ")}`);
    this.name = "MissingClientCapabilityError";
    this.requiredCapabilities = requiredCapabilities;
  }
}

/** Syslog severities, as MCP's logging uses them, least severe first. */
export type LogLevel =
  | "debug"
  | "info"
  | "notice"
  | "warning"
  | "error"
  | "critical"
  | "alert"
  | "emergency";

/** The log levels, least severe first. */
export const LOG_LEVELS: readonly LogLevel[] = [
  "debug",
  "info",
  "notice",
  "warning",
  "error",
  "critical",
  "alert",
  "emergency",
];

/** Sends a notification; `relatedRequestId` names the request it belongs to (progress, logs). */
export type Notify = (message: JsonRpcNotification, relatedRequestId?: JsonRpcId) => void;

/**
 * Runs one tool version. Return a `CallToolResult`, or any other value to have it sent as JSON
 * text (and as `structuredContent` when it is an object). Throw to report a tool error: the model
 * sees the message, never a stack trace.
 */
export type ToolHandler = (args: Record<string, unknown>, context: ToolContext) => unknown;

/**
 * Resources a server offers; `read` returns undefined for an unknown URI.
 *
 * A resource or template that serves a tool's data declares it in `requires` (e.g.
 * `{ tools: ["payments.lookup"] }`): the server lists it, reads it, and sends its updates only to
 * principals who meet that, and answers everyone else exactly as for a URI that does not exist.
 * A URI is guarded by the requirement of the listed resource with that URI and of every template
 * it matches.
 */
export interface ResourceProvider {
  /** The resources offered (the server drops those whose `requires` the principal lacks). */
  list(principal: Principal): Guarded<Resource>[];
  /** The resource templates (the server drops those whose `requires` the principal lacks). */
  templates?(principal: Principal): Guarded<ResourceTemplate>[];
  /** A resource's contents, or undefined when there is no such resource (for this principal). */
  read(uri: string, principal: Principal): ResourceContents[] | undefined;
  /**
   * Whether `list`, `templates` and `read` may answer differently for different principals beyond
   * the `requires` the server applies. Default true, the safe assumption: answers are
   * `cacheScope: "private"`. Set false for a provider that ignores the principal; its answers are
   * then `public` where every item involved is for everyone.
   */
  variesByPrincipal?: boolean;
}

/** A prompt's arguments were wrong: the message says which. */
export class PromptArgumentError extends Error {
  /**
   * Makes the error.
   *
   * @param message Which argument is missing or wrong.
   */
  constructor(message: string) {
    super(message);
    this.name = "PromptArgumentError";
  }
}

/**
 * Prompts a server offers; `get` returns undefined for an unknown prompt.
 *
 * A prompt whose text names tools, or whose arguments complete to a tool's data, declares them in
 * `requires` (e.g. `{ tools: ["payments.lookup", "policy.search"] }`): the server lists it,
 * gets it and completes its arguments only for principals who meet that, and answers everyone
 * else exactly as for a prompt that does not exist — without calling `get` or `complete`.
 */
export interface PromptProvider {
  /** The prompts offered (the server drops those whose `requires` the principal does not meet). */
  list(principal: Principal): Guarded<Prompt>[];
  /**
   * A prompt's messages, or undefined when there is no such prompt.
   * @throws {PromptArgumentError} When a required argument is missing.
   */
  get(
    name: string,
    args: Record<string, string>,
    principal: Principal,
  ): { description?: string; messages: PromptMessage[] } | undefined;
  /**
   * Completions for a prompt argument's partial value (`completion/complete`); none when absent.
   * The values must be ones the principal may see (the example system filters by tenant and
   * scopes); none for a prompt it does not have.
   */
  complete?(name: string, argument: string, value: string, principal: Principal): string[];
  /**
   * Whether `list` may answer differently for different principals beyond the `requires` the
   * server applies. Default true: `prompts/list` is `cacheScope: "private"`. Set false for a
   * provider that ignores the principal; the list is then `public` when every prompt is for
   * everyone.
   */
  variesByPrincipal?: boolean;
}

/** One tool call, as logged: what `impact` and corpus replay learn from. */
export interface CallRecord {
  /** The principal's id. */
  principal: string;
  /** The tool. */
  tool: string;
  /** The version that served (or would have served) it. */
  version: string;
  /** How it ended. */
  outcome: "ok" | "tool-error" | "invalid-arguments" | "cancelled";
  /** Wall time in milliseconds. */
  durationMs: number;
  /** When it arrived (ISO 8601). */
  at: string;
  /** The arguments as received. */
  arguments: unknown;
}

/**
 * A probe, as logged: a request that named a tool, prompt or resource the server then answered as
 * nonexistent — because there is none, or because the principal may not see it. The client's
 * bytes are the same either way; only this record says which.
 */
export interface ProbeRecord {
  /** The principal's id. */
  principal: string;
  /** The request: `tools/call`, `prompts/get`, `resources/read` or `completion/complete`. */
  method: string;
  /** The tool or prompt name, or the resource URI, as sent. */
  name: string;
  /** For a `tools/call` pinned with `_meta["dev.tool-estate/version"]`: the constraint. */
  version?: string;
  /**
   * True when it exists but the principal may not see it (the estate has the tool; a requirement
   * kept the prompt or resource away); false when nothing by that name exists.
   */
  hidden: boolean;
  /** When it arrived (ISO 8601). */
  at: string;
}

/** Options for an {@linkcode McpServer}. */
export interface McpServerOptions {
  /** The estate: it decides what each principal sees and which version serves a call. */
  registry: ToolRegistry;
  /** The handler for a tool version, or undefined when none is deployed. */
  handlerFor: (spec: ToolSpec) => ToolHandler | undefined;
  /** Resources; none when absent. */
  resources?: ResourceProvider;
  /** Prompts; none when absent. */
  prompts?: PromptProvider;
  /** This server's `serverInfo`. */
  serverInfo?: Implementation;
  /** Instructions for the model, sent in the `initialize` result. */
  instructions?: string;
  /** Items per page of `tools/list`, `resources/list`, `prompts/list`. Default 50. */
  pageSize?: number;
  /** Called once per `tools/call` that reached a tool version (see {@linkcode CallRecord}). */
  onCall?: (record: CallRecord) => void;
  /**
   * Called once per probe (see {@linkcode ProbeRecord}): a `tools/call`, `prompts/get`,
   * `resources/read` or `completion/complete` for a hidden or nonexistent name. Nothing the
   * client receives changes.
   */
  onProbe?: (probe: ProbeRecord) => void;
  /**
   * The clock: call timings, and when the next retirement on its date is due for the timer.
   * Default `Date.now`.
   */
  now?: () => number;
  /**
   * Timers, for the retirement timer: while sessions or `subscriptions/listen` streams are open
   * the server keeps one timer set for the registry's next retirement on its date
   * (`registry.nextRetirement()`); when it fires the registry retires what is due, and every
   * session or stream that could see a retired version hears `notifications/tools/list_changed`.
   * Default: the platform's `setTimeout`/`clearTimeout`. Tests pass their own and move the clock.
   */
  timers?: ServerTimers;
  /**
   * How long a stateless (2026-07-28) client may cache a list, read or `server/discover` result
   * (`ttlMs`), in milliseconds. Default 0: re-fetch each time (the estate changes under
   * governance; a `subscriptions/listen` stream says when).
   */
  cacheTtlMs?: number;
}

/** Setting and clearing one timer (see `McpServerOptions.timers`). */
export interface ServerTimers {
  /** Calls `fn` once after `ms` milliseconds; returns a handle for `clearTimeout`. */
  setTimeout(fn: () => void, ms: number): unknown;
  /** Cancels a timer set with `setTimeout`. */
  clearTimeout(handle: unknown): void;
}

/** The longest delay a platform timer takes (2^31 - 1 ms, about 24.8 days); longer ones re-arm. */
const MAX_TIMER_MS = 2_147_483_647;
/** How long to wait when a timer fired before the registry's clock reached the retirement. */
const LATE_RETRY_MS = 1000;

/** Options for {@linkcode McpServer.handleStateless}: who is calling and how to reach them. */
export interface StatelessOptions {
  /** The principal the transport authenticated for this request. */
  principal: Principal;
  /**
   * Sends a notification related to this request (progress, log messages, and a
   * `subscriptions/listen` stream's notifications). Default: none are sent.
   */
  notify?: Notify;
  /** Aborted when the caller cancels (closes the HTTP stream, sends `notifications/cancelled`). */
  signal?: AbortSignal;
}

/** Where a session is in the handshake. */
export type SessionState = "new" | "initializing" | "ready" | "closed";

/** One connection's state: who is connected, and what was negotiated. */
export interface Session {
  /** A unique id (also the HTTP `Mcp-Session-Id`). */
  readonly id: string;
  /**
   * Who is connected: the id is fixed for the session; the scopes, tenant and clearance follow
   * {@linkcode McpServer.updatePrincipal}.
   */
  readonly principal: Principal;
  /** The handshake state. */
  readonly state: SessionState;
  /** The negotiated revision, after `initialize`. */
  readonly protocolVersion: string | undefined;
  /** What the client said about itself. */
  readonly clientInfo: Implementation | undefined;
  /** The client's declared capabilities. */
  readonly clientCapabilities: Record<string, unknown> | undefined;
}

/** Who a request is served for, and how to reach them: a session, or one stateless request. */
interface Caller {
  readonly principal: Principal;
  readonly protocolVersion: string | undefined;
  /** What the client declared (the handshake's `capabilities`, or the request's envelope). */
  readonly clientCapabilities: Record<string, unknown> | undefined;
  notify: Notify;
  /** The least severe log level wanted; undefined: no log messages. */
  logLevel: LogLevel | undefined;
}

/** An open `subscriptions/listen` (2026-07-28): what it asked for, and what it last saw. */
interface Listener {
  principal: Principal;
  readonly id: JsonRpcId;
  readonly notify: Notify;
  /** What the principal could see when last told: `name@version` joined. */
  visible: string;
}

interface SessionImpl extends Session {
  principal: Principal;
  state: SessionState;
  protocolVersion: string | undefined;
  clientInfo: Implementation | undefined;
  clientCapabilities: Record<string, unknown> | undefined;
  notify: Notify;
  /** The least severe log level the client wants (none set: everything). */
  logLevel: LogLevel;
  /** Resource URIs the client subscribed to. */
  subscriptions: Set<string>;
  /** The principal's `tools/list` entries, until the estate changes (pages reuse it). */
  tools: McpTool[] | undefined;
  /** What the principal could see when last told: `name@version` joined. */
  visible: string;
  inFlight: Map<JsonRpcId, { controller: AbortController; cancelled: boolean }>;
}

/** A protocol error answered with a JSON-RPC error response. */
function protocolError(code: number, message: string, data?: unknown): JsonRpcError {
  return new JsonRpcError(code, message, data === undefined ? {} : { data });
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function randomId(): string {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** Opaque list cursors: the offset of the next page, base64url-encoded with a check tag. */
function encodeCursor(offset: number): string {
  return btoa(`te1:${offset}`).replace(/=+$/, "").replace(/\+/g, "-").replace(/\//g, "_");
}

function decodeCursor(cursor: unknown, total: number): number {
  if (typeof cursor !== "string") {
    throw protocolError(ERROR_CODES.INVALID_PARAMS, "Invalid params: cursor must be a string");
  }
  let text: string;
  try {
    text = atob(cursor.replace(/-/g, "+").replace(/_/g, "/"));
  } catch {
    text = "";
  }
  const m = /^te1:(0|[1-9][0-9]{0,8})$/.exec(text);
  if (!m || Number(m[1]) > total) {
    throw protocolError(
      ERROR_CODES.INVALID_PARAMS,
      `Invalid params: unknown cursor ${JSON.stringify(cursor)}`,
    );
  }
  return Number(m[1]);
}

function issuesText(tool: string, limited: LimitedIssues): string {
  const n = limited.omitted;
  return `Invalid arguments for ${tool}:\n` +
    limited.issues.map((i) => `${i.path}: ${i.message} (${i.keyword})`).join("\n") +
    (n ? `\n… and ${n} more issue${n === 1 ? "" : "s"}` : "");
}

/** What an invalid-arguments answer carries: the first issues, and how many more (when any). */
function issuesData(limited: LimitedIssues): Record<string, unknown> {
  return limited.omitted
    ? { issues: limited.issues, omitted: limited.omitted }
    : { issues: limited.issues };
}

/** Wraps a handler's return value as a `CallToolResult`. */
function asResult(value: unknown): CallToolResult {
  if (isRecord(value) && Array.isArray(value.content)) return value as unknown as CallToolResult;
  const text = typeof value === "string" ? value : JSON.stringify(value ?? null);
  const result: CallToolResult = { content: [{ type: "text", text }] };
  if (isRecord(value)) result.structuredContent = value;
  return result;
}

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
  /** Every session this server opened, open or closed: another server's sessions are unknown here. */
  readonly #own = new WeakMap<Session, SessionImpl>();
  /** The open sessions. */
  readonly #sessions = new Set<SessionImpl>();
  readonly #listeners = new Set<Listener>();
  readonly #closed = new AbortController();
  readonly #unsubscribe: () => void;
  readonly #pageSize: number;
  readonly #now: () => number;
  readonly #timers: ServerTimers;
  /** The retirement timer, while one is set. */
  #timer: { handle: unknown } | undefined;

  /**
   * Makes a server and subscribes it to the registry's changes.
   *
   * @param options The registry, handlers, resources, prompts and logging.
   */
  constructor(options: McpServerOptions) {
    this.#options = options;
    this.#pageSize = options.pageSize ?? 50;
    this.#now = options.now ?? Date.now;
    this.#timers = options.timers ?? {
      setTimeout: (fn, ms) => setTimeout(fn, ms),
      clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
    };
    this.#unsubscribe = options.registry.subscribe((e) => this.#estateChanged(e));
  }

  /**
   * Opens a session for one connection.
   *
   * @param options Who is connected, and how to send them notifications.
   * @returns The session to pass to {@linkcode McpServer.handle}.
   */
  openSession(
    options: { principal: Principal; notify: Notify; id?: string },
  ): Session {
    const s: SessionImpl = {
      id: options.id ?? randomId(),
      principal: options.principal,
      state: "new",
      protocolVersion: undefined,
      clientInfo: undefined,
      clientCapabilities: undefined,
      notify: options.notify,
      logLevel: "debug",
      subscriptions: new Set(),
      tools: undefined,
      visible: "",
      inFlight: new Map(),
    };
    this.#own.set(s, s);
    this.#sessions.add(s);
    this.#armRetirement();
    return s;
  }

  /**
   * Closes a session: in-flight requests are aborted and it gets no more notifications. A
   * session another server opened is not this server's to close: nothing happens.
   *
   * @param session The session.
   */
  closeSession(session: Session): void {
    const s = this.#own.get(session);
    if (!s) return;
    s.state = "closed";
    for (const f of s.inFlight.values()) f.controller.abort();
    this.#sessions.delete(s);
    this.#armRetirement();
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
    this.#armRetirement();
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

  /** How many `subscriptions/listen` streams are open. */
  get listenerCount(): number {
    return this.#listeners.size;
  }

  /**
   * Handles one parsed message of the stateless 2026-07-28 revision (see `isModernMessage`):
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
    let classified;
    try {
      classified = validateEnvelope(message);
    } catch (e) {
      if (e instanceof JsonRpcError) return makeError(e.requestId, e);
      throw e;
    }
    // Notifications (cancellation included) belong to the transport, which owns the signals.
    if (classified.kind !== "request") return undefined;
    const request = classified.message;
    const signal = options.signal ?? new AbortController().signal;
    try {
      const params = request.params === undefined ? {} : request.params;
      if (!isRecord(params)) {
        throw protocolError(
          ERROR_CODES.INVALID_PARAMS,
          `Invalid params: ${request.method} takes named params (an object)`,
        );
      }
      const envelope = checkModernRequest(request.method, params);
      const result = await this.#statelessRequest(request, params, envelope, options, signal);
      if (result === undefined || signal.aborted) return undefined;
      return makeResult(request.id, result);
    } catch (e) {
      if (signal.aborted) return undefined;
      if (e instanceof JsonRpcError) return makeError(request.id, e);
      return makeError(request.id, protocolError(ERROR_CODES.INTERNAL_ERROR, "Internal error"));
    }
  }

  async #statelessRequest(
    r: JsonRpcRequest,
    params: Record<string, unknown>,
    envelope: ModernEnvelope,
    options: StatelessOptions,
    signal: AbortSignal,
  ): Promise<Record<string, unknown> | undefined> {
    const notify = options.notify ?? (() => {});
    const level = envelope.logLevel as LogLevel | undefined;
    const caller: Caller = {
      principal: options.principal,
      protocolVersion: envelope.protocolVersion,
      clientCapabilities: envelope.clientCapabilities,
      notify,
      logLevel: level !== undefined && LOG_LEVELS.includes(level) ? level : undefined,
    };
    const cached = (result: Record<string, unknown>, scope: CacheScope) =>
      this.#markComplete({ ...result, ttlMs: this.#ttlMs(), cacheScope: scope });
    switch (r.method) {
      case "server/discover": {
        const result: Record<string, unknown> = {
          supportedVersions: [...MODERN_PROTOCOL_VERSIONS],
          capabilities: {
            tools: { listChanged: true },
            resources: {},
            prompts: {},
            completions: {},
          },
        };
        if (this.#options.instructions) result.instructions = this.#options.instructions;
        return cached(result, "public");
      }
      case "tools/list":
        // Deterministic order; private when it varies with the principal's authorization.
        return cached(
          this.#page("tools", this.#visibleTools(caller.principal).map(toMcpTool), params.cursor),
          this.#toolsScope(),
        );
      case "tools/call":
        return this.#markComplete(
          { ...(await this.#callTool(caller, r.id, params, signal)) } as Record<string, unknown>,
        );
      case "resources/list": {
        const { items, scope } = this.#resources(caller.principal);
        return cached(this.#page("resources", items, params.cursor), scope);
      }
      case "resources/templates/list": {
        const { items, scope } = this.#templates(caller.principal);
        return cached(this.#page("resourceTemplates", items, params.cursor), scope);
      }
      case "resources/read": {
        const { result, scope } = this.#readResource(caller, params);
        return cached(result, scope);
      }
      case "prompts/list": {
        const { items, scope } = this.#prompts(caller.principal);
        return cached(this.#page("prompts", items, params.cursor), scope);
      }
      case "prompts/get":
        return this.#markComplete(this.#getPrompt(caller, params) as Record<string, unknown>);
      case "completion/complete":
        return this.#markComplete(this.#complete(caller, params) as Record<string, unknown>);
      case "subscriptions/listen":
        return await this.#listen(r.id, params, caller, signal);
      default:
        throw protocolError(ERROR_CODES.METHOD_NOT_FOUND, `Method not found: ${r.method}`);
    }
  }

  #ttlMs(): number {
    const ttl = this.#options.cacheTtlMs ?? 0;
    return Number.isSafeInteger(ttl) && ttl > 0 ? ttl : 0;
  }

  /** Marks a 2026-07-28 result complete and names the server in its `_meta`. */
  #markComplete(result: Record<string, unknown>): Record<string, unknown> {
    const meta = isRecord(result._meta) ? result._meta : {};
    return {
      ...result,
      resultType: "complete",
      _meta: { ...meta, [MODERN_META.serverInfo]: this.#serverInfo() },
    };
  }

  #serverInfo(): Implementation {
    return this.#options.serverInfo ?? { name: "tool-estate", version: "0.1.0" };
  }

  /** `subscriptions/listen`: acknowledge, then notify until cancelled or the server closes. */
  async #listen(
    id: JsonRpcId,
    params: Record<string, unknown>,
    caller: Caller,
    signal: AbortSignal,
  ): Promise<Record<string, unknown> | undefined> {
    const asked = params.notifications;
    if (!isRecord(asked)) {
      throw protocolError(
        ERROR_CODES.INVALID_PARAMS,
        "Invalid params: subscriptions/listen needs notifications (an object)",
      );
    }
    const accepted: Record<string, unknown> = {};
    if (asked.toolsListChanged === true) accepted.toolsListChanged = true;
    const tag = { [MODERN_META.subscriptionId]: id };
    caller.notify(
      makeNotification("notifications/subscriptions/acknowledged", {
        _meta: tag,
        notifications: accepted,
      }),
      id,
    );
    const listener: Listener = {
      principal: caller.principal,
      id,
      notify: caller.notify,
      visible: this.#visibleSignature(caller.principal),
    };
    if (accepted.toolsListChanged) {
      this.#listeners.add(listener);
      this.#armRetirement();
    }
    try {
      await new Promise<void>((resolve) => {
        if (signal.aborted || this.#closed.signal.aborted) return resolve();
        signal.addEventListener("abort", () => resolve(), { once: true });
        this.#closed.signal.addEventListener("abort", () => resolve(), { once: true });
      });
    } finally {
      if (this.#listeners.delete(listener)) this.#armRetirement();
    }
    // Cancelled: no response. Ended by the server: a successful response ends the stream.
    return signal.aborted ? undefined : this.#markComplete({ _meta: tag });
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
  async handle(message: unknown, session: Session): Promise<JsonRpcResponse | undefined> {
    const s = this.#own.get(session);
    if (!s) throw new TypeError("handle() needs a session from this server's openSession()");
    let classified;
    try {
      classified = validateEnvelope(message);
    } catch (e) {
      if (e instanceof JsonRpcError) return makeError(e.requestId, e);
      throw e;
    }
    if (classified.kind === "response") return undefined; // this server sends no requests
    if (classified.kind === "notification") {
      this.#notification(s, classified.message);
      return undefined;
    }
    const request = classified.message;
    if (s.state === "closed") {
      return makeError(
        request.id,
        protocolError(ERROR_CODES.INVALID_REQUEST, "Invalid Request: the session is closed"),
      );
    }
    const entry = { controller: new AbortController(), cancelled: false };
    if (s.inFlight.has(request.id)) {
      return makeError(
        request.id,
        protocolError(
          ERROR_CODES.INVALID_REQUEST,
          `Invalid Request: id ${JSON.stringify(request.id)} is already in use`,
        ),
      );
    }
    s.inFlight.set(request.id, entry);
    try {
      const result = await this.#request(s, request, entry.controller.signal);
      return entry.cancelled ? undefined : makeResult(request.id, result);
    } catch (e) {
      if (entry.cancelled) return undefined;
      if (e instanceof JsonRpcError) return makeError(request.id, e);
      return makeError(request.id, protocolError(ERROR_CODES.INTERNAL_ERROR, "Internal error"));
    } finally {
      s.inFlight.delete(request.id);
    }
  }

  #notification(s: SessionImpl, n: JsonRpcNotification): void {
    const params = isRecord(n.params) ? n.params : {};
    if (n.method === "notifications/initialized") {
      if (s.state === "initializing") {
        s.state = "ready";
        s.visible = this.#visibleSignature(s.principal);
      }
    } else if (n.method === "notifications/cancelled") {
      const f = s.inFlight.get(params.requestId as JsonRpcId);
      if (f) {
        f.cancelled = true;
        f.controller.abort(params.reason);
      }
    }
    // Any other notification (roots/list_changed, progress, ...) needs nothing from this server.
  }

  async #request(s: SessionImpl, r: JsonRpcRequest, signal: AbortSignal): Promise<unknown> {
    const params = r.params === undefined ? {} : r.params;
    if (!isRecord(params)) {
      throw protocolError(
        ERROR_CODES.INVALID_PARAMS,
        `Invalid params: ${r.method} takes named params (an object)`,
      );
    }
    if (r.method === "ping") return {};
    if (r.method === "initialize") return this.#initialize(s, params);
    if (s.state !== "ready") {
      throw protocolError(
        ERROR_CODES.INVALID_REQUEST,
        `Invalid Request: ${r.method} before initialization; send initialize, then notifications/initialized`,
      );
    }
    switch (r.method) {
      case "tools/list":
        s.tools ??= this.#visibleTools(s.principal).map(toMcpTool);
        return this.#page("tools", s.tools, params.cursor);
      case "tools/call":
        return await this.#callTool(s, r.id, params, signal);
      case "resources/list":
        return this.#page("resources", this.#resources(s.principal).items, params.cursor);
      case "resources/templates/list":
        return this.#page("resourceTemplates", this.#templates(s.principal).items, params.cursor);
      case "resources/read":
        return this.#readResource(s, params).result;
      case "prompts/list":
        return this.#page("prompts", this.#prompts(s.principal).items, params.cursor);
      case "prompts/get":
        return this.#getPrompt(s, params);
      case "logging/setLevel":
        if (!LOG_LEVELS.includes(params.level as LogLevel)) {
          throw protocolError(
            ERROR_CODES.INVALID_PARAMS,
            `Invalid params: level must be one of ${LOG_LEVELS.join(", ")}`,
          );
        }
        s.logLevel = params.level as LogLevel;
        return {};
      case "completion/complete":
        return this.#complete(s, params);
      case "resources/subscribe":
      case "resources/unsubscribe": {
        if (typeof params.uri !== "string") {
          throw protocolError(
            ERROR_CODES.INVALID_PARAMS,
            `Invalid params: ${r.method} needs uri (a string)`,
          );
        }
        if (r.method === "resources/subscribe") s.subscriptions.add(params.uri);
        else s.subscriptions.delete(params.uri);
        return {};
      }
      default:
        throw protocolError(ERROR_CODES.METHOD_NOT_FOUND, `Method not found: ${r.method}`);
    }
  }

  #initialize(s: SessionImpl, params: Record<string, unknown>): unknown {
    if (s.state !== "new") {
      throw protocolError(
        ERROR_CODES.INVALID_REQUEST,
        "Invalid Request: initialize was already received on this session",
      );
    }
    if (typeof params.protocolVersion !== "string") {
      throw protocolError(
        ERROR_CODES.INVALID_PARAMS,
        "Invalid params: initialize needs protocolVersion (a string)",
      );
    }
    if (params.capabilities !== undefined && !isRecord(params.capabilities)) {
      throw protocolError(
        ERROR_CODES.INVALID_PARAMS,
        "Invalid params: capabilities must be an object",
      );
    }
    s.protocolVersion = negotiateProtocolVersion(params.protocolVersion);
    s.clientCapabilities = (params.capabilities as Record<string, unknown>) ?? {};
    if (isRecord(params.clientInfo)) s.clientInfo = params.clientInfo as unknown as Implementation;
    s.state = "initializing";
    const result: Record<string, unknown> = {
      protocolVersion: s.protocolVersion,
      capabilities: {
        tools: { listChanged: true },
        resources: { subscribe: true },
        prompts: {},
        logging: {},
        completions: {},
      },
      serverInfo: this.#options.serverInfo ?? { name: "tool-estate", version: "0.1.0" },
    };
    if (this.#options.instructions) result.instructions = this.#options.instructions;
    return result;
  }

  #visibleTools(principal: Principal): ToolSpec[] {
    return this.#options.registry.discover(principal);
  }

  #visibleSignature(principal: Principal): string {
    return this.#visibleTools(principal).map((t) => `${t.name}@${t.version}`).join("\n");
  }

  /**
   * `tools/list` is the same for every principal exactly when each tool's newest active version
   * admits everyone: then discovery lists that version to all; otherwise someone sees less.
   */
  #toolsScope(): CacheScope {
    const registry = this.#options.registry;
    return registry.names().every((n) => {
        const latest = registry.latest(n);
        return latest === undefined || admitsEveryone(latest);
      })
      ? "public"
      : "private";
  }

  /**
   * The items of a provider's list a principal may see, in wire form, and the list's cache scope:
   * `public` only when the provider says it ignores the principal and every item is for everyone.
   */
  #surface<T>(
    provider: { variesByPrincipal?: boolean } | undefined,
    all: Guarded<T>[],
    principal: Principal,
  ): { items: T[]; scope: CacheScope } {
    const registry = this.#options.registry;
    const uniform = provider === undefined ||
      (provider.variesByPrincipal === false && itemsForEveryone(all, registry));
    return { items: visibleItems(all, principal, registry), scope: uniform ? "public" : "private" };
  }

  #resources(principal: Principal): { items: Resource[]; scope: CacheScope } {
    const p = this.#options.resources;
    return this.#surface(p, p?.list(principal) ?? [], principal);
  }

  #templates(principal: Principal): { items: ResourceTemplate[]; scope: CacheScope } {
    const p = this.#options.resources;
    return this.#surface(p, p?.templates?.(principal) ?? [], principal);
  }

  #prompts(principal: Principal): { items: Prompt[]; scope: CacheScope } {
    const p = this.#options.prompts;
    return this.#surface(p, p?.list(principal) ?? [], principal);
  }

  /** The requirements that guard a resource URI for this principal's provider answers. */
  #uriGuards(uri: string, principal: Principal): (Requirement | undefined)[] {
    const p = this.#options.resources;
    if (!p) return [];
    return uriRequirements(uri, p.list(principal), p.templates?.(principal) ?? []);
  }

  #mayRead(uri: string, principal: Principal): boolean {
    return this.#uriGuards(uri, principal).every((r) =>
      meetsRequirement(r, principal, this.#options.registry)
    );
  }

  /**
   * A prompt as the provider lists it for this principal: `visible` when listed and its
   * requirement met, `hidden` when listed but not met, `unlisted` otherwise (the provider decides).
   */
  #promptStanding(name: string, principal: Principal): "visible" | "hidden" | "unlisted" {
    const listed = this.#options.prompts?.list(principal).find((p) => p.name === name);
    if (!listed) return "unlisted";
    return meetsRequirement(listed.requires, principal, this.#options.registry)
      ? "visible"
      : "hidden";
  }

  #probe(
    s: Caller,
    probe: { method: string; name: string; hidden: boolean; version?: string },
  ): void {
    if (!this.#options.onProbe) return;
    const record: ProbeRecord = {
      principal: s.principal.id,
      method: probe.method,
      name: probe.name,
      hidden: probe.hidden,
      at: new Date(this.#now()).toISOString(),
    };
    if (probe.version !== undefined) record.version = probe.version;
    this.#options.onProbe(record);
  }

  #page<T>(key: string, items: T[], cursor: unknown): Record<string, unknown> {
    const start = cursor === undefined ? 0 : decodeCursor(cursor, items.length);
    const end = Math.min(items.length, start + this.#pageSize);
    const result: Record<string, unknown> = { [key]: items.slice(start, end) };
    if (end < items.length) result.nextCursor = encodeCursor(end);
    return result;
  }

  async #callTool(
    s: Caller,
    requestId: JsonRpcId,
    params: Record<string, unknown>,
    signal: AbortSignal,
  ): Promise<CallToolResult> {
    // 1. params shape
    if (typeof params.name !== "string") {
      throw protocolError(
        ERROR_CODES.INVALID_PARAMS,
        "Invalid params: tools/call needs name (a string)",
      );
    }
    if (params.arguments !== undefined && !isRecord(params.arguments)) {
      throw protocolError(
        ERROR_CODES.INVALID_PARAMS,
        "Invalid params: arguments must be an object",
      );
    }
    const meta = isRecord(params._meta) ? params._meta : {};
    const pin = meta[META_VERSION_KEY];
    if (pin !== undefined && (typeof pin !== "string" || !isValidConstraint(pin))) {
      throw protocolError(
        ERROR_CODES.INVALID_PARAMS,
        `Invalid params: _meta["${META_VERSION_KEY}"] must be a version constraint such as ^1.2.0`,
      );
    }
    // 2. discoverability: an invisible tool is answered exactly like an unknown one
    const name = params.name;
    const visible = this.#options.registry.visible(name, s.principal); // = discover(), one name
    if (!visible) {
      const hidden = this.#options.registry.versions(name).length > 0;
      this.#probe(s, { method: "tools/call", name, hidden });
      throw protocolError(ERROR_CODES.INVALID_PARAMS, `Unknown tool: ${shortenText(name)}`);
    }
    // 3. version resolution: a pin may reach a deprecated version the principal may see
    let spec = visible;
    if (typeof pin === "string") {
      const pinned = this.#options.registry.resolve(name, pin);
      if (!pinned || !canSee(pinned, s.principal)) {
        this.#probe(s, { method: "tools/call", name, version: pin, hidden: pinned !== undefined });
        throw protocolError(
          ERROR_CODES.INVALID_PARAMS,
          `No version of ${name} satisfies ${shortenText(pin)}`,
        );
      }
      spec = pinned;
    }
    const args = (params.arguments as Record<string, unknown>) ?? {};
    const started = this.#now();
    const record = (outcome: CallRecord["outcome"]): void => {
      this.#options.onCall?.({
        principal: s.principal.id,
        tool: spec.name,
        version: spec.version,
        outcome,
        durationMs: this.#now() - started,
        at: new Date(started).toISOString(),
        arguments: args,
      });
    };
    // 4. schema: invalid arguments never reach the handler
    //    The answer carries the first issues only (limitIssues): a request with 92,000 forbidden
    //    keys must not get a 19 MB error.
    const issues = validateSchema(spec.inputSchema, args);
    if (issues.length) {
      record("invalid-arguments");
      const limited = limitIssues(issues);
      if (!invalidArgumentsAsToolError(s.protocolVersion ?? LEGACY_PROTOCOL_VERSIONS[0])) {
        throw protocolError(
          ERROR_CODES.INVALID_PARAMS,
          `Invalid arguments for ${spec.name}`,
          issuesData(limited),
        );
      }
      return {
        content: [{ type: "text", text: issuesText(spec.name, limited) }],
        structuredContent: issuesData(limited),
        isError: true,
      };
    }
    // 5. handler
    const handler = this.#options.handlerFor(spec);
    if (!handler) {
      record("tool-error");
      return {
        content: [{
          type: "text",
          text: `${spec.name}@${spec.version} is not available right now`,
        }],
        isError: true,
      };
    }
    const token = isRecord(meta) ? meta.progressToken : undefined;
    let last = -Infinity;
    const progress = (value: number, total?: number, message?: string): void => {
      if (
        (typeof token !== "string" && typeof token !== "number") || signal.aborted ||
        !(value > last)
      ) return;
      last = value;
      const p: Record<string, unknown> = { progressToken: token, progress: value };
      if (total !== undefined) p.total = total;
      if (message !== undefined) p.message = message;
      s.notify(makeNotification("notifications/progress", p), requestId);
    };
    const log = (level: LogLevel, data: unknown, logger?: string): void => {
      if (
        signal.aborted || s.logLevel === undefined ||
        LOG_LEVELS.indexOf(level) < LOG_LEVELS.indexOf(s.logLevel)
      ) return;
      const p: Record<string, unknown> = { level, data };
      if (logger !== undefined) p.logger = logger;
      s.notify(makeNotification("notifications/message", p), requestId);
    };
    try {
      const value = await handler(args, {
        principal: s.principal,
        spec,
        signal,
        progress,
        log,
        clientCapabilities: s.clientCapabilities ?? {},
      });
      if (signal.aborted) {
        record("cancelled");
        return { content: [] };
      }
      const result = asResult(value);
      record(result.isError ? "tool-error" : "ok");
      return result;
    } catch (e) {
      if (e instanceof MissingClientCapabilityError) {
        record("tool-error");
        throw protocolError(MCP_ERROR_CODES.MISSING_REQUIRED_CLIENT_CAPABILITY, e.message, {
          requiredCapabilities: e.requiredCapabilities,
        });
      }
      record(signal.aborted ? "cancelled" : "tool-error");
      const message = e instanceof Error ? e.message : String(e);
      return {
        content: [{ type: "text", text: `${spec.name} failed: ${message}` }],
        isError: true,
      };
    }
  }

  /**
   * `resources/read`: a URI whose requirements the principal does not meet is answered as one
   * that does not exist, without asking the provider. The result is `public` only when the
   * provider ignores the principal and every requirement guarding the URI is for everyone.
   */
  #readResource(
    s: Caller,
    params: Record<string, unknown>,
  ): { result: Record<string, unknown>; scope: CacheScope } {
    if (typeof params.uri !== "string") {
      throw protocolError(
        ERROR_CODES.INVALID_PARAMS,
        "Invalid params: resources/read needs uri (a string)",
      );
    }
    const registry = this.#options.registry;
    const guards = this.#uriGuards(params.uri, s.principal);
    const hidden = !guards.every((r) => meetsRequirement(r, s.principal, registry));
    const contents = hidden ? undefined : this.#options.resources?.read(params.uri, s.principal);
    if (!contents || contents.length === 0) {
      this.#probe(s, { method: "resources/read", name: params.uri, hidden });
      // 2026-07-28 answers an unknown resource with -32602 (it must not emit -32002).
      const modern = MODERN_PROTOCOL_VERSIONS.includes(s.protocolVersion ?? "");
      throw protocolError(
        modern ? ERROR_CODES.INVALID_PARAMS : MCP_ERROR_CODES.RESOURCE_NOT_FOUND,
        `Resource not found: ${params.uri}`,
        {
          uri: params.uri,
        },
      );
    }
    const uniform = this.#options.resources?.variesByPrincipal === false &&
      guards.every((r) => everyoneMeets(r, registry));
    return { result: { contents }, scope: uniform ? "public" : "private" };
  }

  #getPrompt(s: Caller, params: Record<string, unknown>): unknown {
    if (typeof params.name !== "string") {
      throw protocolError(
        ERROR_CODES.INVALID_PARAMS,
        "Invalid params: prompts/get needs name (a string)",
      );
    }
    const args = params.arguments === undefined ? {} : params.arguments;
    if (!isRecord(args) || !Object.values(args).every((v) => typeof v === "string")) {
      throw protocolError(
        ERROR_CODES.INVALID_PARAMS,
        "Invalid params: prompt arguments must be an object of strings",
      );
    }
    const hidden = this.#promptStanding(params.name, s.principal) === "hidden";
    try {
      const prompt = hidden ? undefined : this.#options.prompts?.get(
        params.name,
        args as Record<string, string>,
        s.principal,
      );
      if (!prompt) {
        this.#probe(s, { method: "prompts/get", name: params.name, hidden });
        throw protocolError(ERROR_CODES.INVALID_PARAMS, `Unknown prompt: ${params.name}`);
      }
      return prompt;
    } catch (e) {
      if (e instanceof PromptArgumentError) {
        throw protocolError(ERROR_CODES.INVALID_PARAMS, `Invalid params: ${e.message}`);
      }
      throw e;
    }
  }

  #complete(s: Caller, params: Record<string, unknown>): unknown {
    const ref = isRecord(params.ref) ? params.ref : undefined;
    const argument = isRecord(params.argument) ? params.argument : undefined;
    if (
      !ref || typeof ref.type !== "string" || !argument || typeof argument.name !== "string" ||
      typeof argument.value !== "string"
    ) {
      throw protocolError(
        ERROR_CODES.INVALID_PARAMS,
        "Invalid params: completion/complete needs ref and argument {name, value}",
      );
    }
    let values: string[] = [];
    if (ref.type === "ref/prompt" && typeof ref.name === "string") {
      // A prompt the principal may not see completes to nothing, as one that does not exist.
      const standing = this.#promptStanding(ref.name, s.principal);
      if (standing !== "hidden") {
        values =
          this.#options.prompts?.complete?.(ref.name, argument.name, argument.value, s.principal) ??
            [];
      }
      if (standing !== "visible" && values.length === 0) {
        this.#probe(s, {
          method: "completion/complete",
          name: ref.name,
          hidden: standing === "hidden",
        });
      }
    } else if (ref.type !== "ref/resource") {
      throw protocolError(
        ERROR_CODES.INVALID_PARAMS,
        `Invalid params: unknown ref type ${JSON.stringify(ref.type)}`,
      );
    }
    return {
      completion: {
        values: values.slice(0, 100),
        total: values.length,
        hasMore: values.length > 100,
      },
    };
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
      if (s.state === "ready" && s.subscriptions.has(uri) && this.#mayRead(uri, s.principal)) {
        s.notify(makeNotification("notifications/resources/updated", { uri }));
      }
    }
  }

  /**
   * Keeps the retirement timer set for the registry's next retirement on its date, while anyone
   * is connected who could be told of it (none is set otherwise: nothing to tell, and a closed
   * server holds no timer).
   *
   * @param late The timer just fired and nothing was due yet by the registry's clock.
   */
  #armRetirement(late = false): void {
    const wanted = !this.#closed.signal.aborted &&
      (this.#sessions.size > 0 || this.#listeners.size > 0);
    // Asked first: reading the registry may retire what is due, and its events re-arm (nested).
    const next = wanted ? this.#options.registry.nextRetirement() : undefined;
    if (this.#timer) {
      this.#timers.clearTimeout(this.#timer.handle);
      this.#timer = undefined;
    }
    if (next === undefined) return;
    let delay = Date.parse(next) - this.#now();
    if (delay <= 0 && late) delay = LATE_RETRY_MS;
    const timer: { handle: unknown } = { handle: undefined };
    timer.handle = this.#timers.setTimeout(() => {
      if (this.#timer !== timer) return;
      this.#timer = undefined;
      const retired = this.#options.registry.retireDue(); // its events tell the sessions
      this.#armRetirement(retired.length === 0);
    }, Math.min(Math.max(delay, 0), MAX_TIMER_MS));
    this.#timer = timer;
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
      ? this.#options.registry.versions(event.name).find((r) => r.spec.version === event.version)
        ?.spec
      : undefined;
    this.#tellChanged(() => true, (p) => retired !== undefined && canSee(retired, p));
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
      const now = this.#visibleSignature(l.principal);
      if (now === l.visible && !affected(l.principal)) continue;
      l.visible = now;
      try {
        l.notify(
          makeNotification("notifications/tools/list_changed", {
            _meta: { [MODERN_META.subscriptionId]: l.id },
          }),
          l.id,
        );
      } catch {
        // A transport that failed to send cancels its own request.
      }
    }
    for (const s of this.#sessions) {
      if (s.state !== "ready" || !chosen(s.principal)) continue;
      const now = this.#visibleSignature(s.principal);
      if (now === s.visible && !affected(s.principal)) continue;
      s.visible = now;
      try {
        s.notify(makeNotification("notifications/tools/list_changed"));
      } catch {
        // A transport that failed to send closes its own session.
      }
    }
    this.#armRetirement();
  }
}
