/**
 * The figures behind the HTTP limits, measured against a live `estate serve` (Linux: descriptors
 * are counted in /proc). Run it against this checkout, or another one to compare:
 *
 *   deno run -A bench/http_limits_figures.ts [ROOT] [--byte-every MS] [--give-up MS] [--sockets N] [--sessions N]
 *
 * 1. slow headers: a client sends a request's headers one byte every `--byte-every` ms (default
 *    5000); how long until the server closes the connection (it gives up after `--give-up` ms,
 *    default 150000), and what it answered.
 * 2. half-open sockets: `--sockets` connections (default 2000) each send half a request line and
 *    stay; the server's open descriptors before and after, and how many sockets it kept.
 * 3. sessions: one principal opens `--sessions` handshake-era sessions (default 1010); can another
 *    principal still initialize, and does the first one's oldest session still answer.
 *
 * @module
 */
import fs from "node:fs";
import path from "node:path";
import process from "node:process";

const args = process.argv.slice(2);
const flag = (name: string, fallback: number): number => {
  const i = args.indexOf(`--${name}`);
  return i === -1 ? fallback : Number(args[i + 1]);
};
const ROOT = path.resolve(
  args.find((a, i) => !a.startsWith("--") && !args[i - 1]?.startsWith("--")) ??
    new URL("..", import.meta.url).pathname,
);
const BYTE_EVERY = flag("byte-every", 5000);
const GIVE_UP = flag("give-up", 150_000);
const SOCKETS = flag("sockets", 2000);
const SESSIONS = flag("sessions", 1010);
const TOKENS = { first: "demo-token-retail-agent", other: "demo-token-wholesale-operator" };

const scratch = fs.mkdtempSync(path.join(ROOT, ".scratch-limits-"));
fs.cpSync(path.join(ROOT, "corpus"), scratch, { recursive: true });
const child = new Deno.Command(Deno.execPath(), {
  args: [
    "run",
    "-A",
    path.join(ROOT, "cli.ts"),
    "serve",
    "--estate",
    scratch,
    "--http",
    "127.0.0.1:0",
  ],
  stdout: "piped",
  stderr: "null",
  stdin: "null",
}).spawn();
const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
let banner = "";
let url: URL | undefined;
while (!url) {
  const { value, done } = await reader.read();
  if (done) throw new Error(`no URL in:\n${banner}`);
  banner += value;
  const m = /URL: (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(banner);
  if (m) url = new URL(m[1]);
}
(async () => {
  while (!(await reader.read()).done) { /* drain */ }
})();
const port = Number(url.port);
const descriptors = () => fs.readdirSync(`/proc/${child.pid}/fd`).length;
const delay = (ms: number) => new Promise((r) => setTimeout(r, ms));
console.log(`estate serve from ${ROOT} on ${url} (pid ${child.pid})`);

// 1. Slow headers.
{
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  const head = `POST /mcp HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\nx-slow: ${"a".repeat(60)}\r\n\r\n`;
  let closedAt: number | undefined;
  let answer = "";
  const t0 = Date.now();
  const reading = (async () => {
    const buf = new Uint8Array(4096);
    try {
      for (;;) {
        const n = await conn.read(buf);
        if (n === null) break;
        answer += new TextDecoder().decode(buf.subarray(0, n));
      }
    } catch { /* reset */ }
    closedAt = Date.now();
  })();
  let sent = 0;
  while (sent < head.length && closedAt === undefined && Date.now() - t0 < GIVE_UP) {
    try {
      await conn.write(new TextEncoder().encode(head[sent]));
    } catch {
      break;
    }
    sent++;
    for (let waited = 0; waited < BYTE_EVERY && closedAt === undefined; waited += 50) {
      await delay(50);
    }
  }
  if (closedAt === undefined) {
    console.log(
      `1. slow headers (1 byte every ${BYTE_EVERY} ms): ${sent} of ${head.length} bytes sent in ${
        Date.now() - t0
      } ms, still open`,
    );
    conn.close();
  } else {
    console.log(
      `1. slow headers (1 byte every ${BYTE_EVERY} ms): closed by the server after ${
        closedAt - t0
      } ms, ${sent} of ${head.length} bytes sent, answer: ${
        JSON.stringify(answer.split("\r\n")[0] || "(none)")
      }`,
    );
  }
  await reading;
}

// 2. Half-open sockets.
{
  await delay(500);
  const before = descriptors();
  const conns: Deno.Conn[] = [];
  let failed = 0;
  for (let i = 0; i < SOCKETS; i++) {
    try {
      const c = await Deno.connect({ hostname: "127.0.0.1", port });
      await c.write(new TextEncoder().encode("POST /mcp HTTP/1.1\r\nhost: 127."));
      conns.push(c);
    } catch {
      failed++;
    }
  }
  await delay(1000);
  const during = descriptors();
  let kept = 0;
  await Promise.all(conns.map(async (c) => {
    const buf = new Uint8Array(1024);
    const open = await Promise.race([
      c.read(buf).then((n) => n !== null && false, () => false),
      delay(200).then(() => true),
    ]);
    if (open) kept++;
  }));
  for (const c of conns) {
    try {
      c.close();
    } catch { /* closed */ }
  }
  await delay(500);
  console.log(
    `2. ${SOCKETS} half-open sockets: server descriptors ${before} before, ${during} with them open, ${descriptors()} after; ${kept} still held after 1 s (${failed} connects failed)`,
  );
}

// 3. Sessions of one principal.
{
  const init = (token: string) =>
    fetch(url, {
      method: "POST",
      headers: {
        authorization: `Bearer ${token}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: {
          protocolVersion: "2025-11-25",
          capabilities: {},
          clientInfo: { name: "f", version: "1" },
        },
      }),
    });
  const ids: string[] = [];
  const statuses = new Map<number, number>();
  for (let i = 0; i < SESSIONS; i++) {
    const res = await init(TOKENS.first);
    await res.body?.cancel();
    statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
    const id = res.headers.get("mcp-session-id");
    if (id) ids.push(id);
  }
  const other = await init(TOKENS.other);
  const otherBody = await other.text();
  const first = await fetch(url, {
    method: "POST",
    headers: {
      authorization: `Bearer ${TOKENS.first}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-session-id": ids[0],
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" }),
  });
  await first.body?.cancel();
  console.log(
    `3. retail-agent opened ${SESSIONS} sessions (answers: ${
      [...statuses].map(([s, n]) => `${n}× ${s}`).join(", ")
    }); then wholesale-operator's initialize: ${other.status}${
      other.status === 200 ? "" : ` ${JSON.stringify(JSON.parse(otherBody).error?.message)}`
    }; retail-agent's first session: ${first.status}`,
  );
}

child.kill("SIGTERM");
await child.status;
fs.rmSync(scratch, { recursive: true });
