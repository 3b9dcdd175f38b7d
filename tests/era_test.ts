import assert from "node:assert/strict";
import fc from "fast-check";
import * as core from "../mod.ts";
import { classifyEra, isModernMessage, STATELESS_META } from "../mod.ts";
import * as modernModule from "../lib/mcp/modern.ts";

const VERSION = STATELESS_META.protocolVersion;
const CAPABILITIES = STATELESS_META.clientCapabilities;

const request = (params?: unknown) =>
  params === undefined
    ? { jsonrpc: "2.0", id: 1, method: "tools/list" }
    : { jsonrpc: "2.0", id: 1, method: "tools/list", params };

Deno.test("classifyEra() calls a message stateless when its _meta carries either envelope key, whatever the values", () => {
  assert.equal(
    classifyEra(request({ _meta: { [VERSION]: "2026-07-28" } })),
    "stateless",
  );
  assert.equal(
    classifyEra(request({ _meta: { [CAPABILITIES]: {} } })),
    "stateless",
  );
  // A bad or incomplete envelope is the stateless path's -32602, not a reason for a session.
  assert.equal(classifyEra(request({ _meta: { [VERSION]: 42 } })), "stateless");
  assert.equal(
    classifyEra(request({ _meta: { [VERSION]: "1999-01-01" } })),
    "stateless",
  );
  assert.equal(
    classifyEra(request({ _meta: { [CAPABILITIES]: null } })),
    "stateless",
  );
  // An initialize in the envelope is the stateless revision's unknown method, not a handshake.
  assert.equal(
    classifyEra({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { _meta: { [VERSION]: "" } },
    }),
    "stateless",
  );
});

Deno.test("classifyEra() leaves everything without the envelope to the handshake era's session", () => {
  for (
    const message of [
      request(),
      request({}),
      request({ _meta: {} }),
      request({
        _meta: { progressToken: 1, "io.modelcontextprotocol/clientInfo": {} },
      }),
      request({ _meta: [VERSION] }),
      request({ _meta: "io.modelcontextprotocol/protocolVersion" }),
      request([{ _meta: { [VERSION]: "2026-07-28" } }]), // positional params carry no _meta
      {
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-11-25" },
      },
      { jsonrpc: "2.0", id: 1, result: {} },
      { jsonrpc: "2.0", method: "notifications/initialized" },
      null,
      "tools/list",
      [request({ _meta: { [VERSION]: "2026-07-28" } })], // a batch is the session's -32600
      { [VERSION]: "2026-07-28" }, // the key at the top, not in params._meta
    ]
  ) {
    assert.equal(classifyEra(message), "handshake", JSON.stringify(message));
  }
});

Deno.test("classifyEra() takes the transport's protocol-version header: a stateless revision there decides", () => {
  assert.equal(
    classifyEra(request(), { protocolVersionHeader: "2026-07-28" }),
    "stateless",
  );
  assert.equal(
    classifyEra(request(), { protocolVersionHeader: " 2026-07-28 " }),
    "stateless",
  );
  assert.equal(
    classifyEra(request(), { protocolVersionHeader: "2025-11-25" }),
    "handshake",
  );
  assert.equal(
    classifyEra(request(), { protocolVersionHeader: "2099-01-01" }),
    "handshake",
  );
  assert.equal(
    classifyEra(request(), { protocolVersionHeader: "" }),
    "handshake",
  );
  // The body's envelope decides even under a handshake-era header.
  assert.equal(
    classifyEra(request({ _meta: { [VERSION]: "2026-07-28" } }), {
      protocolVersionHeader: "2025-11-25",
    }),
    "stateless",
  );
});

