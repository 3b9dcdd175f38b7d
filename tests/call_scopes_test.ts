/**
 * The action-scope gate (`callScopes`): parsed and checked in a spec; a caller who sees a tool
 * but lacks an action scope gets a tool error naming it over stdio (and in any session or
 * stateless request handled without a transport's own step-up answer), logged as
 * `insufficient-scope`, the handler never reached; `scopeChallenge` decides the same without
 * logging probes; a session takes a stepped-up principal. And the pure helpers of the resource
 * server: claims to principal, canonical resource identifiers, metadata, challenge headers.
 */
import assert from "node:assert/strict";
import { PassThrough } from "node:stream";
import {
  type CallRecord,
  McpServer,
  parseToolSpec,
  type Principal,
  type ProbeRecord,
  ToolRegistry,
  ToolSpecError,
} from "../mod.ts";
import { serveStdio } from "../lib/mcp/transports/stdio.ts";
import {
  BearerChallenge,
  bearerChallengeHeader,
  canonicalResource,
  principalFromClaims,
  protectedResourceMetadata,
  protectedResourceMetadataUrl,
} from "../lib/mcp/transports/http_mod.ts";
import { spec } from "./_mcp_fixtures.ts";

const READER: Principal = {
  id: "ops",
  scopes: ["payments:read"],
  tenant: "wholesale",
  clearance: "restricted",
};

function estate(): ToolRegistry {
  const r = new ToolRegistry();
  r.publish(spec("payments.release", "1.0.0", {
    sideEffect: "write",
    requiredScopes: ["payments:read"],
    callScopes: ["payments:release", "payments:four-eyes"],
  }));
  r.publish(spec("payments.release", "1.1.0", {
    sideEffect: "write",
    requiredScopes: ["payments:read"],
    callScopes: ["payments:release"],
  }));
  r.publish(spec("risk.limits", "1.0.0", {
    requiredScopes: ["risk:read"],
    callScopes: ["risk:write"],
  }));
  return r;
}

function server(registry = estate()) {
  const calls: CallRecord[] = [];
  const probes: ProbeRecord[] = [];
  const ran: string[] = [];
  const s = new McpServer({
    registry,
    handlerFor: (t) => () => {
      ran.push(`${t.name}@${t.version}`);
      return "released";
    },
    onCall: (r) => calls.push(r),
    onProbe: (p) => probes.push(p),
  });
  return { server: s, calls, probes, ran };
}

const call = (name: string, extra: Record<string, unknown> = {}, id = 2) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name, arguments: { reference: "PMT-000001" }, ...extra },
});

Deno.test("parseToolSpec() takes callScopes as a list of OAuth scopes, deduplicated; absent stays absent", () => {
  const base = spec("payments.release", "1.0.0") as unknown as Record<
    string,
    unknown
  >;
  const parsed = parseToolSpec({
    ...base,
    callScopes: ["payments:release", "payments:release"],
  });
  assert.deepEqual(parsed.callScopes, ["payments:release"]);
  assert.equal("callScopes" in parseToolSpec(base), false);
  assert.throws(
    () => parseToolSpec({ ...base, callScopes: ["payments release", 'a"b'] }),
    (e: unknown) =>
      e instanceof ToolSpecError &&
      e.problems.filter((p) => /is not an OAuth scope/.test(p)).length === 2,
  );
  assert.throws(
    () => parseToolSpec({ ...base, callScopes: "payments:release" }),
    /list of strings/,
  );
});

Deno.test("over stdio, a visible tool missing an action scope is a tool error naming the scope; the handler never runs", async () => {
  const { server: s, calls, ran } = server();
  const input = new PassThrough();
  const output = new PassThrough();
  const lines: Record<string, unknown>[] = [];
  let buffer = "";
  output.on("data", (c: Uint8Array) => {
    buffer += new TextDecoder().decode(c);
    for (
      let nl;
      (nl = buffer.indexOf("\n")) !== -1;
      buffer = buffer.slice(nl + 1)
    ) {
      lines.push(JSON.parse(buffer.slice(0, nl)));
    }
  });
  const done = serveStdio(s, { principal: READER, input, output });
  const send = (m: unknown) => input.write(JSON.stringify(m) + "\n");
  const answer = async (id: number) => {
    for (let i = 0; i < 400; i++) {
      const hit = lines.find((l) => l.id === id);
      if (hit) return hit;
      await new Promise((r) => setTimeout(r, 5));
    }
    throw new Error(`no answer ${id}`);
  };
  send({
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-11-25", capabilities: {} },
  });
  await answer(1);
  send({ jsonrpc: "2.0", method: "notifications/initialized" });
  send(call("payments.release"));
  const refused = await answer(2) as { result: Record<string, unknown> };
  assert.equal(refused.result.isError, true);
  assert.match(
    (refused.result.content as { text: string }[])[0].text,
    /^payments\.release needs the scope payments:release to run/,
  );
  assert.deepEqual(refused.result.structuredContent, {
    error: "insufficient_scope",
    scope: "payments:release",
  });
  // A pinned older version needs two: both named.
  send(
    call(
      "payments.release",
      { _meta: { "dev.tool-estate/version": "1.0.0" } },
      3,
    ),
  );
  const pinned = await answer(3) as { result: { content: { text: string }[] } };
  assert.match(
    pinned.result.content[0].text,
    /the scopes payments:release payments:four-eyes/,
  );
  assert.deepEqual(ran, []);
  assert.deepEqual(calls.map((c) => `${c.tool}@${c.version} ${c.outcome}`), [
    "payments.release@1.1.0 insufficient-scope",
    "payments.release@1.0.0 insufficient-scope",
  ]);
  input.end();
  await done;
  s.close();
});

