/**
 * The server's handshake era (revisions 2024-11-05 to 2025-11-25): one session per connection.
 * What this era adds around the shared methods (`_methods.ts`): the handshake (`initialize`, then
 * `notifications/initialized`), the session-state gate (only `ping` and `initialize` before the
 * session is ready), the requests in flight and their cancellation, and the methods only this
 * era has (`ping`, `logging/setLevel`, `resources/subscribe`, `resources/unsubscribe`). Results go
 * out as the methods answer them.
 *
 * @module
 */
import { ERROR_CODES, JsonRpcError } from "../jsonrpc/errors.ts";
import { validateEnvelope } from "../jsonrpc/envelope.ts";
import { makeError, makeResult } from "../jsonrpc/messages.ts";
import { isObject } from "../_object.ts";
import type { JsonRpcId, JsonRpcNotification, JsonRpcResponse } from "../jsonrpc/types.ts";
import type { SessionImpl } from "./_sessions.ts";
import { type MethodCall, SHARED_METHODS } from "./_methods.ts";
import { protocolError, type ServerCore, serverInfo, visibleSignature } from "./_server_core.ts";
import type { Implementation } from "./protocol.ts";
import { negotiateProtocolVersion } from "./rev2025_11_25.ts";
import { LOG_LEVELS, type LogLevel } from "./tool_handler.ts";

/** What the server declares in `initialize`. */
const CAPABILITIES = {
  tools: { listChanged: true },
  resources: { subscribe: true },
  prompts: {},
  logging: {},
  completions: {},
};

/** A method only this era has: it may change the session. */
type SessionMethod = (
  core: ServerCore,
  call: MethodCall & { readonly session: SessionImpl; readonly method: string },
) => Record<string, unknown>;

/** The methods served before the session is ready. */
const BEFORE_READY: ReadonlySet<string> = new Set(["ping", "initialize"]);

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
const SESSION_METHODS: ReadonlyMap<string, SessionMethod> = new Map<string, SessionMethod>([
  ["ping", () => ({})],
  ["initialize", (core, { session, params }) => initialize(core, { session, params })],
  ["logging/setLevel", (_core, { session, params }) => {
    if (!LOG_LEVELS.includes(params.level as LogLevel)) {
      throw protocolError(
        ERROR_CODES.INVALID_PARAMS,
        `Invalid params: level must be one of ${LOG_LEVELS.join(", ")}`,
      );
    }
    session.logLevel = params.level as LogLevel;
    return {};
  }],
  ["resources/subscribe", subscription],
  ["resources/unsubscribe", subscription],
]);

/**
 * Handles one parsed message from a session's client.
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
  const s = options.session;
  let classified;
  try {
    classified = validateEnvelope(options.message);
  } catch (e) {
    if (e instanceof JsonRpcError) return makeError(e.requestId, e);
    throw e;
  }
  if (classified.kind === "response") return undefined; // this server sends no requests
  if (classified.kind === "notification") {
    notification(core, { session: s, notification: classified.message });
    return undefined;
  }
  const request = classified.message;
  if (s.state === "closed") {
    return makeError(
      request.id,
      protocolError(ERROR_CODES.INVALID_REQUEST, "Invalid Request: the session is closed"),
    );
  }
  const inFlight = s.inFlight.begin(request.id, request.method);
  if (!inFlight) {
    return makeError(
      request.id,
      protocolError(
        ERROR_CODES.INVALID_REQUEST,
        `Invalid Request: id ${JSON.stringify(request.id)} is already in use`,
      ),
    );
  }
  try {
    const result = await dispatch(core, {
      session: s,
      method: request.method,
      id: request.id,
      params: request.params,
      signal: inFlight.signal,
    });
    return inFlight.cancelled ? undefined : makeResult(request.id, result);
  } catch (e) {
    if (inFlight.cancelled) return undefined;
    if (e instanceof JsonRpcError) return makeError(request.id, e);
    return makeError(request.id, protocolError(ERROR_CODES.INTERNAL_ERROR, "Internal error"));
  } finally {
    inFlight.end();
  }
}

/** A session's notification: the handshake's last step, or a cancellation. */
function notification(
  core: ServerCore,
  options: { session: SessionImpl; notification: JsonRpcNotification },
): void {
  const { session: s, notification: n } = options;
  const params = isObject(n.params) ? n.params : {};
  if (n.method === "notifications/initialized") {
    if (s.state === "initializing") {
      s.state = "ready";
      s.visible = visibleSignature(core.options.registry, s.principal);
    }
  } else if (n.method === "notifications/cancelled") {
    s.inFlight.cancel(params.requestId as JsonRpcId, params.reason);
  }
  // Any other notification (roots/list_changed, progress, ...) needs nothing from this server.
}

/** Routes a request: this era's methods, the gate, then the shared ones. */
async function dispatch(
  core: ServerCore,
  request: {
    session: SessionImpl;
    method: string;
    id: JsonRpcId;
    params: unknown;
    signal: AbortSignal;
  },
): Promise<unknown> {
  const { session: s, method } = request;
  const params = request.params === undefined ? {} : request.params;
  if (!isObject(params)) {
    throw protocolError(
      ERROR_CODES.INVALID_PARAMS,
      `Invalid params: ${method} takes named params (an object)`,
    );
  }
  const call = { caller: s, session: s, method, id: request.id, params, signal: request.signal };
  if (!BEFORE_READY.has(method) && s.state !== "ready") {
    throw protocolError(
      ERROR_CODES.INVALID_REQUEST,
      `Invalid Request: ${method} before initialization; send initialize, then notifications/initialized`,
    );
  }
  const own = SESSION_METHODS.get(method);
  if (own) return own(core, call);
  const shared = SHARED_METHODS.get(method);
  if (shared) return (await shared(core, call)).result;
  throw protocolError(ERROR_CODES.METHOD_NOT_FOUND, `Method not found: ${method}`);
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
    capabilities: structuredClone(CAPABILITIES),
    serverInfo: serverInfo(core.options),
  };
  if (core.options.instructions) result.instructions = core.options.instructions;
  return result;
}
