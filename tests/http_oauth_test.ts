/**
 * The HTTP server as an OAuth 2.1 resource server, against a real authorization server
 * (`oidc-provider`, started on 127.0.0.1 by `_oidc.ts`): Protected Resource Metadata, the 401
 * challenges, tokens refused for each reason with the right status and header, the principal from
 * verified claims, expiry and revocation mid-session, and the step-up round trip in both eras —
 * with a hidden tool answered byte for byte as a nonexistent one.
 */
import assert from "node:assert/strict";
import net from "node:net";
import { generateKeyPair } from "jose";
import { McpServer, type ToolRegistry, ToolRegistry as Registry } from "../mod.ts";
import {
  accessTokens,
  type AccessTokensOptions,
  BearerChallenge,
  type McpHttpServer,
  serveHttp,
} from "../lib/mcp/transports/http_mod.ts";
import { spec } from "./_mcp_fixtures.ts";
import { authorize, startAuthorizationServer, type TestAuthorizationServer } from "./_oidc.ts";

const ACCEPT = "application/json, text/event-stream";
const RECORDS: Record<
  string,
  { tenant: string; clearance: "restricted" | "internal" }
> = {
  "wholesale-operator": { tenant: "wholesale", clearance: "restricted" },
  "payments-agent": { tenant: "wholesale", clearance: "restricted" },
};
const SCOPES = ["payments:read", "payments:release", "risk:read"];

function registry(options: { withRisk?: boolean } = {}): ToolRegistry {
  const r = new Registry();
  r.publish(
    spec("payments.lookup", "1.0.0", { requiredScopes: ["payments:read"] }),
  );
  r.publish(spec("payments.release", "1.0.0", {
    sideEffect: "write",
    requiredScopes: ["payments:read"],
    callScopes: ["payments:release"],
  }));
  if (options.withRisk ?? true) {
    r.publish(spec("risk.exposure", "1.0.0", {
      requiredScopes: ["risk:read"],
      callScopes: ["risk:write"],
    }));
  }
  return r;
}

async function freePort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((resolve) => s.listen(0, "127.0.0.1", resolve));
  const port = (s.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}

interface Rs {
  http: McpHttpServer;
  server: McpServer;
  resource: string;
  calls: string[];
  refusals: string[];
  /** Everything each handler run could see of its context, serialized. */
  seen: string[];
  /** The verifier's clock offset, in seconds. */
  clock: { skewSec: number };
  close(): Promise<void>;
}

/** An estate served as a protected resource of `as`, at a resource identifier the AS knows. */
async function resourceServer(
  as: TestAuthorizationServer,
  options: {
    path?: string;
    opaque?: boolean;
    withRisk?: boolean;
    auth?: Partial<AccessTokensOptions>;
  } = {},
): Promise<Rs> {
  const port = await freePort();
  const resource = `http://127.0.0.1:${port}${options.path ?? "/mcp"}`;
  as.addResource({
    resource,
    scopes: SCOPES,
    format: options.opaque ? "opaque" : "jwt",
  });
  const calls: string[] = [];
  const refusals: string[] = [];
  const seen: string[] = [];
  const clock = { skewSec: 0 };
  const server = new McpServer({
    registry: registry(options),
    handlerFor: (t) => (args, context) => {
      seen.push(JSON.stringify({ keys: Object.keys(context), args, context }));
      return {
        tool: t.name,
        by: context.principal.id,
        tenant: context.principal.tenant,
        args,
      };
    },
    onCall: (r) => calls.push(`${r.principal} ${r.tool} ${r.outcome}`),
  });
  const http = await serveHttp(server, {
    port,
    path: options.path ?? "/mcp",
    protectedResource: {
      resource,
      authorizationServers: [as.issuer],
      scopesSupported: ["payments:read"],
    },
    authenticate: accessTokens({
      resource,
      authorizationServers: [{
        issuer: as.issuer,
        introspection: options.opaque ? { ...as.introspectionClient } : undefined,
      }],
      records: (id) => RECORDS[id],
      now: () => Date.now() + clock.skewSec * 1000,
      onRefused: (e) => refusals.push(e.message),
      ...options.auth,
    }),
  });
  return {
    http,
    server,
    resource,
    calls,
    refusals,
    seen,
    clock,
    close: async () => {
      await http.close();
      server.close();
    },
  };
}

