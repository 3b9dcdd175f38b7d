/**
 * The rules of the OAuth client, each on its own against a scripted authorization server (a
 * `fetch` that answers by URL): the `WWW-Authenticate` parser (a round-trip law), the well-known
 * URL orders, the canonical resource and its check, and the refusals the specification requires —
 * no PKCE, a wrong `state`, a wrong or missing `iss`, metadata of another issuer, an insecure
 * endpoint, a non-Bearer token — plus one authorization for concurrent 401s, and secrets an
 * authorization server echoes kept out of messages. tests/oauth_client_test.ts runs the whole
 * flow against oidc-provider; the conformance tests run the suites' scenarios.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { bearerChallenge, parseChallenges } from "../lib/oauth/_oauth_challenge.ts";
import {
  authorizationServerMetadataUrls,
  canonicalResource,
  resourceCovers,
  resourceMetadataUrls,
  secureEnough,
} from "../lib/oauth/_oauth_discovery.ts";
import {
  type AuthorizationResponse,
  type HttpChallenge,
  InMemoryTokenStore,
  OAuthClient,
  type OAuthClientOptions,
  OAuthError,
} from "../lib/mcp/transports/http_mod.ts";

Deno.test("bearerChallenge() reads resource_metadata, scope, error from quoted and token values, among other schemes", () => {
  assert.deepEqual(
    bearerChallenge(
      'Basic realm="x", Bearer realm="mcp", error="insufficient_scope", scope="a:b c", resource_metadata="https://m.example/.well-known/oauth-protected-resource/mcp", error_description="needs \\"c\\""',
    ),
    {
      resourceMetadata: "https://m.example/.well-known/oauth-protected-resource/mcp",
      scope: "a:b c",
      error: "insufficient_scope",
      errorDescription: 'needs "c"',
    },
  );
  assert.deepEqual(bearerChallenge("bearer error=invalid_token"), {
    error: "invalid_token",
  });
  assert.deepEqual(
    bearerChallenge('Negotiate, Basic abc==, DPoP algs="ES256"'),
    {},
  );
  assert.deepEqual(bearerChallenge(null), {});
  assert.deepEqual(bearerChallenge('Bearer scope=""'), {});
  // Found by the law below: a scheme without parameters, then another.
  assert.deepEqual(parseChallenges("a,a"), [
    { scheme: "a", params: {} },
    { scheme: "a", params: {} },
  ]);
});

Deno.test("parseChallenges() round-trips any challenge list it is given in RFC 9110 syntax (law)", () => {
  const token = fc.stringMatching(/^[A-Za-z][A-Za-z0-9_.-]{0,11}$/);
  // Printable characters: a header value holds no control characters.
  const value = fc.string({ maxLength: 30 }).filter((s) =>
    [...s].every((ch) => ch.charCodeAt(0) >= 0x20 && ch.charCodeAt(0) !== 0x7f)
  );
  const challenge = fc.record({
    scheme: token,
    params: fc.dictionary(token.map((t) => t.toLowerCase()), value, {
      maxKeys: 5,
    }),
  });
  fc.assert(
    fc.property(
      fc.array(challenge, { minLength: 1, maxLength: 4 }),
      fc.boolean(),
      (list, spaces) => {
        const sep = spaces ? " ,  " : ",";
        const header = list.map((c) => {
          const params = Object.entries(c.params).map(([k, v]) =>
            `${k}${spaces ? " = " : "="}"${v.replace(/[\\"]/g, (m) => `\\${m}`)}"`
          );
          return params.length === 0 ? c.scheme : `${c.scheme} ${params.join(sep)}`;
        }).join(sep);
        const parsed = parseChallenges(header);
        assert.deepEqual(
          parsed.map((c) => ({ scheme: c.scheme, params: c.params })),
          list.map((c) => ({
            scheme: c.scheme.toLowerCase(),
            params: { ...c.params },
          })),
          header,
        );
      },
    ),
  );
});

Deno.test("well-known URLs in the specification's order: resource metadata path-inserted then root; authorization server metadata RFC 8414 then OpenID Connect", () => {
  assert.deepEqual(resourceMetadataUrls("https://example.com/public/mcp"), [
    "https://example.com/.well-known/oauth-protected-resource/public/mcp",
    "https://example.com/.well-known/oauth-protected-resource",
  ]);
  assert.deepEqual(resourceMetadataUrls("https://example.com/"), [
    "https://example.com/.well-known/oauth-protected-resource",
  ]);
  assert.deepEqual(
    authorizationServerMetadataUrls("https://auth.example.com/tenant1"),
    [
      "https://auth.example.com/.well-known/oauth-authorization-server/tenant1",
      "https://auth.example.com/.well-known/openid-configuration/tenant1",
      "https://auth.example.com/tenant1/.well-known/openid-configuration",
    ],
  );
  assert.deepEqual(
    authorizationServerMetadataUrls("https://auth.example.com"),
    [
      "https://auth.example.com/.well-known/oauth-authorization-server",
      "https://auth.example.com/.well-known/openid-configuration",
    ],
  );
});

Deno.test("canonicalResource() lower-cases scheme and host, drops the fragment and a bare origin's slash; resourceCovers() wants the same origin and a parent path", () => {
  assert.equal(
    canonicalResource("HTTPS://MCP.Example.com/Mcp#x"),
    "https://mcp.example.com/Mcp",
  );
  assert.equal(
    canonicalResource("https://mcp.example.com/"),
    "https://mcp.example.com",
  );
  assert.equal(
    canonicalResource("https://mcp.example.com:8443"),
    "https://mcp.example.com:8443",
  );
  assert.ok(
    resourceCovers("https://mcp.example.com", "https://mcp.example.com/mcp"),
  );
  assert.ok(
    resourceCovers(
      "https://mcp.example.com/mcp",
      "https://mcp.example.com/mcp",
    ),
  );
  assert.ok(
    resourceCovers(
      "https://MCP.example.com/a/",
      "https://mcp.example.com/a/mcp",
    ),
  );
  assert.ok(
    !resourceCovers(
      "https://mcp.example.com/mc",
      "https://mcp.example.com/mcp",
    ),
  );
  assert.ok(
    !resourceCovers(
      "https://evil.example.com/mcp",
      "https://mcp.example.com/mcp",
    ),
  );
  assert.ok(
    !resourceCovers(
      "http://mcp.example.com/mcp",
      "https://mcp.example.com/mcp",
    ),
  );
  assert.ok(
    !resourceCovers(
      "https://mcp.example.com/mcp#f",
      "https://mcp.example.com/mcp",
    ),
  );
  assert.ok(!resourceCovers("not a url", "https://mcp.example.com/mcp"));
});

Deno.test("secureEnough(): https anywhere, http only on loopback unless allowed", () => {
  assert.ok(secureEnough("https://as.example/token", false));
  assert.ok(secureEnough("http://127.0.0.1:9/token", false));
  assert.ok(secureEnough("http://localhost/token", false));
  assert.ok(secureEnough("http://[::1]:9/token", false));
  assert.ok(!secureEnough("http://as.example/token", false));
  assert.ok(secureEnough("http://as.example/token", true));
  assert.ok(!secureEnough("ftp://as.example/token", true));
});

// A scripted authorization server and resource server.

const MCP = "https://mcp.example/mcp";
const ISSUER = "https://as.example";
const REDIRECT = "http://127.0.0.1:8976/callback";

interface Script {
  /** Authorization server metadata (merged over the defaults). */
  metadata?: Record<string, unknown>;
  /** Resource metadata (merged over the defaults). */
  prm?: Record<string, unknown>;
  /** The token endpoint's answer. */
  token?: (body: URLSearchParams) => Response;
}

