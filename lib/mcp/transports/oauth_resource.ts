/**
 * The MCP server as an OAuth 2.1 protected resource: its Protected Resource Metadata (RFC 9728)
 * and where it is served, the canonical resource identifier its tokens must be issued for
 * (RFC 8707), the `WWW-Authenticate: Bearer` challenges of its 401 and 403 answers (RFC 6750),
 * and {@linkcode BearerChallenge}, which an authenticator throws to refuse a request with a
 * particular answer.
 *
 * @module
 */

/** What an MCP server says of itself as an OAuth protected resource. */
export interface ProtectedResourceOptions {
  /**
   * The resource identifier: the canonical URI of the MCP endpoint, e.g.
   * `https://mcp.bank.example/mcp` — what clients send as `resource` (RFC 8707) and what every
   * access token's audience must name.
   */
  resource: string;
  /** The issuer identifiers of the authorization servers whose tokens are accepted (one at least). */
  authorizationServers: readonly string[];
  /**
   * The scopes a client asks for to start with (`scopes_supported`); also the `scope` of the 401
   * challenge. Others are asked for by step-up. Leave out `offline_access` (the specification says
   * protected resources should not list it).
   */
  scopesSupported?: readonly string[];
  /** A name for people, e.g. `Bank tool estate`. */
  resourceName?: string;
  /** A page about the server, for people. */
  resourceDocumentation?: string;
}

/** The RFC 9728 well-known path prefix. */
export const PROTECTED_RESOURCE_WELL_KNOWN = "/.well-known/oauth-protected-resource";

/**
 * A resource identifier in canonical form (MCP authorization, "Canonical Server URI"): an absolute
 * `http` or `https` URI with the scheme and host in lower case, no fragment, no query, and no
 * trailing slash (`https://mcp.example.com/` becomes `https://mcp.example.com`).
 *
 * @param uri The identifier as configured or as a token names it.
 * @returns The canonical form.
 * @throws {TypeError} When it is not an absolute http(s) URI, or has a fragment or a query.
 *
 * @example
 * ```ts
 * import { canonicalResource } from "@tool-estate/core/http";
 * import assert from "node:assert/strict";
 * assert.equal(canonicalResource("HTTPS://MCP.Bank.Example/mcp"), "https://mcp.bank.example/mcp");
 * assert.equal(canonicalResource("https://mcp.bank.example/"), "https://mcp.bank.example");
 * assert.throws(() => canonicalResource("mcp.bank.example"));
 * ```
 */
export function canonicalResource(uri: string): string {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    throw new TypeError(
      `${
        JSON.stringify(uri)
      } is not a resource identifier: give an absolute URI such as https://mcp.example.com/mcp`,
    );
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    throw new TypeError(
      `resource identifier ${uri} must be an http or https URI`,
    );
  }
  if (uri.includes("#")) {
    throw new TypeError(`resource identifier ${uri} must not have a fragment`);
  }
  if (url.search !== "") {
    throw new TypeError(`resource identifier ${uri} must not have a query`);
  }
  if (url.username !== "" || url.password !== "") {
    throw new TypeError(
      `resource identifier ${uri} must not carry credentials`,
    );
  }
  const path = url.pathname === "/" ? "" : url.pathname.replace(/\/$/, "");
  return `${url.protocol}//${url.host}${path}`;
}

/**
 * Where the Protected Resource Metadata of a resource is served (RFC 9728 §3.1): the well-known
 * path inserted between the host and the resource's path.
 *
 * @param resource The resource identifier.
 * @returns The metadata's URL.
 * @throws {TypeError} When the resource is not a valid identifier (see {@linkcode canonicalResource}).
 *
 * @example
 * ```ts
 * import { protectedResourceMetadataUrl } from "@tool-estate/core/http";
 * import assert from "node:assert/strict";
 * assert.equal(
 *   protectedResourceMetadataUrl("https://mcp.bank.example/mcp"),
 *   "https://mcp.bank.example/.well-known/oauth-protected-resource/mcp",
 * );
 * ```
 */
export function protectedResourceMetadataUrl(resource: string): string {
  const url = new URL(canonicalResource(resource));
  const path = url.pathname === "/" ? "" : url.pathname;
  return `${url.protocol}//${url.host}${PROTECTED_RESOURCE_WELL_KNOWN}${path}`;
}

