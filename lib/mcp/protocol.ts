/**
 * MCP protocol revisions, method names and result shapes this library serves (the
 * handshake-based revisions; the stateless 2026-07-28 revision, served beside them, is in
 * `modern.ts`).
 *
 * @module
 */
import type { JsonSchema } from "../schema/types.ts";
import type { ToolAnnotations } from "../estate/spec.ts";

/** The handshake-era revisions, newest first. */
export const LEGACY_PROTOCOL_VERSIONS: readonly string[] = [
  "2025-11-25",
  "2025-06-18",
  "2025-03-26",
  "2024-11-05",
];

/** The newest handshake-era revision: what an unknown requested revision is offered instead. */
export const LATEST_LEGACY_PROTOCOL_VERSION = "2025-11-25";

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
  return LEGACY_PROTOCOL_VERSIONS.includes(requested) ? requested : LATEST_LEGACY_PROTOCOL_VERSION;
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

/** Who is at each end: `serverInfo` / `clientInfo`. */
export interface Implementation {
  /** The program's name. */
  name: string;
  /** Its version. */
  version: string;
  /** A display name. */
  title?: string;
}

/** One block of tool output. */
export type ContentBlock =
  | { type: "text"; text: string; _meta?: Record<string, unknown> }
  | { type: "image"; data: string; mimeType: string }
  | { type: "audio"; data: string; mimeType: string }
  | { type: "resource_link"; uri: string; name: string; mimeType?: string; description?: string }
  | { type: "resource"; resource: ResourceContents };

/** A `tools/call` result. */
export interface CallToolResult {
  /** What the model reads. */
  content: ContentBlock[];
  /** Structured output, conforming to the tool's `outputSchema` when it has one. */
  structuredContent?: unknown;
  /** True when the tool ran (or was asked to run) and failed: an observation for the model. */
  isError?: boolean;
}

/** A resource the server offers. */
export interface Resource {
  /** Its URI. */
  uri: string;
  /** Its name. */
  name: string;
  /** A display title. */
  title?: string;
  /** What it is. */
  description?: string;
  /** Its media type. */
  mimeType?: string;
}

/** A family of resources, by RFC 6570 URI template. */
export interface ResourceTemplate {
  /** The template, e.g. `bank://policies/{id}`. */
  uriTemplate: string;
  /** Its name. */
  name: string;
  /** A display title. */
  title?: string;
  /** What it yields. */
  description?: string;
  /** The media type of what it yields. */
  mimeType?: string;
}

/** A resource's contents: text or base64 bytes. */
export type ResourceContents =
  | { uri: string; mimeType?: string; text: string }
  | { uri: string; mimeType?: string; blob: string };

/** A prompt the server offers. */
export interface Prompt {
  /** Its name. */
  name: string;
  /** A display title. */
  title?: string;
  /** What it is for. */
  description?: string;
  /** The arguments it takes (all strings). */
  arguments?: { name: string; description?: string; required?: boolean }[];
}

/** One message of a prompt. */
export interface PromptMessage {
  /** Who says it. */
  role: "user" | "assistant";
  /** What is said. */
  content: ContentBlock;
}

/** A tool as listed (the estate's `toMcpTool` builds it). */
export interface ListedTool {
  /** The name. */
  name: string;
  /** A display title. */
  title?: string;
  /** The description the model reads. */
  description?: string;
  /** The arguments' schema. */
  inputSchema: JsonSchema;
  /** The structured result's schema. */
  outputSchema?: JsonSchema;
  /** Hints. */
  annotations?: Partial<ToolAnnotations> & { title?: string; openWorldHint?: boolean };
  /** Metadata, e.g. our version key. */
  _meta?: Record<string, unknown>;
}
