/**
 * The host's policy for what a server may ask of its client: sampling (`sampling/createMessage`),
 * elicitation (`elicitation/create`, form and URL modes apart) and roots (`roots/list`). The same
 * policy answers them in both eras: as JSON-RPC requests from a handshake-era server, and as the
 * input requests of a 2026-07-28 `input_required` result.
 *
 * Everything is refused unless the policy allows it — the default for a third-party server. A
 * direction is allowed by giving its callback; only allowed directions are declared as client
 * capabilities ({@linkcode serverRequestCapabilities}). Each allowed request passes the policy's
 * limits before the callback sees it:
 *
 * - **sampling**: `maxTokens` clamped to `maxTokens` (default 1024); `includeContext:
 *   "allServers"` downgraded to `"thisServer"` (or refused, with `includeContext: "refuse"`) — the
 *   callback never sees more than this server asked for itself; `modelPreferences` dropped unless a
 *   `modelPreferences` function maps them; `tools`/`toolChoice` refused (`-32602`) unless `tools:
 *   true` (then `sampling.tools` is declared).
 * - **form elicitation**: the requested schema must be the restricted flat form
 *   (`checkElicitationSchema`), or the request is refused `-32602` with the issues in `data`. The
 *   server's text reaches the callback only as `serverMessage: {server, message}` — attributed to
 *   the server, never as the host's own words. Accepted content is checked against the schema.
 * - **URL elicitation**: the callback gets the full URL as sent and its domain (the hostname as
 *   `URL` parses it; punycode kept as is, and flagged); only `{approved: true}` accepts — anything
 *   else declines. A URL that does not parse, or is not `https:`/`http:`, is refused `-32602`.
 * - **caps** ({@linkcode ServerRequestLimits}): requests per outgoing call, per minute per server
 *   (a sliding window), and nesting depth (requests of this server being served at once).
 *
 * How a refusal is answered (handshake era):
 * - a direction not allowed is not declared, so — as for any method the client does not offer,
 *   and as the roots text prescribes — it is `-32601` Method not found;
 * - an elicitation mode not declared (URL when only forms are allowed, or the reverse) is `-32602`,
 *   as the elicitation text prescribes, and so is a request the restricted form does not allow;
 * - a request the policy refuses although its direction is declared (a cap, `includeContext:
 *   "refuse"`) is `-1` ({@linkcode SERVER_REQUEST_ERROR_CODES}`.REJECTED`), the code the sampling
 *   text gives for "User rejected sampling request": the host rejects on the user's behalf. An
 *   elicitation is answered with this error too rather than with `{action: "decline"}`: a decline
 *   says the user chose, which a cap did not.
 *
 * A callback may refuse by throwing a `JsonRpcError` (sent as is, logged `refused`); any other throw
 * is answered `-32603` (logged `failed`). In 2026-07-28 there is no error answer to an input
 * request: a refusal ends the call instead (the client does not retry; it throws
 * `InputRequestRefusedError`).
 *
 * @module
 */

import type { ProtocolEra } from "./methods.ts";
import type { ServerRequestVia } from "./server_request_log.ts";

/** The server-initiated request methods a policy governs. */
export type ServerRequestMethod =
  | "sampling/createMessage"
  | "elicitation/create"
  | "roots/list";

/**
 * The error codes a client answers server-initiated requests with, besides JSON-RPC's own.
 *
 * @example
 * ```ts
 * import { SERVER_REQUEST_ERROR_CODES } from "@tool-estate/core";
 * import assert from "node:assert/strict";
 * assert.equal(SERVER_REQUEST_ERROR_CODES.REJECTED, -1);
 * ```
 */
export const SERVER_REQUEST_ERROR_CODES: {
  /**
   * The host (for its user) rejected the request: the policy's caps or limits, or a callback that
   * said no. The sampling text's code for "User rejected sampling request".
   */
  readonly REJECTED: -1;
} = Object.freeze({ REJECTED: -1 } as const);

/** A message to or from the model in a sampling request (content as the server sent it). */
export interface SamplingMessage {
  /** Who says it. */
  role: "user" | "assistant";
  /** One content block or several (`text`, `image`, `audio`, `tool_use`, `tool_result`). */
  content: unknown;
}

/** The server's model preferences (all advisory). */
export interface ModelPreferences {
  /** Model name hints, in order of preference. */
  hints?: { name?: string }[];
  /** 0–1: how much cost matters. */
  costPriority?: number;
  /** 0–1: how much speed matters. */
  speedPriority?: number;
  /** 0–1: how much capability matters. */
  intelligencePriority?: number;
}

