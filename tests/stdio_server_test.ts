import assert from "node:assert/strict";
import { PassThrough } from "node:stream";
import { McpServer, STATELESS_META, type ToolContext, ToolRegistry } from "../mod.ts";
import { serveStdio } from "../lib/mcp/transports/stdio.ts";
import { OPERATOR, spec } from "./_mcp_fixtures.ts";

const ENVELOPE = {
  [STATELESS_META.protocolVersion]: "2026-07-28",
  [STATELESS_META.clientCapabilities]: {},
};
const delay = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * A server whose `desk.wait` tool runs until its gate is opened or it is cancelled, and a stdio
 * connection to it: what was written to stdout, line by line.
 */
function connect(options: { signal?: AbortSignal } = {}) {
  const registry = new ToolRegistry();
  registry.publish(
    spec("desk.wait", "1.0.0", { inputSchema: { type: "object" } }),
  );
  registry.publish(
    spec("desk.secret", "1.0.0", { requiredScopes: ["desk:secret"] }),
  );
  const gates = new Map<string, () => void>();
  const aborted: string[] = [];
  const server = new McpServer({
    registry,
    handlerFor: () => (args: Record<string, unknown>, ctx: ToolContext) =>
      new Promise((resolve) => {
        const gate = String(args.gate);
        ctx.signal.addEventListener("abort", () => {
          aborted.push(gate);
          resolve("aborted");
        });
        gates.set(gate, () => resolve(`opened ${gate}`));
      }),
  });
  const input = new PassThrough();
  const output = new PassThrough();
  const raw: string[] = [];
  let buffer = "";
  output.on("data", (c: Uint8Array) => {
    buffer += new TextDecoder().decode(c);
    let nl;
    while ((nl = buffer.indexOf("\n")) !== -1) {
      raw.push(buffer.slice(0, nl));
      buffer = buffer.slice(nl + 1);
    }
  });
  const done = serveStdio(server, {
    principal: OPERATOR,
    input,
    output,
    signal: options.signal,
  });
  const lines = () => raw.map((l) => JSON.parse(l) as Record<string, unknown>);
  const send = (m: unknown) => input.write((typeof m === "string" ? m : JSON.stringify(m)) + "\n");
  const waitFor = async (
    what: string,
    pred: (l: Record<string, unknown>) => boolean,
  ) => {
    for (let i = 0; i < 400; i++) {
      const hit = lines().find(pred);
      if (hit) return hit;
      await delay(5);
    }
    throw new Error(`timed out waiting for ${what}; got ${raw.join("\n")}`);
  };
  const waitForGate = async (gate: string) => {
    for (let i = 0; i < 400 && !gates.has(gate); i++) await delay(5);
    assert.ok(gates.has(gate), `gate ${gate} never started`);
  };
  const handshake = async () => {
    send({
      jsonrpc: "2.0",
      id: "init",
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {} },
    });
    await waitFor("initialize", (l) => l.id === "init");
    send({ jsonrpc: "2.0", method: "notifications/initialized" });
  };
  return {
    server,
    registry,
    input,
    raw,
    lines,
    send,
    waitFor,
    waitForGate,
    handshake,
    gates,
    aborted,
    done,
  };
}

const wait = (id: string, gate: string, stateless: boolean) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: stateless
    ? { name: "desk.wait", arguments: { gate }, _meta: ENVELOPE }
    : { name: "desk.wait", arguments: { gate } },
});

Deno.test("stdio: stdout carries one JSON message per line; a line that is not JSON is -32700 with id null; blank lines nothing", async () => {
  const c = connect();
  c.send("");
  c.send("   ");
  c.send("{not json");
  c.send({ jsonrpc: "2.0", id: 1, method: "ping" });
  await c.waitFor("ping", (l) => l.id === 1);
  c.input.end();
  await c.done;
  assert.equal(c.raw.length, 2);
  const [parse, pong] = c.lines();
  assert.equal(parse.id, null);
  assert.equal((parse.error as { code: number }).code, -32700);
  assert.deepEqual(pong, { jsonrpc: "2.0", id: 1, result: {} });
});

