/**
 * The client's era negotiation: what it needs to know about the stateless 2026-07-28 revision
 * (its version string, the reserved `_meta` keys of the per-request envelope, its error codes),
 * how a `server/discover` answer (or error) decides the era, and {@linkcode negotiateEra}, which
 * runs `server/discover` and falls back to the `initialize` handshake.
 *
 * @module
 */
import { JsonRpcError, MCP_ERROR_CODES } from "../jsonrpc/errors.ts";
import { isObject } from "../_object.ts";
import { checkResultType, McpClientError } from "./client_errors.ts";
import { STATELESS_META, STATELESS_PROTOCOL_VERSIONS } from "./rev2026_07_28.ts";
import type { ProtocolEra } from "./methods.ts";
import {
  HANDSHAKE_PROTOCOL_VERSIONS,
  type Implementation,
  LATEST_HANDSHAKE_PROTOCOL_VERSION,
} from "./protocol.ts";

/**
 * The client's old words for the eras: `legacy` for `handshake`, `modern` for `stateless`.
 *
 * @deprecated Use {@linkcode ProtocolEra}. `McpClientOptions.era` still accepts these words.
 */
export type McpClientEra = "legacy" | "modern";

/**
 * The era a client is asked to speak, as its options may say it: `auto`, an era, or one of the
 * deprecated words (`legacy`, `modern`).
 */
export type McpClientEraOption = "auto" | ProtocolEra | McpClientEra;

/**
 * The era option in the library's words: `legacy` is `handshake`, `modern` is `stateless`.
 *
 * @param era The option as given (default `auto`).
 * @returns `auto` or an era.
 */
export function eraOption(era: McpClientEraOption | undefined): "auto" | ProtocolEra {
  if (era === "legacy") return "handshake";
  if (era === "modern") return "stateless";
  return era ?? "auto";
}

/** The server's answer to `initialize`. */
export interface InitializeResult {
  /** The negotiated revision. */
  protocolVersion: string;
  /** What the server offers. */
  capabilities: Record<string, unknown>;
  /** Who the server says it is. */
  serverInfo: Implementation;
  /** Instructions for the model. */
  instructions?: string;
}

/** The reserved `_meta` keys of the 2026-07-28 envelope. */
export const META: typeof STATELESS_META = STATELESS_META;

/** What a `server/discover` attempt tells the client. */
export type DiscoverVerdict =
  /** The server answered: it is stateless and speaks the version asked for. */
  | { kind: "stateless"; version: string }
  /** The server is stateless but not at this version: retry with `version`. */
  | { kind: "retry"; version: string }
  /** The server is stateless but shares no version with this client. */
  | { kind: "no-common-version"; supported: string[] }
  /** Anything else: the server is (treated as) a handshake-era one. */
  | { kind: "handshake" };

/**
 * Decides the era from a `server/discover` error. Only a recognized 2026-07-28 error makes the
 * server stateless; any other error (whatever its code) means a handshake-era server.
 *
 * @param code The JSON-RPC error code.
 * @param data The error's data.
 * @param options The version the request carried; the handshake-era versions this client speaks.
 * @returns The verdict.
 */
export function verdictFromError(
  code: number,
  data: unknown,
  options: { asked: string; handshake: readonly string[] },
): DiscoverVerdict {
  const { asked, handshake } = options;
  if (
    code !== MCP_ERROR_CODES.UNSUPPORTED_PROTOCOL_VERSION || !isObject(data)
  ) {
    return { kind: "handshake" };
  }
  const supported = Array.isArray(data.supported)
    ? data.supported.filter((v): v is string => typeof v === "string")
    : [];
  const common = STATELESS_PROTOCOL_VERSIONS.find((v) => v !== asked && supported.includes(v));
  if (common !== undefined) return { kind: "retry", version: common };
  // A server naming a handshake-era version this client speaks serves `initialize`: fall back.
  // Otherwise there is nothing in common.
  return supported.some((v) => handshake.includes(v))
    ? { kind: "handshake" }
    : { kind: "no-common-version", supported };
}

