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
import { validateEnvelope } from "../../jsonrpc/envelope.ts";
import { ERROR_CODES, JsonRpcError, MCP_ERROR_CODES } from "../../jsonrpc/errors.ts";
import { makeError } from "../../jsonrpc/messages.ts";
import type { JsonRpcId, JsonRpcResponse } from "../../jsonrpc/types.ts";
import type { Principal } from "../../estate/spec.ts";
import { LEGACY_PROTOCOL_VERSIONS } from "../protocol.ts";
import { classifyEra } from "../era.ts";
import { checkModernRequest, modernHeaderProblem } from "../rev2026_07_28.ts";
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
import { PostReply, writeJson, writeRefusal } from "./_http_reply.ts";
import {
  BearerChallenge,
  bearerChallengeHeader,
  PROTECTED_RESOURCE_WELL_KNOWN,
  protectedResourceMetadata,
  protectedResourceMetadataUrl,
  type ProtectedResourceOptions,
} from "./oauth_resource.ts";
import type { ScopeChallenge } from "../_call_tool.ts";
import { HttpSession } from "./_http_session.ts";
import { SseWriter } from "./_sse_writer.ts";

/** Options for {@linkcode serveHttp}. */
export interface ServeHttpOptions {
  /** Who is calling, from the request's headers (see `bearerTokens`); undefined answers 401. */
  authenticate: Authenticate;
  /** The address to listen on. Default `127.0.0.1`: only this machine can connect. */
  hostname?: string;
  /** The port. Default 0: a free port, which {@linkcode McpHttpServer.port} reports. */
  port?: number;
  /** The MCP endpoint's path. Default `/mcp`. */
  path?: string;
  /**
   * The `Host` header values answered (e.g. `mcp.bank.internal:8443`); anything else gets 403.
   * Default: `127.0.0.1`, `localhost` and `[::1]` with the port. Required when `hostname` is
   * not a loopback address.
   */
  allowedHosts?: readonly string[];
  /**
   * Browser origins allowed besides pages served from an allowed host (e.g.
   * `https://console.bank.example`); a request whose `Origin` is neither gets 403. Allowed
   * origins get CORS headers.
   */
  allowedOrigins?: readonly string[];
  /** The largest request body accepted, in bytes; larger gets 413. Default 1 MiB. */
  maxBodyBytes?: number;
  /**
   * How long a client may take to send a request's headers and body, and how long an idle
   * connection is kept, in milliseconds; a request body late past it gets 408. Default 30 s.
   */
  requestTimeoutMs?: number;
  /**
   * How long a connection may take to deliver a request's complete headers, in milliseconds,
   * however steadily the bytes trickle in; past it the connection gets 408 and is closed (a
   * kept-alive connection waiting for its next request is just closed); 0 for no such limit.
   * Default: `requestTimeoutMs`.
   */
  headersTimeoutMs?: number;
  /**
   * The most connections held at once; one more is answered 503 and closed at once. Default
   * 1024.
   */
  maxConnections?: number;
  /**
   * The most connections held at once from one remote address; one more is answered 503 and
   * closed at once. Behind a reverse proxy every client shares the proxy's address: raise it.
   * Default 128.
   */
  maxConnectionsPerAddress?: number;
  /** How often an SSE stream gets a keep-alive comment, in milliseconds; 0 for never. Default 15 s. */
  keepAliveMs?: number;
  /**
   * The most SSE events a session keeps for resumption (`Last-Event-ID`), all its streams
   * together; 0 makes streams not resumable (their events carry no ids). Default 256.
   */
  replayMaxEvents?: number;
  /** The most bytes of event data a session keeps for resumption. Default 1 MiB. */
  replayMaxBytes?: number;
  /**
   * How long events stay resumable, in milliseconds: a POST's stream after its request was
   * answered, the GET stream's after each was sent. Default 60 s.
   */
  replayWindowMs?: number;
  /**
   * How long a session may go unused (no request, no open GET stream) before it is ended, in
   * milliseconds; 0 for never. Default 30 minutes.
   */
  sessionIdleMs?: number;
  /** The most sessions open at once, all principals together; `initialize` past it gets 503. Default 1000. */
  maxSessions?: number;
  /**
   * The most sessions one principal may hold, so that no principal can take the others' share of
   * `maxSessions`. A principal at it that opens another ends its own session idle longest (no
   * request in flight, no GET stream open; the ended session's next request gets 404); when none
   * is idle, `initialize` gets 503 saying so. Default 100.
   */
  maxSessionsPerPrincipal?: number;
  /**
   * The server as an OAuth protected resource (RFC 9728): its Protected Resource Metadata
   * (`resource`, `authorization_servers`, `scopes_supported`, `bearer_methods_supported`) is
   * served to anyone (no credentials, any origin) at `/.well-known/oauth-protected-resource`
   * followed by the resource's path (`…/mcp`), and at `/.well-known/oauth-protected-resource`
   * itself; every 401 and 403 names it in `resource_metadata`, and a 401 asks for
   * `scopesSupported` in `scope`. Pair it with an authenticator for the same resource
   * (`accessTokens`).
   */
  protectedResource?: ProtectedResourceOptions;
  /**
   * The URL of the OAuth protected-resource metadata, named in every 401 and 403
   * `WWW-Authenticate` (`resource_metadata`). Default: where `protectedResource` is served.
   */
  resourceMetadataUrl?: string;
  /**
   * How often every open session and stateless stream is judged again with its latest
   * credentials (see {@linkcode McpHttpServer.reauthenticate}), in milliseconds, so that an
   * expired or revoked token also ends the streams it opened (its next request is refused
   * anyway). Default 0: only when `reauthenticate()` is called.
   */
  reauthenticateEveryMs?: number;
  /** Called with unexpected errors (a failing authenticator, a server bug); they are answered with 500. */
  onError?: (error: unknown) => void;
}

