/**
 * A client transport takes at most `maxMessageBytes` from the other side: over stdio against the
 * reference server (server-everything's echo), over HTTP against our own server. Past the cap the
 * answer is not read on, and the request fails with MessageTooLargeError; below it, all is as
 * before.
 */
import assert from "node:assert/strict";
import { McpClient, McpServer, ToolRegistry } from "../mod.ts";
import {
  DEFAULT_MAX_MESSAGE_BYTES,
  MessageTooLargeError,
  StdioClientTransport,
} from "../lib/mcp/transports/stdio_mod.ts";
import {
  bearerTokens,
  serveHttp,
  StreamableHttpClientTransport,
} from "../lib/mcp/transports/http_mod.ts";
import { OPERATOR, spec } from "./_mcp_fixtures.ts";

const ROOT = new URL("../", import.meta.url).pathname;
const EVERYTHING = `${ROOT}node_modules/@modelcontextprotocol/server-everything/dist/index.js`;
const CAP = 64 * 1024;

/** The too-large error a failed request carries, directly or as its cause. */
function tooLarge(e: unknown): MessageTooLargeError | undefined {
  if (e instanceof MessageTooLargeError) return e;
  return e instanceof Error && e.cause instanceof MessageTooLargeError ? e.cause : undefined;
}

Deno.test("stdio: an answer past maxMessageBytes from server-everything fails the call with MessageTooLargeError and stops the server; below it the call works", async () => {
  assert.equal(DEFAULT_MAX_MESSAGE_BYTES, 16 * 1024 * 1024);
  assert.throws(
    () => new StdioClientTransport({ command: Deno.execPath(), maxMessageBytes: 0 }),
    /maxMessageBytes must be a whole number of 1 or more/,
  );
  const transport = new StdioClientTransport({
    command: Deno.execPath(),
    args: [EVERYTHING, "stdio"],
    stderr: "ignore",
    maxMessageBytes: CAP,
  });
  const client = new McpClient(transport, { era: "handshake" });
  try {
    await client.connect();
    const small = await client.callTool("echo", { message: "x".repeat(1000) });
    assert.equal(small.kind, "ok");
    let failure: unknown;
    try {
      await client.callTool("echo", { message: "x".repeat(CAP * 3) });
    } catch (e) {
      failure = e;
    }
    const e = tooLarge(failure);
    assert.ok(e, `a MessageTooLargeError, got ${failure}`);
    assert.equal(e.limit, CAP);
    assert.match(String((failure as Error).message), /more than 65536 bytes/);
    // The server got no further hearing: it was stopped.
    await new Promise<void>((resolve) => {
      if (transport.process.exitCode !== null || transport.process.signalCode !== null) resolve();
      else transport.process.once("exit", () => resolve());
    });
    assert.equal(transport.process.signalCode, "SIGKILL");
  } finally {
    await client.close();
  }
});

Deno.test("http: a JSON answer past maxMessageBytes fails its request with MessageTooLargeError, read no further; the next call works", async () => {
  const registry = new ToolRegistry();
  registry.publish(spec("reports.get", "1.0.0", {
    inputSchema: { type: "object", properties: { size: { type: "number" } } },
  }));
  const server = new McpServer({
    registry,
    handlerFor: () => (args) => "y".repeat(Number(args.size)),
  });
  const token = "t0ken";
  const http = await serveHttp(server, {
    authenticate: bearerTokens([{ ...OPERATOR, token }]),
  });
  try {
    for (const era of ["handshake", "stateless"] as const) {
      const client = new McpClient(
        new StreamableHttpClientTransport(http.url, { token, maxMessageBytes: CAP }),
        { era },
      );
      await client.connect();
      let failure: unknown;
      try {
        await client.callTool("reports.get", { size: CAP * 4 });
      } catch (e) {
        failure = e;
      }
      assert.equal(tooLarge(failure)?.limit, CAP, `${era}: ${failure}`);
      const next = await client.callTool("reports.get", { size: 100 });
      assert.equal(next.kind, "ok", era);
      await client.close();
    }
  } finally {
    await http.close();
    server.close();
  }
});
