/**
 * The methods both eras serve, written once: `tools/list`, `tools/call`, `resources/list`,
 * `resources/templates/list`, `resources/read`, `prompts/list`, `prompts/get` and
 * `completion/complete`. Each answers with its result and, for a list or a read, whether the
 * answer is the same for every principal; each era's wrapper adds the rest (the session gate in
 * `_server_rev2025_11_25.ts`; `resultType`, `ttlMs` and `cacheScope` in
 * `_server_rev2026_07_28.ts`), and its own methods.
 *
 * @module
 */
import { mayHoldCalls } from "./_call_approval.ts";
import { linkSignals } from "../jsonrpc/signals.ts";
import { ERROR_CODES, MCP_ERROR_CODES } from "../jsonrpc/errors.ts";
import { isObject } from "../_object.ts";
import type { JsonRpcId } from "../jsonrpc/types.ts";
import type { RequestContext } from "../jsonrpc/peer_types.ts";
import type { ToolRegistry } from "../estate/registry.ts";
import { admitsEveryone, everyoneMeets, meetsRequirement } from "../estate/requirement.ts";
import { type McpTool, toMcpTool, type ToolSpec } from "../estate/spec.ts";
import { askerFor, clientCan, inputRequiredResult, openRounds, trackAsks } from "./_asks.ts";
import { needsConfirmation } from "./asks.ts";
import { callTool } from "./_call_tool.ts";
import { cancelTask, getTask } from "./_tasks.ts";
import { page } from "./_pages.ts";
import { type Caller, logProbe, protocolError, type ServerCore } from "./_server_core.ts";
import {
  type CacheScope,
  listPrompts,
  listResources,
  listTemplates,
  promptStanding,
  uriGuards,
} from "./_surfaces.ts";
import {
  PromptArgumentError,
  type PromptCompletionRequest,
  type PromptContext,
  type PromptRequest,
  type PromptResult,
} from "./providers.ts";
import { MissingClientCapabilityError } from "./tool_handler.ts";
import { STATELESS_PROTOCOL_VERSIONS } from "./rev2026_07_28.ts";
import { isMcpMethod, type McpMethodName } from "./methods.ts";

/** One request to a method: who asks, its id and params, and its cancel signal. */
export interface MethodCall {
  /** Who the request is served for. */
  readonly caller: Caller;
  /** The request's id. */
  readonly id: JsonRpcId;
  /** The request's params (an object: the wrappers answer anything else with `-32602`). */
  readonly params: Record<string, unknown>;
  /** Aborted when the caller cancels. */
  readonly signal: AbortSignal;
  /**
   * The request as the peer serving it sees it: its progress, related notifications, and the
   * server's own requests to the client on its behalf.
   */
  readonly context: RequestContext;
}

/** A method's answer, before its era's wrapper shapes it. */
export interface Answer {
  /** The result. */
  readonly result: Record<string, unknown>;
  /**
   * For a list or a read: whether the answer is the same for every principal (2026-07-28's
   * `cacheScope`), asked only by the era that says so. Absent for the other methods.
   */
  readonly scope?: () => CacheScope;
  /**
   * `input_required` for a 2026-07-28 call that needs the client's input first; `task` for one
   * answered with a task (`CreateTaskResult`, the tasks extension).
   */
  readonly resultType?: "input_required" | "task";
}

/** A method both eras serve. */
export type Method = (
  core: ServerCore,
  call: MethodCall,
) => Answer | Promise<Answer>;

const listTools: Method = (core, { caller, params }) => {
  const registry = core.options.registry;
  // Deterministic order; a session reuses its list across pages until the estate changes. A tool
  // that asks the client for what it did not declare is not listed to it.
  let hidden = false;
  caller.tools ??= registry.discover(caller.principal).filter((spec) => {
    const served = servable(spec, caller.clientCapabilities);
    hidden ||= !served;
    return served;
  }).map((spec) => listedTool(core, { caller, spec }));
  return {
    result: page("tools", caller.tools, {
      cursor: params.cursor,
      pageSize: core.pageSize,
    }),
    scope: () => hidden ? "private" : toolsScope(registry),
  };
};

/**
 * A version as `tools/list` shows it; in 2025-11-25 with `execution.taskSupport` where the
 * server's task options say it runs as a task (`TaskOptions.taskSupport`), or else `optional`
 * where the estate's `callApprovals` may hold its calls (so a client asks for a task instead of
 * waiting on the call).
 */
function listedTool(core: ServerCore, options: { caller: Caller; spec: ToolSpec }): McpTool {
  const tool = toMcpTool(options.spec);
  const stateless = STATELESS_PROTOCOL_VERSIONS.includes(options.caller.protocolVersion ?? "");
  const support = stateless ? undefined : core.options.tasks?.taskSupport?.(options.spec) ??
    (mayHoldCalls(core, options.spec) ? "optional" : undefined);
  return support === undefined ? tool : { ...tool, execution: { taskSupport: support } } as McpTool;
}

/**
 * Whether the client declared every direction a version asks of it: what it `uses`, and
 * elicitation when its calls need the user's confirmation (`needsConfirmation`) — a client that
 * cannot confirm would only ever see such a call refused.
 */
