/**
 * The MCP shapes both eras share: `serverInfo`/`clientInfo`, content blocks, tool results,
 * resources, prompts, listed tools. The revisions' own rules are in `rev2025_11_25.ts` (the
 * handshake era, re-exported here) and `rev2026_07_28.ts` (the stateless revision).
 *
 * @module
 */
import type { JsonSchema } from "../schema/types.ts";
import type { ToolAnnotations } from "../estate/spec.ts";

export {
  HANDSHAKE_PROTOCOL_VERSIONS,
  invalidArgumentsAsToolError,
  LATEST_HANDSHAKE_PROTOCOL_VERSION,
  LATEST_LEGACY_PROTOCOL_VERSION,
  LEGACY_PROTOCOL_VERSIONS,
  negotiateProtocolVersion,
} from "./rev2025_11_25.ts";

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
  | {
    type: "resource_link";
    uri: string;
    name: string;
    mimeType?: string;
    description?: string;
  }
  | { type: "resource"; resource: ResourceContents };

/** A `tools/call` result. */
export interface CallToolResult {
  /** What the model reads. */
  content: ContentBlock[];
  /** Structured output, conforming to the tool's `outputSchema` when it has one. */
  structuredContent?: unknown;
  /** True when the tool ran (or was asked to run) and failed: an observation for the model. */
  isError?: boolean;
  /** Metadata (the estate's invalid-arguments issues, for a tool with an `outputSchema`). */
  _meta?: Record<string, unknown>;
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
  annotations?: Partial<ToolAnnotations> & {
    title?: string;
    openWorldHint?: boolean;
  };
  /**
   * 2025-11-25: whether the tool runs as a task (`optional`, `required`) or not (`forbidden`, or
   * absent). 2026-07-28 lists nothing: the server decides per call.
   */
  execution?: { taskSupport?: "forbidden" | "optional" | "required" };
  /** Metadata, e.g. our version key. */
  _meta?: Record<string, unknown>;
}
