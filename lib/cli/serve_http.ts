/** `estate serve --http HOST:PORT`: the example estate over Streamable HTTP until interrupted. */
import process from "node:process";
import type { McpServer } from "../../mod.ts";
import { bearerTokens, serveHttp } from "../mcp/transports/http_mod.ts";
import type { EstateDir } from "../store/mod.ts";
import type { CliIO } from "./main.ts";

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
  const lines = [
    `MCP server for the estate in ${estate.dir}`,
    `  URL: ${http.url} (Streamable HTTP: the handshake era 2024-11-05 to 2025-11-25 and the stateless 2026-07-28)`,
    `  Each principal connects with its bearer token (Authorization: Bearer <token>):`,
    ...principals.filter((p) => p.token).map((p) => `    ${p.id.padEnd(22)} ${p.token}`),
    `  For example: curl -s ${http.url} -H "Authorization: Bearer ${
      principals.find((p) => p.token)?.token ?? "<token>"
    }" -H "Content-Type: application/json" -H "Accept: application/json, text/event-stream" -H "MCP-Protocol-Version: 2026-07-28" -H "Mcp-Method: server/discover" -d '{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}'`,
    `  Publish into the estate while this runs (npx -y deno@2.9.6 task estate publish FILE): connected clients get list_changed.`,
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
