/**
 * The Streamable HTTP transport, server side (MCP revisions 2025-03-26, 2025-06-18 and
 * 2025-11-25): one endpoint taking POST (a JSON-RPC message), GET (the session's stream of server
 * notifications) and DELETE (end the session), with sessions, bearer authentication, and the
 * DNS-rebinding, size and time guards a bank's local or internal server needs. Built on
 * `node:http`, so it runs in Deno and in Node.
 *
 * Beside them, the stateless revision 2026-07-28: a POST whose body carries the
 * `io.modelcontextprotocol/protocolVersion` `_meta` envelope (or whose `MCP-Protocol-Version`
 * names that revision) is served without a session, for the principal authenticated on that very
 * request (see `McpServer.handleStateless`).
 *
 * The older HTTP+SSE transport of revision 2024-11-05 (a GET stream that announces a separate
 * POST endpoint) is not offered; such clients get 400 on their first GET.
 *
 * @module
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { type ClassifiedMessage, validateEnvelope } from "../../jsonrpc/envelope.ts";
import { ERROR_CODES, JsonRpcError } from "../../jsonrpc/errors.ts";
import { makeError } from "../../jsonrpc/messages.ts";
import type { JsonRpcId } from "../../jsonrpc/types.ts";
import type { Principal } from "../../estate/spec.ts";
import { HANDSHAKE_PROTOCOL_VERSIONS } from "../protocol.ts";
import { classifyEra } from "../era.ts";
import { statelessHeaderProblem } from "../rev2026_07_28.ts";
import type { Outcome, Served } from "../outcome.ts";
import { deprecationHeaders } from "../../estate/deprecation.ts";
import type { McpServer } from "../server.ts";
import type { Authenticate, HttpRequestInfo } from "./bearer_tokens.ts";
import { accepts, isJsonContentType, readBody } from "./_http_body.ts";
import { ConnectionGuard } from "./_http_connections.ts";
import { HTTP_LIMITS } from "./http_limits.ts";
import {
  corsHeaders,
  type Guard,
  guardProblem,
  isLoopback,
  loopbackHosts,
  makeGuard,
  preflightHeaders,
} from "./_http_guard.ts";
import { PostReply, writeRefusal } from "./_http_reply.ts";
import { AuthGuard } from "./_http_auth.ts";
import { HttpSessions, samePrincipal } from "./_http_sessions.ts";
import { NO_CONTENT, OUTCOME_STATUS, REFUSAL_STATUS } from "./_http_status.ts";
import { withIdempotencyHeader } from "./_idempotency_header.ts";
import type { HttpSession } from "./_http_session.ts";
import { SseWriter } from "./_sse_writer.ts";
import type {
  HttpPages,
  HttpPagesContext,
  McpHttpServer,
  ReauthenticateResult,
  ServeHttpOptions,
} from "./http_options.ts";

export type { HttpPages, HttpPagesContext, McpHttpServer, ReauthenticateResult, ServeHttpOptions };

const ALLOW = "GET, POST, DELETE";
const SUPPORTED_VERSIONS = HANDSHAKE_PROTOCOL_VERSIONS;

/** A stateless request being answered: its credentials, and how to end it if they are revoked. */
interface StatelessCall {
  readonly credentials: HttpRequestInfo;
  principal: Principal;
  revoke(): void;
}

function headerMap(req: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers)) {
    if (v !== undefined) out[k] = Array.isArray(v) ? v.join(", ") : v;
  }
  return out;
}

/**
 * The headers an answer carries beside its body: a deprecated version's `Deprecation` and
 * `Sunset`; `Idempotent-Replayed: true` on a stored outcome answered again; `Retry-After` on a
 * call beyond a limit, and while the first call with an idempotency key still runs.
 */
function toldHeaders(outcome: Outcome): Record<string, string> {
  if (outcome.kind === "rate-limited") {
    return { "retry-after": String(outcome.refusal.retryAfterSeconds) };
  }
  if (outcome.kind === "in-progress") {
    return { "retry-after": String(outcome.retryAfterSeconds) };
  }
  if (outcome.kind !== "answered") return {};
  return {
    ...(outcome.deprecation ? deprecationHeaders(outcome.deprecation) : {}),
    ...(outcome.replayed ? { "idempotent-replayed": "true" } : {}),
  };
}

