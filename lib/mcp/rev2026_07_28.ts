/**
 * Revision 2026-07-28, the stateless one: its version strings, the reserved `_meta` keys of the
 * per-request envelope, the envelope's validation, the methods it has, and its HTTP header rules
 * (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`). Pure functions, used by the server, the
 * client and the transports. Which era an inbound message belongs to is `era.ts`'s one decision;
 * the handshake-era revisions are `rev2025_11_25.ts`.
 *
 * @module
 */
import { ERROR_CODES, JsonRpcError, MCP_ERROR_CODES } from "../jsonrpc/errors.ts";
import { isObject } from "../_object.ts";
import type { Implementation } from "./protocol.ts";
import { MCP_METHODS, type McpMethodName, methodsOf } from "./methods.ts";

/** The stateless revisions this library serves, newest first. */
export const STATELESS_PROTOCOL_VERSIONS: readonly string[] = ["2026-07-28"];

/** The reserved `_meta` keys of the 2026-07-28 revision. */
export const STATELESS_META: {
  /** The request's revision (required on every request). */
  readonly protocolVersion: "io.modelcontextprotocol/protocolVersion";
  /** The client's capabilities (required on every request). */
  readonly clientCapabilities: "io.modelcontextprotocol/clientCapabilities";
  /** Who the client says it is (optional, untrusted). */
  readonly clientInfo: "io.modelcontextprotocol/clientInfo";
  /** The least severe log level the client wants for this request (optional). */
  readonly logLevel: "io.modelcontextprotocol/logLevel";
  /** Who the server is, on results. */
  readonly serverInfo: "io.modelcontextprotocol/serverInfo";
  /** The `subscriptions/listen` request id, on its notifications. */
  readonly subscriptionId: "io.modelcontextprotocol/subscriptionId";
} = {
  protocolVersion: "io.modelcontextprotocol/protocolVersion",
  clientCapabilities: "io.modelcontextprotocol/clientCapabilities",
  clientInfo: "io.modelcontextprotocol/clientInfo",
  logLevel: "io.modelcontextprotocol/logLevel",
  serverInfo: "io.modelcontextprotocol/serverInfo",
  subscriptionId: "io.modelcontextprotocol/subscriptionId",
} as const;

/** The requests the stateless revision serves (the table's client-to-server methods of the era). */
export const STATELESS_METHODS: readonly string[] = methodsOf("stateless", { sentBy: "client" });

/** The requests whose `Mcp-Name` header names a param (the table's `named`). */
const NAMED: Readonly<Record<string, "name" | "uri" | "taskId">> = Object.fromEntries(
  STATELESS_METHODS.flatMap((name) => {
    const named = MCP_METHODS[name as McpMethodName].named;
    return named === undefined ? [] : [[name, named]];
  }),
);

/** What a stateless request says about its client. */
export interface StatelessEnvelope {
  /** The revision the request is written in (one of {@linkcode STATELESS_PROTOCOL_VERSIONS}). */
  protocolVersion: string;
  /** The client's declared capabilities. */
  clientCapabilities: Record<string, unknown>;
  /** Who the client says it is, when it says so (self-reported: never a security input). */
  clientInfo?: Implementation;
  /** The log level asked for this request, when one is. */
  logLevel?: string;
}

function metaOf(message: unknown): Record<string, unknown> | undefined {
  if (!isObject(message) || !isObject(message.params)) return undefined;
  return isObject(message.params._meta) ? message.params._meta : undefined;
}

/**
 * Reads and checks a stateless request's envelope.
 *
 * @param params The request's params.
 * @returns The envelope.
 * @throws {JsonRpcError} `-32602` when `protocolVersion` is not a string or `clientCapabilities`
 *   not an object (checked first); `-32022` with `data {supported, requested}` when the revision
 *   is not served.
 *
 * @example
 * ```ts
 * import { readStatelessEnvelope } from "@tool-estate/core";
 * import assert from "node:assert/strict";
 * const params = { _meta: { "io.modelcontextprotocol/protocolVersion": "1999-01-01", "io.modelcontextprotocol/clientCapabilities": {} } };
 * assert.throws(() => readStatelessEnvelope(params), { code: -32022 });
 * ```
 */
export function readStatelessEnvelope(params: unknown): StatelessEnvelope {
  const meta = isObject(params) && isObject(params._meta) ? params._meta : {};
  const version = meta[STATELESS_META.protocolVersion];
  if (typeof version !== "string") {
    throw new JsonRpcError(
      ERROR_CODES.INVALID_PARAMS,
      `Invalid params: _meta["${STATELESS_META.protocolVersion}"] must be a string`,
    );
  }
  const capabilities = meta[STATELESS_META.clientCapabilities];
  if (!isObject(capabilities)) {
    throw new JsonRpcError(
      ERROR_CODES.INVALID_PARAMS,
      `Invalid params: _meta["${STATELESS_META.clientCapabilities}"] must be an object`,
    );
  }
  if (!STATELESS_PROTOCOL_VERSIONS.includes(version)) {
    throw new JsonRpcError(
      MCP_ERROR_CODES.UNSUPPORTED_PROTOCOL_VERSION,
      `Unsupported protocol version ${JSON.stringify(version)}; this server speaks ${
        STATELESS_PROTOCOL_VERSIONS.join(", ")
      }`,
      {
        data: { supported: [...STATELESS_PROTOCOL_VERSIONS], requested: version },
      },
    );
  }
  const envelope: StatelessEnvelope = {
    protocolVersion: version,
    clientCapabilities: capabilities,
  };
  const info = meta[STATELESS_META.clientInfo];
  if (isObject(info)) envelope.clientInfo = info as unknown as Implementation;
  const level = meta[STATELESS_META.logLevel];
  if (typeof level === "string") envelope.logLevel = level;
  return envelope;
}

