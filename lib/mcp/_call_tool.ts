/**
 * `tools/call`, both eras, as nine named steps: **shape** (the params a call needs), **visibility**
 * (a tool the caller may not see is answered exactly as one that does not exist), **version** (a
 * pin may reach a deprecated version the caller may see), **action scopes** (a version's
 * `callScopes` the caller's credential lacks end the call with the step-up answer), **schema**
 * (invalid arguments never reach the handler), **limits** (the estate's call limits admit and
 * count it, or refuse it), **confirm** (the user confirms what the estate says must be confirmed),
 * **approval** (a call the estate's `callApprovals` hold becomes a task that waits for a second
 * person: `_call_approval.ts`) and **handler** (run it, with progress, log messages, cancellation
 * and its asks of the client). Each step throws the protocol error that ends the call, or hands on
 * what the next step needs; {@linkcode callTool} runs them in order and logs the call once it
 * reached a version.
 *
 * @module
 */
import { DEPRECATION_META_KEY, type DeprecationNotice } from "../estate/deprecation.ts";
import type { ScopeChallenge } from "./outcome.ts";
import {
  ERROR_CODES,
  ESTATE_ERROR_CODES,
  type JsonRpcError,
  MCP_ERROR_CODES,
} from "../jsonrpc/errors.ts";
import { limitRefusalText } from "../estate/limits.ts";
import { makeNotification } from "../jsonrpc/messages.ts";
import { isObject } from "../_object.ts";
import { linkSignals } from "../jsonrpc/signals.ts";
import { isValidConstraint } from "../compat/semver.ts";
import { canSee, META_VERSION_KEY, type Principal, type ToolSpec } from "../estate/spec.ts";
import { IDEMPOTENCY_META_KEY, isIdempotencyKey } from "../estate/idempotency.ts";
import { idempotently, NotRun, type RunAnswer } from "./_idempotent_call.ts";
import { type LimitedIssues, limitIssues, shortenText } from "../schema/issue_limit.ts";
import { validateSchema } from "../schema/validate.ts";
import type { Progress, RequestContext } from "../jsonrpc/peer_types.ts";
import type { JsonRpcId } from "../jsonrpc/types.ts";
import { type Caller, logProbe, protocolError, type ServerCore } from "./_server_core.ts";
import { type CallToolResult, invalidArgumentsAsToolError } from "./protocol.ts";
import { ISSUES_META_KEY } from "./_client_outcome.ts";
import { auditCall } from "./_call_audit.ts";
import { HANDSHAKE_PROTOCOL_VERSIONS } from "./rev2025_11_25.ts";
import type { CallRecord, ConfirmationRecord } from "./server_options.ts";
import {
  type Asker,
  askerFor,
  InputRequired,
  inputRequiredResult,
  openRounds,
  trackAsks,
} from "./_asks.ts";
import { CONFIRMATION_SCHEMA, confirmationMessage, needsConfirmation } from "./asks.ts";
import { STATELESS_PROTOCOL_VERSIONS } from "./rev2026_07_28.ts";
import { asTask, isTaskDeferral, type TaskDeferral } from "./tasks.ts";
import { clientTakesTasks, deferToTask } from "./_tasks.ts";
import { asResult } from "./_call_result.ts";
import { approvalRuleFor, holdForApproval } from "./_call_approval.ts";
import {
  LOG_LEVELS,
  type LogEntry,
  type LogLevel,
  MissingClientCapabilityError,
} from "./tool_handler.ts";

/** A `tools/call`'s params, once their shape is right. */
export interface CallParams {
  /** The tool's name. */
  name: string;
  /** The arguments (`{}` when none were sent). */
  args: Record<string, unknown>;
  /** The version constraint of `_meta["dev.tool-estate/version"]`, when pinned. */
  pin: string | undefined;
  /** The request's `_meta` (`{}` when none). */
  meta: Record<string, unknown>;
  /** The idempotency key of `_meta["dev.tool-estate/idempotencyKey"]`, when one was sent. */
  idempotencyKey?: string;
  /** 2025-11-25's `task` param (the call asks to be a task), when it is an object. */
  task?: Record<string, unknown>;
}

