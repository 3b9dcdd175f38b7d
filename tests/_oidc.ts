/**
 * A real authorization server for the tests: `oidc-provider` (npm) on 127.0.0.1, with
 * authorization code + PKCE, dynamic client registration, client credentials, refresh tokens,
 * introspection, revocation, and resource indicators (RFC 8707) that give JWT access tokens for
 * the resources the tests name, or opaque ones for those they want introspected. Logins and
 * consents are automatic: the interaction page signs in whoever `nextLogin` names and grants what
 * was asked. `authorize()` is a small programmatic user agent for the authorization code flow; the
 * tests also hold the server's signing key, to forge tokens the server never issued.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Buffer } from "node:buffer";
import { Readable } from "node:stream";
import Provider from "oidc-provider";
import { exportJWK, generateKeyPair, type JWK, SignJWT } from "jose";

/** A key jose signs with. */
export type SigningKey = Parameters<SignJWT["sign"]>[0];

/** Every scope the test resources use. */
const SCOPES = [
  "payments:read",
  "payments:release",
  "risk:read",
  "risk:write",
  "fx:quote",
  "fx:trade",
  "policy:read",
];

/**
 * A registration request without its `scope`: the SDK v1 client registers with the first scopes
 * it asks for, which oidc-provider would hold it to, so no step-up could ever be granted. This
 * authorization server, like many, lets a registered client ask for any scope of a resource.
 */
async function withoutScope(req: IncomingMessage): Promise<IncomingMessage> {
  const chunks: Uint8Array[] = [];
  for await (const c of req) chunks.push(c as Uint8Array);
  const body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
  delete body.scope;
  const text = Buffer.from(JSON.stringify(body));
  const copy = Readable.from([text]) as unknown as IncomingMessage;
  return Object.assign(copy, {
    method: req.method,
    url: req.url,
    httpVersion: req.httpVersion,
    headers: { ...req.headers, "content-length": String(text.length) },
    socket: req.socket,
    connection: req.socket,
  });
}

/** A resource the authorization server issues tokens for. */
export interface TestResource {
  /** The resource identifier. */
  resource: string;
  /** The scopes it knows. */
  scopes: string[];
  /** `opaque` for tokens to introspect. Default `jwt`. */
  format?: "jwt" | "opaque";
  /** Access token lifetime, seconds. Default 300. */
  ttl?: number;
}

/** The running authorization server. */
export interface TestAuthorizationServer {
  /** Its issuer identifier (`http://127.0.0.1:PORT`). */
  readonly issuer: string;
  /** Its signing key (ES256), private part included, and its `kid`. */
  readonly key: { privateKey: SigningKey; publicJwk: JWK; kid: string };
  /** Issues tokens for one more resource from now on. */
  addResource(resource: TestResource): void;
  /** Who the next interactive login signs in as. */
  nextLogin: string;
  /** How many times the key set was fetched. */
  readonly jwksFetches: number;
  /** While true, the key set endpoint answers 503 (an issuer in trouble). */
  jwksDown: boolean;
  /** The resource server's own client, for introspection. */
  readonly introspectionClient: { clientId: string; clientSecret: string };
  /** A confidential client with the client-credentials grant. */
  readonly machineClient: { clientId: string; clientSecret: string };
  /**
   * A token from the client-credentials grant of `machineClient`.
   *
   * @param resource The resource.
   * @param scope Space-separated scopes.
   */
  clientCredentials(resource: string, scope: string): Promise<string>;
  /** Revokes a token (as the client it was issued to). */
  revoke(
    token: string,
    client: { clientId: string; clientSecret: string },
  ): Promise<void>;
  /**
   * Signs claims with the server's own key (or another), as a forger with the key would.
   *
   * @param claims The payload.
   * @param options Another key, another `alg`/`kid` header.
   */
  sign(
    claims: Record<string, unknown>,
    options?: { key?: SigningKey; kid?: string; alg?: string; typ?: string },
  ): Promise<string>;
  /** Stops it. */
  close(): Promise<void>;
}

