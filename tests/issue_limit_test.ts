/**
 * Errors have a size limit: however many issues a request has, an answer carries the first
 * MAX_ISSUES_IN_RESPONSE of them (sorted), each text cut, together at most MAX_ISSUES_BYTES, and
 * the count of the rest — in both MCP eras, in process and over HTTP — and a host's repair loop
 * still fixes what it is told.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  createLinkedTransports,
  limitIssues,
  MAX_ISSUE_TEXT,
  MAX_ISSUES_BYTES,
  MAX_ISSUES_IN_RESPONSE,
  McpClient,
  repairArguments,
  type SchemaIssue,
  serveTransport,
  STATELESS_META,
  validateSchema,
} from "../mod.ts";
import { bearerTokens, serveHttp } from "../lib/mcp/transports/http_mod.ts";
import { estate, OPERATOR, ready, server } from "./_mcp_fixtures.ts";

const TOOL = "payments.lookup"; // additionalProperties: false
const FORBIDDEN = 92_000;

/** About 1 MB of arguments: a valid reference and 92,000 keys the schema forbids. */
function flood(): Record<string, unknown> {
  const args: Record<string, unknown> = { reference: "PMT-000001" };
  for (let i = 0; i < FORBIDDEN; i++) {
    args[`x${String(i).padStart(5, "0")}`] = 0;
  }
  return args;
}
const ARGS = flood();
const FIRST = Array.from(
  { length: MAX_ISSUES_IN_RESPONSE },
  (_, i) => `$.x${String(i).padStart(5, "0")} additionalProperties`,
);

/**
 * The bound on a whole invalid-arguments answer, from the caps alone: the issues at most twice
 * (as `structuredContent` or `data`, and as the text listing them, which is shorter than their
 * JSON), plus a fixed envelope (jsonrpc, a short id, the tool's name, the count, `isError`,
 * `resultType` and `serverInfo`) well under 1 KiB.
 */
const BOUND = 2 * MAX_ISSUES_BYTES + 1024;

const bytes = (text: string) => new TextEncoder().encode(text).length;

function assertCarriesFirst(issues: SchemaIssue[], omitted: unknown) {
  // Lengths first: a failing deepEqual of 92,000 issues would spend gigabytes on its diff.
  assert.equal(issues.length, MAX_ISSUES_IN_RESPONSE);
  assert.deepEqual(issues.map((i) => `${i.path} ${i.keyword}`), FIRST);
  assert.equal(omitted, FORBIDDEN - MAX_ISSUES_IN_RESPONSE);
}

Deno.test("the request really is about 1 MB with 92,000 issues", () => {
  const size = bytes(JSON.stringify(ARGS));
  assert.ok(size > 1_000_000 && size < 1_048_576, `${size} bytes`);
  assert.equal(
    validateSchema(estate().latest(TOOL)!.inputSchema, ARGS).length,
    FORBIDDEN,
  );
});

Deno.test("-32602 (handshake era up to 2025-06-18) carries the first 100 sorted issues and the count of the rest", async () => {
  const { server: s, ran } = server(estate());
  const session = await ready(s, OPERATOR, "2025-06-18");
  const res = await s.handle({
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: { name: TOOL, arguments: ARGS },
  }, session);
  const text = JSON.stringify(res);
  assert.ok(bytes(text) <= BOUND, `${bytes(text)} bytes`);
  const error = (res as {
    error: { code: number; data: { issues: SchemaIssue[]; omitted: number } };
  })
    .error;
  assert.equal(error.code, -32602);
  assertCarriesFirst(error.data.issues, error.data.omitted);
  assert.deepEqual(ran, []);
  s.close();
});

Deno.test("an isError result (2025-11-25 and 2026-07-28) carries the first 100 sorted issues, as data and as text, and the count", async () => {
  const { server: s } = server(estate());
  const session = await ready(s, OPERATOR, "2025-11-25");
  const call = {
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: { name: TOOL, arguments: ARGS },
  };
  const legacy = await s.handle(call, session);
  const modern = await s.handleStateless({
    ...call,
    params: {
      ...call.params,
      _meta: {
        [STATELESS_META.protocolVersion]: "2026-07-28",
        [STATELESS_META.clientCapabilities]: {},
      },
    },
  }, { principal: OPERATOR });
  for (const res of [legacy, modern]) {
    const text = JSON.stringify(res);
    assert.ok(bytes(text) <= BOUND, `${bytes(text)} bytes`);
    const result = (res as {
      result: {
        isError: boolean;
        content: { text: string }[];
        structuredContent: { issues: SchemaIssue[]; omitted: number };
      };
    }).result;
    assert.equal(result.isError, true);
    assertCarriesFirst(
      result.structuredContent.issues,
      result.structuredContent.omitted,
    );
    const lines = result.content[0].text.split("\n");
    assert.equal(lines[0], `Invalid arguments for ${TOOL}:`);
    assert.equal(
      lines[1],
      '$.x00000: property "x00000" is not allowed (additionalProperties)',
    );
    assert.equal(lines.length, 1 + MAX_ISSUES_IN_RESPONSE + 1);
    assert.equal(lines.at(-1), "… and 91900 more issues");
  }
  s.close();
});

