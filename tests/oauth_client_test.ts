/**
 * `OAuthClient` against real parts, all on 127.0.0.1: `oidc-provider` as the authorization server
 * (tests/_oidc_client.ts: PKCE, Dynamic Client Registration, refresh tokens, resource indicators minting
 * JWT access tokens, client credentials), and a protected MCP server: our `McpServer` behind our
 * `serveHttp`, whose `authenticate` verifies the JWT with `jose` (signature against the
 * authorization server's keys, issuer, audience = this server's resource) and answers 401 with
 * `WWW-Authenticate: Bearer resource_metadata=…`. In front of it a small gate serves the Protected
 * Resource Metadata and, for the step-up tests, refuses `payments.release` without
 * `payments:release` with 403 `insufficient_scope` (what the resource server does for action
 * scopes).
 *
 * Our `McpClient` over `StreamableHttpClientTransport` with `auth: oauthClient` completes the
 * flow, lists the principal's tools and calls one; refresh, step-up (bounded) and the
 * `client_credentials` grant work; and no token, refresh token, client secret or code appears in
 * anything logged or in any error.
 */
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import * as jose from "jose";
import { McpClient, type Principal } from "../mod.ts";
import {
  bearerToken,
  InMemoryTokenStore,
  OAuthClient,
  type OAuthClientOptions,
  OAuthError,
  parseAuthorizationResponse,
  serveHttp,
  type StoredTokens,
  StreamableHttpClientTransport,
  StreamableHttpError,
} from "../lib/mcp/transports/http_mod.ts";
import { estate, server as mcpServer } from "./_mcp_fixtures.ts";
import {
  startAuthorizationServer,
  type TestAuthorizationServer,
  userAgent,
} from "./_oidc_client.ts";

const REDIRECT = "http://127.0.0.1:8976/callback";
const SCOPES = ["payments:read", "payments:release", "policy:read"];

/** Everything secret the tests saw pass by, to look for in logs and errors. */
const secrets = new Set<string>();

/** A token store that remembers every secret it was given (to look for them elsewhere). */
class WatchedStore extends InMemoryTokenStore {
  override setTokens(endpoint: string, tokens: StoredTokens | undefined): void {
    if (tokens?.accessToken) secrets.add(tokens.accessToken);
    if (tokens?.refreshToken) secrets.add(tokens.refreshToken);
    super.setTokens(endpoint, tokens);
  }
  override setClient(
    issuer: string,
    client: Parameters<InMemoryTokenStore["setClient"]>[1],
  ): void {
    if (client?.clientSecret) secrets.add(client.clientSecret);
    super.setClient(issuer, client);
  }
}

/** What was logged (any console method) while a test ran, and every error it met. */
const logged: string[] = [];
function captureConsole(): () => void {
  const methods = ["log", "info", "warn", "error", "debug"] as const;
  const saved = methods.map((m) => console[m]);
  for (const m of methods) {
    console[m] = (...args: unknown[]) => {
      logged.push(
        args.map((a) => (a instanceof Error ? describe(a) : String(a))).join(
          " ",
        ),
      );
    };
  }
  return () => methods.forEach((m, i) => (console[m] = saved[i]));
}

/** An error with its causes, messages and stacks, as a log would show it. */
function describe(e: unknown): string {
  const parts: string[] = [];
  for (let x = e, depth = 0; x !== undefined && depth < 5; depth++) {
    if (x instanceof Error) {
      parts.push(`${x.name}: ${x.message}\n${x.stack ?? ""}`);
      x = x.cause;
    } else {
      parts.push(String(x));
      break;
    }
  }
  return parts.join("\ncaused by ");
}

function assertNoSecretIn(haystack: string): void {
  for (const s of secrets) {
    assert.ok(
      !haystack.includes(s),
      `a secret (${s.length} characters) appears in:\n${haystack}`,
    );
  }
}

/** The protected MCP server, its gate, and the authorization server. */
interface World {
  as: TestAuthorizationServer;
  /** The MCP endpoint the client uses (the gate's). */
  url: string;
  /** JWT ids the resource server refuses (revoked). */
  revoked: Set<string>;
  /** Refuse `payments.release` without `payments:release` (403 insufficient_scope). */
  stepUp: boolean;
  /** The MCP server's call log. */
  calls: unknown[];
  close(): Promise<void>;
}

