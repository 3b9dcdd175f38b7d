// The client's `subscriptions/listen` streams (2026-07-28): opening one and waiting for its
// acknowledgement, telling which notifications belong to an open one (by the subscription id in
// their `_meta`), and ending one — by the client (cancelling the listen request) or by the server
// (its `notifications/cancelled`, or its answer to the listen request).

import type { PeerCall } from "../jsonrpc/peer_types.ts";
import { PeerError } from "../jsonrpc/peer_error.ts";
import type { JsonRpcId } from "../jsonrpc/types.ts";
import { isObject } from "../_object.ts";
import { META } from "./_client_era.ts";
import { McpClientError } from "./client_errors.ts";

/** What `subscriptions/listen` asks the server to send (2026-07-28). */
export interface ListenFilter {
  /** `notifications/tools/list_changed`. */
  toolsListChanged?: boolean;
  /** `notifications/prompts/list_changed`. */
  promptsListChanged?: boolean;
  /** `notifications/resources/list_changed`. */
  resourcesListChanged?: boolean;
  /** `notifications/resources/updated` for these URIs. */
  resourceSubscriptions?: string[];
}

/** An open `subscriptions/listen` stream. */
export interface Subscription {
  /** The subscription id (the listen request's JSON-RPC id). */
  readonly id: JsonRpcId;
  /** What the server acknowledged (the acknowledgement's params, without `_meta`). */
  readonly acknowledged: Record<string, unknown>;
  /** Settles when the subscription ends (the server ended it, it was closed, or the connection). */
  readonly closed: Promise<void>;
  /** Ends the subscription (cancels the listen request). */
  close(): Promise<void>;
}

interface Listening {
  acknowledge: (params: Record<string, unknown>) => void;
  end: () => void;
}

/** What the subscriptions need from their client. */
export interface SubscriptionsHost {
  /** Starts the listen request (with the 2026-07-28 envelope), never timing out by itself. */
  start(params: Record<string, unknown>, signal: AbortSignal): PeerCall;
  /** How long the server may take to acknowledge. */
  ackTimeoutMs: number;
}

/** The open listen streams of one client. */
export class Subscriptions {
  readonly #host: SubscriptionsHost;
  readonly #open = new Map<JsonRpcId, Listening>();
  #auto: Promise<Subscription | undefined> | undefined;

  constructor(host: SubscriptionsHost) {
    this.#host = host;
  }

  /**
   * Opens a stream; resolves once the server acknowledged it. A stream that carries
   * `tools/list_changed` makes the automatic one ({@linkcode Subscriptions.ensureToolsStream})
   * unnecessary.
   */
  listen(filter: ListenFilter): Promise<Subscription> {
    const opened = this.#listen(filter);
    if (filter.toolsListChanged) this.#auto ??= opened.catch(() => undefined);
    return opened;
  }

  /** Opens one stream for `tools/list_changed`, once per client, unless one already asked. */
  ensureToolsStream(): void {
    this.#auto ??= this.#listen({ toolsListChanged: true }).catch(
      () => undefined, // the TTL still bounds staleness
    );
  }

  /** Whether a notification's params name an open subscription (in their `_meta`). */
  owns(params: Record<string, unknown>): boolean {
    const meta = isObject(params._meta) ? params._meta : {};
    return this.#find(meta[META.subscriptionId]) !== undefined;
  }

  /** `notifications/subscriptions/acknowledged`: resolves the stream it names. */
  acknowledged(params: Record<string, unknown>): void {
    const { _meta: meta, ...granted } = params;
    this.#find(isObject(meta) ? meta[META.subscriptionId] : undefined)
      ?.acknowledge(granted);
  }

  /** The server's `notifications/cancelled` for a listen request: the stream ends, no echo. */
  cancelled(params: Record<string, unknown>): void {
    this.#find(params.requestId)?.end();
  }

  /** The open subscription with this id (a server may echo a numeric id as a string). */
  #find(id: unknown): Listening | undefined {
    if (typeof id !== "string" && typeof id !== "number") return undefined;
    const exact = this.#open.get(id);
    if (exact) return exact;
    for (const [key, listening] of this.#open) {
      if (String(key) === String(id)) return listening;
    }
    return undefined;
  }

  #listen(filter: ListenFilter): Promise<Subscription> {
    const controller = new AbortController();
    let endSubscription!: () => void;
    const closed = new Promise<void>((resolve) => (endSubscription = resolve));
    return new Promise<Subscription>((resolve, reject) => {
      let acked = false;
      const call = this.#host.start(
        { notifications: { ...filter } },
        controller.signal,
      );
      const id = call.id;
      const ackTimer = setTimeout(() => {
        if (acked) return;
        controller.abort("not acknowledged");
        reject(
          new PeerError(
            "timeout",
            "subscriptions/listen was not acknowledged in time",
            {
              method: "subscriptions/listen",
              requestId: id,
            },
          ),
        );
      }, this.#host.ackTimeoutMs);
      this.#open.set(id, {
        acknowledge: (acknowledged) => {
          if (acked) return;
          acked = true;
          clearTimeout(ackTimer);
          resolve({
            id,
            acknowledged,
            closed,
            close: () => {
              controller.abort("closed by the client");
              return closed;
            },
          });
        },
        // The server ended it (notifications/cancelled): no cancellation goes back.
        end: () => call.abandon("the server ended the subscription"),
      });
      call.result.then(() => {
        clearTimeout(ackTimer);
        if (!acked) {
          reject(
            new McpClientError(
              "malformed-result",
              "the server answered subscriptions/listen without acknowledging it",
            ),
          );
        }
      }, (e) => {
        clearTimeout(ackTimer);
        if (!acked) reject(e);
      }).finally(() => {
        this.#open.delete(id);
        endSubscription();
      });
    });
  }
}
