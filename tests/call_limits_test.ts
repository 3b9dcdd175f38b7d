/**
 * Call limits (`estate.json`'s `limits`): which limits a call falls under and in what order, the
 * memory counter (all or none, a refused call counted nowhere, fixed UTC windows), the refusal
 * in both eras over stdio-style `handle` (`-32029` with the data), over HTTP (429 with
 * `Retry-After` and the same JSON-RPC error as the body, both eras; the official SDK client and
 * `McpClient`), the folder store's counter shared by two processes, and `estate serve` reading
 * the limits from `estate.json` and taking an edit in without a restart.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
// @ts-types="@modelcontextprotocol/sdk/client/index"
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
// @ts-types="@modelcontextprotocol/sdk/client/streamableHttp"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  type CallLimit,
  CallLimiter,
  callLimitProblems,
  ESTATE_ERROR_CODES,
  estateConfigProblems,
  IDEMPOTENCY_META_KEY,
  McpClient,
  memoryQuotaCounter,
  quotaTakes,
  STATELESS_META,
} from "../mod.ts";
import {
  bearerTokens,
  serveHttp,
  StreamableHttpClientTransport,
} from "../lib/mcp/transports/http_mod.ts";
import { EstateDir } from "../lib/store/estate_dir.ts";
import { estate, OPERATOR, ready, RETAIL, server } from "./_mcp_fixtures.ts";
import { ROOT } from "./_serve.ts";
import { bearer, startServeProcess } from "./_gateway_estate.ts";

const MINUTE = 60_000;
const T0 = Date.UTC(2026, 11, 3, 12, 0, 0); // a whole minute
const REF = { reference: "PMT-000042" };

Deno.test("callLimitProblems names each bad entry and field; estate.json checks its limits", () => {
  assert.deepEqual(
    callLimitProblems([
      { tool: "payments.release", calls: 5, per: "minute" },
      { each: "estate", calls: 1000, per: "day" },
    ]),
    [],
  );
  assert.deepEqual(callLimitProblems({}), ["limits must be an array of limits"]);
  assert.deepEqual(
    callLimitProblems([{ tool: "", calls: 1.5, per: "minute", each: "tenant", burst: 2 }, 7]),
    [
      "limits[0].calls must be a positive integer, got 1.5",
      'limits[0].tool must be a non-empty string, got ""',
      'limits[0].each must be "principal" or "estate", got "tenant"',
      "limits[0] has an unknown field burst",
      "limits[1] must be an object",
    ],
  );
  assert.deepEqual(estateConfigProblems({ limits: [{ calls: 1 }] }), [
    "limits[0].per must be one of second, minute, hour, day, got undefined",
  ]);
});

Deno.test("quotaTakes: the limits a call falls under, a principal's own before the shared ones, windows aligned to UTC", () => {
  const limits: CallLimit[] = [
    { each: "estate", calls: 100, per: "minute" },
    { tool: "payments.*", calls: 10, per: "hour" },
    { tool: "payments.release", calls: 2, per: "minute" },
    { principal: "retail-agent", calls: 1, per: "second" },
    { tool: "fx.quote", calls: 3, per: "minute" },
  ];
  const takes = quotaTakes(limits, {
    principal: "wholesale-operator",
    tool: "payments.release",
    now: T0 + 90_000,
  });
  assert.deepEqual(takes.map((t) => t.limit), [limits[1], limits[2], limits[0]]);
  assert.deepEqual(takes.map((t) => [t.take.max, t.take.until]), [
    [10, T0 + 3_600_000],
    [2, T0 + 2 * MINUTE],
    [100, T0 + 2 * MINUTE],
  ]);
  // Counted per principal: two principals, two counters; the estate's: one.
  const other = quotaTakes(limits, {
    principal: "group-risk",
    tool: "payments.release",
    now: T0 + 90_000,
  });
  assert.notEqual(other[0].take.key, takes[0].take.key);
  assert.equal(other[2].take.key, takes[2].take.key);
  assert.deepEqual(
    quotaTakes(limits, { principal: "retail-agent", tool: "policy.search", now: T0 })
      .map((t) => t.limit),
    [limits[3], limits[0]],
  );
});

Deno.test("CallLimiter: N admitted, the next refused until the window ends, another principal unaffected; a refused call counts nowhere", async () => {
  const limiter = new CallLimiter([
    { tool: "payments.release", calls: 3, per: "minute" },
    { each: "estate", calls: 5, per: "minute" },
  ]);
  const a = { principal: "a", tool: "payments.release", now: T0 + 15_000 };
  for (let i = 0; i < 3; i++) assert.equal(await limiter.admit(a), undefined);
  const refused = await limiter.admit(a);
  assert.deepEqual(refused, {
    limit: "payments.release: 3 calls a minute for each principal",
    calls: 3,
    per: "minute",
    retryAfterSeconds: 45,
    resetsAt: new Date(T0 + MINUTE).toISOString(),
  });
  // a keeps calling at its limit: none of it reaches the estate's counter (3 of 5 used) …
  for (let i = 0; i < 50; i++) assert.ok(await limiter.admit(a));
  // … so b still gets the estate's last two.
  const b = { ...a, principal: "b" };
  assert.equal(await limiter.admit(b), undefined);
  assert.equal(await limiter.admit(b), undefined);
  assert.equal(
    (await limiter.admit(b))?.limit,
    "every tool: 5 calls a minute for every caller together",
  );
  // The next window starts afresh.
  assert.equal(await limiter.admit({ ...a, now: T0 + MINUTE }), undefined);
});

Deno.test("memoryQuotaCounter: all or none, and ended windows forgotten", () => {
  const counter = memoryQuotaCounter();
  const t = (key: string, max: number) => ({ key, max, until: T0 + MINUTE });
  assert.equal(counter.take([t("x", 1), t("y", 2)], T0), -1);
  assert.equal(counter.take([t("y", 2), t("x", 1)], T0), 1); // x is full: y not counted
  assert.equal(counter.take([t("y", 2)], T0), -1); // y had 1, now 2
  assert.equal(counter.take([t("y", 2)], T0), 0);
  assert.equal(counter.take([t("y", 2)], T0 + MINUTE), -1); // the window ended
});

function limitedServer() {
  let now = T0 + 1_000;
  const made = server(estate(), {
    limiter: new CallLimiter([{ tool: "payments.release", calls: 2, per: "minute" }]),
    now: () => now,
  });
  return { ...made, setNow: (t: number) => (now = t) };
}

Deno.test("a handshake-era session: the third call in a minute is -32029 with the limit's data, logged rate-limited, nothing ran; invalid arguments do not count", async () => {
  const { server: s, calls, ran } = limitedServer();
  const session = await ready(s, OPERATOR);
  const call = (id: number, args: Record<string, unknown> = REF) =>
    s.handle({
      jsonrpc: "2.0",
      id,
      method: "tools/call",
      params: { name: "payments.release", arguments: args },
    }, session) as unknown as Promise<Record<string, unknown>>;
  const invalid = await call(1, { reference: "nope" });
  assert.equal((invalid.result as Record<string, unknown>).isError, true);
  assert.ok("result" in await call(2));
  assert.ok("result" in await call(3));
  const refused = await call(4) as { error: { code: number; message: string; data: unknown } };
  assert.equal(refused.error.code, ESTATE_ERROR_CODES.RATE_LIMITED);
  assert.equal(
    refused.error.message,
    "Rate limited (payments.release: 2 calls a minute for each principal); nothing was done; try again in 59 s",
  );
  assert.deepEqual(refused.error.data, {
    limit: "payments.release: 2 calls a minute for each principal",
    calls: 2,
    per: "minute",
    retryAfterSeconds: 59,
    resetsAt: new Date(T0 + MINUTE).toISOString(),
  });
  assert.deepEqual(ran, ["payments.release@1.0.0", "payments.release@1.0.0"]);
  assert.deepEqual(calls.map((c) => c.outcome), [
    "invalid-arguments",
    "ok",
    "ok",
    "rate-limited",
  ]);
  // Another tool is not limited.
  const other = await s.handle({
    jsonrpc: "2.0",
    id: 5,
    method: "tools/call",
    params: { name: "payments.lookup", arguments: REF },
  }, session) as unknown as Record<string, unknown>;
  assert.ok("result" in other);
  s.close();
});

Deno.test("a 2026-07-28 request beyond a limit: the same error and data, outcome rate-limited", async () => {
  const { server: s, ran } = limitedServer();
  const request = (id: number) => ({
    jsonrpc: "2.0" as const,
    id,
    method: "tools/call",
    params: {
      name: "payments.release",
      arguments: REF,
      _meta: {
        [STATELESS_META.protocolVersion]: "2026-07-28",
        [STATELESS_META.clientCapabilities]: {},
      },
    },
  });
  for (const id of [1, 2]) {
    const served = await s.serveStateless(
      { kind: "request", message: request(id) },
      { principal: OPERATOR },
    );
    assert.equal(served.outcome.kind, "answered");
  }
  const served = await s.serveStateless(
    { kind: "request", message: request(3) },
    { principal: OPERATOR },
  );
  assert.equal(served.outcome.kind, "rate-limited");
  const response = served.response as {
    error: { code: number; data: { retryAfterSeconds: number } };
  };
  assert.equal(response.error.code, -32029);
  assert.equal(response.error.data.retryAfterSeconds, 59);
  assert.equal(ran.length, 2);
  s.close();
});

Deno.test("over HTTP: 429 with Retry-After and the JSON-RPC error as the body in both eras; McpClient's outcome is rate-limited; the official SDK client is refused with the status", async () => {
  const { server: s, ran } = limitedServer();
  const http = await serveHttp(s, {
    port: 0,
    authenticate: bearerTokens([{ ...OPERATOR, token: "operator" }, {
      ...RETAIL,
      token: "retail",
    }]),
  });
  try {
    // 2026-07-28, raw: the third call of the minute.
    const raw = (id: number) =>
      fetch(http.url, {
        method: "POST",
        headers: {
          authorization: "Bearer operator",
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "mcp-protocol-version": "2026-07-28",
          "mcp-method": "tools/call",
          "mcp-name": "payments.release",
        },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id,
          method: "tools/call",
          params: {
            name: "payments.release",
            arguments: REF,
            _meta: {
              [STATELESS_META.protocolVersion]: "2026-07-28",
              [STATELESS_META.clientCapabilities]: {},
            },
          },
        }),
      });
    for (const id of [1, 2]) {
      const ok = await raw(id);
      assert.equal(ok.status, 200);
      await ok.body?.cancel();
    }
    const refused = await raw(3);
    assert.equal(refused.status, 429);
    assert.equal(refused.headers.get("retry-after"), "59");
    const body = await refused.json();
    assert.equal(body.id, 3);
    assert.equal(body.error.code, -32029);
    assert.equal(body.error.data.retryAfterSeconds, 59);

    // McpClient, in either era, reads the refusal as its own outcome.
    for (const era of ["stateless", "handshake"] as const) {
      const client = new McpClient(
        new StreamableHttpClientTransport(http.url, {
          headers: { authorization: "Bearer operator" },
        }),
        { era },
      );
      await client.connect();
      const outcome = await client.callTool("payments.release", REF);
      assert.deepEqual(outcome, {
        kind: "rate-limited",
        message:
          "Rate limited (payments.release: 2 calls a minute for each principal); nothing was done; try again in 59 s",
        retryAfterSeconds: 59,
        limit: "payments.release: 2 calls a minute for each principal",
      });
      await client.close();
    }

    // The official SDK client (2025-11-25 session): the POST is refused with 429; the body is
    // the JSON-RPC error.
    const sdk = new Client({ name: "limits-test", version: "1.0.0" });
    await sdk.connect(
      new StreamableHTTPClientTransport(new URL(http.url), {
        requestInit: { headers: { authorization: "Bearer operator" } },
      }),
    );
    await assert.rejects(
      sdk.callTool({ name: "payments.release", arguments: REF }),
      (e: Error & { code?: number }) => {
        assert.equal(e.code, 429);
        assert.match(e.message, /-32029/);
        return true;
      },
    );
    // The retail agent is not counted against the operator's limit (it cannot see the tool:
    // it is told the tool does not exist, as always).
    await sdk.close();
    assert.equal(ran.length, 2);
  } finally {
    await http.close();
    s.close();
  }
});

Deno.test("the folder store's counter is shared by two processes: between them they admit exactly the limit", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "estate-quota-"));
  try {
    fs.mkdirSync(path.join(dir, "tools"));
    const script = path.join(dir, "take.ts");
    fs.writeFileSync(
      script,
      `import { EstateDir } from ${JSON.stringify(`${ROOT}lib/store/estate_dir.ts`)};
const store = EstateDir.open(Deno.args[0]);
let admitted = 0;
const until = Number(Deno.args[1]);
for (let i = 0; i < 60; i++) {
  if (store.takeQuota([{ key: "k", max: 50, until }, { key: "shared", max: 1000, until }], Date.now()) < 0) admitted++;
}
console.log(admitted);
`,
    );
    const until = (Math.floor(Date.now() / 3_600_000) + 1) * 3_600_000; // this hour's end
    const run = () =>
      new Deno.Command(Deno.execPath(), {
        args: ["run", "-A", "--config", `${ROOT}deno.json`, script, dir, String(until)],
        stdout: "piped",
        stderr: "piped",
      }).output();
    const [a, b] = await Promise.all([run(), run()]);
    const text = new TextDecoder();
    assert.equal(a.code, 0, text.decode(a.stderr));
    assert.equal(b.code, 0, text.decode(b.stderr));
    const admitted = Number(text.decode(a.stdout)) + Number(text.decode(b.stdout));
    assert.equal(admitted, 50);
    // The shared counter was taken only by admitted calls (all or none): two counters, 50 each.
    const counters = fs.readdirSync(path.join(dir, ".quotas", "counters"));
    assert.deepEqual(
      counters.map((n) =>
        Number(fs.readFileSync(path.join(dir, ".quotas", "counters", n), "utf8").split(" ")[0])
      ),
      [50, 50],
    );
    assert.equal(fs.readFileSync(path.join(dir, ".quotas", ".gitignore"), "utf8"), "*\n");
    // The store's settings are what it read; none here.
    assert.deepEqual(EstateDir.open(dir).settings(), {});
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

Deno.test("estate serve reads the limits from estate.json, answers 429 beyond them, and takes an edit in without a restart", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "estate-limits-"));
  fs.cpSync(`${ROOT}corpus`, dir, { recursive: true });
  const settings = (limits: CallLimit[]) =>
    fs.writeFileSync(path.join(dir, "estate.json"), JSON.stringify({ limits }, null, 2) + "\n");
  settings([{ tool: "policy.search", calls: 2, per: "hour" }]);
  const serve = await startServeProcess(["--estate", dir]);
  try {
    const quote = () =>
      fetch(serve.url, {
        method: "POST",
        headers: {
          authorization: bearer("retail-agent"),
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "mcp-protocol-version": "2026-07-28",
          "mcp-method": "tools/call",
          "mcp-name": "policy.search",
        },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "tools/call",
          params: {
            name: "policy.search",
            arguments: { query: "wire transfer limits" },
            _meta: {
              [STATELESS_META.protocolVersion]: "2026-07-28",
              [STATELESS_META.clientCapabilities]: {},
            },
          },
        }),
      });
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) {
      const r = await quote();
      statuses.push(r.status);
      await r.body?.cancel();
    }
    assert.deepEqual(statuses, [200, 200, 429]);
    await serve.waitFor(/call retail-agent policy\.search@\S+ rate-limited/);
    // Raised to 5 an hour: taken in from the file, the count so far kept.
    settings([{ tool: "policy.search", calls: 5, per: "hour" }]);
    let admitted = 0;
    for (let tries = 0; tries < 100 && admitted === 0; tries++) {
      const r = await quote();
      if (r.status === 200) admitted++;
      await r.body?.cancel();
      if (!admitted) await new Promise((ok) => setTimeout(ok, 100));
    }
    assert.equal(admitted, 1);
  } finally {
    await serve.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

Deno.test("CallLimiter remembers a counter it found full until its window ends — the counter is not asked again — unless the limit was raised", async () => {
  let asked = 0;
  const inner = memoryQuotaCounter();
  const counter = {
    take: (takes: Parameters<typeof inner.take>[0], now: number) => {
      asked++;
      return inner.take(takes, now);
    },
  };
  let limits: CallLimit[] = [{ tool: "fx.quote", calls: 2, per: "minute" }];
  const limiter = new CallLimiter(() => limits, counter);
  const call = { principal: "a", tool: "fx.quote", now: T0 };
  assert.equal(await limiter.admit(call), undefined);
  assert.equal(await limiter.admit(call), undefined);
  assert.ok(await limiter.admit(call));
  assert.equal(asked, 3);
  for (let i = 0; i < 100; i++) assert.ok(await limiter.admit(call));
  assert.equal(asked, 3, "refused without asking the counter");
  limits = [{ tool: "fx.quote", calls: 3, per: "minute" }];
  assert.equal(await limiter.admit(call), undefined);
  assert.equal(asked, 4);
  // The next window: asked again.
  assert.equal(await limiter.admit({ ...call, now: T0 + MINUTE }), undefined);
  assert.equal(asked, 5);
});

Deno.test("a call refused by a limit with an idempotency key frees the key: once the window ends the same key runs; a repeat answered from the store takes nothing from the limit", async () => {
  const { server: s, ran, setNow } = limitedServer();
  const session = await ready(s, OPERATOR);
  const call = (id: number, key: string) =>
    s.handle({
      jsonrpc: "2.0",
      id,
      method: "tools/call",
      params: {
        name: "payments.release",
        arguments: REF,
        _meta: { [IDEMPOTENCY_META_KEY]: key },
      },
    }, session) as unknown as Promise<{ result?: unknown; error?: { code: number } }>;
  assert.ok((await call(1, "k-1")).result);
  // k-1 again: answered from the store, not counted (the limit's second call is still free).
  assert.ok((await call(2, "k-1")).result);
  assert.ok((await call(3, "k-2")).result);
  assert.equal((await call(4, "k-3")).error?.code, -32029);
  assert.equal((await call(5, "k-3")).error?.code, -32029, "refused again, not replayed");
  setNow(T0 + MINUTE + 1_000);
  assert.ok((await call(6, "k-3")).result, "the key was freed by the refusal");
  assert.equal(ran.length, 3);
  s.close();
});

Deno.test("estate serve --stdio: the call beyond a limit is the JSON-RPC error -32029 with the same data, in both eras on one connection", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "estate-limits-stdio-"));
  fs.cpSync(`${ROOT}corpus`, dir, { recursive: true });
  fs.writeFileSync(
    path.join(dir, "estate.json"),
    JSON.stringify({ limits: [{ tool: "policy.search", calls: 2, per: "hour" }] }),
  );
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      `${ROOT}cli.ts`,
      "serve",
      "--stdio",
      "--principal",
      "retail-agent",
      "--estate",
      dir,
    ],
    cwd: ROOT,
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const writer = child.stdin.getWriter();
  const lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = "";
  const next = async (): Promise<Record<string, unknown>> => {
    for (;;) {
      const end = buffered.indexOf("\n");
      if (end >= 0) {
        const line = buffered.slice(0, end);
        buffered = buffered.slice(end + 1);
        if (line.trim()) return JSON.parse(line);
        continue;
      }
      const { value, done } = await lines.read();
      if (done) throw new Error("estate serve --stdio ended");
      buffered += value;
    }
  };
  const send = (m: unknown) => writer.write(new TextEncoder().encode(JSON.stringify(m) + "\n"));
  try {
    await send({
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: {
        protocolVersion: "2025-11-25",
        capabilities: {},
        clientInfo: { name: "t", version: "1" },
      },
    });
    await next();
    await send({ jsonrpc: "2.0", method: "notifications/initialized" });
    const search = (id: number, stateless: boolean) =>
      send({
        jsonrpc: "2.0",
        id,
        method: "tools/call",
        params: {
          name: "policy.search",
          arguments: { query: `wire limits ${id}` },
          ...(stateless
            ? {
              _meta: {
                [STATELESS_META.protocolVersion]: "2026-07-28",
                [STATELESS_META.clientCapabilities]: {},
              },
            }
            : {}),
        },
      });
    const answers: Record<string, unknown>[] = [];
    for (const [id, stateless] of [[1, false], [2, true], [3, false], [4, true]] as const) {
      await search(id, stateless);
      answers.push(await next());
    }
    assert.ok("result" in answers[0] && "result" in answers[1], JSON.stringify(answers));
    for (const refused of answers.slice(2)) {
      const error = refused.error as { code: number; data: Record<string, unknown> };
      assert.equal(error.code, -32029);
      assert.equal(error.data.limit, "policy.search: 2 calls an hour for each principal");
      assert.equal(error.data.calls, 2);
      assert.equal(error.data.per, "hour");
      assert.ok((error.data.retryAfterSeconds as number) >= 1);
    }
  } finally {
    await writer.close().catch(() => {});
    try {
      child.kill("SIGTERM");
    } catch { /* ended */ }
    await child.status;
    await lines.cancel().catch(() => {});
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
