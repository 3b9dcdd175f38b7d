/** `estate serve --http HOST:PORT`: the example estate over Streamable HTTP until interrupted. */
import process from "node:process";
import type { McpServer } from "../../mod.ts";
import { bearerTokens, serveHttp } from "../mcp/transports/http_mod.ts";
import { tokenSha256 } from "../mcp/transports/bearer_tokens.ts";
import type { EstateDir, EstatePrincipal } from "../store/mod.ts";
import { DEMO_TOKENS } from "./demo_tokens.ts";
import type { CliIO } from "./main.ts";

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
 * @returns The exit code.
 */
export async function serveHttpFromCli(
  server: McpServer,
  estate: EstateDir,
  listen: string,
  io: CliIO,
  log: (line: string) => void,
): Promise<number> {
  const m = /^(.+):(\d{1,5})$/.exec(listen);
  if (!m || Number(m[2]) > 65535) {
    io.stderr(
      `estate: --http needs HOST:PORT, e.g. 127.0.0.1:3000, got ${JSON.stringify(listen)}\n`,
    );
    return 2;
  }
  const hostname = m[1].replace(/^\[(.*)\]$/, "$1");
  const principals = estate.principals();
  let http;
  try {
    http = await serveHttp(server, {
      hostname,
      port: Number(m[2]),
      authenticate: bearerTokens(principals),
    });
  } catch (e) {
    io.stderr(`estate: cannot serve on ${listen}: ${(e as Error).message}\n`);
    return 2;
  }
  const holders = principals.filter((p) => p.token !== undefined || p.tokenSha256 !== undefined);
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
    `  Publish into the estate while this runs (deno task estate publish FILE): connected clients get list_changed.`,
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
