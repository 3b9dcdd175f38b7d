/**
 * What `serveHttp` takes and returns: its options (authentication, address, limits, the OAuth
 * protected resource) and the running server's handle.
 *
 * @module
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Authenticate } from "./bearer_tokens.ts";
import type { ProtectedResourceOptions } from "./oauth_resource.ts";

/** What {@linkcode ServeHttpOptions.pages} is handed beside the request. */
export interface HttpPagesContext {
  /**
   * The endpoint's authenticator as it is now (`reauthenticate` may have replaced it): pages
   * decide who is asking exactly as the MCP endpoint does.
   */
  authenticate: Authenticate;
}

/**
 * Answers a request for a path other than the MCP endpoint (a web console): true when it answered
 * (or is answering) it; false leaves it to the endpoint's 404. Called after the `Host` and `Origin`
 * guards, so a page is only ever served to an allowed host and a same-origin (or allowed) page.
 */
export type HttpPages = (
  req: IncomingMessage,
  res: ServerResponse,
  context: HttpPagesContext,
) => boolean | Promise<boolean>;

/** Options for `serveHttp`. */
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
   * Pages served beside the endpoint, on other paths (`estate serve`'s console): see
   * {@linkcode HttpPages}. Default: none (every other path is 404).
   */
  pages?: HttpPages;
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
   * `McpServer.updatePrincipal` recomputes what they see (`list_changed` where that
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
