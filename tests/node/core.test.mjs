// Runs the bundled library (dist/node/mod.js, built by .ci/run with esbuild) under Node's own
// test runner, to show that the core works outside Deno: `node --test tests/node/`.
//
// Written against the documented API while these were still being built (a test fails with
// "X is not exported from mod.ts yet" when its export is missing):
//   - validateSchema, checkSchema        (lib/schema/)
//   - classifySchemaChange               (lib/compat/classify.ts)
//   - repairArguments                    (lib/estate/)
//   - ToolRegistry, McpServer, McpClient (lib/estate/, lib/mcp/)

import { describe, test } from "node:test";
import assert from "node:assert/strict";
import * as core from "../../dist/node/mod.js";

/** The export `name`, or a clear failure when mod.ts does not export it (yet). */
function need(name) {
  const value = core[name];
  if (value === undefined) {
    assert.fail(`${name} is not exported from mod.ts yet`);
  }
  return value;
}

describe("jsonrpc", () => {
  test("a request built by makeRequest() parses back as a request", () => {
    const makeRequest = need("makeRequest");
    const parseMessage = need("parseMessage");
    const request = makeRequest(7, "tools/call", { name: "payments.lookup" });
    assert.deepEqual(parseMessage(JSON.stringify(request)), {
      kind: "request",
      message: request,
    });
  });

  test("a notification has no id and is classified as a notification", () => {
    const message = need("makeNotification")(
      "notifications/tools/list_changed",
    );
    assert.equal("id" in message, false);
    assert.equal(need("validateEnvelope")(message).kind, "notification");
  });

  test("a float id is an Invalid Request (-32600) that says what was wrong", () => {
    const JsonRpcError = need("JsonRpcError");
    assert.throws(
      () => need("parseMessage")('{"jsonrpc":"2.0","id":1.5,"method":"m"}'),
      (e) => {
        assert.ok(e instanceof JsonRpcError);
        assert.equal(e.code, -32600);
        assert.equal(
          e.message,
          "Invalid Request: id must be a string or an integer, got 1.5",
        );
        return true;
      },
    );
  });

  test("bad JSON is a parse error (-32700) answered with a null id", () => {
    let error;
    assert.throws(
      () => need("parseMessage")("{not json"),
      (e) => (error = e, true),
    );
    assert.equal(error.code, need("ERROR_CODES").PARSE_ERROR);
    const response = need("makeError")(error.requestId, error);
    assert.equal(response.id, null);
    assert.equal(response.error.code, -32700);
  });
});

describe("semver", () => {
  test("Version.parse() is strict and round-trips", () => {
    const Version = need("Version");
    assert.equal(Version.parse("1.2.3-rc.1+b.5").toString(), "1.2.3-rc.1+b.5");
    assert.throws(() => Version.parse("v1.2.3"), TypeError);
  });

  test("satisfies() has npm's ^0.x semantics (npm semver is bundled)", () => {
    const satisfies = need("satisfies");
    assert.equal(satisfies("0.2.9", "^0.2.3"), true);
    assert.equal(satisfies("0.3.0", "^0.2.3"), false);
    assert.equal(satisfies("1.9.0", ">=1.2.0 <2.0.0 || ^3.0.0"), true);
    assert.throws(() => satisfies("1.0.0", "latest"), TypeError);
  });

  test("compareVersions() and bumpFor()", () => {
    assert.equal(need("compareVersions")("1.10.0", "1.9.0"), 1);
    assert.equal(need("compareVersions")("1.0.0-rc.1", "1.0.0"), -1);
    assert.equal(need("bumpFor")("1.4.2", "major"), "2.0.0");
  });
});

describe("schema", () => {
  const payment = {
    type: "object",
    properties: { amount: { type: "integer" } },
    required: ["amount", "currency"],
  };

  test("validateSchema() reports every issue, with paths, sorted", () => {
    const issues = need("validateSchema")(payment, { amount: "x" });
    assert.deepEqual(issues.map((i) => [i.path, i.keyword]), [
      ["$.amount", "type"],
      ["$.currency", "required"],
    ]);
    for (const issue of issues) {
      assert.equal(typeof issue.message, "string");
      assert.equal(typeof issue.schemaPath, "string");
    }
    assert.deepEqual(
      need("validateSchema")(payment, { amount: 5, currency: "EUR" }),
      [],
    );
  });

  test("validateSchema() does not take true for an integer", () => {
    assert.equal(need("validateSchema")({ type: "integer" }, true).length, 1);
    assert.deepEqual(need("validateSchema")({ type: "number" }, 5), []);
  });

  test("checkSchema() flags what the validator cannot enforce", () => {
    const checkSchema = need("checkSchema");
    assert.deepEqual(checkSchema(payment), []);
    const issues = checkSchema({
      type: "object",
      unevaluatedProperties: false,
    });
    assert.deepEqual(issues.map((i) => i.keyword), ["unevaluatedProperties"]);
  });
});

