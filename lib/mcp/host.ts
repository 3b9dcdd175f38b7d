/**
 * The host side: one client per server, their tools aggregated into one list for the model, with
 * colliding names namespaced stably by server id, and the host's policy for what each server may
 * ask of it (sampling, elicitation, roots), with one log of what they asked.
 *
 * @module
 */
import { type DeprecationNotice, deprecationText } from "../estate/deprecation.ts";
import { ERROR_CODES } from "../jsonrpc/errors.ts";
import {
  type CallOutcome,
  McpClient,
  type McpClientOptions,
  type RequestOptions,
} from "./client.ts";
import type { ListedTool } from "./protocol.ts";
import type { Transport } from "./transport.ts";
import type { ServerRequestPolicy } from "./server_requests.ts";
import { ServerRequestLog, type ServerRequestRecord } from "./server_request_log.ts";

/** Options for an {@linkcode McpHost}. */
export interface McpHostOptions {
  /**
   * What each server may ask of the host, by server id. A server not named here is refused
   * everything (the default for a third-party server): no sampling, elicitation or roots is
   * declared to it, and what it asks anyway is refused and logged.
   */
  serverRequests?: Record<string, ServerRequestPolicy>;
  /** Told about every server-initiated request of every server (served, refused or failed). */
  onServerRequest?: (record: ServerRequestRecord) => void;
  /** How many server-request records the host keeps. Default 1000. */
  serverRequestLogCapacity?: number;
  /**
   * Told when a call reaches a deprecated version, once per server and tool version: the
   * server's notice, with the server id. The model is told too, once: the first result from
   * that version gains a text block saying it.
   */
  onDeprecation?: (notice: DeprecationNotice & { server: string }) => void;
}

/** Options for {@linkcode McpHost.connect}: a client's options, less what the host decides. */
export type HostClientOptions = Omit<
  McpClientOptions,
  "serverRequests" | "serverName" | "serverRequestLog" | "onServerRequest"
>;

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
  readonly #options: McpHostOptions;
  readonly #log: ServerRequestLog;
  /** The deprecated versions the model was told of (`server tool@version`). */
  readonly #toldModel = new Set<string>();

  /**
   * Makes a host with no servers yet.
   *
   * @param options The policy per server for what servers may ask, and the log hook.
   */
  constructor(options: McpHostOptions = {}) {
    this.#options = options;
    this.#log = new ServerRequestLog(
      options.serverRequestLogCapacity === undefined
        ? {}
        : { capacity: options.serverRequestLogCapacity },
    );
  }

  /** Every server-initiated request of every server, oldest first (records name the server id). */
  get serverRequestLog(): ServerRequestLog {
    return this.#log;
  }

  /**
   * The policy for one server: the one named in `serverRequests`, or refuse-all.
   *
   * @param server The server id.
   * @returns Its policy.
   */
  policyFor(server: string): ServerRequestPolicy {
    const policies = this.#options.serverRequests ?? {};
    return Object.hasOwn(policies, server) ? policies[server] : {};
  }

  /**
   * The name a tool is exposed under.
   *
   * @param server The server id.
   * @param name The tool's name on that server.
   * @param options `collides`: whether another server lists the same name.
   * @returns The exposed name.
   */
  static exposedName(
    server: string,
    name: string,
    options: ExposedNameOptions,
  ): string;
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
  static exposedName(
    server: string,
    name: string,
    options: ExposedNameOptions | boolean,
  ): string {
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
    this.#checkId(server);
    this.#attach(server, client);
  }

  /**
   * Connects to a server and adds its client under a server id. The client declares and serves
   * only what the host's policy for that id allows (refuse-all when it names none); its
   * server-initiated requests are logged in {@linkcode McpHost.serverRequestLog} under the id, and
   * callbacks see the id as the server's name.
   *
   * A client added with {@linkcode McpHost.add} keeps the policy it was made with (refuse-all by
   * default); its requests are logged here too.
   *
   * @param server The id (letters, digits, `_`, `-`, `.`).
   * @param transport The connection to the server.
   * @param options The client's other options.
   * @returns The connected client.
   * @throws {TypeError} When the id is taken or not a valid name part.
   * @throws {JsonRpcError} When the server refuses the connection (the client is closed).
   * @throws {PeerError} When the connection closes or times out first (the client is closed).
   */
  async connect(
    server: string,
    transport: Transport,
    options: HostClientOptions = {},
  ): Promise<McpClient> {
    this.#checkId(server);
    const client = new McpClient(transport, {
      ...options,
      serverName: server,
      serverRequests: this.policyFor(server),
      serverRequestLog: this.#log,
    });
    try {
      await client.connect();
    } catch (e) {
      await client.close();
      throw e;
    }
    this.#checkId(server);
    this.#attach(server, client);
    return client;
  }

  /**
   * Tells every server allowed to list roots that the host's roots changed (handshake era: each
   * gets `notifications/roots/list_changed`).
   *
   * @returns The ids of the servers told.
   */
  async rootsChanged(): Promise<string[]> {
    const ids = [...this.#clients.keys()].sort();
    const sent = await Promise.all(
      ids.map((id) => this.#clients.get(id)!.rootsChanged()),
    );
    return ids.filter((_, i) => sent[i]);
  }

  #checkId(server: string): void {
    if (!/^[A-Za-z0-9_.-]+$/.test(server)) {
      throw new TypeError(
        `server id ${JSON.stringify(server)} must be [A-Za-z0-9_.-]+`,
      );
    }
    if (this.#clients.has(server)) {
      throw new TypeError(`server id ${server} is already in use`);
    }
  }

  #attach(server: string, client: McpClient): void {
    this.#clients.set(server, client);
    client.onDeprecation((notice) => {
      try {
        this.#options.onDeprecation?.({ ...notice, server });
      } catch {
        // a hook that throws must not change the answer
      }
    });
    const shared = client.serverRequestLog === this.#log;
    client.onServerRequest((record) => {
      if (!shared) {
        this.#log.add(
          record.server === server ? record : { ...record, server },
        );
      }
      try {
        this.#options.onServerRequest?.(
          record.server === server ? record : { ...record, server },
        );
      } catch {
        // a log hook that throws must not change the answer
      }
    });
  }

  /**
   * Every tool of every server, namespaced where names collide, sorted by exposed name.
   *
   * @returns The tools.
   */
  async tools(): Promise<HostTool[]> {
    const ids = [...this.#clients.keys()].sort();
    const lists = await Promise.all(
      ids.map((id) => this.#clients.get(id)!.listTools()),
    );
    const count = new Map<string, number>();
    for (const list of lists) {
      for (const t of list) count.set(t.name, (count.get(t.name) ?? 0) + 1);
    }
    const out: HostTool[] = [];
    ids.forEach((server, i) => {
      for (const tool of lists[i]) {
        out.push({
          name: McpHost.exposedName(server, tool.name, {
            collides: count.get(tool.name)! > 1,
          }),
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
    const outcome = await this.#clients.get(tool.server)!.callTool(
      tool.tool.name,
      args,
      options,
    );
    const notice = "deprecation" in outcome ? outcome.deprecation : undefined;
    const key = notice && `${tool.server} ${notice.tool}@${notice.version}`;
    if (!notice || !key || this.#toldModel.has(key) || !("result" in outcome)) return outcome;
    // Said to the model once, beside the first result from the version.
    this.#toldModel.add(key);
    const said = { type: "text" as const, text: `Note: ${deprecationText(notice)}.` };
    return {
      ...outcome,
      result: { ...outcome.result, content: [...(outcome.result.content ?? []), said] },
    };
  }
}