Deno.test("stdio: notifications/cancelled reaches the era of the request it names, also when both eras use the id", async () => {
  const c = connect();
  await c.handshake();
  c.send(wait("x", "session", false));
  await c.waitForGate("session");
  c.send(wait("x", "stateless", true));
  await c.waitForGate("stateless");
  // The stateless request with id "x" is in flight: the cancellation is its.
  c.send({
    jsonrpc: "2.0",
    method: "notifications/cancelled",
    params: { requestId: "x" },
  });
  // (A PassThrough may deliver the line within send(): let the cancelled request finish.)
  await delay(10);
  assert.deepEqual(c.aborted, ["stateless"]);
  // Now only the session's "x" is in flight: the same notification is the session's.
  c.send({
    jsonrpc: "2.0",
    method: "notifications/cancelled",
    params: { requestId: "x" },
  });
  for (let i = 0; i < 100 && c.aborted.length === 1; i++) await delay(5);
  assert.deepEqual(c.aborted, ["stateless", "session"]);
  c.send({ jsonrpc: "2.0", id: "after", method: "ping" });
  await c.waitFor("ping", (l) => l.id === "after");
  c.input.end();
  await c.done;
  // Cancelled requests get no response.
  assert.deepEqual(c.lines().filter((l) => l.id === "x"), []);
});

Deno.test("stdio: a stateless request whose id is in flight is still served; a second cancellation cancels nothing more", async () => {
  const c = connect();
  c.send(wait("dup", "first", true));
  await c.waitForGate("first");
  c.send(wait("dup", "second", true));
  await c.waitForGate("second");
  c.send({
    jsonrpc: "2.0",
    method: "notifications/cancelled",
    params: { requestId: "dup" },
  });
  for (let i = 0; i < 100 && c.aborted.length === 0; i++) await delay(5);
  assert.deepEqual(c.aborted, ["first"]); // the id names the request that holds it
  c.gates.get("second")!();
  const answer = await c.waitFor("second", (l) => l.id === "dup");
  assert.deepEqual(
    (answer.result as { content: unknown[] }).content,
    [{ type: "text", text: "opened second" }],
  );
  c.input.end();
  await c.done;
});

Deno.test("stdio: when the input ends, listen streams end, running requests still answer, the session closes", async () => {
  const c = connect();
  await c.handshake();
  assert.equal(c.server.sessionCount, 1);
  c.send({
    jsonrpc: "2.0",
    id: "listen",
    method: "subscriptions/listen",
    params: { notifications: { toolsListChanged: true }, _meta: ENVELOPE },
  });
  await c.waitFor(
    "ack",
    (l) => l.method === "notifications/subscriptions/acknowledged",
  );
  assert.equal(c.server.listenerCount, 1);
  c.send(wait("call", "running", true));
  await c.waitForGate("running");
  c.input.end();
  let resolved = false;
  c.done.then(() => (resolved = true));
  for (let i = 0; i < 100 && c.server.listenerCount > 0; i++) await delay(5);
  assert.equal(c.server.listenerCount, 0);
  await delay(20);
  assert.equal(resolved, false); // the running call holds it open
  c.gates.get("running")!();
  await c.done;
  assert.equal(c.server.sessionCount, 0);
  const ids = c.lines().map((l) => l.id).filter((id) => id !== undefined);
  assert.deepEqual(ids, ["init", "call"]); // the ended listen gets no response
  assert.equal(c.aborted.length, 0);
});

Deno.test("stdio: an aborted signal stops reading; what was running still answers", async () => {
  const controller = new AbortController();
  const c = connect({ signal: controller.signal });
  c.send(wait("call", "running", true));
  await c.waitForGate("running");
  controller.abort();
  c.send({ jsonrpc: "2.0", id: "late", method: "ping" });
  await delay(20);
  c.gates.get("running")!();
  await c.done;
  assert.deepEqual(c.lines().map((l) => l.id), ["call"]);
});

Deno.test("stdio: stateless requests are served as the session's principal, which follows updatePrincipal", async () => {
  const c = connect();
  await c.handshake();
  const list = async (id: string) => {
    c.send({
      jsonrpc: "2.0",
      id,
      method: "tools/list",
      params: { _meta: ENVELOPE },
    });
    const answer = await c.waitFor(id, (l) => l.id === id);
    return (answer.result as { tools: { name: string }[] }).tools.map((t) => t.name);
  };
  assert.deepEqual(await list("before"), ["desk.wait"]);
  c.server.updatePrincipal({
    ...OPERATOR,
    scopes: [...OPERATOR.scopes, "desk:secret"],
  });
  assert.deepEqual(await list("after"), ["desk.secret", "desk.wait"]);
  c.input.end();
  await c.done;
});
