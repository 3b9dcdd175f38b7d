/**
 * Our client against a server nobody here wrote: `McpClient` over our stdio transport drives the
 * reference server, @modelcontextprotocol/server-everything 2026.8.31 (built on the official SDK
 * 1.x), in a real process with a scrubbed environment (it has a tool that prints its environment).
 */
import assert from "node:assert/strict";
import { McpClient, McpProtocolError, validateSchema } from "../mod.ts";
import { StdioClientTransport } from "../lib/mcp/transports/stdio.ts";

const ROOT = new URL("../", import.meta.url).pathname;
const EVERYTHING = "npm:@modelcontextprotocol/server-everything@2026.8.31";

/** The tools server-everything lists to a client that declares no capabilities, in its order. */
const EVERYTHING_TOOLS = [
  "echo",
  "get-annotated-message",
  "get-env",
  "get-resource-links",
  "get-resource-reference",
  "get-structured-content",
  "get-sum",
  "get-tiny-image",
  "gzip-file-as-resource",
  "toggle-simulated-logging",
  "toggle-subscriber-updates",
  "trigger-long-running-operation",
  "simulate-research-query",
];

/** Starts server-everything with only PATH and a throwaway HOME, runs `body`, cleans up. */
async function withEverything(
  body: (
    client: McpClient,
    transport: StdioClientTransport,
    home: string,
  ) => Promise<void>,
): Promise<void> {
  const home = await Deno.makeTempDir({ prefix: "peer-everything-home-" });
  const transport = new StdioClientTransport({
    command: Deno.execPath(),
    args: ["run", "-A", EVERYTHING, "stdio"],
    cwd: ROOT, // the project's node_modules and deno.lock: no download
    env: { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin", HOME: home },
    stderr: "ignore",
  });
  const client = new McpClient(transport, {
    clientInfo: { name: "tool-estate-peer-test", version: "0.1.0" },
    requestTimeoutMs: 15_000,
    era: "auto", // server/discover first: a handshake-era server must still get initialize
  });
  try {
    await body(client, transport, home);
  } finally {
    await client.close();
    await Deno.remove(home, { recursive: true });
  }
}

function text(content: unknown): string {
  return (content as { text: string }).text;
}

Deno.test("McpClient and server-everything: handshake, tools on every page, a call, the scrubbed environment", async () => {
  await withEverything(async (client, transport, home) => {
    const init = await client.connect();
    assert.equal(client.era, "handshake");
    assert.equal(init.protocolVersion, "2025-11-25");
    assert.equal(init.serverInfo.name, "mcp-servers/everything");
    assert.deepEqual(Object.keys(init.capabilities).sort(), [
      "completions",
      "logging",
      "prompts",
      "resources",
      "tasks",
      "tools",
    ]);
    assert.deepEqual(await client.request("ping"), {});

    // Every page: listTools() walks until nextCursor is absent; the reference server sends one.
    const first = await client.request("tools/list") as {
      tools: unknown[];
      nextCursor?: string;
    };
    assert.equal(first.nextCursor, undefined);
    const tools = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name), EVERYTHING_TOOLS);
    assert.deepEqual(tools, first.tools);

    // A call, and our validator reading the peer's draft-07 schema the way the peer does.
    const sum = tools.find((t) => t.name === "get-sum")!;
    assert.equal(
      (sum.inputSchema as { $schema?: string }).$schema,
      "http://json-schema.org/draft-07/schema#",
    );
    assert.deepEqual(validateSchema(sum.inputSchema, { a: 2, b: 40 }), []);
    const ok = await client.callTool("get-sum", { a: 2, b: 40 });
    assert.deepEqual(ok, {
      kind: "ok",
      result: {
        content: [{ type: "text", text: "The sum of 2 and 40 is 42." }],
      },
    });

    // Bad arguments: both sides name the same two places. The peer (SDK 1.x) sends an isError
    // result with text only, so without structured issues our client calls it a tool error.
    assert.deepEqual(
      validateSchema(sum.inputSchema, { a: "x" }).map((i) => `${i.path} ${i.keyword}`),
      ["$.a type", "$.b required"],
    );
    const bad = await client.callTool("get-sum", { a: "x" });
    assert.equal(bad.kind, "tool-error");
    if (bad.kind === "tool-error") {
      assert.match(bad.message, /Input validation error/);
      assert.match(bad.message, / at a\b/);
      assert.match(bad.message, / at b\b/);
    }
    // Unknown tool: the same isError shape (the spec would have -32602; notes §5.3).
    const unknown = await client.callTool("no-such-tool", {});
    assert.equal(unknown.kind, "tool-error");

    // The environment the server sees is the one we passed (Deno adds only its user agent).
    const env = await client.callTool("get-env", {});
    assert.equal(env.kind, "ok");
    if (env.kind === "ok") {
      const seen = JSON.parse(text(env.result.content[0])) as Record<
        string,
        string
      >;
      assert.equal(seen.HOME, home);
      assert.deepEqual(
        Object.keys(seen).filter((k) => k !== "npm_config_user_agent").sort(),
        ["HOME", "PATH"],
      );
    }
    assert.deepEqual(transport.strayLines, []);
  });
});

