/**
 * A caller pinned to a deprecated version is told wherever it looks: the call result's `_meta`,
 * the HTTP answer's `Deprecation` and `Sunset` headers (both eras), the client's event and
 * outcome, the host's one sentence to the model, and the server's log once per caller per day.
 */
import assert from "node:assert/strict";
import {
  type CallRecord,
  DEPRECATION_META_KEY,
  deprecationHeaders,
  type DeprecationNotice,
  deprecationNotice,
  McpClient,
  McpHost,
  McpServer,
  ToolRegistry,
} from "../mod.ts";
import {
  bearerTokens,
  serveHttp,
  StreamableHttpClientTransport,
} from "../lib/mcp/transports/http_mod.ts";
import { estateServer } from "../lib/cli/serve.ts";
import { EstateDir } from "../lib/store/estate_dir.ts";
import { ENVELOPE, openSession, post } from "./_raw_http.ts";
import { OPERATOR, spec } from "./_mcp_fixtures.ts";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const NOW = Date.parse("2026-12-03T10:00:00Z");

function estate(): ToolRegistry {
  const registry = new ToolRegistry({ now: () => new Date(NOW) });
  registry.publish(spec("payments.lookup", "1.1.0"));
  registry.publish(spec("payments.lookup", "2.0.0", {
    inputSchema: { type: "object", properties: { reference: { type: "string" } } },
  }));
  registry.deprecate("payments.lookup", "1.1.0", {
    reason: "use 2.x",
    retireAfter: "2027-01-31",
  });
  return registry;
}

const EXPECTED: DeprecationNotice = {
  tool: "payments.lookup",
  version: "1.1.0",
  deprecatedAt: "2026-12-03T10:00:00.000Z",
  reason: "use 2.x",
  retireAfter: "2027-01-31",
  sunset: "2027-02-01T00:00:00.000Z",
  successor: "2.0.0",
};

/** A 2026-07-28 tools/call of payments.lookup pinned to `version`. */
function statelessCall(id: number, version: string) {
  return {
    jsonrpc: "2.0",
    id,
    method: "tools/call",
    params: {
      name: "payments.lookup",
      arguments: { reference: "PMT-000042" },
      _meta: { "dev.tool-estate/version": version, ...ENVELOPE },
    },
  };
}

function server(registry = estate()) {
  const calls: CallRecord[] = [];
  const s = new McpServer({
    registry,
    handlerFor: (v) => () => ({ looked: v.version }),
    onCall: (r) => calls.push(r),
  });
  return { server: s, calls };
}

Deno.test("the notice: reason, retirement date, sunset the next day at 00:00 UTC, successor; the HTTP headers of RFC 9745 and RFC 8594", () => {
  const registry = estate();
  assert.deepEqual(registry.deprecation("payments.lookup", "1.1.0"), EXPECTED);
  assert.equal(registry.deprecation("payments.lookup", "2.0.0"), undefined);
  assert.equal(registry.deprecation("payments.lookup", "9.9.9"), undefined);
  const record = registry.versions("payments.lookup")[0];
  const { successor: _, ...withoutSuccessor } = EXPECTED;
  assert.deepEqual(deprecationNotice(record, undefined), withoutSuccessor);
  assert.deepEqual(deprecationNotice(record, "1.1.0"), withoutSuccessor);
  assert.deepEqual(deprecationHeaders(EXPECTED), {
    deprecation: `@${Date.parse(EXPECTED.deprecatedAt) / 1000}`,
    sunset: "Mon, 01 Feb 2027 00:00:00 GMT",
  });
});

Deno.test("a pinned call to a deprecated version carries the notice in its result's _meta, in both eras, and its call record; a call to the active version does not", async () => {
  const { server: s, calls } = server();
  const session = s.openSession({ principal: OPERATOR, notify: () => {} });
  await s.handle({
    jsonrpc: "2.0",
    id: 0,
    method: "initialize",
    params: {
      protocolVersion: "2025-11-25",
      capabilities: {},
      clientInfo: { name: "t", version: "1" },
    },
  }, session);
  await s.handle({ jsonrpc: "2.0", method: "notifications/initialized" }, session);
  const call = (id: number, version?: string) => ({
    jsonrpc: "2.0",
    id,
    method: "tools/call",
    params: {
      name: "payments.lookup",
      arguments: { reference: "PMT-000042" },
      ...(version ? { _meta: { "dev.tool-estate/version": version } } : {}),
    },
  });
  const pinned = await s.handle(call(1, "1.1.0"), session) as { result: Record<string, unknown> };
  assert.deepEqual(
    (pinned.result._meta as Record<string, unknown>)[DEPRECATION_META_KEY],
    EXPECTED,
  );
  assert.deepEqual(pinned.result.structuredContent, { looked: "1.1.0" });
  const latest = await s.handle(call(2), session) as { result: Record<string, unknown> };
  assert.equal(
    (latest.result._meta as Record<string, unknown> | undefined)?.[DEPRECATION_META_KEY],
    undefined,
  );
  const stateless = await s.handleStateless(statelessCall(3, "1.1.0"), {
    principal: OPERATOR,
  }) as { result: Record<string, unknown> };
  assert.deepEqual(
    (stateless.result._meta as Record<string, unknown>)[DEPRECATION_META_KEY],
    EXPECTED,
  );
  assert.deepEqual(calls.map((c) => [c.version, c.deprecation?.version]), [
    ["1.1.0", "1.1.0"],
    ["2.0.0", undefined],
    ["1.1.0", "1.1.0"],
  ]);
  s.close();
});

