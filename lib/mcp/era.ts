/**
 * Which era an inbound message belongs to — the one decision every transport that serves both
 * eras makes, made here: the handshake era (revisions 2024-11-05 to 2025-11-25, served in the
 * connection's session after `initialize`, see `McpServer.handle`) or the stateless revision
 * 2026-07-28 (served per request, no session, see `McpServer.handleStateless`).
 *
 * @module
 */
import { isObject } from "../_object.ts";
import type { JsonRpcId } from "../jsonrpc/types.ts";
import type { ProtocolEra } from "./methods.ts";
import { STATELESS_META, STATELESS_PROTOCOL_VERSIONS } from "./rev2026_07_28.ts";

/** @deprecated Use {@linkcode ProtocolEra}: an inbound message's era is one of the two eras. */
export type MessageEra = ProtocolEra;

/** Options for {@linkcode classifyEra}: what the transport knows beside the message. */
export interface ClassifyEraOptions {
  /**
   * The protocol version the transport carried beside the message (HTTP's
   * `MCP-Protocol-Version` header), when it has one: a stateless revision named there makes the
   * message stateless, whatever its body says (a bad envelope is then the stateless path's
   * `-32602`).
   */
  protocolVersionHeader?: string;
  /**
   * Whether the transport is serving a request with this id statelessly: a
   * `notifications/cancelled` naming one belongs to it, though notifications carry no envelope.
   * Default: none is.
   */
  isStatelessRequest?: (id: JsonRpcId) => boolean;
}

/**
 * Decides an inbound message's era. A message is stateless when its `params._meta` carries
 * `io.modelcontextprotocol/protocolVersion` or `io.modelcontextprotocol/clientCapabilities`
 * (whatever their values: an incomplete or bad envelope is the stateless path's `-32602`, not a
 * reason to serve it in a session), when the transport's version header names a stateless
 * revision, or when it cancels a request being served statelessly. Anything else — `initialize`,
 * a message without the envelope, a response, a value that is not JSON-RPC at all — belongs to
 * the handshake era, whose session answers it (or its error).
 *
 * @param message A parsed JSON value, as received.
 * @param options What the transport knows beside the message.
 * @returns `"stateless"` or `"handshake"`.
 *
 * @example
 * ```ts
 * import { classifyEra } from "@tool-estate/core";
 * import assert from "node:assert/strict";
 *
 * const _meta = { "io.modelcontextprotocol/protocolVersion": "2026-07-28" };
 * assert.equal(classifyEra({ jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta } }), "stateless");
 * assert.equal(classifyEra({ jsonrpc: "2.0", id: 1, method: "tools/list" }), "handshake");
 * // Over HTTP, the MCP-Protocol-Version header counts too.
 * assert.equal(
 *   classifyEra({ jsonrpc: "2.0", id: 1, method: "tools/list" }, { protocolVersionHeader: "2026-07-28" }),
 *   "stateless",
 * );
 * ```
 */
export function classifyEra(
  message: unknown,
  options: ClassifyEraOptions = {},
): ProtocolEra {
  if (carriesEnvelope(message)) return "stateless";
  const header = options.protocolVersionHeader?.trim();
  if (header !== undefined && STATELESS_PROTOCOL_VERSIONS.includes(header)) {
    return "stateless";
  }
  if (options.isStatelessRequest) {
    const cancelled = cancelledRequestId(message);
    if (cancelled !== undefined && options.isStatelessRequest(cancelled)) {
      return "stateless";
    }
  }
  return "handshake";
}

/**
 * Whether a message carries the 2026-07-28 `_meta` envelope (one of its two required keys).
 *
 * @param message A parsed JSON-RPC message.
 * @returns True when the message is to be served statelessly.
 * @deprecated Use {@linkcode classifyEra}, which also reads the transport's version header:
 *   `classifyEra(message) === "stateless"` is this.
 *
 * @example
 * ```ts
 * import { isModernMessage } from "@tool-estate/core";
 * import assert from "node:assert/strict";
 * const meta = { "io.modelcontextprotocol/protocolVersion": "2026-07-28" };
 * assert.equal(isModernMessage({ jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: meta } }), true);
 * assert.equal(isModernMessage({ jsonrpc: "2.0", id: 1, method: "tools/list" }), false);
 * ```
 */
export function isModernMessage(message: unknown): boolean {
  return carriesEnvelope(message);
}

function carriesEnvelope(message: unknown): boolean {
  if (!isObject(message) || !isObject(message.params)) return false;
  const meta = message.params._meta;
  return isObject(meta) &&
    (Object.hasOwn(meta, STATELESS_META.protocolVersion) ||
      Object.hasOwn(meta, STATELESS_META.clientCapabilities));
}

/** The request a `notifications/cancelled` names, when the message is one. */
function cancelledRequestId(message: unknown): JsonRpcId | undefined {
  if (!isObject(message) || message.method !== "notifications/cancelled") {
    return undefined;
  }
  if (Object.hasOwn(message, "id") || !isObject(message.params)) {
    return undefined;
  }
  const id = message.params.requestId;
  return typeof id === "string" || typeof id === "number" ? id : undefined;
}
