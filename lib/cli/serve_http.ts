/** `estate serve --http HOST:PORT`: the example estate over Streamable HTTP until interrupted. */
import process from "node:process";
import type { McpServer } from "../../mod.ts";
import {
  bearerTokens,
  type McpHttpServer,
  serveHttp,
  type TokenPrincipal,
  tokenSha256,
} from "../mcp/transports/http_mod.ts";
import { HTTP_LIMITS } from "../mcp/transports/_http_limits.ts";
import type { EstateDir, EstatePrincipal } from "../store/mod.ts";
import { DEMO_TOKENS } from "./demo_tokens.ts";
import type { CliIO } from "./main.ts";
import { principalOnly, type PrincipalWatch } from "./_principal_watch.ts";

/** What `bearerTokens` needs of a principal: the principal and its credential, no description. */
function credentialOnly(p: EstatePrincipal): TokenPrincipal {
  const out: TokenPrincipal = principalOnly(p);
  if (p.tokenSha256 !== undefined) out.tokenSha256 = p.tokenSha256;
  if (p.token !== undefined) out.token = p.token;
  return out;
}

/** Logs each principal whose token `principals.json` keeps in plain text. */
function warnPlainTokens(principals: EstatePrincipal[], log: (line: string) => void): void {
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

/**
 * Serves over Streamable HTTP, printing how to connect (URL, demo tokens), until SIGINT or SIGTERM.
 *
 * @param server The MCP server.
 * @param estate The estate (its principals' demo tokens authenticate requests).
 * @param listen `HOST:PORT` (port 0 picks a free one).
 * @param io Where to print.
 * @param log The server log.
 * @param principals Where to say what to do when `principals.json` changed.
 * @returns The exit code.
 */
export async function serveHttpFromCli(
  server: McpServer,
  estate: EstateDir,
  listen: string,
  io: CliIO,
  log: (line: string) => void,
  principals: PrincipalWatch = { changed: () => {} },
): Promise<number> {
  const m = /^(.+):(\d{1,5})$/.exec(listen);
  if (!m || Number(m[2]) > 65535) {
    io.stderr(
      `estate: --http needs HOST:PORT, e.g. 127.0.0.1:3000, got ${JSON.stringify(listen)}\n`,
    );
    return 2;
  }
  const hostname = m[1].replace(/^\[(.*)\]$/, "$1");
  const loaded = estate.principals();
  let http: McpHttpServer;
  try {
    http = await serveHttp(server, {
      hostname,
      port: Number(m[2]),
      authenticate: bearerTokens(loaded.map(credentialOnly)),
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
    `MCP server for the estate in ${estate.dir}`,
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
    `  Publish into the estate while this runs (npx -y deno@2.9.6 task estate publish FILE): connected clients get list_changed.`,
    `  Edit principals.json while this runs: a revoked token is refused at once, changed scopes apply at once.`,
    `  Limits: ${HTTP_LIMITS.maxSessionsPerPrincipal} sessions per principal (${HTTP_LIMITS.maxSessions} in all), ${HTTP_LIMITS.maxConnectionsPerAddress} connections per address (${HTTP_LIMITS.maxConnections} in all), request headers within ${
      HTTP_LIMITS.requestTimeoutMs / 1000
    } s; estate serve --help says more.`,
    `  Ctrl-C stops it.`,
  ];
  io.stdout(lines.join("\n") + "\n");
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