Deno.test("one enormous key gives an issue whose texts are cut, and a small answer", async () => {
  const { server: s } = server(estate());
  const session = await ready(s, OPERATOR, "2025-06-18");
  const key = "k".repeat(900_000) + "😀";
  const res = await s.handle({
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: { name: TOOL, arguments: { reference: "PMT-000001", [key]: 1 } },
  }, session);
  const text = JSON.stringify(res);
  assert.ok(bytes(text) <= BOUND, `${bytes(text)} bytes`);
  const issue = (res as { error: { data: { issues: SchemaIssue[] } } }).error.data
    .issues[0];
  assert.equal(issue.path.length, MAX_ISSUE_TEXT);
  assert.ok(
    issue.path.startsWith('$["kkkk') && issue.path.endsWith("…"),
    issue.path.slice(-5),
  );
  assert.ok(issue.message.length <= MAX_ISSUE_TEXT);
  s.close();
});

Deno.test("over HTTP, both eras: the answer to the 1 MB request stays under the bound", async () => {
  const registry = estate();
  const s = server(registry).server;
  const token = "tok-operator-0002";
  const http = await serveHttp(s, {
    authenticate: bearerTokens([{ ...OPERATOR, token }]),
    maxBodyBytes: 2 * 1024 * 1024,
  });
  const headers = {
    authorization: `Bearer ${token}`,
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
  };
  const post = (body: unknown, extra: Record<string, string> = {}) =>
    fetch(http.url, {
      method: "POST",
      headers: { ...headers, ...extra },
      body: JSON.stringify(body),
    });
  try {
    const init = await post({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: {
        protocolVersion: "2025-11-25",
        capabilities: {},
        clientInfo: { name: "t", version: "1" },
      },
    });
    await init.body?.cancel();
    const sid = init.headers.get("mcp-session-id")!;
    const session = {
      "mcp-session-id": sid,
      "mcp-protocol-version": "2025-11-25",
    };
    (await post(
      { jsonrpc: "2.0", method: "notifications/initialized" },
      session,
    )).body?.cancel();
    const call = {
      jsonrpc: "2.0",
      id: 2,
      method: "tools/call",
      params: { name: TOOL, arguments: ARGS },
    };
    const legacy = await post(call, session);
    const modern = await post({
      ...call,
      params: {
        ...call.params,
        _meta: {
          [STATELESS_META.protocolVersion]: "2026-07-28",
          [STATELESS_META.clientCapabilities]: {},
        },
      },
    }, {
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": "tools/call",
      "mcp-name": TOOL,
    });
    for (const res of [legacy, modern]) {
      assert.equal(res.status, 200);
      const text = await res.text();
      assert.ok(bytes(text) <= BOUND, `${bytes(text)} bytes`);
      const result = JSON.parse(text).result;
      assertCarriesFirst(
        result.structuredContent.issues,
        result.structuredContent.omitted,
      );
    }
  } finally {
    await http.close();
    s.close();
  }
});

Deno.test("the repair loop still fixes the issues it is told about: callTool, repairArguments, call again", async () => {
  for (const version of ["2025-06-18", "2025-11-25"]) {
    const { server: s, ran } = server(estate());
    const [near, far] = createLinkedTransports();
    serveTransport(s, far, OPERATOR);
    const client = new McpClient(near, {
      protocolVersion: version,
      era: "handshake",
    });
    await client.connect();
    const bad = await client.callTool(TOOL, ARGS);
    assert.equal(bad.kind, "invalid-arguments");
    if (bad.kind !== "invalid-arguments") return;
    assertCarriesFirst(bad.issues, bad.omitted);
    const schema = (await client.listTools()).find((t) => t.name === TOOL)!.inputSchema;
    const repaired = repairArguments(schema, ARGS);
    const fixed = new Set(repaired.repairs.map((r) => r.path));
    for (const issue of bad.issues) {
      assert.ok(
        fixed.has(issue.path),
        issue.path,
      );
    }
    assert.deepEqual(repaired.issues, []);
    const again = await client.callTool(
      TOOL,
      repaired.arguments as Record<string, unknown>,
    );
    assert.equal(again.kind, "ok", version);
    assert.deepEqual(ran, [`${TOOL}@1.1.0`]);
    await client.close();
    s.close();
  }
});

Deno.test("property: limitIssues() is the first issues in order, cut, within the caps, and counts the rest", () => {
  const issue = fc.record({
    path: fc.string({ maxLength: 400, unit: "binary" }),
    keyword: fc.string({ maxLength: 30 }),
    message: fc.string({ maxLength: 400, unit: "binary" }),
    schemaPath: fc.string({ maxLength: 300 }),
  });
  fc.assert(
    fc.property(fc.array(issue, { maxLength: 300 }), (issues) => {
      const out = limitIssues(issues);
      assert.equal(out.issues.length + out.omitted, issues.length);
      assert.ok(out.issues.length <= MAX_ISSUES_IN_RESPONSE);
      if (issues.length) assert.ok(out.issues.length >= 1);
      assert.ok(bytes(JSON.stringify(out.issues)) <= MAX_ISSUES_BYTES);
      out.issues.forEach((kept, i) => {
        for (const k of ["path", "keyword", "message", "schemaPath"] as const) {
          const full = issues[i][k];
          if (full.length <= MAX_ISSUE_TEXT) assert.equal(kept[k], full);
          else {
            assert.ok(
              kept[k].length <= MAX_ISSUE_TEXT && kept[k].endsWith("…"),
            );
            assert.ok(full.startsWith(kept[k].slice(0, -1)));
          }
        }
      });
      // Too few to fill the budget: all are carried.
      if (
        issues.length <= MAX_ISSUES_IN_RESPONSE &&
        JSON.stringify(issues).length * 3 < MAX_ISSUES_BYTES
      ) {
        assert.equal(out.omitted, 0);
      }
      assert.deepEqual(limitIssues(issues), out); // deterministic
    }),
    { numRuns: 300 },
  );
});