/**
 * Step 1, shape: `name` a string, `arguments` an object when present, a pin a valid version
 * constraint when present, an idempotency key 1 to 255 printable ASCII characters when present —
 * checked in that order.
 *
 * @param params The request's params.
 * @returns What the next steps need.
 * @throws {JsonRpcError} `-32602` naming the first param that is wrong.
 */
export function readCallParams(params: Record<string, unknown>): CallParams {
  if (typeof params.name !== "string") {
    throw protocolError(
      ERROR_CODES.INVALID_PARAMS,
      "Invalid params: tools/call needs name (a string)",
    );
  }
  if (params.arguments !== undefined && !isObject(params.arguments)) {
    throw protocolError(
      ERROR_CODES.INVALID_PARAMS,
      "Invalid params: arguments must be an object",
    );
  }
  const meta = isObject(params._meta) ? params._meta : {};
  const pin = meta[META_VERSION_KEY];
  if (
    pin !== undefined && (typeof pin !== "string" || !isValidConstraint(pin))
  ) {
    throw protocolError(
      ERROR_CODES.INVALID_PARAMS,
      `Invalid params: _meta["${META_VERSION_KEY}"] must be a version constraint such as ^1.2.0`,
    );
  }
  const key = meta[IDEMPOTENCY_META_KEY];
  if (key !== undefined && !isIdempotencyKey(key)) {
    throw protocolError(
      ERROR_CODES.INVALID_PARAMS,
      `Invalid params: _meta["${IDEMPOTENCY_META_KEY}"] must be a string of 1 to 255 printable ASCII characters`,
    );
  }
  return {
    name: params.name,
    args: (params.arguments as Record<string, unknown>) ?? {},
    pin: pin as string | undefined,
    meta,
    ...(key === undefined ? {} : { idempotencyKey: key }),
    ...(isObject(params.task) ? { task: params.task } : {}),
  };
}

/**
 * Step 2, visibility: the version discovery gives the caller for this name. A tool the caller
 * may not see is answered byte for byte as one that does not exist, and logged as a probe.
 *
 * @param core The server.
 * @param asked Who calls, and the tool's name.
 * @returns The newest version the caller may see.
 * @throws {JsonRpcError} `-32602` `Unknown tool: <name>`.
 */
export function visibleTool(
  core: ServerCore,
  asked: { caller: Caller; name: string },
): ToolSpec {
  const { caller, name } = asked;
  const registry = core.options.registry;
  const visible = registry.visible(name, caller.principal); // = discover(), one name
  if (visible) return visible;
  const hidden = registry.versions(name).length > 0;
  logProbe(core, { caller, probe: { method: "tools/call", name, hidden } });
  throw protocolError(
    ERROR_CODES.INVALID_PARAMS,
    `Unknown tool: ${shortenText(name)}`,
  );
}

/**
 * Step 3, version: an unpinned call gets the visible (newest active) version; a pinned one the
 * newest version satisfying the pin, deprecated ones included, when the caller may see it.
 *
 * @param core The server.
 * @param asked Who calls, the visible version, and the pin.
 * @returns The version that serves the call.
 * @throws {JsonRpcError} `-32602` `No version of <name> satisfies <pin>` (logged as a probe).
 */
export function resolveVersion(
  core: ServerCore,
  asked: { caller: Caller; visible: ToolSpec; pin: string | undefined },
): ToolSpec {
  const { caller, visible, pin } = asked;
  if (pin === undefined) return visible;
  const name = visible.name;
  const pinned = core.options.registry.resolve(name, pin);
  if (!pinned || !canSee(pinned, caller.principal)) {
    logProbe(core, {
      caller,
      probe: {
        method: "tools/call",
        name,
        version: pin,
        hidden: pinned !== undefined,
      },
    });
    throw protocolError(
      ERROR_CODES.INVALID_PARAMS,
      `No version of ${name} satisfies ${shortenText(pin)}`,
    );
  }
  return pinned;
}