/** A `sampling/createMessage` request as the host's callback sees it: after the policy's limits. */
export interface SamplingRequest {
  /** The conversation. */
  messages: SamplingMessage[];
  /** The most tokens to sample (already clamped to the policy's `maxTokens`). */
  maxTokens: number;
  /** The server's system prompt (the host may change or drop it). */
  systemPrompt?: string;
  /** Context to include: never `allServers` here (downgraded or refused before). */
  includeContext?: "none" | "thisServer";
  /** Sampling temperature. */
  temperature?: number;
  /** Stop sequences. */
  stopSequences?: string[];
  /** Model preferences: present only when the policy maps them. */
  modelPreferences?: ModelPreferences;
  /** Provider-specific metadata the server sent. */
  metadata?: Record<string, unknown>;
  /** Tools the model may use (only when the policy allows tools). */
  tools?: unknown[];
  /** How the model uses tools (only when the policy allows tools). */
  toolChoice?: { mode?: "auto" | "required" | "none" };
}

/** What a sampling callback answers: the sampled message. */
export interface SamplingResult {
  /** Normally `assistant`. */
  role: "user" | "assistant";
  /** The content block(s). */
  content: unknown;
  /** The model that produced it. */
  model: string;
  /** Why sampling stopped (`endTurn`, `stopSequence`, `maxTokens`, `toolUse`, …). */
  stopReason?: string;
}

/** The server's words, attributed to it: what a host shows as coming from that server. */
export interface ServerMessage {
  /** The server that wrote it (the host's name for it). */
  readonly server: string;
  /** The text, exactly as the server sent it. */
  readonly message: string;
}

/** A form elicitation as the host's callback sees it. */
export interface FormElicitation {
  /** The server's explanation, attributed to the server. */
  readonly serverMessage: ServerMessage;
  /** The restricted flat schema of the form (already checked). */
  readonly requestedSchema: Record<string, unknown>;
}

/** A value a user can enter in a form elicitation. */
export type ElicitationValue = string | number | boolean | string[];

/**
 * What a form callback answers: submitted content (checked against the schema), or the user
 * declined (said no) or cancelled (dismissed).
 */
export type FormElicitationAnswer =
  | { action: "accept"; content: Record<string, ElicitationValue> }
  | { action: "decline" | "cancel" };

/** A URL elicitation as the host's callback sees it. */
export interface UrlElicitation {
  /** The server's explanation, attributed to the server. */
  readonly serverMessage: ServerMessage;
  /** The full URL, exactly as the server sent it (show all of it before consent). */
  readonly url: string;
  /** Its domain: the hostname as `URL` parses it (punycode kept as is). */
  readonly domain: string;
  /** Whether a label of the domain is punycode (`xn--…`): worth a warning. */
  readonly punycode: boolean;
  /** The server's id for the elicitation (handshake era), if any. */
  readonly elicitationId?: string;
}

/**
 * What a URL callback answers. Only `approved: true` accepts (the user consented to open the
 * URL); anything else declines, or cancels with `action: "cancel"`.
 */
export interface UrlElicitationDecision {
  /** Whether the user explicitly approved opening the URL. */
  approved: boolean;
  /** When not approved: declined (the default) or cancelled. */
  action?: "decline" | "cancel";
}

/** A root the client exposes. */
export interface Root {
  /** A `file://` URI. */
  uri: string;
  /** A display name. */
  name?: string;
}

/** What a callback is told about the request besides its params. */
export interface ServerRequestContext {
  /** The server, by the host's name for it. */
  readonly server: string;
  /** The method. */
  readonly method: ServerRequestMethod;
  /** How it arrived. */
  readonly via: ServerRequestVia;
  /** Aborted when the server cancels it, the call it belongs to is cancelled, or the client closes. */
  readonly signal: AbortSignal;
  /** 1, or more when others of this server's requests are being served at the same time. */
  readonly depth: number;
  /** What the policy changed before the callback saw it (e.g. `maxTokens 8000 → 1024`). */
  readonly adjustments: readonly string[];
}

/** Allows sampling, within limits. */
export interface SamplingPolicy {
  /**
   * Samples the host's model (with the user's review, as the specification asks). Throw a
   * `JsonRpcError` to refuse (e.g. code `-1`, "User rejected sampling request").
   */
  sample: (
    request: SamplingRequest,
    context: ServerRequestContext,
  ) => SamplingResult | Promise<SamplingResult>;
  /** The most tokens a server may ask for; larger `maxTokens` are clamped. Default 1024. */
  maxTokens?: number;
  /**
   * What to do with `includeContext: "allServers"`: `"downgrade"` (the default) passes
   * `"thisServer"` to the callback; `"refuse"` refuses the request (`-1`). `"none"` and
   * `"thisServer"` pass as they are.
   */
  includeContext?: "downgrade" | "refuse";
  /**
   * Maps the server's model preferences to the host's (return undefined to drop them). Without it
   * they are ignored: the callback never sees them.
   */
  modelPreferences?: (
    preferences: ModelPreferences,
    context: ServerRequestContext,
  ) => ModelPreferences | undefined;
  /** Whether tool use in sampling is allowed (declares `sampling.tools`). Default false. */
  tools?: boolean;
}