function modern(method: string, params: Record<string, unknown> = {}, id = 1) {
  const headers: Record<string, string> = {
    "mcp-protocol-version": "2026-07-28",
    "mcp-method": method,
  };
  if (typeof params.name === "string") headers["mcp-name"] = params.name;
  return {
    headers,
    body: {
      jsonrpc: "2.0",
      id,
      method,
      params: {
        ...params,
        _meta: {
          "io.modelcontextprotocol/protocolVersion": "2026-07-28",
          "io.modelcontextprotocol/clientCapabilities": {},
        },
      },
    },
  };
}

async function post(
  url: string,
  message: { headers?: Record<string, string>; body: unknown },
  auth: { token?: string; session?: string } = {},
): Promise<
  {
    status: number;
    headers: Headers;
    text: string;
    json: Record<string, unknown>;
  }
> {
  const headers: Record<string, string> = {
    accept: ACCEPT,
    "content-type": "application/json",
    ...message.headers,
  };
  if (auth.token !== undefined) headers.authorization = `Bearer ${auth.token}`;
  if (auth.session !== undefined) headers["mcp-session-id"] = auth.session;
  const res = await fetch(url, {
    method: "POST",
    headers,
    body: JSON.stringify(message.body),
  });
  const text = await res.text();
  let json: Record<string, unknown> = {};
  try {
    json = JSON.parse(text);
  } catch {
    // an SSE answer
  }
  return { status: res.status, headers: res.headers, text, json };
}

/** Opens a handshake-era session; returns its id. */
async function openSession(url: string, token: string): Promise<string> {
  const init = await post(url, {
    body: {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: {
        protocolVersion: "2025-11-25",
        capabilities: {},
        clientInfo: { name: "t", version: "1" },
      },
    },
  }, { token });
  assert.equal(init.status, 200, init.text);
  const session = init.headers.get("mcp-session-id")!;
  const done = await post(url, {
    body: { jsonrpc: "2.0", method: "notifications/initialized" },
  }, {
    token,
    session,
  });
  assert.equal(done.status, 202);
  return session;
}

function legacy(method: string, params: Record<string, unknown> = {}, id = 2) {
  return {
    headers: { "mcp-protocol-version": "2025-11-25" },
    body: { jsonrpc: "2.0", id, method, params },
  };
}

function toolNames(res: { json: Record<string, unknown> }): string[] {
  const result = res.json.result as { tools: { name: string }[] };
  return result.tools.map((t) => t.name).sort();
}

function params(header: string | null): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of (header ?? "").matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) {
    out[m[1]] = m[2];
  }
  return out;
}

async function withAs(
  fn: (as: TestAuthorizationServer) => Promise<void>,
): Promise<void> {
  const as = await startAuthorizationServer({ resources: [] });
  try {
    await fn(as);
  } finally {
    await as.close();
  }
}

Deno.test("oauth: Protected Resource Metadata at both well-known paths; a 401 names it and asks for the starting scopes", async () => {
  await withAs(async (as) => {
    const rs = await resourceServer(as);
    try {
      const origin = new URL(rs.resource).origin;
      const expected = {
        resource: rs.resource,
        authorization_servers: [as.issuer],
        scopes_supported: ["payments:read"],
        bearer_methods_supported: ["header"],
      };
      for (
        const path of [
          "/.well-known/oauth-protected-resource/mcp",
          "/.well-known/oauth-protected-resource",
        ]
      ) {
        const res = await fetch(`${origin}${path}`, {
          headers: { origin: "https://inspector.example" },
        });
        assert.equal(res.status, 200, path);
        assert.equal(res.headers.get("access-control-allow-origin"), "*");
        assert.deepEqual(await res.json(), expected);
      }
      const none = await post(rs.http.url, modern("server/discover"));
      assert.equal(none.status, 401);
      assert.equal(
        none.headers.get("www-authenticate"),
        `Bearer realm="mcp", scope="payments:read", resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp"`,
      );
    } finally {
      await rs.close();
    }
  });
});

