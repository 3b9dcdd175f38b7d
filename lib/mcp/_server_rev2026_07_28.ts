/**
 * The server's stateless revision 2026-07-28: no session, no connection history — the request
 * alone and the principal the transport authenticated for it decide the answer. What this
 * revision adds around the shared methods (`_methods.ts`): the per-request envelope (checked
 * before anything else), the methods only it has (`server/discover`, `subscriptions/listen`), and
 * the shape of every result — `resultType: "complete"` and `_meta` naming the server, and on a
 * list, a read or `server/discover` also `ttlMs` and `cacheScope`.
 *
 * @module
 */
import { ERROR_CODES, JsonRpcError, MCP_ERROR_CODES } from "../jsonrpc/errors.ts";
import { type ClassifiedMessage, validateEnvelope } from "../jsonrpc/envelope.ts";
import { makeError, makeNotification } from "../jsonrpc/messages.ts";
import { PeerExchange } from "../jsonrpc/exchange.ts";
import type { RequestHandler } from "../jsonrpc/peer_types.ts";
import type { Principal } from "../estate/spec.ts";
import { isObject } from "../_object.ts";
import type { JsonRpcId, JsonRpcResponse } from "../jsonrpc/types.ts";
import {
  type Answer,
  handlerOf,
  type MethodCall,
  type MethodHandlers,
  SHARED_METHODS,
} from "./_methods.ts";
import { serverCapabilitiesOf } from "./methods.ts";
import {
  type Caller,
  type Listener,
  protocolError,
  type ServerCore,
  serverInfo,
  visibleSignature,
} from "./_server_core.ts";
import type { CacheScope } from "./_surfaces.ts";
import {
  type HeaderCheckedRequest,
  readStatelessEnvelope,
  STATELESS_META,
  STATELESS_METHODS,
  STATELESS_PROTOCOL_VERSIONS,
  type StatelessEnvelope,
} from "./rev2026_07_28.ts";
import {
  answeredOutcome,
  type Outcome,
  type OutcomeKind,
  type OutcomeNotes,
  type Served,
} from "./outcome.ts";
import type { StatelessOptions } from "./server_options.ts";
import { updateTask, watchTasks } from "./_tasks.ts";
import { LOG_LEVELS, type LogLevel, type Notify } from "./tool_handler.ts";

/** A method only this revision has; undefined: no response (the request was cancelled). */
type StatelessMethod = (
  core: ServerCore,
  call: MethodCall,
) => Answer | undefined | Promise<Answer | undefined>;

/** `server/discover`: the revisions, the capabilities, the instructions; the same for everyone. */
const discover: StatelessMethod = (core) => {
  const result: Record<string, unknown> = {
    supportedVersions: [...STATELESS_PROTOCOL_VERSIONS],
    capabilities: serverCapabilitiesOf("stateless"),
  };
  if (core.options.instructions) {
    result.instructions = core.options.instructions;
  }
  return { result, scope: () => "public" };
};

/**
 * `subscriptions/listen`: acknowledges at once, then (when asked with `toolsListChanged: true`)
 * tells of each change to the principal's visible tools, until cancelled (no response) or the
 * server closes (a response ends the stream).
 */
const listen: StatelessMethod = async (
  core,
  { caller, id, params, signal },
) => {
  const asked = params.notifications;
  if (!isObject(asked)) {
    throw protocolError(
      ERROR_CODES.INVALID_PARAMS,
      "Invalid params: subscriptions/listen needs notifications (an object)",
    );
  }
  const accepted: Record<string, unknown> = {};
  if (asked.toolsListChanged === true) accepted.toolsListChanged = true;
  const tag = { [STATELESS_META.subscriptionId]: id };
  // Task status notifications (the tasks extension): for the asked ids the caller may see.
  const tasks = asked.taskIds === undefined ? undefined : await watchTasks(core, {
    caller,
    taskIds: asked.taskIds,
    send: (task) =>
      caller.notify(makeNotification("notifications/tasks", { ...task, _meta: tag }), id),
  });
  if (tasks) accepted.taskIds = tasks.taskIds;
  caller.notify(
    makeNotification("notifications/subscriptions/acknowledged", {
      _meta: tag,
      notifications: accepted,
    }),
    id,
  );
  const listener: Listener = {
    principal: caller.principal,
    id,
    notify: caller.notify,
    visible: visibleSignature(core.options.registry, caller.principal),
  };
  const remove = accepted.toolsListChanged ? core.addListener(listener) : () => {};
  try {
    await new Promise<void>((resolve) => {
      if (signal.aborted || core.closed.aborted) return resolve();
      signal.addEventListener("abort", () => resolve(), { once: true });
      core.closed.addEventListener("abort", () => resolve(), { once: true });
    });
  } finally {
    remove();
    tasks?.stop();
  }
  // Cancelled: no response. Ended by the server: a successful response ends the stream.
  return signal.aborted ? undefined : { result: { _meta: tag } };
};

