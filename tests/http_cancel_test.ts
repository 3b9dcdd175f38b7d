/**
 * Cancelling a call reaches the server in both eras over HTTP: a 2026-07-28 request is cancelled
 * by closing its connection — also while the server still works on a JSON answer, before any
 * notification opened a stream — and a handshake-era one by `notifications/cancelled`. The
 * handler sees its signal abort, and the call is logged `cancelled`, not `ok`.
 */
import assert from "node:assert/strict";
import { type CallRecord, McpClient, McpServer, ToolRegistry } from "../mod.ts";
import {
  bearerTokens,
  serveHttp,
  StreamableHttpClientTransport,
} from "../lib/mcp/transports/http_mod.ts";
import { OPERATOR, spec } from "./_mcp_fixtures.ts";

Deno.test("http: a cancelled call reaches the server in both eras: the handler's signal aborts and it is logged cancelled", async () => {
  const registry = new ToolRegistry();
  registry.publish(spec("reports.build", "1.0.0", { inputSchema: { type: "object" } }));
  const calls: CallRecord[] = [];
  let started: () => void = () => {};
  let aborted: () => void = () => {};
  const server = new McpServer({
    registry,
    // A long job: it answers only when cancelled (or after 20 s, which the test never waits for).
    handlerFor: () => (_args, ctx) =>
      new Promise((resolve) => {
        started();
        const timer = setTimeout(() => resolve("built"), 20_000);
        ctx.signal.addEventListener("abort", () => {
          clearTimeout(timer);
          aborted();
          resolve("stopped");
        }, { once: true });
      }),
    onCall: (r) => calls.push(r),
  });
  const token = "operator-token";
  const http = await serveHttp(server, { authenticate: bearerTokens([{ ...OPERATOR, token }]) });
  try {
    for (const era of ["stateless", "handshake"] as const) {
      const client = new McpClient(new StreamableHttpClientTransport(http.url, { token }), { era });
      await client.connect();
      const running = new Promise<void>((r) => (started = r));
      const stopped = new Promise<void>((r) => (aborted = r));
      const controller = new AbortController();
      const call = client.callTool("reports.build", {}, { signal: controller.signal });
      await running;
      controller.abort("the user stopped it");
      await assert.rejects(call);
      // The server's handler sees the cancellation (or the test says it never did, instead of
      // waiting out the handler's 20 s).
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([
        stopped,
        new Promise((_, reject) => {
          timer = setTimeout(
            () => reject(new Error(`${era}: the server never saw the cancellation`)),
            10_000,
          );
        }),
      ]).finally(() => clearTimeout(timer));
      // The log line is written as the handler returns.
      for (let i = 0; i < 100 && calls.length === 0; i++) {
        await new Promise((r) => setTimeout(r, 10));
      }
      assert.deepEqual(calls.map((c) => c.outcome), ["cancelled"], era);
      calls.length = 0;
      await client.close();
    }
  } finally {
    await http.close();
    server.close();
  }
});
