/**
 * The input schemas of `@modelcontextprotocol/server-everything`, as the server publishes them: the
 * installed package runs over stdio (as `tests/peer_everything_test.ts` runs it) and its
 * `tools/list` is read by a client that declares sampling, elicitation and roots, so every tool is
 * listed. Nothing is cached: each run asks the server.
 *
 * @module
 */
import { McpClient } from "../mod.ts";
import { StdioClientTransport } from "../lib/mcp/transports/stdio_mod.ts";
import { genericArgs, type WorkloadTool } from "./_mcp_tools.ts";

const ROOT = new URL("../", import.meta.url).pathname;
/** The package, at the version deno.json pins. */
export const EVERYTHING = "npm:@modelcontextprotocol/server-everything@2026.8.31";

/** server-everything's tools, each with its published input schema and generic arguments. */
export async function everythingTools(): Promise<WorkloadTool[]> {
  const home = await Deno.makeTempDir({ prefix: "bench-everything-home-" });
  const client = new McpClient(
    new StdioClientTransport({
      command: Deno.execPath(),
      args: ["run", "-A", EVERYTHING, "stdio"],
      cwd: ROOT, // the project's node_modules and deno.lock: no download
      env: { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin", HOME: home },
      stderr: "ignore",
    }),
    {
      clientInfo: { name: "tool-estate-bench", version: "0.1.0" },
      capabilities: { sampling: {}, elicitation: {}, roots: { listChanged: false } },
      era: "handshake",
      requestTimeoutMs: 30_000,
    },
  );
  try {
    await client.connect();
    const tools = await client.listTools();
    return tools.map((t) => {
      const schema = t.inputSchema as Record<string, unknown>;
      return {
        name: t.name,
        schema,
        draft: typeof schema.$schema === "string" && schema.$schema.includes("draft-07")
          ? "7"
          : "2020-12",
        args: (r) => genericArgs(schema, r),
      };
    });
  } finally {
    await client.close();
    await Deno.remove(home, { recursive: true });
  }
}
