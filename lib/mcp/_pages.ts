/**
 * Pagination of `tools/list`, `resources/list`, `resources/templates/list` and `prompts/list`:
 * opaque cursors (the offset of the next page, base64url with a check tag), and one page of a
 * list. An unknown cursor is `-32602`.
 *
 * @module
 */
import { ERROR_CODES } from "../jsonrpc/errors.ts";
import { protocolError } from "./_server_core.ts";

/** Opaque list cursors: the offset of the next page, base64url-encoded with a check tag. */
function encodeCursor(offset: number): string {
  return btoa(`te1:${offset}`).replace(/=+$/, "").replace(/\+/g, "-").replace(
    /\//g,
    "_",
  );
}

function decodeCursor(cursor: unknown, total: number): number {
  if (typeof cursor !== "string") {
    throw protocolError(
      ERROR_CODES.INVALID_PARAMS,
      "Invalid params: cursor must be a string",
    );
  }
  let text: string;
  try {
    text = atob(cursor.replace(/-/g, "+").replace(/_/g, "/"));
  } catch {
    text = "";
  }
  const m = /^te1:(0|[1-9][0-9]{0,8})$/.exec(text);
  if (!m || Number(m[1]) > total) {
    throw protocolError(
      ERROR_CODES.INVALID_PARAMS,
      `Invalid params: unknown cursor ${JSON.stringify(cursor)}`,
    );
  }
  return Number(m[1]);
}

/** Options for {@linkcode page}. */
export interface PageOptions {
  /** The request's `cursor` param, as sent (undefined: the first page). */
  cursor: unknown;
  /** Items per page. */
  pageSize: number;
}

/**
 * One page of a list: `{[key]: items, nextCursor?}`.
 *
 * @param key The result's member, e.g. `tools`.
 * @param items The whole list, in its stable order.
 * @param options The cursor and the page size.
 * @returns The page, with `nextCursor` when more follow.
 * @throws {JsonRpcError} `-32602` for a cursor that is not one this server gave for this list.
 */
export function page<T>(
  key: string,
  items: T[],
  options: PageOptions,
): Record<string, unknown> {
  const start = options.cursor === undefined ? 0 : decodeCursor(options.cursor, items.length);
  const end = Math.min(items.length, start + options.pageSize);
  const result: Record<string, unknown> = { [key]: items.slice(start, end) };
  if (end < items.length) result.nextCursor = encodeCursor(end);
  return result;
}
