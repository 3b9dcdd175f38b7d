// Our client against the official v2 SDK server (@modelcontextprotocol/server 2.4.0, dual-era,
// `createMcpHandler` behind Deno.serve on 127.0.0.1): `era: "auto"` picks 2026-07-28.
import assert from "node:assert/strict";
import { createMcpHandler, McpServer } from "@modelcontextprotocol/server";
import { z } from "zod";
import { McpClient, McpProtocolError } from "../mod.ts";
import { StreamableHttpClientTransport } from "../lib/mcp/transports/http_client.ts";
import { StdioClientTransport } from "../lib/mcp/transports/stdio.ts";

const ROOT = new URL("..", import.meta.url).pathname;

function v2Stdio(...args: string[]): StdioClientTransport {
  return new StdioClientTransport({
    command: Deno.execPath(),
    args: ["run", "-A", "tests/testdata/v2_stdio_server.ts", ...args],
    cwd: ROOT, // the project's node_modules and deno.lock: no download
    env: {
      PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
      HOME: Deno.env.get("HOME") ?? "/tmp",
    },
    stderr: "ignore",
  });
}

function factory(): McpServer {
  const server = new McpServer({ name: "v2-peer", version: "2.4.0" });
  server.registerTool("echo", {
    description: "Echoes its message.",
    inputSchema: z.object({ message: z.string() }),
  }, ({ message }) => ({ content: [{ type: "text", text: message }] }));
  return server;
}

async function withV2(
  body: (url: string, notifyToolsChanged: () => void) => Promise<void>,
): Promise<void> {
  const handler = createMcpHandler(factory);
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    (request) => handler.fetch(request),
  );
  try {
    await body(
      `http://127.0.0.1:${server.addr.port}/mcp`,
      () => handler.notify.toolsChanged(),
    );
  } finally {
    await handler.close();
    await server.shutdown();
  }
}

Deno.test("McpClient and the v2 SDK server: auto picks 2026-07-28; tools, calls, errors and listen work", async () => {
  await withV2(async (url, toolsChanged) => {
    const client = new McpClient(new StreamableHttpClientTransport(url), {
      era: "auto",
    });
    try {
      const init = await client.connect();
      assert.equal(client.era, "stateless");
      assert.equal(client.protocolVersion, "2026-07-28");
      assert.equal(init.serverInfo.name, "v2-peer");
      assert.deepEqual((await client.listTools()).map((t) => t.name), ["echo"]);
      const ok = await client.callTool("echo", { message: "hi" });
      assert.equal(ok.kind, "ok");
      const bad = await client.callTool("echo", { message: 5 });
      assert.equal(bad.kind, "tool-error"); // SEP-1303: invalid arguments are a tool result
      const unknown = await client.callTool("nope");
      assert.equal(unknown.kind, "protocol-error");
      assert.equal(unknown.kind === "protocol-error" && unknown.code, -32602);

      const sub = await client.listen({ toolsListChanged: true });
      const changed = new Promise<void>((resolve) => client.onToolsChanged(resolve));
      const before = client.listCount;
      toolsChanged();
      await changed;
      await client.listTools();
      assert.equal(client.listCount, before + 1);
      await sub.close();
    } finally {
      await client.close();
    }
  });
});

Deno.test("McpClient and the v2 SDK server: era legacy still gets the 2025-11-25 handshake", async () => {
  await withV2(async (url) => {
    const client = new McpClient(
      new StreamableHttpClientTransport(url, { listen: false }),
      {
        era: "handshake",
      },
    );
    try {
      const init = await client.connect();
      assert.equal(client.era, "handshake");
      assert.equal(init.protocolVersion, "2025-11-25");
      assert.deepEqual((await client.listTools()).map((t) => t.name), ["echo"]);
    } finally {
      await client.close();
    }
  });
});

Deno.test("McpClient and the v2 SDK over stdio: auto picks 2026-07-28 on a dual-era server", async () => {
  const client = new McpClient(v2Stdio(), {
    era: "auto",
    discoverTimeoutMs: 15_000,
  });
  try {
    await client.connect();
    assert.equal(client.era, "stateless");
    assert.equal(client.protocolVersion, "2026-07-28");
    const ok = await client.callTool("echo", { message: "over stdio" });
    assert.equal(
      ok.kind === "ok" && (ok.result.content[0] as { text: string }).text,
      "over stdio",
    );
  } finally {
    await client.close();
  }
});

Deno.test("McpClient and the v2 SDK over stdio: era legacy is served the handshake", async () => {
  const client = new McpClient(v2Stdio(), {
    era: "handshake",
    requestTimeoutMs: 15_000,
  });
  try {
    const init = await client.connect();
    assert.equal(client.era, "handshake");
    assert.equal(init.protocolVersion, "2025-11-25");
    assert.deepEqual((await client.listTools()).map((t) => t.name), ["echo"]);
  } finally {
    await client.close();
  }
});

Deno.test("McpClient and a modern-only v2 server over stdio: auto is modern; a handshake is refused", async () => {
  const auto = new McpClient(v2Stdio("reject"), {
    era: "auto",
    discoverTimeoutMs: 15_000,
  });
  try {
    await auto.connect();
    assert.equal(auto.era, "stateless");
    assert.deepEqual((await auto.listTools()).map((t) => t.name), ["echo"]);
  } finally {
    await auto.close();
  }
  const legacy = new McpClient(v2Stdio("reject"), {
    era: "handshake",
    requestTimeoutMs: 15_000,
  });
  try {
    await assert.rejects(
      legacy.connect(),
      (e) => e instanceof McpProtocolError && e.code === -32022,
    );
  } finally {
    await legacy.close();
  }
});