/**
 * The Protected Resource Metadata document (RFC 9728 §2): `resource`, `authorization_servers`,
 * `scopes_supported` when given, `bearer_methods_supported: ["header"]` (tokens are taken from the
 * `Authorization` header only), and the names for people.
 *
 * @param options What the server says of itself.
 * @returns The document, ready for `JSON.stringify`.
 * @throws {TypeError} When the resource is not a valid identifier, there is no authorization
 *   server, or an issuer is not an absolute https URI (http only on a loopback host).
 *
 * @example
 * ```ts
 * import { protectedResourceMetadata } from "@tool-estate/core/http";
 * import assert from "node:assert/strict";
 * assert.deepEqual(
 *   protectedResourceMetadata({
 *     resource: "https://mcp.bank.example/mcp",
 *     authorizationServers: ["https://login.bank.example"],
 *     scopesSupported: ["payments:read"],
 *   }),
 *   {
 *     resource: "https://mcp.bank.example/mcp",
 *     authorization_servers: ["https://login.bank.example"],
 *     scopes_supported: ["payments:read"],
 *     bearer_methods_supported: ["header"],
 *   },
 * );
 * ```
 */
export function protectedResourceMetadata(
  options: ProtectedResourceOptions,
): Record<string, unknown> {
  const resource = canonicalResource(options.resource);
  if (
    !Array.isArray(options.authorizationServers) ||
    options.authorizationServers.length === 0
  ) {
    throw new TypeError(
      "protected resource metadata: authorizationServers must name at least one issuer",
    );
  }
  for (const issuer of options.authorizationServers) checkIssuer(issuer);
  const doc: Record<string, unknown> = {
    resource,
    authorization_servers: [...options.authorizationServers],
  };
  if (options.scopesSupported !== undefined) {
    doc.scopes_supported = [...options.scopesSupported];
  }
  doc.bearer_methods_supported = ["header"];
  if (options.resourceName !== undefined) {
    doc.resource_name = options.resourceName;
  }
  if (options.resourceDocumentation !== undefined) {
    doc.resource_documentation = options.resourceDocumentation;
  }
  return doc;
}

const LOOPBACK_HOSTS = new Set(["127.0.0.1", "localhost", "[::1]"]);

/**
 * Checks an authorization server's issuer identifier: an absolute https URI without query or
 * fragment (RFC 8414 §2); plain http only on a loopback host, for tests and local use.
 *
 * @param issuer The issuer.
 * @returns The issuer, unchanged.
 * @throws {TypeError} When it is not one.
 */
export function checkIssuer(issuer: string): string {
  let url: URL;
  try {
    url = new URL(issuer);
  } catch {
    throw new TypeError(
      `issuer ${JSON.stringify(issuer)} is not an absolute URI`,
    );
  }
  const loopback = LOOPBACK_HOSTS.has(url.hostname) ||
    url.hostname.startsWith("127.");
  if (url.protocol !== "https:" && !(url.protocol === "http:" && loopback)) {
    throw new TypeError(
      `issuer ${issuer} must be an https URI (plain http is accepted on a loopback host only)`,
    );
  }
  if (url.search !== "" || issuer.includes("#")) {
    throw new TypeError(`issuer ${issuer} must have no query and no fragment`);
  }
  return issuer;
}

/** The OAuth error codes of a bearer challenge (RFC 6750 §3.1). */
export type BearerErrorCode =
  | "invalid_request"
  | "invalid_token"
  | "insufficient_scope";

/** Options for {@linkcode BearerChallenge}. */
export interface BearerChallengeOptions {
  /**
   * The HTTP status: 401 for a missing, invalid or expired token (the default), 403 for one
   * whose scopes or principal are not enough, 400 for a malformed request.
   */
  status?: 400 | 401 | 403;
  /** The RFC 6750 error code. Default: `invalid_token` for 401, `insufficient_scope` for 403, `invalid_request` for 400. */
  error?: BearerErrorCode;
  /** The scopes that would do (the challenge's `scope`). */
  scope?: readonly string[];
}

