// The client's governor of server-initiated requests: it decides, for one server, whether a
// `sampling/createMessage`, `elicitation/create` or `roots/list` is served under the host's policy
// (see server_requests.ts), applies the policy's limits and caps, calls the host's callback, checks
// its answer, and logs every request — served, refused or failed. Both eras go through `serve`:
// the handshake era's JSON-RPC requests, and 2026-07-28's input requests.

import { ERROR_CODES, JsonRpcError } from "../jsonrpc/errors.ts";
import { isObject } from "../_object.ts";
import { checkElicitationContent, checkElicitationSchema } from "./elicitation_schema.ts";
import {
  type ClientCapabilityName,
  isMcpMethod,
  MCP_METHODS,
  type ProtocolEra,
} from "./methods.ts";
import type { ServerRequestRecord, ServerRequestVia } from "./server_request_log.ts";
import {
  DEFAULT_SAMPLING_MAX_TOKENS,
  DEFAULT_SERVER_REQUEST_LIMITS,
  type SamplingMessage,
  type SamplingRequest,
  SERVER_REQUEST_ERROR_CODES,
  type ServerRequestContext,
  type ServerRequestLimits,
  type ServerRequestMethod,
  type ServerRequestPolicy,
} from "./server_requests.ts";

/** An outgoing request server-initiated requests are counted against (`maxPerCall`). */
export interface CallCharge {
  /** What it is, for messages: e.g. `tools/call crm.search`. */
  readonly label: string;
  /** How many server-initiated requests were admitted during it. */
  count: number;
}

/** What the governor needs from its client. */
export interface GovernorHost {
  /** The host's policy for this server. */
  readonly policy: ServerRequestPolicy;
  /** The server's name for logs and callbacks. */
  server(): string;
  /** The era the connection speaks, once known. */
  era(): ProtocolEra | undefined;
  /** The clock, in milliseconds. */
  now(): number;
  /** Records one request. */
  record(record: ServerRequestRecord): void;
}

/** How one request arrived. */
export interface ServeOptions {
  /** A JSON-RPC request, or an input request. */
  via: ServerRequestVia;
  /** Aborted when the request (or the call it belongs to) is cancelled. */
  signal: AbortSignal;
  /** For an input request: the call whose result asked for it. */
  call?: CallCharge;
}

/**
 * A refusal as it goes on the wire (code, message, data), with the reason the log and a 2026-07-28
 * caller are told.
 */
export class ServerRequestRefusal extends JsonRpcError {
  /** Why, for the log and the caller. */
  readonly reason: string;
  /** `refused` (policy, cap, or a callback that said no) or `failed` (a callback broke). */
  readonly outcome: "refused" | "failed";

  constructor(
    code: number,
    message: string,
    options: { reason: string; outcome?: "refused" | "failed"; data?: unknown },
  ) {
    super(
      code,
      message,
      options.data === undefined ? {} : { data: options.data },
    );
    this.name = "ServerRequestRefusal";
    this.reason = options.reason;
    this.outcome = options.outcome ?? "refused";
  }
}

const MINUTE_MS = 60_000;

/**
 * The direction (the client capability) a server-to-client request needs, from the method
 * table; undefined for a method this client does not govern.
 */
function directionOf(method: string): ClientCapabilityName | undefined {
  if (!isMcpMethod(method) || !MCP_METHODS[method].sentBy.includes("server")) return undefined;
  return MCP_METHODS[method].clientCapability;
}

/** What a prepared request does once admitted: its answer, and an elicitation's action. */
type Run = (context: ServerRequestContext) => Promise<Served>;
interface Served {
  result: Record<string, unknown>;
  action?: "accept" | "decline" | "cancel";
}

/** Serves one server's requests under the host's policy. */
export class ServerRequestGovernor {
  readonly #host: GovernorHost;
  readonly #limits: Required<ServerRequestLimits>;
  readonly #calls = new Set<CallCharge>();
  #window: number[] = [];
  #inFlight = 0;

  constructor(host: GovernorHost) {
    this.#host = host;
    this.#limits = {
      ...DEFAULT_SERVER_REQUEST_LIMITS,
      ...definedOnly(host.policy.limits ?? {}),
    };
    for (const [name, value] of Object.entries(this.#limits)) {
      if (!Number.isInteger(value) || value < 0) {
        throw new RangeError(
          `ServerRequestPolicy: limits.${name} must be a non-negative integer, got ${value}`,
        );
      }
    }
  }

