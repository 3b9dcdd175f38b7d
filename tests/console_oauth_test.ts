/**
 * Signing in to the console with OAuth: the authorization code flow with PKCE against a real
 * authorization server (oidc-provider, `_oidc.ts`), started by the console through the endpoint's
 * own Protected Resource Metadata; the token it gets is judged by the endpoint's `accessTokens`
 * like any agent's, and the console shows that principal's estate.
 */
import assert from "node:assert/strict";
import net from "node:net";
import { McpServer } from "../mod.ts";
import { accessTokens, serveHttp } from "../lib/mcp/transports/http_mod.ts";
import { EstateDir } from "../lib/store/mod.ts";
import { webConsole } from "../lib/cli/console/console.ts";
import { followAuthorization, startAuthorizationServer } from "./_oidc.ts";
import { SEES, withEstate } from "./_serve.ts";

async function freePort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((resolve) => s.listen(0, "127.0.0.1", resolve));
  const port = (s.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}

const cookieOf = (res: Response, name: string) =>
  res.headers.getSetCookie().find((c) => c.startsWith(`${name}=`))?.split(";")[0];

Deno.test("console: OAuth sign-in — authorization code with PKCE at the endpoint's authorization server; the token is judged as the endpoint judges it", async () => {
  const as = await startAuthorizationServer({ resources: [] });
  await withEstate("console-oauth-", async (dir) => {
    const estate = EstateDir.open(dir);
    const port = await freePort();
    const resource = `http://127.0.0.1:${port}/mcp`;
    const scopes = ["payments:read", "payments:release", "fx:quote", "policy:read"];
    as.addResource({ resource, scopes, format: "jwt" });
    as.nextLogin = "wholesale-operator";
    const server = new McpServer({ registry: estate.registry, handlerFor: () => () => ({}) });
    const web = webConsole({
      estate,
      signIn: { kind: "oauth", allowHttp: true },
    });
    const http = await serveHttp(server, {
      port,
      // The 401 asks for scopes_supported: what a person signing in is granted (`--scopes`).
      protectedResource: { resource, authorizationServers: [as.issuer], scopesSupported: scopes },
      authenticate: accessTokens({
        resource,
        authorizationServers: [{ issuer: as.issuer }],
        records: (id) => estate.principal(id),
      }),
      pages: web.pages,
    });
    const base = `http://127.0.0.1:${port}/console`;
    try {
      const page = await (await fetch(`${base}/sign-in`)).text();
      assert.match(page, /data-oauth-start/);
      const start = await fetch(`${base}/oauth/start?next=%2Fconsole%2F`, { redirect: "manual" });
      await start.body?.cancel();
      assert.equal(start.status, 303);
      const authorizeAt = new URL(start.headers.get("location")!);
      assert.equal(authorizeAt.origin, as.issuer);
      assert.equal(authorizeAt.searchParams.get("code_challenge_method"), "S256");
      assert.equal(authorizeAt.searchParams.get("resource"), resource);
      const signInCookie = cookieOf(start, "estate_console_signin")!;
      assert.ok(signInCookie);
      const back = await followAuthorization(authorizeAt, `${base}/oauth/callback`);
      // From another browser (no sign-in cookie): refused, and the sign-in stays open for its own.
      const stranger = await fetch(back, { redirect: "manual" });
      assert.equal(stranger.status, 400);
      await stranger.body?.cancel();
      const done = await fetch(back, { headers: { cookie: signInCookie }, redirect: "manual" });
      assert.equal(done.status, 200);
      assert.match(await done.text(), /Signed in as wholesale-operator/);
      const session = cookieOf(done, "estate_console")!;
      assert.ok(session && session.length > 100, "the access token is the credential");
      const home = await (await fetch(`${base}/`, { headers: { cookie: session } })).text();
      assert.match(home, /data-principal>wholesale-operator</);
      const listed = [...home.matchAll(/<tr data-tool="([^"]+)"/g)].map((m) => m[1]);
      assert.deepEqual(
        listed.filter((n) => SEES["wholesale-operator"].includes(n)),
        SEES["wholesale-operator"],
      );
      assert.ok(!listed.includes("retail.transfers.lookup"));
      // The same callback again: the sign-in is spent.
      const again = await fetch(back, { headers: { cookie: signInCookie }, redirect: "manual" });
      assert.equal(again.status, 401);
      await again.body?.cancel();
    } finally {
      web.close();
      await http.close();
      server.close();
    }
  });
  await as.close();
});
