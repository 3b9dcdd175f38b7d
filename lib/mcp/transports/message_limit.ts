/**
 * The largest message a client transport takes from the other side: an answer past it is not
 * read on (the stdio server is cut off, the HTTP answer dropped) and the request fails with
 * {@linkcode MessageTooLargeError}, so a server that answers 40 MiB cannot grow its caller by as
 * much. The gateway sets it for its upstreams (`GatewayOptions.maxResultBytes`).
 *
 * @module
 */

/** The default cap on one message a client transport reads: 16 MiB. */
export const DEFAULT_MAX_MESSAGE_BYTES: number = 16 * 1024 * 1024;

/**
 * A message from the other side was larger than the transport takes.
 *
 * @example
 * ```ts
 * import { MessageTooLargeError } from "@tool-estate/core/stdio";
 * import assert from "node:assert/strict";
 * const e = new MessageTooLargeError(1024, "the server's stdout");
 * assert.equal(e.limit, 1024);
 * assert.match(e.message, /more than 1024 bytes/);
 * ```
 */
export class MessageTooLargeError extends Error {
  /** The cap, in bytes. */
  readonly limit: number;

  /**
   * Makes the error.
   *
   * @param limit The cap that was passed, in bytes.
   * @param where What sent it (`the server's stdout`, `POST https://…`).
   */
  constructor(limit: number, where: string) {
    super(
      `${where} sent a message of more than ${limit} bytes (maxMessageBytes); it was not read`,
    );
    this.name = "MessageTooLargeError";
    this.limit = limit;
  }
}

/**
 * Checks a `maxMessageBytes` option.
 *
 * @param value The option.
 * @param where Whose option, for the error.
 * @returns The cap (the default when not given).
 * @throws {TypeError} When it is not a whole number of 1 or more.
 */
export function maxMessageBytes(value: number | undefined, where: string): number {
  if (value === undefined) return DEFAULT_MAX_MESSAGE_BYTES;
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new TypeError(
      `${where}: maxMessageBytes must be a whole number of 1 or more, got ${value}`,
    );
  }
  return value;
}