Deno.test("over HTTP the answer says it in Deprecation and Sunset headers, in both eras; the client's outcome and event, and the host's one sentence to the model", async () => {
  const { server: s } = server();
  const token = "operator-token";
  const http = await serveHttp(s, { authenticate: bearerTokens([{ ...OPERATOR, token }]) });
  try {
    const url = new URL(http.url);
    const body = (version: string) => statelessCall(1, version);
    const headers = {
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": "tools/call",
      "mcp-name": "payments.lookup",
    };
    const old = await post(url, body("1.1.0"), token, headers);
    await old.body?.cancel();
    assert.equal(old.status, 200);
    assert.deepEqual(
      { deprecation: old.headers.get("deprecation"), sunset: old.headers.get("sunset") },
      deprecationHeaders(EXPECTED),
    );
    // The handshake era, in a session.
    const session = { "mcp-session-id": await openSession(url, token) };
    const inSession = await post(
      url,
      {
        jsonrpc: "2.0",
        id: 2,
        method: "tools/call",
        params: {
          name: "payments.lookup",
          arguments: { reference: "PMT-000042" },
          _meta: { "dev.tool-estate/version": "1.1.0" },
        },
      },
      token,
      session,
    );
    assert.equal(inSession.status, 200);
    assert.deepEqual(
      (await inSession.json()).result._meta[DEPRECATION_META_KEY],
      EXPECTED,
    );
    assert.deepEqual(
      {
        deprecation: inSession.headers.get("deprecation"),
        sunset: inSession.headers.get("sunset"),
      },
      deprecationHeaders(EXPECTED),
    );
    const current = await post(url, body("2.0.0"), token, headers);
    await current.body?.cancel();
    assert.equal(current.headers.get("deprecation"), null);

    // The clients, in both eras: the outcome carries the notice; the event comes once.
    for (const era of ["handshake", "stateless"] as const) {
      const client = new McpClient(new StreamableHttpClientTransport(url, { token }), { era });
      await client.connect();
      const heard: DeprecationNotice[] = [];
      client.onDeprecation((n) => heard.push(n));
      const first = await client.callTool("payments.lookup", { reference: "PMT-000042" }, {
        version: "1.1.0",
      });
      await client.callTool("payments.lookup", { reference: "PMT-000043" }, { version: "1.1.0" });
      const fresh = await client.callTool("payments.lookup", { reference: "PMT-000044" });
      assert.equal(first.kind, "ok");
      assert.deepEqual("deprecation" in first ? first.deprecation : undefined, EXPECTED, era);
      assert.equal("deprecation" in fresh ? fresh.deprecation : undefined, undefined);
      assert.deepEqual(heard, [EXPECTED], era);
      await client.close();
    }

    // The host tells the model once: the first result from the version gains a sentence.
    const told: string[] = [];
    const host = new McpHost({
      onDeprecation: (n) => told.push(`${n.server} ${n.tool}@${n.version}`),
    });
    const hosted = await host.connect("bank", new StreamableHttpClientTransport(url, { token }));
    const texts = async () => {
      const o = await host.callTool("payments.lookup", { reference: "PMT-000042" }, {
        version: "1.1.0",
      });
      assert.equal(o.kind, "ok");
      return ("result" in o ? o.result.content ?? [] : []).map((c) =>
        (c as { text?: string }).text ?? ""
      );
    };
    const once = await texts(), twice = await texts();
    assert.equal(
      once.at(-1),
      "Note: payments.lookup@1.1.0 is deprecated (use 2.x); it stops working after 2027-01-31; use 2.0.0.",
    );
    assert.equal(twice.filter((t) => t.startsWith("Note:")).length, 0);
    assert.deepEqual(told, ["bank payments.lookup@1.1.0"]);
    await hosted.close();
  } finally {
    await http.close();
    s.close();
  }
});

Deno.test("estate serve logs what a caller of a deprecated version was told once a day per caller, not per call", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "estate-deprecation-"));
  try {
    const store = EstateDir.open(dir, { now: () => new Date(NOW) });
    await store.publish(spec("payments.lookup", "1.1.0"));
    await store.publish(spec("payments.lookup", "2.0.0", {
      inputSchema: { type: "object", properties: { reference: { type: "string" } } },
    }));
    await store.deprecate("payments.lookup", "1.1.0", {
      reason: "use 2.x",
      retireAfter: "2027-01-31",
    });
    let clock = NOW;
    const lines: string[] = [];
    const s = estateServer(store, {
      system: { handlerFor: () => () => "ok" },
      log: (l) => lines.push(l),
      recordCalls: false,
      now: () => clock,
    });
    const call = (principal = OPERATOR) =>
      s.handleStateless(statelessCall(1, "1.1.0"), { principal });
    const text =
      "payments.lookup@1.1.0 is deprecated (use 2.x); it stops working after 2027-01-31; use 2.0.0";
    for (let i = 0; i < 3; i++) await call();
    await call({ ...OPERATOR, id: "second-desk" });
    clock += 86_400_000; // the next day: told again, once
    for (let i = 0; i < 2; i++) await call();
    assert.deepEqual(lines.filter((l) => l.startsWith("told ")), [
      `told ${OPERATOR.id}: ${text}`,
      `told second-desk: ${text}`,
      `told ${OPERATOR.id}: ${text}`,
    ]);
    assert.equal(lines.filter((l) => l.startsWith("call ")).length, 6);
    s.close();
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
