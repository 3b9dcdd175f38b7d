// The caller in e2e/console.mjs's approval scenario: one MCP client over Streamable HTTP that calls
// a tool whose call an approval rule holds, and waits for it (McpClient follows a held call's task
// by itself until the approver decides). The tool may also ask the caller's user to confirm (an
// irreversible side effect: a form elicitation with a `confirm` field); this caller confirms, and
// prints what it was asked ({"event":"confirm",...}). That confirmation is the caller's own; the
// approval is a second person's decision, taken in the console.
//
//   deno run -A --config deno.runtime.jsonc e2e/console_caller.ts URL TOKEN TOOL ARGS_JSON
//
// Prints one JSON line when the call is sent ({"event":"calling",...}) and one when it returns
// ({"event":"result","kind":...,"isError":...,"text":...}), or {"event":"error",...} when no
// answer came; exits 0 only for an `ok` outcome. TIMEOUT_MS (default 120000) bounds the wait.
import { McpClient } from "../mod.ts";
import { StreamableHttpClientTransport } from "../lib/mcp/transports/http_mod.ts";

const [url, token, tool, argsJson] = Deno.args;
if (!url || !token || !tool || !argsJson) {
  console.error("usage: console_caller.ts URL TOKEN TOOL ARGS_JSON");
  Deno.exit(2);
}
const timeoutMs = Number(Deno.env.get("TIMEOUT_MS") ?? 120_000);
const print = (line: Record<string, unknown>) =>
  console.log(JSON.stringify({ at: new Date().toISOString(), ...line }));

const client = new McpClient(new StreamableHttpClientTransport(url, { token }), {
  serverRequests: {
    elicitation: {
      form: (request) => {
        print({ event: "confirm", message: request.serverMessage.message });
        return { action: "accept", content: { confirm: true } };
      },
    },
  },
});
let code = 1;
try {
  await client.connect();
  print({ event: "calling", tool });
  const outcome = await client.callTool(tool, JSON.parse(argsJson), { timeoutMs });
  const result = "result" in outcome ? outcome.result : undefined;
  const text = (result?.content ?? [])
    .map((c) => (c as { type: string; text?: string }).text ?? `[${c.type}]`)
    .join("\n");
  const message = "message" in outcome ? outcome.message : undefined;
  print({ event: "result", kind: outcome.kind, isError: result?.isError ?? false, text, message });
  if (outcome.kind === "ok") code = 0;
} catch (error) {
  print({ event: "error", message: error instanceof Error ? error.message : String(error) });
} finally {
  await client.close().catch(() => {});
}
Deno.exit(code);