function servable(
  spec: ToolSpec,
  capabilities: Record<string, unknown> | undefined,
): boolean {
  return (spec.uses ?? []).every((direction) => clientCan(capabilities, direction)) &&
    (!needsConfirmation(spec) || clientCan(capabilities, "elicitation"));
}

/**
 * `tools/list` is the same for every principal exactly when each tool's newest active version
 * admits everyone: then discovery lists that version to all; otherwise someone sees less.
 */
function toolsScope(registry: ToolRegistry): CacheScope {
  return registry.names().every((n) => {
      const latest = registry.latest(n);
      return latest === undefined || admitsEveryone(latest);
    })
    ? "public"
    : "private";
}

const callToolMethod: Method = async (core, { caller, params, context }) => {
  const result = await callTool(core, { caller, params, context });
  if ("resultType" in result && result.resultType === "input_required") {
    return { result: result.result, resultType: "input_required" };
  }
  // A CreateTaskResult of the stateless revision says so itself (`_tasks.ts`).
  const answer = result as unknown as Record<string, unknown>;
  return answer.resultType === "task" ? { result: answer, resultType: "task" } : { result: answer };
};

function listMethod(
  key: string,
  list: typeof listResources | typeof listTemplates | typeof listPrompts,
): Method {
  return (core, { caller, params }) => {
    const { items, scope } = list(core.options, caller.principal);
    return {
      result: page<unknown>(key, items, {
        cursor: params.cursor,
        pageSize: core.pageSize,
      }),
      scope: () => scope,
    };
  };
}

/**
 * `resources/read`: a URI whose requirements the principal does not meet is answered as one
 * that does not exist, without asking the provider. The result is `public` only when the
 * provider ignores the principal and every requirement guarding the URI is for everyone.
 */
const readResource: Method = (core, { caller, params }) => {
  if (typeof params.uri !== "string") {
    throw protocolError(
      ERROR_CODES.INVALID_PARAMS,
      "Invalid params: resources/read needs uri (a string)",
    );
  }
  const { registry, resources } = core.options;
  const uri = params.uri;
  const guards = uriGuards(core.options, { uri, principal: caller.principal });
  const hidden = !guards.every((r) => meetsRequirement(r, caller.principal, { registry }));
  const contents = hidden ? undefined : resources?.read(uri, caller.principal);
  if (!contents || contents.length === 0) {
    logProbe(core, {
      caller,
      probe: { method: "resources/read", name: uri, hidden },
    });
    // 2026-07-28 answers an unknown resource with -32602 (it must not emit -32002).
    const stateless = STATELESS_PROTOCOL_VERSIONS.includes(
      caller.protocolVersion ?? "",
    );
    throw protocolError(
      stateless ? ERROR_CODES.INVALID_PARAMS : MCP_ERROR_CODES.RESOURCE_NOT_FOUND,
      `Resource not found: ${uri}`,
      { uri },
    );
  }
  const uniform = resources?.variesByPrincipal === false &&
    guards.every((r) => everyoneMeets(r, registry));
  const scope: CacheScope = uniform ? "public" : "private";
  return { result: { contents }, scope: () => scope };
};

/**
 * A prompt from the provider: its `getPrompt` (which may ask the client, through `context`), or
 * the older `get`.
 */
function promptOf(
  core: ServerCore,
  request: PromptRequest,
  context: PromptContext,
): PromptResult | undefined | Promise<PromptResult | undefined> {
  const p = core.options.prompts;
  if (p?.getPrompt) return p.getPrompt(request, context);
  return p?.get?.(request.name, request.args, request.principal);
}

/** Completions from the provider: its `completeArgument`, or the older `complete`. */
function completionsOf(
  core: ServerCore,
  request: PromptCompletionRequest,
): string[] | undefined {
  const p = core.options.prompts;
  if (p?.completeArgument) return p.completeArgument(request);
  return p?.complete?.(
    request.name,
    request.argument,
    request.value,
    request.principal,
  );
}

/**
 * `prompts/get`: a prompt the principal may not see is answered as one that does not exist. The
 * provider's `getPrompt` may ask the client (`PromptContext`): over the session in the handshake era; in
 * 2026-07-28 an ask without an answer ends the request with an input-required result, bound to
 * `prompts/get <name>` and the arguments, as `tools/call` does it.
 */