describe("classification", () => {
  const base = {
    type: "object",
    properties: {
      account: { type: "string" },
      currency: { type: "string", enum: ["EUR", "GBP"] },
    },
    required: ["account"],
  };
  const edit = (change) => structuredClone({ ...base, ...change });

  test("adding a required property is major", () => {
    const next = edit({
      properties: { ...base.properties, memo: { type: "string" } },
      required: ["account", "memo"],
    });
    const { bump, changes } = need("classifySchemaChange")(base, next);
    assert.equal(bump, "major");
    assert.ok(Array.isArray(changes) && changes.length > 0);
  });

  test("adding an optional property is minor", () => {
    const next = edit({
      properties: { ...base.properties, memo: { type: "string" } },
    });
    assert.equal(need("classifySchemaChange")(base, next).bump, "minor");
  });

  test("narrowing an enum is major; widening it is minor", () => {
    const classify = need("classifySchemaChange");
    const withEnum = (values) =>
      edit({
        properties: {
          ...base.properties,
          currency: { type: "string", enum: values },
        },
      });
    assert.equal(classify(base, withEnum(["EUR"])).bump, "major");
    assert.equal(classify(base, withEnum(["EUR", "GBP", "USD"])).bump, "minor");
  });
});

describe("repair", () => {
  const schema = {
    type: "object",
    properties: { account: { type: "string" }, amount: { type: "integer" } },
    required: ["account", "amount"],
  };

  test('repairArguments() coerces "42" to 42', () => {
    const out = need("repairArguments")(schema, {
      account: "GB01",
      amount: "42",
    });
    assert.deepEqual(out.arguments, { account: "GB01", amount: 42 });
    assert.ok(out.repairs.length >= 1);
    assert.deepEqual(out.issues, []);
  });

  test("repairArguments() never invents a missing value", () => {
    const out = need("repairArguments")(schema, { amount: 5 });
    assert.equal("account" in out.arguments, false);
    assert.ok(
      out.issues.some((i) => i.path === "$.account" && i.keyword === "required"),
    );
  });

  test("repairing twice changes nothing more", () => {
    const repair = need("repairArguments");
    const once = repair(schema, { account: "GB01", amount: "42" });
    const twice = repair(schema, once.arguments);
    assert.deepEqual(twice.arguments, once.arguments);
    assert.deepEqual(twice.repairs, []);
  });
});

describe("estate and MCP", () => {
  const spec = (version, changes = {}) => ({
    name: "payments.lookup",
    version,
    title: "Look up a payment",
    description:
      "Returns a wholesale payment's status by reference. Reads the payments system of record.",
    inputSchema: {
      type: "object",
      properties: {
        reference: { type: "string" },
        currency: { type: "string" },
      },
      required: ["reference"],
    },
    sideEffect: "read",
    requiredScopes: ["payments:read"],
    dataClassification: "confidential",
    tenants: ["wholesale"],
    owner: "payments-platform",
    ...changes,
  });
  const operator = {
    id: "op",
    scopes: ["payments:read"],
    tenant: "wholesale",
    clearance: "restricted",
  };
  const retail = {
    id: "ra",
    scopes: [],
    tenant: "retail",
    clearance: "confidential",
  };

  test("the registry refuses a breaking change published as a minor, and discovers per principal", () => {
    const registry = new (need("ToolRegistry"))();
    registry.publish(spec("1.0.0"));
    const breaking = spec("1.1.0", {
      inputSchema: {
        type: "object",
        properties: { reference: { type: "string" } },
      },
    });
    assert.throws(
      () => registry.publish(breaking),
      /change is major .*publish 2\.0\.0, not 1\.1\.0/,
    );
    assert.deepEqual(registry.discover(operator).map((s) => s.name), [
      "payments.lookup",
    ]);
    assert.deepEqual(registry.discover(retail), []);
  });

  test("an MCP client and server talk over linked transports: list, call, rejected arguments", async () => {
    const registry = new (need("ToolRegistry"))();
    registry.publish(spec("1.0.0"));
    const server = new (need("McpServer"))({
      registry,
      handlerFor: () => ({ reference }) => ({ reference, status: "HELD" }),
    });
    const [near, far] = need("createLinkedTransports")();
    need("serveTransport")(server, far, operator);
    const client = new (need("McpClient"))(near);
    await client.connect();
    assert.deepEqual((await client.listTools()).map((t) => t.name), [
      "payments.lookup",
    ]);
    const ok = await client.callTool("payments.lookup", {
      reference: "PMT-004211",
    });
    assert.deepEqual(ok.kind === "ok" && ok.result.structuredContent, {
      reference: "PMT-004211",
      status: "HELD",
    });
    const bad = await client.callTool("payments.lookup", { reference: 5 });
    assert.deepEqual(
      bad.kind === "invalid-arguments" && bad.issues.map((i) => i.path),
      [
        "$.reference",
      ],
    );
    await client.close();
  });
});
