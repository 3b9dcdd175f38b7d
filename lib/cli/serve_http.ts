/** `estate serve --http`: filled in when the HTTP transport lands. */
import type { McpServer } from "../../mod.ts";
import type { EstateDir } from "../store/mod.ts";
import type { CliIO } from "./main.ts";

/**
 * Serves over Streamable HTTP until interrupted.
 *
 * @returns The exit code.
 */
export function serveHttpFromCli(
  _server: McpServer,
  _estate: EstateDir,
  _listen: string,
  io: CliIO,
  _log: (line: string) => void,
): Promise<number> {
  io.stderr("estate: --http is not available yet\n");
  return Promise.resolve(2);
}
