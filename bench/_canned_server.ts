/**
 * A server that answers every POST with one canned JSON-RPC result, for `hop_bench.ts`'s floor
 * rows: what one HTTP request costs on this runtime with `node:http` (the transport's server) or
 * `Deno.serve`, with no MCP work at all. Prints `URL: http://127.0.0.1:<port>/mcp`.
 *
 *   deno run -A bench/_canned_server.ts node|deno
 *
 * @module
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

const answer = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  result: {
    content: [{ type: "text", text: '{"rate":1.0842,"amount":108420,"tenor":"SPOT"}' }],
    structuredContent: { rate: 1.0842, amount: 108420, tenor: "SPOT" },
  },
});

if (Deno.args[0] === "deno") {
  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen() {} }, async (req) => {
    await req.text();
    return new Response(answer, { headers: { "content-type": "application/json" } });
  });
  console.log(`URL: http://127.0.0.1:${server.addr.port}/mcp`);
} else {
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      res.writeHead(200, {
        "content-type": "application/json",
        "content-length": Buffer.byteLength(answer),
      });
      res.end(answer);
    });
  });
  server.listen(0, "127.0.0.1", () => {
    console.log(`URL: http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`);
  });
}