Deno.test("McpClient and server-everything: resources, prompts, progress and a cancelled call", async () => {
  await withEverything(async (client, transport) => {
    await client.connect();

    // Resources: a listed static document, a templated one, and a missing one (-32602).
    const resources = await client.listResources();
    const doc = resources.find((r) => r.uri === "demo://resource/static/document/features.md");
    assert.equal(doc?.mimeType, "text/markdown");
    const [contents] = await client.readResource(doc!.uri);
    assert.equal(contents.uri, doc!.uri);
    assert.match(text(contents), /^# /);
    const templates = await client.request("resources/templates/list") as {
      resourceTemplates: { uriTemplate: string }[];
    };
    assert.ok(
      templates.resourceTemplates.some((t) =>
        t.uriTemplate === "demo://resource/dynamic/text/{resourceId}"
      ),
    );
    const [dynamic] = await client.readResource(
      "demo://resource/dynamic/text/7",
    );
    assert.match(text(dynamic), /^Resource 7: This is a plaintext resource/);
    await assert.rejects(
      client.readResource("demo://resource/static/document/no-such-file.md"),
      (e) => e instanceof McpProtocolError && e.code === -32602,
    );

    // Prompts: without arguments, with arguments, and a missing required argument (-32602).
    const prompts = await client.listPrompts();
    assert.deepEqual(
      prompts.find((p) => p.name === "args-prompt")?.arguments?.map((
        a,
      ) => [a.name, a.required]),
      [["city", true], ["state", false]],
    );
    assert.deepEqual(await client.getPrompt("simple-prompt"), {
      messages: [{
        role: "user",
        content: {
          type: "text",
          text: "This is a simple prompt without arguments.",
        },
      }],
    });
    assert.deepEqual(
      (await client.getPrompt("args-prompt", { city: "Paris", state: "TX" }))
        .messages,
      [{
        role: "user",
        content: { type: "text", text: "What's weather in Paris, TX?" },
      }],
    );
    await assert.rejects(
      client.getPrompt("args-prompt", {}),
      (e) => e instanceof McpProtocolError && e.code === -32602,
    );

    // Progress: every step, in order.
    const steps: string[] = [];
    const done = await client.callTool("trigger-long-running-operation", {
      duration: 0.3,
      steps: 3,
    }, { onProgress: (p) => steps.push(`${p.progress}/${p.total}`) });
    assert.equal(done.kind, "ok");
    assert.deepEqual(steps, ["1/3", "2/3", "3/3"]);

    // Cancelled after the first step: the call rejects at once; the peer's late progress and
    // response are ignored, and the connection goes on working.
    const controller = new AbortController();
    const late: number[] = [];
    const cancelled = client.callTool("trigger-long-running-operation", {
      duration: 0.6,
      steps: 3,
    }, {
      signal: controller.signal,
      onProgress: (p) => {
        late.push(p.progress);
        controller.abort("enough");
      },
    });
    await assert.rejects(cancelled, /cancelled/);
    await new Promise((r) => setTimeout(r, 600));
    assert.deepEqual(late, [1]);
    const after = await client.callTool("echo", { message: "still here" });
    assert.deepEqual(after.kind === "ok" && after.result.content, [
      { type: "text", text: "Echo: still here" },
    ]);
    assert.deepEqual(transport.strayLines, []);
  });
});
