import assert from "node:assert/strict";
import {
  createLinkedTransports,
  McpClient,
  McpHost,
  McpServer,
  serveTransport,
  ToolRegistry,
} from "../mod.ts";
import { StdioClientTransport } from "../lib/mcp/transports/stdio.ts";
import { estate, OPERATOR, server, spec } from "./_mcp_fixtures.ts";

function connect(s: McpServer, principal = OPERATOR, options = {}): McpClient {
  const [near, far] = createLinkedTransports();
  serveTransport(s, far, principal);
  return new McpClient(near, options);
}

/** A scratch copy of the example estate, served by `estate serve --stdio` in a real process. */
async function servedCopy(
  principal: string,
  extra: string[] = [],
): Promise<{ dir: string; transport: StdioClientTransport }> {
  await Deno.mkdir(".scratch", { recursive: true });
  const dir = await Deno.makeTempDir({ dir: ".scratch", prefix: "serve-" });
  const { cpSync } = await import("node:fs");
  cpSync("corpus", dir, { recursive: true });
  const transport = new StdioClientTransport({
    command: Deno.execPath(),
    args: [
      "run",
      "-A",
      "cli.ts",
      "serve",
      "--stdio",
      "--principal",
      principal,
      "--estate",
      dir,
      ...extra,
    ],
    stderr: "ignore",
  });
  return { dir, transport };
}

Deno.test("McpClient caches tools/list across pages and re-lists only after list_changed", async () => {
  const registry = estate();
  const { server: s } = server(registry, { pageSize: 1 });
  const client = connect(s);
  const init = await client.connect();
  assert.equal(init.protocolVersion, "2025-11-25");
  const names = (await client.listTools()).map((t) => t.name);
  assert.deepEqual(names, [
    "payments.lookup",
    "payments.release",
    "policy.search",
  ]);
  await client.listTools();
  await client.callTool("policy.search", { reference: "PMT-000001" });
  assert.equal(client.listCount, 1);
  let told = 0;
  client.onToolsChanged(() => told++);
  // A change the operator cannot see: no notification, no re-list.
  registry.publish(
    spec("retail.transfers.lookup", "1.0.1", {
      requiredScopes: ["transfers:read"],
      tenants: ["retail"],
      title: "t",
    }),
  );
  await new Promise((r) => setTimeout(r, 10));
  await client.listTools();
  assert.deepEqual([told, client.listCount], [0, 1]);
  registry.deprecate("payments.release", "1.0.0");
  await new Promise((r) => setTimeout(r, 10));
  assert.equal(told, 1);
  assert.deepEqual((await client.listTools()).map((t) => t.name), [
    "payments.lookup",
    "policy.search",
  ]);
  assert.equal(client.listCount, 2);
  await client.close();
});

Deno.test("McpClient stops at the page cap rather than walking forever", async () => {
  const registry = new ToolRegistry();
  for (let i = 0; i < 10; i++) registry.publish(spec(`t${i}`, "1.0.0"));
  const { server: s } = server(registry, { pageSize: 2 });
  const client = connect(s, OPERATOR, { maxPages: 3 });
  await client.connect();
  await assert.rejects(client.listTools(), /did not end within 3 pages/);
  await client.close();
});

Deno.test("callTool() separates ok, tool errors, rejected arguments (both shapes) and protocol errors", async () => {
  const { server: s } = server(estate());
  for (const version of ["2025-06-18", "2025-11-25"]) {
    const client = connect(s, OPERATOR, { protocolVersion: version });
    await client.connect();
    const ok = await client.callTool("payments.lookup", {
      reference: "PMT-000001",
    });
    assert.equal(ok.kind, "ok");
    const failed = await client.callTool("payments.lookup", {
      reference: "PMT-999999",
    });
    assert.deepEqual(
      failed.kind === "tool-error" && failed.message,
      "payments.lookup failed: core banking timed out",
    );
    const bad = await client.callTool("payments.lookup", {
      reference: 5,
      amount: "x",
    });
    assert.equal(bad.kind, "invalid-arguments");
    if (bad.kind === "invalid-arguments") {
      assert.equal(
        bad.via,
        version === "2025-06-18" ? "protocol-error" : "tool-result",
      );
      assert.deepEqual(bad.issues.map((i) => `${i.path} ${i.keyword}`), [
        "$.amount type",
        "$.reference type",
      ]);
    }
    const unknown = await client.callTool("payments.teleport", {});
    assert.deepEqual(
      unknown.kind === "protocol-error" && [unknown.code, unknown.message],
      [
        -32602,
        "Unknown tool: payments.teleport",
      ],
    );
    await client.close();
  }
});

Deno.test("callTool() pins a version, reports progress, and cancels", async () => {
  const registry = estate();
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  let aborted = false;
  const s = new McpServer({
    registry,
    handlerFor: (t) => async (_args, ctx) => {
      ctx.progress(1, 2, "working");
      if (t.version === "1.0.0") {
        ctx.signal.addEventListener("abort", () => (aborted = true));
        await gate;
      }
      return t.version;
    },
  });
  const client = connect(s);
  await client.connect();
  const seen: number[] = [];
  const r = await client.callTool("payments.lookup", {
    reference: "PMT-000001",
  }, {
    onProgress: (p) => seen.push(p.progress),
  });
  assert.deepEqual(r.kind === "ok" && r.result.content, [{
    type: "text",
    text: "1.1.0",
  }]);
  assert.deepEqual(seen, [1]);
  const controller = new AbortController();
  const pinned = client.callTool(
    "payments.lookup",
    { reference: "PMT-000001" },
    {
      version: "~1.0.0",
      signal: controller.signal,
    },
  );
  await new Promise((r) => setTimeout(r, 10));
  controller.abort("user");
  await assert.rejects(pinned, /cancelled/);
  await new Promise((r) => setTimeout(r, 10));
  assert.equal(aborted, true);
  release();
  await client.close();
});

