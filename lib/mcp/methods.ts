/**
 * The MCP methods this library knows, each with its facts written once: the protocol eras it
 * exists in, who sends it, the server capability that announces it (or the client capability it
 * needs), the param its `Mcp-Name` header names, and whether a session serves it before the
 * handshake is ready. Every other list of methods — the stateless revision's methods, the
 * `Mcp-Name` params, the session gate, the capabilities each era announces, the handlers each era
 * has — is derived from {@linkcode MCP_METHODS} or checked against it.
 *
 * @module
 */

/**
 * A generation of MCP: `handshake` for the revisions that open a session with `initialize`
 * (2024-11-05 to 2025-11-25), `stateless` for revision 2026-07-28 (no session: every request
 * carries its envelope in `_meta`).
 */
export type ProtocolEra = "handshake" | "stateless";

/** The two eras, handshake first. */
export const PROTOCOL_ERAS: readonly ProtocolEra[] = ["handshake", "stateless"];

/** Who sends a request: the client to the server, or the server to the client. */
export type MethodSender = "client" | "server";

/** A server capability, as the server announces it (`initialize` or `server/discover`). */
export type ServerCapabilityName =
  | "tools"
  | "resources"
  | "prompts"
  | "completions"
  | "logging"
  | "tasks";

/** A client capability a server-to-client request needs. */
export type ClientCapabilityName = "sampling" | "elicitation" | "roots";

/** The facts of one MCP request method. */
export interface MethodFacts {
  /** The eras it exists in. */
  readonly eras: readonly ProtocolEra[];
  /**
   * Who sends it. A server-to-client request reaches a stateless client as an input request of
   * an `input_required` result, not as a JSON-RPC request.
   */
  readonly sentBy: readonly MethodSender[];
  /**
   * For a client-to-server request: the server capability that announces it, and the flag this
   * server sets in that capability for it (`tools.listChanged`: the tool list is told of when it
   * changes; `resources.subscribe`: a resource can be subscribed to).
   */
  readonly capability?: {
    /** The capability. */
    readonly name: ServerCapabilityName;
    /** A flag this server declares `true` in it. */
    readonly flag?: "listChanged" | "subscribe";
  };
  /** For a server-to-client request: the client capability it needs. */
  readonly clientCapability?: ClientCapabilityName;
  /** The param the stateless revision's `Mcp-Name` HTTP header names. */
  readonly named?: "name" | "uri" | "taskId";
  /** Whether a handshake-era session serves it before `notifications/initialized`. */
  readonly beforeReady?: boolean;
}

/** The name of an MCP request method this library knows (a key of {@linkcode MCP_METHODS}). */
export type McpMethodName =
  | "initialize"
  | "ping"
  | "server/discover"
  | "tools/list"
  | "tools/call"
  | "resources/list"
  | "resources/templates/list"
  | "resources/read"
  | "resources/subscribe"
  | "resources/unsubscribe"
  | "prompts/list"
  | "prompts/get"
  | "logging/setLevel"
  | "completion/complete"
  | "subscriptions/listen"
  | "tasks/get"
  | "tasks/update"
  | "tasks/cancel"
  | "tasks/result"
  | "tasks/list"
  | "sampling/createMessage"
  | "elicitation/create"
  | "roots/list";

const BOTH: readonly ProtocolEra[] = PROTOCOL_ERAS;
const HANDSHAKE: readonly ProtocolEra[] = ["handshake"];
const STATELESS: readonly ProtocolEra[] = ["stateless"];
const CLIENT: readonly MethodSender[] = ["client"];
const SERVER: readonly MethodSender[] = ["server"];

/**
 * The MCP request methods this library knows, with their facts: one entry per method (the type
 * makes a missing or an unknown one an error). Notifications are not listed.
 *
 * @example
 * ```ts
 * import { MCP_METHODS } from "@tool-estate/core";
 * import assert from "node:assert/strict";
 *
 * assert.deepEqual(MCP_METHODS["resources/read"].eras, ["handshake", "stateless"]);
 * assert.equal(MCP_METHODS["resources/read"].named, "uri");
 * assert.equal(MCP_METHODS["ping"].beforeReady, true);
 * ```
 */
