// A process speaking JSON-RPC on stdin/stdout with our JsonRpcPeer over a bare line transport:
// the far end of tests/stdio_client_test.ts. It answers `echo`, asks its client `roots/list` when
// asked `ask`, reports the abort of a cancelled `slow` as a notification, sends progress for
// `count`, and with the argument `chatter` writes a banner, CRLF and blank lines, and a message in
// pieces before any of that.
import { JsonRpcPeer, type Transport } from "../../mod.ts";

const encoder = new TextEncoder();
const write = (text: string) => Deno.stdout.writeSync(encoder.encode(text));

if (Deno.args[0] === "chatter") {
  write("starting up (a banner a misbehaving server prints)\n");
  write('{"jsonrpc":"2.0","method":"hello","params":{"crlf":true}}\r\n\n   \n');
  write('{"jsonrpc":"2.0","method":"hel');
  await new Promise((r) => setTimeout(r, 30));
  write('lo","params":{"split":true}}\n');
}

const transport: Transport = {
  send(message) {
    write(JSON.stringify(message) + "\n");
    return Promise.resolve();
  },
  close() {
    Deno.exit(0);
  },
};
const peer = new JsonRpcPeer(transport);
peer.onRequest("echo", (params) => params);
peer.onRequest(
  "env",
  () => ({ who: Deno.env.get("STDIO_PEER_WHO") ?? null, cwd: Deno.cwd() }),
);
peer.onRequest(
  "ask",
  async (_params, ctx) => ({ roots: await ctx.request("roots/list") }),
);
peer.onRequest("count", (_params, ctx) => {
  for (let i = 1; i <= 3; i++) ctx.progress({ progress: i, total: 3 });
  return { counted: 3 };
});
peer.onRequest("slow", (_params, ctx) =>
  new Promise(() => {
    ctx.signal.addEventListener("abort", () => {
      peer.notify("aborted", { reason: String(ctx.signal.reason) });
    });
  }));
peer.onRequest("stderr", () => {
  console.error("a log line on stderr");
  return {};
});

const decoder = new TextDecoder();
let buffer = "";
for await (const chunk of Deno.stdin.readable) {
  buffer += decoder.decode(chunk, { stream: true });
  let nl: number;
  while ((nl = buffer.indexOf("\n")) !== -1) {
    const line = buffer.slice(0, nl);
    buffer = buffer.slice(nl + 1);
    if (line.trim() !== "") transport.onmessage?.(JSON.parse(line));
  }
}
if (Deno.args.includes("linger")) {
  // Ignores the end of its input: only a signal ends it.
  setInterval(() => {}, 1000);
}
