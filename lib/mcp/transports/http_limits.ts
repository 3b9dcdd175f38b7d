/**
 * The HTTP transport's default limits, in one place: `serveHttp` applies them and
 * `estate serve --help` prints them.
 *
 * @module
 */

/** Each limit's default, by its `ServeHttpOptions` name. */
export const HTTP_LIMITS = {
  /** Sessions open at once, all principals together. */
  maxSessions: 1000,
  /** Sessions one principal may hold. */
  maxSessionsPerPrincipal: 100,
  /** How long a session may go unused before it ends (ms). */
  sessionIdleMs: 30 * 60_000,
  /** Connections held at once. */
  maxConnections: 1024,
  /** Connections held at once from one remote address. */
  maxConnectionsPerAddress: 128,
  /** How long a request's body may take, and how long an idle connection is kept (ms). */
  requestTimeoutMs: 30_000,
  /** The largest request body (bytes). */
  maxBodyBytes: 1024 * 1024,
  /** SSE events one session keeps for resumption (`Last-Event-ID`). */
  replayMaxEvents: 256,
  /** Bytes of SSE event data one session keeps for resumption. */
  replayMaxBytes: 1024 * 1024,
  /** How long kept events stay resumable (ms). */
  replayWindowMs: 60_000,
} as const;
