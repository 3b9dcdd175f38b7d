/**
 * MCP over Streamable HTTP — the handshake era (2025-03-26, 2025-06-18, 2025-11-25, with sessions)
 * and the stateless 2026-07-28 revision side by side: {@linkcode serveHttp} serves an `McpServer`
 * on one endpoint with bearer authentication — static tokens ({@linkcode bearerTokens}) or OAuth
 * access tokens from trusted authorization servers ({@linkcode accessTokens}), the server being a
 * protected resource (RFC 9728) — and DNS-rebinding guards; {@linkcode StreamableHttpClientTransport}
 * connects an `McpClient` to such an endpoint, and {@linkcode OAuthClient} authorizes it against an
 * OAuth-protected server (the MCP authorization specification's client side).
 * The server runs on `node:http` and the client on `fetch`, so both work in Deno and Node.
 *
 * @example
 * ```ts
 * import { McpClient, McpServer, ToolRegistry } from "@tool-estate/core";
 * import { bearerTokens, serveHttp, StreamableHttpClientTransport } from "@tool-estate/core/http";
 * import assert from "node:assert/strict";
 *
 * const registry = new ToolRegistry();
 * const server = new McpServer({ registry, handlerFor: () => undefined });
 * const http = await serveHttp(server, {
 *   authenticate: bearerTokens([{ id: "ops", scopes: [], tenant: "group", clearance: "internal", token: "t0k" }]),
 * });
 * const client = new McpClient(new StreamableHttpClientTransport(http.url, { token: "t0k" }));
 * assert.equal((await client.connect()).protocolVersion, "2026-07-28"); // dual-era client: stateless
 * assert.equal(client.era, "stateless");
 * assert.deepEqual(await client.listTools(), []);
 * await client.close();
 * await http.close();
 * server.close();
 * ```
 *
 * @module
 */
export {
  type HttpPages,
  type HttpPagesContext,
  type McpHttpServer,
  type ReauthenticateResult,
  serveHttp,
  type ServeHttpOptions,
} from "./http.ts";
export {
  type HttpAuthorizer,
  type HttpChallenge,
  type StreamableHttpClientOptions,
  StreamableHttpClientTransport,
  StreamableHttpError,
  type StreamableHttpErrorOptions,
} from "./http_client.ts";
export { DEFAULT_MAX_MESSAGE_BYTES, MessageTooLargeError } from "./message_limit.ts";
export {
  accessTokens,
  type AccessTokensOptions,
  DEFAULT_TOKEN_ALGORITHMS,
  type IntrospectionOptions,
  type TrustedAuthorizationServer,
} from "./access_tokens.ts";
export {
  AuthorizationUnavailable,
  BearerChallenge,
  bearerChallengeHeader,
  type BearerChallengeOptions,
  type BearerChallengeParams,
  type BearerErrorCode,
  canonicalResource,
  checkIssuer,
  PROTECTED_RESOURCE_WELL_KNOWN,
  protectedResourceMetadata,
  protectedResourceMetadataUrl,
  type ProtectedResourceOptions,
} from "./oauth_resource.ts";
export {
  type ClaimMapping,
  principalFromClaims,
  type PrincipalFromClaimsOptions,
  type PrincipalRecord,
} from "./token_principal.ts";
export {
  type Authenticate,
  bearerToken,
  bearerTokens,
  type HttpRequestInfo,
  type TokenPrincipal,
  tokenSha256,
} from "./bearer_tokens.ts";
export {
  type AssertionAlgorithm,
  type AuthorizationResponse,
  type AuthorizeOptions,
  OAuthClient,
  type OAuthClientOptions,
  parseAuthorizationResponse,
  type PreRegisteredClient,
  type TokenEndpointAuthMethod,
} from "../../oauth/oauth_client.ts";
export { OAuthError, type OAuthErrorOptions, type OAuthFailure } from "../../oauth/oauth_error.ts";
export {
  type ClientRegistration,
  InMemoryTokenStore,
  type StoredTokens,
  type TokenStore,
} from "../../oauth/oauth_token_store.ts";
