import assert from "node:assert/strict";
import {
  callTool,
  checkArguments,
  readCallParams,
  resolveVersion,
  runHandler,
  visibleTool,
} from "../lib/mcp/_call_tool.ts";
import type { Caller, ServerCore } from "../lib/mcp/_server_core.ts";
import { PeerExchange } from "../lib/jsonrpc/exchange.ts";
import { RequestStateSeal } from "../lib/mcp/_request_state.ts";
import { memoryIdempotencyStore } from "../lib/estate/idempotency.ts";
import type { RequestContext } from "../lib/jsonrpc/peer_types.ts";
import type { CallToolResult } from "../lib/mcp/protocol.ts";
import {
  type CallRecord,
  type JsonRpcId,
  type JsonRpcNotification,
  type McpServerOptions,
  MissingClientCapabilityError,
  type Principal,
  type ProbeRecord,
  type ToolHandler,
  type ToolRegistry,
} from "../mod.ts";
import { estate, OPERATOR, RETAIL, spec } from "./_mcp_fixtures.ts";

const PIN = "dev.tool-estate/version";
const seal = new RequestStateSeal(new Uint8Array(32));

/** A server core over `registry`, with every call, probe and notification kept. */
function core(
  registry: ToolRegistry,
  options: Partial<McpServerOptions> = {},
): { core: ServerCore; calls: CallRecord[]; probes: ProbeRecord[] } {
  const calls: CallRecord[] = [];
  const probes: ProbeRecord[] = [];
  let t = 0;
  const keys = memoryIdempotencyStore();
  return {
    core: {
      options: {
        registry,
        handlerFor: () => (args) => ({ echoed: args }),
        onCall: (r) => calls.push(r),
        onProbe: (p) => probes.push(p),
        ...options,
      },
      pageSize: 50,
      now: () => (t += 10),
      closed: new AbortController().signal,
      addListener: () => () => {},
      requestStates: () => seal,
      idempotency: () => keys,
    },
    calls,
    probes,
  };
}

function caller(
  principal: Principal,
  options: Partial<Caller> = {},
): Caller & { sent: { message: JsonRpcNotification; related: unknown }[] } {
  const sent: { message: JsonRpcNotification; related: unknown }[] = [];
  return {
    principal,
    protocolVersion: "2025-11-25",
    clientCapabilities: {},
    notify: (message, related) => sent.push({ message, related }),
    logLevel: "debug",
    tools: undefined,
    outcomes: new Map(),
    ...options,
    sent,
  };
}

/** The JSON-RPC error a step throws: its code, message and data. */
function thrown(
  f: () => unknown,
): { code: number; message: string; data?: unknown } {
  try {
    f();
  } catch (e) {
    const { code, message, data } = e as {
      code: number;
      message: string;
      data?: unknown;
    };
    return data === undefined ? { code, message } : { code, message, data };
  }
  throw new Error("did not throw");
}

Deno.test("shape: name, then arguments, then the pin — the first that is wrong is the -32602", () => {
  assert.deepEqual(
    thrown(() => readCallParams({ arguments: [], _meta: { [PIN]: "nope" } })),
    {
      code: -32602,
      message: "Invalid params: tools/call needs name (a string)",
    },
  );
  assert.deepEqual(
    thrown(() => readCallParams({ name: "x", arguments: [], _meta: { [PIN]: 1 } })),
    {
      code: -32602,
      message: "Invalid params: arguments must be an object",
    },
  );
  for (const pin of [1, "", "not a range", null]) {
    assert.equal(
      thrown(() => readCallParams({ name: "x", _meta: { [PIN]: pin } })).code,
      -32602,
      JSON.stringify(pin),
    );
  }
  assert.deepEqual(readCallParams({ name: "x" }), {
    name: "x",
    args: {},
    pin: undefined,
    meta: {},
  });
  // A _meta that is not an object carries no pin and no progress token.
  assert.deepEqual(
    readCallParams({ name: "x", arguments: { a: 1 }, _meta: "~1.0.0" }),
    {
      name: "x",
      args: { a: 1 },
      pin: undefined,
      meta: {},
    },
  );
  const pinned = readCallParams({
    name: "x",
    _meta: { [PIN]: "~1.0.0", progressToken: 7 },
  });
  assert.equal(pinned.pin, "~1.0.0");
  assert.equal(pinned.meta.progressToken, 7);
});