/** Options for {@linkcode startAuthorizationServer}. */
export interface StartOptions {
  /** The resources it issues tokens for. */
  resources: TestResource[];
  /** Issue refresh tokens for the authorization code grant. Default false. */
  refreshTokens?: boolean;
}

/**
 * Starts the authorization server on 127.0.0.1 (a free port).
 *
 * @param options The resources.
 * @returns The running server.
 */
export async function startAuthorizationServer(
  options: StartOptions,
): Promise<TestAuthorizationServer> {
  const { privateKey, publicKey } = await generateKeyPair("ES256", {
    extractable: true,
  });
  const kid = "test-key-1";
  const privateJwk = {
    ...(await exportJWK(privateKey)),
    kid,
    alg: "ES256",
    use: "sig",
  };
  const publicJwk = {
    ...(await exportJWK(publicKey)),
    kid,
    alg: "ES256",
    use: "sig",
  };
  let handler: (req: IncomingMessage, res: ServerResponse) => void = (_q, r) => r.end();
  let jwksFetches = 0;
  let jwksDown = false;
  const http = createServer((req, res) => {
    if (req.url?.startsWith("/jwks")) jwksFetches++;
    if (req.url?.startsWith("/jwks") && jwksDown) {
      res.statusCode = 503;
      res.end("down");
      return;
    }
    if (req.method === "POST" && req.url === "/reg") {
      withoutScope(req).then((r) => handler(r, res), (e) => {
        res.statusCode = 400;
        res.end(String(e));
      });
      return;
    }
    if (req.url?.startsWith("/interaction/")) {
      interaction(req, res).catch((e) => {
        res.statusCode = 500;
        res.end(String(e));
      });
      return;
    }
    handler(req, res);
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const issuer = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  const byResource = new Map(options.resources.map((r) => [r.resource, r]));
  const introspectionClient = {
    clientId: "estate-rs",
    clientSecret: "rs-secret-0123456789",
  };
  const machineClient = {
    clientId: "payments-agent",
    clientSecret: "agent-secret-0123456789",
  };
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: introspectionClient.clientId,
        client_secret: introspectionClient.clientSecret,
        token_endpoint_auth_method: "client_secret_basic",
        grant_types: [],
        response_types: [],
        redirect_uris: [],
      },
      {
        client_id: machineClient.clientId,
        client_secret: machineClient.clientSecret,
        token_endpoint_auth_method: "client_secret_basic",
        grant_types: ["client_credentials"],
        response_types: [],
        redirect_uris: [],
      },
    ],
    jwks: { keys: [privateJwk] },
    scopes: ["openid", "offline_access", ...SCOPES],
    findAccount: (_ctx: unknown, id: string) => ({
      accountId: id,
      claims: () => ({ sub: id }),
    }),
    interactions: {
      url: (_ctx: unknown, i: { uid: string }) => `/interaction/${i.uid}`,
    },
    features: {
      devInteractions: { enabled: false },
      registration: { enabled: true },
      clientCredentials: { enabled: true },
      introspection: {
        enabled: true,
        // Only the resource server's own client may introspect.
        allowedPolicy: (_ctx: unknown, client: { clientId: string }) =>
          client.clientId === introspectionClient.clientId,
      },
      revocation: { enabled: true },
      resourceIndicators: {
        enabled: true,
        // A request naming no resource gets none: then the token is for the userinfo endpoint.
        defaultResource: (
          _ctx: unknown,
          _client: unknown,
          oneOf?: string | string[],
        ) => oneOf,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx: unknown, indicator: string) => {
          const r = byResource.get(indicator);
          if (!r) {
            throw new provider.errors.InvalidTarget(
              `unknown resource ${indicator}`,
            );
          }
          return {
            scope: r.scopes.join(" "),
            audience: r.resource,
            accessTokenTTL: r.ttl ?? 300,
            accessTokenFormat: r.format ?? "jwt",
            jwt: { sign: { alg: "ES256" } },
          };
        },
      },
    },
    pkce: { required: () => true },
    issueRefreshToken: (
      _ctx: unknown,
      client: { grantTypeAllowed(g: string): boolean },
    ) =>
      (options.refreshTokens ?? false) &&
      client.grantTypeAllowed("refresh_token"),
    clientDefaults: {
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
      id_token_signed_response_alg: "ES256",
    },
    ttl: {
      AccessToken: 300,
      ClientCredentials: 300,
      Grant: 3600,
      Interaction: 600,
      Session: 3600,
    },
    cookies: { keys: ["test-cookie-key-0123456789"] },
  });
  // deno-lint-ignore no-explicit-any
  (provider as any).on?.(
    "server_error",
    (_ctx: unknown, e: Error) => console.error("AS:", e),
  );
  handler = provider.callback() as (
    req: IncomingMessage,
    res: ServerResponse,
  ) => void;

  const state = { nextLogin: "wholesale-operator" };

  async function interaction(
    req: IncomingMessage,
    res: ServerResponse,
  ): Promise<void> {
    const details = await provider.interactionDetails(req, res);
    const { prompt, params, session } = details as unknown as {
      prompt: { name: string; details: Record<string, unknown> };
      params: Record<string, string>;
      session?: { accountId: string };
    };
    let result: Record<string, unknown>;
    if (prompt.name === "login") {
      result = { login: { accountId: state.nextLogin } };
    } else {
      const grant = new provider.Grant({
        accountId: session!.accountId,
        clientId: params.client_id,
      });
      const d = prompt.details as {
        missingOIDCScope?: string[];
        missingOIDCClaims?: string[];
        missingResourceScopes?: Record<string, string[]>;
      };
      if (d.missingOIDCScope) grant.addOIDCScope(d.missingOIDCScope.join(" "));
      if (d.missingOIDCClaims) grant.addOIDCClaims(d.missingOIDCClaims);
      for (
        const [indicator, scopes] of Object.entries(
          d.missingResourceScopes ?? {},
        )
      ) {
        grant.addResourceScope(indicator, scopes.join(" "));
      }
      result = { consent: { grantId: await grant.save() } };
    }
    await provider.interactionFinished(req, res, result, {
      mergeWithLastSubmission: true,
    });
  }

  const basic = (c: { clientId: string; clientSecret: string }) =>
    `Basic ${btoa(`${c.clientId}:${c.clientSecret}`)}`;

  return {
    issuer,
    key: { privateKey, publicJwk, kid },
    get nextLogin() {
      return state.nextLogin;
    },
    set nextLogin(v: string) {
      state.nextLogin = v;
    },
    get jwksFetches() {
      return jwksFetches;
    },
    get jwksDown() {
      return jwksDown;
    },
    set jwksDown(v: boolean) {
      jwksDown = v;
    },
    introspectionClient,
    machineClient,
    addResource(r) {
      byResource.set(r.resource, r);
    },
    async clientCredentials(resource, scope) {
      const res = await fetch(`${issuer}/token`, {
        method: "POST",
        headers: {
          authorization: basic(machineClient),
          "content-type": "application/x-www-form-urlencoded",
        },
        body: new URLSearchParams({
          grant_type: "client_credentials",
          resource,
          scope,
        }),
      });
      const body = await res.json();
      if (!res.ok) {
        throw new Error(`client_credentials: ${JSON.stringify(body)}`);
      }
      return body.access_token;
    },
    async revoke(token, client) {
      const res = await fetch(`${issuer}/token/revocation`, {
        method: "POST",
        headers: {
          authorization: basic(client),
          "content-type": "application/x-www-form-urlencoded",
        },
        body: new URLSearchParams({ token }),
      });
      await res.body?.cancel();
      if (!res.ok) throw new Error(`revocation: HTTP ${res.status}`);
    },
    sign(claims, o = {}) {
      return new SignJWT(claims)
        .setProtectedHeader({
          alg: o.alg ?? "ES256",
          kid: o.kid ?? kid,
          typ: o.typ ?? "at+jwt",
        })
        .sign(o.key ?? privateKey);
    },
    close() {
      return new Promise<void>((resolve) => {
        http.close(() => resolve());
        http.closeAllConnections();
      });
    },
  };
}

