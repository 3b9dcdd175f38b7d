// A v2 SDK (@modelcontextprotocol/server 2.4.0) server over stdio, dual-era by default; with the
// argument `reject`, modern-only (a legacy `initialize` is refused naming the modern versions).
import { McpServer } from "@modelcontextprotocol/server";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import { z } from "zod";

serveStdio(() => {
  const server = new McpServer({ name: "v2-stdio-peer", version: "2.4.0" });
  server.registerTool("echo", {
    description: "Echoes its message.",
    inputSchema: z.object({ message: z.string() }),
  }, ({ message }) => ({ content: [{ type: "text", text: message }] }));
  return server;
}, { legacy: Deno.args[0] === "reject" ? "reject" : "serve" });
