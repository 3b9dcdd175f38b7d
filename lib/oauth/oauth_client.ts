/**
 * The OAuth 2.1 client the MCP authorization specification describes (revisions 2025-06-18,
 * 2025-11-25 and 2026-07-28, with the 2025-03-26 fallback), as an {@linkcode HttpAuthorizer} for
 * the Streamable HTTP client transport: {@linkcode OAuthClient}.
 *
 * On a 401 it reads the `WWW-Authenticate` challenge, finds the Protected Resource Metadata
 * (RFC 9728: the challenge's `resource_metadata`, else the well-known URIs), checks that it names
 * this MCP server, picks an authorization server, reads its metadata (RFC 8414, OpenID Connect
 * Discovery; the issuer must be the one named), gets a client id (pre-registered, a Client ID
 * Metadata Document, or Dynamic Client Registration, in that order), and obtains a token: the
 * authorization code grant with PKCE (S256), `state` and the `resource` indicator (RFC 8707), the
 * user-agent step being the host's `redirectToAuthorization`; or, for a machine client, the
 * `client_credentials` grant. It refreshes tokens when they expire or are refused, and on a 403
 * `insufficient_scope` asks again for the union of the scopes held and challenged (a bounded
 * number of times). Tokens live in a {@linkcode TokenStore}; none is ever logged or put in an
 * error message.
 *
 * @module
 */
import type { HttpAuthorizer, HttpChallenge } from "./authorizer.ts";
import { type BearerChallenge, bearerChallenge } from "./_oauth_challenge.ts";
import { randomToken, s256 } from "./_oauth_crypto.ts";
import { canonicalResource, secureEnough } from "./_oauth_discovery.ts";
import { type Discovered, MetadataFinder } from "./_oauth_metadata.ts";
import { ClientRegistrar } from "./_oauth_registration.ts";
import { redact, requestToken, type TokenResponse } from "./_oauth_token.ts";
import { OAuthError } from "./oauth_error.ts";
import { InMemoryTokenStore, type StoredTokens, type TokenStore } from "./oauth_token_store.ts";

export type {
  AssertionAlgorithm,
  AuthorizationResponse,
  OAuthClientOptions,
  PreRegisteredClient,
  TokenEndpointAuthMethod,
} from "./oauth_options.ts";
import type { AuthorizationResponse, OAuthClientOptions } from "./oauth_options.ts";

/**
 * Reads the authorization response from the URL the user agent was redirected to.
 *
 * @param callback The redirect URI with the server's query parameters.
 * @returns The code, state, issuer, or error.
 *
 * @example
 * ```ts
 * import { parseAuthorizationResponse } from "@tool-estate/core/http";
 * import assert from "node:assert/strict";
 * const r = parseAuthorizationResponse("http://127.0.0.1:8976/callback?code=abc&state=xyz");
 * assert.deepEqual(r, { code: "abc", state: "xyz" });
 * ```
 */
export function parseAuthorizationResponse(
  callback: string | URL,
): AuthorizationResponse {
  const q = new URL(String(callback)).searchParams;
  const out: AuthorizationResponse = {};
  const take = (k: keyof AuthorizationResponse, name: string): void => {
    const v = q.get(name);
    if (v !== null) out[k] = v;
  };
  take("code", "code");
  take("state", "state");
  take("iss", "iss");
  take("error", "error");
  take("errorDescription", "error_description");
  return out;
}

/** Options for {@linkcode OAuthClient.authorize}. */
export interface AuthorizeOptions {
  /** The `fetch` to probe the endpoint with (e.g. the transport's). Default the client's. */
  fetch?: typeof fetch;
}

const DEFAULT_TIMEOUT_MS = 30_000;

function scopeSet(...scopes: (string | undefined)[]): string[] {
  const out = new Set<string>();
  for (const s of scopes) {
    for (const x of (s ?? "").split(/\s+/)) if (x !== "") out.add(x);
  }
  return [...out].sort();
}

