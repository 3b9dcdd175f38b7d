/**
 * What the client needs to know about the stateless 2026-07-28 revision: its version string, the
 * reserved `_meta` keys of the per-request envelope, its error codes, and how a `server/discover`
 * answer (or error) decides the era.
 *
 * @module
 */
import { MCP_ERROR_CODES } from "../jsonrpc/errors.ts";
import { MODERN_META, MODERN_PROTOCOL_VERSIONS } from "./modern.ts";

/** The stateless revisions this client speaks, newest first. */
export const MODERN_VERSIONS: readonly string[] = MODERN_PROTOCOL_VERSIONS;

/** The reserved `_meta` keys of the 2026-07-28 envelope. */
export const META: typeof MODERN_META = MODERN_META;

/** What a `server/discover` attempt tells the client. */
export type DiscoverVerdict =
  /** The server answered: it is modern and speaks the version asked for. */
  | { kind: "modern"; version: string }
  /** The server is modern but not at this version: retry with `version`. */
  | { kind: "retry"; version: string }
  /** The server is modern but shares no version with this client. */
  | { kind: "no-common-version"; supported: string[] }
  /** Anything else: the server is (treated as) a handshake-era one. */
  | { kind: "legacy" };

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/**
 * Decides the era from a `server/discover` error. Only a recognized modern error makes the server
 * modern; any other error (whatever its code) means a handshake-era server.
 *
 * @param code The JSON-RPC error code.
 * @param data The error's data.
 * @param options The version the request carried; the handshake-era versions this client speaks.
 * @returns The verdict.
 */
export function verdictFromError(
  code: number,
  data: unknown,
  options: { asked: string; legacy: readonly string[] },
): DiscoverVerdict {
  const { asked, legacy } = options;
  if (code !== MCP_ERROR_CODES.UNSUPPORTED_PROTOCOL_VERSION || !isRecord(data)) {
    return { kind: "legacy" };
  }
  const supported = Array.isArray(data.supported)
    ? data.supported.filter((v): v is string => typeof v === "string")
    : [];
  const common = MODERN_VERSIONS.find((v) => v !== asked && supported.includes(v));
  if (common !== undefined) return { kind: "retry", version: common };
  // A server naming a handshake-era version this client speaks serves `initialize`: fall back.
  // Otherwise there is nothing in common.
  return supported.some((v) => legacy.includes(v))
    ? { kind: "legacy" }
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
  if (/^[\x21-\x7E](?:[\x20-\x7E]*[\x21-\x7E])?$/.test(value) && !value.startsWith("=?")) {
    return value;
  }
  const bytes = new TextEncoder().encode(value);
  let binary = "";
  for (const b of bytes) binary += String.fromCharCode(b);
  return `=?base64?${btoa(binary)}?=`;
}
