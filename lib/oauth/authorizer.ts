/**
 * What an HTTP client transport asks of whatever authorizes its requests: an `Authorization`
 * header per request, and a say when the server refuses one with 401 or 403. An `OAuthClient` is
 * one; the Streamable HTTP client transport takes any.
 *
 * @module
 */

/** A 401 or 403 answer, as a {@linkcode HttpAuthorizer} is told of it. */
export interface HttpChallenge {
  /** The MCP endpoint the request went to. */
  url: string;
  /** The request's HTTP method. */
  method: string;
  /** The answer's status: 401 or 403. */
  status: number;
  /** The answer's `WWW-Authenticate` header, if any. */
  wwwAuthenticate: string | null;
  /** The `Authorization` header the request carried, if any. */
  authorization: string | undefined;
  /** The transport's own `fetch` (without authorization), for metadata on the MCP server. */
  fetch: typeof fetch;
}

/**
 * Authorizes a transport's requests: gives each one its `Authorization` header, and is told when
 * the server refuses one with 401 or 403 (e.g. an `OAuthClient`).
 */
export interface HttpAuthorizer {
  /**
   * The `Authorization` header for a request to an endpoint.
   *
   * @param url The MCP endpoint.
   * @returns The header's value, or undefined to send none.
   */
  authorization(url: string): Promise<string | undefined>;
  /**
   * Told of a 401 or 403: obtains new credentials when it can.
   *
   * @param challenge The refused request and the answer's challenge.
   * @returns True when the request should be sent again (with the new credentials).
   * @throws {Error} When authorization failed; the request fails with it as the cause.
   */
  challenged(challenge: HttpChallenge): Promise<boolean>;
}
