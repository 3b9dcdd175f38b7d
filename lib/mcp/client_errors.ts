/**
 * What an `McpClient` throws besides the peer's errors: a missing resource, a result it cannot
 * use, a failure of MCP itself ({@linkcode McpClientError}, with a `kind`), and the deprecated name
 * of the wire error.
 *
 * Every error answer reaches the caller as a {@linkcode JsonRpcError} (code, message, data); no
 * answer at all is a `PeerError` (`timeout`, `cancelled`, `closed`).
 *
 * @module
 */
import { JsonRpcError } from "../jsonrpc/errors.ts";

/**
 * A JSON-RPC error the server answered with.
 *
 * @deprecated Use {@linkcode JsonRpcError}, which the client throws for every error answer.
 *   `error instanceof McpProtocolError` stays true for every `JsonRpcError`, so existing checks
 *   keep working; `new McpProtocolError(code, message, data)` still makes one.
 */
export class McpProtocolError extends JsonRpcError {
  /**
   * Makes the error from the wire error.
   *
   * @param code The code.
   * @param message The message.
   * @param data The data.
   */
  constructor(code: number, message: string, data?: unknown) {
    super(code, message, data === undefined ? {} : { data });
    this.name = "McpProtocolError";
  }

  /**
   * `instanceof McpProtocolError` is true for any {@linkcode JsonRpcError} (the client throws
   * those now); a subclass keeps the ordinary prototype check.
   *
   * @param value The value on the left of `instanceof`.
   * @returns Whether it counts as an instance.
   */
  static override [Symbol.hasInstance](value: unknown): boolean {
    return this === McpProtocolError
      ? value instanceof JsonRpcError
      : Function.prototype[Symbol.hasInstance].call(this, value);
  }
}

/** Options for a {@linkcode ResourceNotFoundError}: the URI and the server's error. */
export interface ResourceNotFoundErrorOptions {
  /** The URI asked for. */
  uri: string;
  /** The code the server used (-32002 or -32602). */
  code: number;
  /** The server's message. */
  message: string;
  /** The error's data. */
  data?: unknown;
}

/** A resource the server does not have: `-32002` (handshake era) or `-32602` (2026-07-28). */
export class ResourceNotFoundError extends JsonRpcError {
  /** The URI asked for. */
  readonly uri: string;

  /**
   * Makes the error from the server's error.
   *
   * @param options The URI, the code, the message, the data.
   */
  constructor(options: ResourceNotFoundErrorOptions);
  /**
   * Makes the error from the server's error.
   *
   * @param uri The URI asked for.
   * @param code The code the server used (-32002 or -32602).
   * @param message The server's message.
   * @param data The error's data.
   * @deprecated Pass one options object: `new ResourceNotFoundError({ uri, code, message, data })`.
   */
  constructor(uri: string, code: number, message: string, data?: unknown);
  constructor(
    first: string | ResourceNotFoundErrorOptions,
    code?: number,
    message?: string,
    data?: unknown,
  ) {
    const o: ResourceNotFoundErrorOptions = typeof first === "string"
      ? { uri: first, code: code!, message: message!, data }
      : first;
    super(o.code, o.message, o.data === undefined ? {} : { data: o.data });
    this.name = "ResourceNotFoundError";
    this.uri = o.uri;
  }
}

/**
 * Why the client gave up on an exchange that JSON-RPC carried fine:
 * - `unsupported-revision`: the server speaks no protocol revision this client does (or, with
 *   `era: "stateless"`, is not a 2026-07-28 server);
 * - `malformed-result`: a result lacks what the method promises (a page without its list, a
 *   `subscriptions/listen` answered without being acknowledged);
 * - `page-limit`: a list did not end within the client's `maxPages`;
 * - `wrong-era`: the request does not exist in the era the connection speaks.
 */
export type McpClientErrorKind =
  | "unsupported-revision"
  | "malformed-result"
  | "page-limit"
  | "wrong-era";

/**
 * A failure of MCP itself, told apart by `kind` rather than by its message.
 *
 * @example
 * ```ts
 * import { McpClientError } from "@tool-estate/core";
 * import assert from "node:assert/strict";
 * const e = new McpClientError("page-limit", "tools/list did not end within 64 pages");
 * assert.equal(e.kind, "page-limit");
 * ```
 */
export class McpClientError extends Error {
  /** Why the client gave up. */
  readonly kind: McpClientErrorKind;

