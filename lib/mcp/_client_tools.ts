// The client's tools cache, over list_cache.ts. Handshake era: the list is kept until
// `notifications/tools/list_changed`. 2026-07-28: it is kept for the shortest `ttlMs` of its
// pages (0: asked again every time), shared through a `ListCacheStore` when `cacheScope` is
// "public", or within the client's `cachePartition` when "private"; dropped when a listen stream
// says the list changed. One walk of the pages at a time: concurrent callers share it.

import type { Implementation, ListedTool } from "./protocol.ts";
import type { ProtocolEra } from "./methods.ts";
import type { Walked } from "./_client_pages.ts";
import {
  type CacheScope,
  type Freshness,
  listCacheKey,
  type ListCacheStore,
} from "./list_cache.ts";

/** What the cache needs from its client. */
export interface ToolsCacheHost {
  /** The era the connection speaks (undefined before it connects). */
  era(): ProtocolEra | undefined;
  /** The server's `serverInfo`, which names it in the shared store by default. */
  serverInfo(): Implementation | undefined;
  /** Walks every page of `tools/list`. */
  fetch(): Promise<Walked<ListedTool>>;
  /** The clock, in milliseconds. */
  now(): number;
  /** A store shared by the clients of one host. */
  store?: ListCacheStore;
  /** The authorization context for private entries. */
  partition?: string;
  /** The server's identity in the store, overriding `serverInfo`. */
  serverKey?: string;
}

const SCOPES = ["private", "public"] as const;

/** The client's tools cache. */
export class ToolsCache {
  readonly #host: ToolsCacheHost;
  #tools: ListedTool[] | undefined;
  #fresh: { expiresAt: number; scope: CacheScope } | undefined;
  #listing: Promise<ListedTool[]> | undefined;
  #count = 0;

  constructor(host: ToolsCacheHost) {
    this.#host = host;
  }

  /** How many times the list was fetched from the server (each a walk of every page). */
  get count(): number {
    return this.#count;
  }

  /** The tools: from the cache when fresh, else from one walk of the pages (shared). */
  list(): Promise<ListedTool[]> {
    const cached = this.#cached();
    if (cached) return Promise.resolve(cached);
    if (!this.#listing) {
      const listing = this.#host.fetch().then(({ items: tools, freshness }) => {
        // Keep it only if no list_changed arrived meanwhile.
        if (this.#listing === listing) this.#keep(tools, freshness);
        return tools;
      }).finally(() => {
        if (this.#listing === listing) this.#listing = undefined;
      });
      this.#listing = listing;
      this.#count++;
    }
    return this.#listing;
  }

  /** The tools if the cache holds them fresh; never asks the server. */
  peek(): ListedTool[] | undefined {
    return this.#cached();
  }

  /** Forgets the list (the server said it changed), here and in the shared store. */
  drop(): void {
    this.#tools = undefined;
    this.#fresh = undefined;
    this.#listing = undefined;
    if (this.#host.era() === "stateless") {
      for (const scope of SCOPES) {
        const key = this.#storeKey(scope);
        if (key !== undefined) this.#host.store!.delete(key);
      }
    }
  }

  #storeKey(scope: CacheScope): string | undefined {
    const { store, partition, serverKey } = this.#host;
    if (!store) return undefined;
    if (scope === "private" && partition === undefined) return undefined;
    const info = this.#host.serverInfo();
    const server = serverKey ?? `${info?.name ?? ""}@${info?.version ?? ""}`;
    return listCacheKey(server, "tools/list", scope, partition);
  }

  #cached(): ListedTool[] | undefined {
    if (this.#host.era() !== "stateless") return this.#tools;
    const now = this.#host.now();
    if (this.#tools && this.#fresh && now < this.#fresh.expiresAt) {
      return this.#tools;
    }
    this.#tools = undefined;
    this.#fresh = undefined;
    for (const scope of SCOPES) {
      const key = this.#storeKey(scope);
      const entry = key === undefined ? undefined : this.#host.store?.get(key);
      if (entry && entry.scope === scope && now < entry.expiresAt) {
        return entry.items as ListedTool[];
      }
    }
    return undefined;
  }

  #keep(tools: ListedTool[], freshness: Freshness | undefined): void {
    if (this.#host.era() !== "stateless" || !freshness) {
      this.#tools = tools;
      return;
    }
    if (freshness.ttlMs <= 0) return; // not cacheable: asked again next time
    const expiresAt = this.#host.now() + freshness.ttlMs;
    this.#tools = tools;
    this.#fresh = { expiresAt, scope: freshness.scope };
    const key = this.#storeKey(freshness.scope);
    if (key !== undefined) {
      this.#host.store!.set(key, {
        items: tools,
        expiresAt,
        scope: freshness.scope,
      });
    }
  }
}