Deno.test("visibility: a tool the caller may not see gets the bytes an unknown one gets; both are probes", () => {
  const { core: c, probes } = core(estate());
  assert.equal(
    visibleTool(c, { caller: caller(OPERATOR), name: "payments.lookup" })
      .version,
    "1.1.0",
  );
  const hidden = thrown(() => visibleTool(c, { caller: caller(RETAIL), name: "payments.lookup" }));
  const unknown = thrown(() =>
    visibleTool(c, { caller: caller(RETAIL), name: "payments.lookupp" })
  );
  assert.deepEqual(hidden, {
    code: -32602,
    message: "Unknown tool: payments.lookup",
  });
  assert.deepEqual(unknown, {
    code: -32602,
    message: "Unknown tool: payments.lookupp",
  });
  assert.deepEqual(
    probes.map(({ principal, method, name, hidden }) => ({
      principal,
      method,
      name,
      hidden,
    })),
    [
      {
        principal: RETAIL.id,
        method: "tools/call",
        name: "payments.lookup",
        hidden: true,
      },
      {
        principal: RETAIL.id,
        method: "tools/call",
        name: "payments.lookupp",
        hidden: false,
      },
    ],
  );
  // A name of any length gets a short answer.
  const long = thrown(() => visibleTool(c, { caller: caller(RETAIL), name: "x".repeat(100_000) }));
  assert.ok(long.message.length < 1000, `${long.message.length} characters`);
});

Deno.test("version: a pin reaches a deprecated version the caller may see, and nothing it may not", () => {
  const registry = estate();
  registry.publish(
    spec("policy.search", "2.0.0", { requiredScopes: ["policy:admin"] }),
  );
  registry.deprecate("payments.lookup", "1.0.0");
  const { core: c, probes } = core(registry);
  const operator = caller(OPERATOR);
  const lookup = visibleTool(c, { caller: operator, name: "payments.lookup" });
  assert.equal(
    resolveVersion(c, { caller: operator, visible: lookup, pin: undefined }),
    lookup,
  );
  assert.equal(
    resolveVersion(c, { caller: operator, visible: lookup, pin: "~1.0.0" })
      .version,
    "1.0.0",
  );
  // The retail agent sees policy.search 1.0.0; 2.0.0 needs a scope it lacks.
  const retail = caller(RETAIL);
  const search = visibleTool(c, { caller: retail, name: "policy.search" });
  assert.equal(search.version, "1.0.0");
  const hidden = thrown(() =>
    resolveVersion(c, { caller: retail, visible: search, pin: "^2.0.0" })
  );
  const none = thrown(() => resolveVersion(c, { caller: retail, visible: search, pin: "^3.0.0" }));
  assert.deepEqual(hidden, {
    code: -32602,
    message: "No version of policy.search satisfies ^2.0.0",
  });
  assert.deepEqual(none, {
    code: -32602,
    message: "No version of policy.search satisfies ^3.0.0",
  });
  assert.deepEqual(probes.map((p) => [p.version, p.hidden]), [
    ["^2.0.0", true],
    ["^3.0.0", false],
  ]);
});