async function world(
  options: { accessTokenTtl?: number } = {},
): Promise<World> {
  // The gate listens first: its URL is the resource identifier.
  let backend = "";
  const gate: Server = createServer();
  await new Promise<void>((resolve) => gate.listen(0, "127.0.0.1", resolve));
  const origin = `http://127.0.0.1:${(gate.address() as AddressInfo).port}`;
  const url = `${origin}/mcp`;
  const as = await startAuthorizationServer({
    resources: { [url]: SCOPES },
    accessTokenTtl: options.accessTokenTtl,
  });
  const keys = jose.createLocalJWKSet(as.jwks);
  const revoked = new Set<string>();
  const verify = async (authorization: string | undefined) => {
    const token = bearerToken(authorization);
    if (token === undefined) return undefined;
    try {
      const { payload } = await jose.jwtVerify(token, keys, {
        issuer: as.issuer,
        audience: url,
        algorithms: ["ES256"],
      });
      return revoked.has(String(payload.jti)) ? undefined : payload;
    } catch {
      return undefined;
    }
  };
  const { server, calls } = mcpServer(estate());
  const http = await serveHttp(server, {
    resourceMetadataUrl: `${origin}/.well-known/oauth-protected-resource/mcp`,
    authenticate: async (request): Promise<Principal | undefined> => {
      const claims = await verify(request.headers.authorization);
      if (!claims) return undefined;
      return {
        id: String(claims.sub ?? claims.client_id),
        scopes: String(claims.scope ?? "").split(" ").filter(Boolean),
        tenant: "wholesale",
        clearance: "restricted",
      };
    },
  });
  backend = http.url;
  const w: World = {
    as,
    url,
    revoked,
    stepUp: false,
    calls,
    async close() {
      await new Promise<void>((resolve) => {
        gate.close(() => resolve());
        gate.closeAllConnections();
      });
      await http.close();
      server.close();
      await as.close();
    },
  };
  gate.on("request", async (req, res) => {
    try {
      if (
        req.method === "GET" &&
        req.url === "/.well-known/oauth-protected-resource/mcp"
      ) {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({
          resource: url,
          authorization_servers: [as.issuer],
          scopes_supported: ["payments:read", "policy:read"],
          bearer_methods_supported: ["header"],
        }));
        return;
      }
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const body = Buffer.concat(chunks);
      if (w.stepUp && req.method === "POST" && body.length > 0) {
        const message = JSON.parse(body.toString("utf8"));
        const claims = await verify(req.headers.authorization);
        const scopes = String(claims?.scope ?? "").split(" ");
        if (
          claims && message.method === "tools/call" &&
          message.params?.name === "payments.release" &&
          !scopes.includes("payments:release")
        ) {
          res.writeHead(403, {
            "content-type": "application/json",
            "www-authenticate":
              `Bearer error="insufficient_scope", scope="payments:release", resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp", error_description="payments.release needs payments:release"`,
          });
          res.end(JSON.stringify({ error: "insufficient_scope" }));
          return;
        }
      }
      const headers = new Headers();
      for (const [k, v] of Object.entries(req.headers)) {
        if (
          v === undefined ||
          ["host", "connection", "content-length"].includes(k)
        ) continue;
        headers.set(k, Array.isArray(v) ? v.join(", ") : v);
      }
      const abort = new AbortController();
      res.on("close", () => abort.abort());
      const upstream = await fetch(backend, {
        method: req.method,
        headers,
        body: req.method === "POST" ? body : undefined,
        signal: abort.signal,
      });
      res.writeHead(upstream.status, Object.fromEntries(upstream.headers));
      if (upstream.body) {
        for await (const chunk of upstream.body) res.write(chunk);
      }
      res.end();
    } catch {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    }
  });
  return w;
}

/** An OAuthClient whose user agent is the scripted browser of tests/_oidc_client.ts. */
function oauthClient(options: Partial<OAuthClientOptions> = {}): OAuthClient {
  return new OAuthClient({
    redirectUri: REDIRECT,
    clientName: "tool-estate-test",
    redirectToAuthorization: async (url) => {
      const back = await userAgent(url, REDIRECT);
      const code = back.searchParams.get("code");
      if (code) secrets.add(code);
      return parseAuthorizationResponse(back);
    },
    store: new WatchedStore(),
    ...options,
  });
}

/**
 * A client over the transport with `auth`; the transport's reported errors are kept. The user
 * confirms what the estate asks to be confirmed (`payments.release` is irreversible).
 */
