/**
 * What the method handlers, the tool-call pipeline and both era wrappers share: the server they
 * run in ({@linkcode ServerCore}), who a request is served for ({@linkcode Caller}), how a
 * protocol error is made, and how a probe is logged.
 *
 * @module
 */
import type { OutcomeNotes } from "./outcome.ts";
import { JsonRpcError } from "../jsonrpc/errors.ts";
import type { JsonRpcId } from "../jsonrpc/types.ts";
import type { ToolRegistry } from "../estate/registry.ts";
import type { McpTool, Principal } from "../estate/spec.ts";
import type { Implementation } from "./protocol.ts";
import type { McpServerOptions, ProbeRecord } from "./server_options.ts";
import type { LogLevel, Notify } from "./tool_handler.ts";
import type { RequestStateSeal } from "./_request_state.ts";
import type { IdempotencyStore } from "../estate/idempotency.ts";
import { auditProbe } from "./_call_audit.ts";

/**
 * Each server's core, for the modules that serve a server's messages without being the server
 * (a connection's stateless peer): `McpServer`'s constructor registers its own.
 */
export const CORES: WeakMap<object, ServerCore> = new WeakMap();

/** The `serverInfo` of a server whose options name none. */
const DEFAULT_SERVER_INFO: Readonly<Implementation> = {
  name: "tool-estate",
  version: "0.1.0",
};

/** Who a request is served for, and how to reach them: a session, or one stateless request. */
export interface Caller {
  readonly principal: Principal;
  readonly protocolVersion: string | undefined;
  /** What the client declared (the handshake's `capabilities`, or the request's envelope). */
  readonly clientCapabilities: Record<string, unknown> | undefined;
  notify: Notify;
  /** The least severe log level wanted; undefined: no log messages. */
  logLevel: LogLevel | undefined;
  /**
   * The principal's `tools/list` entries while they hold: a session keeps them across pages until
   * the estate or the principal changes; a stateless request starts without.
   */
  tools: McpTool[] | undefined;
  /** Whether requests can be sent to the client (a session whose transport carries them). */
  readonly canRequest?: boolean;
  /** The outcomes its requests' steps decided while they are served, by request id. */
  readonly outcomes: OutcomeNotes;
}

/** An open `subscriptions/listen` (2026-07-28): what it asked for, and what it last saw. */
export interface Listener {
  principal: Principal;
  readonly id: JsonRpcId;
  readonly notify: Notify;
  /** What the principal could see when last told: `name@version` joined. */
  visible: string;
}

/** The server a request runs in, as the method handlers and era wrappers need it. */
export interface ServerCore {
  /** The server's options: the registry, the handlers, the providers, the logs. */
  readonly options: McpServerOptions;
  /** Items per page of a list. */
  readonly pageSize: number;
  /** The clock. */
  now(): number;
  /** Aborted when the server closes. */
  readonly closed: AbortSignal;
  /**
   * Adds a `subscriptions/listen` stream to those told when their principal's tools change.
   *
   * @returns Removes it again (idempotent).
   */
  addListener(listener: Listener): () => void;
  /** Seals and opens the `requestState` of input-required results (one per server). */
  requestStates(): RequestStateSeal;
  /** Where idempotency keys are claimed (`options.idempotency`, else one in memory per server). */
  idempotency(): IdempotencyStore;
}

/**
 * A protocol error, answered with a JSON-RPC error response.
 *
 * @param code The JSON-RPC code.
 * @param message What is wrong.
 * @param data The error's `data`, if any.
 * @returns The error.
 */
export function protocolError(
  code: number,
  message: string,
  data?: unknown,
): JsonRpcError {
  return new JsonRpcError(code, message, data === undefined ? {} : { data });
}

/**
 * The server's `serverInfo`.
 *
 * @param options The server's options.
 * @returns The one they name, or (a copy of) the default.
 */
export function serverInfo(options: McpServerOptions): Implementation {
  return options.serverInfo ?? { ...DEFAULT_SERVER_INFO };
}

/**
 * What a principal can see of the estate, as one string (`name@version` per line), to tell
 * whether a change reached them.
 *
 * @param registry The estate.
 * @param principal Who.
 * @returns The signature.
 */
export function visibleSignature(
  registry: ToolRegistry,
  principal: Principal,
): string {
  return registry.discover(principal).map((t) => `${t.name}@${t.version}`).join(
    "\n",
  );
}

/** A probe, before it is logged. */
export interface Probe {
  /** The request. */
  method: string;
  /** The name or URI asked for. */
  name: string;
  /** Whether it exists but is hidden from the caller. */
  hidden: boolean;
  /** A `tools/call`'s version constraint, when pinned. */
  version?: string;
}

/**
 * Logs a probe (see `McpServerOptions.onProbe`); nothing the client receives changes.
 *
 * @param core The server.
 * @param options Who asked, and the probe.
 */
export function logProbe(
  core: ServerCore,
  options: { caller: Caller; probe: Probe },
): void {
  const onProbe = core.options.onProbe;
  if (!onProbe && !core.options.audit) return;
  const { caller, probe } = options;
  const record: ProbeRecord = {
    principal: caller.principal.id,
    method: probe.method,
    name: probe.name,
    hidden: probe.hidden,
    at: new Date(core.now()).toISOString(),
  };
  if (probe.version !== undefined) record.version = probe.version;
  onProbe?.(record);
  auditProbe(core.options.audit, record);
}
