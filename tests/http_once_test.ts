/**
 * A `tools/call` over HTTP is decided once: the transport hands the message to the server, the
 * call's own steps decide it (the step-up included), and the outcome the server reports is what
 * HTTP answers with, by one table. Counted on the registry: one lookup of the tool per call, in
 * both eras, whether the call runs or needs a step-up; the step-up is logged once and the handler
 * never runs.
 */
import assert from "node:assert/strict";
import { type CallRecord, McpServer, type Principal, ToolRegistry } from "../mod.ts";
import { bearerTokens, serveHttp } from "../lib/mcp/transports/http_mod.ts";
import { OUTCOME_STATUS, REFUSAL_STATUS } from "../lib/mcp/transports/_http_status.ts";
import { ENVELOPE, MODERN, openSession, post } from "./_raw_http.ts";
import { spec } from "./_mcp_fixtures.ts";

const READER: Principal & { token: string } = {
  id: "ops",
  scopes: ["payments:read"],
  tenant: "wholesale",
  clearance: "restricted",
  token: "reader-token",
};
const RELEASER = { ...READER, scopes: ["payments:read", "payments:release"], token: "releaser" };

async function endpoint() {
  const registry = new ToolRegistry();
  registry.publish(spec("payments.release", "1.0.0", {
    sideEffect: "write",
    requiredScopes: ["payments:read"],
    callScopes: ["payments:release"],
  }));
  // Every lookup of a tool by name for a principal, as a call's steps make it.
  let lookups = 0;
  const visible = registry.visible.bind(registry);
  registry.visible = (name, principal) => {
    lookups++;
    return visible(name, principal);
  };
  const calls: CallRecord[] = [];
  let ran = 0;
  const server = new McpServer({
    registry,
    handlerFor: () => () => {
      ran++;
      return "released";
    },
    onCall: (r) => calls.push(r),
  });
  const http = await serveHttp(server, { authenticate: bearerTokens([READER, RELEASER]) });
  return {
    url: new URL(http.url),
    counts: () => ({ lookups, ran, logged: calls.map((c) => c.outcome) }),
    reset: () => {
      lookups = 0;
      ran = 0;
      calls.length = 0;
    },
    close: async () => {
      await http.close();
      server.close();
    },
  };
}

const CALL = { name: "payments.release", arguments: { reference: "PMT-000042" } };

function stateless(id: number) {
  return { jsonrpc: "2.0", id, method: "tools/call", params: { ...CALL, _meta: ENVELOPE } };
}
const STATELESS_HEADERS = {
  "mcp-protocol-version": MODERN,
  "mcp-method": "tools/call",
  "mcp-name": "payments.release",
};

Deno.test("http: a tools/call is decided once — one lookup per call in both eras, run or step-up; a step-up is logged once and runs nothing", async () => {
  const e = await endpoint();
  try {
    for (const era of ["handshake", "stateless"] as const) {
      for (const who of [RELEASER, READER]) {
        const sessionId = era === "handshake" ? await openSession(e.url, who.token) : undefined;
        e.reset();
        const res = era === "handshake"
          ? await post(
            e.url,
            { jsonrpc: "2.0", id: 7, method: "tools/call", params: CALL },
            who.token,
            {
              "mcp-session-id": sessionId!,
            },
          )
          : await post(e.url, stateless(7), who.token, STATELESS_HEADERS);
        const body = await res.json();
        const stepUp = who === READER;
        assert.equal(
          res.status,
          stepUp ? OUTCOME_STATUS["step-up"][era] : OUTCOME_STATUS.answered[era],
          `${era} ${who.id}`,
        );
        if (stepUp) {
          assert.match(res.headers.get("www-authenticate")!, /insufficient_scope/);
          assert.equal(body.error.data.error, "insufficient_scope");
        } else {
          assert.equal(body.result.isError, undefined, JSON.stringify(body));
        }
        assert.deepEqual(e.counts(), {
          lookups: 1,
          ran: stepUp ? 0 : 1,
          logged: [stepUp ? "insufficient-scope" : "ok"],
        }, `${era}, ${stepUp ? "step-up" : "runs"}`);
      }
    }
  } finally {
    await e.close();
  }
});

Deno.test("http: a stateless request's refusals get their status from the one table, in the server's order", async () => {
  const e = await endpoint();
  try {
    const cases: [string, unknown, Record<string, string>, number, number][] = [
      // A malformed envelope comes before the headers are compared.
      [
        "bad envelope",
        {
          jsonrpc: "2.0",
          id: 1,
          method: "tools/call",
          params: { ...CALL, _meta: { ...ENVELOPE, [Object.keys(ENVELOPE)[1]]: "none" } },
        },
        { ...STATELESS_HEADERS, "mcp-method": "tools/list" },
        OUTCOME_STATUS.invalid.stateless,
        -32602,
      ],
      // Headers that disagree come before the revision and the method.
      [
        "header mismatch",
        { ...stateless(2), method: "no/such" },
        STATELESS_HEADERS,
        OUTCOME_STATUS["header-mismatch"].stateless,
        -32020,
      ],
      [
        "unknown method",
        { ...stateless(3), method: "no/such" },
        {
          ...STATELESS_HEADERS,
          "mcp-method": "no/such",
        },
        OUTCOME_STATUS["not-found"].stateless,
        -32601,
      ],
    ];
    for (const [what, body, headers, status, code] of cases) {
      const res = await post(e.url, body, RELEASER.token, headers);
      const answer = await res.json();
      assert.equal(res.status, status, what);
      assert.equal(answer.error.code, code, what);
    }
    assert.equal(OUTCOME_STATUS["not-found"].stateless, 404);
    assert.equal(REFUSAL_STATUS.unauthorized, 401);
    const unauthorized = await post(e.url, stateless(4), "wrong", STATELESS_HEADERS);
    await unauthorized.body?.cancel();
    assert.equal(unauthorized.status, REFUSAL_STATUS.unauthorized);
    assert.deepEqual(e.counts().ran, 0);
  } finally {
    await e.close();
  }
});
