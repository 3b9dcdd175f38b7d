// Which client id the OAuth client uses with an authorization server, in the order the MCP
// authorization specification gives: a pre-registered client (bound to its issuer, when it names
// one), a Client ID Metadata Document, a registration held for that issuer, or a new Dynamic
// Client Registration (RFC 7591), kept per issuer.
import { importPrivateKey } from "./_oauth_crypto.ts";
import { type AuthorizationServer, registerClient, type TokenClient } from "./_oauth_token.ts";
import type {
  OAuthClientOptions,
  PreRegisteredClient,
  TokenEndpointAuthMethod,
} from "./oauth_options.ts";
import { OAuthError } from "./oauth_error.ts";
import type { ClientRegistration, TokenStore } from "./oauth_token_store.ts";

/** Gets client ids, and keeps dynamic registrations in the store. */
export class ClientRegistrar {
  readonly #options: OAuthClientOptions;
  readonly #store: TokenStore;
  readonly #fetch: typeof fetch;
  readonly #timeoutMs: number;
  readonly #now: () => number;
  #privateKey: Promise<CryptoKey> | undefined;

  constructor(parts: {
    options: OAuthClientOptions;
    store: TokenStore;
    fetch: typeof fetch;
    timeoutMs: number;
    now: () => number;
  }) {
    this.#options = parts.options;
    this.#store = parts.store;
    this.#fetch = parts.fetch;
    this.#timeoutMs = parts.timeoutMs;
    this.#now = parts.now;
  }

  /**
   * The client to use with a server: pre-registered, a metadata document, held, or new (not for a
   * refresh: the client that got the refresh token must redeem it). A new registration asks for
   * `scopes` (what the resource offers and what is asked now): an authorization server that holds
   * a client to its registered scopes (oidc-provider does) then grants a later step-up. One that
   * refuses the scope metadata gets the registration without it.
   *
   * @throws {OAuthError} `registration`, `configuration`.
   */
  async clientFor(
    server: AuthorizationServer,
    forRefresh = false,
    scopes: readonly string[] = [],
  ): Promise<TokenClient> {
    const pre = this.#options.client;
    if (pre) {
      if (pre.issuer !== undefined && pre.issuer !== server.issuer) {
        throw new OAuthError(
          "registration",
          `the pre-registered client ${pre.clientId} belongs to ${pre.issuer}, but the MCP server's authorization server is ${server.issuer}; register a client there`,
        );
      }
      return await this.#preRegistered(pre, server);
    }
    if (
      this.#options.clientMetadataUrl !== undefined &&
      server.clientIdMetadataDocumentSupported
    ) {
      return { clientId: this.#options.clientMetadataUrl, method: "none" };
    }
    const held = await this.#store.getClient(server.issuer);
    if (
      held &&
      (held.clientSecretExpiresAt === undefined ||
        held.clientSecretExpiresAt > this.#now())
    ) {
      return tokenClient(held, server);
    }
    if (forRefresh || server.registrationEndpoint === undefined) {
      throw new OAuthError(
        "registration",
        `no client id for ${server.issuer}: it offers no dynamic registration${
          this.#options.clientMetadataUrl === undefined
            ? " and this client has no clientMetadataUrl"
            : " nor Client ID Metadata Documents"
        }; configure a pre-registered client (options.client)`,
      );
    }
    const redirect = this.#options.redirectUri!;
    const host = new URL(redirect).hostname;
    const loopback = host === "localhost" || host === "[::1]" ||
      /^127\./.test(host);
    const metadata: Record<string, unknown> = {
      client_name: this.#options.clientName ?? "tool-estate",
      redirect_uris: [redirect],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
      application_type: loopback ? "native" : "web",
      ...(scopes.length ? { scope: scopes.join(" ") } : {}),
      ...this.#options.clientMetadata,
    };
    const register = (body: Record<string, unknown>) =>
      registerClient({
        fetch: this.#fetch,
        timeoutMs: this.#timeoutMs,
        endpoint: server.registrationEndpoint!,
        metadata: body,
      });
    let registered: ClientRegistration;
    try {
      registered = await register(metadata);
    } catch (e) {
      const ours = scopes.length > 0 && this.#options.clientMetadata?.scope === undefined;
      if (!(e instanceof OAuthError) || e.oauthError !== "invalid_client_metadata" || !ours) {
        throw e;
      }
      const { scope: _dropped, ...without } = metadata;
      registered = await register(without);
    }
    await this.#store.setClient(server.issuer, registered);
    return tokenClient(registered, server);
  }

  /**
   * Forgets the client registered dynamically with a server, so that the next `clientFor`
   * registers anew; false (nothing forgotten) for a pre-registered client or a metadata document.
   */
  async forgetRegistered(server: AuthorizationServer): Promise<boolean> {
    if (this.#options.client) return false;
    if (
      this.#options.clientMetadataUrl !== undefined && server.clientIdMetadataDocumentSupported
    ) return false;
    if (!(await this.#store.getClient(server.issuer))) return false;
    await this.#store.setClient(server.issuer, undefined);
    return true;
  }

  async #preRegistered(
    pre: PreRegisteredClient,
    server: AuthorizationServer,
  ): Promise<TokenClient> {
    const algorithm = pre.privateKeyAlgorithm ?? "ES256";
    let privateKey: CryptoKey | undefined;
    if (pre.privateKey !== undefined) {
      if (typeof pre.privateKey === "string") {
        this.#privateKey ??= importPrivateKey(pre.privateKey, algorithm).catch(
          (e) => {
            this.#privateKey = undefined;
            throw new OAuthError(
              "configuration",
              `the private key of client ${pre.clientId} is not a PKCS#8 ${algorithm} key`,
              { cause: e },
            );
          },
        );
        privateKey = await this.#privateKey;
      } else privateKey = pre.privateKey;
    }
    const method = pre.tokenEndpointAuthMethod ??
      (privateKey ? "private_key_jwt" : secretMethod(pre.clientSecret, server));
    return {
      clientId: pre.clientId,
      clientSecret: pre.clientSecret,
      method,
      privateKey,
      algorithm,
      keyId: pre.keyId,
    };
  }
}

/**
 * The token endpoint authentication for a client: with a secret, `client_secret_basic` (RFC 8414's
 * default) unless the server offers only `client_secret_post` or only `none`; without, `none`.
 */
function secretMethod(
  secret: string | undefined,
  server: AuthorizationServer,
): TokenEndpointAuthMethod {
  if (secret === undefined) return "none";
  const offered = server.tokenEndpointAuthMethods ?? ["client_secret_basic"];
  if (offered.includes("client_secret_basic")) return "client_secret_basic";
  if (offered.includes("client_secret_post")) return "client_secret_post";
  if (offered.includes("none")) return "none";
  return "client_secret_basic";
}

/** A registration's client at the token endpoint: the method the server registered, if usable. */
function tokenClient(
  reg: ClientRegistration,
  server: AuthorizationServer,
): TokenClient {
  const m = reg.tokenEndpointAuthMethod;
  const usable = m === "none" ||
    ((m === "client_secret_basic" || m === "client_secret_post") &&
      reg.clientSecret !== undefined);
  const method: TokenEndpointAuthMethod = usable ? m : secretMethod(reg.clientSecret, server);
  return { clientId: reg.clientId, clientSecret: reg.clientSecret, method };
}