/**
 * Checks a stateless request before it is served: its envelope, then its method.
 *
 * @param method The request's method.
 * @param params The request's params.
 * @returns The envelope.
 * @throws {JsonRpcError} As {@linkcode readStatelessEnvelope}; `-32601` for a method the stateless
 *   revision does not have (`initialize`, `ping`, `logging/setLevel`, `resources/subscribe`, ...).
 */
export function checkStatelessRequest(
  method: string,
  params: unknown,
): StatelessEnvelope {
  const envelope = readStatelessEnvelope(params);
  if (!STATELESS_METHODS.includes(method)) {
    throw new JsonRpcError(
      ERROR_CODES.METHOD_NOT_FOUND,
      `Method not found: ${method}`,
    );
  }
  return envelope;
}

/**
 * Decodes an HTTP header value that may use the base64 sentinel `=?base64?<base64>?=` (for
 * values that are not plain visible ASCII).
 *
 * @param value The header's value.
 * @returns The decoded value; undefined when the sentinel's payload is not valid base64 UTF-8.
 *
 * @example
 * ```ts
 * import { decodeHeaderValue } from "@tool-estate/core";
 * import assert from "node:assert/strict";
 * assert.equal(decodeHeaderValue("=?base64?ZnguY2Fmw6k=?="), "fx.café");
 * assert.equal(decodeHeaderValue("fx.quote"), "fx.quote");
 * ```
 */
export function decodeHeaderValue(value: string): string | undefined {
  const m = /^=\?base64\?([A-Za-z0-9+/]*={0,2})\?=$/i.exec(value.trim());
  if (!m) return value.trim();
  try {
    const bytes = Uint8Array.from(atob(m[1]), (c) => c.charCodeAt(0));
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

/** The part of a request {@linkcode statelessHeaderProblem} checks the headers against. */
export interface HeaderCheckedRequest {
  /** The request's method. */
  method: string;
  /** Its params (where the envelope, the tool's name or the resource's URI are). */
  params?: unknown;
}

/**
 * Checks the Streamable HTTP headers of a stateless request against its body: `MCP-Protocol-Version`
 * must equal the envelope's revision, `Mcp-Method` the method, and `Mcp-Name` the name or URI of
 * `tools/call`, `resources/read` and `prompts/get`.
 *
 * @param headers The HTTP headers, lower-case names.
 * @param request The request's method and params.
 * @returns A message naming the first mismatch (answer 400 with `-32020`), or undefined.
 */
export function statelessHeaderProblem(
  headers: Record<string, string | undefined>,
  request: HeaderCheckedRequest,
): string | undefined {
  const meta = metaOf(request) ?? {};
  const version = headers["mcp-protocol-version"];
  if (
    version === undefined ||
    version.trim() !== meta[STATELESS_META.protocolVersion]
  ) {
    return `Header mismatch: MCP-Protocol-Version (${
      JSON.stringify(version ?? null)
    }) must equal _meta["${STATELESS_META.protocolVersion}"]`;
  }
  const method = headers["mcp-method"];
  if (method === undefined || method.trim() !== request.method) {
    return `Header mismatch: Mcp-Method (${JSON.stringify(method ?? null)}) must equal the method ${
      JSON.stringify(request.method)
    }`;
  }
  const key = Object.hasOwn(NAMED, request.method) ? NAMED[request.method] : undefined;
  if (key !== undefined) {
    const expected = isObject(request.params) ? request.params[key] : undefined;
    const raw = headers["mcp-name"];
    const name = raw === undefined ? undefined : decodeHeaderValue(raw);
    if (name === undefined || name !== expected) {
      return `Header mismatch: Mcp-Name (${JSON.stringify(raw ?? null)}) must equal params.${key}`;
    }
  }
  return undefined;
}

/** @deprecated Use {@linkcode STATELESS_PROTOCOL_VERSIONS}. */
export const MODERN_PROTOCOL_VERSIONS: readonly string[] = STATELESS_PROTOCOL_VERSIONS;

/** @deprecated Use {@linkcode STATELESS_META}. */
export const MODERN_META: typeof STATELESS_META = STATELESS_META;

/** @deprecated Use {@linkcode STATELESS_METHODS}. */
export const MODERN_METHODS: readonly string[] = STATELESS_METHODS;

/** @deprecated Use {@linkcode StatelessEnvelope}. */
export type ModernEnvelope = StatelessEnvelope;

/** @deprecated Use {@linkcode readStatelessEnvelope}. */
export const readModernEnvelope: typeof readStatelessEnvelope = readStatelessEnvelope;

/** @deprecated Use {@linkcode checkStatelessRequest}. */
export const checkModernRequest: typeof checkStatelessRequest = checkStatelessRequest;

/** @deprecated Use {@linkcode statelessHeaderProblem}. */
export const modernHeaderProblem: typeof statelessHeaderProblem = statelessHeaderProblem;