/** An authenticated request to the endpoint, as the methods serve it. */
interface Admitted {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly credentials: HttpRequestInfo;
  readonly cors: Record<string, string>;
  readonly principal: Principal;
}

/** A POSTed message, its envelope checked once: what the server is handed. */
interface Posted extends Admitted {
  readonly classified: ClassifiedMessage;
  readonly id: JsonRpcId | null;
}

/**
 * The endpoint: HTTP only — the path, the methods, `Accept` and `Content-Type`, the body, the
 * sessions and the streams. Authentication stands in front of it (`AuthGuard`); the server
 * decides each message once and says what happened, and `OUTCOME_STATUS` says how HTTP answers.
 */
class StreamableHttpServer implements McpHttpServer {
  readonly url: string;
  readonly hostname: string;
  readonly port: number;
  readonly #server: McpServer;
  readonly #http: Server;
  readonly #options: ServeHttpOptions;
  readonly #guard: Guard;
  readonly #auth: AuthGuard;
  readonly #path: string;
  readonly #sessions: HttpSessions;
  readonly #calls = new Set<StatelessCall>();
  readonly #recheck: ReturnType<typeof setInterval> | undefined;
  #closing: Promise<void> | undefined;
  readonly #connections: ConnectionGuard;

  constructor(parts: {
    server: McpServer;
    http: Server;
    options: ServeHttpOptions;
    hostname: string;
    connections: ConnectionGuard;
  }) {
    const { server, http, options, hostname, connections } = parts;
    this.#server = server;
    this.#http = http;
    this.#connections = connections;
    this.#options = options;
    this.#auth = new AuthGuard(options);
    this.#path = options.path ?? "/mcp";
    this.hostname = hostname;
    this.port = (http.address() as AddressInfo).port;
    const host = hostname.includes(":") && !hostname.startsWith("[") ? `[${hostname}]` : hostname;
    this.url = `http://${host}:${this.port}${this.#path}`;
    this.#guard = makeGuard(
      options.allowedHosts ?? loopbackHosts(this.port),
      options.allowedOrigins ?? [],
    );
    this.#sessions = new HttpSessions(server, {
      maxSessions: options.maxSessions ?? HTTP_LIMITS.maxSessions,
      maxSessionsPerPrincipal: options.maxSessionsPerPrincipal ??
        HTTP_LIMITS.maxSessionsPerPrincipal,
      sessionIdleMs: options.sessionIdleMs ?? HTTP_LIMITS.sessionIdleMs,
      replay: {
        maxEvents: options.replayMaxEvents ?? HTTP_LIMITS.replayMaxEvents,
        maxBytes: options.replayMaxBytes ?? HTTP_LIMITS.replayMaxBytes,
        windowMs: options.replayWindowMs ?? HTTP_LIMITS.replayWindowMs,
      },
    });
    const every = options.reauthenticateEveryMs ?? 0;
    if (every > 0) {
      this.#recheck = setInterval(() => {
        this.reauthenticate().catch((e) => options.onError?.(e));
      }, every);
    }
  }

  get sessionCount(): number {
    return this.#sessions.size;
  }

  get connectionCount(): number {
    return this.#connections.count;
  }

  close(): Promise<void> {
    this.#closing ??= new Promise<void>((resolve) => {
      clearInterval(this.#recheck);
      this.#sessions.close();
      this.#http.close(() => resolve());
      this.#http.closeAllConnections();
      this.#connections.closeAll();
    });
    return this.#closing;
  }

  async reauthenticate(
    authenticate?: Authenticate,
  ): Promise<ReauthenticateResult> {
    if (authenticate !== undefined) {
      if (typeof authenticate !== "function") {
        throw new TypeError(
          "reauthenticate(): authenticate must be a function (see bearerTokens)",
        );
      }
      this.#auth.authenticate = authenticate;
    }
    const changed = new Map<string, Principal>();
    let ended = 0;
    const judge = async (credentials: HttpRequestInfo, was: Principal) => {
      const now = await this.#auth.recheck(credentials, was);
      if (now !== undefined && now !== "keep" && !samePrincipal(now, was)) changed.set(now.id, now);
      return now;
    };
    for (const s of this.#sessions.list()) {
      const verdict = await judge(s.credentials, s.session.principal);
      if (verdict === undefined && !s.ended) {
        this.#sessions.end(s);
        ended++;
      }
    }
    for (const call of [...this.#calls]) {
      const verdict = await judge(call.credentials, call.principal);
      if (verdict === undefined && this.#calls.has(call)) {
        call.revoke();
        ended++;
      } else if (verdict !== undefined && verdict !== "keep") {
        call.principal = verdict;
      }
    }
    for (const p of changed.values()) this.#server.updatePrincipal(p);
    return { ended, updated: changed.size };
  }

  /** Answers one HTTP request; never throws. */
  async serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    try {
      await this.#route(req, res);
    } catch (e) {
      this.#options.onError?.(e);
      writeRefusal(res, REFUSAL_STATUS["internal-error"], "Internal Server Error", {
        code: ERROR_CODES.INTERNAL_ERROR,
      });
    }
  }

  async #route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const headers = headerMap(req);
    const path = (req.url ?? "/").split("?")[0];
    if (this.#auth.serveMetadata(req, res, { path, headers, guard: this.#guard })) return;
    const problem = guardProblem(this.#guard, headers.host, headers.origin);
    if (problem) return writeRefusal(res, REFUSAL_STATUS["host-refused"], problem);
    const cors = corsHeaders(headers.origin);
    const method = req.method ?? "GET";
    if (path !== this.#path) {
      const pages = this.#options.pages;
      if (pages && await pages(req, res, { authenticate: this.#auth.authenticate })) return;
      return writeRefusal(
        res,
        REFUSAL_STATUS["wrong-path"],
        `Not Found: ${path} is not the MCP endpoint; send MCP messages to ${this.#path}`,
        { headers: cors },
      );
    }
    if (method === "OPTIONS") {
      res.writeHead(NO_CONTENT, { ...cors, ...preflightHeaders(), allow: `${ALLOW}, OPTIONS` });
      res.end();
      return;
    }
    if (method !== "POST" && method !== "GET" && method !== "DELETE") {
      return writeRefusal(
        res,
        REFUSAL_STATUS["method-not-allowed"],
        `Method Not Allowed: ${method} ${path}; the MCP endpoint takes POST, GET and DELETE`,
        { headers: { ...cors, allow: ALLOW } },
      );
    }
    const credentials: HttpRequestInfo = {
      method,
      path: req.url ?? path,
      headers,
      remoteAddress: req.socket.remoteAddress,
    };
    const principal = await this.#auth.admit(res, credentials, cors);
    if (!principal) return;
    const admitted: Admitted = { req, res, credentials, cors, principal };
    if (method === "POST") return await this.#post(admitted);
    if (headers["mcp-session-id"] === undefined) {
      // No handshake-era session: the stateless revision has no GET stream and no DELETE.
      return writeRefusal(
        res,
        REFUSAL_STATUS["method-not-allowed"],
        `Method Not Allowed: ${method} needs an Mcp-Session-Id (handshake-era session); stateless requests are POSTed, and subscriptions/listen opens the notification stream`,
        { headers: { ...cors, allow: ALLOW } },
      );
    }
    const versionProblem = this.#versionProblem(headers);
    if (versionProblem) {
      return writeRefusal(res, REFUSAL_STATUS["unsupported-version-header"], versionProblem, {
        headers: cors,
      });
    }
    if (method === "GET") return this.#get(admitted);
    return this.#delete(admitted);
  }

  #versionProblem(headers: Record<string, string>): string | undefined {
    const version = headers["mcp-protocol-version"];
    if (version === undefined || SUPPORTED_VERSIONS.includes(version)) {
      return undefined;
    }
    return `Bad Request: MCP-Protocol-Version ${
      JSON.stringify(version)
    } is not supported; this server speaks ${SUPPORTED_VERSIONS.join(", ")}`;
  }

  /** A POST: the media types, the body, the envelope (checked once), then the message's era. */
  async #post(admitted: Admitted): Promise<void> {
    const { req, res, credentials, cors } = admitted;
    const headers = credentials.headers;
    if (
      !accepts(headers.accept, "application/json") ||
      !accepts(headers.accept, "text/event-stream")
    ) {
      return writeRefusal(
        res,
        REFUSAL_STATUS["not-acceptable"],
        "Not Acceptable: a POST to the MCP endpoint must accept both application/json and text/event-stream",
        { headers: cors },
      );
    }
    if (!isJsonContentType(headers["content-type"])) {
      return writeRefusal(
        res,
        REFUSAL_STATUS["unsupported-media-type"],
        `Unsupported Media Type: the body must be application/json, not ${
          headers["content-type"] ?? "(none)"
        }`,
        { headers: cors },
      );
    }
    const body = await readBody(req, {
      maxBytes: this.#options.maxBodyBytes ?? HTTP_LIMITS.maxBodyBytes,
      timeoutMs: this.#options.requestTimeoutMs ?? HTTP_LIMITS.requestTimeoutMs,
      deadline: (ms, fire) => this.#connections.deadline(ms, fire),
    });
    if (!body.ok) {
      const close: Record<string, string> = body.refusal === "body-unreadable"
        ? {}
        : { connection: "close" };
      writeRefusal(res, REFUSAL_STATUS[body.refusal], body.message, {
        headers: { ...cors, ...close },
      });
      if (body.refusal === "body-timeout") res.once("finish", () => req.socket.destroy());
      return;
    }
    let value: unknown;
    try {
      value = JSON.parse(body.text);
    } catch (e) {
      return writeRefusal(
        res,
        REFUSAL_STATUS["parse-error"],
        `Parse error: the body is not valid JSON (${e instanceof Error ? e.message : e})`,
        { code: ERROR_CODES.PARSE_ERROR, headers: cors },
      );
    }
    let classified: ClassifiedMessage;
    try {
      classified = validateEnvelope(value);
    } catch (e) {
      if (!(e instanceof JsonRpcError)) throw e;
      return writeRefusal(res, REFUSAL_STATUS["invalid-envelope"], `Bad Request: ${e.message}`, {
        id: e.requestId,
        headers: cors,
      });
    }
    const id = classified.kind === "request" ? classified.message.id : null;
    const keyed = withIdempotencyHeader(classified, headers["idempotency-key"]);
    if (typeof keyed === "string") {
      return writeRefusal(res, REFUSAL_STATUS["idempotency-key-mismatch"], keyed, {
        code: ERROR_CODES.INVALID_PARAMS,
        id,
        headers: cors,
      });
    }
    const posted: Posted = { ...admitted, classified: keyed, id };
    const era = classifyEra(value, { protocolVersionHeader: headers["mcp-protocol-version"] });
    if (era === "stateless") return await this.#postStateless(posted);
    return await this.#postInSession(posted);
  }

  /** A POST of the handshake era: the message is served in the session it names (or opens). */
  async #postInSession(posted: Posted): Promise<void> {
    const { res, credentials, cors, principal, classified, id } = posted;
    const versionProblem = this.#versionProblem(credentials.headers);
    if (versionProblem) {
      return writeRefusal(res, REFUSAL_STATUS["unsupported-version-header"], versionProblem, {
        id,
        headers: cors,
      });
    }
    const method = classified.kind === "response" ? undefined : classified.message.method;
    let session: HttpSession | undefined;
    let created = false;
    if (method === "initialize" && credentials.headers["mcp-session-id"] === undefined) {
      const full = this.#sessions.refusal(principal);
      if (full) {
        return writeRefusal(res, REFUSAL_STATUS["sessions-full"], full, { id, headers: cors });
      }
      session = this.#sessions.open(principal, credentials);
      created = true;
    } else {
      const what = method ?? "a response";
      session = this.#sessions.find(res, { credentials, cors, principal, what, id });
      if (!session) return;
    }
    if (classified.kind !== "request") {
      const { outcome } = await this.#server.serve(classified, session.session);
      res.writeHead(OUTCOME_STATUS[outcome.kind].handshake, cors);
      res.end();
      return;
    }
    const s = session;
    const reply = new PostReply(
      res,
      cors,
      this.#options.keepAliveMs ?? 15_000,
      (writer) => s.openStream(writer),
    );
    const release = session.routeRequest(classified.message.id, reply);
    session.busy++;
    let served: Served;
    try {
      served = await this.#server.serve(classified, session.session);
    } catch (e) {
      served = this.#failed(id, e);
    } finally {
      release?.();
      session.busy--;
      this.#sessions.touch(session);
    }
    const { response, outcome } = served;
    if (outcome.kind === "step-up" && !res.headersSent) {
      return this.#auth.insufficientScope(res, { cors, id, principal }, outcome.challenge);
    }
    if (created) {
      if (response === undefined || !("result" in response)) {
        this.#sessions.end(session);
        return reply.finish(response);
      }
      return reply.finish(response, { "mcp-session-id": session.id });
    }
    reply.finish(response, toldHeaders(outcome), OUTCOME_STATUS[outcome.kind].handshake);
  }

  /**
   * A POST of the stateless revision: no session; the server checks the envelope, the headers
   * against the body (this transport's check, run in the server's order), the revision and the
   * method, then serves it — once. The response is JSON, or an SSE stream when notifications go
   * first (always for subscriptions/listen). Closing the response stream cancels the request.
   */
  async #postStateless(posted: Posted): Promise<void> {
    const { res, credentials, cors, principal, classified, id } = posted;
    if (classified.kind !== "request") {
      // Nothing for this server to do: cancellation is a closed stream.
      res.writeHead(OUTCOME_STATUS.accepted.stateless, cors);
      res.end();
      return;
    }
    const controller = new AbortController();
    res.once("close", () => {
      if (!res.writableFinished) controller.abort(); // the client closed the stream: cancel
    });
    const reply = new PostReply(res, cors, this.#options.keepAliveMs ?? 15_000);
    let revoked = false;
    const call: StatelessCall = {
      credentials,
      principal,
      revoke: () => {
        revoked = true;
        controller.abort();
      },
    };
    this.#calls.add(call);
    let served: Served;
    try {
      served = await this.#server.serveStateless(classified, {
        principal,
        notify: (m) => reply.notify(m),
        signal: controller.signal,
        checkHeaders: (request) => statelessHeaderProblem(credentials.headers, request),
      });
    } catch (e) {
      served = this.#failed(id, e);
    } finally {
      this.#calls.delete(call);
    }
    if (revoked) {
      // The credentials were revoked while it ran: a stream just ends; an answer not begun is 401.
      if (res.headersSent) reply.finish(undefined);
      else this.#auth.unauthorized(res, { headers: credentials.headers, cors });
      return;
    }
    if (controller.signal.aborted) return;
    const { response, outcome } = served;
    if (outcome.kind === "step-up" && !res.headersSent) {
      return this.#auth.insufficientScope(res, { cors, id, principal }, outcome.challenge);
    }
    reply.finish(response, toldHeaders(outcome), OUTCOME_STATUS[outcome.kind].stateless);
  }

  /** A server that threw instead of answering: `-32603`, the details to `onError` only. */
  #failed(id: JsonRpcId | null, e: unknown): Served {
    this.#options.onError?.(e);
    return {
      response: makeError(id, { code: ERROR_CODES.INTERNAL_ERROR, message: "Internal error" }),
      outcome: { kind: "failed" },
    };
  }

  #get(admitted: Admitted): void {
    const { res, credentials, cors, principal } = admitted;
    const headers = credentials.headers;
    if (!accepts(headers.accept, "text/event-stream")) {
      return writeRefusal(
        res,
        REFUSAL_STATUS["not-acceptable"],
        "Not Acceptable: a GET to the MCP endpoint opens an SSE stream; accept text/event-stream",
        { headers: cors },
      );
    }
    const session = this.#sessions.find(res, { credentials, cors, principal, what: "GET" });
    if (!session) return;
    const stream = new SseWriter(res, this.#options.keepAliveMs ?? 15_000);
    stream.open(cors);
    stream.comment("listening");
    stream.onEnd(() => this.#sessions.touch(session));
    if (session.ended) stream.end();
    else session.attach(stream, headers["last-event-id"]);
  }

  #delete(admitted: Admitted): void {
    const { res, credentials, cors, principal } = admitted;
    const session = this.#sessions.find(res, { credentials, cors, principal, what: "DELETE" });
    if (!session) return;
    this.#sessions.end(session);
    res.writeHead(NO_CONTENT, cors);
    res.end();
  }
}