  /** The caps in force. */
  get limits(): Readonly<Required<ServerRequestLimits>> {
    return this.#limits;
  }

  /** Starts counting the server-initiated requests of one outgoing request. */
  openCall(label: string): CallCharge {
    const call: CallCharge = { label, count: 0 };
    this.#calls.add(call);
    return call;
  }

  /** Stops counting for it. */
  closeCall(call: CallCharge): void {
    this.#calls.delete(call);
  }

  /**
   * Serves one server-initiated request: resolves with the result to answer, or rejects with a
   * {@linkcode ServerRequestRefusal} (a `JsonRpcError`). Every request is recorded.
   */
  async serve(
    method: string,
    params: unknown,
    options: ServeOptions,
  ): Promise<Record<string, unknown>> {
    const host = this.#host;
    const at = host.now();
    const server = host.server();
    const depth = this.#inFlight + 1;
    const adjustments: string[] = [];
    const base = {
      at,
      server,
      method,
      via: options.via,
      bytes: byteSize(params),
      depth,
    };
    const withAdjustments = () => adjustments.length ? { adjustments: [...adjustments] } : {};
    let admitted = false;
    try {
      const run = this.#prepare(
        method,
        isObject(params) ? params : {},
        options,
        adjustments,
      );
      this.#admit(method, options, depth);
      admitted = true;
      this.#inFlight++;
      const served = await run({
        server,
        method: method as ServerRequestMethod,
        via: options.via,
        signal: options.signal,
        depth,
        adjustments,
      });
      this.#record({
        ...base,
        outcome: "served",
        ...withAdjustments(),
        ...(served.action ? { action: served.action } : {}),
        durationMs: host.now() - at,
      });
      return served.result;
    } catch (e) {
      const refusal = e instanceof ServerRequestRefusal ? e : callbackError(method, e);
      this.#record({
        ...base,
        outcome: refusal.outcome,
        reason: refusal.reason,
        code: refusal.code,
        ...withAdjustments(),
        durationMs: host.now() - at,
      });
      throw refusal;
    } finally {
      if (admitted) this.#inFlight--;
    }
  }

  #record(record: ServerRequestRecord): void {
    try {
      this.#host.record(record);
    } catch {
      // a log hook that throws must not change the answer
    }
  }

  /** Checks the request against the policy; returns what serving it does. */
  #prepare(
    method: string,
    params: Record<string, unknown>,
    options: ServeOptions,
    adjustments: string[],
  ): Run {
    if (directionOf(method) === undefined) {
      throw notFound(
        method,
        "not a server-initiated request this client serves",
      );
    }
    if (options.via === "request" && this.#host.era() === "stateless") {
      throw notFound(
        method,
        "a 2026-07-28 server asks through input_required results, not through requests",
      );
    }
    switch (method as ServerRequestMethod) {
      case "sampling/createMessage":
        return this.#sampling(params, adjustments);
      case "elicitation/create":
        return this.#elicitation(params);
      case "roots/list":
        return this.#roots();
    }
  }

  /** Refuses when a cap would be passed; otherwise counts the request against each. */
  #admit(method: string, options: ServeOptions, depth: number): void {
    const limits = this.#limits;
    const now = this.#host.now();
    if (depth > limits.maxDepth) {
      throw rejected(
        method,
        `nested ${depth} deep (at most ${limits.maxDepth})`,
      );
    }
    this.#window = this.#window.filter((t) => t > now - MINUTE_MS);
    if (this.#window.length >= limits.maxPerMinute) {
      throw rejected(
        method,
        `more than ${limits.maxPerMinute} requests per minute`,
      );
    }
    const charged = options.via === "input-required"
      ? (options.call ? [options.call] : [])
      : [...this.#calls];
    const full = charged.find((c) => c.count >= limits.maxPerCall);
    if (full) {
      throw rejected(
        method,
        `more than ${limits.maxPerCall} requests during ${full.label}`,
      );
    }
    this.#window.push(now);
    for (const c of charged) c.count++;
  }

  #sampling(params: Record<string, unknown>, adjustments: string[]): Run {
    const method = "sampling/createMessage";
    const policy = this.#host.policy.sampling;
    if (!policy) throw notAllowed(method);
    const messages = params.messages;
    if (
      !Array.isArray(messages) ||
      !messages.every((m) => isObject(m) && (m.role === "user" || m.role === "assistant"))
    ) {
      throw invalid(
        method,
        "messages must be an array of {role: user|assistant, content}",
      );
    }
    const asked = params.maxTokens;
    if (typeof asked !== "number" || !Number.isFinite(asked) || asked <= 0) {
      throw invalid(method, "maxTokens must be a positive number");
    }
    if (
      (params.tools !== undefined || params.toolChoice !== undefined) &&
      !policy.tools
    ) {
      throw invalid(
        method,
        "tools were sent, but this client did not declare sampling.tools",
      );
    }
    const include = params.includeContext;
    if (
      include !== undefined &&
      !["none", "thisServer", "allServers"].includes(include as string)
    ) {
      throw invalid(
        method,
        'includeContext must be "none", "thisServer" or "allServers"',
      );
    }
    const max = policy.maxTokens ?? DEFAULT_SAMPLING_MAX_TOKENS;
    const request: SamplingRequest = {
      messages: messages as SamplingMessage[],
      maxTokens: Math.min(asked, max),
    };
    if (asked > max) adjustments.push(`maxTokens ${asked} → ${max}`);
    if (include === "allServers") {
      if (policy.includeContext === "refuse") {
        throw rejected(
          method,
          'includeContext "allServers" (context beyond this server)',
        );
      }
      request.includeContext = "thisServer";
      adjustments.push("includeContext allServers → thisServer");
    } else if (include !== undefined) {
      request.includeContext = include as "none" | "thisServer";
    }
    if (typeof params.systemPrompt === "string") {
      request.systemPrompt = params.systemPrompt;
    }
    if (typeof params.temperature === "number") {
      request.temperature = params.temperature;
    }
    if (
      Array.isArray(params.stopSequences) &&
      params.stopSequences.every((s) => typeof s === "string")
    ) request.stopSequences = params.stopSequences;
    if (isObject(params.metadata)) request.metadata = params.metadata;
    if (policy.tools) {
      if (Array.isArray(params.tools)) request.tools = params.tools;
      if (isObject(params.toolChoice)) request.toolChoice = params.toolChoice;
    }
    const preferences = isObject(params.modelPreferences) ? params.modelPreferences : undefined;
    if (preferences) {
      adjustments.push(
        policy.modelPreferences ? "modelPreferences mapped" : "modelPreferences ignored",
      );
    }
    return async (context) => {
      if (preferences && policy.modelPreferences) {
        const mapped = policy.modelPreferences(preferences, context);
        if (mapped !== undefined) request.modelPreferences = mapped;
      }
      const result = await policy.sample(request, context);
      if (
        !isObject(result) || typeof result.model !== "string" ||
        (result.role !== "assistant" && result.role !== "user") ||
        result.content === undefined
      ) {
        throw failed(
          method,
          "the host's sampling callback answered no {role, content, model}",
        );
      }
      return { result: result as unknown as Record<string, unknown> };
    };
  }

  #elicitation(params: Record<string, unknown>): Run {
    const method = "elicitation/create";
    const policy = this.#host.policy.elicitation;
    if (!policy?.form && !policy?.url) throw notAllowed(method);
    const mode = params.mode ?? "form";
    if (mode !== "form" && mode !== "url") {
      throw invalid(method, `unknown mode ${JSON.stringify(mode)}`);
    }
    if (!policy[mode]) {
      throw invalid(method, `mode "${mode}" was not declared by this client`);
    }
    if (typeof params.message !== "string") {
      throw invalid(method, "message must be a string");
    }
    const serverMessage = {
      server: this.#host.server(),
      message: params.message,
    };
    if (mode === "form") {
      const form = policy.form!;
      const schema = params.requestedSchema;
      const issues = checkElicitationSchema(schema);
      if (issues.length) {
        throw invalid(
          method,
          `requestedSchema is not the restricted flat form (${issues[0].path}: ${
            issues[0].message
          }${issues.length > 1 ? `; and ${issues.length - 1} more` : ""})`,
          { issues },
        );
      }
      const requestedSchema = schema as Record<string, unknown>;
      return async (context) => {
        const answer = await form({ serverMessage, requestedSchema }, context);
        if (
          !isObject(answer) ||
          !["accept", "decline", "cancel"].includes(answer.action as string)
        ) {
          throw failed(
            method,
            "the host's form callback answered no accept, decline or cancel",
          );
        }
        if (answer.action !== "accept") {
          return {
            result: { action: answer.action },
            action: answer.action as "decline",
          };
        }
        const wrong = checkElicitationContent(requestedSchema, answer.content);
        if (wrong.length) {
          throw failed(
            method,
            `the host's form answer does not fit the requested schema (${wrong[0].path}: ${
              wrong[0].message
            })`,
          );
        }
        return {
          result: { action: "accept", content: answer.content },
          action: "accept",
        };
      };
    }
    const urlConsent = policy.url!;
    const raw = params.url;
    if (typeof raw !== "string") throw invalid(method, "url must be a string");
    let parsed: URL;
    try {
      parsed = new URL(raw);
    } catch {
      throw invalid(method, `url ${JSON.stringify(raw)} is not a valid URL`);
    }
    if (parsed.protocol !== "https:" && parsed.protocol !== "http:") {
      throw invalid(
        method,
        `url scheme ${parsed.protocol} is refused (only https: and http:)`,
      );
    }
    const domain = parsed.hostname;
    const request = {
      serverMessage,
      url: raw,
      domain,
      punycode: domain.split(".").some((label) => label.startsWith("xn--")),
      ...(typeof params.elicitationId === "string" ? { elicitationId: params.elicitationId } : {}),
    };
    return async (context) => {
      const decision = await urlConsent(request, context);
      const action = isObject(decision) && decision.approved === true
        ? "accept"
        : isObject(decision) && decision.action === "cancel"
        ? "cancel"
        : "decline";
      return { result: { action }, action };
    };
  }

  #roots(): Run {
    const method = "roots/list";
    const policy = this.#host.policy.roots;
    if (!policy) throw notAllowed(method);
    return async (context) => {
      const roots = await policy.list(context);
      if (
        !Array.isArray(roots) ||
        !roots.every((r) =>
          isObject(r) && typeof r.uri === "string" &&
          r.uri.startsWith("file://") &&
          (r.name === undefined || typeof r.name === "string")
        )
      ) {
        throw failed(
          method,
          "the host's roots callback answered no list of {uri: file://…, name?}",
        );
      }
      return {
        result: {
          roots: roots.map((r) => ({
            uri: r.uri,
            ...(r.name === undefined ? {} : { name: r.name }),
          })),
        },
      };
    };
  }
}