/**
 * The action scopes a version needs (`callScopes`) that the principal's credential does not
 * carry, in the spec's order; empty when it may run.
 *
 * @param spec The version that serves the call.
 * @param principal Who calls.
 * @returns The missing scopes.
 */
export function missingCallScopes(
  spec: ToolSpec,
  principal: Principal,
): string[] {
  return (spec.callScopes ?? []).filter((s) => !principal.scopes.includes(s));
}

/**
 * The step-up a `tools/call` needs, decided as the call's own steps decide it but without logging
 * anything: undefined when the params are malformed, the tool (or the pinned version) is one the
 * principal may not see — those are answered as for a tool that does not exist, never with a
 * challenge — or the principal carries every action scope.
 *
 * @param core The server.
 * @param call Who calls, and the request's params.
 * @returns The challenge, or undefined.
 */
export function scopeChallengeFor(
  core: ServerCore,
  call: { principal: Principal; params: unknown },
): ScopeChallenge | undefined {
  if (!isObject(call.params)) return undefined;
  let request: CallParams;
  try {
    request = readCallParams(call.params);
  } catch {
    return undefined;
  }
  const registry = core.options.registry;
  const visible = registry.visible(request.name, call.principal);
  if (!visible) return undefined;
  const spec = request.pin === undefined ? visible : registry.resolve(request.name, request.pin);
  if (!spec || !canSee(spec, call.principal)) return undefined;
  const missing = missingCallScopes(spec, call.principal);
  return missing.length ? challengeOf(spec, missing) : undefined;
}

/** The challenge for a version whose action scopes a credential lacks. */
function challengeOf(spec: ToolSpec, missing: string[]): ScopeChallenge {
  return {
    tool: spec.name,
    version: spec.version,
    missing,
    needed: [...new Set([...spec.requiredScopes, ...(spec.callScopes ?? [])])],
  };
}

/**
 * The answer to a call on a version whose action scopes the caller lacks, where the transport has
 * no step-up answer of its own (stdio): a tool error naming the scopes.
 *
 * @param spec The version.
 * @param missing The scopes the credential lacks.
 * @returns The result.
 */
export function insufficientScopeResult(
  spec: ToolSpec,
  missing: string[],
): CallToolResult {
  const which = missing.length === 1 ? "scope" : "scopes";
  return {
    content: [{
      type: "text",
      text: `${spec.name} needs the ${which} ${
        missing.join(" ")
      } to run, which this caller's credential does not carry; nothing was done. Authorize with ${
        missing.length === 1 ? "it" : "them"
      } and call again.`,
    }],
    structuredContent: {
      error: "insufficient_scope",
      scope: missing.join(" "),
    },
    isError: true,
  };
}

/** What the schema step says of a call's arguments. */
export type ArgumentsVerdict =
  /** They conform: run the handler. */
  | { kind: "valid" }
  /** They do not, in a revision that answers with a tool error (2025-11-25 on, SEP-1303). */
  | { kind: "tool-error"; result: CallToolResult }
  /** They do not, in a revision that answers with a protocol error (up to 2025-06-18). */
  | { kind: "protocol-error"; error: JsonRpcError };

/**
 * Step 4, schema: the arguments against the version's `inputSchema`. A rejection carries the
 * first issues only (`limitIssues`): a request with 92,000 forbidden keys must not get a 19 MB
 * answer.
 *
 * @param spec The version that serves the call.
 * @param options The arguments, and the revision the caller speaks (undefined: the newest
 *   handshake-era revision's rule).
 * @returns The verdict.
 */