Deno.test("schema: invalid arguments are -32602 up to 2025-06-18 and an isError result from 2025-11-25", () => {
  const lookup = spec("payments.lookup", "1.0.0");
  const valid = { reference: "PMT-000001" };
  const invalid = { reference: "nope", extra: true };
  for (
    const protocolVersion of [
      undefined,
      "2024-11-05",
      "2025-11-25",
      "2026-07-28",
    ]
  ) {
    assert.deepEqual(checkArguments(lookup, { args: valid, protocolVersion }), {
      kind: "valid",
    });
  }
  for (const protocolVersion of ["2024-11-05", "2025-03-26", "2025-06-18"]) {
    const verdict = checkArguments(lookup, { args: invalid, protocolVersion });
    assert.equal(verdict.kind, "protocol-error", String(protocolVersion));
    if (verdict.kind !== "protocol-error") continue;
    assert.equal(verdict.error.code, -32602);
    assert.equal(
      verdict.error.message,
      "Invalid arguments for payments.lookup",
    );
    const data = verdict.error.data as { issues: { path: string }[] };
    assert.deepEqual(data.issues.map((i) => i.path).sort(), [
      "$.extra",
      "$.reference",
    ]);
  }
  // No revision negotiated yet: the newest handshake-era one's rule.
  for (const protocolVersion of [undefined, "2025-11-25", "2026-07-28"]) {
    const verdict = checkArguments(lookup, { args: invalid, protocolVersion });
    assert.equal(verdict.kind, "tool-error", String(protocolVersion));
    if (verdict.kind !== "tool-error") continue;
    assert.equal(verdict.result.isError, true);
    const text = (verdict.result.content[0] as { text: string }).text;
    assert.match(text, /^Invalid arguments for payments\.lookup:\n/);
    assert.match(text, /\$\.reference: /);
    const data = verdict.result.structuredContent as {
      issues: unknown[];
      omitted?: number;
    };
    assert.equal(data.issues.length, 2);
    assert.equal(data.omitted, undefined);
  }
});

Deno.test("schema: thousands of issues are answered with the first ones and the count of the rest", () => {
  const lookup = spec("payments.lookup", "1.0.0");
  const args: Record<string, unknown> = { reference: "PMT-000001" };
  for (let i = 0; i < 5000; i++) args[`k${i}`] = i;
  const verdict = checkArguments(lookup, {
    args,
    protocolVersion: "2025-11-25",
  });
  assert.equal(verdict.kind, "tool-error");
  if (verdict.kind !== "tool-error") return;
  const data = verdict.result.structuredContent as {
    issues: unknown[];
    omitted: number;
  };
  assert.equal(data.issues.length + data.omitted, 5000);
  assert.ok(data.issues.length <= 100);
  assert.match(
    (verdict.result.content[0] as { text: string }).text,
    /… and \d+ more issues$/,
  );
});

async function run(
  handler: ToolHandler | undefined,
  options: {
    caller?: Caller;
    meta?: Record<string, unknown>;
    signal?: AbortSignal;
  } = {},
) {
  const outcomes: CallRecord["outcome"][] = [];
  const { core: c } = core(estate(), { handlerFor: () => handler });
  const who = options.caller ?? caller(OPERATOR);
  const meta = options.meta ?? {};
  // The handler step runs inside a real peer, as a server's sessions run it: the request's
  // progress token, cancellation and related notifications are the peer's.
  let result: CallToolResult | undefined;
  let thrown: unknown;
  const exchange = new PeerExchange({
    send: (m, related) => who.notify(m as JsonRpcNotification, related),
    handler: async (_params, context) => {
      if (options.signal?.aborted) exchange.cancel("r1"); // cancelled as it starts
      try {
        result = await runHandler(c, {
          caller: who,
          context,
          spec: spec("policy.search", "1.0.0"),
          request: {
            name: "policy.search",
            args: { q: 1 },
            pin: undefined,
            meta,
          },
          record: (o) => outcomes.push(o),
        });
      } catch (e) {
        thrown = e;
        throw e;
      }
      return result;
    },
  });
  options.signal?.addEventListener("abort", () => exchange.cancel("r1"), {
    once: true,
  });
  await exchange.exchange({
    jsonrpc: "2.0",
    id: "r1",
    method: "tools/call",
    params: { name: "policy.search", arguments: { q: 1 }, _meta: meta },
  });
  if (thrown !== undefined) throw thrown;
  return { result: result!, outcomes };
}

