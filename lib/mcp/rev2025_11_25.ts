/**
 * The handshake-era revisions, 2024-11-05 to 2025-11-25 (named after the newest): which ones
 * this library speaks, how an `initialize` negotiates one, and the rules that differ between
 * them. Pure functions, used by the server's sessions, the client and the transports. The
 * stateless revision is `rev2026_07_28.ts`; the shapes both eras share are in `protocol.ts`.
 *
 * @module
 */

/** The handshake-era revisions, newest first. */
export const HANDSHAKE_PROTOCOL_VERSIONS: readonly string[] = [
  "2025-11-25",
  "2025-06-18",
  "2025-03-26",
  "2024-11-05",
];

/** The newest handshake-era revision: what an unknown requested revision is offered instead. */
export const LATEST_HANDSHAKE_PROTOCOL_VERSION = "2025-11-25";

/**
 * The revision an `initialize` negotiates: the requested one when supported, else the newest
 * supported one (lenient: an unknown revision never fails the handshake).
 *
 * @param requested The client's `protocolVersion`.
 * @returns The revision to answer with.
 *
 * @example
 * ```ts
 * import { negotiateProtocolVersion } from "@tool-estate/core";
 * import assert from "node:assert/strict";
 * assert.equal(negotiateProtocolVersion("2025-03-26"), "2025-03-26");
 * assert.equal(negotiateProtocolVersion("2099-01-01"), "2025-11-25");
 * ```
 */
export function negotiateProtocolVersion(requested: string): string {
  return HANDSHAKE_PROTOCOL_VERSIONS.includes(requested)
    ? requested
    : LATEST_HANDSHAKE_PROTOCOL_VERSION;
}

/**
 * Whether a revision reports schema-invalid tool arguments as an `isError` tool result (SEP-1303,
 * from 2025-11-25) rather than a `-32602` protocol error.
 *
 * @param version A negotiated revision.
 * @returns True from 2025-11-25 on.
 */
export function invalidArgumentsAsToolError(version: string): boolean {
  return version >= "2025-11-25";
}

/** @deprecated Use {@linkcode HANDSHAKE_PROTOCOL_VERSIONS}. */
export const LEGACY_PROTOCOL_VERSIONS: readonly string[] = HANDSHAKE_PROTOCOL_VERSIONS;

/** @deprecated Use {@linkcode LATEST_HANDSHAKE_PROTOCOL_VERSION}. */
export const LATEST_LEGACY_PROTOCOL_VERSION: typeof LATEST_HANDSHAKE_PROTOCOL_VERSION =
  LATEST_HANDSHAKE_PROTOCOL_VERSION;
