/**
 * Where the OAuth client keeps what it obtained: access and refresh tokens per MCP endpoint, and
 * client registrations per authorization server (its `issuer`). {@linkcode TokenStore} is the
 * interface a host implements to keep them elsewhere (a keychain, an encrypted file);
 * {@linkcode InMemoryTokenStore} is the default, gone with the process.
 *
 * A store holds secrets: it must not log what it holds, and should keep it encrypted at rest.
 *
 * @module
 */

/** The tokens held for one MCP endpoint. */
export interface StoredTokens {
  /** The access token, sent as `Authorization: Bearer <accessToken>`. */
  accessToken: string;
  /** The refresh token, when the authorization server issued one. */
  refreshToken?: string;
  /** When the access token expires, in milliseconds since the epoch, when known. */
  expiresAt?: number;
  /** The scopes granted (or requested, when the server did not say), space-separated. */
  scope?: string;
  /** The issuer of the authorization server that issued them. */
  issuer?: string;
  /** The resource (RFC 8707) they were issued for. */
  resource?: string;
}

/** A client registration with one authorization server. */
export interface ClientRegistration {
  /** The client id. */
  clientId: string;
  /** The client secret, for a confidential client. */
  clientSecret?: string;
  /** How the client authenticates at the token endpoint, e.g. `none`, `client_secret_basic`. */
  tokenEndpointAuthMethod?: string;
  /** When the client secret expires, in milliseconds since the epoch (absent: never). */
  clientSecretExpiresAt?: number;
}

/**
 * Keeps the OAuth client's tokens (per MCP endpoint, its canonical URL) and registrations (per
 * authorization server issuer). Methods may answer at once or with a promise.
 */
export interface TokenStore {
  /**
   * The tokens held for an endpoint.
   *
   * @param endpoint The MCP endpoint's canonical URL.
   * @returns The tokens, or undefined.
   */
  getTokens(
    endpoint: string,
  ): StoredTokens | undefined | Promise<StoredTokens | undefined>;
  /**
   * Keeps (or, with undefined, forgets) the tokens for an endpoint.
   *
   * @param endpoint The MCP endpoint's canonical URL.
   * @param tokens The tokens, or undefined to forget them.
   */
  setTokens(
    endpoint: string,
    tokens: StoredTokens | undefined,
  ): void | Promise<void>;
  /**
   * The registration held with an authorization server.
   *
   * @param issuer The authorization server's issuer.
   * @returns The registration, or undefined.
   */
  getClient(
    issuer: string,
  ): ClientRegistration | undefined | Promise<ClientRegistration | undefined>;
  /**
   * Keeps (or, with undefined, forgets) the registration with an authorization server.
   *
   * @param issuer The authorization server's issuer.
   * @param client The registration, or undefined to forget it.
   */
  setClient(
    issuer: string,
    client: ClientRegistration | undefined,
  ): void | Promise<void>;
}

/**
 * A {@linkcode TokenStore} in memory: the default, gone with the process. Its contents are in
 * private fields, so inspecting or serializing the store shows nothing.
 *
 * @example
 * ```ts
 * import { InMemoryTokenStore } from "@tool-estate/core/http";
 * import assert from "node:assert/strict";
 * const store = new InMemoryTokenStore();
 * store.setTokens("https://mcp.example/mcp", { accessToken: "t" });
 * assert.equal(store.getTokens("https://mcp.example/mcp")?.accessToken, "t");
 * assert.equal(JSON.stringify(store), "{}");
 * ```
 */
export class InMemoryTokenStore implements TokenStore {
  readonly #tokens = new Map<string, StoredTokens>();
  readonly #clients = new Map<string, ClientRegistration>();

  /**
   * The tokens held for an endpoint.
   *
   * @param endpoint The MCP endpoint's canonical URL.
   * @returns A copy of the tokens, or undefined.
   */
  getTokens(endpoint: string): StoredTokens | undefined {
    const t = this.#tokens.get(endpoint);
    return t && { ...t };
  }

  /**
   * Keeps (or forgets) the tokens for an endpoint.
   *
   * @param endpoint The MCP endpoint's canonical URL.
   * @param tokens The tokens, or undefined to forget them.
   */
  setTokens(endpoint: string, tokens: StoredTokens | undefined): void {
    if (tokens === undefined) this.#tokens.delete(endpoint);
    else this.#tokens.set(endpoint, { ...tokens });
  }

  /**
   * The registration held with an authorization server.
   *
   * @param issuer The issuer.
   * @returns A copy of the registration, or undefined.
   */
  getClient(issuer: string): ClientRegistration | undefined {
    const c = this.#clients.get(issuer);
    return c && { ...c };
  }

  /**
   * Keeps (or forgets) the registration with an authorization server.
   *
   * @param issuer The issuer.
   * @param client The registration, or undefined to forget it.
   */
  setClient(issuer: string, client: ClientRegistration | undefined): void {
    if (client === undefined) this.#clients.delete(issuer);
    else this.#clients.set(issuer, { ...client });
  }
}