Deno.test("handler: values become results; throws and missing handlers are tool errors the model reads", async () => {
  assert.deepEqual(await run(() => "plain"), {
    result: { content: [{ type: "text", text: "plain" }] },
    outcomes: ["ok"],
  });
  assert.deepEqual(await run(() => ({ n: 1 })), {
    result: {
      content: [{ type: "text", text: '{"n":1}' }],
      structuredContent: { n: 1 },
    },
    outcomes: ["ok"],
  });
  assert.deepEqual(await run(() => undefined), {
    result: { content: [{ type: "text", text: "null" }] },
    outcomes: ["ok"],
  });
  const own = { content: [{ type: "text", text: "own" }], isError: true };
  assert.deepEqual(await run(() => own), {
    result: own,
    outcomes: ["tool-error"],
  });
  assert.deepEqual(
    await run(() => {
      throw new Error("core banking timed out");
    }),
    {
      result: {
        content: [{
          type: "text",
          text: "policy.search failed: core banking timed out",
        }],
        isError: true,
      },
      outcomes: ["tool-error"],
    },
  );
  assert.deepEqual(await run(undefined), {
    result: {
      content: [{
        type: "text",
        text: "policy.search@1.0.0 is not available right now",
      }],
      isError: true,
    },
    outcomes: ["tool-error"],
  });
});

Deno.test("handler: a missing client capability is -32021 in 2026-07-28, a tool error naming it before", async () => {
  const missing = () => {
    throw new MissingClientCapabilityError({ sampling: {} });
  };
  await assert.rejects(
    run(missing, {
      caller: caller(OPERATOR, { protocolVersion: "2026-07-28" }),
    }),
    (e: { code: number; data: unknown }) => {
      assert.equal(e.code, -32021);
      assert.deepEqual(e.data, { requiredCapabilities: { sampling: {} } });
      return true;
    },
  );
  // The handshake era has no such code: the model reads which capability was missing.
  const { result, outcomes } = await run(missing);
  assert.equal(result.isError, true);
  assert.match(
    (result.content[0] as { text: string }).text,
    /needs the client capability \{"sampling":\{\}\}/,
  );
  assert.deepEqual(outcomes, ["tool-error"]);
});

Deno.test("handler: a cancelled call ends as cancelled, and sends no more progress or logs", async () => {
  const controller = new AbortController();
  const who = caller(OPERATOR);
  const { result, outcomes } = await run(async (_args, ctx) => {
    ctx.progress(1);
    ctx.log("info", "started");
    controller.abort();
    ctx.progress(2);
    ctx.log("info", "after");
    await Promise.resolve();
    return "too late";
  }, { caller: who, meta: { progressToken: "p" }, signal: controller.signal });
  assert.deepEqual(result, { content: [] });
  assert.deepEqual(outcomes, ["cancelled"]);
  assert.deepEqual(who.sent.map((s) => [s.message.method, s.related]), [
    ["notifications/progress", "r1"],
    ["notifications/message", "r1"],
  ]);
  // A handler that throws because it was cancelled is cancelled too.
  const again = new AbortController();
  again.abort();
  assert.deepEqual(
    (await run(() => {
      throw new Error("aborted");
    }, { signal: again.signal })).outcomes,
    ["cancelled"],
  );
});