/** What {@linkcode McpHttpServer.reauthenticate} did. */
export interface ReauthenticateResult {
  /** Sessions and stateless streams ended because their credentials are no longer accepted. */
  ended: number;
  /** Principals whose sessions and streams took new scopes, tenant or clearance. */
  updated: number;
}

/** A running Streamable HTTP server. */
export interface McpHttpServer {
  /** The endpoint's URL, e.g. `http://127.0.0.1:49152/mcp`. */
  readonly url: string;
  /** The address listened on. */
  readonly hostname: string;
  /** The port listened on (the one chosen when 0 was asked for). */
  readonly port: number;
  /** How many sessions are open. */
  readonly sessionCount: number;
  /** How many connections are held (refused ones are never counted). */
  readonly connectionCount: number;
  /**
   * Checks every open session and stateless stream again, with the credentials of its latest
   * request, after the credentials changed (a token rotated or revoked, a principal's scopes
   * edited): first replacing the authenticator, when one is given. A session or stream whose
   * credentials are now refused (or stand for another principal) ends at once: the session's GET
   * stream closes and its next request gets 404 (401 with the old token); a stateless stream
   * (`subscriptions/listen`, a running call) is closed, or answered 401 before it started. A
   * principal whose scopes, tenant or clearance changed keeps its sessions and streams, and
   * {@linkcode McpServer.updatePrincipal} recomputes what they see (`list_changed` where that
   * changed). An authenticator that throws keeps the session (and reports to `onError`): the
   * next request is judged anyway.
   *
   * @param authenticate The new authenticator, replacing the one in use.
   * @returns How many sessions and streams ended, and how many principals were updated.
   */
  reauthenticate(authenticate?: Authenticate): Promise<ReauthenticateResult>;
  /**
   * Stops listening, ends every stream and session (the `McpServer` itself stays open), drops
   * every connection, and resolves when the socket is closed. Idempotent.
   */
  close(): Promise<void>;
}

const ALLOW = "GET, POST, DELETE";
const SUPPORTED_VERSIONS = LEGACY_PROTOCOL_VERSIONS;

function newSessionId(): string {
  const bytes = new Uint8Array(24);
  crypto.getRandomValues(bytes);
  return btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(
    /\//g,
    "_",
  );
}