export function checkArguments(
  spec: ToolSpec,
  options: {
    args: Record<string, unknown>;
    protocolVersion: string | undefined;
  },
): ArgumentsVerdict {
  const issues = validateSchema(spec.inputSchema, options.args);
  if (!issues.length) return { kind: "valid" };
  const limited = limitIssues(issues);
  if (
    !invalidArgumentsAsToolError(
      options.protocolVersion ?? HANDSHAKE_PROTOCOL_VERSIONS[0],
    )
  ) {
    return {
      kind: "protocol-error",
      error: protocolError(
        ERROR_CODES.INVALID_PARAMS,
        `Invalid arguments for ${spec.name}`,
        issuesData(limited),
      ),
    };
  }
  // A tool with an outputSchema: clients check structuredContent against it (error results too,
  // in the official SDK), so the issues ride under the estate's _meta key instead.
  const result: CallToolResult = spec.outputSchema === undefined
    ? {
      content: [{ type: "text", text: issuesText(spec.name, limited) }],
      structuredContent: issuesData(limited),
      isError: true,
    }
    : {
      content: [{ type: "text", text: issuesText(spec.name, limited) }],
      isError: true,
      _meta: { [ISSUES_META_KEY]: issuesData(limited) },
    };
  return { kind: "tool-error", result };
}

/** Logs how a call that reached a version ended (see `McpServerOptions.onCall`). */
export type RecordOutcome = (outcome: CallRecord["outcome"]) => void;

/** What the handler step runs. */
export interface HandlerRun {
  /** Who calls. */
  caller: Caller;
  /**
   * The request as its peer serves it: its id (progress and log messages are related to it), its
   * signal (aborted when the caller cancels), its progress, and requests to the client.
   */
  context: RequestContext;
  /** The version that serves the call. */
  spec: ToolSpec;
  /** The (valid) arguments and the request's `_meta`. */
  request: CallParams;
  /** Logs the outcome. */
  record: RecordOutcome;
  /** How the handler asks the client (sampling, elicitation, roots). Default: it cannot. */
  asker?: Asker;
}

/** An asker for a call that may not ask anything. */
const NO_ASKS: Asker = {
  sample: () => Promise.reject(new Error("this call cannot ask the client")),
  elicit: () => Promise.reject(new Error("this call cannot ask the client")),
  listRoots: () => Promise.reject(new Error("this call cannot ask the client")),
};

/**
 * The answer to a call that needs a client capability it lacks: `-32021` with
 * `data.requiredCapabilities` in 2026-07-28; before that, a tool error naming the capability
 * (those revisions have no such code).
 */
function missingCapability(
  caller: Caller,
  spec: ToolSpec,
  e: MissingClientCapabilityError,
): CallToolResult {
  if (isStateless(caller)) {
    throw protocolError(
      MCP_ERROR_CODES.MISSING_REQUIRED_CLIENT_CAPABILITY,
      e.message,
      {
        requiredCapabilities: e.requiredCapabilities,
      },
    );
  }
  return {
    content: [{
      type: "text",
      text: `${spec.name} needs the client capability ${
        JSON.stringify(e.requiredCapabilities)
      }, which this client did not declare in initialize`,
    }],
    isError: true,
  };
}

/** Whether the caller speaks the stateless revision. */
function isStateless(caller: Caller): boolean {
  return caller.protocolVersion !== undefined &&
    STATELESS_PROTOCOL_VERSIONS.includes(caller.protocolVersion);
}