Deno.test("oauth: a token from the authorization code flow (PKCE) is the principal its claims map to: its scopes' tools, its record's tenant", async () => {
  await withAs(async (as) => {
    const rs = await resourceServer(as);
    try {
      as.nextLogin = "wholesale-operator";
      const { access_token: token } = await authorize(as, {
        resource: rs.resource,
        scope: "payments:read",
      });
      const list = await post(rs.http.url, modern("tools/list"), { token });
      assert.equal(list.status, 200, list.text);
      assert.deepEqual(toolNames(list), [
        "payments.lookup",
        "payments.release",
      ]);
      const call = await post(
        rs.http.url,
        modern("tools/call", {
          name: "payments.lookup",
          arguments: { reference: "PMT-000001" },
        }),
        { token },
      );
      const result = call.json.result as {
        structuredContent: Record<string, unknown>;
      };
      assert.equal(result.structuredContent.by, "wholesale-operator");
      assert.equal(result.structuredContent.tenant, "wholesale");
      // A handler (what a gateway forwards from) sees the principal, never the caller's token:
      // nothing upstream can be handed it.
      assert.equal(rs.seen.length, 1);
      assert.equal(rs.seen[0].includes(token.split(".")[2]), false);
      assert.doesNotMatch(rs.seen[0], /authorization|bearer|eyJ/i);
      // The handshake era sees the same.
      const session = await openSession(rs.http.url, token);
      const legacyList = await post(rs.http.url, legacy("tools/list"), {
        token,
        session,
      });
      assert.deepEqual(toolNames(legacyList), [
        "payments.lookup",
        "payments.release",
      ]);
      // A user the estate does not know is refused, though the token is valid.
      as.nextLogin = "stranger";
      const stranger = await authorize(as, {
        resource: rs.resource,
        scope: "payments:read",
      });
      const refused = await post(rs.http.url, modern("tools/list"), {
        token: stranger.access_token,
      });
      assert.equal(refused.status, 401);
      assert.match(
        refused.headers.get("www-authenticate")!,
        /error="invalid_token"/,
      );
      assert.match(refused.text, /not a principal of this estate/);
    } finally {
      await rs.close();
    }
  });
});

Deno.test("oauth: tokens for another audience, expired, not yet valid, forged, alg none, HMAC with the public key, from another issuer or without exp are each refused 401 invalid_token", async () => {
  await withAs(async (as) => {
    const rs = await resourceServer(as);
    try {
      const other = `http://127.0.0.1:1/other`;
      as.addResource({ resource: other, scopes: SCOPES });
      const now = Math.floor(Date.now() / 1000);
      const good = {
        iss: as.issuer,
        sub: "wholesale-operator",
        aud: rs.resource,
        scope: "payments:read",
        iat: now,
        exp: now + 300,
      };
      const stranger = await generateKeyPair("ES256", { extractable: true });
      const publicDer = JSON.stringify(as.key.publicJwk);
      const hmacKey = await crypto.subtle.importKey(
        "raw",
        new TextEncoder().encode(publicDer),
        { name: "HMAC", hash: "SHA-256" },
        false,
        ["sign"],
      );
      const b64 = (v: unknown) =>
        btoa(JSON.stringify(v)).replace(/\+/g, "-").replace(/\//g, "_").replace(
          /=+$/,
          "",
        );
      const hs256 = async (claims: Record<string, unknown>) => {
        const input = `${b64({ alg: "HS256", kid: as.key.kid, typ: "at+jwt" })}.${b64(claims)}`;
        const sig = new Uint8Array(
          await crypto.subtle.sign(
            "HMAC",
            hmacKey,
            new TextEncoder().encode(input),
          ),
        );
        return `${input}.${
          btoa(String.fromCharCode(...sig)).replace(/\+/g, "-").replace(
            /\//g,
            "_",
          ).replace(
            /=+$/,
            "",
          )
        }`;
      };
      const cases: [string, string, RegExp][] = [
        [
          "another audience",
          await as.clientCredentials(other, "payments:read"),
          /not issued for this resource/,
        ],
        [
          "expired",
          await as.sign({ ...good, iat: now - 600, exp: now - 120 }),
          /expired/,
        ],
        ["not yet valid", await as.sign({ ...good, nbf: now + 600 }), /nbf/],
        [
          "forged signature",
          await as.sign(good, { key: stranger.privateKey }),
          /signature does not verify/,
        ],
        [
          "alg none",
          `${b64({ alg: "none", typ: "at+jwt" })}.${b64(good)}.`,
          /algorithm is not accepted/,
        ],
        [
          "HS256 with the public key",
          await hs256(good),
          /algorithm is not accepted/,
        ],
        [
          "another issuer",
          await as.sign({ ...good, iss: "http://127.0.0.1:2" }),
          /issuer .* not an authorization server this resource trusts/,
        ],
        ["no exp", await as.sign({ ...good, exp: undefined }), /exp/],
        [
          "tampered payload",
          (await as.sign(good)).replace(
            /^([^.]+)\.([^.]+)\./,
            (_, h) => `${h}.${b64({ ...good, scope: "payments:read payments:release" })}.`,
          ),
          /signature does not verify/,
        ],
        ["opaque, nobody introspects", "opaque-token-value", /not a JWT/],
      ];
      for (const [what, token, reason] of cases) {
        const res = await post(rs.http.url, modern("tools/list"), { token });
        assert.equal(res.status, 401, `${what}: ${res.text}`);
        const challenge = params(res.headers.get("www-authenticate"));
        assert.equal(challenge.error, "invalid_token", what);
        assert.equal(
          challenge.resource_metadata,
          `${new URL(rs.resource).origin}/.well-known/oauth-protected-resource/mcp`,
          what,
        );
        assert.match(challenge.error_description, reason, what);
        assert.equal(
          res.text.includes(token.slice(-20)),
          false,
          `${what}: the token is not echoed`,
        );
      }
      // And a token signed with the real key, for the right audience, passes: the cases differ in one thing each.
      const ok = await post(rs.http.url, modern("tools/list"), {
        token: await as.sign(good),
      });
      assert.equal(ok.status, 200, ok.text);
      // A malformed Authorization header is a 400 invalid_request.
      const basic = await fetch(rs.http.url, {
        method: "POST",
        headers: {
          accept: ACCEPT,
          "content-type": "application/json",
          authorization: "Bearer a b c",
        },
        body: JSON.stringify(modern("tools/list").body),
      });
      await basic.body?.cancel();
      assert.equal(basic.status, 400);
      assert.equal(
        params(basic.headers.get("www-authenticate")).error,
        "invalid_request",
      );
    } finally {
      await rs.close();
    }
  });
});