Deno.test("handler: log messages go out at or above the caller's level, none without one", async () => {
  const levels = async (logLevel: Caller["logLevel"]) => {
    const who = caller(OPERATOR, { logLevel });
    await run((_args, ctx) => {
      ctx.log("debug", 1);
      ctx.log("warning", 2, "core");
      ctx.log("emergency", 3);
      return "";
    }, { caller: who });
    return who.sent.map((s) => s.message.params);
  };
  assert.deepEqual(await levels("warning"), [
    { level: "warning", data: 2, logger: "core" },
    { level: "emergency", data: 3 },
  ]);
  assert.equal((await levels("debug")).length, 3);
  assert.deepEqual(await levels(undefined), []);
});

Deno.test("handler: the context carries the principal, the version and the client's capabilities", async () => {
  let seen: unknown;
  await run((_args, ctx) => {
    seen = [ctx.principal.id, ctx.spec.version, ctx.clientCapabilities];
    return "";
  }, { caller: caller(RETAIL, { clientCapabilities: undefined }) });
  assert.deepEqual(seen, [RETAIL.id, "1.0.0", {}]);
});

Deno.test("callTool(): the steps in order; a call is logged once it reached a version, timed from there", async () => {
  const { core: c, calls } = core(estate());
  const call = async (
    params: Record<string, unknown>,
    protocolVersion = "2025-11-25",
  ) =>
    await callTool(c, {
      caller: caller(OPERATOR, { protocolVersion }),
      params,
      context: idleContext(1),
    }) as CallToolResult;
  await assert.rejects(call({ name: "nope", arguments: { reference: 1 } }), {
    code: -32602,
  });
  assert.equal(calls.length, 0); // never reached a version
  const rejected = await call({
    name: "policy.search",
    arguments: { reference: 1 },
  });
  assert.equal(rejected.isError, true);
  await assert.rejects(
    call({ name: "policy.search", arguments: { reference: 1 } }, "2025-06-18"),
    { code: -32602, message: "Invalid arguments for policy.search" },
  );
  const ok = await call({
    name: "policy.search",
    arguments: { reference: "PMT-000001" },
  });
  assert.deepEqual(ok.structuredContent, {
    echoed: { reference: "PMT-000001" },
  });
  assert.deepEqual(
    calls.map((r) => [r.tool, r.version, r.outcome, r.durationMs]),
    [
      ["policy.search", "1.0.0", "invalid-arguments", 10],
      ["policy.search", "1.0.0", "invalid-arguments", 10],
      ["policy.search", "1.0.0", "ok", 10],
    ],
  );
});

/** A request context outside any peer: never cancelled, no progress token, nothing related. */
function idleContext(id: JsonRpcId): RequestContext {
  return {
    id,
    method: "tools/call",
    signal: new AbortController().signal,
    progressToken: undefined,
    progress: () => {},
    notify: () => Promise.resolve(),
    request: () => Promise.reject(new Error("no client in this test")),
  };
}

Deno.test("schema: for a tool with an outputSchema the issues ride under _meta, and the client reads them there", async () => {
  const { resultOutcome, ISSUES_META_KEY } = await import(
    "../lib/mcp/_client_outcome.ts"
  );
  const lookup = spec("payments.lookup", "1.0.0", {
    outputSchema: {
      type: "object",
      properties: { status: { type: "string" } },
    },
  });
  const verdict = checkArguments(lookup, {
    args: { reference: 7 },
    protocolVersion: "2025-11-25",
  });
  assert.equal(verdict.kind, "tool-error");
  if (verdict.kind !== "tool-error") return;
  // Clients check structuredContent against the outputSchema, error results too: none is sent.
  assert.equal(verdict.result.structuredContent, undefined);
  const carried = verdict.result._meta?.[ISSUES_META_KEY] as {
    issues: { path: string }[];
  };
  assert.deepEqual(carried.issues.map((i) => i.path), ["$.reference"]);
  const outcome = resultOutcome(verdict.result);
  assert.equal(outcome.kind, "invalid-arguments");
  if (outcome.kind === "invalid-arguments") {
    assert.deepEqual(outcome.issues.map((i) => i.path), ["$.reference"]);
  }
});
