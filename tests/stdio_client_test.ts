/**
 * `StdioClientTransport` on its own, against a real process (`tests/testdata/stdio_peer.ts`, a
 * `JsonRpcPeer` on its stdin and stdout): one message per line each way, whatever the chunking,
 * CRLF and blank lines; lines that are not JSON kept in `strayLines`; the environment, working
 * directory and stderr it is given; `onclose` when the process goes; `close()` ending stdin, then
 * terminating a process that does not exit. Then under a `JsonRpcPeer`: a request the server
 * sends the client mid-call, progress, and cancellation, across the process boundary.
 */
import assert from "node:assert/strict";
import { JsonRpcPeer, type Progress } from "../mod.ts";
import { StdioClientTransport } from "../lib/mcp/transports/stdio.ts";

const FIXTURE = new URL("./testdata/stdio_peer.ts", import.meta.url).pathname;

function spawnPeer(
  args: string[] = [],
  options: {
    env?: Record<string, string>;
    cwd?: string;
    stderr?: "pipe" | "ignore";
  } = {},
): StdioClientTransport {
  return new StdioClientTransport({
    command: Deno.execPath(),
    args: ["run", "-A", "--quiet", FIXTURE, ...args],
    stderr: options.stderr ?? "ignore",
    ...(options.env ? { env: options.env } : {}),
    ...(options.cwd ? { cwd: options.cwd } : {}),
  });
}

function next(transport: StdioClientTransport, count = 1): Promise<unknown[]> {
  const got: unknown[] = [];
  return new Promise((resolve) => {
    transport.onmessage = (m) => {
      got.push(m);
      if (got.length === count) resolve(got);
    };
  });
}

Deno.test("stdio client: one message per line, whatever the chunking; CRLF and blank lines are fine; other lines are stray", async () => {
  const transport = spawnPeer(["chatter"]);
  try {
    const hellos = await next(transport, 2);
    assert.deepEqual(hellos, [
      { jsonrpc: "2.0", method: "hello", params: { crlf: true } },
      { jsonrpc: "2.0", method: "hello", params: { split: true } },
    ]);
    assert.deepEqual(transport.strayLines, [
      "starting up (a banner a misbehaving server prints)",
    ]);
    const answer = next(transport);
    await transport.send({
      jsonrpc: "2.0",
      id: 1,
      method: "echo",
      params: { text: "a\nb ü" },
    });
    assert.deepEqual(await answer, [{
      jsonrpc: "2.0",
      id: 1,
      result: { text: "a\nb ü" },
    }]);
  } finally {
    await transport.close();
  }
});

Deno.test("stdio client: the server gets the environment and directory it is given; stderr can be piped", async () => {
  const cwd = await Deno.makeTempDir();
  const transport = spawnPeer([], {
    env: { STDIO_PEER_WHO: "scrubbed", PATH: Deno.env.get("PATH") ?? "" },
    cwd,
    stderr: "pipe",
  });
  let logs = "";
  transport.process.stderr!.on(
    "data",
    (d: Uint8Array) => (logs += new TextDecoder().decode(d)),
  );
  const peer = new JsonRpcPeer(transport);
  try {
    assert.deepEqual(await peer.request("env"), {
      who: "scrubbed",
      cwd: await Deno.realPath(cwd),
    });
    await peer.request("stderr");
    await new Promise((r) => setTimeout(r, 20));
    assert.match(logs, /a log line on stderr/);
    assert.deepEqual(transport.strayLines, []);
  } finally {
    await peer.close();
    await Deno.remove(cwd);
  }
});

Deno.test("stdio client: close() ends stdin and the server exits; onclose once; sends after it are refused", async () => {
  const transport = spawnPeer();
  let closes = 0;
  transport.onclose = () => closes++;
  await transport.send({ jsonrpc: "2.0", method: "noop" });
  await transport.close();
  assert.equal(closes, 1);
  assert.notEqual(
    transport.process.exitCode ?? transport.process.signalCode,
    null,
  );
  assert.equal(
    transport.process.signalCode,
    null,
    "it exited by itself at end of input",
  );
  await assert.rejects(
    transport.send({ jsonrpc: "2.0", method: "noop" }),
    /the server process has closed/,
  );
  await transport.close();
  assert.equal(closes, 1);
});

Deno.test("stdio client: a server that ignores the end of its input is terminated (SIGTERM after 2 s)", async () => {
  const transport = spawnPeer(["linger"]);
  await transport.send({ jsonrpc: "2.0", method: "noop" });
  const started = Date.now();
  await transport.close();
  assert.equal(transport.process.signalCode, "SIGTERM");
  assert.ok(Date.now() - started >= 1900);
});

Deno.test("stdio client: when the server process goes, onclose fires and a JsonRpcPeer fails what it waits for", async () => {
  const transport = spawnPeer();
  const peer = new JsonRpcPeer(transport);
  const waiting = peer.request("slow");
  await peer.request("echo", {}); // the process is up and answering
  transport.process.kill("SIGKILL");
  await assert.rejects(waiting, /the connection closed/);
  assert.equal(peer.closed, true);
});

Deno.test("stdio under a JsonRpcPeer: the server asks its client mid-call, reports progress, and hears a cancel", async () => {
  const peer = new JsonRpcPeer(spawnPeer());
  peer.onRequest("roots/list", () => ({ roots: [{ uri: "file:///estate" }] }));
  const aborted = new Promise((resolve) => peer.onNotification("aborted", resolve));
  try {
    assert.deepEqual(await peer.request("ask"), {
      roots: { roots: [{ uri: "file:///estate" }] },
    });
    const seen: Progress[] = [];
    assert.deepEqual(
      await peer.request("count", {}, { onProgress: (p) => seen.push(p) }),
      {
        counted: 3,
      },
    );
    assert.deepEqual(seen.map((p) => `${p.progress}/${p.total}`), [
      "1/3",
      "2/3",
      "3/3",
    ]);
    const controller = new AbortController();
    const slow = peer.request("slow", {}, { signal: controller.signal });
    await peer.request("echo", {});
    controller.abort("enough");
    await assert.rejects(slow, /request slow was cancelled/);
    assert.deepEqual(await aborted, { reason: "enough" });
  } finally {
    await peer.close();
  }
});