/**
 * Thrown by an `Authenticate` to refuse a request with a particular answer: the status, and a
 * `WWW-Authenticate: Bearer` challenge with its error code, `error_description` (the message:
 * say what is wrong, never echo the token) and scope. Returning undefined refuses with a plain 401.
 *
 * @example
 * ```ts
 * import { BearerChallenge } from "@tool-estate/core/http";
 * import assert from "node:assert/strict";
 * const refusal = new BearerChallenge("the token has expired");
 * assert.equal(refusal.status, 401);
 * assert.equal(refusal.error, "invalid_token");
 * ```
 */
export class BearerChallenge extends Error {
  /** The HTTP status. */
  readonly status: 400 | 401 | 403;
  /** The RFC 6750 error code. */
  readonly error: BearerErrorCode;
  /** The scopes that would do, when known. */
  readonly scope: readonly string[] | undefined;

  /**
   * Makes the refusal.
   *
   * @param message What is wrong, for the client (`error_description`) and the log.
   * @param options The status, the error code, the scopes.
   */
  constructor(message: string, options: BearerChallengeOptions = {}) {
    super(message);
    this.name = "BearerChallenge";
    this.status = options.status ?? 401;
    this.error = options.error ??
      (this.status === 403
        ? "insufficient_scope"
        : this.status === 400
        ? "invalid_request"
        : "invalid_token");
    this.scope = options.scope;
  }
}

/**
 * The credentials cannot be checked now — the authorization server's keys or metadata could not be
 * fetched — which is not the caller's fault: answered 503 with `Retry-After`, not 401 and not 500.
 * `accessTokens` throws it, and asks the authorization server again only after `retryAfterSeconds`.
 *
 * @example
 * ```ts
 * import { AuthorizationUnavailable } from "@tool-estate/core/http";
 * import assert from "node:assert/strict";
 * const e = new AuthorizationUnavailable("the issuer's keys could not be fetched", 30);
 * assert.equal(e.retryAfterSeconds, 30);
 * ```
 */
export class AuthorizationUnavailable extends Error {
  /** When to try again, in whole seconds. */
  readonly retryAfterSeconds: number;

  /**
   * Makes the refusal.
   *
   * @param message What could not be done, for the client and the log.
   * @param retryAfterSeconds When to try again (at least 1).
   */
  constructor(message: string, retryAfterSeconds: number) {
    super(message);
    this.name = "AuthorizationUnavailable";
    this.retryAfterSeconds = Math.max(1, Math.ceil(retryAfterSeconds));
  }
}

/** The parameters of a `WWW-Authenticate: Bearer` challenge, each left out when undefined. */
export interface BearerChallengeParams {
  /** The protection space, e.g. `mcp`. */
  realm?: string;
  /** The RFC 6750 error code (none when the request carried no credentials). */
  error?: BearerErrorCode;
  /** What is wrong, for people. */
  errorDescription?: string;
  /** The scopes that would do. */
  scope?: readonly string[];
  /** The Protected Resource Metadata URL (RFC 9728 §5.1). */
  resourceMetadata?: string;
}

/**
 * A `WWW-Authenticate` value: `Bearer` with `realm`, `error`, `error_description`, `scope` and
 * `resource_metadata`, in that order, as quoted strings (`"` and `\` escaped; characters RFC 6750
 * does not allow in them replaced by a space).
 *
 * @param params The parameters.
 * @returns The header value.
 *
 * @example
 * ```ts
 * import { bearerChallengeHeader } from "@tool-estate/core/http";
 * import assert from "node:assert/strict";
 * assert.equal(
 *   bearerChallengeHeader({ error: "insufficient_scope", scope: ["payments:read", "payments:release"] }),
 *   'Bearer error="insufficient_scope", scope="payments:read payments:release"',
 * );
 * ```
 */
export function bearerChallengeHeader(params: BearerChallengeParams): string {
  const parts: string[] = [];
  const add = (name: string, value: string | undefined) => {
    if (value !== undefined) parts.push(`${name}="${quoted(value)}"`);
  };
  add("realm", params.realm);
  add("error", params.error);
  add("error_description", params.errorDescription);
  add("scope", params.scope?.length ? params.scope.join(" ") : undefined);
  add("resource_metadata", params.resourceMetadata);
  return parts.length ? `Bearer ${parts.join(", ")}` : "Bearer";
}

/** A value as an RFC 6750 quoted string's content: `%x20-21 / %x23-5B / %x5D-7E`, escaped. */
function quoted(value: string): string {
  return value.replace(/[^\x20-\x7e]/g, " ").replace(/["\\]/g, "\\$&");
}
