/**
 * The server's handshake era (revisions 2024-11-05 to 2025-11-25): one session per connection.
 * What this era adds around the shared methods (`_methods.ts`): the handshake (`initialize`, then
 * `notifications/initialized`), the session-state gate (only `ping` and `initialize` before the
 * session is ready), the session's peer (the requests in flight, their cancellation and
 * progress, and the server's own requests to the client), and the methods only this era has (`ping`,
 * `logging/setLevel`, `resources/subscribe`, `resources/unsubscribe`, and the tasks' `tasks/result`
 * and `tasks/list`). Results go
 * out as the methods answer them.
 *
 * @module
 */
import { ERROR_CODES, JsonRpcError } from "../jsonrpc/errors.ts";
import { type ClassifiedMessage, validateEnvelope } from "../jsonrpc/envelope.ts";
import { makeError } from "../jsonrpc/messages.ts";
import { isObject } from "../_object.ts";
import type { JsonRpcResponse } from "../jsonrpc/types.ts";
import type { SessionImpl, SessionRequestHandler } from "./_sessions.ts";
import { handlerOf, type MethodCall, type MethodHandlers, SHARED_METHODS } from "./_methods.ts";
import { MCP_METHODS, methodsOf, serverCapabilitiesOf } from "./methods.ts";
import { protocolError, type ServerCore, serverInfo, visibleSignature } from "./_server_core.ts";
import { answeredOutcome, type Served } from "./outcome.ts";
import type { Implementation } from "./protocol.ts";
import { negotiateProtocolVersion } from "./rev2025_11_25.ts";
import { LOG_LEVELS, type LogLevel } from "./tool_handler.ts";
import { listTasks, taskResult } from "./_tasks.ts";

/** A method only this era has: it may change the session. */
type SessionMethod = (
  core: ServerCore,
  call: MethodCall & { readonly session: SessionImpl; readonly method: string },
) => Record<string, unknown> | Promise<Record<string, unknown>>;

/** The methods served before the session is ready (the table's `beforeReady`). */
export const BEFORE_READY: ReadonlySet<string> = new Set(
  methodsOf("handshake").filter((name) => MCP_METHODS[name].beforeReady === true),
);

const subscription: SessionMethod = (_core, { session, method, params }) => {
  if (typeof params.uri !== "string") {
    throw protocolError(
      ERROR_CODES.INVALID_PARAMS,
      `Invalid params: ${method} needs uri (a string)`,
    );
  }
  if (method === "resources/subscribe") session.subscriptions.add(params.uri);
  else session.subscriptions.delete(params.uri);
  return {};
};

/** The methods only the handshake era has. */
export const SESSION_METHODS: MethodHandlers<SessionMethod> = {
  "ping": () => ({}),
  "initialize": (core, { session, params }) => initialize(core, { session, params }),
  "logging/setLevel": (_core, { session, params }) => {
    if (!LOG_LEVELS.includes(params.level as LogLevel)) {
      throw protocolError(
        ERROR_CODES.INVALID_PARAMS,
        `Invalid params: level must be one of ${LOG_LEVELS.join(", ")}`,
      );
    }
    session.logLevel = params.level as LogLevel;
    return {};
  },
  "resources/subscribe": subscription,
  "resources/unsubscribe": subscription,
  "tasks/result": taskResult,
  "tasks/list": listTasks,
};

/**
 * Handles one parsed message from a session's client (see {@linkcode serveInSession}).
 *
 * @param core The server.
 * @param options The message (anything: invalid messages get the right error) and the session.
 * @returns The response for a request; undefined for a notification, a response, or a request
 *   the client cancelled.
 */
export async function handleInSession(
  core: ServerCore,
  options: { message: unknown; session: SessionImpl },
): Promise<JsonRpcResponse | undefined> {
  let classified;
  try {
    classified = validateEnvelope(options.message);
  } catch (e) {
    if (e instanceof JsonRpcError) return makeError(e.requestId, e);
    throw e;
  }
  return (await serveInSession(core, { classified, session: options.session })).response;
}

/**
 * Serves one message from a session's client, its envelope already checked: a request is served
 * by the session's peer (which keeps the ids in use, cancellation and progress) and answered here;
 * a response answers one of the server's own requests to the client; a notification ends the
 * handshake or is the peer's (`notifications/cancelled`, `notifications/progress`).
 *
 * @param core The server.
 * @param options The message, as `validateEnvelope` classified it, and the session.
 * @returns The response (none for a notification, a response, or a request the client
 *   cancelled) and what happened.
 */