/**
 * Encodes a header value for `Mcp-Name`: as is when it is visible ASCII without edge spaces,
 * otherwise as the base64 sentinel `=?base64?…?=`.
 *
 * @param value The value.
 * @returns The header value.
 */
export function headerValue(value: string): string {
  if (
    /^[\x21-\x7E](?:[\x20-\x7E]*[\x21-\x7E])?$/.test(value) &&
    !value.startsWith("=?")
  ) {
    return value;
  }
  const bytes = new TextEncoder().encode(value);
  let binary = "";
  for (const b of bytes) binary += String.fromCharCode(b);
  return `=?base64?${btoa(binary)}?=`;
}

/** What the client says about itself: the same in `initialize` and in every 2026-07-28 request. */
export interface ClientSelf {
  /** Its `clientInfo`. */
  clientInfo: Implementation;
  /** Its capabilities. */
  capabilities: Record<string, unknown>;
}

/**
 * The 2026-07-28 envelope every request carries.
 *
 * @param version The revision.
 * @param self What the client says about itself.
 * @returns The `_meta` members.
 */
export function envelope(
  version: string,
  self: ClientSelf,
): Record<string, unknown> {
  return {
    [META.protocolVersion]: version,
    [META.clientCapabilities]: self.capabilities,
    [META.clientInfo]: self.clientInfo,
  };
}

/** What the negotiation asks of its client. */
export interface NegotiationHost {
  /** Sends a request (a JSON-RPC error answer rejects with {@linkcode JsonRpcError}). */
  request(
    method: string,
    params: Record<string, unknown>,
    options: { timeoutMs?: number; meta?: Record<string, unknown> },
  ): Promise<unknown>;
  /** Sends a notification. */
  notify(method: string): Promise<void>;
  /** Whether the connection is closed (then nothing falls back). */
  closed(): boolean;
  /** Closes the connection. */
  close(): Promise<void>;
}

/** How to negotiate (from the client's options). */
export interface NegotiationOptions extends ClientSelf {
  /** Which era to speak. */
  era: "auto" | ProtocolEra;
  /** The revision asked for, if any. */
  protocolVersion?: string;
  /** How long `server/discover` may take before the server counts as handshake-era. */
  discoverTimeoutMs: number;
  /** The capabilities `initialize` declares, when they differ from the envelope's. */
  handshakeCapabilities?: Record<string, unknown>;
}

/**
 * Negotiates the era: `server/discover` first (unless `era` is `"handshake"`); a discover result
 * means stateless; an unsupported-version error naming a stateless version this client speaks
 * means stateless at that version; any other error, or no answer in time, means a handshake-era
 * server, which gets `initialize` (unless `era` is `"stateless"`).
 *
 * @param host How to send.
 * @param options The era, the revision, what the client says about itself, the discover timeout.
 * @param onEra Called with the era and the server's answer as soon as they are known — before
 *   `notifications/initialized` goes out in the handshake era.
 * @returns The server's answer.
 * @throws {JsonRpcError} When the server refuses (a stateless server that needs a capability
 *   this client did not declare, or a refused `initialize`).
 * @throws {McpClientError} Of kind `unsupported-revision` when the server speaks no revision
 *   this client does (or, with `era: "stateless"`, is not stateless).
 */
export async function negotiateEra(
  host: NegotiationHost,
  options: NegotiationOptions,
  onEra: (era: ProtocolEra, server: InitializeResult) => void,
): Promise<InitializeResult> {
  if (options.era !== "handshake") {
    const stateless = await discover(host, options, options.era === "stateless");
    if (stateless) {
      onEra("stateless", stateless);
      return stateless;
    }
  }
  const result = await host.request("initialize", {
    protocolVersion: options.protocolVersion ?? LATEST_HANDSHAKE_PROTOCOL_VERSION,
    capabilities: options.handshakeCapabilities ?? options.capabilities,
    clientInfo: options.clientInfo,
  }, {}) as InitializeResult;
  if (!HANDSHAKE_PROTOCOL_VERSIONS.includes(result.protocolVersion)) {
    await host.close();
    throw new McpClientError(
      "unsupported-revision",
      `the server offered protocol ${result.protocolVersion}, which this client does not speak`,
    );
  }
  onEra("handshake", result);
  await host.notify("notifications/initialized");
  return result;
}