/**
 * Serves an {@linkcode McpServer} over Streamable HTTP.
 *
 * The endpoint (default `/mcp`) answers:
 * - **POST** one JSON-RPC message (`Accept` must admit `application/json` and
 *   `text/event-stream`, else 406; `Content-Type: application/json`, else 415). A request gets
 *   `application/json`, unless a notification about it (its progress, or a tool's log messages)
 *   must go out first: then `text/event-stream` with those notifications and, last, the
 *   response. A notification or response gets 202. Invalid JSON gets 400 with a
 *   `-32700` error; anything else that is not one JSON-RPC message (a batch included) 400 with
 *   `-32600`.
 * - **GET** (`Accept: text/event-stream`) the session's stream of server notifications
 *   (`notifications/tools/list_changed`), with keep-alive comments. A new GET replaces the
 *   session's previous stream. Notifications sent while no stream is open wait in a small queue.
 *   A GET with `Last-Event-ID` resumes the stream that id belongs to (below).
 * - **DELETE** ends the session: 204.
 *
 * Resumption (handshake-era sessions): every SSE event carries an id `<stream>-<seq>`, unique
 * within the session, and streams of revision 2025-11-25 start with a priming event (an id, empty
 * data). A session keeps the events it sent, at most `replayMaxEvents` and `replayMaxBytes` (past
 * them completed streams go first, then the oldest events), each for `replayWindowMs` after its
 * POST was answered or, on the GET stream, after it was sent. A GET with `Last-Event-ID` of a
 * POST's stream gets the events after that id, then the request's further messages up to its
 * response, and ends; one of a GET stream continues that stream after the id. Events of other
 * streams are never replayed. An id that is malformed, unknown, or from before evicted events
 * starts a fresh GET stream without replay. Stateless (2026-07-28) streams are not resumable.
 *
 * Sessions: `initialize` without `Mcp-Session-Id` opens one for the authenticated principal and
 * returns its id in `Mcp-Session-Id` (192 random bits, base64url). Every other request needs it:
 * missing 400, unknown or ended 404, another principal's 403. Idle sessions end after
 * `sessionIdleMs`. At most `maxSessions` are open (then `initialize` gets 503), and at most
 * `maxSessionsPerPrincipal` of one principal: one more ends that principal's session idle longest
 * (503 when each has a request in flight or a GET stream), so no principal can lock the others out. `MCP-Protocol-Version`, when present, must be a supported revision (else 400);
 * when absent, the session's negotiated revision applies.
 *
 * Stateless requests (2026-07-28, see `classifyEra`): no session (an `Mcp-Session-Id` is
 * ignored). A malformed envelope gets 400 with `-32602`; `MCP-Protocol-Version`, `Mcp-Method` and
 * (for `tools/call`, `resources/read`, `prompts/get`) `Mcp-Name` (plain, or the base64 sentinel
 * `=?base64?…?=`) must equal the body, else 400 with `-32020`; an unsupported revision gets 400
 * with `-32022`; a method the revision does not have 404 with `-32601`. Everything else is 200:
 * JSON, or SSE when notifications go first. `subscriptions/listen` answers with an SSE stream
 * (the acknowledgement, then the notifications it asked for) that stays open until the client
 * closes it. Closing any stateless response stream cancels its request. GET and DELETE without
 * `Mcp-Session-Id` get 405.
 *
 * Guards, in this order: a connection past `maxConnections`, or past `maxConnectionsPerAddress`
 * from its address, is answered 503 and closed at once; request headers not complete within
 * `headersTimeoutMs` 408 and the connection closed; a `Host` not allowed or an `Origin` not allowed
 * 403; authentication 401 with `WWW-Authenticate: Bearer` (on every request: a revoked token stops
 * working mid-session, and `reauthenticate()` ends its sessions and streams at once); a body over
 * `maxBodyBytes` 413; a body not received within `requestTimeoutMs` 408 and the connection
 * dropped; connections idle that long are dropped too.
 *
 * Authorization (MCP's OAuth resource server): with `protectedResource`, the Protected Resource
 * Metadata is served at `/.well-known/oauth-protected-resource` (and with the resource's path
 * appended) to anyone, and every 401 names it. An authenticator may refuse with a particular
 * status and challenge by throwing `BearerChallenge` (`accessTokens` does: an expired token is 401
 * `invalid_token` saying so). Each request of a session is served as the principal its own
 * credential stands for (a stepped-up token's scopes apply at once). A `tools/call` of a tool the
 * principal sees whose `callScopes` its token lacks is answered 403 with `WWW-Authenticate: Bearer
 * error="insufficient_scope", scope="…"`: the call's own steps decide it, once, and nothing runs
 * (the outcome `step-up` of `McpServer.serve`); a tool it cannot see is answered exactly as one
 * that does not exist.
 *
 * @param server The MCP server (not closed by the HTTP server's `close`).
 * @param options Authentication, address, limits.
 * @returns The running server.
 * @throws {TypeError} When `hostname` is not a loopback address and `allowedHosts` is not given.
 * @throws {Error} When the address cannot be listened on.
 *
 * @example
 * ```ts
 * import { McpClient, McpServer, ToolRegistry } from "@tool-estate/core";
 * import { bearerTokens, serveHttp, StreamableHttpClientTransport } from "@tool-estate/core/http";
 * import assert from "node:assert/strict";
 *
 * const registry = new ToolRegistry();
 * registry.publish({
 *   name: "fx.quote", version: "1.0.0", title: "FX quote", description: "Quotes a rate from the pricing engine.",
 *   inputSchema: { type: "object", properties: { pair: { type: "string" } }, required: ["pair"] },
 *   sideEffect: "read", requiredScopes: [], dataClassification: "internal", tenants: [], owner: "treasury",
 * });
 * const server = new McpServer({ registry, handlerFor: () => ({ pair }) => `${pair} 1.17` });
 * const http = await serveHttp(server, {
 *   authenticate: bearerTokens([{ id: "desk", scopes: [], tenant: "group", clearance: "internal", token: "s3cret" }]),
 * });
 * const client = new McpClient(new StreamableHttpClientTransport(http.url, { token: "s3cret" }));
 * await client.connect();
 * const outcome = await client.callTool("fx.quote", { pair: "EURUSD" });
 * assert.equal(outcome.kind, "ok");
 * await client.close();
 * await http.close();
 * server.close();
 * ```
 */
