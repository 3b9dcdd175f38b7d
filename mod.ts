/**
 * `@tool-estate/core`: an MCP tool-estate library.
 *
 * @module
 */

export * from "./lib/jsonrpc/mod.ts";
export * from "./lib/compat/mod.ts";
export * from "./lib/schema/mod.ts";
export * from "./lib/estate/mod.ts";
export * from "./lib/mcp/mod.ts";
export * from "./lib/gateway/mod.ts";