/**
 * Step 8, handler: runs the version's handler with a context (principal, signal, progress when
 * the caller sent a token, log messages at the caller's level, its capabilities, and its asks of
 * the client). A missing handler, a throw or an `isError` value is a tool error the model reads
 * (never a stack trace); a cancelled call answers `{content: []}` (its response is dropped). In
 * 2026-07-28, an ask the client has not answered yet stops the handler (its signal aborts) and
 * ends the call with that ask and those made with it (see `_asks.ts`). A call the server's task
 * hook (`TaskOptions.taskFor`) plans as a task, or whose handler returns `asTask(plan)`, becomes
 * that task (`_tasks.ts`).
 *
 * @param core The server.
 * @param run The call.
 * @returns The result.
 * @throws {InputRequired} When a 2026-07-28 ask is still open.
 * @throws {JsonRpcError} `-32021` with `data.requiredCapabilities` when the handler throws
 *   {@linkcode MissingClientCapabilityError} in 2026-07-28.
 */
export async function runHandler(
  core: ServerCore,
  run: HandlerRun,
): Promise<CallToolResult> {
  const { caller, context, spec, request, record } = run;
  // A call the server's task hook turns into a task: its handler is not run here.
  const canTakeTask = clientTakesTasks(caller, request.task);
  const planned = await core.options.tasks?.taskFor?.({
    spec,
    args: request.args,
    principal: caller.principal,
    canTakeTask,
  });
  if (planned) {
    const deferral = asTask(planned);
    return await deferToTask(core, { caller, spec, task: request.task, context, deferral, record });
  }
  const handler = core.options.handlerFor(spec);
  if (!handler) {
    record("tool-error");
    return {
      content: [{
        type: "text",
        text: `${spec.name}@${spec.version} is not available right now`,
      }],
      isError: true,
    };
  }
  const requestId = context.id;
  const asks = trackAsks(run.asker ?? NO_ASKS);
  // Aborted when the caller cancels, or when an ask must wait for the client's next round.
  const linked = linkSignals(context.signal, asks.waiting);
  const signal = linked.signal;
  const progress = (
    value: number | Progress,
    total?: number,
    message?: string,
  ): void =>
    context.progress(
      typeof value === "number" ? { progress: value, total, message } : value,
    );
  const log = (
    first: LogLevel | LogEntry,
    data?: unknown,
    name?: string,
  ): void => {
    const { level, data: what, logger } = typeof first === "string"
      ? { level: first, data, logger: name }
      : first;
    if (
      signal.aborted || caller.logLevel === undefined ||
      LOG_LEVELS.indexOf(level) < LOG_LEVELS.indexOf(caller.logLevel)
    ) return;
    const p: Record<string, unknown> = { level, data: what };
    if (logger !== undefined) p.logger = logger;
    caller.notify(makeNotification("notifications/message", p), requestId);
  };
  let deferral: TaskDeferral | undefined;
  try {
    const value = await handler(request.args, {
      principal: caller.principal,
      spec,
      signal,
      progress,
      log,
      clientCapabilities: caller.clientCapabilities ?? {},
      sample: asks.asker.sample,
      elicit: asks.asker.elicit,
      listRoots: asks.asker.listRoots,
      canTakeTask,
    });
    const stopped = asks.fault() ?? asks.open();
    if (stopped) throw stopped;
    if (context.signal.aborted) {
      record("cancelled");
      return { content: [] };
    }
    if (!isTaskDeferral(value)) {
      const result = asResult(value);
      record(result.isError ? "tool-error" : "ok");
      return result;
    }
    deferral = value;
  } catch (thrown) {
    const open = asks.open();
    if (open && !asks.fault()) {
      record("input-required");
      throw open;
    }
    const e = asks.fault() ?? thrown;
    if (e instanceof MissingClientCapabilityError) {
      record("tool-error");
      return missingCapability(caller, spec, e);
    }
    record(context.signal.aborted ? "cancelled" : "tool-error");
    const message = e instanceof Error ? e.message : String(e);
    return {
      content: [{ type: "text", text: `${spec.name} failed: ${message}` }],
      isError: true,
    };
  } finally {
    linked.release();
  }
  // A task (its work runs on, beyond this request), or the task's work run while the call waits.
  return await deferToTask(core, { caller, spec, task: request.task, context, deferral, record });
}