/**
 * Whether a failed request was refused for its credentials (an HTTP transport's error of status
 * 401 or 403: authorization failed, or none was possible). That says nothing about the era, and
 * `initialize` would be refused (or authorized) the same way: no fallback.
 */
function refusedAuthorization(e: unknown): boolean {
  if (!(e instanceof Error) || !("status" in e)) return false;
  return e.status === 401 || e.status === 403;
}

/** Tries the stateless era; undefined means "fall back to the handshake". */
async function discover(
  host: NegotiationHost,
  options: NegotiationOptions,
  required: boolean,
): Promise<InitializeResult | undefined> {
  const asked = options.protocolVersion;
  const versions = STATELESS_PROTOCOL_VERSIONS;
  let version = asked !== undefined && versions.includes(asked) ? asked : versions[0];
  for (let attempt = 0; attempt < versions.length + 1; attempt++) {
    let result: unknown;
    try {
      result = await host.request("server/discover", {}, {
        timeoutMs: options.discoverTimeoutMs,
        meta: envelope(version, options),
      });
    } catch (e) {
      if (host.closed() || refusedAuthorization(e)) throw e;
      const verdict = e instanceof JsonRpcError
        ? verdictFromError(e.code, e.data, {
          asked: version,
          handshake: HANDSHAKE_PROTOCOL_VERSIONS,
        })
        : { kind: "handshake" as const };
      if (verdict.kind === "retry") {
        version = verdict.version;
        continue;
      }
      if (
        e instanceof JsonRpcError &&
        e.code === MCP_ERROR_CODES.MISSING_REQUIRED_CLIENT_CAPABILITY
      ) throw e; // a stateless server that needs more than this client declared
      if (required || verdict.kind === "no-common-version") {
        throw new McpClientError(
          "unsupported-revision",
          `server/discover: the server is not a 2026-07-28 server this client can speak (${
            e instanceof Error ? e.message : String(e)
          })`,
          { cause: e },
        );
      }
      return undefined;
    }
    // Only a DiscoverResult makes the server stateless: one that names the versions it supports. A
    // handshake-era server answering every method with `{}` is not one.
    const supported = isObject(result) && Array.isArray(result.supportedVersions)
      ? result.supportedVersions.filter((v): v is string => typeof v === "string")
      : undefined;
    if (supported === undefined) {
      if (required) {
        throw new McpClientError(
          "unsupported-revision",
          "server/discover: the answer is not a DiscoverResult (no supportedVersions): not a 2026-07-28 server",
        );
      }
      return undefined;
    }
    if (!supported.includes(version)) {
      const common = versions.find((v) => supported.includes(v));
      if (common !== undefined && common !== version) {
        version = common;
        continue;
      }
      if (
        required || !supported.some((v) => HANDSHAKE_PROTOCOL_VERSIONS.includes(v))
      ) {
        throw new McpClientError(
          "unsupported-revision",
          `server/discover: the server supports ${
            supported.join(", ") || "no version"
          }, none of which this client speaks`,
        );
      }
      return undefined;
    }
    return discovered(version, result as Record<string, unknown>);
  }
  throw new McpClientError(
    "unsupported-revision",
    "server/discover: the server kept refusing every version this client speaks",
  );
}

/** A discover result in the shape of an `initialize` answer. */
function discovered(
  version: string,
  r: Record<string, unknown>,
): InitializeResult {
  checkResultType("server/discover", r);
  const meta = isObject(r._meta) ? r._meta : {};
  const rawInfo = isObject(meta[META.serverInfo]) ? meta[META.serverInfo] : r.serverInfo;
  const info: Implementation = isObject(rawInfo) && typeof rawInfo.name === "string"
    ? rawInfo as unknown as Implementation
    : { name: "unknown", version: "" };
  return {
    protocolVersion: version,
    capabilities: isObject(r.capabilities) ? r.capabilities : {},
    serverInfo: info,
    ...(typeof r.instructions === "string" ? { instructions: r.instructions } : {}),
  };
}