function json(value: unknown, status = 200): Response {
  return new Response(JSON.stringify(value), {
    status,
    headers: { "content-type": "application/json" },
  });
}

/** A `fetch` for the scripted servers; it records each request (method and URL). */
function scripted(
  script: Script,
): { fetch: typeof fetch; seen: string[]; tokenBodies: URLSearchParams[] } {
  const seen: string[] = [];
  const tokenBodies: URLSearchParams[] = [];
  const f = async (
    input: RequestInfo | URL,
    init: RequestInit = {},
  ): Promise<Response> => {
    const url = String(input);
    seen.push(`${init.method ?? "GET"} ${url}`);
    if (
      url === "https://mcp.example/.well-known/oauth-protected-resource/mcp"
    ) {
      return json({
        resource: MCP,
        authorization_servers: [ISSUER],
        ...script.prm,
      });
    }
    if (url === `${ISSUER}/.well-known/oauth-authorization-server`) {
      return json({
        issuer: ISSUER,
        authorization_endpoint: `${ISSUER}/authorize`,
        token_endpoint: `${ISSUER}/token`,
        registration_endpoint: `${ISSUER}/register`,
        code_challenge_methods_supported: ["S256"],
        ...script.metadata,
      });
    }
    if (url === `${ISSUER}/register`) {
      return json({ client_id: "dyn-client" }, 201);
    }
    if (url === `${ISSUER}/token`) {
      const body = new URLSearchParams(String(init.body));
      tokenBodies.push(body);
      await new Promise((r) => setTimeout(r, 5));
      return script.token?.(body) ??
        json({
          access_token: `at-${tokenBodies.length}`,
          token_type: "Bearer",
          expires_in: 60,
        });
    }
    return new Response("not found", { status: 404 });
  };
  return { fetch: f as typeof fetch, seen, tokenBodies };
}

