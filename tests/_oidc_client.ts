/**
 * A real authorization server for the OAuth tests: `oidc-provider` (npm), run in this process on
 * 127.0.0.1 under Deno's Node compatibility. Configured as the MCP authorization specification
 * expects of one: authorization code with PKCE (S256, required), open Dynamic Client
 * Registration, refresh tokens (rotated for public clients), resource indicators (RFC 8707) minting
 * JWT access tokens whose `aud` is the resource, `client_credentials`, and a pre-registered
 * confidential client for it. The login and consent prompts are answered by a scripted user: the
 * interaction endpoint logs `alice` in and grants what was asked (less what the test withholds).
 *
 * @module
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import Provider, { errors } from "oidc-provider";
import * as jose from "jose";

/** A running authorization server. */
export interface TestAuthorizationServer {
  /** Its issuer, e.g. `http://127.0.0.1:41234`. */
  issuer: string;
  /** The public keys access tokens are signed with. */
  jwks: jose.JSONWebKeySet;
  /** The confidential client for `client_credentials`. */
  machine: { clientId: string; clientSecret: string };
  /** How many times the scripted user was asked to consent, and the scopes each time. */
  consents: string[][];
  /** Scopes the scripted user does not grant. */
  withheld: Set<string>;
  /** How many token requests each grant type made. */
  grants: Record<string, number>;
  /** The scope a client registered with (`scope` metadata); undefined when none or no client. */
  clientScope(clientId: string): Promise<string | undefined>;
  /** Stops it. */
  close(): Promise<void>;
}

/** Options for {@linkcode startAuthorizationServer}. */
export interface AuthorizationServerOptions {
  /** The resource indicators it mints tokens for, and the scopes each offers. */
  resources: Record<string, string[]>;
  /** Access token lifetime, in seconds. Default 300. */
  accessTokenTtl?: number;
}

/**
 * Starts `oidc-provider` on 127.0.0.1 (a free port).
 *
 * @param options The resources (RFC 8707) and their scopes; the access token lifetime.
 * @returns The running server.
 */
