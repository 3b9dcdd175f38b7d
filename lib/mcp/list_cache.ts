/**
 * The client's cache of list results under the 2026-07-28 caching rules (`ttlMs`, `cacheScope`):
 * an entry lives `ttlMs` milliseconds; a `"public"` entry may be reused by every client of the
 * same host talking to the same server, a `"private"` one only within its authorization context
 * (the client's `cachePartition`), and never across contexts.
 *
 * @module
 */

/** How widely a cached result may be reused (2026-07-28 `cacheScope`). */
export type CacheScope = "public" | "private";

/** One cached list result. */
export interface ListCacheEntry {
  /** Every item, all pages walked. */
  items: unknown[];
  /** When it stops being fresh (milliseconds, on the client's clock). */
  expiresAt: number;
  /** How widely it may be reused. */
  scope: CacheScope;
}

/**
 * A store of list results that several clients of one host may share. A plain `Map` is one.
 *
 * @example
 * ```ts
 * import type { ListCacheStore } from "@tool-estate/core";
 * const store: ListCacheStore = new Map();
 * store.set("k", { items: [], expiresAt: 0, scope: "public" });
 * ```
 */
export interface ListCacheStore {
  /** The entry at a key. */
  get(key: string): ListCacheEntry | undefined;
  /** Stores an entry. */
  set(key: string, entry: ListCacheEntry): unknown;
  /** Drops an entry. */
  delete(key: string): unknown;
}

/** Options for {@linkcode listCacheKey}: whose entry it is. */
export interface ListCacheKeyOptions {
  /** The entry's scope. */
  scope: CacheScope;
  /** The authorization context, for a private entry. Default: empty. */
  partition?: string;
}

/**
 * The key of a list result in a shared store: the server, the list, and for a private result the
 * authorization context it belongs to.
 *
 * @param server Which server (its identity within the host).
 * @param method The list method, e.g. `tools/list`.
 * @param options The entry's scope, and for a private entry its authorization context.
 * @returns The key.
 *
 * @example
 * ```ts
 * import { listCacheKey } from "@tool-estate/core";
 * import assert from "node:assert/strict";
 * assert.notEqual(
 *   listCacheKey("s", "tools/list", { scope: "private", partition: "alice" }),
 *   listCacheKey("s", "tools/list", { scope: "private", partition: "bob" }),
 * );
 * assert.equal(
 *   listCacheKey("s", "tools/list", { scope: "public", partition: "alice" }),
 *   listCacheKey("s", "tools/list", { scope: "public" }),
 * );
 * ```
 */
export function listCacheKey(
  server: string,
  method: string,
  options: ListCacheKeyOptions,
): string;
/**
 * The key of a list result in a shared store, scope and partition given one by one.
 *
 * @deprecated Give them as options: `listCacheKey(server, method, { scope, partition })`.
 *
 * @param server Which server (its identity within the host).
 * @param method The list method, e.g. `tools/list`.
 * @param scope The entry's scope.
 * @param partition The authorization context (for private entries).
 * @returns The key.
 */
export function listCacheKey(
  server: string,
  method: string,
  scope: CacheScope,
  partition?: string,
): string;
export function listCacheKey(
  server: string,
  method: string,
  scopeOrOptions: CacheScope | ListCacheKeyOptions,
  partition = "",
): string {
  const { scope, partition: part = "" } = typeof scopeOrOptions === "string"
    ? { scope: scopeOrOptions, partition }
    : scopeOrOptions;
  return JSON.stringify(
    scope === "public" ? [server, method] : [server, method, part],
  );
}

/** The freshness of a walk of pages: the shortest `ttlMs`, and private if any page was. */
export interface Freshness {
  /** The shortest `ttlMs` of any page (0 when a page had none). */
  ttlMs: number;
  /** `"private"` if any page was private or unmarked. */
  scope: CacheScope;
}

/**
 * Folds one page's caching fields into the walk's freshness. A missing or invalid `ttlMs` counts
 * as 0 (not cacheable); a missing or unknown `cacheScope` counts as private.
 *
 * @param acc The freshness so far (undefined before the first page).
 * @param page The page's result.
 * @returns The freshness including this page.
 *
 * @example
 * ```ts
 * import { foldFreshness } from "@tool-estate/core";
 * import assert from "node:assert/strict";
 * const one = foldFreshness(undefined, { ttlMs: 60_000, cacheScope: "public" });
 * assert.deepEqual(foldFreshness(one, { ttlMs: 5_000, cacheScope: "private" }), {
 *   ttlMs: 5_000,
 *   scope: "private",
 * });
 * ```
 */
export function foldFreshness(
  acc: Freshness | undefined,
  page: Record<string, unknown>,
): Freshness {
  const ttl = typeof page.ttlMs === "number" && Number.isFinite(page.ttlMs) &&
      page.ttlMs > 0
    ? page.ttlMs
    : 0;
  const scope: CacheScope = page.cacheScope === "public" ? "public" : "private";
  if (!acc) return { ttlMs: ttl, scope };
  return {
    ttlMs: Math.min(acc.ttlMs, ttl),
    scope: acc.scope === "private" || scope === "private" ? "private" : "public",
  };
}