/** Whether two principals are the same in everything that decides what they may see. */
function samePrincipal(a: Principal, b: Principal): boolean {
  const key = (p: Principal) => JSON.stringify([p.id, p.tenant, p.clearance, [...p.scopes].sort()]);
  return key(a) === key(b);
}

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

/** The endpoint: routes each request and owns the sessions. */
/** A POST of the stateless revision, as `#postStateless` serves it. */
interface StatelessPost {
  res: ServerResponse;
  credentials: HttpRequestInfo;
  cors: Record<string, string>;
  principal: Principal;
  /** The parsed body. */
  value: unknown;
  kind: "request" | "notification" | "response";
  id: JsonRpcId | null;
  method: string;
}

class StreamableHttpServer implements McpHttpServer {
  readonly url: string;
  readonly hostname: string;
  readonly port: number;
  readonly #server: McpServer;
  readonly #http: Server;
  readonly #options: ServeHttpOptions;
  readonly #guard: Guard;
  readonly #path: string;
  readonly #sessions = new Map<string, HttpSession>();
  readonly #calls = new Set<StatelessCall>();
  /** Counts session uses, to tell which session of a principal was idle longest. */
  #uses = 0;
  #authenticate: Authenticate;
  readonly #sweep: ReturnType<typeof setInterval> | undefined;
  readonly #recheck: ReturnType<typeof setInterval> | undefined;
  #closing: Promise<void> | undefined;
  /** The Protected Resource Metadata document and the paths it is served at. */
  readonly #metadata:
    | { body: Record<string, unknown>; paths: Set<string> }
    | undefined;
  /** The `resource_metadata` of every challenge. */
  readonly #metadataUrl: string | undefined;

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
    this.#authenticate = options.authenticate;
    this.#path = options.path ?? "/mcp";
    this.hostname = hostname;
    this.port = (http.address() as AddressInfo).port;
    const host = hostname.includes(":") && !hostname.startsWith("[") ? `[${hostname}]` : hostname;
    this.url = `http://${host}:${this.port}${this.#path}`;
    this.#guard = makeGuard(
      options.allowedHosts ?? loopbackHosts(this.port),
      options.allowedOrigins ?? [],
    );
    const idle = options.sessionIdleMs ?? HTTP_LIMITS.sessionIdleMs;
    if (idle > 0) {
      this.#sweep = setInterval(
        () => this.#expire(idle),
        Math.max(10, Math.min(idle / 2, 60_000)),
      );
    }
    const every = options.reauthenticateEveryMs ?? 0;
    if (every > 0) {
      this.#recheck = setInterval(() => {
        this.reauthenticate().catch((e) => options.onError?.(e));
      }, every);
    }
    const pr = options.protectedResource;
    if (pr) {
      const body = protectedResourceMetadata(pr);
      const own = new URL(protectedResourceMetadataUrl(pr.resource)).pathname;
      this.#metadata = {
        body,
        paths: new Set([own, PROTECTED_RESOURCE_WELL_KNOWN]),
      };
    }
    this.#metadataUrl = options.resourceMetadataUrl ??
      (pr ? protectedResourceMetadataUrl(pr.resource) : undefined);
  }

  get sessionCount(): number {
    return this.#sessions.size;
  }

  get connectionCount(): number {
    return this.#connections.count;
  }

  close(): Promise<void> {
    this.#closing ??= new Promise<void>((resolve) => {
      clearInterval(this.#sweep);
      clearInterval(this.#recheck);
      for (const s of [...this.#sessions.values()]) this.#end(s);
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
      this.#authenticate = authenticate;
    }
    const changed = new Map<string, Principal>();
    let ended = 0;
    /** The principal the credentials stand for now: undefined when refused, "keep" on failure. */
    const judge = async (
      credentials: HttpRequestInfo,
      was: Principal,
    ): Promise<Principal | undefined | "keep"> => {
      let now: Principal | undefined;
      try {
        now = await this.#authenticate(credentials);
      } catch (e) {
        if (e instanceof BearerChallenge) return undefined; // refused, with reasons
        this.#options.onError?.(e);
        return "keep";
      }
      if (now === undefined || now.id !== was.id) return undefined;
      if (!samePrincipal(now, was)) changed.set(now.id, now);
      return now;
    };
    for (const s of [...this.#sessions.values()]) {
      const verdict = await judge(s.credentials, s.session.principal);
      if (verdict === undefined && !s.ended) {
        this.#end(s);
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
      writeRefusal(res, 500, "Internal Server Error", {
        code: ERROR_CODES.INTERNAL_ERROR,
      });
    }
  }

  async #route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const headers = headerMap(req);
    const path0 = (req.url ?? "/").split("?")[0];
    if (this.#metadata?.paths.has(path0)) {
      return this.#serveMetadata(req, res, headers);
    }
    const problem = guardProblem(this.#guard, headers.host, headers.origin);
    if (problem) return writeRefusal(res, 403, problem);
    const cors = corsHeaders(headers.origin);
    const method = req.method ?? "GET";
    const path = (req.url ?? "/").split("?")[0];
    if (path !== this.#path) {
      return writeRefusal(
        res,
        404,
        `Not Found: ${path} is not the MCP endpoint; send MCP messages to ${this.#path}`,
        { headers: cors },
      );
    }
    if (method === "OPTIONS") {
      res.writeHead(204, {
        ...cors,
        ...preflightHeaders(),
        allow: `${ALLOW}, OPTIONS`,
      });
      res.end();
      return;
    }
    if (method !== "POST" && method !== "GET" && method !== "DELETE") {
      return writeRefusal(
        res,
        405,
        `Method Not Allowed: ${method} ${path}; the MCP endpoint takes POST, GET and DELETE`,
        { headers: { ...cors, allow: ALLOW } },
      );
    }
    let principal: Principal | undefined;
    const credentials: HttpRequestInfo = {
      method,
      path: req.url ?? path,
      headers,
      remoteAddress: req.socket.remoteAddress,
    };
    try {
      principal = await this.#authenticate(credentials);
    } catch (e) {
      if (e instanceof BearerChallenge) {
        return this.#unauthorized(res, headers, cors, e);
      }
      this.#options.onError?.(e);
      return writeRefusal(
        res,
        500,
        "Internal Server Error: the authenticator failed",
        {
          code: ERROR_CODES.INTERNAL_ERROR,
          headers: cors,
        },
      );
    }
    if (!principal) return this.#unauthorized(res, headers, cors);
    if (method === "POST") {
      return await this.#post(req, res, credentials, cors, principal);
    }
    if (headers["mcp-session-id"] === undefined) {
      // No handshake-era session: the stateless revision has no GET stream and no DELETE.
      return writeRefusal(
        res,
        405,
        `Method Not Allowed: ${method} needs an Mcp-Session-Id (handshake-era session); stateless requests are POSTed, and subscriptions/listen opens the notification stream`,
        { headers: { ...cors, allow: ALLOW } },
      );
    }
    const versionProblem = this.#versionProblem(headers);
    if (versionProblem) {
      return writeRefusal(res, 400, versionProblem, { headers: cors });
    }
    if (method === "GET") return this.#get(res, credentials, cors, principal);
    return this.#delete(res, credentials, cors, principal);
  }

  /**
   * The Protected Resource Metadata: public (any origin, no credentials), behind the Host check
   * only; GET or HEAD.
   */
  #serveMetadata(
    req: IncomingMessage,
    res: ServerResponse,
    headers: Record<string, string>,
  ): void {
    const problem = guardProblem(this.#guard, headers.host, undefined);
    if (problem) return writeRefusal(res, 403, problem);
    const cors: Record<string, string> = headers.origin === undefined
      ? {}
      : { "access-control-allow-origin": "*" };
    const method = req.method ?? "GET";
    if (method === "OPTIONS") {
      res.writeHead(204, {
        ...cors,
        "access-control-allow-methods": "GET",
        "access-control-allow-headers": "mcp-protocol-version",
        allow: "GET, HEAD, OPTIONS",
      });
      res.end();
      return;
    }
    if (method !== "GET" && method !== "HEAD") {
      return writeRefusal(
        res,
        405,
        `Method Not Allowed: ${method}; the metadata is read with GET`,
        {
          headers: { ...cors, allow: "GET, HEAD, OPTIONS" },
        },
      );
    }
    const text = JSON.stringify(this.#metadata!.body);
    res.writeHead(200, {
      ...cors,
      "content-type": "application/json",
      "cache-control": "max-age=300",
      "content-length": String(new TextEncoder().encode(text).length),
    });
    res.end(method === "HEAD" ? undefined : text);
  }

  /**
   * Refuses a request whose credentials are missing or not accepted: 401 (or the refusal's own
   * status) with a `WWW-Authenticate: Bearer` challenge — `error` only when credentials were
   * presented (RFC 6750 §3.1), `scope` the scopes to start with, `resource_metadata`.
   */
  #unauthorized(
    res: ServerResponse,
    headers: Record<string, string>,
    cors: Record<string, string>,
    refusal?: BearerChallenge,
  ): void {
    const presented = (headers.authorization ?? "").trim() !== "";
    const status = refusal?.status ?? 401;
    const scope = refusal?.scope ??
      (status === 401 ? this.#options.protectedResource?.scopesSupported : undefined);
    const challenge = bearerChallengeHeader({
      realm: "mcp",
      error: refusal?.error ?? (presented ? "invalid_token" : undefined),
      errorDescription: refusal?.message,
      scope,
      resourceMetadata: this.#metadataUrl,
    });
    const what = status === 400 ? "Bad Request" : status === 403 ? "Forbidden" : "Unauthorized";
    writeRefusal(
      res,
      status,
      refusal
        ? `${what}: ${refusal.message}`
        : presented
        ? "Unauthorized: the credentials in Authorization are not valid for this MCP server"
        : "Unauthorized: this MCP server needs an Authorization: Bearer <token> header",
      { headers: { ...cors, "www-authenticate": challenge } },
    );
  }

  /**
   * The step-up answer (MCP authorization, "Runtime Insufficient Scope Errors"): 403 with
   * `WWW-Authenticate: Bearer error="insufficient_scope"` and, in `scope`, the scopes the
   * credential has and those the call needs (so a token asked for with them loses nothing); the
   * body is this transport's refusal, a JSON-RPC error with the request's id, the same in both
   * eras.
   */
  #insufficientScope(
    res: ServerResponse,
    post: {
      cors: Record<string, string>;
      id: JsonRpcId | null;
      principal: Principal;
    },
    challenge: ScopeChallenge,
  ): void {
    const scope = [...new Set([...post.principal.scopes, ...challenge.needed])];
    const which = challenge.missing.length === 1 ? "scope" : "scopes";
    const description = `${challenge.tool} needs the ${which} ${challenge.missing.join(" ")}`;
    writeJson(res, 403, {
      jsonrpc: "2.0",
      id: post.id,
      error: {
        code: ERROR_CODES.INVALID_REQUEST,
        message:
          `Forbidden: insufficient_scope: ${description} to run, which the access token does not carry; authorize with scope "${
            scope.join(" ")
          }" and send the request again`,
        data: { error: "insufficient_scope", scope: scope.join(" ") },
      },
    }, {
      ...post.cors,
      "www-authenticate": bearerChallengeHeader({
        realm: "mcp",
        error: "insufficient_scope",
        errorDescription: description,
        scope,
        resourceMetadata: this.#metadataUrl,
      }),
    });
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

  /**
   * The session named by `Mcp-Session-Id`, or undefined after answering 400 (no header), 404
   * (unknown or ended) or 403 (another principal's).
   */
  #session(
    res: ServerResponse,
    credentials: HttpRequestInfo,
    cors: Record<string, string>,
    principal: Principal,
    what: string,
    id: JsonRpcId | null = null,
  ): HttpSession | undefined {
    const sessionId = credentials.headers["mcp-session-id"];
    if (sessionId === undefined) {
      writeRefusal(
        res,
        400,
        `Bad Request: ${what} needs an Mcp-Session-Id header; start a session with initialize`,
        { id, headers: cors },
      );
      return undefined;
    }
    const s = this.#sessions.get(sessionId);
    if (!s) {
      writeRefusal(
        res,
        404,
        "Not Found: the MCP session in Mcp-Session-Id does not exist or has ended; start a new one with initialize (without Mcp-Session-Id)",
        { id, headers: cors },
      );
      return undefined;
    }
    if (s.principalId !== principal.id) {
      writeRefusal(
        res,
        403,
        `Forbidden: the MCP session in Mcp-Session-Id belongs to another principal than ${principal.id}`,
        { id, headers: cors },
      );
      return undefined;
    }
    this.#touch(s);
    s.credentials = credentials;
    // Each request is served as its own credential has the principal (a step-up token's scopes).
    if (!samePrincipal(s.session.principal, principal)) {
      this.#server.updateSessionPrincipal(s.session, principal);
    }
    return s;
  }

  /** Marks a session used now. */
  #touch(s: HttpSession): void {
    s.lastSeen = Date.now();
    s.lastUse = ++this.#uses;
  }

  /**
   * Makes room for one more session of `principal` under its quota: ends its session idle longest
   * when it is at the quota. Returns why not (for the 503) when none is idle.
   */
  #makeRoom(principal: Principal): string | undefined {
    const quota = this.#options.maxSessionsPerPrincipal ??
      HTTP_LIMITS.maxSessionsPerPrincipal;
    const own = [...this.#sessions.values()].filter((s) => s.principalId === principal.id);
    if (own.length < quota) return undefined;
    const idle = own.filter((s) => s.idle).sort((a, b) => a.lastUse - b.lastUse);
    if (idle.length === 0) {
      return `Service Unavailable: ${principal.id} has ${own.length} sessions open, the most one principal may hold (maxSessionsPerPrincipal), and none is idle (each has a request in flight or a GET stream open): a new session ends that principal's session idle longest; end one with DELETE, or retry when a request has finished`;
    }
    this.#end(idle[0]);
    return undefined;
  }

  async #post(
    req: IncomingMessage,
    res: ServerResponse,
    credentials: HttpRequestInfo,
    cors: Record<string, string>,
    principal: Principal,
  ): Promise<void> {
    const headers = credentials.headers;
    if (
      !accepts(headers.accept, "application/json") ||
      !accepts(headers.accept, "text/event-stream")
    ) {
      return writeRefusal(
        res,
        406,
        "Not Acceptable: a POST to the MCP endpoint must accept both application/json and text/event-stream",
        { headers: cors },
      );
    }
    if (!isJsonContentType(headers["content-type"])) {
      return writeRefusal(
        res,
        415,
        `Unsupported Media Type: the body must be application/json, not ${
          headers["content-type"] ?? "(none)"
        }`,
        { headers: cors },
      );
    }
    const body = await readBody(req, {
      maxBytes: this.#options.maxBodyBytes ?? HTTP_LIMITS.maxBodyBytes,
      timeoutMs: this.#options.requestTimeoutMs ?? HTTP_LIMITS.requestTimeoutMs,
    });
    if (!body.ok) {
      const close: Record<string, string> = body.status === 400 ? {} : { connection: "close" };
      writeRefusal(res, body.status, body.message, {
        headers: { ...cors, ...close },
      });
      if (body.status === 408) res.once("finish", () => req.socket.destroy());
      return;
    }
    let value: unknown;
    try {
      value = JSON.parse(body.text);
    } catch (e) {
      return writeRefusal(
        res,
        400,
        `Parse error: the body is not valid JSON (${e instanceof Error ? e.message : e})`,
        { code: ERROR_CODES.PARSE_ERROR, headers: cors },
      );
    }
    let kind: "request" | "notification" | "response";
    let id: JsonRpcId | null = null;
    let method = "";
    try {
      const classified = validateEnvelope(value);
      kind = classified.kind;
      if (classified.kind === "request") {
        id = classified.message.id;
        method = classified.message.method;
      } else if (classified.kind === "notification") {
        method = classified.message.method;
      }
    } catch (e) {
      if (!(e instanceof JsonRpcError)) throw e;
      return writeRefusal(res, 400, `Bad Request: ${e.message}`, {
        id: e.requestId,
        headers: cors,
      });
    }
    const era = classifyEra(value, {
      protocolVersionHeader: headers["mcp-protocol-version"],
    });
    if (era === "stateless") {
      return await this.#postStateless({
        res,
        credentials,
        cors,
        principal,
        value,
        kind,
        id,
        method,
      });
    }
    const versionProblem = this.#versionProblem(headers);
    if (versionProblem) {
      return writeRefusal(res, 400, versionProblem, { id, headers: cors });
    }
    const isInitialize = kind === "request" && method === "initialize";
    let session: HttpSession | undefined;
    let created = false;
    if (isInitialize && headers["mcp-session-id"] === undefined) {
      const full = this.#makeRoom(principal);
      if (full) return writeRefusal(res, 503, full, { id, headers: cors });
      const max = this.#options.maxSessions ?? HTTP_LIMITS.maxSessions;
      if (this.#sessions.size >= max) {
        return writeRefusal(
          res,
          503,
          `Service Unavailable: this MCP server has too many open sessions (${max}, all principals together: maxSessions); try again later`,
          { id, headers: cors },
        );
      }
      session = this.#open(principal, credentials);
      created = true;
    } else {
      const what = kind === "response" ? "a response" : method;
      session = this.#session(res, credentials, cors, principal, what, id);
      if (!session) return;
    }
    if (kind !== "request") {
      await this.#server.handle(value, session.session);
      res.writeHead(202, cors);
      res.end();
      return;
    }
    const stepUp = created ? undefined : this.#server.scopeChallenge(value, principal);
    if (stepUp) {
      return this.#insufficientScope(res, { cors, id, principal }, stepUp);
    }
    const s = session;
    const reply = new PostReply(
      res,
      cors,
      this.#options.keepAliveMs ?? 15_000,
      (writer) => s.openStream(writer),
    );
    const release = session.routeRequest(id!, reply);
    session.busy++;
    let response: JsonRpcResponse | undefined;
    try {
      response = await this.#server.handle(value, session.session);
    } catch (e) {
      this.#options.onError?.(e);
      response = makeError(id, {
        code: ERROR_CODES.INTERNAL_ERROR,
        message: "Internal error",
      });
    } finally {
      release?.();
      session.busy--;
      this.#touch(session);
    }
    if (created) {
      if (response === undefined || !("result" in response)) {
        this.#end(session);
        return reply.finish(response);
      }
      return reply.finish(response, { "mcp-session-id": session.id });
    }
    reply.finish(response);
  }

  /**
   * A POST of the stateless revision: no session; the headers must agree with the body; the
   * response is JSON, or an SSE stream when notifications go first (always for
   * subscriptions/listen). Closing the response stream cancels the request.
   */
  async #postStateless(post: StatelessPost): Promise<void> {
    const { res, credentials, cors, principal, value, kind, id, method } = post;
    const headers = credentials.headers;
    if (kind !== "request") {
      res.writeHead(202, cors); // nothing for this server to do: cancellation is a closed stream
      res.end();
      return;
    }
    // In this order: a malformed envelope (-32602), headers that disagree with the body
    // (-32020), then an unsupported revision (-32022) or an unknown method (404, -32601).
    const params = (value as { params?: unknown }).params;
    let refused: JsonRpcError | undefined;
    try {
      checkModernRequest(method, params);
    } catch (e) {
      if (!(e instanceof JsonRpcError)) throw e;
      refused = e;
    }
    if (refused?.code === ERROR_CODES.INVALID_PARAMS) {
      return writeJson(res, 400, makeError(id, refused), cors);
    }
    const mismatch = modernHeaderProblem(headers, { method, params });
    if (mismatch) {
      return writeRefusal(res, 400, mismatch, {
        id,
        code: MCP_ERROR_CODES.HEADER_MISMATCH,
        headers: cors,
      });
    }
    if (refused) {
      const status = refused.code === ERROR_CODES.METHOD_NOT_FOUND ? 404 : 400;
      return writeJson(res, status, makeError(id, refused), cors);
    }
    const stepUp = this.#server.scopeChallenge(value, principal);
    if (stepUp) {
      return this.#insufficientScope(res, { cors, id, principal }, stepUp);
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
    let response: JsonRpcResponse | undefined;
    try {
      response = await this.#server.handleStateless(value, {
        principal,
        notify: (m) => reply.notify(m),
        signal: controller.signal,
      });
    } catch (e) {
      this.#options.onError?.(e);
      response = makeError(id, {
        code: ERROR_CODES.INTERNAL_ERROR,
        message: "Internal error",
      });
    } finally {
      this.#calls.delete(call);
    }
    if (revoked) {
      // The credentials were revoked while it ran: a stream just ends; an answer not begun is 401.
      if (res.headersSent) reply.finish(undefined);
      else this.#unauthorized(res, headers, cors);
      return;
    }
    if (controller.signal.aborted) return;
    // A capability the client did not declare is a 400 (2026-07-28), unless already streaming.
    const missing = response !== undefined && "error" in response &&
      response.error.code ===
        MCP_ERROR_CODES.MISSING_REQUIRED_CLIENT_CAPABILITY;
    reply.finish(response, {}, missing ? 400 : 200);
  }

  #get(
    res: ServerResponse,
    credentials: HttpRequestInfo,
    cors: Record<string, string>,
    principal: Principal,
  ): void {
    const headers = credentials.headers;
    if (!accepts(headers.accept, "text/event-stream")) {
      return writeRefusal(
        res,
        406,
        "Not Acceptable: a GET to the MCP endpoint opens an SSE stream; accept text/event-stream",
        { headers: cors },
      );
    }
    const session = this.#session(res, credentials, cors, principal, "GET");
    if (!session) return;
    const stream = new SseWriter(res, this.#options.keepAliveMs ?? 15_000);
    stream.open(cors);
    stream.comment("listening");
    stream.onEnd(() => this.#touch(session));
    if (session.ended) stream.end();
    else session.attach(stream, headers["last-event-id"]);
  }

  #delete(
    res: ServerResponse,
    credentials: HttpRequestInfo,
    cors: Record<string, string>,
    principal: Principal,
  ): void {
    const session = this.#session(res, credentials, cors, principal, "DELETE");
    if (!session) return;
    this.#end(session);
    res.writeHead(204, cors);
    res.end();
  }

  #open(principal: Principal, credentials: HttpRequestInfo): HttpSession {
    const o = this.#options;
    const s = new HttpSession(newSessionId(), principal.id, Date.now(), {
      maxEvents: o.replayMaxEvents ?? HTTP_LIMITS.replayMaxEvents,
      maxBytes: o.replayMaxBytes ?? HTTP_LIMITS.replayMaxBytes,
      windowMs: o.replayWindowMs ?? HTTP_LIMITS.replayWindowMs,
    });
    s.credentials = credentials;
    this.#touch(s);
    s.session = this.#server.openSession({
      principal,
      id: s.id,
      notify: (m, related) => s.notify(m, related),
      request: (m, related) => s.notify(m, related),
    });
    this.#sessions.set(s.id, s);
    return s;
  }

  #end(s: HttpSession): void {
    this.#sessions.delete(s.id);
    s.end();
    this.#server.closeSession(s.session);
  }

  #expire(idleMs: number): void {
    const cutoff = Date.now() - idleMs;
    for (const s of [...this.#sessions.values()]) {
      if (s.idle && s.lastSeen < cutoff) this.#end(s);
    }
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
 * error="insufficient_scope", scope="…"` before it is handled (`McpServer.scopeChallenge`); a tool
 * it cannot see is answered exactly as one that does not exist.
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
  });
  const http = createServer();
  http.on("connection", (socket: Socket) => {
    // Too many connections (in all, or from this address): 503 at once, never counted.
    if (!connections.admit(socket)) return;
    socket.setTimeout(idleMs, () => socket.destroy()); // silent, idle keep-alive
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
    connections.requestStarted(socket); // the headers arrived
    socket.setTimeout(0); // a request in progress is timed by its own deadline
    res.once("close", () => {
      connections.requestEnded(socket);
      if (!socket.destroyed) socket.setTimeout(idleMs);
    });
    endpoint.serve(req, res);
  });
  return endpoint;
}