export const MCP_METHODS: Readonly<Record<McpMethodName, MethodFacts>> = {
  "initialize": { eras: HANDSHAKE, sentBy: CLIENT, beforeReady: true },
  "ping": { eras: HANDSHAKE, sentBy: ["client", "server"], beforeReady: true },
  "server/discover": { eras: STATELESS, sentBy: CLIENT },
  "tools/list": {
    eras: BOTH,
    sentBy: CLIENT,
    capability: { name: "tools", flag: "listChanged" },
  },
  "tools/call": { eras: BOTH, sentBy: CLIENT, capability: { name: "tools" }, named: "name" },
  "resources/list": { eras: BOTH, sentBy: CLIENT, capability: { name: "resources" } },
  "resources/templates/list": { eras: BOTH, sentBy: CLIENT, capability: { name: "resources" } },
  "resources/read": {
    eras: BOTH,
    sentBy: CLIENT,
    capability: { name: "resources" },
    named: "uri",
  },
  "resources/subscribe": {
    eras: HANDSHAKE,
    sentBy: CLIENT,
    capability: { name: "resources", flag: "subscribe" },
  },
  "resources/unsubscribe": {
    eras: HANDSHAKE,
    sentBy: CLIENT,
    capability: { name: "resources", flag: "subscribe" },
  },
  "prompts/list": { eras: BOTH, sentBy: CLIENT, capability: { name: "prompts" } },
  "prompts/get": { eras: BOTH, sentBy: CLIENT, capability: { name: "prompts" }, named: "name" },
  "logging/setLevel": { eras: HANDSHAKE, sentBy: CLIENT, capability: { name: "logging" } },
  "completion/complete": { eras: BOTH, sentBy: CLIENT, capability: { name: "completions" } },
  "subscriptions/listen": { eras: STATELESS, sentBy: CLIENT },
  "tasks/get": { eras: BOTH, sentBy: CLIENT, capability: { name: "tasks" }, named: "taskId" },
  "tasks/update": {
    eras: STATELESS,
    sentBy: CLIENT,
    capability: { name: "tasks" },
    named: "taskId",
  },
  "tasks/cancel": {
    eras: BOTH,
    sentBy: CLIENT,
    capability: { name: "tasks" },
    named: "taskId",
  },
  "tasks/result": { eras: HANDSHAKE, sentBy: CLIENT, capability: { name: "tasks" } },
  "tasks/list": { eras: HANDSHAKE, sentBy: CLIENT, capability: { name: "tasks" } },
  "sampling/createMessage": { eras: BOTH, sentBy: SERVER, clientCapability: "sampling" },
  "elicitation/create": { eras: BOTH, sentBy: SERVER, clientCapability: "elicitation" },
  "roots/list": { eras: BOTH, sentBy: SERVER, clientCapability: "roots" },
};

/** Options for {@linkcode methodsOf}. */
export interface MethodsOfOptions {
  /** Only the methods this side sends. Default: either side. */
  sentBy?: MethodSender;
}

/**
 * The methods of an era, in the table's order.
 *
 * @param era The era.
 * @param options Which sender's methods.
 * @returns The methods' names.
 *
 * @example
 * ```ts
 * import { methodsOf } from "@tool-estate/core";
 * import assert from "node:assert/strict";
 *
 * assert.ok(methodsOf("stateless", { sentBy: "client" }).includes("server/discover"));
 * assert.ok(!methodsOf("stateless").includes("initialize"));
 * ```
 */
export function methodsOf(
  era: ProtocolEra,
  options: MethodsOfOptions = {},
): McpMethodName[] {
  return methodNames().filter((name) => {
    const facts = MCP_METHODS[name];
    return facts.eras.includes(era) &&
      (options.sentBy === undefined || facts.sentBy.includes(options.sentBy));
  });
}

/**
 * Whether a string names a method of the table.
 *
 * @param method A method name.
 * @returns True for a key of {@linkcode MCP_METHODS}.
 */
export function isMcpMethod(method: string): method is McpMethodName {
  return Object.hasOwn(MCP_METHODS, method);
}

/**
 * The server capabilities an era announces (in `initialize` for the handshake era, in
 * `server/discover` for the stateless one): each capability of a client-to-server method of the
 * era, with the flags those methods set. Tasks are announced as each era spells them: 2025-11-25's
 * `tasks` (`list`, `cancel`, and task-augmented `tools/call`), 2026-07-28's extension
 * `io.modelcontextprotocol/tasks` under `extensions`. A fresh object each time.
 *
 * @param era The era.
 * @returns The capabilities.
 *
 * @example
 * ```ts
 * import { serverCapabilitiesOf } from "@tool-estate/core";
 * import assert from "node:assert/strict";
 *
 * assert.deepEqual(serverCapabilitiesOf("stateless"), {
 *   tools: { listChanged: true },
 *   resources: {},
 *   prompts: {},
 *   completions: {},
 *   extensions: { "io.modelcontextprotocol/tasks": {} },
 * });
 * ```
 */
export function serverCapabilitiesOf(
  era: ProtocolEra,
): Record<string, Record<string, unknown>> {
  const out: Record<string, Record<string, unknown>> = {};
  for (const name of methodsOf(era, { sentBy: "client" })) {
    const capability = MCP_METHODS[name].capability;
    if (capability === undefined) continue;
    if (capability.name === "tasks") {
      Object.assign(out, tasksCapability(era));
      continue;
    }
    const declared = out[capability.name] ??= {};
    if (capability.flag !== undefined) declared[capability.flag] = true;
  }
  return out;
}

/**
 * The tasks extension's identifier (2026-07-28, SEP-2663): the key under `extensions` in the
 * client's and the server's capabilities.
 */
export const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";

/** The tasks capability as an era spells it. */
function tasksCapability(era: ProtocolEra): Record<string, Record<string, unknown>> {
  return era === "handshake"
    ? { tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } }
    : { extensions: { [TASKS_EXTENSION]: {} } };
}

function methodNames(): McpMethodName[] {
  return Object.keys(MCP_METHODS) as McpMethodName[];
}