/** A minimal cookie jar for the programmatic user agent. */
class CookieJar {
  readonly #cookies = new Map<string, string>();
  take(res: Response): void {
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(";");
      const eq = pair.indexOf("=");
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      if (/expires=Thu, 01 Jan 1970/i.test(line) || value === "") {
        this.#cookies.delete(name);
      } else this.#cookies.set(name, value);
    }
  }
  header(): string {
    return [...this.#cookies].map(([k, v]) => `${k}=${v}`).join("; ");
  }
}

/**
 * Follows an authorization URL the way a browser would (redirects, cookies, the automatic login
 * and consent) until the authorization server redirects to `redirectUri`; returns that URL.
 *
 * @param authorizationUrl The URL the client would open.
 * @param redirectUri The client's redirect URI.
 * @returns The final redirect, with `code` and `state` (or `error`).
 */
export async function followAuthorization(
  authorizationUrl: string | URL,
  redirectUri: string,
): Promise<URL> {
  const jar = new CookieJar();
  let url = new URL(String(authorizationUrl));
  for (let hop = 0; hop < 20; hop++) {
    if (url.href.startsWith(redirectUri)) return url;
    const res = await fetch(url, {
      redirect: "manual",
      headers: { cookie: jar.header() },
    });
    jar.take(res);
    const location = res.headers.get("location");
    await res.body?.cancel();
    if (res.status < 300 || res.status >= 400 || !location) {
      throw new Error(
        `the authorization flow stopped at ${url.pathname} with HTTP ${res.status}`,
      );
    }
    url = new URL(location, url);
  }
  throw new Error("the authorization flow redirected more than 20 times");
}