Deno.test("McpHost namespaces colliding tool names stably and routes calls", async () => {
  const a = new ToolRegistry(), b = new ToolRegistry();
  a.publish(spec("search", "1.0.0"));
  a.publish(spec("payments.lookup", "1.0.0"));
  b.publish(spec("search", "2.0.0"));
  b.publish(spec("crm.customer.get", "1.0.0"));
  const host = new McpHost();
  const cb = connect(server(b).server);
  const ca = connect(server(a).server);
  await ca.connect();
  await cb.connect();
  host.add("crm", cb);
  host.add("payments", ca);
  const tools = await host.tools();
  assert.deepEqual(tools.map((t) => `${t.name} -> ${t.server}`), [
    "crm.customer.get -> crm",
    "crm__search -> crm",
    "payments.lookup -> payments",
    "payments__search -> payments",
  ]);
  const r = await host.callTool("crm__search", { reference: "PMT-000001" });
  assert.equal(
    r.kind === "ok" &&
      (r.result.structuredContent as { version: string }).version,
    "2.0.0",
  );
  assert.equal((await host.callTool("search", {})).kind, "protocol-error");
  assert.throws(() => host.add("crm", ca), /already in use/);
  await ca.close();
  await cb.close();
});

Deno.test("stdio: our client drives `estate serve --stdio` in a real process; stdout carries only protocol", async () => {
  const transport = new StdioClientTransport({
    command: Deno.execPath(),
    args: [
      "run",
      "-A",
      "cli.ts",
      "serve",
      "--stdio",
      "--principal",
      "wholesale-operator",
    ],
    stderr: "pipe",
  });
  let logs = "";
  transport.process.stderr!.on(
    "data",
    (d: Uint8Array) => (logs += new TextDecoder().decode(d)),
  );
  const client = new McpClient(transport);
  try {
    await client.connect();
    // This client declares no elicitation, so payments.release — which the user must confirm —
    // is not listed to it.
    const names = (await client.listTools()).map((t) => t.name);
    assert.deepEqual(names, [
      "fx.quote",
      "payments.lookup",
      "policy.search",
    ]);
    const quote = await client.callTool("fx.quote", {
      sell: "EUR",
      buy: "GBP",
      amount: 1000,
    });
    assert.equal(quote.kind, "ok");
    const bad = await client.callTool("payments.release", {
      reference: "PMT-004211",
    });
    assert.equal(bad.kind, "invalid-arguments");
    const policy = await client.readResource("bank://policies/POL-PAY-012");
    assert.match(
      (policy[0] as { text: string }).text,
      /Releasing a held payment/,
    );
    const prompt = await client.getPrompt("investigate-payment", {
      reference: "PMT-004211",
    });
    assert.match(
      (prompt.messages[0].content as { text: string }).text,
      /PMT-004211/,
    );
    assert.deepEqual(transport.strayLines, []);
  } finally {
    await client.close();
  }
  assert.match(logs, /serving .* over stdio as wholesale-operator/);
  assert.match(logs, /call wholesale-operator fx\.quote@1\.0\.0 ok/);
});

Deno.test("stdio: a publish into the estate folder while the server runs reaches the client as list_changed", async () => {
  const { dir, transport } = await servedCopy("wholesale-operator");
  const client = new McpClient(transport);
  try {
    await client.connect();
    assert.equal(
      (await client.listTools()).find((t) => t.name === "payments.lookup")
        ?._meta
        ?.["dev.tool-estate/version"],
      "2.0.0",
    );
    const changed = new Promise<void>((resolve) => client.onToolsChanged(resolve));
    const { EstateDir } = await import("../lib/store/mod.ts");
    const writer = EstateDir.open(dir);
    const current = writer.registry.latest("payments.lookup")!;
    const schema = current.inputSchema as {
      properties: Record<string, unknown>;
    };
    writer.publish({
      ...current,
      version: "2.1.0",
      inputSchema: {
        ...schema,
        properties: { ...schema.properties, channel: { type: "string" } },
      },
    });
    await changed;
    const lookup = (await client.listTools()).find((t) => t.name === "payments.lookup");
    assert.equal(lookup?._meta?.["dev.tool-estate/version"], "2.1.0");
    assert.equal(client.listCount, 2);
  } finally {
    await client.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("stdio: --record-calls stores accepted calls (not rejected ones) where impact and replay read them", async () => {
  const { dir, transport } = await servedCopy("group-risk-analyst", [
    "--record-calls",
  ]);
  const client = new McpClient(transport);
  try {
    await client.connect();
    assert.equal(
      (await client.callTool("risk.exposure.get", {
        counterpartyId: "CP-000042",
      })).kind,
      "ok",
    );
    assert.equal(
      (await client.callTool("risk.exposure.get", { counterpartyId: 42 })).kind,
      "invalid-arguments",
    );
  } finally {
    await client.close();
  }
  try {
    const { EstateDir } = await import("../lib/store/mod.ts");
    const calls = [...EstateDir.open(dir).readCalls("risk.exposure.get")];
    assert.equal(calls.length, 301);
    const last = calls.at(-1)!;
    assert.deepEqual([last.principal, last.version, last.arguments], [
      "group-risk-analyst",
      "1.0.0",
      { counterpartyId: "CP-000042" },
    ]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