/**
 * An OAuth 2.1 client for MCP servers over HTTP: give it to a
 * {@linkcode StreamableHttpClientTransport} as `auth`, and a protected server's 401 starts the
 * flow the MCP authorization specification describes; the request is sent again with the token.
 * One `OAuthClient` serves any number of endpoints (tokens are kept per endpoint, registrations
 * per authorization server).
 *
 * @example
 * ```ts
 * import { OAuthClient, parseAuthorizationResponse, StreamableHttpClientTransport } from "@tool-estate/core/http";
 * import assert from "node:assert/strict";
 *
 * const oauth = new OAuthClient({
 *   redirectUri: "http://127.0.0.1:8976/callback",
 *   // A real host opens `url` in a browser and waits for the redirect to 127.0.0.1:8976.
 *   redirectToAuthorization: (url) => Promise.resolve(parseAuthorizationResponse(url)),
 * });
 * const transport = new StreamableHttpClientTransport("http://127.0.0.1:1/mcp", { auth: oauth });
 * assert.equal(await oauth.authorization("http://127.0.0.1:1/mcp"), undefined); // no token yet
 * await transport.close();
 * ```
 */
export class OAuthClient implements HttpAuthorizer {
  readonly #options: OAuthClientOptions;
  readonly #store: TokenStore;
  readonly #fetch: typeof fetch;
  readonly #now: () => number;
  readonly #timeoutMs: number;
  readonly #metadata: MetadataFinder;
  readonly #registrar: ClientRegistrar;
  /** Per endpoint: the scopes last asked for. */
  readonly #requested = new Map<string, string[]>();
  /** Per endpoint and scope set: how many step-ups were tried. */
  readonly #stepUps = new Map<string, number>();
  /** Per endpoint: the tail of the queue of challenges (one handled at a time). */
  readonly #queues = new Map<string, Promise<unknown>>();