/** One `tools/call`, as the pipeline gets it. */
export interface ToolCall {
  /** Who calls. */
  caller: Caller;
  /** The request's params. */
  params: Record<string, unknown>;
  /** The request as its peer serves it (id, signal, progress, requests to the client). */
  context: RequestContext;
}

/** A 2026-07-28 call that ends asking the client for input. */
export interface InputRequiredAnswer {
  /** Marks it. */
  readonly resultType: "input_required";
  /** `inputRequests` and `requestState`. */
  readonly result: Record<string, unknown>;
}

/**
 * Step 6, confirm: a version whose calls need the user's confirmation (`needsConfirmation`) asks
 * for it by form elicitation before its handler runs. Accepted with `confirm: true`, the call goes
 * on; declined, dismissed or accepted without `confirm: true`, it ends as a tool error the model
 * reads and the handler is never reached. The answer is logged with the call.
 *
 * @param asker The estate's asker for the call.
 * @param options The call.
 * @returns Undefined to go on; the result that ends the call otherwise.
 */
async function confirmStep(
  asker: Asker,
  options: {
    caller: Caller;
    spec: ToolSpec;
    args: Record<string, unknown>;
    details: Details;
  },
): Promise<CallToolResult | undefined> {
  const { caller, spec, args, details } = options;
  if (!needsConfirmation(spec)) return undefined;
  const message = confirmationMessage(spec, args);
  const answer = await asker.elicit(
    {
      mode: "form",
      message,
      requestedSchema: structuredClone(CONFIRMATION_SCHEMA),
    },
    { timeoutMs: 10 * 60_000 },
  );
  const confirmed = answer.action === "accept" &&
    answer.content?.confirm === true;
  details.confirmation = {
    by: caller.principal.id,
    at: new Date(details.now()).toISOString(),
    action: answer.action === "accept" && !confirmed ? "decline" : answer.action,
  };
  if (confirmed) return undefined;
  const how = answer.action === "cancel" ? "dismissed" : "declined";
  return {
    content: [{
      type: "text",
      text: `${spec.name}: the user ${how} the confirmation ("${message}"); nothing was done`,
    }],
    isError: true,
  };
}

/**
 * Serves a `tools/call`: shape → visibility → version → action scopes → schema → limits →
 * confirm → handler. A call that
 * reached a version is logged once (`onCall`), with the time from then to its end and the user's
 * confirmation when one was asked.
 *
 * @param core The server.
 * @param call The call.
 * @returns The result (an `isError` one for tool errors and, from 2025-11-25, invalid arguments),
 *   or, in 2026-07-28, the input the call still needs from the client.
 * @throws {JsonRpcError} The protocol errors of the steps.
 */
export async function callTool(
  core: ServerCore,
  call: ToolCall,
): Promise<CallToolResult | InputRequiredAnswer> {
  const { caller } = call;
  const request = readCallParams(call.params);
  const visible = visibleTool(core, { caller, name: request.name });
  const spec = resolveVersion(core, { caller, visible, pin: request.pin });
  const notice = core.options.registry.deprecation(spec.name, spec.version);
  const details: Details = { now: core.now, ...(notice ? { deprecation: notice } : {}) };
  const answer = await callVersion(core, call, { request, spec, details });
  if (!notice) return answer;
  // A caller of a deprecated version is told with every answer the version gave: in the
  // result's _meta, and (the outcome) in whatever its transport says beside it.
  const noted = caller.outcomes.get(call.context.id);
  if (!noted || (noted.kind === "answered" && noted.replayed)) {
    caller.outcomes.set(call.context.id, { ...noted, kind: "answered", deprecation: notice });
  }
  const told = (result: Record<string, unknown>) => ({
    ...result,
    _meta: { ...(isObject(result._meta) ? result._meta : {}), [DEPRECATION_META_KEY]: notice },
  });
  return "resultType" in answer
    ? { ...answer, result: told(answer.result) }
    : told(answer as unknown as Record<string, unknown>) as unknown as CallToolResult;
}