const getPrompt: Method = async (core, { caller, params, context }) => {
  if (typeof params.name !== "string") {
    throw protocolError(
      ERROR_CODES.INVALID_PARAMS,
      "Invalid params: prompts/get needs name (a string)",
    );
  }
  const args = params.arguments === undefined ? {} : params.arguments;
  if (
    !isObject(args) || !Object.values(args).every((v) => typeof v === "string")
  ) {
    throw protocolError(
      ERROR_CODES.INVALID_PARAMS,
      "Invalid params: prompt arguments must be an object of strings",
    );
  }
  const name = params.name;
  const hidden = promptStanding(core.options, { name, principal: caller.principal }) ===
    "hidden";
  const bound = `prompts/get ${name}`;
  const stateless = STATELESS_PROTOCOL_VERSIONS.includes(
    caller.protocolVersion ?? "",
  );
  // Opened whether or not the prompt is there for the caller: a hidden prompt and a missing one
  // answer alike.
  const rounds = stateless
    ? await openRounds(core, { caller, request: bound, args, params })
    : undefined;
  const asks = trackAsks(askerFor({
    caller,
    context,
    who: `prompt ${name}`,
    rounds,
    canRequest: caller.canRequest ?? false,
  }));
  let prompt: PromptResult | undefined;
  const linked = linkSignals(context.signal, asks.waiting);
  try {
    prompt = hidden ? undefined : await promptOf(core, {
      name,
      args: args as Record<string, string>,
      principal: caller.principal,
    }, {
      clientCapabilities: caller.clientCapabilities ?? {},
      signal: linked.signal,
      sample: asks.asker.sample,
      elicit: asks.asker.elicit,
      listRoots: asks.asker.listRoots,
    });
    const stopped = asks.fault() ?? asks.open();
    if (stopped) throw stopped;
  } catch (thrown) {
    const e = asks.fault() ?? thrown;
    if (asks.open() && !asks.fault() && rounds) {
      return {
        result: await inputRequiredResult(core, {
          caller,
          request: bound,
          args,
          rounds,
        }),
        resultType: "input_required",
      };
    }
    if (e instanceof PromptArgumentError) {
      throw protocolError(
        ERROR_CODES.INVALID_PARAMS,
        `Invalid params: ${e.message}`,
      );
    }
    if (e instanceof MissingClientCapabilityError) {
      throw protocolError(
        stateless ? MCP_ERROR_CODES.MISSING_REQUIRED_CLIENT_CAPABILITY : ERROR_CODES.INVALID_PARAMS,
        `${e.message} (prompt ${name})`,
        { requiredCapabilities: e.requiredCapabilities },
      );
    }
    throw e;
  } finally {
    linked.release();
  }
  if (!prompt) {
    logProbe(core, { caller, probe: { method: "prompts/get", name, hidden } });
    throw protocolError(ERROR_CODES.INVALID_PARAMS, `Unknown prompt: ${name}`);
  }
  return { result: prompt as unknown as Record<string, unknown> };
};

/** `completion/complete`: a prompt the principal may not see completes to nothing. */
const complete: Method = (core, { caller, params }) => {
  const ref = isObject(params.ref) ? params.ref : undefined;
  const argument = isObject(params.argument) ? params.argument : undefined;
  if (
    !ref || typeof ref.type !== "string" || !argument ||
    typeof argument.name !== "string" ||
    typeof argument.value !== "string"
  ) {
    throw protocolError(
      ERROR_CODES.INVALID_PARAMS,
      "Invalid params: completion/complete needs ref and argument {name, value}",
    );
  }
  let values: string[] = [];
  if (ref.type === "ref/prompt" && typeof ref.name === "string") {
    const name = ref.name;
    const standing = promptStanding(core.options, {
      name,
      principal: caller.principal,
    });
    if (standing !== "hidden") {
      values = completionsOf(core, {
        name,
        argument: argument.name,
        value: argument.value,
        principal: caller.principal,
      }) ??
        [];
    }
    if (standing !== "visible" && values.length === 0) {
      logProbe(core, {
        caller,
        probe: {
          method: "completion/complete",
          name,
          hidden: standing === "hidden",
        },
      });
    }
  } else if (ref.type !== "ref/resource") {
    throw protocolError(
      ERROR_CODES.INVALID_PARAMS,
      `Invalid params: unknown ref type ${JSON.stringify(ref.type)}`,
    );
  }
  return {
    result: {
      completion: {
        values: values.slice(0, 100),
        total: values.length,
        hasMore: values.length > 100,
      },
    },
  };
};

/**
 * Handlers by method name: only a method of the table (`methods.ts`) can have one (another name
 * is a type error); `tests/method_table_test.ts` checks that each era has a handler for exactly
 * the table's methods of that era.
 */
export type MethodHandlers<H> = { readonly [K in McpMethodName]?: H };

/**
 * The handler for a method, if it has one.
 *
 * @param handlers The handlers.
 * @param method The request's method (any string).
 * @returns The handler; undefined for a method without one or outside the table.
 */
export function handlerOf<H>(
  handlers: MethodHandlers<H>,
  method: string,
): H | undefined {
  return isMcpMethod(method) ? handlers[method] : undefined;
}

/** The methods both eras serve, by name. */
export const SHARED_METHODS: MethodHandlers<Method> = {
  "tools/list": listTools,
  "tools/call": callToolMethod,
  "resources/list": listMethod("resources", listResources),
  "resources/templates/list": listMethod("resourceTemplates", listTemplates),
  "resources/read": readResource,
  "prompts/list": listMethod("prompts", listPrompts),
  "prompts/get": getPrompt,
  "completion/complete": complete,
  "tasks/get": async (core, call) => ({ result: await getTask(core, call) }),
  "tasks/cancel": async (core, call) => ({ result: await cancelTask(core, call) }),
};