/** An authorization step that answers with the request's state (and `extra`). */
function answer(extra: Partial<AuthorizationResponse> = {}) {
  const urls: URL[] = [];
  const redirect = (url: URL): Promise<AuthorizationResponse> => {
    urls.push(url);
    return Promise.resolve({
      code: "the-code",
      state: url.searchParams.get("state")!,
      ...extra,
    });
  };
  return { urls, redirect };
}

function client(script: Script, options: Partial<OAuthClientOptions> = {}) {
  const s = scripted(script);
  const a = answer();
  const oauth = new OAuthClient({
    redirectUri: REDIRECT,
    redirectToAuthorization: a.redirect,
    fetch: s.fetch,
    ...options,
  });
  return { oauth, ...s, urls: a.urls };
}

function challenge(
  f: typeof fetch,
  extra: Partial<HttpChallenge> = {},
): HttpChallenge {
  return {
    url: MCP,
    method: "POST",
    status: 401,
    wwwAuthenticate: 'Bearer realm="mcp"',
    authorization: undefined,
    fetch: f,
    ...extra,
  };
}

async function failure(p: Promise<unknown>): Promise<OAuthError> {
  const e = await p.then(() => undefined, (e) => e);
  assert.ok(e instanceof OAuthError, String(e));
  return e;
}

Deno.test("the authorization request carries PKCE S256, state, scope from the challenge and the resource; the token request the verifier and the same resource", async () => {
  const c = client({});
  assert.equal(
    await c.oauth.challenged(
      challenge(c.fetch, { wwwAuthenticate: 'Bearer scope="files:read"' }),
    ),
    true,
  );
  const q = c.urls[0].searchParams;
  assert.equal(q.get("response_type"), "code");
  assert.equal(q.get("client_id"), "dyn-client");
  assert.equal(q.get("code_challenge_method"), "S256");
  assert.equal(q.get("scope"), "files:read");
  assert.equal(q.get("resource"), MCP);
  assert.equal(q.get("redirect_uri"), REDIRECT);
  const t = c.tokenBodies[0];
  assert.equal(t.get("grant_type"), "authorization_code");
  assert.equal(t.get("resource"), MCP);
  assert.equal(t.get("client_id"), "dyn-client");
  const digest = await crypto.subtle.digest(
    "SHA-256",
    new TextEncoder().encode(t.get("code_verifier")!),
  );
  const challengeOf = btoa(String.fromCharCode(...new Uint8Array(digest)))
    .replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  assert.equal(q.get("code_challenge"), challengeOf);
  assert.equal(await c.oauth.authorization(MCP), "Bearer at-1");
});

Deno.test("refusals the specification requires: no S256, a wrong state, a wrong or missing iss, metadata of another issuer, a resource of another server, an insecure endpoint, a DPoP token", async () => {
  const cases: [
    string,
    Script,
    Partial<OAuthClientOptions>,
    OAuthError["failure"],
  ][] = [
    [
      "no PKCE",
      { metadata: { code_challenge_methods_supported: undefined } },
      {},
      "pkce_unsupported",
    ],
    [
      "plain only",
      { metadata: { code_challenge_methods_supported: ["plain"] } },
      {},
      "pkce_unsupported",
    ],
    [
      "issuer",
      { metadata: { issuer: "https://attacker.example" } },
      {},
      "issuer_mismatch",
    ],
    [
      "resource",
      { prm: { resource: "https://evil.example/mcp" } },
      {},
      "resource_mismatch",
    ],
    [
      "http",
      { metadata: { token_endpoint: "http://as.example/token" } },
      {},
      "discovery",
    ],
    [
      "dpop",
      { token: () => json({ access_token: "x", token_type: "DPoP" }) },
      {},
      "token",
    ],
    [
      "state",
      {},
      {
        redirectToAuthorization: () => Promise.resolve({ code: "c", state: "forged" }),
      },
      "state_mismatch",
    ],
    [
      "iss",
      {},
      {
        redirectToAuthorization: (u) =>
          Promise.resolve({
            code: "c",
            state: u.searchParams.get("state")!,
            iss: `${ISSUER}/`,
          }),
      },
      "issuer_mismatch",
    ],
    [
      "iss missing",
      { metadata: { authorization_response_iss_parameter_supported: true } },
      {},
      "issuer_mismatch",
    ],
  ];
  for (const [name, script, options, expected] of cases) {
    const c = client(script, options);
    const e = await failure(c.oauth.challenged(challenge(c.fetch)));
    assert.equal(e.failure, expected, `${name}: ${e.message}`);
    if (expected !== "token") {
      assert.equal(c.tokenBodies.length, 0, `${name}: no token request`);
    }
    assert.equal(await c.oauth.authorization(MCP), undefined, name);
  }
});