/** The methods only the stateless revision has. */
export const STATELESS_ONLY_METHODS: MethodHandlers<StatelessMethod> = {
  "server/discover": discover,
  "subscriptions/listen": listen,
  "tasks/update": async (core, call) => ({ result: await updateTask(core, call) }),
};

/** Who a stateless request is served for, and where its notifications go. */
export interface StatelessCaller {
  /** The principal the transport authenticated (asked for each request: it may change). */
  readonly principal: () => Principal;
  /** Sends a notification related to the request (progress, logs, a listen stream's news). */
  readonly notify: Notify;
  /** Where the steps of its requests note the outcome they decide, by request id. */
  readonly outcomes: OutcomeNotes;
  /** The transport's own check of a request against its headers (see `StatelessOptions`). */
  readonly checkHeaders?: (request: HeaderCheckedRequest) => string | undefined;
  /**
   * The request's id as its client sent it, when the server serves it under an id of its own
   * (`serveStateless`): what the client is told (a listen stream's subscription id).
   */
  readonly requestId?: JsonRpcId;
}

/**
 * A stateless request's checks, in this order, each noting its outcome: a malformed envelope
 * (`-32602`, `invalid`); the transport's headers against the body (`-32020`, `header-mismatch`);
 * a revision not served (`-32022`, `unsupported-version`); a method this revision does not have
 * (`-32601`, `not-found`).
 */
function checkRequest(
  who: StatelessCaller,
  request: { method: string; id: JsonRpcId; params: unknown },
): StatelessEnvelope {
  const refuse = (kind: OutcomeKind, error: JsonRpcError): never => {
    who.outcomes.set(request.id, { kind } as Outcome);
    throw error;
  };
  let envelope: StatelessEnvelope | undefined;
  let unsupported: JsonRpcError | undefined;
  try {
    envelope = readStatelessEnvelope(request.params);
  } catch (e) {
    if (!(e instanceof JsonRpcError)) throw e;
    if (e.code !== MCP_ERROR_CODES.UNSUPPORTED_PROTOCOL_VERSION) refuse("invalid", e);
    unsupported = e;
  }
  const mismatch = who.checkHeaders?.(request);
  if (mismatch !== undefined) {
    refuse("header-mismatch", new JsonRpcError(MCP_ERROR_CODES.HEADER_MISMATCH, mismatch));
  }
  if (unsupported) refuse("unsupported-version", unsupported);
  if (!STATELESS_METHODS.includes(request.method)) {
    refuse(
      "not-found",
      protocolError(ERROR_CODES.METHOD_NOT_FOUND, `Method not found: ${request.method}`),
    );
  }
  return envelope!;
}

/**
 * Serves stateless requests (a peer calls it with each): the envelope, then this revision's
 * methods and the shared ones. Returns the shaped result, or throws the `JsonRpcError` to answer
 * with; a request cancelled meanwhile gets no answer (its peer sends none).
 *
 * @param core The server.
 * @param who Who the requests are served for.
 * @returns The handler for a peer.
 */
export function statelessRequests(
  core: ServerCore,
  who: StatelessCaller,
): RequestHandler {
  return (raw, context) => serveStatelessRequest(core, who, raw, context);
}

/** One stateless request, as {@linkcode statelessRequests}' handler serves it. */
async function serveStatelessRequest(
  core: ServerCore,
  who: StatelessCaller,
  raw: Parameters<RequestHandler>[0],
  context: Parameters<RequestHandler>[1],
): Promise<unknown> {
  // The envelope first: a valid one means params is an object.
  const envelope = checkRequest(who, { method: context.method, id: context.id, params: raw });
  const params = isObject(raw) ? raw : {};
  const level = envelope.logLevel as LogLevel | undefined;
  const caller: Caller = {
    principal: who.principal(),
    protocolVersion: envelope.protocolVersion,
    clientCapabilities: envelope.clientCapabilities,
    notify: who.notify,
    logLevel: level !== undefined && LOG_LEVELS.includes(level) ? level : undefined,
    tools: undefined,
    outcomes: who.outcomes,
  };
  const method = handlerOf(STATELESS_ONLY_METHODS, context.method) ??
    handlerOf(SHARED_METHODS, context.method);
  // checkRequest refused a method this revision does not have (the method table's list, whose
  // every method has a handler: tests/method_table_test.ts).
  const answer = await method!(core, {
    caller,
    id: who.requestId ?? context.id,
    params,
    signal: context.signal,
    context,
  });
  // Cancelled (a listen stream, say): whatever is returned is not sent.
  return answer === undefined ? {} : shape(core, answer);
}

/**
 * Handles one parsed message of the stateless revision (see {@linkcode serveStateless}).
 *
 * @param core The server.
 * @param options The message, and who sent it with what channel and signal.
 * @returns The response; undefined for a notification, a response, or a cancelled request.
 */