/** A call, from the version it reached: the steps after the version is resolved. */
async function callVersion(
  core: ServerCore,
  call: ToolCall,
  reached: { request: CallParams; spec: ToolSpec; details: Details },
): Promise<CallToolResult | InputRequiredAnswer> {
  const { caller } = call;
  const { request, spec, details } = reached;
  const record = recorder(core, { caller, spec, args: request.args, details });
  const missing = missingCallScopes(spec, caller.principal);
  if (missing.length) {
    record("insufficient-scope");
    // A transport with a step-up answer of its own gives it instead of this result.
    caller.outcomes.set(call.context.id, {
      kind: "step-up",
      challenge: challengeOf(spec, missing),
    });
    return insufficientScopeResult(spec, missing);
  }
  const verdict = checkArguments(spec, {
    args: request.args,
    protocolVersion: caller.protocolVersion,
  });
  if (verdict.kind !== "valid") {
    record("invalid-arguments");
    if (verdict.kind === "protocol-error") throw verdict.error;
    return verdict.result;
  }
  const key = request.idempotencyKey;
  const running = { request, spec, details, record, keyed: key !== undefined };
  if (key === undefined) {
    const answer = await runVersion(core, call, running);
    return answer.kind === "final" ? answer.result : answer.value;
  }
  // At most once per key: claimed only now, by a call that would run.
  return await idempotently(core, {
    caller,
    id: call.context.id,
    signal: call.context.signal,
    key,
    spec,
    args: request.args,
    record,
  }, () => runVersion(core, call, running));
}

/**
 * The steps that run a call: the rounds of a 2026-07-28 call that asks for input, confirm,
 * handler. A final result, or (`again`) a round that asks the client for input.
 */
async function runVersion(
  core: ServerCore,
  call: ToolCall,
  reached: {
    request: CallParams;
    spec: ToolSpec;
    details: Details;
    record: RecordOutcome;
    /** Whether an idempotency key holds the call: a refused requestState then frees it. */
    keyed: boolean;
  },
): Promise<RunAnswer<InputRequiredAnswer>> {
  const { caller } = call;
  const { request, spec, details, record } = reached;
  // What a requestState is bound to, beside the principal and a digest of the arguments.
  const bound = `tools/call ${spec.name}`;
  let rounds: Awaited<ReturnType<typeof openRounds>> | undefined;
  try {
    rounds = isStateless(caller)
      ? await openRounds(core, {
        caller,
        request: bound,
        args: request.args,
        params: call.params,
      })
      : undefined;
  } catch (e) {
    throw reached.keyed ? new NotRun(e) : e;
  }
  // The limits, for a call about to run: a repeat answered from its key's store never reaches
  // them, and a retry that continues a round it was admitted for is not a new call. A refusal
  // frees the key: nothing ran, and the call may be made again once the window ends.
  if (!rounds?.state) {
    try {
      await admitStep(core, { caller, spec, id: call.context.id, record });
    } catch (e) {
      throw reached.keyed ? new NotRun(e) : e;
    }
  }
  const ask = {
    caller,
    context: call.context,
    rounds,
    canRequest: caller.canRequest ?? false,
  };
  try {
    let ended: CallToolResult | undefined;
    try {
      ended = await confirmStep(askerFor({ ...ask, who: "the confirmation" }), {
        caller,
        spec,
        args: request.args,
        details,
      });
    } catch (e) {
      if (e instanceof MissingClientCapabilityError) {
        record("tool-error");
        return { kind: "final", result: missingCapability(caller, spec, e) };
      }
      if (e instanceof InputRequired) {
        record("input-required");
        throw e;
      }
      record(call.context.signal.aborted ? "cancelled" : "tool-error");
      return {
        kind: "final",
        result: {
          content: [{
            type: "text",
            text: `${spec.name}: the confirmation failed (${
              (e as Error).message
            }); nothing was done`,
          }],
          isError: true,
        },
      };
    }
    if (ended) {
      record("declined");
      return { kind: "final", result: ended };
    }
    const rule = approvalRuleFor(core, { caller, spec, args: request.args });
    if (rule) {
      return {
        kind: "final",
        result: await holdForApproval(core, {
          caller,
          spec,
          args: request.args,
          task: request.task,
          context: call.context,
          rule,
          record,
        }),
      };
    }
    const result = await runHandler(core, {
      caller,
      context: call.context,
      spec,
      request,
      record,
      asker: askerFor({
        ...ask,
        who: `${spec.name}@${spec.version}`,
        uses: spec.uses ?? [],
      }),
    });
    return { kind: "final", result };
  } catch (e) {
    if (!(e instanceof InputRequired) || !rounds) throw e;
    return {
      kind: "again",
      value: {
        resultType: "input_required",
        result: await inputRequiredResult(core, {
          caller,
          request: bound,
          args: request.args,
          rounds,
        }),
      },
    };
  }
}