Deno.test("concurrent 401s for one endpoint run one authorization; a request sent with a replaced token is just sent again", async () => {
  const c = client({});
  const results = await Promise.all([
    c.oauth.challenged(challenge(c.fetch)),
    c.oauth.challenged(challenge(c.fetch)),
    c.oauth.challenged(challenge(c.fetch)),
  ]);
  assert.deepEqual(results, [true, true, true]);
  assert.equal(c.urls.length, 1);
  assert.equal(c.tokenBodies.length, 1);
});

Deno.test("client registration in the specification's order: pre-registered, then a Client ID Metadata Document, then dynamic registration (kept per issuer)", async () => {
  const store = new InMemoryTokenStore();
  const pre = client({}, {
    client: { clientId: "pre", clientSecret: "pre-secret" },
    clientMetadataUrl: "https://app.example/client.json",
  });
  await pre.oauth.challenged(challenge(pre.fetch));
  assert.equal(pre.urls[0].searchParams.get("client_id"), "pre");
  assert.equal(
    pre.tokenBodies[0].get("client_id"),
    null,
    "client_secret_basic: in the header",
  );

  const cimd = client({
    metadata: { client_id_metadata_document_supported: true },
  }, {
    clientMetadataUrl: "https://app.example/client.json",
  });
  await cimd.oauth.challenged(challenge(cimd.fetch));
  assert.equal(
    cimd.urls[0].searchParams.get("client_id"),
    "https://app.example/client.json",
  );
  assert.ok(!cimd.seen.some((s) => s.endsWith("/register")));

  const dcr = client({}, {
    clientMetadataUrl: "https://app.example/client.json",
    store,
  });
  await dcr.oauth.challenged(challenge(dcr.fetch));
  assert.equal(dcr.urls[0].searchParams.get("client_id"), "dyn-client");
  assert.equal(store.getClient(ISSUER)?.clientId, "dyn-client");

  const none = client({ metadata: { registration_endpoint: undefined } });
  assert.equal(
    (await failure(none.oauth.challenged(challenge(none.fetch)))).failure,
    "registration",
  );
});

Deno.test("what an authorization server echoes is redacted: a refresh token or code in an error description never reaches the message", async () => {
  const echo = (body: URLSearchParams) =>
    json({
      error: "invalid_grant",
      error_description: `bad ${body.get("code") ?? ""} ${body.get("refresh_token") ?? ""} ${
        body.get("code_verifier") ?? ""
      }`,
    }, 400);
  const c = client({ token: echo });
  const e = await failure(c.oauth.challenged(challenge(c.fetch)));
  assert.equal(e.oauthError, "invalid_grant");
  assert.ok(!e.message.includes("the-code"), e.message);
  assert.ok(
    !e.message.includes(c.tokenBodies[0].get("code_verifier")!),
    e.message,
  );
  assert.match(e.message, /\[redacted\]/);
});

Deno.test("OAuthClient options that cannot work are refused at construction", () => {
  assert.throws(() => new OAuthClient({}), OAuthError);
  assert.throws(
    () =>
      new OAuthClient({
        redirectUri: "http://app.example/cb",
        redirectToAuthorization: answer().redirect,
      }),
    /loopback/,
  );
  assert.throws(
    () =>
      new OAuthClient({
        redirectUri: REDIRECT,
        redirectToAuthorization: answer().redirect,
        clientMetadataUrl: "http://app.example/client.json",
      }),
    /https URL with a path/,
  );
  assert.throws(
    () => new OAuthClient({ grant: "client_credentials" }),
    /pre-registered client/,
  );
});

