/**
 * What OAuth access-token verification costs per request, against the static-token path:
 *
 * 1. the authenticator alone: `bearerTokens` (SHA-256 of the token, compared in constant time with
 *    each principal's) against `accessTokens` with the key set already fetched (a JWT's ES256 or
 *    RS256 signature, `iss`, `exp`/`nbf`, `aud`, the claims to a principal), the signature checked
 *    on every call (`verifiedCacheMs: 0`) or, the default, once per token (then its SHA-256, `exp`
 *    and `nbf`) — per call;
 * 2. a whole request: `tools/list` (2026-07-28, stateless) POSTed to `serveHttp` on 127.0.0.1, one
 *    server per authenticator, the same estate — per request, so the share of verification in a
 *    real request shows.
 *
 * Each round times every contender in a rotated order; the table gives the median over rounds, the
 * spread (largest distance of a round from the median) and the ratio to the static path (the median
 * over rounds of the within-round ratio). Run:
 *
 *   npx -y deno@2.9.6 task run bench/auth_bench.ts [--rounds 7] [--calls 2000] [--requests 400]
 *
 * @module
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import process from "node:process";
import { exportJWK, generateKeyPair, SignJWT } from "jose";
import { McpServer, type ToolSpec } from "../mod.ts";
import { ToolRegistry } from "../mod.ts";
import {
  accessTokens,
  type Authenticate,
  bearerTokens,
  serveHttp,
} from "../lib/mcp/transports/http_mod.ts";
import { flag, markdownTable, median, ms, ratio, rotate, roundRatio, spread } from "./_stats.ts";

const args = process.argv.slice(2);
const ROUNDS = flag(args, "rounds", 7);
const CALLS = flag(args, "calls", 2000);
const REQUESTS = flag(args, "requests", 400);

const PRINCIPALS = ["retail-agent", "wholesale-operator", "group-risk-analyst"];
const RECORD = { tenant: "wholesale", clearance: "restricted" as const };

// A key set on 127.0.0.1, fetched once (then cached by the verifier).
const es = await generateKeyPair("ES256");
const rs = await generateKeyPair("RS256");
const jwks = {
  keys: [
    { ...(await exportJWK(es.publicKey)), kid: "es", alg: "ES256", use: "sig" },
    { ...(await exportJWK(rs.publicKey)), kid: "rs", alg: "RS256", use: "sig" },
  ],
};
let jwksFetches = 0;
const keyServer = createServer((_req, res) => {
  jwksFetches++;
  res.writeHead(200, { "content-type": "application/json" });
  res.end(JSON.stringify(jwks));
});
await new Promise<void>((resolve) => keyServer.listen(0, "127.0.0.1", resolve));
const issuer = `http://127.0.0.1:${(keyServer.address() as AddressInfo).port}`;
const resource = "http://127.0.0.1:1/mcp";

const now = Math.floor(Date.now() / 1000);
const claims = {
  iss: issuer,
  sub: "wholesale-operator",
  aud: resource,
  scope: "payments:read fx:quote policy:read",
  iat: now,
  exp: now + 3600,
};
const esToken = await new SignJWT(claims).setProtectedHeader({ alg: "ES256", kid: "es" }).sign(
  es.privateKey,
);
const rsToken = await new SignJWT(claims).setProtectedHeader({ alg: "RS256", kid: "rs" }).sign(
  rs.privateKey,
);

const staticAuth = bearerTokens(
  PRINCIPALS.map((id) => ({ id, scopes: ["payments:read"], ...RECORD, token: `demo-token-${id}` })),
);
const oauthAuth = (resourceId: string, verifiedCacheMs = 0) =>
  accessTokens({
    resource: resourceId,
    authorizationServers: [{ issuer, jwksUri: `${issuer}/jwks` }],
    records: () => RECORD,
    verifiedCacheMs,
  });

interface Contender {
  name: string;
  run: (n: number) => Promise<void>;
}

async function timeRounds(contenders: Contender[], n: number): Promise<number[][]> {
  const perCall: number[][] = contenders.map(() => []);
  for (const c of contenders) await c.run(Math.min(n, 50)); // warm-up, and the key set fetched
  for (let r = 0; r < ROUNDS; r++) {
    for (const c of rotate(contenders, r)) {
      const t0 = performance.now();
      await c.run(n);
      perCall[contenders.indexOf(c)].push((performance.now() - t0) / n);
    }
  }
  return perCall;
}

function table(contenders: Contender[], perCall: number[][], unit: string): string {
  return markdownTable(
    [unit, "median", "spread", "× static"],
    contenders.map((c, i) => [
      c.name,
      ms(median(perCall[i])),
      spread(perCall[i]),
      ratio(roundRatio(perCall[i], perCall[0])),
    ]),
  );
}

// 1. The authenticator alone.
const request = (token: string) => ({
  method: "POST",
  path: "/mcp",
  headers: { authorization: `Bearer ${token}` },
});
const repeat = (auth: Authenticate, token: string) => async (n: number) => {
  const req = request(token);
  for (let i = 0; i < n; i++) {
    if (!(await auth(req))) throw new Error("refused");
  }
};
const alone: Contender[] = [
  { name: "static token (bearerTokens)", run: repeat(staticAuth, "demo-token-wholesale-operator") },
  { name: "JWT ES256, signature checked", run: repeat(oauthAuth(resource), esToken) },
  { name: "JWT RS256, signature checked", run: repeat(oauthAuth(resource), rsToken) },
  { name: "JWT ES256, seen before (cache)", run: repeat(oauthAuth(resource, 60_000), esToken) },
];
const aloneTimes = await timeRounds(alone, CALLS);

// 2. A whole request over HTTP.
const registry = new ToolRegistry();
for (const name of ["payments.lookup", "fx.quote", "policy.search"]) {
  const spec: ToolSpec = {
    name,
    version: "1.0.0",
    title: name,
    description: `The ${name} tool.`,
    inputSchema: { type: "object" },
    sideEffect: "read",
    requiredScopes: [name === "payments.lookup" ? "payments:read" : "policy:read"],
    dataClassification: "internal",
    tenants: [],
    owner: "bench",
  };
  registry.publish(spec);
}
const mcp = new McpServer({ registry, handlerFor: () => () => "ok" });
const servers = await Promise.all([0, 1, 2].map(async (i) => {
  const port = await new Promise<number>((resolve) => {
    const s = createServer();
    s.listen(0, "127.0.0.1", () => {
      const p = (s.address() as AddressInfo).port;
      s.close(() => resolve(p));
    });
  });
  const url = `http://127.0.0.1:${port}/mcp`;
  return await serveHttp(mcp, {
    port,
    authenticate: i === 0 ? staticAuth : oauthAuth(url, i === 2 ? 60_000 : 0),
    maxConnectionsPerAddress: 1024,
  });
}));
const tokenFor = (url: string) =>
  new SignJWT({ ...claims, aud: url }).setProtectedHeader({ alg: "ES256", kid: "es" }).sign(
    es.privateKey,
  );
const body = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "tools/list",
  params: {
    _meta: {
      "io.modelcontextprotocol/protocolVersion": "2026-07-28",
      "io.modelcontextprotocol/clientCapabilities": {},
    },
  },
});
const post = (url: string, token: string) => async (n: number) => {
  for (let i = 0; i < n; i++) {
    const res = await fetch(url, {
      method: "POST",
      headers: {
        authorization: `Bearer ${token}`,
        accept: "application/json, text/event-stream",
        "content-type": "application/json",
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": "tools/list",
      },
      body,
    });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`HTTP ${res.status}`);
  }
};
const whole: Contender[] = [
  { name: "tools/list, static token", run: post(servers[0].url, "demo-token-wholesale-operator") },
  {
    name: "tools/list, JWT ES256, signature checked",
    run: post(servers[1].url, await tokenFor(servers[1].url)),
  },
  {
    name: "tools/list, JWT ES256, seen before",
    run: post(servers[2].url, await tokenFor(servers[2].url)),
  },
];
const wholeTimes = await timeRounds(whole, REQUESTS);

for (const s of servers) await s.close();
mcp.close();
await new Promise<void>((resolve) => keyServer.close(() => resolve()));

console.log(
  `Authentication per request, ${ROUNDS} rounds (Deno ${Deno.version.deno}, ${navigator.hardwareConcurrency} cores); key set fetched ${jwksFetches} times in all\n`,
);
console.log(`The authenticator alone (${CALLS} calls a round):\n`);
console.log(table(alone, aloneTimes, "per call"));
console.log(`\nA whole tools/list over HTTP on 127.0.0.1 (${REQUESTS} requests a round):\n`);
console.log(table(whole, wholeTimes, "per request"));
