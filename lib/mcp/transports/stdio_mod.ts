/**
 * MCP over stdio (`@tool-estate/core/stdio`): serve an `McpServer` on a pair of streams, or spawn a
 * server command and talk to it. Uses `node:child_process` and Node streams.
 *
 * @module
 */
export {
  handleLine,
  type HandleLineOptions,
  serveStdio,
  type ServeStdioOptions,
  type StdioClientOptions,
  StdioClientTransport,
} from "./stdio.ts";
export { DEFAULT_MAX_MESSAGE_BYTES, MessageTooLargeError } from "./message_limit.ts";
