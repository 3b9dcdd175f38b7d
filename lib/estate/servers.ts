/**
 * The server directory: the MCP servers the estate records ({@linkcode ServerRecord}) and which
 * one serves each tool name — exactly one, or none for a tool served in-process. Registering a
 * record that lists a name another server lists is refused, and so is replacing a record with a
 * different one unless the caller says it is an update. The registry holds one directory and
 * answers from it; the estate on disk decides with one holding the records on disk. Pure.
 *
 * @module
 */
import { canonicalJson } from "../schema/json_equal.ts";
import { frozenJsonCopy } from "../schema/json_value.ts";
import { parseServerRecord, type ServerRecord } from "./server_record.ts";

/** Why a server registration was refused. */
export type ServerRefusal = "tool-served-elsewhere" | "changed-without-update";

/** A tool name the record lists that another server already serves. */
export interface ServedElsewhere {
  /** The tool name. */
  tool: string;
  /** The id of the server whose record lists it. */
  server: string;
}

/** A server registration the directory refused; `message` says what and how to fix it. */
export class ServerRegistrationError extends Error {
  /** Which rule refused it. */
  readonly refusal: ServerRefusal;
  /** The id of the record refused. */
  readonly server: string;
  /** For `tool-served-elsewhere`: every name the record lists that another server serves. */
  readonly conflicts: ServedElsewhere[];
  /** For `changed-without-update`: the top-level fields that differ from the registered record. */
  readonly changed: string[];

  /**
   * Makes the error.
   *
   * @param refusal Which rule refused it.
   * @param message What and how to fix it.
   * @param details The record's id, and the conflicts or changed fields behind the refusal.
   */
  constructor(
    refusal: ServerRefusal,
    message: string,
    details: {
      server: string;
      conflicts?: ServedElsewhere[];
      changed?: string[];
    },
  ) {
    super(message);
    this.name = "ServerRegistrationError";
    this.refusal = refusal;
    this.server = details.server;
    this.conflicts = details.conflicts ?? [];
    this.changed = details.changed ?? [];
  }
}

/** Options for registering a server. */
export interface RegisterServerOptions {
  /**
   * Replace the record registered under the same id, if it differs (without it, a different
   * record under a registered id is refused). Default false.
   */
  update?: boolean;
}

/** What registering a server did. */
export interface RegisterServerResult {
  /**
   * `registered` (a new id), `updated` (a different record replaced the registered one), or
   * `unchanged` (the same record was registered already: nothing changed).
   */
  status: "registered" | "updated" | "unchanged";
  /** The record as the directory keeps it: checked, deep-copied and frozen. */
  record: ServerRecord;
}

/** Where the servers are looked up: a {@linkcode ToolRegistry} is one. */
export interface ServerLookup {
  /**
   * Every server, by id.
   *
   * @returns The records, sorted by id.
   */
  servers(): ServerRecord[];
  /**
   * A server's record.
   *
   * @param id The server's id.
   * @returns The record, or undefined when no server has that id.
   */
  server(id: string): ServerRecord | undefined;
  /**
   * The server that serves a tool name: the one whose record lists it.
   *
   * @param tool The tool name.
   * @returns The record, or undefined for a tool served in-process.
   */
  serverFor(tool: string): ServerRecord | undefined;
}

const FIELDS: readonly (keyof ServerRecord)[] = [
  "id",
  "owner",
  "description",
  "upstream",
  "tools",
  "upstreamNames",
  "leftOut",
];

/** The top-level fields in which two records differ. */
function changedFields(a: ServerRecord, b: ServerRecord): string[] {
  return FIELDS.filter((f) => canonicalJson(a[f] ?? null) !== canonicalJson(b[f] ?? null));
}

/**
 * Whether two server records have the same content (key order aside).
 *
 * @param a A record.
 * @param b Another.
 * @returns True when they are the same record.
 */
export function sameServerRecord(a: ServerRecord, b: ServerRecord): boolean {
  return changedFields(a, b).length === 0;
}

/**
 * The servers of an estate, by id and by the tool names they serve. A {@linkcode ToolRegistry}
 * holds one (see `ToolRegistry.registerServer`).
 */
export class ServerDirectory implements ServerLookup {
  readonly #byId = new Map<string, ServerRecord>();
  /** Tool name → the id of the server whose record lists it. */
  readonly #byTool = new Map<string, string>();

  /**
   * Registers a record, or refuses it.
   *
   * @param candidate The record (checked with `parseServerRecord`).
   * @param options `update: true` to replace a different record registered under its id.
   * @returns What happened, with the record as kept.
   * @throws {ServerRecordError} When the candidate is not a valid record.
   * @throws {ServerRegistrationError} When it lists a tool another server serves, or differs from
   *   the record registered under its id and is not an update.
   */
  register(
    candidate: ServerRecord | unknown,
    options: RegisterServerOptions = {},
  ): RegisterServerResult {
    const record = frozenJsonCopy(
      parseServerRecord(candidate, subjectOf(candidate)),
    );
    const existing = this.#byId.get(record.id);
    if (existing) {
      const changed = changedFields(existing, record);
      if (changed.length === 0) {
        return { status: "unchanged", record: existing };
      }
      if (!options.update) {
        throw new ServerRegistrationError(
          "changed-without-update",
          `Cannot register server ${record.id}: a different record is registered under ${record.id} (it differs in ${
            changed.join(", ")
          }); register it as an update to replace it`,
          { server: record.id, changed },
        );
      }
    }
    const conflicts: ServedElsewhere[] = [];
    for (const tool of record.tools) {
      const server = this.#byTool.get(tool);
      if (server !== undefined && server !== record.id) {
        conflicts.push({ tool, server });
      }
    }
    if (conflicts.length) {
      const listed = conflicts.map((c) => `${c.tool}, which server ${c.server} serves`).join("; ");
      throw new ServerRegistrationError(
        "tool-served-elsewhere",
        `Cannot register server ${record.id}: it lists ${listed}; exactly one server serves a tool name (remove ${
          conflicts.length === 1 ? "it" : "them"
        } from one of the records)`,
        { server: record.id, conflicts },
      );
    }
    if (existing) {
      for (const tool of existing.tools) {
        this.#byTool.delete(tool);
      }
    }
    for (const tool of record.tools) this.#byTool.set(tool, record.id);
    this.#byId.set(record.id, record);
    return { status: existing ? "updated" : "registered", record };
  }

  /**
   * Every server, by id.
   *
   * @returns The records (frozen), sorted by id.
   */
  servers(): ServerRecord[] {
    return [...this.#byId.values()].sort((a, b) => a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
  }

  /**
   * A server's record.
   *
   * @param id The server's id.
   * @returns The record (frozen), or undefined when no server has that id.
   */
  server(id: string): ServerRecord | undefined {
    return this.#byId.get(id);
  }

  /**
   * The server that serves a tool name: the one whose record lists it.
   *
   * @param tool The tool name.
   * @returns The record (frozen), or undefined for a tool served in-process.
   */
  serverFor(tool: string): ServerRecord | undefined {
    const id = this.#byTool.get(tool);
    return id === undefined ? undefined : this.#byId.get(id);
  }
}

/** What to call a candidate record before it is parsed: `server crm-mcp`, or `server record`. */
function subjectOf(candidate: unknown): string {
  const id = (candidate as { id?: unknown } | null)?.id;
  return typeof id === "string" ? id : "server record";
}