function base64url(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(
    /\//g,
    "_",
  ).replace(
    /=+$/,
    "",
  );
}

/** Tokens from the token endpoint. */
export interface TokenSet {
  access_token: string;
  refresh_token?: string;
  scope?: string;
  expires_in?: number;
}

/**
 * The authorization code flow with PKCE, as a public client registered dynamically, for one user
 * (`as.nextLogin`), one resource and some scopes.
 *
 * @param as The authorization server.
 * @param options The resource and the scopes (space-separated).
 * @returns The tokens.
 */
export async function authorize(
  as: TestAuthorizationServer,
  options: { resource: string; scope: string },
): Promise<TokenSet> {
  const redirectUri = "http://127.0.0.1:1/callback";
  const reg = await fetch(`${as.issuer}/reg`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      redirect_uris: [redirectUri],
      token_endpoint_auth_method: "none",
      grant_types: ["authorization_code", "refresh_token"],
      application_type: "native",
    }),
  });
  const client = await reg.json();
  if (!reg.ok) throw new Error(`registration: ${JSON.stringify(client)}`);
  const verifier = base64url(crypto.getRandomValues(new Uint8Array(32)));
  const challenge = base64url(
    new Uint8Array(
      await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier)),
    ),
  );
  const auth = new URL(`${as.issuer}/auth`);
  auth.search = new URLSearchParams({
    client_id: client.client_id,
    response_type: "code",
    redirect_uri: redirectUri,
    scope: options.scope,
    resource: options.resource,
    code_challenge: challenge,
    code_challenge_method: "S256",
    state: "s1",
  }).toString();
  const back = await followAuthorization(auth, redirectUri);
  const code = back.searchParams.get("code");
  if (!code) throw new Error(`no code: ${back.search}`);
  const res = await fetch(`${as.issuer}/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      grant_type: "authorization_code",
      code,
      redirect_uri: redirectUri,
      client_id: client.client_id,
      code_verifier: verifier,
      resource: options.resource,
    }),
  });
  const tokens = await res.json();
  if (!res.ok) throw new Error(`token: ${JSON.stringify(tokens)}`);
  return tokens;
}
