/**
 * MCP over the governed estate: the transport-agnostic server core, the client, the host
 * aggregator, and in-memory transports. Runtime transports live behind `./stdio` and `./http`.
 *
 * @module
 */
export {
  type CallToolResult,
  type ContentBlock,
  HANDSHAKE_PROTOCOL_VERSIONS,
  type Implementation,
  invalidArgumentsAsToolError,
  LATEST_HANDSHAKE_PROTOCOL_VERSION,
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
  checkStatelessRequest,
  decodeHeaderValue,
  type HeaderCheckedRequest,
  MODERN_META,
  MODERN_METHODS,
  MODERN_PROTOCOL_VERSIONS,
  type ModernEnvelope,
  modernHeaderProblem,
  readModernEnvelope,
  readStatelessEnvelope,
  STATELESS_META,
  STATELESS_METHODS,
  STATELESS_PROTOCOL_VERSIONS,
  type StatelessEnvelope,
  statelessHeaderProblem,
} from "./rev2026_07_28.ts";
export {
  type ClientCapabilityName,
  isMcpMethod,
  MCP_METHODS,
  type McpMethodName,
  type MethodFacts,
  type MethodSender,
  methodsOf,
  type MethodsOfOptions,
  PROTOCOL_ERAS,
  type ProtocolEra,
  serverCapabilitiesOf,
  type ServerCapabilityName,
} from "./methods.ts";
export { isProbeAuditRecord } from "./_call_audit.ts";
export { classifyEra, type ClassifyEraOptions, isModernMessage, type MessageEra } from "./era.ts";
export {
  type CallApprovalOptions,
  type CallRecord,
  type ConfirmationRecord,
  LOG_LEVELS,
  type LogEntry,
  type LogLevel,
  McpServer,
  type McpServerOptions,
  MissingClientCapabilityError,
  type Notify,
  type OpenSessionOptions,
  type ProbeRecord,
  PromptArgumentError,
  type PromptCompletionRequest,
  type PromptContext,
  type PromptProvider,
  type PromptRequest,
  type PromptResult,
  type ResourceProvider,
  type ScopeChallenge,
  type ServerTimers,
  type Session,
  type SessionState,
  type StatelessOptions,
  type ToolContext,
  type ToolHandler,
} from "./server.ts";
export { answeredOutcome, type Outcome, type OutcomeKind, type Served } from "./outcome.ts";
export {
  asTask,
  isTaskDeferral,
  RELATED_TASK_META_KEY,
  type TaskCallInfo,
  type TaskDeferral,
  type TaskOptions,
  type TaskPlan,
  TASKS_EXTENSION,
  type TaskWork,
} from "./tasks.ts";
export { memorySpentStates, type SpentStates } from "./_request_state.ts";
export {
  type CallOutcome,
  type CallToolOptions,
  type InitializeResult,
  type InputRequestRefusal,
  InputRequestRefusedError,
  type ListenFilter,
  McpClient,
  type McpClientEra,
  type McpClientEraOption,
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
export {
  type ExposedNameOptions,
  type HostClientOptions,
  type HostTool,
  McpHost,
  type McpHostOptions,
} from "./host.ts";
export {
  DEFAULT_SAMPLING_MAX_TOKENS,
  DEFAULT_SERVER_REQUEST_LIMITS,
  type ElicitationPolicy,
  type ElicitationValue,
  type FormElicitation,
  type FormElicitationAnswer,
  type ModelPreferences,
  type Root,
  type RootsPolicy,
  type SamplingMessage,
  type SamplingPolicy,
  type SamplingRequest,
  type SamplingResult,
  SERVER_REQUEST_ERROR_CODES,
  type ServerMessage,
  serverRequestCapabilities,
  type ServerRequestCapabilitiesOptions,
  type ServerRequestContext,
  type ServerRequestLimits,
  type ServerRequestMethod,
  type ServerRequestPolicy,
  type UrlElicitation,
  type UrlElicitationDecision,
} from "./server_requests.ts";
export {
  ServerRequestLog,
  type ServerRequestLogOptions,
  type ServerRequestOutcome,
  type ServerRequestRecord,
  type ServerRequestVia,
} from "./server_request_log.ts";
export {
  checkElicitationContent,
  checkElicitationSchema,
  type ElicitationSchemaIssue,
} from "./elicitation_schema.ts";
export {
  type AskOptions,
  CONFIRMATION,
  CONFIRMATION_SCHEMA,
  confirmationMessage,
  type ElicitationRequest,
  type ElicitationResult,
  type FormElicitationRequest,
  needsConfirmation,
  type UrlElicitationRequest,
} from "./asks.ts";
export {
  createLinkedTransports,
  serveTransport,
  type ServeTransportOptions,
  type Transport,
} from "./transport.ts";
export {
  DECIDE_CALL_TOOL,
  PENDING_CALL_TOOL_SPECS,
  PENDING_CALLS_TOOL,
  pendingCallHandlers,
} from "./pending_call_tools.ts";