Deno.test("a hidden tool with action scopes is answered as a nonexistent one, in both eras; scopeChallenge() gives no challenge and logs no probe", async () => {
  const withHidden = server();
  const without = server((() => {
    const r = new ToolRegistry();
    r.publish(
      spec("payments.release", "1.1.0", { requiredScopes: ["payments:read"] }),
    );
    return r;
  })());
  const modern = {
    jsonrpc: "2.0",
    id: 4,
    method: "tools/call",
    params: {
      name: "risk.limits",
      arguments: {},
      _meta: {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
      },
    },
  };
  const answers = [];
  for (const x of [withHidden, without]) {
    assert.equal(
      x.server.scopeChallenge(call("risk.limits"), READER),
      undefined,
    );
    assert.equal(x.probes.length, 0);
    const session = x.server.openSession({
      principal: READER,
      notify: () => {},
    });
    await x.server.handle({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {} },
    }, session);
    await x.server.handle({
      jsonrpc: "2.0",
      method: "notifications/initialized",
    }, session);
    answers.push(
      JSON.stringify(await x.server.handle(call("risk.limits"), session)),
    );
    answers.push(
      JSON.stringify(
        await x.server.handleStateless(modern, { principal: READER }),
      ),
    );
  }
  assert.equal(answers[0], answers[2]);
  assert.equal(answers[1], answers[3]);
  assert.match(answers[0], /Unknown tool: risk\.limits/);
  assert.equal(
    withHidden.probes.length,
    2,
    "probes are logged by handle, once each",
  );
  withHidden.server.close();
  without.server.close();
});

Deno.test("scopeChallenge() names the missing and the needed scopes of the version the call reaches, and logs the refusal", () => {
  const { server: s, calls } = server();
  assert.deepEqual(s.scopeChallenge(call("payments.release"), READER), {
    tool: "payments.release",
    version: "1.1.0",
    missing: ["payments:release"],
    needed: ["payments:read", "payments:release"],
  });
  assert.deepEqual(
    s.scopeChallenge(
      call("payments.release", {
        _meta: { "dev.tool-estate/version": "1.0.0" },
      }),
      { ...READER, scopes: ["payments:read", "payments:release"] },
    )?.missing,
    ["payments:four-eyes"],
  );
  const granted = { ...READER, scopes: ["payments:read", "payments:release"] };
  assert.equal(s.scopeChallenge(call("payments.release"), granted), undefined);
  // Not a call, a notification, malformed params, an unknown pin: no challenge.
  assert.equal(
    s.scopeChallenge({ jsonrpc: "2.0", id: 1, method: "tools/list" }, READER),
    undefined,
  );
  assert.equal(
    s.scopeChallenge({
      jsonrpc: "2.0",
      method: "tools/call",
      params: call("x").params,
    }, READER),
    undefined,
  );
  assert.equal(
    s.scopeChallenge({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: 3 },
    }, READER),
    undefined,
  );
  assert.equal(
    s.scopeChallenge(
      call("payments.release", {
        _meta: { "dev.tool-estate/version": "9.0.0" },
      }),
      READER,
    ),
    undefined,
  );
  assert.deepEqual(
    calls.map((c) => `${c.principal} ${c.tool}@${c.version} ${c.outcome}`),
    [
      "ops payments.release@1.1.0 insufficient-scope",
      "ops payments.release@1.0.0 insufficient-scope",
    ],
  );
  s.close();
});

Deno.test("updateSessionPrincipal() serves the session as the stepped-up principal, tells it list_changed when its tools changed, and leaves others alone", async () => {
  const { server: s, ran } = server();
  const told: string[] = [];
  const session = s.openSession({
    principal: READER,
    notify: (m) => told.push(m.method),
  });
  const other = s.openSession({ principal: READER, notify: () => {} });
  for (const x of [session, other]) {
    await s.handle({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {} },
    }, x);
    await s.handle({ jsonrpc: "2.0", method: "notifications/initialized" }, x);
  }
  const stepped = { ...READER, scopes: ["payments:read", "payments:release"] };
  assert.equal(s.updateSessionPrincipal(session, stepped), true);
  assert.deepEqual(told, [], "the same tools are visible: no list_changed");
  const ok = await s.handle(call("payments.release"), session) as {
    result: { isError?: boolean };
  };
  assert.equal(ok.result.isError, undefined);
  const still = await s.handle(call("payments.release", {}, 3), other) as {
    result: { isError?: boolean };
  };
  assert.equal(still.result.isError, true);
  assert.deepEqual(ran, ["payments.release@1.1.0"]);
  s.updateSessionPrincipal(session, {
    ...stepped,
    scopes: [...stepped.scopes, "risk:read"],
  });
  assert.deepEqual(told, ["notifications/tools/list_changed"]);
  assert.throws(
    () => s.updateSessionPrincipal(session, { ...READER, id: "mallory" }),
    TypeError,
  );
  s.closeSession(session);
  assert.equal(s.updateSessionPrincipal(session, READER), false);
  s.close();
});