export async function serveHttp(
  server: McpServer,
  options: ServeHttpOptions,
): Promise<McpHttpServer> {
  const hostname = options.hostname ?? "127.0.0.1";
  if (!isLoopback(hostname) && options.allowedHosts === undefined) {
    throw new TypeError(
      `serveHttp(): listening on ${hostname} (not a loopback address) needs allowedHosts: the Host header values clients will send`,
    );
  }
  if (typeof options.authenticate !== "function") {
    throw new TypeError(
      "serveHttp(): options.authenticate must be a function (see bearerTokens)",
    );
  }
  for (
    const key of [
      "replayMaxEvents",
      "replayMaxBytes",
      "replayWindowMs",
    ] as const
  ) {
    const v = options[key];
    if (v !== undefined && !(Number.isSafeInteger(v) && v >= 0)) {
      throw new TypeError(
        `serveHttp(): options.${key} must be a whole number of 0 or more, got ${String(v)}`,
      );
    }
  }
  const idleMs = options.requestTimeoutMs ?? HTTP_LIMITS.requestTimeoutMs;
  const connections = new ConnectionGuard({
    headersTimeoutMs: options.headersTimeoutMs ?? idleMs,
    maxConnections: options.maxConnections ?? HTTP_LIMITS.maxConnections,
    maxConnectionsPerAddress: options.maxConnectionsPerAddress ??
      HTTP_LIMITS.maxConnectionsPerAddress,
    idleMs,
  });
  const http = createServer();
  http.on("connection", (socket: Socket) => {
    // Too many connections (in all, or from this address): 503 at once, never counted.
    // Admitted, it is timed by the guard: its headers, and idle keep-alive (silently dropped).
    connections.admit(socket);
  });
  const port = options.port ?? 0;
  await new Promise<void>((resolve, reject) => {
    const fail = (e: Error): void =>
      reject(
        new Error(
          `serveHttp(): cannot listen on ${hostname}:${port}: ${e.message}`,
          { cause: e },
        ),
      );
    http.once("error", fail);
    http.listen(port, hostname, () => {
      http.off("error", fail);
      resolve();
    });
  });
  http.on("error", (e) => options.onError?.(e)); // after listening: e.g. out of file descriptors
  const endpoint = new StreamableHttpServer({
    server,
    http,
    options,
    hostname,
    connections,
  });
  http.on("request", (req: IncomingMessage, res: ServerResponse) => {
    // A client that resets mid-request is handled where it matters (the body read, the
    // streams' close events); the error event itself must never go unheard.
    req.on("error", () => {});
    res.on("error", () => {});
    const socket = req.socket;
    if (connections.refused(socket)) return; // parsed before the refusal closed it: never served
    connections.requestStarted(socket); // the headers arrived; the request has its own deadlines
    res.once("close", () => connections.requestEnded(socket));
    endpoint.serve(req, res);
  });
  return endpoint;
}
