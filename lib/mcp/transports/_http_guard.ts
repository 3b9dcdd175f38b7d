/**
 * DNS-rebinding and cross-origin guards for the HTTP transport: which `Host` and `Origin` header
 * values a server accepts, and the CORS headers it answers allowed origins with.
 *
 * @module
 */

const LOOPBACK_NAMES = new Set(["localhost", "127.0.0.1", "::1", "[::1]"]);

/**
 * Whether a listening address only accepts connections from this machine.
 *
 * @param hostname The address passed to `listen`.
 * @returns True for `localhost`, `::1` and `127.0.0.0/8`.
 */
export function isLoopback(hostname: string): boolean {
  const name = hostname.toLowerCase();
  return LOOPBACK_NAMES.has(name) ||
    /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(name);
}

/**
 * The `Host` values a loopback server answers to by default: every loopback name with the port
 * (and without it on port 80, where clients omit it).
 *
 * @param port The listening port.
 * @returns Lower-case `host:port` values.
 */
export function loopbackHosts(port: number): string[] {
  const names = ["127.0.0.1", "localhost", "[::1]"];
  const hosts = names.map((n) => `${n}:${port}`);
  return port === 80 ? [...hosts, ...names] : hosts;
}

/** Which requests the server answers, by their `Host` and `Origin` headers. */
export interface Guard {
  /** Lower-case `Host` values accepted. */
  hosts: ReadonlySet<string>;
  /** Lower-case origins accepted (`scheme://host[:port]`). */
  origins: ReadonlySet<string>;
}

/**
 * Builds the guard: the hosts given (or the loopback defaults), and as origins the pages served
 * from those hosts plus any configured.
 *
 * @param hosts The accepted `Host` values.
 * @param extraOrigins Further origins to accept, e.g. `https://console.bank.example`.
 * @returns The guard.
 */
export function makeGuard(
  hosts: readonly string[],
  extraOrigins: readonly string[],
): Guard {
  const h = new Set(hosts.map((x) => x.toLowerCase()));
  const o = new Set([...h].map((x) => `http://${x}`));
  for (const origin of extraOrigins) {
    o.add(origin.toLowerCase().replace(/\/+$/, ""));
  }
  return { hosts: h, origins: o };
}

/**
 * Why a request is refused by the guard, or undefined when it may proceed. A request without
 * `Origin` (not from a browser) passes the origin check; one without `Host` fails.
 *
 * @param guard The guard.
 * @param host The `Host` header.
 * @param origin The `Origin` header.
 * @returns A sentence for the 403 body, or undefined.
 */
export function guardProblem(
  guard: Guard,
  host: string | undefined,
  origin: string | undefined,
): string | undefined {
  if (host === undefined || !guard.hosts.has(host.toLowerCase())) {
    return `Forbidden: Host ${
      host === undefined ? "(missing)" : JSON.stringify(host)
    } is not one this MCP server answers to (DNS rebinding protection; see the allowedHosts option)`;
  }
  if (origin !== undefined && !guard.origins.has(origin.toLowerCase())) {
    return `Forbidden: Origin ${
      JSON.stringify(origin)
    } is not allowed to call this MCP server (see the allowedOrigins option)`;
  }
  return undefined;
}

/**
 * The CORS headers for a request from an allowed origin (none without `Origin`).
 *
 * @param origin The request's `Origin`, already checked.
 * @returns Headers to add to the response.
 */
export function corsHeaders(
  origin: string | undefined,
): Record<string, string> {
  if (origin === undefined) return {};
  return {
    "access-control-allow-origin": origin,
    "access-control-expose-headers":
      "mcp-session-id, www-authenticate, deprecation, sunset, retry-after, idempotent-replayed",
    "vary": "Origin",
  };
}

/**
 * The extra headers answering a CORS preflight (`OPTIONS`) from an allowed origin.
 *
 * @returns Headers to add to the 204.
 */
export function preflightHeaders(): Record<string, string> {
  return {
    "access-control-allow-methods": "GET, POST, DELETE",
    "access-control-allow-headers":
      "authorization, content-type, accept, mcp-session-id, mcp-protocol-version, last-event-id, idempotency-key",
    "access-control-max-age": "600",
  };
}