Deno.test("principalFromClaims() maps the declared claims; claims win over the record, the record over defaults", () => {
  const records = (id: string) =>
    id === "ops" ? { tenant: "wholesale", clearance: "restricted" as const } : undefined;
  assert.deepEqual(
    principalFromClaims({ sub: "ops", scope: "a b a" }, { records }),
    {
      id: "ops",
      scopes: ["a", "b"],
      tenant: "wholesale",
      clearance: "restricted",
    },
  );
  assert.deepEqual(
    principalFromClaims(
      {
        sub: "u1",
        client_id: "ops",
        scp: ["x"],
        org: "retail",
        lvl: "internal",
      },
      {
        claims: {
          principal: "client_id",
          scopes: "scp",
          tenant: "org",
          clearance: "lvl",
        },
        records,
      },
    ),
    { id: "ops", scopes: ["x"], tenant: "retail", clearance: "internal" },
  );
  assert.deepEqual(
    principalFromClaims({ sub: "new" }, {
      defaults: { tenant: "group", clearance: "public" },
    }),
    { id: "new", scopes: [], tenant: "group", clearance: "public" },
  );
  const refused = (claims: Record<string, unknown>, why: RegExp) =>
    assert.throws(
      () => principalFromClaims(claims, { records, claims: { clearance: "lvl" } }),
      (e: unknown) => e instanceof BearerChallenge && e.status === 401 && why.test(e.message),
    );
  refused({ scope: "a" }, /no sub claim/);
  refused({ sub: "stranger" }, /not a principal of this estate/);
  refused(
    { sub: "ops", lvl: "top-secret" },
    /clearance "top-secret" is not one of/,
  );
  refused({ sub: "ops", scope: 3 }, /space-separated string or a list/);
  refused({ sub: "ops", lvl: 2 }, /lvl claim must be a non-empty string/);
});

Deno.test("resource identifiers, metadata URLs and documents, and challenge headers follow RFC 8707, 9728 and 6750", () => {
  assert.equal(
    canonicalResource("HTTP://127.0.0.1:3000/mcp/"),
    "http://127.0.0.1:3000/mcp",
  );
  for (
    const bad of [
      "mcp.example.com",
      "https://a.example/mcp#x",
      "https://a.example/?q=1",
      "ftp://a.example",
      "https://u:p@a.example",
    ]
  ) {
    assert.throws(() => canonicalResource(bad), TypeError, bad);
  }
  assert.equal(
    protectedResourceMetadataUrl("https://mcp.bank.example"),
    "https://mcp.bank.example/.well-known/oauth-protected-resource",
  );
  assert.equal(
    protectedResourceMetadataUrl("https://mcp.bank.example:8443/tenant/mcp"),
    "https://mcp.bank.example:8443/.well-known/oauth-protected-resource/tenant/mcp",
  );
  assert.deepEqual(
    protectedResourceMetadata({
      resource: "https://mcp.bank.example/mcp/",
      authorizationServers: [
        "https://login.bank.example/realms/bank",
        "http://127.0.0.1:8080",
      ],
      resourceName: "Bank tools",
    }),
    {
      resource: "https://mcp.bank.example/mcp",
      authorization_servers: [
        "https://login.bank.example/realms/bank",
        "http://127.0.0.1:8080",
      ],
      bearer_methods_supported: ["header"],
      resource_name: "Bank tools",
    },
  );
  assert.throws(
    () =>
      protectedResourceMetadata({
        resource: "https://a.example",
        authorizationServers: [],
      }),
    /at least one issuer/,
  );
  assert.throws(
    () =>
      protectedResourceMetadata({
        resource: "https://a.example",
        authorizationServers: ["http://login.example"],
      }),
    /https URI/,
  );
  assert.equal(bearerChallengeHeader({}), "Bearer");
  assert.equal(
    bearerChallengeHeader({
      realm: "mcp",
      error: "invalid_token",
      errorDescription: 'say "hi"\\\n',
      resourceMetadata: "https://a.example/.well-known/oauth-protected-resource",
    }),
    'Bearer realm="mcp", error="invalid_token", error_description="say \\"hi\\"\\\\ ", resource_metadata="https://a.example/.well-known/oauth-protected-resource"',
  );
});