/** Allows elicitation: each mode by its own callback. */
export interface ElicitationPolicy {
  /** Shows a form; declares `elicitation.form`. */
  form?: (
    request: FormElicitation,
    context: ServerRequestContext,
  ) => FormElicitationAnswer | Promise<FormElicitationAnswer>;
  /** Asks consent to open a URL; declares `elicitation.url`. */
  url?: (
    request: UrlElicitation,
    context: ServerRequestContext,
  ) => UrlElicitationDecision | Promise<UrlElicitationDecision>;
}

/** Allows `roots/list`; declares `roots` (with `listChanged` in the handshake era). */
export interface RootsPolicy {
  /** The roots this server may see. */
  list: (context: ServerRequestContext) => Root[] | Promise<Root[]>;
}

/** Caps on server-initiated requests; past one, the request is refused (`-1`) and logged. */
export interface ServerRequestLimits {
  /**
   * The most server-initiated requests per outgoing `tools/call`, `prompts/get` or
   * `resources/read`. A handshake-era request is counted against every such request in flight
   * when it arrives (the wire does not say which it belongs to); an input request against its own.
   * Default 10.
   */
  maxPerCall?: number;
  /** The most requests served per minute for this server (a sliding 60-second window). Default 30. */
  maxPerMinute?: number;
  /**
   * The most requests of this server served at the same time: one that arrives while another is
   * being served (a callback that calls the server again) is one level deeper. Default 3.
   */
  maxDepth?: number;
  /** The most `input_required` round trips for one request (2026-07-28). Default 8. */
  maxInputRounds?: number;
}

/** The limits used where a policy does not set them. */
export const DEFAULT_SERVER_REQUEST_LIMITS: Readonly<
  Required<ServerRequestLimits>
> = Object
  .freeze({
    maxPerCall: 10,
    maxPerMinute: 30,
    maxDepth: 3,
    maxInputRounds: 8,
  });

/** The most tokens a sampling request may ask for when the policy does not say. */
export const DEFAULT_SAMPLING_MAX_TOKENS = 1024;

/**
 * What a host lets one server ask of it. An empty policy (the default) refuses everything.
 */
export interface ServerRequestPolicy {
  /** Sampling, when allowed. */
  sampling?: SamplingPolicy;
  /** Elicitation, when allowed (each mode apart). */
  elicitation?: ElicitationPolicy;
  /** Roots, when allowed. */
  roots?: RootsPolicy;
  /** Caps; defaults in {@linkcode DEFAULT_SERVER_REQUEST_LIMITS}. */
  limits?: ServerRequestLimits;
}

/** Options for {@linkcode serverRequestCapabilities}. */
export interface ServerRequestCapabilitiesOptions {
  /**
   * The era: `handshake` (for `initialize`) declares `roots.listChanged`; `stateless` (the
   * 2026-07-28 `_meta` envelope, which has no roots notification) declares `roots: {}`. Default
   * `handshake`. The deprecated `legacy` and `modern` mean `handshake` and `stateless`.
   */
  era?: ProtocolEra | "legacy" | "modern";
}

/**
 * The client capabilities a policy declares: `sampling` (with `tools` when allowed),
 * `elicitation` with `form` and/or `url`, `roots` — each only when the policy allows it.
 *
 * @param policy The policy.
 * @param options The era.
 * @returns The capabilities (an empty object for the default policy).
 *
 * @example
 * ```ts
 * import { serverRequestCapabilities } from "@tool-estate/core";
 * import assert from "node:assert/strict";
 * assert.deepEqual(serverRequestCapabilities({}), {});
 * assert.deepEqual(
 *   serverRequestCapabilities({
 *     elicitation: { url: () => ({ approved: false }) },
 *     roots: { list: () => [] },
 *   }),
 *   { elicitation: { url: {} }, roots: { listChanged: true } },
 * );
 * ```
 */
export function serverRequestCapabilities(
  policy: ServerRequestPolicy,
  options: ServerRequestCapabilitiesOptions = {},
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (policy.sampling) {
    out.sampling = policy.sampling.tools ? { tools: {} } : {};
  }
  const e = policy.elicitation;
  if (e?.form || e?.url) {
    out.elicitation = {
      ...(e.form ? { form: {} } : {}),
      ...(e.url ? { url: {} } : {}),
    };
  }
  if (policy.roots) {
    const era = options.era ?? "handshake";
    out.roots = era === "handshake" || era === "legacy" ? { listChanged: true } : {};
  }
  return out;
}
