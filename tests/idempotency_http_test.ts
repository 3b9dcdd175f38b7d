/**
 * Idempotency keys over Streamable HTTP, against real peers: the official SDK client (handshake
 * era) sending the key in `_meta` twice runs the handler once; a plain `fetch` in the stateless
 * era with the `Idempotency-Key` header gets the stored outcome with `Idempotent-Replayed: true`,
 * 422 for the key with other arguments, 409 with `Retry-After` while the first call runs, and 400
 * when the header and `_meta` name different keys.
 */
import assert from "node:assert/strict";
// @ts-types="@modelcontextprotocol/sdk/client/index"
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
// @ts-types="@modelcontextprotocol/sdk/client/streamableHttp"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  ESTATE_ERROR_CODES,
  IDEMPOTENCY_META_KEY,
  IDEMPOTENT_REPLAY_META_KEY,
  McpServer,
  type Principal,
  ToolRegistry,
} from "../mod.ts";
import { bearerTokens, serveHttp } from "../lib/mcp/transports/http_mod.ts";
import { ENVELOPE, post } from "./_raw_http.ts";
import { spec } from "./_mcp_fixtures.ts";

const OPS: Principal & { token: string } = {
  id: "ops",
  scopes: [],
  tenant: "wholesale",
  clearance: "restricted",
  token: "ops-token",
};

async function endpoint() {
  const registry = new ToolRegistry();
  registry.publish(spec("payments.release", "1.0.0", { sideEffect: "write" }));
  let ran = 0;
  let gate: Promise<void> = Promise.resolve();
  const server = new McpServer({
    registry,
    handlerFor: () => async (args) => {
      ran++;
      await gate;
      return { released: args.reference, run: ran };
    },
    idempotencyWaitMs: 0,
  });
  const http = await serveHttp(server, { authenticate: bearerTokens([OPS]) });
  return {
    url: new URL(http.url),
    ran: () => ran,
    hold(): () => void {
      let open!: () => void;
      gate = new Promise((r) => open = r);
      return open;
    },
    close: async () => {
      await http.close();
      server.close();
    },
  };
}

const HEADERS = {
  "mcp-protocol-version": "2026-07-28",
  "mcp-method": "tools/call",
  "mcp-name": "payments.release",
};

function statelessCall(args: Record<string, unknown>, meta: Record<string, unknown> = {}) {
  return {
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: { name: "payments.release", arguments: args, _meta: { ...ENVELOPE, ...meta } },
  };
}

Deno.test("the official SDK client sending the key in _meta twice: the handler runs once, the second answer is the stored one, marked", async () => {
  const e = await endpoint();
  const client = new Client({ name: "idempotency-test", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(e.url, {
      requestInit: { headers: { Authorization: `Bearer ${OPS.token}` } },
    }),
  );
  try {
    const ask = () =>
      client.callTool({
        name: "payments.release",
        arguments: { reference: "PMT-000001" },
        _meta: { [IDEMPOTENCY_META_KEY]: "sdk-key-1" },
      });
    const first = await ask();
    const second = await ask();
    assert.deepEqual(second.structuredContent, first.structuredContent);
    assert.deepEqual(first.structuredContent, { released: "PMT-000001", run: 1 });
    assert.equal(second._meta?.[IDEMPOTENT_REPLAY_META_KEY], true);
    assert.equal(e.ran(), 1);
  } finally {
    await client.close();
    await e.close();
  }
});

Deno.test("stateless HTTP with Idempotency-Key: replayed with Idempotent-Replayed, 422 for other arguments, 409 with Retry-After while running, 400 when header and _meta differ", async () => {
  const e = await endpoint();
  try {
    const args = { reference: "PMT-000002" };
    const key = { ...HEADERS, "idempotency-key": '"http-key-1"' };
    const first = await post(e.url, statelessCall(args), OPS.token, key);
    assert.equal(first.status, 200);
    assert.equal(first.headers.get("idempotent-replayed"), null);
    const firstBody = await first.json();
    const again = await post(e.url, statelessCall(args), OPS.token, key);
    assert.equal(again.status, 200);
    assert.equal(again.headers.get("idempotent-replayed"), "true");
    const againBody = await again.json();
    assert.deepEqual(againBody.result.structuredContent, firstBody.result.structuredContent);
    assert.equal(e.ran(), 1);

    const other = await post(e.url, statelessCall({ reference: "PMT-000003" }), OPS.token, key);
    assert.equal(other.status, 422);
    const otherBody = await other.json();
    assert.equal(otherBody.error.code, -32602);
    assert.match(otherBody.error.message, /was used with other arguments/);

    // The same key in _meta and the header is one key; different ones are refused.
    const same = await post(
      e.url,
      statelessCall(args, { [IDEMPOTENCY_META_KEY]: "http-key-1" }),
      OPS.token,
      key,
    );
    assert.equal(same.headers.get("idempotent-replayed"), "true");
    await same.body?.cancel();
    const differ = await post(
      e.url,
      statelessCall(args, { [IDEMPOTENCY_META_KEY]: "other" }),
      OPS.token,
      key,
    );
    assert.equal(differ.status, 400);
    assert.match((await differ.json()).error.message, /Idempotency-Key header and _meta/);

    const open = e.hold();
    const slow = { ...HEADERS, "idempotency-key": "slow-key" };
    const running = post(e.url, statelessCall(args), OPS.token, slow);
    while (e.ran() < 2) await new Promise((r) => setTimeout(r, 1));
    const busy = await post(e.url, statelessCall(args), OPS.token, slow);
    assert.equal(busy.status, 409);
    assert.equal(busy.headers.get("retry-after"), "1");
    assert.equal((await busy.json()).error.code, ESTATE_ERROR_CODES.IDEMPOTENCY_IN_PROGRESS);
    open();
    assert.equal((await running).status, 200);
    await (await running).body?.cancel();
    assert.equal(e.ran(), 2);
  } finally {
    await e.close();
  }
});