Deno.test("oauth: a token naming an unknown key fetches the key set again, at most once per cooldown", async () => {
  await withAs(async (as) => {
    const rs = await resourceServer(as, { auth: { jwksCooldownMs: 60_000 } });
    try {
      const now = Math.floor(Date.now() / 1000);
      const claims = {
        iss: as.issuer,
        sub: "payments-agent",
        aud: rs.resource,
        exp: now + 60,
      };
      assert.equal(
        (await post(rs.http.url, modern("tools/list"), {
          token: await as.sign(claims),
        })).status,
        200,
      );
      const fetched = as.jwksFetches;
      for (let i = 0; i < 5; i++) {
        const res = await post(rs.http.url, modern("tools/list"), {
          token: await as.sign(claims, { kid: `unknown-${i}` }),
        });
        assert.equal(res.status, 401);
        assert.match(
          res.headers.get("www-authenticate")!,
          /key the issuer does not publish/,
        );
      }
      assert.ok(
        as.jwksFetches - fetched <= 1,
        `${as.jwksFetches - fetched} fetches of the key set`,
      );
    } finally {
      await rs.close();
    }
  });
});

Deno.test("oauth: with the issuer's key set failing, it is fetched at most once per cooldown and the caller gets 503 with Retry-After, not 500; keys already held keep working", async () => {
  await withAs(async (as) => {
    const now = Math.floor(Date.now() / 1000);
    // A resource server started while the issuer's key set is down.
    as.jwksDown = true;
    const rs = await resourceServer(as, { auth: { jwksCooldownMs: 60_000 } });
    try {
      const claims = { iss: as.issuer, sub: "payments-agent", aud: rs.resource, exp: now + 60 };
      const fetched = as.jwksFetches;
      const statuses = new Set<number>();
      let retryAfter: string | null = null;
      let message = "";
      for (let i = 0; i < 100; i++) {
        const res = await post(rs.http.url, modern("tools/list"), {
          token: await as.sign(claims, i % 2 ? { kid: `rotated-${i}` } : {}),
        });
        statuses.add(res.status);
        retryAfter = res.headers.get("retry-after");
        message = (res.json.error as { message: string }).message;
      }
      assert.deepEqual([...statuses], [503]);
      assert.ok(Number(retryAfter) >= 1 && Number(retryAfter) <= 60, `Retry-After ${retryAfter}`);
      assert.match(message, /keys of the authorization server .* could not be fetched/);
      assert.ok(
        as.jwksFetches - fetched <= 1,
        `${as.jwksFetches - fetched} fetches of the failing key set for 100 requests`,
      );
    } finally {
      as.jwksDown = false;
      await rs.close();
    }
    // Keys held, the cooldown over, the key set failing again: an unknown kid is fetched for
    // once, then answered 503 until the cooldown ends; a token signed with a held key still works.
    const held = await resourceServer(as, { auth: { jwksCooldownMs: 300 } });
    try {
      const claims = { iss: as.issuer, sub: "payments-agent", aud: held.resource, exp: now + 60 };
      const good = await as.sign(claims);
      assert.equal((await post(held.http.url, modern("tools/list"), { token: good })).status, 200);
      await new Promise((r) => setTimeout(r, 350)); // past jose's cooldown after the good fetch
      as.jwksDown = true;
      const fetched = as.jwksFetches;
      const statuses = new Set<number>();
      for (let i = 0; i < 50; i++) {
        const res = await post(held.http.url, modern("tools/list"), {
          token: await as.sign(claims, { kid: `rotated-${i}` }),
        });
        statuses.add(res.status);
      }
      assert.deepEqual([...statuses], [503]);
      // One fetch, or two when the loop outlasted one cooldown on a slow machine: never 50.
      assert.ok(as.jwksFetches - fetched <= 2, `${as.jwksFetches - fetched} fetches`);
      // The key already held still verifies a token it never saw while the key set is down.
      const fresh = await as.sign({ ...claims, exp: now + 61 });
      assert.equal((await post(held.http.url, modern("tools/list"), { token: fresh })).status, 200);
    } finally {
      as.jwksDown = false;
      await held.close();
    }
  });
});