/**
 * Step 5, limits: the estate's call limits (`McpServerOptions.limiter`) admit the call and count
 * it, or refuse it before anything runs — counted only once its arguments were accepted, so a
 * malformed call costs nothing, and never counted when refused.
 *
 * @param core The server.
 * @param call Who calls which version, the request's id (its outcome is noted), and the log.
 * @throws {JsonRpcError} `-32029` with the refusal as `data` (outcome `rate-limited`).
 */
async function admitStep(
  core: ServerCore,
  call: { caller: Caller; spec: ToolSpec; id: JsonRpcId; record: RecordOutcome },
): Promise<void> {
  const limiter = core.options.limiter;
  if (!limiter) return;
  const refusal = await limiter.admit({
    principal: call.caller.principal.id,
    tool: call.spec.name,
    now: core.now(),
  });
  if (!refusal) return;
  call.record("rate-limited");
  call.caller.outcomes.set(call.id, { kind: "rate-limited", refusal });
  throw protocolError(ESTATE_ERROR_CODES.RATE_LIMITED, limitRefusalText(refusal), refusal);
}

/** What the log adds to a call as it goes: the confirmation. */
interface Details {
  now: () => number;
  confirmation?: ConfirmationRecord;
  /** What the caller is told of the version's deprecation, when it is deprecated. */
  deprecation?: DeprecationNotice;
}

/** The call's logger, timed from now. */
function recorder(
  core: ServerCore,
  call: {
    caller: Caller;
    spec: ToolSpec;
    args: Record<string, unknown>;
    details: Details;
  },
): RecordOutcome {
  const { caller, spec, args, details } = call;
  const started = core.now();
  return (outcome) => {
    const record: CallRecord = {
      principal: caller.principal.id,
      tool: spec.name,
      version: spec.version,
      outcome,
      durationMs: core.now() - started,
      at: new Date(started).toISOString(),
      arguments: args,
    };
    if (details.confirmation) record.confirmation = details.confirmation;
    if (details.deprecation) record.deprecation = details.deprecation;
    core.options.onCall?.(record);
    auditCall(core.options.audit, { record, classification: spec.dataClassification });
  };
}

function issuesText(tool: string, limited: LimitedIssues): string {
  const n = limited.omitted;
  return `Invalid arguments for ${tool}:\n` +
    limited.issues.map((i) => `${i.path}: ${i.message} (${i.keyword})`).join(
      "\n",
    ) +
    (n ? `\n… and ${n} more issue${n === 1 ? "" : "s"}` : "");
}

/** What an invalid-arguments answer carries: the first issues, and how many more (when any). */
function issuesData(limited: LimitedIssues): Record<string, unknown> {
  return limited.omitted
    ? { issues: limited.issues, omitted: limited.omitted }
    : { issues: limited.issues };
}