function mcpClient(
  url: string,
  auth: OAuthClient,
  errors: unknown[],
): McpClient {
  return new McpClient(
    new StreamableHttpClientTransport(url, {
      auth,
      onerror: (e) => errors.push(e),
    }),
    {
      clientInfo: { name: "oauth-test", version: "1" },
      serverRequests: {
        elicitation: {
          form: () => ({ action: "accept", content: { confirm: true } }),
        },
      },
    },
  );
}

function claimsOf(token: string): jose.JWTPayload {
  return jose.decodeJwt(token);
}

Deno.test("OAuthClient against oidc-provider: 401 → resource metadata → DCR → PKCE with resource → token; the client lists the principal's tools and calls one", async () => {
  const restore = captureConsole();
  const w = await world();
  const errors: unknown[] = [];
  try {
    const store = new WatchedStore();
    const oauth = oauthClient({ store });
    const client = mcpClient(w.url, oauth, errors);
    await client.connect();
    assert.equal(client.era, "stateless");
    const tools = (await client.listTools()).map((t) => t.name).sort();
    // The token's scopes are the resource metadata's scopes_supported: what the principal sees.
    assert.deepEqual(tools, ["payments.lookup", "policy.search"]);
    const outcome = await client.callTool("payments.lookup", {
      reference: "PMT-000001",
    });
    assert.equal(outcome.kind, "ok");
    await client.close();

    assert.deepEqual(w.as.grants, { authorization_code: 1 });
    assert.equal(w.as.consents.length, 1);
    const held = store.getTokens(w.url)!;
    const claims = claimsOf(held.accessToken);
    assert.equal(
      claims.aud,
      w.url,
      "the token is bound to this server (RFC 8707)",
    );
    assert.equal(claims.iss, w.as.issuer);
    assert.equal(claims.sub, "alice");
    assert.deepEqual(String(claims.scope).split(" ").sort(), [
      "payments:read",
      "policy:read",
    ]);
    assert.ok(
      held.refreshToken,
      "offline_access was asked for: a refresh token was issued",
    );
    assert.equal(held.issuer, w.as.issuer);
    assert.equal(held.resource, w.url);
    assert.ok(
      store.getClient(w.as.issuer)?.clientId,
      "the dynamic registration is kept",
    );
    // The leak check below would see the token, were it logged.
    assert.throws(() => assertNoSecretIn(`Authorization: Bearer ${held.accessToken}`));

    // A second client with the same OAuthClient: the held token, no new authorization.
    const again = mcpClient(w.url, oauth, errors);
    await again.connect();
    assert.equal((await again.listTools()).length, 2);
    await again.close();
    assert.deepEqual(w.as.grants, { authorization_code: 1 });
    assert.deepEqual(errors, []);
  } finally {
    await w.close();
    restore();
  }
  assertNoSecretIn(logged.join("\n"));
  assertNoSecretIn(errors.map(describe).join("\n"));
  assertNoSecretIn(JSON.stringify(w.calls));
});

Deno.test("OAuthClient refreshes an expired token before the request, and a refused (revoked) one after the 401, without asking the user again", async () => {
  const restore = captureConsole();
  const w = await world();
  const errors: unknown[] = [];
  let skew = 0;
  try {
    const store = new WatchedStore();
    const oauth = oauthClient({ store, now: () => Date.now() + skew });
    const client = mcpClient(w.url, oauth, errors);
    await client.connect();
    await client.listTools();
    const first = store.getTokens(w.url)!;
    assert.deepEqual(w.as.grants, { authorization_code: 1 });

    // The client's clock passes the token's expiry: it refreshes before sending.
    skew = 301_000;
    await client.callTool("payments.lookup", { reference: "PMT-000002" });
    const second = store.getTokens(w.url)!;
    assert.notEqual(second.accessToken, first.accessToken);
    assert.notEqual(
      second.refreshToken,
      first.refreshToken,
      "public clients' refresh tokens rotate",
    );
    assert.deepEqual(w.as.grants, { authorization_code: 1, refresh_token: 1 });
    skew = 0;

    // The resource server stops accepting the token (revoked): 401, refresh, the request again.
    w.revoked.add(String(claimsOf(second.accessToken).jti));
    const outcome = await client.callTool("payments.lookup", {
      reference: "PMT-000003",
    });
    assert.equal(outcome.kind, "ok");
    const third = store.getTokens(w.url)!;
    assert.notEqual(third.accessToken, second.accessToken);
    assert.deepEqual(w.as.grants, { authorization_code: 1, refresh_token: 2 });
    assert.equal(w.as.consents.length, 1, "the user was asked once");
    await client.close();

    // A refresh token the server no longer knows: forgotten, and the user is asked again.
    store.setTokens(w.url, {
      ...third,
      refreshToken: "no-such-refresh-token",
      expiresAt: 0,
    });
    secrets.add("no-such-refresh-token");
    const later = mcpClient(w.url, oauth, errors);
    await later.connect();
    assert.equal((await later.listTools()).length, 2);
    await later.close();
    assert.equal(w.as.grants.authorization_code, 2);
    assert.deepEqual(errors, []);
  } finally {
    await w.close();
    restore();
  }
  assertNoSecretIn(logged.join("\n"));
});