Deno.test("oauth: a token that expires mid-session is refused at the next request, and reauthenticate() ends its session", async () => {
  await withAs(async (as) => {
    const rs = await resourceServer(as);
    try {
      const token = await as.clientCredentials(rs.resource, "payments:read");
      const session = await openSession(rs.http.url, token);
      assert.equal(
        (await post(rs.http.url, legacy("tools/list"), { token, session }))
          .status,
        200,
      );
      rs.clock.skewSec = 300 + 31; // past exp and the 30 s tolerance
      const late = await post(rs.http.url, legacy("tools/list"), {
        token,
        session,
      });
      assert.equal(late.status, 401);
      assert.match(
        late.headers.get("www-authenticate")!,
        /error="invalid_token", error_description="the token has expired"/,
      );
      const modernLate = await post(rs.http.url, modern("tools/list"), {
        token,
      });
      assert.equal(modernLate.status, 401);
      assert.equal(rs.http.sessionCount, 1);
      assert.deepEqual(await rs.http.reauthenticate(), {
        ended: 1,
        updated: 0,
      });
      assert.equal(rs.http.sessionCount, 0);
      rs.clock.skewSec = 0;
      const fresh = await as.clientCredentials(rs.resource, "payments:read");
      const gone = await post(rs.http.url, legacy("tools/list"), {
        token: fresh,
        session,
      });
      assert.equal(gone.status, 404);
    } finally {
      await rs.close();
    }
  });
});

Deno.test("oauth: an opaque token is introspected; revoked mid-session, its next request is refused", async () => {
  await withAs(async (as) => {
    const rs = await resourceServer(as, { opaque: true });
    try {
      as.nextLogin = "wholesale-operator";
      const { access_token: token } = await authorize(as, {
        resource: rs.resource,
        scope: "payments:read",
      });
      assert.equal(token.split(".").length, 1, "an opaque token");
      const session = await openSession(rs.http.url, token);
      const list = await post(rs.http.url, legacy("tools/list"), {
        token,
        session,
      });
      assert.deepEqual(toolNames(list), [
        "payments.lookup",
        "payments.release",
      ]);
      // Revoked by its client (a public client may revoke its own token); its id from introspection.
      const res = await fetch(`${as.issuer}/token/introspection`, {
        method: "POST",
        headers: {
          authorization: `Basic ${
            btoa(
              `${as.introspectionClient.clientId}:${as.introspectionClient.clientSecret}`,
            )
          }`,
          "content-type": "application/x-www-form-urlencoded",
        },
        body: new URLSearchParams({ token }),
      });
      const clientId = (await res.json()).client_id as string;
      const revoke = await fetch(`${as.issuer}/token/revocation`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ token, client_id: clientId }),
      });
      await revoke.body?.cancel();
      assert.equal(revoke.status, 200);
      const after = await post(rs.http.url, legacy("tools/list"), {
        token,
        session,
      });
      assert.equal(after.status, 401);
      assert.match(after.headers.get("www-authenticate")!, /not active/);
      // Another resource's opaque token is active but not for this resource.
      const other = `http://127.0.0.1:1/opaque-other`;
      as.addResource({ resource: other, scopes: SCOPES, format: "opaque" });
      const foreign = await authorize(as, {
        resource: other,
        scope: "payments:read",
      });
      const wrong = await post(rs.http.url, modern("tools/list"), {
        token: foreign.access_token,
      });
      assert.equal(wrong.status, 401);
      assert.match(
        wrong.headers.get("www-authenticate")!,
        /not issued for this resource/,
      );
    } finally {
      await rs.close();
    }
  });
});

