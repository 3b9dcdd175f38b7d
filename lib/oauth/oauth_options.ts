/**
 * The shapes an {@linkcode OAuthClient} is configured with and answers in: its options, a
 * pre-registered client and how it authenticates, and the authorization response. Apart from
 * `oauth_client.ts` so that the client's private parts can name them without importing the client.
 *
 * @module
 */
import type { TokenStore } from "./oauth_token_store.ts";

/**
 * What the authorization server sent back to the redirect URI: the query parameters of the
 * callback (see {@linkcode parseAuthorizationResponse}).
 */
export interface AuthorizationResponse {
  /** The authorization code. */
  code?: string;
  /** The `state` the request carried. */
  state?: string;
  /** The issuer (RFC 9207), when the server sends it. */
  iss?: string;
  /** The OAuth error code, e.g. `access_denied`. */
  error?: string;
  /** The error's description. */
  errorDescription?: string;
}

/** The algorithms a `private_key_jwt` client assertion is signed with. */
export type AssertionAlgorithm = "ES256" | "RS256";

/** How a client authenticates at the token endpoint (RFC 8414 / RFC 7591 names). */
export type TokenEndpointAuthMethod =
  | "none"
  | "client_secret_basic"
  | "client_secret_post"
  | "private_key_jwt";

/** A client registered with an authorization server beforehand (pre-registration). */
export interface PreRegisteredClient {
  /** The client id. */
  clientId: string;
  /** The client secret, for a confidential client. */
  clientSecret?: string;
  /**
   * The private key for `private_key_jwt` client authentication (RFC 7523): a PKCS#8 PEM string
   * or a Web Crypto signing key.
   */
  privateKey?: string | CryptoKey;
  /** The private key's algorithm. Default `ES256`. */
  privateKeyAlgorithm?: AssertionAlgorithm;
  /** The private key's `kid`, put in the assertion's header. */
  keyId?: string;
  /**
   * How the client authenticates at the token endpoint. Default: `private_key_jwt` with a key,
   * else with a secret `client_secret_basic` (or `client_secret_post` when the server offers only
   * that), else `none`.
   */
  tokenEndpointAuthMethod?: TokenEndpointAuthMethod;
  /**
   * The issuer of the authorization server this client is registered with. When set, the client
   * is used with that server only: another one named by the resource metadata is an error.
   */
  issuer?: string;
}

/** Options for an {@linkcode OAuthClient}. */
export interface OAuthClientOptions {
  /**
   * The grant: `authorization_code` (a user authorizes, in a browser; the default) or
   * `client_credentials` (the client acts on its own behalf, e.g. a gateway reaching protected
   * upstreams; needs `client`).
   */
  grant?: "authorization_code" | "client_credentials";
  /**
   * Where the authorization server sends the user agent back: a loopback `http` URL
   * (`http://127.0.0.1:PORT/callback`) or an `https` one. Needed for `authorization_code`.
   */
  redirectUri?: string;
  /**
   * The user-agent step: open `url` in the user's browser, wait for the redirect to
   * `redirectUri`, and answer with its parameters (see {@linkcode parseAuthorizationResponse}).
   * Needed for `authorization_code`.
   */
  redirectToAuthorization?: (url: URL) => Promise<AuthorizationResponse>;
  /** A pre-registered client: used before any other way of getting a client id. */
  client?: PreRegisteredClient;
  /**
   * The `https` URL of this client's Client ID Metadata Document, used as its client id with
   * authorization servers that support them (`client_id_metadata_document_supported`).
   */
  clientMetadataUrl?: string;
  /** The `client_name` for Dynamic Client Registration. Default `tool-estate`. */
  clientName?: string;
  /** Further client metadata for Dynamic Client Registration (RFC 7591 §2 names). */
  clientMetadata?: Record<string, unknown>;
  /**
   * The scopes to ask for when neither the challenge nor the resource metadata names any,
   * space-separated (e.g. for `client_credentials`). Default none (the `scope` is omitted).
   */
  scope?: string;
  /**
   * Ask for `offline_access` (a refresh token) when the authorization server lists it in
   * `scopes_supported` (authorization code grant only). Default true.
   */
  offlineAccess?: boolean;
  /** Where tokens and registrations are kept. Default an {@linkcode InMemoryTokenStore}. */
  store?: TokenStore;
  /** The `fetch` for the authorization server. Default the global one. */
  fetch?: typeof fetch;
  /**
   * How many times the same scopes are asked for again after a 403 `insufficient_scope` before
   * giving up (per endpoint). Default 2.
   */
  maxStepUps?: number;
  /** How long a metadata, registration or token request may take, in milliseconds. Default 30 s. */
  timeoutMs?: number;
  /**
   * Allow plain `http` to authorization servers that are not on a loopback address. Default
   * false: the specification requires https (loopback http is allowed for local tests).
   */
  allowHttp?: boolean;
  /** The clock, in milliseconds (for tests). Default `Date.now`. */
  now?: () => number;
}
