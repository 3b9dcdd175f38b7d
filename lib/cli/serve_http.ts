/** `estate serve --http HOST:PORT`: the example estate over Streamable HTTP until interrupted. */
import process from "node:process";
import type { McpServer } from "../../mod.ts";
import {
  accessTokens,
  type Authenticate,
  bearerTokens,
  type McpHttpServer,
  protectedResourceMetadataUrl,
  type ProtectedResourceOptions,
  serveHttp,
  type TokenPrincipal,
  tokenSha256,
} from "../mcp/transports/http_mod.ts";
import type { OidcSettings } from "./_auth_config.ts";
import { HTTP_LIMITS } from "../mcp/transports/http_limits.ts";
import type { EstatePrincipal, EstateStore } from "../store/mod.ts";
import { DEMO_TOKENS } from "./demo_tokens.ts";
import type { CliIO } from "./_cli_io.ts";
import { principalOnly, type PrincipalWatch } from "./_principal_watch.ts";
import { pendingDesk } from "./_pending_desk.ts";
import type { ServerStatus } from "../gateway/status.ts";
import { type WebConsole, webConsole } from "./console/console.ts";

/** The console's path under `estate serve`. */
const CONSOLE_PATH = "/console";

/** The console over the estate, unless `--no-console`. */
function consoleFor(
  server: McpServer,
  options: HttpServeOptions & { console: boolean },
): WebConsole | undefined {
  if (!options.console) return undefined;
  const { estate, log, oidc } = options;
  return webConsole({
    ...(options.gateway ? { gateway: options.gateway } : {}),
    estate,
    path: CONSOLE_PATH,
    desk: pendingDesk(estate, Date.now),
    decided: () => void server.sweepPendingCalls(),
    log,
    signIn: oidc
      ? {
        kind: "oauth",
        allowHttp: oidc.authorizationServers.some((a) => a.issuer.startsWith("http:")),
        ...(oidc.scopesSupported ? { scope: oidc.scopesSupported.join(" ") } : {}),
      }
      : { kind: "tokens" },
  });
}

/** The line saying where the console is. */
function consoleLine(http: McpHttpServer, web: WebConsole | undefined, oauth = false): string {
  const how = oauth ? "with OAuth at the authorization server" : "with a principal's token";
  return web
    ? `  Console: ${
      new URL(web.path + "/", http.url).href
    } (sign in ${how}; --no-console turns it off)`
    : "  Console: off (--no-console)";
}

/** What `bearerTokens` needs of a principal: the principal and its credential, no description. */
function credentialOnly(p: EstatePrincipal): TokenPrincipal {
  const out: TokenPrincipal = principalOnly(p);
  if (p.tokenSha256 !== undefined) out.tokenSha256 = p.tokenSha256;
  if (p.token !== undefined) out.token = p.token;
  return out;
}

/** Logs each principal whose token `principals.json` keeps in plain text. */
function warnPlainTokens(
  principals: EstatePrincipal[],
  log: (line: string) => void,
): void {
  for (const p of principals) {
    if (p.token === undefined) continue;
    log(
      `warning: principals.json keeps ${p.id}'s token in plain text; store its SHA-256 as tokenSha256 instead (printf %s TOKEN | sha256sum)`,
    );
  }
}

/**
 * The token to print for a principal: a plain-text one from `principals.json`, or its demo token
 * while `tokenSha256` is that token's hash (never a token the file no longer accepts).
 */
function shownToken(p: EstatePrincipal): string | undefined {
  if (p.token !== undefined) return p.token;
  const demo = Object.hasOwn(DEMO_TOKENS, p.id) ? DEMO_TOKENS[p.id] : undefined;
  return demo !== undefined && p.tokenSha256 === tokenSha256(demo) ? demo : undefined;
}

/** What `estate serve --http` serves with. */
interface HttpServeOptions {
  /** The estate (its principals' demo tokens authenticate requests). */
  estate: EstateStore;
  /** Where it is, for the banner. */
  where: string;
  /** `HOST:PORT` (port 0 picks a free one). */
  listen: string;
  /** Where to print. */
  io: CliIO;
  /** The server log. */
  log: (line: string) => void;
  /** Where to say what to do when the principals changed. */
  principals?: PrincipalWatch;
  /** With `--auth oidc`, the resource server's settings (else static tokens). */
  oidc?: OidcSettings;
  /** When `estate serve` is a gateway: its upstream servers as it finds them now. */
  gateway?: () => ServerStatus[];
}