Deno.test("oauth: step-up — a visible tool missing its action scope gets 403 insufficient_scope; the stepped-up token runs it in the same session, and statelessly", async () => {
  await withAs(async (as) => {
    const rs = await resourceServer(as);
    try {
      as.nextLogin = "wholesale-operator";
      const reader = (await authorize(as, { resource: rs.resource, scope: "payments:read" }))
        .access_token;
      const session = await openSession(rs.http.url, reader);
      const release = {
        name: "payments.release",
        arguments: { reference: "PMT-000042" },
      };
      const refused = await post(
        rs.http.url,
        legacy("tools/call", release, 5),
        {
          token: reader,
          session,
        },
      );
      assert.equal(refused.status, 403);
      const challenge = params(refused.headers.get("www-authenticate"));
      assert.equal(challenge.error, "insufficient_scope");
      assert.equal(challenge.scope, "payments:read payments:release");
      assert.match(
        challenge.resource_metadata,
        /\/\.well-known\/oauth-protected-resource\/mcp$/,
      );
      assert.equal(refused.json.id, 5);
      assert.deepEqual((refused.json.error as { data: unknown }).data, {
        error: "insufficient_scope",
        scope: "payments:read payments:release",
      });
      const modernRefused = await post(
        rs.http.url,
        modern("tools/call", release, 6),
        {
          token: reader,
        },
      );
      assert.equal(modernRefused.status, 403);
      assert.equal(
        params(modernRefused.headers.get("www-authenticate")).scope,
        challenge.scope,
      );
      assert.deepEqual(rs.calls, [
        "wholesale-operator payments.release insufficient-scope",
        "wholesale-operator payments.release insufficient-scope",
      ]);
      // Step up: authorize again with the challenged scope; retry in the same session.
      const releaser = (await authorize(as, { resource: rs.resource, scope: challenge.scope }))
        .access_token;
      const retried = await post(
        rs.http.url,
        legacy("tools/call", release, 7),
        {
          token: releaser,
          session,
        },
      );
      assert.equal(retried.status, 200, retried.text);
      assert.equal(
        (retried.json.result as { isError?: boolean }).isError,
        undefined,
      );
      const modernRetried = await post(
        rs.http.url,
        modern("tools/call", release, 8),
        {
          token: releaser,
        },
      );
      assert.equal(modernRetried.status, 200, modernRetried.text);
      // The old token in the same session is back to what it may do: no release.
      const again = await post(rs.http.url, legacy("tools/call", release, 9), {
        token: reader,
        session,
      });
      assert.equal(again.status, 403);
    } finally {
      await rs.close();
    }
  });
});

/** The bytes of an HTTP answer that do not vary by time: status line, headers but Date, body. */
async function rawAnswer(
  url: string,
  body: unknown,
  headers: Record<string, string>,
): Promise<string> {
  const u = new URL(url);
  const text = JSON.stringify(body);
  const head = [
    `POST ${u.pathname} HTTP/1.1`,
    `Host: ${u.host}`,
    `Accept: ${ACCEPT}`,
    "Content-Type: application/json",
    `Content-Length: ${new TextEncoder().encode(text).length}`,
    "Connection: close",
    ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
  ].join("\r\n");
  const socket = net.connect(Number(u.port), u.hostname);
  const chunks: Uint8Array[] = [];
  await new Promise<void>((resolve, reject) => {
    socket.on("data", (c: Uint8Array) => chunks.push(c));
    socket.on("end", () => resolve());
    socket.on("error", reject);
    socket.write(`${head}\r\n\r\n${text}`);
  });
  socket.destroy();
  const all = new TextDecoder().decode(
    chunks.reduce((a, c) => new Uint8Array([...a, ...c]), new Uint8Array()),
  );
  return all.replace(/\r\nDate: [^\r]*/i, "");
}

