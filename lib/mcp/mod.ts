/**
 * MCP over the governed estate: the transport-agnostic server core, the client, the host
 * aggregator, and in-memory transports. Runtime transports live behind `./stdio` and `./http`.
 *
 * @module
 */
export {
  type CallToolResult,
  type ContentBlock,
  type Implementation,
  invalidArgumentsAsToolError,
  LATEST_LEGACY_PROTOCOL_VERSION,
  LEGACY_PROTOCOL_VERSIONS,
  type ListedTool,
  negotiateProtocolVersion,
  type Prompt,
  type PromptMessage,
  type Resource,
  type ResourceContents,
  type ResourceTemplate,
} from "./protocol.ts";
export {
  type CallRecord,
  LOG_LEVELS,
  type LogLevel,
  McpServer,
  type McpServerOptions,
  type Notify,
  PromptArgumentError,
  type PromptProvider,
  type ResourceProvider,
  type Session,
  type SessionState,
  type ToolContext,
  type ToolHandler,
} from "./server.ts";
export {
  type CallOutcome,
  type InitializeResult,
  McpClient,
  type McpClientOptions,
  McpProtocolError,
  type RequestOptions,
} from "./client.ts";
export { type HostTool, McpHost } from "./host.ts";
export { createLinkedTransports, serveTransport, type Transport } from "./transport.ts";