export async function startAuthorizationServer(
  options: AuthorizationServerOptions,
): Promise<TestAuthorizationServer> {
  const { privateKey, publicKey } = await jose.generateKeyPair("ES256", {
    extractable: true,
  });
  const signing = {
    ...(await jose.exportJWK(privateKey)),
    kid: "test-key",
    alg: "ES256",
    use: "sig",
  };
  const jwks = {
    keys: [{
      ...(await jose.exportJWK(publicKey)),
      kid: "test-key",
      alg: "ES256",
      use: "sig",
    }],
  };
  const machine = {
    clientId: "gateway",
    clientSecret: "gateway-secret-0123456789",
  };
  const consents: string[][] = [];
  const withheld = new Set<string>();
  const grants: Record<string, number> = {};
  const allScopes = [...new Set(Object.values(options.resources).flat())];

  // The port is needed for the issuer before the provider exists: listen first.
  let handler: (req: IncomingMessage, res: ServerResponse) => void = (
    _req,
    res,
  ) => {
    res.statusCode = 503;
    res.end();
  };
  const http: Server = createServer((req, res) => handler(req, res));
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const issuer = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;

  const provider = new Provider(issuer, {
    jwks: { keys: [signing] },
    clients: [{
      client_id: machine.clientId,
      client_secret: machine.clientSecret,
      grant_types: ["client_credentials"],
      response_types: [],
      redirect_uris: [],
      token_endpoint_auth_method: "client_secret_basic",
    }],
    scopes: ["openid", "offline_access", ...allScopes],
    clientDefaults: { id_token_signed_response_alg: "ES256" },
    features: {
      devInteractions: { enabled: false },
      registration: { enabled: true },
      clientCredentials: { enabled: true },
      revocation: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: (
          _ctx: unknown,
          _client: unknown,
          oneOf?: string | string[],
        ) => oneOf,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx: unknown, indicator: string) => {
          const scopes = options.resources[indicator];
          if (!scopes) throw new errors.InvalidTarget();
          return {
            scope: scopes.join(" "),
            audience: indicator,
            accessTokenTTL: options.accessTokenTtl ?? 300,
            accessTokenFormat: "jwt",
            jwt: { sign: { alg: "ES256" } },
          };
        },
      },
    },
    pkce: { required: () => true },
    issueRefreshToken: (
      _ctx: unknown,
      client: { grantTypeAllowed(g: string): boolean },
    ) => client.grantTypeAllowed("refresh_token"),
    interactions: {
      url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}`,
    },
    findAccount: (_ctx: unknown, id: string) => ({
      accountId: id,
      claims: () => ({ sub: id }),
    }),
    cookies: { keys: ["test-cookie-key-0123456789"] },
    ttl: {
      AccessToken: options.accessTokenTtl ?? 300,
      ClientCredentials: options.accessTokenTtl ?? 300,
      AuthorizationCode: 60,
      Interaction: 600,
      Session: 3600,
      Grant: 3600,
      RefreshToken: 86_400,
    },
  });
  provider.on(
    "grant.success",
    (ctx: { oidc: { params?: { grant_type?: string } } }) => {
      const g = ctx.oidc.params?.grant_type ?? "unknown";
      grants[g] = (grants[g] ?? 0) + 1;
    },
  );
  const callback = provider.callback();

  handler = (req, res) => {
    if (req.url?.startsWith("/interaction/")) {
      interact(req, res).catch((e) => {
        res.statusCode = 500;
        res.end(String(e));
      });
    } else callback(req, res);
  };

  /** The scripted user: logs in as alice, then consents to what was asked (less `withheld`). */
  async function interact(
    req: IncomingMessage,
    res: ServerResponse,
  ): Promise<void> {
    const details = await provider.interactionDetails(req, res);
    if (details.prompt.name === "login") {
      await provider.interactionFinished(req, res, {
        login: { accountId: "alice" },
      }, {
        mergeWithLastSubmission: false,
      });
      return;
    }
    const accountId = details.session!.accountId;
    const clientId = String(details.params.client_id);
    const grant = details.grantId
      ? (await provider.Grant.find(details.grantId))!
      : new provider.Grant({ accountId, clientId });
    const prompt = details.prompt.details as {
      missingOIDCScope?: string[];
      missingResourceScopes?: Record<string, string[]>;
    };
    const asked: string[] = [];
    if (prompt.missingOIDCScope) {
      asked.push(...prompt.missingOIDCScope);
      grant.addOIDCScope(
        prompt.missingOIDCScope.filter((s) => !withheld.has(s)).join(" "),
      );
      const refused = prompt.missingOIDCScope.filter((s) => withheld.has(s));
      if (refused.length > 0) grant.rejectOIDCScope(refused.join(" "));
    }
    for (
      const [indicator, scopes] of Object.entries(
        prompt.missingResourceScopes ?? {},
      )
    ) {
      asked.push(...scopes);
      grant.addResourceScope(
        indicator,
        scopes.filter((s) => !withheld.has(s)).join(" "),
      );
      const refused = scopes.filter((s) => withheld.has(s));
      if (refused.length > 0) {
        grant.rejectResourceScope(indicator, refused.join(" "));
      }
    }
    consents.push([...new Set(asked)].sort());
    const grantId = await grant.save();
    await provider.interactionFinished(req, res, { consent: { grantId } }, {
      mergeWithLastSubmission: true,
    });
  }

  return {
    issuer,
    jwks,
    machine,
    consents,
    withheld,
    grants,
    clientScope: async (clientId) => (await provider.Client.find(clientId))?.scope,
    close: () =>
      new Promise<void>((resolve) => {
        http.close(() => resolve());
        http.closeAllConnections();
      }),
  };
}

/**
 * The user agent of the tests: follows the authorization server's redirects (keeping its cookies,
 * as a browser does) until one points at `redirectUri`, and returns that URL.
 *
 * @param url The authorization URL.
 * @param redirectUri The client's redirect URI.
 * @returns The URL the user agent was sent back to, with the code and state.
 */
export async function userAgent(url: URL, redirectUri: string): Promise<URL> {
  const cookies = new Map<string, string>();
  let next = url;
  for (let hop = 0; hop < 20; hop++) {
    if (next.href.startsWith(redirectUri)) return next;
    const res = await fetch(next, {
      redirect: "manual",
      headers: { cookie: [...cookies].map(([k, v]) => `${k}=${v}`).join("; ") },
    });
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(";");
      const i = pair.indexOf("=");
      cookies.set(pair.slice(0, i).trim(), pair.slice(i + 1));
    }
    const location = res.headers.get("location");
    const text = await res.text();
    if (location === null) {
      throw new Error(
        `the authorization server answered ${res.status}: ${text.slice(0, 300)}`,
      );
    }
    next = new URL(location, next);
  }
  throw new Error("too many redirects");
}