Deno.test("step-up: a 403 insufficient_scope re-authorizes with the union of the scopes held and challenged; the call then runs", async () => {
  const restore = captureConsole();
  const w = await world();
  w.stepUp = true;
  const errors: unknown[] = [];
  try {
    const store = new WatchedStore();
    const client = mcpClient(w.url, oauthClient({ store }), errors);
    await client.connect();
    await client.listTools();
    const outcome = await client.callTool("payments.release", {
      reference: "PMT-000004",
    });
    assert.equal(outcome.kind, "ok", JSON.stringify(outcome));
    assert.equal(w.as.consents.length, 2);
    assert.ok(w.as.consents[1].includes("payments:release"));
    const scopes = String(claimsOf(store.getTokens(w.url)!.accessToken).scope)
      .split(" ").sort();
    assert.deepEqual(scopes, [
      "payments:read",
      "payments:release",
      "policy:read",
    ]);
    // The earlier scopes are kept: lookups still work with the new token.
    assert.equal(
      (await client.callTool("payments.lookup", { reference: "PMT-000005" }))
        .kind,
      "ok",
    );
    await client.close();
  } finally {
    await w.close();
    restore();
  }
  assertNoSecretIn(logged.join("\n"));
});

Deno.test("against a stock oidc-provider, which holds a client to the scopes it registered: OAuthClient registers for the resource's scopes, and a client held to fewer (registered before) is registered anew on invalid_scope — the step-up then runs", async () => {
  const restore = captureConsole();
  const w = await world();
  w.stepUp = true;
  const errors: unknown[] = [];
  try {
    // A client registered earlier for read scopes only, as a client that registered with the
    // first scopes it asked for would be: the server holds it to them.
    const reg = await fetch(`${w.as.issuer}/reg`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        client_name: "held to reads",
        redirect_uris: [REDIRECT],
        grant_types: ["authorization_code", "refresh_token"],
        response_types: ["code"],
        token_endpoint_auth_method: "none",
        application_type: "native",
        scope: "payments:read policy:read",
      }),
    });
    assert.equal(reg.status, 201, await reg.clone().text());
    const held = (await reg.json()).client_id as string;
    const store = new WatchedStore();
    store.setClient(w.as.issuer, { clientId: held, tokenEndpointAuthMethod: "none" });
    const client = mcpClient(w.url, oauthClient({ store }), errors);
    await client.connect();
    await client.listTools();
    const outcome = await client.callTool("payments.release", { reference: "PMT-000014" });
    assert.equal(outcome.kind, "ok", JSON.stringify(outcome));
    const now = store.getClient(w.as.issuer)!.clientId;
    assert.notEqual(now, held, "registered anew");
    const scopes = (await w.as.clientScope(now))!.split(" ").sort();
    assert.ok(scopes.includes("payments:release"), scopes.join(" "));
    assert.ok(scopes.includes("policy:read"), scopes.join(" "));
    await client.close();
  } finally {
    await w.close();
    restore();
  }
  assertNoSecretIn(logged.join("\n"));
});

Deno.test("step-up is bounded: when the user withholds the scope, the client gives up with insufficient_scope after maxStepUps re-authorizations", async () => {
  const restore = captureConsole();
  const w = await world();
  w.stepUp = true;
  w.as.withheld.add("payments:release");
  const errors: unknown[] = [];
  try {
    const client = mcpClient(w.url, oauthClient({ maxStepUps: 2 }), errors);
    await client.connect();
    await client.listTools();
    // One request is sent at most three times (a 403, a step-up, again): then its 403 stands.
    const first = await client.callTool("payments.release", {
      reference: "PMT-000006",
    }).then(
      () => undefined,
      (e) => e,
    );
    assert.ok(
      first instanceof StreamableHttpError && first.status === 403,
      describe(first),
    );
    errors.push(first);
    // The same scopes were asked for twice already: the next 403 is final.
    const second = await client.callTool("payments.release", {
      reference: "PMT-000007",
    }).then(
      () => undefined,
      (e) => e,
    );
    assert.ok(second instanceof StreamableHttpError, describe(second));
    assert.ok(second.cause instanceof OAuthError, describe(second));
    assert.equal(second.cause.failure, "insufficient_scope", describe(second));
    errors.push(second);
    assert.equal(
      w.as.consents.length,
      3,
      "the first authorization and two step-ups",
    );
    assert.equal(w.calls.length, 0, "payments.release never ran");
    await client.close();
  } finally {
    await w.close();
    restore();
  }
  assertNoSecretIn(logged.join("\n"));
  assertNoSecretIn(errors.map(describe).join("\n"));
});

