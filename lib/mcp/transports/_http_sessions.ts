/**
 * The handshake-era sessions of one Streamable HTTP endpoint: opening one under the quotas
 * (`maxSessions`, `maxSessionsPerPrincipal`: a principal at its quota gives up its session idle
 * longest), finding the one a request names (`Mcp-Session-Id`: missing, unknown or another
 * principal's are refused), and ending them (DELETE, idle expiry, close).
 *
 * @module
 */
import type { ServerResponse } from "node:http";
import type { JsonRpcId } from "../../jsonrpc/types.ts";
import type { Principal } from "../../estate/spec.ts";
import type { McpServer } from "../server.ts";
import type { HttpRequestInfo } from "./bearer_tokens.ts";
import { writeRefusal } from "./_http_reply.ts";
import { HttpSession } from "./_http_session.ts";
import { REFUSAL_STATUS } from "./_http_status.ts";

/** The limits and replay buffer of the sessions (the `serveHttp` options, defaults applied). */
export interface SessionLimits {
  /** Sessions open at once, all principals together. */
  maxSessions: number;
  /** Sessions one principal may hold. */
  maxSessionsPerPrincipal: number;
  /** How long a session may go unused before it ends (ms); 0: never. */
  sessionIdleMs: number;
  /** The replay buffer of each session. */
  replay: { maxEvents: number; maxBytes: number; windowMs: number };
}

function newSessionId(): string {
  const bytes = new Uint8Array(24);
  crypto.getRandomValues(bytes);
  return btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_");
}

/** Whether two principals are the same in everything that decides what they may see. */
export function samePrincipal(a: Principal, b: Principal): boolean {
  const key = (p: Principal) => JSON.stringify([p.id, p.tenant, p.clearance, [...p.scopes].sort()]);
  return key(a) === key(b);
}

/** The sessions of one endpoint. */
export class HttpSessions {
  readonly #server: McpServer;
  readonly #limits: SessionLimits;
  readonly #sessions = new Map<string, HttpSession>();
  /** Counts session uses, to tell which session of a principal was idle longest. */
  #uses = 0;
  readonly #sweep: ReturnType<typeof setInterval> | undefined;

  constructor(server: McpServer, limits: SessionLimits) {
    this.#server = server;
    this.#limits = limits;
    const idle = limits.sessionIdleMs;
    if (idle > 0) {
      this.#sweep = setInterval(
        () => this.#expire(idle),
        Math.max(10, Math.min(idle / 2, 60_000)),
      );
    }
  }

  /** How many are open. */
  get size(): number {
    return this.#sessions.size;
  }

  /** The open sessions, as a list (safe to end them while going through it). */
  list(): HttpSession[] {
    return [...this.#sessions.values()];
  }

  /**
   * Why another session of `principal` cannot open now (for the 503), after making room under its
   * quota by ending its session idle longest; undefined when it can.
   */
  refusal(principal: Principal): string | undefined {
    const quota = this.#limits.maxSessionsPerPrincipal;
    const own = this.list().filter((s) => s.principalId === principal.id);
    if (own.length >= quota) {
      const idle = own.filter((s) => s.idle).sort((a, b) => a.lastUse - b.lastUse);
      if (idle.length === 0) {
        return `Service Unavailable: ${principal.id} has ${own.length} sessions open, the most one principal may hold (maxSessionsPerPrincipal), and none is idle (each has a request in flight or a GET stream open): a new session ends that principal's session idle longest; end one with DELETE, or retry when a request has finished`;
      }
      this.end(idle[0]);
    }
    const max = this.#limits.maxSessions;
    if (this.#sessions.size >= max) {
      return `Service Unavailable: this MCP server has too many open sessions (${max}, all principals together: maxSessions); try again later`;
    }
    return undefined;
  }

  /** Opens a session for the principal. */
  open(principal: Principal, credentials: HttpRequestInfo): HttpSession {
    const s = new HttpSession(newSessionId(), principal.id, Date.now(), this.#limits.replay);
    s.credentials = credentials;
    this.touch(s);
    s.session = this.#server.openSession({
      principal,
      id: s.id,
      notify: (m, related) => s.notify(m, related),
      request: (m, related) => s.notify(m, related),
    });
    this.#sessions.set(s.id, s);
    return s;
  }

  /**
   * The session named by `Mcp-Session-Id`, or undefined after answering 400 (no header), 404
   * (unknown or ended) or 403 (another principal's). The request is served as its own credential
   * has the principal (a step-up token's scopes apply at once).
   */
  find(
    res: ServerResponse,
    request: {
      credentials: HttpRequestInfo;
      cors: Record<string, string>;
      principal: Principal;
      what: string;
      id?: JsonRpcId | null;
    },
  ): HttpSession | undefined {
    const { credentials, cors, principal, what } = request;
    const id = request.id ?? null;
    const sessionId = credentials.headers["mcp-session-id"];
    const s = sessionId === undefined ? undefined : this.#sessions.get(sessionId);
    if (sessionId === undefined) {
      writeRefusal(
        res,
        REFUSAL_STATUS["no-session"],
        `Bad Request: ${what} needs an Mcp-Session-Id header; start a session with initialize`,
        { id, headers: cors },
      );
    } else if (!s) {
      writeRefusal(
        res,
        REFUSAL_STATUS["unknown-session"],
        "Not Found: the MCP session in Mcp-Session-Id does not exist or has ended; start a new one with initialize (without Mcp-Session-Id)",
        { id, headers: cors },
      );
    } else if (s.principalId !== principal.id) {
      writeRefusal(
        res,
        REFUSAL_STATUS["other-principal"],
        `Forbidden: the MCP session in Mcp-Session-Id belongs to another principal than ${principal.id}`,
        { id, headers: cors },
      );
    } else {
      this.touch(s);
      s.credentials = credentials;
      if (!samePrincipal(s.session.principal, principal)) {
        this.#server.updateSessionPrincipal(s.session, principal);
      }
      return s;
    }
    return undefined;
  }

  /** Marks a session used now. */
  touch(s: HttpSession): void {
    s.lastSeen = Date.now();
    s.lastUse = ++this.#uses;
  }

  /** Ends a session. */
  end(s: HttpSession): void {
    this.#sessions.delete(s.id);
    s.end();
    this.#server.closeSession(s.session);
  }

  /** Ends every session and stops the idle sweep. */
  close(): void {
    clearInterval(this.#sweep);
    for (const s of this.list()) this.end(s);
  }

  #expire(idleMs: number): void {
    const cutoff = Date.now() - idleMs;
    for (const s of this.list()) {
      if (s.idle && s.lastSeen < cutoff) this.end(s);
    }
  }
}
