/**
 * Our client waiting on a task of a server nobody here wrote: `McpClient` over stdio against
 * @modelcontextprotocol/server-everything 2026.8.31 (the official SDK 1.32's experimental tasks,
 * 2025-11-25), whose `simulate-research-query` runs only as a task (`execution.taskSupport`). The
 * v2 SDK (@modelcontextprotocol/server 2.4.0) has no task runtime (its tasks types are marked
 * "2025-11-25 wire vocabulary with no SDK runtime"), so there is no v2 server to try.
 */
import assert from "node:assert/strict";
import { McpClient } from "../mod.ts";
import { StdioClientTransport } from "../lib/mcp/transports/stdio.ts";

const ROOT = new URL("../", import.meta.url).pathname;
const EVERYTHING = "npm:@modelcontextprotocol/server-everything@2026.8.31";

Deno.test("McpClient asks server-everything (SDK 1.32) for a task, polls tasks/get, and returns tasks/result", async () => {
  const home = await Deno.makeTempDir({ prefix: "tasks-peer-home-" });
  const transport = new StdioClientTransport({
    command: Deno.execPath(),
    args: ["run", "-A", EVERYTHING, "stdio"],
    cwd: ROOT, // the project's node_modules and deno.lock: no download
    env: { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin", HOME: home },
    stderr: "ignore",
  });
  const client = new McpClient(transport, {
    clientInfo: { name: "tool-estate-tasks-peer-test", version: "0.1.0" },
    requestTimeoutMs: 15_000,
    era: "handshake",
  });
  try {
    const init = await client.connect();
    assert.ok(init.capabilities.tasks, "server-everything offers tasks");
    const tool = (await client.listTools()).find((t) => t.name === "simulate-research-query");
    assert.ok(
      tool?.execution?.taskSupport === "required" || tool?.execution?.taskSupport === "optional",
      JSON.stringify(tool?.execution),
    );
    const started = Date.now();
    const outcome = await client.callTool("simulate-research-query", { topic: "MCP tasks" });
    assert.equal(outcome.kind, "ok", JSON.stringify(outcome));
    const text = (outcome as { result: { content: { text?: string }[] } }).result.content
      .map((c) => c.text ?? "").join("\n");
    assert.match(text, /Research Report: MCP tasks/);
    // Four stages of a second each: it was waited on, not answered at once.
    assert.ok(Date.now() - started >= 3000, `${Date.now() - started} ms`);
  } finally {
    await client.close();
    await Deno.remove(home, { recursive: true });
  }
});