Deno.test("client_credentials: a machine client (the gateway) reaches the protected server with a token of its own, for this resource", async () => {
  const restore = captureConsole();
  const w = await world();
  const errors: unknown[] = [];
  try {
    secrets.add(w.as.machine.clientSecret);
    const store = new WatchedStore();
    const oauth = new OAuthClient({
      grant: "client_credentials",
      client: { ...w.as.machine, issuer: w.as.issuer },
      scope: "payments:read",
      store,
    });
    const client = mcpClient(w.url, oauth, errors);
    await client.connect();
    // The resource metadata's scopes_supported are asked for (the challenge named none).
    assert.deepEqual((await client.listTools()).map((t) => t.name).sort(), [
      "payments.lookup",
      "policy.search",
    ]);
    await client.close();
    assert.deepEqual(w.as.grants, { client_credentials: 1 });
    const claims = claimsOf(store.getTokens(w.url)!.accessToken);
    assert.equal(claims.aud, w.url);
    assert.equal(claims.client_id, "gateway");
    assert.equal(claims.sub, "gateway");
    assert.deepEqual(errors, []);
  } finally {
    await w.close();
    restore();
  }
  assertNoSecretIn(logged.join("\n"));
});

Deno.test("no secret in errors: a refusal by the user, a wrong client secret, and a pre-registered client of another issuer fail with messages that name the step, not the credentials", async () => {
  const restore = captureConsole();
  const w = await world();
  const seen: unknown[] = [];
  try {
    // The user refuses at the authorization server.
    const denied = mcpClient(
      w.url,
      oauthClient({
        redirectToAuthorization: async (url) => {
          const back = await userAgent(url, REDIRECT);
          const r = parseAuthorizationResponse(back);
          if (r.code) secrets.add(r.code);
          return {
            state: r.state,
            iss: r.iss,
            error: "access_denied",
            errorDescription: "no",
          };
        },
      }),
      seen,
    );
    const e1 = await denied.connect().then(() => undefined, (e) => e);
    assert.ok(
      e1 instanceof StreamableHttpError && e1.status === 401,
      describe(e1),
    );
    assert.ok(
      e1.cause instanceof OAuthError && e1.cause.failure === "authorization",
    );
    assert.equal(e1.cause.oauthError, "access_denied");
    seen.push(e1);
    await denied.close();

    // The machine client with a wrong secret: the token endpoint refuses.
    const wrong = "not-the-gateway-secret-42";
    secrets.add(wrong);
    const machine = mcpClient(
      w.url,
      new OAuthClient({
        grant: "client_credentials",
        client: { clientId: w.as.machine.clientId, clientSecret: wrong },
      }),
      seen,
    );
    const e2 = await machine.connect().then(() => undefined, (e) => e);
    assert.ok(e2 instanceof StreamableHttpError, describe(e2));
    assert.ok(
      e2.cause instanceof OAuthError && e2.cause.failure === "token",
      describe(e2),
    );
    assert.equal(e2.cause.oauthError, "invalid_client");
    seen.push(e2);
    await machine.close();

    // A pre-registered client bound to another authorization server is not used here.
    const other = mcpClient(
      w.url,
      oauthClient({
        client: {
          clientId: "x",
          clientSecret: "pre-registered-secret",
          issuer: "https://other.example",
        },
      }),
      seen,
    );
    secrets.add("pre-registered-secret");
    const e3 = await other.connect().then(() => undefined, (e) => e);
    assert.ok(e3 instanceof StreamableHttpError, describe(e3));
    assert.ok(
      e3.cause instanceof OAuthError && e3.cause.failure === "registration",
      describe(e3),
    );
    seen.push(e3);
    await other.close();
  } finally {
    await w.close();
    restore();
  }
  assert.ok(secrets.size > 0);
  assertNoSecretIn(logged.join("\n"));
  assertNoSecretIn(seen.map(describe).join("\n"));
});
