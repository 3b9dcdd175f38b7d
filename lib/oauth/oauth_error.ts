/**
 * What the OAuth client throws: an {@linkcode OAuthError} with the step that failed. Its message
 * says what and where; it never holds a token, a refresh token, a client secret, an authorization
 * code or a PKCE verifier (what an authorization server echoes is redacted).
 *
 * @module
 */

/**
 * The step of the OAuth flow that failed.
 *
 * - `configuration`: the client's options cannot do what the server asks (no redirect callback,
 *   no client for a `client_credentials` grant, an insecure URL).
 * - `discovery`: no usable Protected Resource Metadata or authorization server metadata.
 * - `resource_mismatch`: the resource metadata names a resource that is not this MCP server.
 * - `issuer_mismatch`: metadata, or an authorization response, from another issuer than expected.
 * - `pkce_unsupported`: the authorization server does not advertise PKCE with S256.
 * - `registration`: no client id could be had (pre-registered, metadata document, or dynamic).
 * - `authorization`: the authorization step failed (the user or the server refused, no code).
 * - `state_mismatch`: the authorization response is not the answer to this client's request.
 * - `token`: the token endpoint refused, or answered something unusable.
 * - `insufficient_scope`: step-up authorization was tried as often as allowed and still refused.
 */
export type OAuthFailure =
  | "configuration"
  | "discovery"
  | "resource_mismatch"
  | "issuer_mismatch"
  | "pkce_unsupported"
  | "registration"
  | "authorization"
  | "state_mismatch"
  | "token"
  | "insufficient_scope";

/** Options for an {@linkcode OAuthError}. */
export interface OAuthErrorOptions {
  /** The OAuth `error` code an authorization server answered with, e.g. `invalid_grant`. */
  oauthError?: string;
  /** The underlying error (a network failure), if any. */
  cause?: unknown;
}

/**
 * A failure of the OAuth client: the step (`failure`), and the authorization server's own error
 * code when it gave one.
 *
 * @example
 * ```ts
 * import { OAuthError } from "@tool-estate/core/http";
 * import assert from "node:assert/strict";
 * const e = new OAuthError("token", "the token endpoint refused: invalid_grant", { oauthError: "invalid_grant" });
 * assert.equal(e.failure, "token");
 * assert.equal(e.oauthError, "invalid_grant");
 * ```
 */
export class OAuthError extends Error {
  /** The step that failed. */
  readonly failure: OAuthFailure;
  /** The authorization server's OAuth error code, when it gave one. */
  readonly oauthError: string | undefined;

  /**
   * Makes the error.
   *
   * @param failure The step that failed.
   * @param message What failed, where, and what to do (never a secret).
   * @param options The server's error code, the cause.
   */
  constructor(
    failure: OAuthFailure,
    message: string,
    options: OAuthErrorOptions = {},
  ) {
    super(message, options.cause === undefined ? {} : { cause: options.cause });
    this.name = "OAuthError";
    this.failure = failure;
    this.oauthError = options.oauthError;
  }
}