  /**
   * Makes the error.
   *
   * @param kind Why the client gave up.
   * @param message What happened, and where.
   * @param options The underlying error, if any.
   */
  constructor(
    kind: McpClientErrorKind,
    message: string,
    options: { cause?: unknown } = {},
  ) {
    super(
      message,
      options.cause === undefined ? undefined : { cause: options.cause },
    );
    this.name = "McpClientError";
    this.kind = kind;
  }
}

/** A result whose `resultType` this client cannot use (`input_required`, or an unknown one). */
export class UnsupportedResultError extends Error {
  /** The `resultType` the server sent. */
  readonly resultType: unknown;

  /**
   * Makes the error.
   *
   * @param method The request's method.
   * @param resultType The `resultType` the server sent.
   */
  constructor(method: string, resultType: unknown) {
    super(
      resultType === "input_required"
        ? `${method}: the server asked for input (resultType "input_required"), which this client does not provide`
        : `${method}: the server answered with resultType ${
          JSON.stringify(resultType)
        }, which is not a known result type`,
    );
    this.name = "UnsupportedResultError";
    this.resultType = resultType;
  }
}

/**
 * Accepts a 2026-07-28 result whose `resultType` is missing or `"complete"`.
 *
 * @param method The request's method.
 * @param result The result.
 * @throws {UnsupportedResultError} For any other `resultType`.
 */
export function checkResultType(
  method: string,
  result: Record<string, unknown>,
): void {
  const t = result.resultType;
  if (t !== undefined && t !== "complete") {
    throw new UnsupportedResultError(method, t);
  }
}

/** Why a client gave up on a 2026-07-28 `input_required` result. */
export interface InputRequestRefusal {
  /** The key of the input request refused, when one was. */
  key?: string;
  /** Its method (`sampling/createMessage`, `elicitation/create`, `roots/list`), when one was. */
  inputMethod?: string;
  /**
   * The JSON-RPC code a handshake-era server would have been answered with (`-32601` a direction
   * not allowed, `-32602` a request the policy cannot serve, `-1` a cap or a host that said no).
   */
  code?: number;
  /** Why, in words. */
  reason: string;
}

/**
 * A 2026-07-28 `input_required` result the client would not (or could not) fulfil: an input
 * request the host's policy refused (a direction not allowed, a cap passed, a request outside the
 * restricted forms, a callback that said no), more round trips than `maxInputRounds`, or a result
 * with nothing to answer. The request is not retried. It is an {@linkcode UnsupportedResultError}
 * whose `resultType` is `"input_required"`.
 *
 * @example
 * ```ts
 * import { InputRequestRefusedError, UnsupportedResultError } from "@tool-estate/core";
 * import assert from "node:assert/strict";
 * const e = new InputRequestRefusedError("tools/call", {
 *   key: "q",
 *   inputMethod: "sampling/createMessage",
 *   code: -32601,
 *   reason: "sampling is not allowed for this server by the host's policy",
 * });
 * assert.ok(e instanceof UnsupportedResultError);
 * assert.equal(e.resultType, "input_required");
 * assert.equal(e.inputMethod, "sampling/createMessage");
 * ```
 */
export class InputRequestRefusedError extends UnsupportedResultError {
  /** The request whose result asked for input (`tools/call`, `prompts/get`, `resources/read`). */
  readonly method: string;
  /** The key of the input request refused, when one was. */
  readonly key: string | undefined;
  /** Its method, when one was. */
  readonly inputMethod: string | undefined;
  /** The code a handshake-era server would have been answered with, when one applies. */
  readonly code: number | undefined;
  /** Why, in words. */
  readonly reason: string;

  /**
   * Makes the error.
   *
   * @param method The request whose result asked for input.
   * @param refusal What was refused and why.
   */
  constructor(method: string, refusal: InputRequestRefusal) {
    super(method, "input_required");
    this.name = "InputRequestRefusedError";
    this.method = method;
    this.key = refusal.key;
    this.inputMethod = refusal.inputMethod;
    this.code = refusal.code;
    this.reason = refusal.reason;
    this.message = refusal.key === undefined
      ? `${method}: gave up on the server's input_required result: ${refusal.reason}`
      : `${method}: the server asked for ${refusal.inputMethod} (input request ${
        JSON.stringify(refusal.key)
      }), which the client refused: ${refusal.reason}; the request is not retried`;
  }
}
