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
  checkModernRequest,
  decodeHeaderValue,
  type HeaderCheckedRequest,
  MODERN_META,
  MODERN_METHODS,
  MODERN_PROTOCOL_VERSIONS,
  type ModernEnvelope,
  modernHeaderProblem,
  readModernEnvelope,
} from "./rev2026_07_28.ts";
export { classifyEra, type ClassifyEraOptions, isModernMessage, type MessageEra } from "./era.ts";
export {
  type CallRecord,
  type ConfirmationRecord,
  LOG_LEVELS,
  type LogLevel,
  McpServer,
  type McpServerOptions,
  MissingClientCapabilityError,
  type Notify,
  type OpenSessionOptions,
  type ProbeRecord,
  PromptArgumentError,
  type PromptProvider,
  type ResourceProvider,
  type ServerTimers,
  type Session,
  type SessionState,
  type StatelessOptions,
  type ToolContext,
  type ToolHandler,
} from "./server.ts";
export {
  type CallOutcome,
  type InitializeResult,
  type ListenFilter,
  McpClient,
  type McpClientEra,
  McpClientError,
  type McpClientErrorKind,
  type McpClientOptions,
  McpProtocolError,
  type RequestOptions,
  ResourceNotFoundError,
  type ResourceNotFoundErrorOptions,
  type Subscription,
  UnsupportedResultError,
} from "./client.ts";
export {
  type CacheScope,
  foldFreshness,
  type Freshness,
  type ListCacheEntry,
  listCacheKey,
  type ListCacheKeyOptions,
  type ListCacheStore,
} from "./list_cache.ts";
export { type ExposedNameOptions, type HostTool, McpHost } from "./host.ts";
export {
  type AskOptions,
  CONFIRMATION,
  CONFIRMATION_SCHEMA,
  confirmationMessage,
  type ElicitationRequest,
  type ElicitationResult,
  type FormElicitation,
  needsConfirmation,
  type Root,
  type SamplingMessage,
  type SamplingRequest,
  type SamplingResult,
  type UrlElicitation,
} from "./asks.ts";
export {
  createLinkedTransports,
  serveTransport,
  type ServeTransportOptions,
  type Transport,
} from "./transport.ts";
