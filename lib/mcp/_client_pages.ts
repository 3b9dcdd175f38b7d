// Walking a paginated list (tools/list, resources/list, prompts/list) to its end: cursors are
// opaque ("" is a cursor, not the end), and a page cap stops a server that never ends.

import { McpClientError } from "./client_errors.ts";
import { foldFreshness, type Freshness } from "./list_cache.ts";

/** Sends one page request. */
export type PageRequest = (
  method: string,
  params: Record<string, unknown>,
) => Promise<unknown>;

/** Every item of a list, and the freshness its pages allow (2026-07-28 `ttlMs`/`cacheScope`). */
export interface Walked<T> {
  /** Every item, in page order. */
  items: T[];
  /** The pages' freshness folded together (undefined when there was no page). */
  freshness: Freshness | undefined;
}

/**
 * Walks every page of a list.
 *
 * @param request Sends one page request.
 * @param list The method, the result's item key, and the page cap.
 * @returns The items and their freshness.
 * @throws {McpClientError} Of kind `malformed-result` when a page has no list under `key`, or
 *   `page-limit` when the pages do not end within `maxPages`.
 */
export async function walkPages<T>(
  request: PageRequest,
  list: { method: string; key: string; maxPages: number },
): Promise<Walked<T>> {
  const { method, key, maxPages } = list;
  const out: T[] = [];
  let freshness: Freshness | undefined;
  let cursor: string | undefined;
  for (let page = 0; page < maxPages; page++) {
    const result = await request(
      method,
      cursor === undefined ? {} : { cursor },
    ) as Record<
      string,
      unknown
    >;
    const items = result[key];
    if (!Array.isArray(items)) {
      throw new McpClientError(
        "malformed-result",
        `${method} returned no ${key} list`,
      );
    }
    out.push(...items as T[]);
    freshness = foldFreshness(freshness, result);
    if (typeof result.nextCursor !== "string") return { items: out, freshness };
    cursor = result.nextCursor; // "" is a cursor, not the end
  }
  throw new McpClientError(
    "page-limit",
    `${method} did not end within ${maxPages} pages`,
  );
}