Deno.test("oauth: a tool the principal cannot see answers byte for byte as one that does not exist — step-up is no enumeration oracle", async () => {
  await withAs(async (as) => {
    const withRisk = await resourceServer(as, { withRisk: true });
    const withoutRisk = await resourceServer(as, { withRisk: false });
    try {
      // One token valid at both (the same audience would be needed): mint one per server.
      const now = Math.floor(Date.now() / 1000);
      const tokenFor = (rs: Rs) =>
        as.sign({
          iss: as.issuer,
          sub: "wholesale-operator",
          aud: rs.resource,
          scope: "payments:read",
          iat: now,
          exp: now + 300,
        });
      const call = {
        name: "risk.exposure",
        arguments: { reference: "PMT-000001" },
      };
      for (const era of ["modern", "legacy"] as const) {
        const answers: string[] = [];
        for (const rs of [withRisk, withoutRisk]) {
          const token = await tokenFor(rs);
          const message = era === "modern" ? modern("tools/call", call, 3) : undefined;
          let headers: Record<string, string> = {
            Authorization: `Bearer ${token}`,
          };
          let body: unknown;
          if (message) {
            headers = { ...headers, ...message.headers };
            body = message.body;
          } else {
            const session = await openSession(rs.http.url, token);
            headers = {
              ...headers,
              "Mcp-Session-Id": "SESSION",
              "MCP-Protocol-Version": "2025-11-25",
            };
            body = legacy("tools/call", call, 3).body;
            const raw = await rawAnswer(rs.http.url, body, {
              ...headers,
              "Mcp-Session-Id": session,
            });
            answers.push(raw);
            continue;
          }
          answers.push(await rawAnswer(rs.http.url, body, headers));
        }
        assert.match(answers[0], /Unknown tool: risk\.exposure/);
        assert.equal(answers[0], answers[1], era);
        assert.doesNotMatch(answers[0], /insufficient_scope|403/);
      }
    } finally {
      await withRisk.close();
      await withoutRisk.close();
    }
  });
});

Deno.test("oauth: BearerChallenge from any authenticator sets the status and the challenge", async () => {
  const server = new McpServer({
    registry: registry(),
    handlerFor: () => undefined,
  });
  const http = await serveHttp(server, {
    authenticate: () => {
      throw new BearerChallenge("this tenant is suspended", { status: 403 });
    },
    resourceMetadataUrl: "https://mcp.bank.example/.well-known/oauth-protected-resource/mcp",
  });
  try {
    const res = await post(http.url, modern("tools/list"), { token: "x" });
    assert.equal(res.status, 403);
    assert.equal(
      res.headers.get("www-authenticate"),
      'Bearer realm="mcp", error="insufficient_scope", error_description="this tenant is suspended", resource_metadata="https://mcp.bank.example/.well-known/oauth-protected-resource/mcp"',
    );
    assert.match(res.text, /Forbidden: this tenant is suspended/);
  } finally {
    await http.close();
    server.close();
  }
});

Deno.test("oauth: the verifier refuses configurations that would accept forgeries", () => {
  const base = { resource: "https://mcp.bank.example/mcp" };
  assert.throws(
    () =>
      accessTokens({
        ...base,
        authorizationServers: [{
          issuer: "https://as.example",
          algorithms: ["HS256"],
        }],
      }),
    /HS256 is not accepted/,
  );
  assert.throws(
    () =>
      accessTokens({
        ...base,
        authorizationServers: [{
          issuer: "https://as.example",
          algorithms: ["none"],
        }],
      }),
    /none is not accepted/,
  );
  assert.throws(
    () =>
      accessTokens({
        ...base,
        authorizationServers: [{ issuer: "http://as.example" }],
      }),
    /must be an https URI/,
  );
  assert.throws(
    () => accessTokens({ ...base, authorizationServers: [] }),
    /at least one issuer/,
  );
  assert.throws(
    () =>
      accessTokens({
        resource: "mcp.bank.example",
        authorizationServers: [{ issuer: "https://as.example" }],
      }),
    /not a resource identifier/,
  );
});
