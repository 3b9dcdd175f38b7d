/**
 * The record of server-initiated requests: every `sampling/createMessage`, `elicitation/create`
 * and `roots/list` a server sends a client (as a JSON-RPC request in the handshake era, or as an
 * input request of an `input_required` result in 2026-07-28) — served, refused or failed — is one
 * {@linkcode ServerRequestRecord}, kept in a bounded {@linkcode ServerRequestLog}.
 *
 * @module
 */

/**
 * How a server-initiated request ended:
 * - `served`: the host's callback answered it (an elicitation may still have been declined — see
 *   `action`);
 * - `refused`: the host's policy (or the callback, by throwing a `JsonRpcError`) said no;
 * - `failed`: the callback threw, or answered with something that is not a valid answer.
 */
export type ServerRequestOutcome = "served" | "refused" | "failed";

/**
 * How a server-initiated request arrived: a JSON-RPC request (handshake era), or an entry of an
 * `input_required` result's `inputRequests` (2026-07-28).
 */
export type ServerRequestVia = "request" | "input-required";

/** One server-initiated request, as the client handled it. */
export interface ServerRequestRecord {
  /** When it arrived (milliseconds since the epoch, by the client's clock). */
  at: number;
  /** The server, by the name the host gave it (or its self-reported name). */
  server: string;
  /** The method, e.g. `sampling/createMessage`. */
  method: string;
  /** How it arrived. */
  via: ServerRequestVia;
  /** The size of its params, in bytes of UTF-8 JSON. */
  bytes: number;
  /** 1, or more when it arrived while others of this server were being served. */
  depth: number;
  /** How it ended. */
  outcome: ServerRequestOutcome;
  /** Why it was refused or failed. */
  reason?: string;
  /** The JSON-RPC error code it was answered with (or, for an input request, would have been). */
  code?: number;
  /** What the policy changed before the callback saw it (e.g. `maxTokens 8000 → 1024`). */
  adjustments?: string[];
  /** An elicitation's answer (`accept`, `decline` or `cancel`). */
  action?: "accept" | "decline" | "cancel";
  /** How long it took, in milliseconds. */
  durationMs: number;
}

/** Options for a {@linkcode ServerRequestLog}. */
export interface ServerRequestLogOptions {
  /** How many records are kept; the oldest go first. Default 1000. */
  capacity?: number;
}

/**
 * The most recent server-initiated requests, oldest first, up to a capacity (older records are
 * dropped and counted).
 *
 * @example
 * ```ts
 * import { ServerRequestLog } from "@tool-estate/core";
 * import assert from "node:assert/strict";
 * const log = new ServerRequestLog({ capacity: 2 });
 * for (const method of ["roots/list", "sampling/createMessage", "elicitation/create"]) {
 *   log.add({
 *     at: 0, server: "files", method, via: "request", bytes: 2, depth: 1,
 *     outcome: "refused", code: -32601, durationMs: 0,
 *   });
 * }
 * assert.deepEqual(log.entries().map((r) => r.method), ["sampling/createMessage", "elicitation/create"]);
 * assert.equal(log.dropped, 1);
 * ```
 */
export class ServerRequestLog {
  readonly #capacity: number;
  #records: ServerRequestRecord[] = [];
  #dropped = 0;

  /**
   * Makes an empty log.
   *
   * @param options Its capacity.
   * @throws {RangeError} When the capacity is not a positive integer.
   */
  constructor(options: ServerRequestLogOptions = {}) {
    const capacity = options.capacity ?? 1000;
    if (!Number.isInteger(capacity) || capacity < 1) {
      throw new RangeError(
        `ServerRequestLog: capacity must be a positive integer, got ${capacity}`,
      );
    }
    this.#capacity = capacity;
  }

  /** How many records the log keeps. */
  get capacity(): number {
    return this.#capacity;
  }

  /** How many records were dropped to keep within the capacity. */
  get dropped(): number {
    return this.#dropped;
  }

  /** How many records the log holds. */
  get size(): number {
    return this.#records.length;
  }

  /**
   * Appends a record, dropping the oldest when full.
   *
   * @param record The record.
   */
  add(record: ServerRequestRecord): void {
    this.#records.push(record);
    if (this.#records.length > this.#capacity) {
      const extra = this.#records.length - this.#capacity;
      this.#records = this.#records.slice(extra);
      this.#dropped += extra;
    }
  }

  /**
   * The records, oldest first (a copy).
   *
   * @param filter Only the records of this server, when given.
   * @returns The records.
   */
  entries(filter: { server?: string } = {}): ServerRequestRecord[] {
    return this.#records.filter((r) => filter.server === undefined || r.server === filter.server);
  }
}