export async function serveInSession(
  core: ServerCore,
  options: { classified: ClassifiedMessage; session: SessionImpl },
): Promise<Served> {
  const s = options.session;
  const classified = options.classified;
  if (classified.kind === "notification") {
    const n = classified.message;
    if (
      n.method === "notifications/initialized" && s.state === "initializing"
    ) {
      s.state = "ready";
      s.visible = visibleSignature(core.options.registry, s.principal);
    }
    // Any other notification (roots/list_changed, ...) needs nothing from this server.
  }
  if (classified.kind !== "request") {
    await s.exchange.exchange(classified.message);
    return { response: undefined, outcome: { kind: "accepted" } };
  }
  const request = classified.message;
  const refused = s.state === "closed"
    ? "Invalid Request: the session is closed"
    : s.exchange.busy(request.id)
    ? `Invalid Request: id ${JSON.stringify(request.id)} is already in use`
    : undefined;
  if (refused !== undefined) {
    return {
      response: makeError(request.id, protocolError(ERROR_CODES.INVALID_REQUEST, refused)),
      outcome: { kind: "invalid" },
    };
  }
  try {
    const response = await s.exchange.exchange(request);
    return { response, outcome: s.outcomes.get(request.id) ?? answeredOutcome(response) };
  } finally {
    s.outcomes.delete(request.id);
  }
}

/**
 * Serves one request of a session (the session's peer calls it): this era's methods, the gate,
 * then the shared ones. Returns the result, or throws the `JsonRpcError` to answer with.
 *
 * @param core The server.
 * @returns The handler for the sessions' peers.
 */
export function sessionRequests(core: ServerCore): SessionRequestHandler {
  return async (s, { params: raw, context }) => {
    const method = context.method;
    const params = raw === undefined ? {} : raw;
    if (!isObject(params)) {
      throw protocolError(
        ERROR_CODES.INVALID_PARAMS,
        `Invalid params: ${method} takes named params (an object)`,
      );
    }
    const call = {
      caller: s,
      session: s,
      method,
      id: context.id,
      params,
      signal: context.signal,
      context,
    };
    if (!BEFORE_READY.has(method) && s.state !== "ready") {
      throw protocolError(
        ERROR_CODES.INVALID_REQUEST,
        `Invalid Request: ${method} before initialization; send initialize, then notifications/initialized`,
      );
    }
    const own = handlerOf(SESSION_METHODS, method);
    if (own) return own(core, call);
    const shared = handlerOf(SHARED_METHODS, method);
    if (shared) return (await shared(core, call)).result;
    throw protocolError(
      ERROR_CODES.METHOD_NOT_FOUND,
      `Method not found: ${method}`,
    );
  };
}

/** `initialize`: negotiates the revision, keeps what the client declared, names the server. */
function initialize(
  core: ServerCore,
  options: { session: SessionImpl; params: Record<string, unknown> },
): Record<string, unknown> {
  const { session: s, params } = options;
  if (s.state !== "new") {
    throw protocolError(
      ERROR_CODES.INVALID_REQUEST,
      "Invalid Request: initialize was already received on this session",
    );
  }
  if (typeof params.protocolVersion !== "string") {
    throw protocolError(
      ERROR_CODES.INVALID_PARAMS,
      "Invalid params: initialize needs protocolVersion (a string)",
    );
  }
  if (params.capabilities !== undefined && !isObject(params.capabilities)) {
    throw protocolError(
      ERROR_CODES.INVALID_PARAMS,
      "Invalid params: capabilities must be an object",
    );
  }
  s.protocolVersion = negotiateProtocolVersion(params.protocolVersion);
  s.clientCapabilities = (params.capabilities as Record<string, unknown>) ?? {};
  if (isObject(params.clientInfo)) {
    s.clientInfo = params.clientInfo as unknown as Implementation;
  }
  s.state = "initializing";
  const result: Record<string, unknown> = {
    protocolVersion: s.protocolVersion,
    capabilities: serverCapabilitiesOf("handshake"),
    serverInfo: serverInfo(core.options),
  };
  if (core.options.instructions) {
    result.instructions = core.options.instructions;
  }
  return result;
}