Deno.test("classifyEra() gives a notifications/cancelled to the era of the request it names", () => {
  const stateless = new Set<string | number>(["s1", 7]);
  const options = {
    isStatelessRequest: (id: string | number) => stateless.has(id),
  };
  const cancel = (requestId: unknown) => ({
    jsonrpc: "2.0",
    method: "notifications/cancelled",
    params: { requestId },
  });
  assert.equal(classifyEra(cancel("s1"), options), "stateless");
  assert.equal(classifyEra(cancel(7), options), "stateless");
  assert.equal(classifyEra(cancel("h1"), options), "handshake");
  assert.equal(classifyEra(cancel({ id: "s1" }), options), "handshake");
  // Without the transport's knowledge every cancellation is the session's.
  assert.equal(classifyEra(cancel("s1")), "handshake");
  // A request (it has an id) is not a cancellation, whatever its method.
  assert.equal(
    classifyEra({ ...cancel("s1"), id: 3 }, options),
    "handshake",
  );
  // Another notification naming the id is not one either.
  assert.equal(
    classifyEra(
      {
        jsonrpc: "2.0",
        method: "notifications/progress",
        params: { requestId: "s1" },
      },
      options,
    ),
    "handshake",
  );
});

Deno.test("property: adding the envelope to any request makes it stateless; taking _meta away makes it handshake", () => {
  const envelopeKey = fc.constantFrom(VERSION, CAPABILITIES);
  const params = fc.dictionary(
    fc.string().filter((k) => k !== "_meta"),
    fc.jsonValue(),
  );
  const meta = fc.dictionary(
    fc.string().filter((k) => k !== VERSION && k !== CAPABILITIES),
    fc.jsonValue(),
  );
  fc.assert(
    fc.property(
      fc.oneof(fc.string(), fc.integer()),
      fc.string(),
      params,
      meta,
      envelopeKey,
      fc.jsonValue(),
      (id, method, p, m, key, value) => {
        const plain = {
          jsonrpc: "2.0",
          id,
          method,
          params: { ...p, _meta: m },
        };
        const enveloped = {
          ...plain,
          params: { ...p, _meta: { ...m, [key]: value } },
        };
        // As the wire would carry them.
        const wire = (v: unknown) => JSON.parse(JSON.stringify(v));
        assert.equal(classifyEra(wire(plain)), "handshake");
        assert.equal(classifyEra(wire(enveloped)), "stateless");
        assert.equal(isModernMessage(wire(enveloped)), true);
        assert.equal(isModernMessage(wire(plain)), false);
      },
    ),
  );
});

Deno.test("the old words for the eras stay exported as deprecated aliases of the new ones", () => {
  const aliases: [unknown, unknown][] = [
    [core.MODERN_PROTOCOL_VERSIONS, core.STATELESS_PROTOCOL_VERSIONS],
    [core.MODERN_META, core.STATELESS_META],
    [core.MODERN_METHODS, core.STATELESS_METHODS],
    [core.readModernEnvelope, core.readStatelessEnvelope],
    [core.checkModernRequest, core.checkStatelessRequest],
    [core.modernHeaderProblem, core.statelessHeaderProblem],
    [core.LEGACY_PROTOCOL_VERSIONS, core.HANDSHAKE_PROTOCOL_VERSIONS],
    [core.LATEST_LEGACY_PROTOCOL_VERSION, core.LATEST_HANDSHAKE_PROTOCOL_VERSION],
    [modernModule.MODERN_META, core.STATELESS_META],
    [modernModule.checkModernRequest, core.checkStatelessRequest],
  ];
  for (const [old, current] of aliases) assert.equal(old, current);
  const era: core.MessageEra = "handshake" satisfies core.ProtocolEra;
  const envelope: core.ModernEnvelope = {
    protocolVersion: "2026-07-28",
    clientCapabilities: {},
  } satisfies core.StatelessEnvelope;
  assert.equal(classifyEra({ jsonrpc: "2.0", id: 1, method: "ping" }), era);
  assert.equal(envelope.protocolVersion, core.STATELESS_PROTOCOL_VERSIONS[0]);
});
