/**
 * `estate serve --auth oidc`: its settings from flags and from `--auth-config` (flags win, secrets
 * only from the environment), and its usage errors. The server it runs is driven end to end by
 * tests/peer_sdk_oauth_test.ts.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { oidcSettings } from "../lib/cli/_auth_config.ts";
import { runServe } from "../lib/cli/serve.ts";
import { UsageError } from "../lib/cli/_args.ts";

const flags = (o: Record<string, string>) => new Map<string, string | true>(Object.entries(o));

Deno.test("oidcSettings(): flags name the issuer, resource, audiences, scopes and claims", () => {
  assert.deepEqual(
    oidcSettings(
      flags({
        auth: "oidc",
        issuer: "https://login.bank.example",
        resource: "https://mcp.bank.example/mcp",
        audience: "api://estate,estate",
        scopes: "payments:read fx:quote",
        "principal-claim": "client_id",
        "tenant-claim": "org",
      }),
      "/",
    ),
    {
      resource: "https://mcp.bank.example/mcp",
      audiences: ["api://estate", "estate"],
      authorizationServers: [{ issuer: "https://login.bank.example" }],
      scopesSupported: ["payments:read", "fx:quote"],
      claims: { principal: "client_id", tenant: "org" },
      defaults: {},
    },
  );
  assert.throws(
    () => oidcSettings(flags({ auth: "oidc" }), "/"),
    /needs --issuer URL/,
  );
});

Deno.test("oidcSettings(): an --auth-config file, its introspection secret from the environment, flags winning", async () => {
  const dir = await Deno.makeTempDir({ prefix: "auth-config-" });
  try {
    const file = path.join(dir, "auth.json");
    fs.writeFileSync(
      file,
      JSON.stringify({
        authorizationServers: [{
          issuer: "https://login.bank.example",
          introspection: {
            clientId: "estate-rs",
            clientSecretEnv: "RS_SECRET",
            cacheMs: 5000,
          },
        }],
        resource: "https://mcp.bank.example/mcp",
        scopesSupported: ["payments:read"],
        claims: { scopes: "scp", clearance: "clearance" },
        defaults: { tenant: "group" },
      }),
    );
    const settings = oidcSettings(
      flags({
        "auth-config": "auth.json",
        resource: "https://other.bank.example/mcp",
      }),
      dir,
      { RS_SECRET: "s3cret" },
    );
    assert.deepEqual(settings.authorizationServers, [{
      issuer: "https://login.bank.example",
      introspection: {
        clientId: "estate-rs",
        clientSecret: "s3cret",
        cacheMs: 5000,
      },
    }]);
    assert.equal(settings.resource, "https://other.bank.example/mcp");
    assert.deepEqual(settings.claims, {
      scopes: "scp",
      clearance: "clearance",
    });
    assert.deepEqual(settings.defaults, { tenant: "group" });
    assert.throws(
      () => oidcSettings(flags({ "auth-config": "auth.json" }), dir, {}),
      (e: unknown) => e instanceof UsageError && /RS_SECRET .* is not set/.test(e.message),
    );
    fs.writeFileSync(
      file,
      JSON.stringify({ issuer: "https://a.example", clientSecret: "x" }),
    );
    assert.throws(
      () => oidcSettings(flags({ "auth-config": "auth.json" }), dir),
      /unknown field clientSecret/,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("estate serve: --auth takes tokens or oidc; oidc flags need --auth oidc; oidc is not for stdio", async () => {
  for (
    const [argv, why] of [
      [["--auth", "saml"], /--auth takes tokens or oidc/],
      [
        ["--issuer", "https://login.bank.example"],
        /--issuer needs --auth oidc/,
      ],
      [[
        "--stdio",
        "--principal",
        "retail-agent",
        "--auth",
        "oidc",
        "--issuer",
        "https://a.example",
      ], /--auth oidc is for HTTP/],
      [["--auth", "oidc"], /needs --issuer URL/],
    ] as [string[], RegExp][]
  ) {
    let err = "";
    const code = await runServe(argv, {
      stdout: () => {},
      stderr: (t) => (err += t),
      isTerminal: false,
      cwd: Deno.cwd(),
    }, {
      system: () => {
        throw new Error("a usage error serves nothing");
      },
    });
    assert.equal(code, 2, argv.join(" "));
    assert.match(err, why);
  }
});