/**
 * Serves over Streamable HTTP, printing how to connect (URL, demo tokens, the console), until
 * SIGINT or SIGTERM.
 *
 * @param server The MCP server.
 * @param options The estate, the address, where to print and log, the principals' watch, OIDC;
 *   `console: false` for `--no-console`.
 * @returns The exit code.
 */
export async function serveHttpFromCli(
  server: McpServer,
  options: HttpServeOptions & { console?: boolean },
): Promise<number> {
  const web = consoleFor(server, { ...options, console: options.console ?? true });
  try {
    return await serveHttpWith(server, { ...options, web });
  } finally {
    web?.close();
  }
}

async function serveHttpWith(
  server: McpServer,
  options: HttpServeOptions & { web: WebConsole | undefined },
): Promise<number> {
  const { estate, where, listen, io, log, oidc, web } = options;
  const principals = options.principals ?? { changed: () => {} };
  const m = /^(.+):(\d{1,5})$/.exec(listen);
  if (!m || Number(m[2]) > 65535) {
    io.stderr(
      `estate: --http needs HOST:PORT, e.g. 127.0.0.1:3000, got ${JSON.stringify(listen)}\n`,
    );
    return 2;
  }
  const hostname = m[1].replace(/^\[(.*)\]$/, "$1");
  if (oidc) {
    return await serveOidc(server, {
      estate,
      where,
      hostname,
      port: Number(m[2]),
      io,
      log,
      principals,
      oidc,
      web,
    });
  }
  const loaded = estate.principals();
  let http: McpHttpServer;
  try {
    http = await serveHttp(server, {
      hostname,
      port: Number(m[2]),
      authenticate: bearerTokens(loaded.map(credentialOnly)),
      ...(web ? { pages: web.pages } : {}),
    });
  } catch (e) {
    io.stderr(`estate: cannot serve on ${listen}: ${(e as Error).message}\n`);
    return 2;
  }
  warnPlainTokens(loaded, log);
  // A changed principals.json takes effect at once: a revoked token's sessions and streams end,
  // a changed principal's views are recomputed (list_changed where they changed).
  principals.changed = () => {
    const now = estate.principals();
    let authenticate;
    try {
      authenticate = bearerTokens(now.map(credentialOnly));
    } catch (e) {
      log(
        `principals.json changed but its tokens cannot be used; the credentials read before stay in force: ${
          (e as Error).message
        }`,
      );
      return;
    }
    warnPlainTokens(now, log);
    http.reauthenticate(authenticate).then(
      ({ ended, updated }) =>
        log(
          `principals.json changed: ${ended} session(s) or stream(s) ended (credentials no longer accepted), ${updated} principal(s) updated`,
        ),
      (e) => log(`could not re-check the open sessions: ${(e as Error).message}`),
    );
  };
  const holders = loaded.filter((p) => p.token !== undefined || p.tokenSha256 !== undefined);
  const lines = [
    `MCP server for the estate in ${where}`,
    `  URL: ${http.url} (Streamable HTTP: the handshake era 2024-11-05 to 2025-11-25 and the stateless 2026-07-28)`,
    `  Each principal connects with its bearer token (Authorization: Bearer <token>):`,
    ...holders.map((p) =>
      `    ${p.id.padEnd(22)} ${
        shownToken(p) ?? "(not shown: principals.json keeps only its SHA-256)"
      }`
    ),
    `  For example: curl -s ${http.url} -H "Authorization: Bearer ${
      holders.map(shownToken).find((t) => t !== undefined) ?? "<token>"
    }" -H "Content-Type: application/json" -H "Accept: application/json, text/event-stream" -H "MCP-Protocol-Version: 2026-07-28" -H "Mcp-Method: server/discover" -d '{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}'`,
    consoleLine(http, web),
    `  Publish into the estate while this runs (estate publish FILE): connected clients get list_changed.`,
    `  Edit principals.json while this runs: a revoked token is refused at once, changed scopes apply at once.`,
    `  Limits: ${HTTP_LIMITS.maxSessionsPerPrincipal} sessions per principal (${HTTP_LIMITS.maxSessions} in all), ${HTTP_LIMITS.maxConnectionsPerAddress} connections per address (${HTTP_LIMITS.maxConnections} in all), request headers within ${
      HTTP_LIMITS.requestTimeoutMs / 1000
    } s; estate serve --help says more.`,
    `  Ctrl-C stops it.`,
  ];
  io.stdout(lines.join("\n") + "\n");
  return await untilStopped(http, log);
}

