/**
 * HTTP's `Idempotency-Key` header (IETF httpapi draft) on a `tools/call`: the transport carries it
 * into the request's `_meta["dev.tool-estate/idempotencyKey"]`, where the server's idempotency
 * step reads it, so that a key sent either way is one key.
 *
 * @module
 */
import type { ClassifiedMessage } from "../../jsonrpc/envelope.ts";
import { IDEMPOTENCY_META_KEY } from "../../estate/idempotency.ts";
import { isObject } from "../../_object.ts";

/**
 * The message with the header's key in its `_meta`: unchanged when there is no header or the
 * message is not a `tools/call`; the same key in both places is one key.
 *
 * @param classified The POSTed message.
 * @param header The `Idempotency-Key` header's value, if any: a structured-field string
 *   (`"abc"`) or the bare key.
 * @returns The message to serve, or why it is refused (the header and `_meta` disagree).
 */
export function withIdempotencyHeader(
  classified: ClassifiedMessage,
  header: string | undefined,
): ClassifiedMessage | string {
  if (header === undefined || classified.kind !== "request") return classified;
  const request = classified.message;
  if (request.method !== "tools/call" || !isObject(request.params)) return classified;
  const trimmed = header.trim();
  const key = /^"[^"\\]*"$/.test(trimmed) ? trimmed.slice(1, -1) : trimmed;
  const meta = isObject(request.params._meta) ? request.params._meta : {};
  const sent = meta[IDEMPOTENCY_META_KEY];
  if (sent !== undefined && sent !== key) {
    return `Invalid params: the Idempotency-Key header and _meta["${IDEMPOTENCY_META_KEY}"] differ; send one key`;
  }
  return {
    kind: "request",
    message: {
      ...request,
      params: { ...request.params, _meta: { ...meta, [IDEMPOTENCY_META_KEY]: key } },
    },
  };
}
