/**
 * What a tool version's handler is and what it gets: {@linkcode ToolHandler}, its
 * {@linkcode ToolContext} (principal, cancel signal, progress, log messages, the client's
 * capabilities), the log levels, and the error that asks for a client capability.
 *
 * @module
 */
import type { JsonRpcId, JsonRpcNotification } from "../jsonrpc/types.ts";
import type { Principal, ToolSpec } from "../estate/spec.ts";
import type { Progress } from "../jsonrpc/peer_types.ts";
import type {
  AskOptions,
  ElicitationRequest,
  ElicitationResult,
  Root,
  SamplingRequest,
  SamplingResult,
} from "./asks.ts";

/** What a tool handler gets besides its (validated) arguments. */
export interface ToolContext {
  /** Who is calling. */
  principal: Principal;
  /** The version being called. */
  spec: ToolSpec;
  /** Aborted when the caller cancels the request. */
  signal: AbortSignal;
  /**
   * Reports progress, when the caller asked for it (a no-op otherwise); `progress` must increase.
   */
  progress(update: Progress): void;
  /**
   * Reports progress.
   * @deprecated Pass one object: `progress({ progress, total, message })`.
   */
  progress(progress: number, total?: number, message?: string): void;
  /**
   * Sends a log message to the client (`notifications/message`), when its level is at or above
   * the level the client set with `logging/setLevel` (everything, until it sets one).
   */
  log(entry: LogEntry): void;
  /**
   * Sends a log message to the client.
   * @deprecated Pass one object: `log({ level, data, logger })`.
   */
  log(level: LogLevel, data: unknown, logger?: string): void;
  /**
   * The capabilities the client declared (in the handshake, or in the request's 2026-07-28
   * envelope). A handler that needs one it lacks throws {@linkcode MissingClientCapabilityError}.
   */
  clientCapabilities: Record<string, unknown>;
  /**
   * Asks the client's model for a completion (`sampling/createMessage`). The tool must declare
   * `uses: ["sampling"]` and the client the `sampling` capability. Same code in both eras: in
   * 2026-07-28 the call ends with an input-required result and the handler runs again, from the
   * start, when the client calls back with the answer — so ask before acting. Asks made together
   * (`Promise.all`) go out in one input-required result, each under its key (`options.key`).
   */
  sample(
    request: SamplingRequest,
    options?: AskOptions,
  ): Promise<SamplingResult>;
  /**
   * Asks the user for input (`elicitation/create`): a flat form, or a URL to visit. The tool must
   * declare `uses: ["elicitation"]`; an accepted form's content is checked against the form.
   */
  elicit(
    request: ElicitationRequest,
    options?: AskOptions,
  ): Promise<ElicitationResult>;
  /** Asks the client for its roots (`roots/list`); the tool must declare `uses: ["roots"]`. */
  listRoots(options?: AskOptions): Promise<Root[]>;
  /**
   * Whether the client can take a task for this call (2026-07-28: it declared the extension
   * `io.modelcontextprotocol/tasks` on the request; 2025-11-25: it sent the `task` param). A
   * handler answers with a task by returning `asTask(plan)` (see `tasks.ts`); for a client that
   * cannot take one, a plan's work runs while the call waits. Undefined where the server does not
   * say (a handler called outside an `McpServer`).
   */
  canTakeTask?: boolean;
}

/**
 * Thrown by a tool handler that needs a client capability the client did not declare: the call is
 * answered with the protocol error `-32021` (MissingRequiredClientCapability, 2026-07-28) carrying
 * `data.requiredCapabilities`, instead of an `isError` result.
 */
export class MissingClientCapabilityError extends Error {
  /** The capabilities needed, e.g. `{ sampling: {} }`. */
  readonly requiredCapabilities: Record<string, unknown>;

  /**
   * Makes the error.
   *
   * @param requiredCapabilities The capabilities the tool needs, e.g. `{ sampling: {} }`.
   */
  constructor(requiredCapabilities: Record<string, unknown>) {
    super(
      `Missing required client capability: ${Object.keys(requiredCapabilities).join(", ")}`,
    );
    this.name = "MissingClientCapabilityError";
    this.requiredCapabilities = requiredCapabilities;
  }
}

/** One log message a handler sends (see {@linkcode ToolContext.log}). */
export interface LogEntry {
  /** Its severity. */
  level: LogLevel;
  /** What to log: any JSON value. */
  data: unknown;
  /** The logger's name. */
  logger?: string;
}

/** Syslog severities, as MCP's logging uses them, least severe first. */
export type LogLevel =
  | "debug"
  | "info"
  | "notice"
  | "warning"
  | "error"
  | "critical"
  | "alert"
  | "emergency";

/** The log levels, least severe first. */
export const LOG_LEVELS: readonly LogLevel[] = [
  "debug",
  "info",
  "notice",
  "warning",
  "error",
  "critical",
  "alert",
  "emergency",
];

/** Sends a notification; `relatedRequestId` names the request it belongs to (progress, logs). */
export type Notify = (
  message: JsonRpcNotification,
  relatedRequestId?: JsonRpcId,
) => void;

/**
 * Runs one tool version. Return a `CallToolResult`, or any other value to have it sent as JSON
 * text (and as `structuredContent` when it is an object). Throw to report a tool error: the model
 * sees the message, never a stack trace.
 */
export type ToolHandler = (
  args: Record<string, unknown>,
  context: ToolContext,
) => unknown;