export async function handleStateless(
  core: ServerCore,
  options: StatelessOptions & { message: unknown },
): Promise<JsonRpcResponse | undefined> {
  let classified;
  try {
    classified = validateEnvelope(options.message);
  } catch (e) {
    if (e instanceof JsonRpcError) return makeError(e.requestId, e);
    throw e;
  }
  return (await serveStateless(core, { ...options, classified })).response;
}

/**
 * Serves one message of the stateless revision, its envelope already checked (see
 * `McpServer.serveStateless`): a request is served by a peer of its own, which its signal
 * cancels.
 *
 * @param core The server.
 * @param options The message as `validateEnvelope` classified it, and who sent it with what
 *   channel, signal and header check.
 * @returns The response (none for a notification, a response, or a cancelled request) and what
 *   happened.
 */
export async function serveStateless(
  core: ServerCore,
  options: StatelessOptions & { classified: ClassifiedMessage },
): Promise<Served> {
  const classified = options.classified;
  // Notifications (cancellation included) belong to the transport, which owns the signals.
  if (classified.kind !== "request") return { response: undefined, outcome: { kind: "accepted" } };
  const request = classified.message;
  const outcomes: OutcomeNotes = new Map();
  const shared = sharedExchange(core);
  // Served under an id of the server's own, unique among the requests in flight (clients choose
  // theirs freely, and two may choose the same): the answer goes back under the client's.
  const id = shared.next++;
  const notify = options.notify;
  shared.callers.set(id, {
    principal: () => options.principal,
    // Related to the request under the client's id.
    notify: notify ? (message) => notify(message, request.id) : () => {},
    outcomes,
    checkHeaders: options.checkHeaders,
    requestId: request.id,
  });
  const signal = options.signal;
  const cancel = () => shared.exchange.cancel(id);
  signal?.addEventListener("abort", cancel, { once: true });
  try {
    const answered = shared.exchange.exchange({ ...request, id });
    if (signal?.aborted) cancel();
    const response = await answered;
    return {
      response: response === undefined ? undefined : { ...response, id: request.id },
      outcome: outcomes.get(id) ?? answeredOutcome(response),
    };
  } finally {
    signal?.removeEventListener("abort", cancel);
    shared.callers.delete(id);
  }
}

/** The one exchange a server serves its stateless requests through, and who each one is for. */
interface SharedExchange {
  readonly exchange: PeerExchange;
  readonly callers: Map<JsonRpcId, StatelessCaller>;
  next: number;
}

const SHARED = new WeakMap<ServerCore, SharedExchange>();

/**
 * The server's exchange for stateless requests, made on first use: one peer for all of them
 * rather than one per request (a peer costs more to make than a call costs to serve).
 */
function sharedExchange(core: ServerCore): SharedExchange {
  let shared = SHARED.get(core);
  if (shared) return shared;
  const callers = new Map<JsonRpcId, StatelessCaller>();
  shared = {
    callers,
    next: 1,
    exchange: new PeerExchange({
      // What a request sends besides its answer goes to its own caller's channel.
      send: (message, related) => {
        if (!("method" in message) || "id" in message) return;
        const who = related === undefined ? undefined : callers.get(related);
        who?.notify(message);
      },
      handler: (params, context) => {
        const who = callers.get(context.id);
        if (!who) throw protocolError(ERROR_CODES.INTERNAL_ERROR, "Internal error");
        return serveStatelessRequest(core, who, params, context);
      },
    }),
  };
  SHARED.set(core, shared);
  return shared;
}

/**
 * A result as this revision sends it: `ttlMs` and `cacheScope` on a list, a read or
 * `server/discover`; then `resultType: "complete"` and the server named in `_meta`.
 */
function shape(core: ServerCore, answer: Answer): Record<string, unknown> {
  const result = answer.scope === undefined ? answer.result : {
    ...answer.result,
    ttlMs: ttlMs(core),
    cacheScope: answer.scope() satisfies CacheScope,
  };
  return {
    ...result,
    resultType: answer.resultType ?? "complete",
    _meta: isObject(result._meta)
      ? { ...result._meta, [STATELESS_META.serverInfo]: serverInfo(core.options) }
      : serverMeta(core),
  };
}

const SERVER_META = new WeakMap<ServerCore, Record<string, unknown>>();

/** A result's `_meta` when it has none of its own: the server named, made once (frozen). */
function serverMeta(core: ServerCore): Record<string, unknown> {
  let meta = SERVER_META.get(core);
  if (meta === undefined) {
    meta = Object.freeze({ [STATELESS_META.serverInfo]: serverInfo(core.options) });
    SERVER_META.set(core, meta);
  }
  return meta;
}

/** How long a client may cache a list, read or discover result (`cacheTtlMs`, default 0). */
function ttlMs(core: ServerCore): number {
  const ttl = core.options.cacheTtlMs ?? 0;
  return Number.isSafeInteger(ttl) && ttl > 0 ? ttl : 0;
}