/** The limits given, without the undefined ones (which would hide the defaults). */
function definedOnly(limits: ServerRequestLimits): ServerRequestLimits {
  return Object.fromEntries(
    Object.entries(limits).filter(([, v]) => v !== undefined),
  );
}

function byteSize(params: unknown): number {
  if (params === undefined) return 0;
  try {
    return new TextEncoder().encode(JSON.stringify(params)).length;
  } catch {
    return 0;
  }
}

function notFound(method: string, reason: string): ServerRequestRefusal {
  return new ServerRequestRefusal(
    ERROR_CODES.METHOD_NOT_FOUND,
    `Method not found: ${method}`,
    {
      reason,
    },
  );
}

function notAllowed(method: ServerRequestMethod): ServerRequestRefusal {
  return notFound(
    method,
    `${directionOf(method)} is not allowed for this server by the host's policy (not declared)`,
  );
}

function invalid(
  method: string,
  what: string,
  data?: unknown,
): ServerRequestRefusal {
  return new ServerRequestRefusal(
    ERROR_CODES.INVALID_PARAMS,
    `${method}: ${what}`,
    {
      reason: what,
      data,
    },
  );
}

function rejected(method: string, what: string): ServerRequestRefusal {
  return new ServerRequestRefusal(
    SERVER_REQUEST_ERROR_CODES.REJECTED,
    `${method} refused by the host's policy: ${what}`,
    { reason: `refused by the host's policy: ${what}` },
  );
}

function failed(method: string, what: string): ServerRequestRefusal {
  return new ServerRequestRefusal(
    ERROR_CODES.INTERNAL_ERROR,
    `${method}: the client failed`,
    {
      reason: what,
      outcome: "failed",
    },
  );
}

/** A callback's throw: a `JsonRpcError` is its refusal, sent as is; anything else a failure. */
function callbackError(method: string, e: unknown): ServerRequestRefusal {
  if (e instanceof JsonRpcError) {
    return new ServerRequestRefusal(e.code, e.message, {
      reason: `the host's callback refused: ${e.message}`,
      data: e.data,
    });
  }
  return failed(
    method,
    `the host's callback threw: ${e instanceof Error ? e.message : String(e)}`,
  );
}
