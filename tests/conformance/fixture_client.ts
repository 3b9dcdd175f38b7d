/**
 * The client the MCP conformance suite's client scenarios run: our `McpClient` over our Streamable
 * HTTP client transport. The suite starts a mock server, then runs this script with the server's
 * URL as the last argument and the scenario's name in `MCP_CONFORMANCE_SCENARIO`.
 *
 * Run by the suite: `conformance client --command "deno run -A tests/conformance/fixture_client.ts"
 * --scenario initialize`.
 *
 * @module
 */
import { McpClient } from "../../mod.ts";
import { StreamableHttpClientTransport } from "../../lib/mcp/transports/http_mod.ts";

/**
 * Plays one scenario against the server at `url`.
 *
 * @param url The mock server's MCP endpoint.
 * @param scenario The scenario's name.
 */
export async function play(url: string, scenario: string): Promise<void> {
  const client = new McpClient(new StreamableHttpClientTransport(url), {
    clientInfo: { name: "tool-estate-conformance-client", version: "0.1.0" },
    // The 0.1.16 mock servers speak only the handshake era, and those of `initialize` and
    // `sse-retry` answer any method they do not know (`server/discover` included) with an empty
    // result, which the default "auto" client takes for a 2026-07-28 server.
    era: "legacy",
  });
  try {
    await client.connect();
    const tools = await client.listTools();
    if (scenario === "tools_call") {
      const add = tools.find((t) => t.name === "add_numbers");
      if (!add) throw new Error("the server lists no add_numbers tool");
      const outcome = await client.callTool("add_numbers", { a: 5, b: 3 });
      if (outcome.kind !== "ok") throw new Error(`add_numbers: ${JSON.stringify(outcome)}`);
    } else if (scenario === "sse-retry") {
      // The server closes the call's stream after a priming event with `retry:`, and answers
      // on the GET stream the client is expected to open with Last-Event-ID.
      const outcome = await client.callTool(tools[0].name, {}, { timeoutMs: 3_000 });
      if (outcome.kind !== "ok") throw new Error(`${tools[0].name}: ${JSON.stringify(outcome)}`);
    }
  } finally {
    await client.close();
  }
}

if (import.meta.main) {
  await play(Deno.args.at(-1)!, Deno.env.get("MCP_CONFORMANCE_SCENARIO") ?? "initialize");
}
