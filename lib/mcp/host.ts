/**
 * The host side: one client per server, their tools aggregated into one list for the model, with
 * colliding names namespaced stably by server id.
 *
 * @module
 */
import { ERROR_CODES } from "../jsonrpc/errors.ts";
import type { CallOutcome, McpClient, RequestOptions } from "./client.ts";
import type { ListedTool } from "./protocol.ts";

/** Options for {@linkcode McpHost.exposedName}. */
export interface ExposedNameOptions {
  /** Whether another server lists the same name (then the name is namespaced by server id). */
  collides: boolean;
}

/** A tool as the host offers it to the model: the exposed name, and where it really lives. */
export interface HostTool {
  /** The name the model sees (namespaced when two servers share a name). */
  name: string;
  /** The server id. */
  server: string;
  /** The tool as that server lists it. */
  tool: ListedTool;
}

/**
 * Aggregates several clients. Where two servers list the same tool name, each is exposed as
 * `<serverId>__<name>`; unique names are kept as they are. The choice depends only on the set of
 * names, so it is stable across calls and restarts — it ends up in prompts and audit records.
 *
 * @example
 * ```ts
 * import { McpHost } from "@tool-estate/core";
 * import assert from "node:assert/strict";
 * assert.equal(McpHost.exposedName("crm", "search", { collides: true }), "crm__search");
 * assert.equal(McpHost.exposedName("crm", "crm.customer.get", { collides: false }), "crm.customer.get");
 * ```
 */
export class McpHost {
  readonly #clients = new Map<string, McpClient>();

  /**
   * The name a tool is exposed under.
   *
   * @param server The server id.
   * @param name The tool's name on that server.
   * @param options `collides`: whether another server lists the same name.
   * @returns The exposed name.
   */
  static exposedName(server: string, name: string, options: ExposedNameOptions): string;
  /**
   * The name a tool is exposed under, the collision given on its own.
   *
   * @deprecated Give it as an option: `McpHost.exposedName(server, name, { collides })`.
   *
   * @param server The server id.
   * @param name The tool's name on that server.
   * @param collides Whether another server lists the same name.
   * @returns The exposed name.
   */
  static exposedName(server: string, name: string, collides: boolean): string;
  static exposedName(server: string, name: string, options: ExposedNameOptions | boolean): string {
    const collides = typeof options === "boolean" ? options : options.collides;
    return collides ? `${server}__${name}` : name;
  }

  /**
   * Adds a connected client under a server id.
   *
   * @param server The id (letters, digits, `_`, `-`, `.`).
   * @param client The client.
   * @throws {TypeError} When the id is taken or not a valid name part.
   */
  add(server: string, client: McpClient): void {
    if (!/^[A-Za-z0-9_.-]+$/.test(server)) {
      throw new TypeError(`server id ${JSON.stringify(server)} must be [A-Za-z0-9_.-]+`);
    }
    if (this.#clients.has(server)) throw new TypeError(`server id ${server} is already in use`);
    this.#clients.set(server, client);
  }

  /**
   * Every tool of every server, namespaced where names collide, sorted by exposed name.
   *
   * @returns The tools.
   */
  async tools(): Promise<HostTool[]> {
    const ids = [...this.#clients.keys()].sort();
    const lists = await Promise.all(ids.map((id) => this.#clients.get(id)!.listTools()));
    const count = new Map<string, number>();
    for (const list of lists) for (const t of list) count.set(t.name, (count.get(t.name) ?? 0) + 1);
    const out: HostTool[] = [];
    ids.forEach((server, i) => {
      for (const tool of lists[i]) {
        out.push({
          name: McpHost.exposedName(server, tool.name, { collides: count.get(tool.name)! > 1 }),
          server,
          tool,
        });
      }
    });
    return out.sort((a, b) => a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
  }

  /**
   * Calls a tool by its exposed name.
   *
   * @param name The exposed name.
   * @param args The arguments.
   * @param options Request options and a version pin.
   * @returns The outcome; an unknown exposed name is a protocol error like an unknown tool.
   */
  async callTool(
    name: string,
    args: Record<string, unknown> = {},
    options: RequestOptions & { version?: string } = {},
  ): Promise<CallOutcome> {
    const tool = (await this.tools()).find((t) => t.name === name);
    if (!tool) {
      return {
        kind: "protocol-error",
        code: ERROR_CODES.INVALID_PARAMS,
        message: `Unknown tool: ${name}`,
      };
    }
    return this.#clients.get(tool.server)!.callTool(tool.tool.name, args, options);
  }
}