Deno.test("authorize() probes the endpoint and runs the flow on its 401, before any MCP request; forget() drops the endpoint's tokens", async () => {
  const c = client({});
  const probes: (string | null)[] = [];
  const probe = (async (input: RequestInfo | URL, init: RequestInit = {}) => {
    if (String(input) !== MCP) return await c.fetch(input, init);
    const authorization = new Headers(init.headers).get("authorization");
    probes.push(authorization);
    return authorization === null
      ? new Response("", {
        status: 401,
        headers: {
          "www-authenticate":
            'Bearer resource_metadata="https://mcp.example/.well-known/oauth-protected-resource/mcp"',
        },
      })
      : new Response(null, { status: 405 });
  }) as typeof fetch;
  assert.equal(await c.oauth.authorize(MCP, { fetch: probe }), true);
  assert.equal(c.urls.length, 1);
  assert.equal(
    await c.oauth.authorize(MCP, { fetch: probe }),
    true,
    "held: no new flow",
  );
  assert.equal(c.urls.length, 1);
  assert.deepEqual(probes, [null, "Bearer at-1"]);
  await c.oauth.forget(`${MCP}#x`);
  assert.equal(await c.oauth.authorization(MCP), undefined);
});

Deno.test("the transport with an authorizer: a 401 then a 403 are each sent again once credentials were obtained, never a third time; a DELETE is not; a failed authorization is the request's error", async () => {
  const { StreamableHttpClientTransport, StreamableHttpError } = await import(
    "../lib/mcp/transports/http_mod.ts"
  );
  const sent: { method: string; authorization: string | null }[] = [];
  let statuses: number[] = [];
  const answer = (init: RequestInit): Response => {
    sent.push({
      method: init.method ?? "GET",
      authorization: new Headers(init.headers).get("authorization"),
    });
    const status = statuses.shift() ?? 202;
    if (status === 200) {
      return new Response(
        JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          result: {
            protocolVersion: "2025-11-25",
            capabilities: {},
            serverInfo: { name: "s", version: "1" },
          },
        }),
        {
          headers: {
            "content-type": "application/json",
            "mcp-session-id": "s1",
          },
        },
      );
    }
    return new Response(null, {
      status,
      headers: status === 403 ? { "www-authenticate": 'Bearer error="insufficient_scope"' } : {},
    });
  };
  const server =
    ((_input: RequestInfo | URL, init: RequestInit = {}) =>
      Promise.resolve(answer(init))) as typeof fetch;
  let generation = 0;
  let fail = false;
  const challenges: number[] = [];
  const auth = {
    authorization: () => Promise.resolve(generation ? `Bearer t${generation}` : undefined),
    challenged: (c: HttpChallenge) => {
      challenges.push(c.status);
      if (fail) {
        return Promise.reject(
          new OAuthError("authorization", "the user said no"),
        );
      }
      generation++;
      return Promise.resolve(true);
    },
  };
  const t = new StreamableHttpClientTransport(MCP, {
    auth,
    fetch: server,
    token: "ignored",
  });
  const note = { jsonrpc: "2.0" as const, method: "notifications/initialized" };

  statuses = [401, 403];
  await t.send(note);
  assert.deepEqual(sent.map((s) => s.authorization), [
    null,
    "Bearer t1",
    "Bearer t2",
  ]);
  assert.deepEqual(challenges, [401, 403]);

  sent.length = 0;
  statuses = [401, 401, 401];
  const refused = await t.send(note).then(() => undefined, (e) => e);
  assert.ok(
    refused instanceof StreamableHttpError && refused.status === 401,
    String(refused),
  );
  assert.equal(sent.length, 3, "sent at most three times");

  sent.length = 0;
  fail = true;
  statuses = [401];
  const failed = await t.send(note).then(() => undefined, (e) => e);
  assert.ok(failed instanceof StreamableHttpError && failed.status === 401);
  assert.ok(failed.cause instanceof OAuthError);
  assert.match(failed.message, /authorization failed: the user said no/);
  assert.equal(sent.length, 1);

  // A session, then close(): its DELETE is refused, and not sent again.
  fail = false;
  const before = challenges.length;
  statuses = [200];
  await t.send({
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: {
      protocolVersion: "2025-11-25",
      capabilities: {},
      clientInfo: { name: "c", version: "1" },
    },
  });
  sent.length = 0;
  statuses = [401];
  await t.close();
  assert.deepEqual(sent, [{
    method: "DELETE",
    authorization: `Bearer t${generation}`,
  }]);
  assert.equal(challenges.length, before);
});
