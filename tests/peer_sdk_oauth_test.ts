/**
 * The official SDK v1 client's OAuth flow against `estate serve --auth oidc` and a real
 * authorization server (`oidc-provider` on 127.0.0.1): the client finds the authorization server
 * from the 401 and the Protected Resource Metadata, registers itself dynamically, runs the
 * authorization code flow with PKCE and the resource parameter (a programmatic user agent follows
 * the redirects and the automatic login and consent), lists the principal's tools and calls one;
 * then a call needing an action scope gets 403 `insufficient_scope`, the client steps up (a new
 * authorization with the challenged scopes) and the retried call runs. Hidden tools stay hidden
 * throughout.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import net from "node:net";
// @ts-types="@modelcontextprotocol/sdk/client/index"
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
// @ts-types="@modelcontextprotocol/sdk/client/streamableHttp"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
// @ts-types="@modelcontextprotocol/sdk/client/auth"
import {
  type OAuthClientProvider,
  UnauthorizedError,
} from "@modelcontextprotocol/sdk/client/auth.js";
import { startHttpServe, withEstate } from "./_serve.ts";
import { followAuthorization, startAuthorizationServer } from "./_oidc.ts";

const REDIRECT = "http://127.0.0.1:1/callback";
const SCOPES = [
  "payments:read",
  "payments:release",
  "fx:quote",
  "fx:trade",
  "policy:read",
];

async function freePort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((resolve) => s.listen(0, "127.0.0.1", resolve));
  const port = (s.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}

/** An in-memory OAuth client whose "browser" is `followAuthorization`. */
class TestProvider implements OAuthClientProvider {
  #client: unknown;
  #tokens: unknown;
  #verifier = "";
  /** The code of the last authorization, for `finishAuth`. */
  code: string | undefined;
  /** The scopes each authorization asked for. */
  readonly asked: string[] = [];
  get redirectUrl() {
    return REDIRECT;
  }
  get clientMetadata() {
    return {
      client_name: "sdk-oauth-test",
      redirect_uris: [REDIRECT],
      grant_types: ["authorization_code"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
  }
  clientInformation() {
    return this.#client as never;
  }
  saveClientInformation(info: unknown) {
    this.#client = info;
  }
  tokens() {
    return this.#tokens as never;
  }
  saveTokens(tokens: unknown) {
    this.#tokens = tokens;
  }
  async redirectToAuthorization(url: URL) {
    this.asked.push(url.searchParams.get("scope") ?? "");
    assert.equal(url.searchParams.get("code_challenge_method"), "S256");
    assert.ok(
      url.searchParams.get("resource"),
      "the resource parameter is sent",
    );
    const back = await followAuthorization(url, REDIRECT);
    this.code = back.searchParams.get("code") ?? undefined;
    assert.ok(this.code, `no code: ${back.search}`);
  }
  saveCodeVerifier(v: string) {
    this.#verifier = v;
  }
  codeVerifier() {
    return this.#verifier;
  }
}

Deno.test({
  name:
    "SDK v1 client: OAuth (discovery, DCR, code + PKCE) against estate serve --auth oidc, lists the principal's tools, calls one, steps up for an action scope",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const as = await startAuthorizationServer({ resources: [] });
    try {
      await withEstate("sdk-oauth-", async (dir) => {
        // A new fx.quote version that runs only for fx:trade (it is seen with fx:quote).
        const v1 = JSON.parse(
          fs.readFileSync(`${dir}/tools/fx.quote/1.0.0.json`, "utf8"),
        );
        fs.writeFileSync(
          `${dir}/tools/fx.quote/1.1.0.json`,
          JSON.stringify(
            { ...v1, version: "1.1.0", callScopes: ["fx:trade"] },
            null,
            2,
          ),
        );
        const lifecycle = JSON.parse(
          fs.readFileSync(`${dir}/tools/fx.quote/lifecycle.json`, "utf8"),
        );
        lifecycle["1.1.0"] = [{
          state: "active",
          at: "2026-09-01T09:00:00.000Z",
        }];
        fs.writeFileSync(
          `${dir}/tools/fx.quote/lifecycle.json`,
          JSON.stringify(lifecycle, null, 2),
        );

        const port = await freePort();
        const resource = `http://127.0.0.1:${port}/mcp`;
        as.addResource({ resource, scopes: SCOPES });
        as.nextLogin = "wholesale-operator";
        let log = "";
        const serve = await startHttpServe(dir, (t) => (log += t), {
          listen: `127.0.0.1:${port}`,
          args: [
            "--auth",
            "oidc",
            "--issuer",
            as.issuer,
            "--resource",
            resource,
            "--scopes",
            "payments:read fx:quote policy:read",
          ],
        });
        try {
          const provider = new TestProvider();
          const connect = () => {
            const client = new Client({
              name: "sdk-oauth-test",
              version: "1.0.0",
            });
            const transport = new StreamableHTTPClientTransport(serve.url, {
              authProvider: provider,
            });
            return { client, transport, done: client.connect(transport) };
          };
          const first = connect();
          await assert.rejects(first.done, UnauthorizedError);
          assert.deepEqual(provider.asked, [
            "payments:read fx:quote policy:read",
          ]);
          await first.transport.finishAuth(provider.code!);
          await first.client.close();

          const { client, transport, done } = connect();
          await done;
          const names = (await client.listTools()).tools.map((t) => t.name)
            .sort();
          // payments.release needs payments:release to be seen; risk and retail tools never are.
          assert.deepEqual(names, [
            "fx.quote",
            "payments.lookup",
            "policy.search",
          ]);
          const found = await client.callTool({
            name: "policy.search",
            arguments: { query: "cut-off" },
          });
          assert.notEqual(found.isError, true, JSON.stringify(found));

          // fx.quote 1.1.0 needs fx:trade to run: 403 insufficient_scope, the SDK re-authorizes.
          const quote = {
            name: "fx.quote",
            arguments: { sell: "EUR", buy: "USD", amount: 1000 },
          };
          await assert.rejects(client.callTool(quote), UnauthorizedError);
          assert.equal(provider.asked.length, 2);
          assert.deepEqual(
            provider.asked[1].split(" ").sort(),
            ["fx:quote", "fx:trade", "payments:read", "policy:read"],
            "the challenge keeps the scopes granted",
          );
          await transport.finishAuth(provider.code!);
          const quoted = await client.callTool(quote);
          assert.notEqual(quoted.isError, true, JSON.stringify(quoted));
          assert.equal(
            (quoted.structuredContent as { sell: string }).sell,
            "EUR",
          );
          // Still nothing hidden leaks: the stepped-up principal sees what its scopes allow.
          assert.deepEqual(
            (await client.listTools()).tools.map((t) => t.name).sort(),
            ["fx.quote", "payments.lookup", "policy.search"],
          );
          await client.close();
          assert.match(
            log,
            /call wholesale-operator fx\.quote@1\.1\.0 insufficient-scope/,
          );
          assert.match(log, /call wholesale-operator fx\.quote@1\.1\.0 ok/);
          assert.doesNotMatch(log, /eyJ/, "no token in the log");
        } finally {
          await serve.stop();
        }
      });
    } finally {
      await as.close();
    }
  },
});