/** Logs, waits for SIGINT or SIGTERM, closes. */
async function untilStopped(
  http: McpHttpServer,
  log: (line: string) => void,
): Promise<number> {
  log(`listening on ${http.url}`);
  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
  });
  log("stopping");
  await http.close();
  return 0;
}

/**
 * `--auth oidc`: OAuth access tokens from the trusted authorization servers; the principal from
 * the token's claims, tenant and clearance from principals.json unless the token carries them.
 * Open sessions and streams are judged again every 30 s (an expired or revoked token ends them)
 * and when principals.json changes.
 */
async function serveOidc(
  server: McpServer,
  options: {
    estate: EstateStore;
    where: string;
    hostname: string;
    port: number;
    io: CliIO;
    log: (line: string) => void;
    principals: PrincipalWatch;
    oidc: OidcSettings;
    web: WebConsole | undefined;
  },
): Promise<number> {
  const { estate, where, hostname, port, io, log, principals, oidc, web } = options;
  const host = hostname.includes(":") ? `[${hostname}]` : hostname;
  const resource = oidc.resource ?? `http://${host}:${port}/mcp`;
  if (port === 0 && oidc.resource === undefined) {
    io.stderr(
      "estate: --auth oidc on port 0 needs --resource (the identifier tokens are issued for)\n",
    );
    return 2;
  }
  let authenticate: Authenticate;
  let protectedResource: ProtectedResourceOptions;
  try {
    authenticate = accessTokens({
      resource,
      audiences: oidc.audiences,
      authorizationServers: oidc.authorizationServers,
      claims: oidc.claims,
      defaults: oidc.defaults,
      // Read at each request: an edited principals.json applies at once.
      records: (id) => estate.principal(id),
      onRefused: (e) => log(`token refused (${e.status} ${e.error}): ${e.message}`),
    });
    protectedResource = {
      resource,
      authorizationServers: oidc.authorizationServers.map((a) => a.issuer),
    };
    if (oidc.scopesSupported) {
      protectedResource.scopesSupported = oidc.scopesSupported;
    }
  } catch (e) {
    io.stderr(`estate: --auth oidc: ${(e as Error).message}\n`);
    return 2;
  }
  let http: McpHttpServer;
  try {
    http = await serveHttp(server, {
      hostname,
      port,
      authenticate,
      protectedResource,
      reauthenticateEveryMs: 30_000,
      ...(web ? { pages: web.pages } : {}),
      onError: (e) => log(`error: ${(e as Error).message}`),
    });
  } catch (e) {
    io.stderr(
      `estate: cannot serve on ${hostname}:${port}: ${(e as Error).message}\n`,
    );
    return 2;
  }
  principals.changed = () => {
    http.reauthenticate().then(
      ({ ended, updated }) =>
        log(
          `principals.json changed: ${ended} session(s) or stream(s) ended, ${updated} principal(s) updated`,
        ),
      (e) => log(`could not re-check the open sessions: ${(e as Error).message}`),
    );
  };
  const issuers = oidc.authorizationServers.map((a) => a.issuer).join(", ");
  io.stdout(
    [
      `MCP server for the estate in ${where}`,
      `  URL: ${http.url} (Streamable HTTP, both eras), an OAuth 2.1 protected resource`,
      `  Resource identifier (the token's aud): ${resource}`,
      `  Protected Resource Metadata: ${protectedResourceMetadataUrl(resource)}`,
      `  Authorization server(s): ${issuers}`,
      `  Tokens: a JWT signed with a key of the issuer's JWKS${
        oidc.authorizationServers.some((a) => a.introspection) ? ", or an introspected one" : ""
      }; the principal is its ${oidc.claims.principal ?? "sub"} claim, scopes its ${
        oidc.claims.scopes ?? "scope"
      } claim, tenant and clearance ${
        oidc.claims.tenant ? `its ${oidc.claims.tenant} claim` : "principals.json's record"
      }.`,
      consoleLine(http, web, true),
      `  Ctrl-C stops it.`,
    ].join("\n") + "\n",
  );
  return await untilStopped(http, log);
}