  /**
   * Makes the client (nothing is fetched yet).
   *
   * @param options The grant, redirect and user-agent step, client registration, store.
   * @throws {OAuthError} `configuration` when the options cannot work together.
   */
  constructor(options: OAuthClientOptions = {}) {
    this.#options = options;
    this.#store = options.store ?? new InMemoryTokenStore();
    this.#fetch = options.fetch ?? ((input, init) => fetch(input, init));
    this.#now = options.now ?? Date.now;
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.#metadata = new MetadataFinder({
      fetch: this.#fetch,
      timeoutMs: this.#timeoutMs,
      allowHttp: options.allowHttp ?? false,
    });
    this.#registrar = new ClientRegistrar({
      options,
      store: this.#store,
      fetch: this.#fetch,
      timeoutMs: this.#timeoutMs,
      now: this.#now,
    });
    const grant = options.grant ?? "authorization_code";
    if (grant === "client_credentials") {
      const c = options.client;
      if (!c || (c.clientSecret === undefined && c.privateKey === undefined)) {
        throw new OAuthError(
          "configuration",
          "OAuthClient: the client_credentials grant needs a pre-registered client with a clientSecret or a privateKey (options.client)",
        );
      }
    } else {
      if (
        options.redirectUri === undefined ||
        options.redirectToAuthorization === undefined
      ) {
        throw new OAuthError(
          "configuration",
          'OAuthClient: the authorization_code grant needs redirectUri and redirectToAuthorization (or use grant: "client_credentials" with a pre-registered client)',
        );
      }
      if (!secureEnough(options.redirectUri, false)) {
        throw new OAuthError(
          "configuration",
          `OAuthClient: redirectUri ${options.redirectUri} must be https or http on a loopback address`,
        );
      }
    }
    if (options.clientMetadataUrl !== undefined) {
      const u = URL.canParse(options.clientMetadataUrl)
        ? new URL(options.clientMetadataUrl)
        : undefined;
      if (
        !u || u.protocol !== "https:" || u.pathname === "/" || u.hash !== ""
      ) {
        throw new OAuthError(
          "configuration",
          `OAuthClient: clientMetadataUrl ${options.clientMetadataUrl} must be an https URL with a path (it is the client id)`,
        );
      }
    }
  }

  /**
   * The `Authorization` header for a request to an endpoint: the token held for it, refreshed
   * first when it expired and a refresh token is held.
   *
   * @param url The MCP endpoint.
   * @returns `Bearer <token>`, or undefined when no usable token is held.
   */
  async authorization(url: string): Promise<string | undefined> {
    const endpoint = canonicalResource(url);
    let tokens = await this.#store.getTokens(endpoint);
    if (tokens && this.#expired(tokens)) {
      tokens = await this.#serially(endpoint, async () => {
        const now = await this.#store.getTokens(endpoint);
        if (!now || !this.#expired(now)) return now;
        return now.refreshToken
          ? await this.#refresh(endpoint, now).catch(() => undefined)
          : undefined;
      });
    }
    return tokens && !this.#expired(tokens) ? `Bearer ${tokens.accessToken}` : undefined;
  }

  /**
   * Handles a 401 (and a 403 `insufficient_scope`): a token another request obtained meanwhile
   * is used; else a refresh; else the whole flow (discovery, registration, authorization, token).
   * Challenges for one endpoint are handled one at a time.
   *
   * @param challenge The refused request and its `WWW-Authenticate`.
   * @returns True when a token was obtained (send the request again); false for a 403 that is
   *   not about scopes.
   * @throws {OAuthError} When the flow fails; the message holds no secret.
   */
  async challenged(challenge: HttpChallenge): Promise<boolean> {
    if (challenge.status !== 401 && challenge.status !== 403) return false;
    const bearer = bearerChallenge(challenge.wwwAuthenticate);
    if (challenge.status === 403 && bearer.error !== "insufficient_scope") {
      return false;
    }
    const endpoint = canonicalResource(challenge.url);
    return await this.#serially(endpoint, async () => {
      const current = await this.#store.getTokens(endpoint);
      const fresh = current && !this.#expired(current)
        ? `Bearer ${current.accessToken}`
        : undefined;
      if (fresh !== undefined && fresh !== challenge.authorization) {
        return true; // another request obtained a token meanwhile
      }
      if (challenge.status === 401) {
        if (
          current?.refreshToken &&
          await this.#refresh(endpoint, current).catch(() => undefined)
        ) {
          return true;
        }
        const scope = current
          ? scopeSet(current.scope, bearer.scope).join(" ") || undefined
          : bearer.scope;
        await this.#obtain(endpoint, challenge, bearer, scope);
        return true;
      }
      // 403 insufficient_scope: the union of what was asked for and what is challenged.
      const union = scopeSet(
        ...(this.#requested.get(endpoint) ?? []),
        current?.scope,
        bearer.scope,
      );
      const key = `${endpoint} ${union.join(" ")}`;
      const tries = this.#stepUps.get(key) ?? 0;
      const max = this.#options.maxStepUps ?? 2;
      if (tries >= max) {
        throw new OAuthError(
          "insufficient_scope",
          `${endpoint} still answers 403 insufficient_scope after ${tries} re-authorization${
            tries === 1 ? "" : "s"
          } for scope "${union.join(" ")}"${
            bearer.errorDescription ? ` (${redact(bearer.errorDescription, [])})` : ""
          }; giving up`,
        );
      }
      this.#stepUps.set(key, tries + 1);
      await this.#obtain(
        endpoint,
        challenge,
        bearer,
        union.join(" ") || undefined,
      );
      return true;
    });
  }

  /**
   * Makes sure a token for an endpoint is held before any MCP traffic (so that a slow,
   * interactive authorization does not count against a request's timeout): probes the endpoint
   * with a GET and, when it answers 401, runs the flow.
   *
   * @param url The MCP endpoint.
   * @param options The `fetch` to probe with.
   * @returns True when a token is held afterwards.
   * @throws {OAuthError} When the flow fails.
   */
  async authorize(
    url: string | URL,
    options: AuthorizeOptions = {},
  ): Promise<boolean> {
    const endpoint = String(url);
    const f = options.fetch ?? this.#fetch;
    const authorization = await this.authorization(endpoint);
    const res = await f(endpoint, {
      method: "GET",
      headers: {
        accept: "text/event-stream",
        ...(authorization ? { authorization } : {}),
      },
      signal: AbortSignal.timeout(this.#timeoutMs),
    });
    await res.body?.cancel().catch(() => {});
    if (res.status === 401 || res.status === 403) {
      await this.challenged({
        url: endpoint,
        method: "GET",
        status: res.status,
        wwwAuthenticate: res.headers.get("www-authenticate"),
        authorization,
        fetch: f,
      });
    }
    return (await this.authorization(endpoint)) !== undefined;
  }

  /**
   * Forgets the tokens held for an endpoint (e.g. at sign-out). Registrations are kept.
   *
   * @param url The MCP endpoint.
   */
  async forget(url: string | URL): Promise<void> {
    const endpoint = canonicalResource(url);
    this.#requested.delete(endpoint);
    await this.#store.setTokens(endpoint, undefined);
  }

  /** Runs `task` after the endpoint's earlier challenges. */
  #serially<T>(endpoint: string, task: () => Promise<T>): Promise<T> {
    const before = this.#queues.get(endpoint) ?? Promise.resolve();
    const run = before.then(task, task);
    const tail = run.catch(() => {});
    this.#queues.set(endpoint, tail);
    tail.then(() => {
      if (this.#queues.get(endpoint) === tail) this.#queues.delete(endpoint);
    });
    return run;
  }

  #expired(tokens: StoredTokens): boolean {
    return tokens.expiresAt !== undefined && tokens.expiresAt <= this.#now();
  }

  /** Discovery, registration and a grant; the tokens are stored for the endpoint. */
  async #obtain(
    endpoint: string,
    challenge: HttpChallenge,
    bearer: BearerChallenge,
    scope: string | undefined,
  ): Promise<void> {
    const found = await this.#metadata.forEndpoint(
      endpoint,
      challenge.fetch,
      bearer,
      this.#options.client?.issuer,
    );
    const asked = scope ?? found.scopesSupported?.join(" ") ??
      this.#options.scope;
    const tokens = (this.#options.grant ?? "authorization_code") === "client_credentials"
      ? await this.#clientCredentials(found, asked)
      : await this.#authorizationCode(found, asked).catch(async (e) => {
        // A client registered before with fewer scopes (held to them by the server): registered
        // anew, with what the resource offers and what is asked now, and authorized once more.
        if (
          e instanceof OAuthError && e.oauthError === "invalid_scope" &&
          await this.#registrar.forgetRegistered(found.server)
        ) return await this.#authorizationCode(found, asked);
        throw e;
      });
    this.#requested.set(endpoint, scopeSet(asked));
    await this.#store.setTokens(endpoint, tokens);
  }

  /** The authorization code grant with PKCE; the user-agent step is the host's. */
  async #authorizationCode(
    found: Discovered,
    scope: string | undefined,
  ): Promise<StoredTokens> {
    const { server } = found;
    if (!server.legacy || server.codeChallengeMethods !== undefined) {
      if (!server.codeChallengeMethods?.includes("S256")) {
        throw new OAuthError(
          "pkce_unsupported",
          `the authorization server ${server.issuer} does not advertise PKCE with S256 (code_challenge_methods_supported${
            server.codeChallengeMethods
              ? ` is ${JSON.stringify(server.codeChallengeMethods)}`
              : " is absent"
          }); refusing to authorize`,
        );
      }
    }
    if (server.authorizationEndpoint === undefined) {
      throw new OAuthError(
        "discovery",
        `the authorization server ${server.issuer} has no authorization_endpoint`,
      );
    }
    let asked = scope;
    if (
      (this.#options.offlineAccess ?? true) &&
      server.scopesSupported?.includes("offline_access") &&
      !scopeSet(asked).includes("offline_access")
    ) {
      asked = scopeSet(asked, "offline_access").join(" ");
    }
    // Registered for every scope the resource offers, so that a step-up later is one it may grant.
    const client = await this.#registrar.clientFor(server, false, [
      ...new Set([...(found.scopesSupported ?? []), ...scopeSet(asked)]),
    ]);
    const verifier = randomToken(32);
    const state = randomToken(16);
    const url = new URL(server.authorizationEndpoint);
    const q = url.searchParams;
    q.set("response_type", "code");
    q.set("client_id", client.clientId);
    q.set("redirect_uri", this.#options.redirectUri!);
    q.set("code_challenge", await s256(verifier));
    q.set("code_challenge_method", "S256");
    q.set("state", state);
    if (asked !== undefined && asked !== "") q.set("scope", asked);
    q.set("resource", found.resource);

    let response: AuthorizationResponse;
    try {
      response = await this.#options.redirectToAuthorization!(url);
    } catch (e) {
      throw new OAuthError(
        "authorization",
        `the authorization step with ${server.issuer} failed: ${
          redact(e instanceof Error ? e.message : String(e), [verifier])
        }`,
        { cause: e },
      );
    }
    // RFC 9207 §2.4 (MCP 2026-07-28 "Authorization Response Validation"), before anything else.
    if (
      response.iss !== undefined ? response.iss !== server.issuer : server.issParameterSupported
    ) {
      throw new OAuthError(
        "issuer_mismatch",
        response.iss === undefined
          ? `the authorization response has no iss, though ${server.issuer} advertises it; discarded`
          : `the authorization response is from issuer ${
            JSON.stringify(response.iss.slice(0, 200))
          }, not ${server.issuer}; discarded`,
      );
    }
    if (response.state !== state) {
      throw new OAuthError(
        "state_mismatch",
        `the authorization response's state is not the one this client sent to ${server.issuer}; discarded`,
      );
    }
    if (response.error !== undefined) {
      const description = response.errorDescription
        ? ` (${redact(response.errorDescription, [response.code])})`
        : "";
      throw new OAuthError(
        "authorization",
        `${server.issuer} refused authorization: ${
          redact(response.error, [response.code])
        }${description}`,
        { oauthError: response.error },
      );
    }
    if (response.code === undefined || response.code === "") {
      throw new OAuthError(
        "authorization",
        `the authorization response from ${server.issuer} has no code`,
      );
    }
    const token = await requestToken({
      fetch: this.#fetch,
      timeoutMs: this.#timeoutMs,
      server,
      client,
      params: {
        grant_type: "authorization_code",
        code: response.code,
        redirect_uri: this.#options.redirectUri!,
        code_verifier: verifier,
        resource: found.resource,
      },
      now: this.#now(),
      secrets: [response.code, verifier],
    });
    return this.#stored(token, found, asked);
  }

  /** The client credentials grant (RFC 6749 §4.4). */
  async #clientCredentials(
    found: Discovered,
    scope: string | undefined,
  ): Promise<StoredTokens> {
    const client = await this.#registrar.clientFor(found.server);
    const token = await requestToken({
      fetch: this.#fetch,
      timeoutMs: this.#timeoutMs,
      server: found.server,
      client,
      params: {
        grant_type: "client_credentials",
        scope,
        resource: found.resource,
      },
      now: this.#now(),
      secrets: [],
    });
    return this.#stored(token, found, scope);
  }

  /**
   * Exchanges the refresh token for new tokens (kept for the endpoint). An `invalid_grant`
   * forgets the tokens.
   *
   * @returns The new tokens.
   * @throws {OAuthError} When refreshing failed.
   */
  async #refresh(
    endpoint: string,
    tokens: StoredTokens,
  ): Promise<StoredTokens> {
    if (tokens.issuer === undefined) {
      throw new OAuthError(
        "token",
        `the tokens for ${endpoint} name no issuer to refresh with`,
      );
    }
    const server = this.#metadata.known(tokens.issuer) ??
      await this.#metadata.server(tokens.issuer);
    const client = await this.#registrar.clientFor(server, true);
    const resource = tokens.resource ?? endpoint;
    let token: TokenResponse;
    try {
      token = await requestToken({
        fetch: this.#fetch,
        timeoutMs: this.#timeoutMs,
        server,
        client,
        params: {
          grant_type: "refresh_token",
          refresh_token: tokens.refreshToken,
          resource,
        },
        now: this.#now(),
        secrets: [tokens.refreshToken, tokens.accessToken],
      });
    } catch (e) {
      if (e instanceof OAuthError && e.oauthError === "invalid_grant") {
        await this.#store.setTokens(endpoint, undefined);
      }
      throw e;
    }
    const next = this.#stored(
      { ...token, refreshToken: token.refreshToken ?? tokens.refreshToken },
      { resource, server },
      tokens.scope,
    );
    await this.#store.setTokens(endpoint, next);
    return next;
  }

  #stored(
    token: TokenResponse,
    found: Discovered,
    asked: string | undefined,
  ): StoredTokens {
    const out: StoredTokens = {
      accessToken: token.accessToken,
      issuer: found.server.issuer,
      resource: found.resource,
    };
    if (token.refreshToken !== undefined) out.refreshToken = token.refreshToken;
    if (token.expiresIn !== undefined) {
      out.expiresAt = this.#now() + token.expiresIn * 1000;
    }
    const scope = token.scope ?? asked;
    if (scope !== undefined && scope !== "") out.scope = scope;
    return out;
  }
}
