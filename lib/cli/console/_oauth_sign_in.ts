/**
 * Signing in to the console with OAuth (`estate serve --auth oidc`): the authorization code flow
 * with PKCE, run by the library's own MCP OAuth client against the server's own endpoint — the
 * Protected Resource Metadata names the authorization server, the client registers itself there
 * (dynamic registration, once per redirect URI) unless one is configured, and the token it gets is
 * for this resource, so the endpoint's authenticator judges it like any agent's. The flow spans two
 * browser requests: `start` answers with the authorization server's URL, `callback` hands the
 * authorization response to the waiting client and gets the token. A sign-in is bound to the
 * browser that started it (a Lax cookie holding its `state`) and lapses after ten minutes.
 *
 * @module
 */
import {
  type AuthorizationResponse,
  type ClientRegistration,
  OAuthClient,
  type PreRegisteredClient,
  type StoredTokens,
  type TokenStore,
} from "../../mcp/transports/http_mod.ts";

/** How the console signs people in with OAuth. */
export interface OAuthSignIn {
  /** Allow http authorization servers and endpoints (loopback tests, a lab). Default false. */
  allowHttp?: boolean;
  /**
   * The scopes to ask for when the endpoint's 401 and metadata name none, space-separated (a
   * person is otherwise asked for what the endpoint asks agents for: `scopes_supported`).
   */
  scope?: string;
  /** A client registered with the authorization server (else dynamic registration). */
  client?: PreRegisteredClient;
}

interface Attempt {
  answer?: (response: AuthorizationResponse) => void;
  token: Promise<string | undefined>;
  expires: number;
}

const ATTEMPT_MS = 10 * 60_000;

/** Sign-ins in flight, and the registrations made per redirect URI. */
export class OAuthSignIns {
  readonly #options: OAuthSignIn;
  readonly #attempts = new Map<string, Attempt>();
  readonly #registrations = new Map<string, Map<string, ClientRegistration>>();

  /**
   * @param options The flow's settings.
   */
  constructor(options: OAuthSignIn) {
    this.#options = options;
  }

  /**
   * Starts a sign-in: the URL to send the browser to, with its `state`.
   *
   * @param endpoint The MCP endpoint's URL as the browser reaches this server.
   * @param redirectUri The console's callback URL.
   * @returns Where to go and the state, or why the flow could not start.
   */
  async start(
    endpoint: string,
    redirectUri: string,
  ): Promise<{ url: URL; state: string } | { error: string }> {
    this.#sweep();
    const registrations = this.#registrations.get(redirectUri) ??
      this.#registrations.set(redirectUri, new Map()).get(redirectUri)!;
    const tokens = new Map<string, StoredTokens>();
    const store: TokenStore = {
      getTokens: (e) => tokens.get(e),
      setTokens: (e, t) => void (t ? tokens.set(e, t) : tokens.delete(e)),
      getClient: (issuer) => registrations.get(issuer),
      setClient: (issuer, c) =>
        void (c ? registrations.set(issuer, c) : registrations.delete(issuer)),
    };
    let redirected!: (url: URL) => void;
    const toAuthorize = new Promise<URL>((resolve) => redirected = resolve);
    const attempt: Attempt = {
      token: Promise.resolve(undefined),
      expires: Date.now() + ATTEMPT_MS,
    };
    const client = new OAuthClient({
      redirectUri,
      clientName: "tool-estate console",
      store,
      allowHttp: this.#options.allowHttp ?? false,
      // The cookie holds an access token; a refresh token would have nowhere safe to live.
      offlineAccess: false,
      ...(this.#options.scope ? { scope: this.#options.scope } : {}),
      ...(this.#options.client ? { client: this.#options.client } : {}),
      redirectToAuthorization: (url) => {
        const state = url.searchParams.get("state") ?? "";
        this.#attempts.set(state, attempt);
        redirected(url);
        return new Promise<AuthorizationResponse>((resolve) => attempt.answer = resolve);
      },
    });
    attempt.token = client.authorize(endpoint).then(
      () => [...tokens.values()][0]?.accessToken,
    );
    const first = await Promise.race([
      toAuthorize,
      attempt.token.then(
        () => ({ error: "the endpoint did not ask for a token" }),
        (e: Error) => ({ error: e.message }),
      ),
    ]);
    if ("error" in first) return first;
    return { url: first, state: first.searchParams.get("state") ?? "" };
  }

  /**
   * Finishes a sign-in with the authorization server's answer.
   *
   * @param state The `state` the browser came back with (checked against its cookie by the caller).
   * @param response The authorization response.
   * @returns The access token, or why not.
   */
  async finish(
    state: string,
    response: AuthorizationResponse,
  ): Promise<{ token: string } | { error: string }> {
    this.#sweep();
    const attempt = this.#attempts.get(state);
    if (!attempt || !attempt.answer) {
      return { error: "this sign-in is unknown or has lapsed: start again" };
    }
    this.#attempts.delete(state);
    attempt.answer(response);
    try {
      const token = await attempt.token;
      return token ? { token } : { error: "the authorization server gave no token" };
    } catch (e) {
      return { error: (e as Error).message };
    }
  }

  #sweep(): void {
    const now = Date.now();
    for (const [state, a] of this.#attempts) {
      if (a.expires <= now) {
        this.#attempts.delete(state);
        a.answer?.({ error: "access_denied", errorDescription: "the sign-in lapsed" });
      }
    }
  }
}
