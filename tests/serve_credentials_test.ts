/**
 * `estate serve` follows `principals.json` while it runs: a real server process on a scratch copy
 * of the example estate, the file edited under it, and the effects observed over the wire in
 * both eras — a rotated token is refused and its sessions end, a removed scope shrinks the
 * principal's tools and sends list_changed to its sessions and listen streams only, a file that
 * cannot be read leaves the last good principals in force. Over stdio, the fixed `--principal`
 * is re-read, and the server stops when it is gone. All waits poll states, with a bound.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { DEMO_TOKENS } from "../lib/cli/demo_tokens.ts";
import { STATELESS_META } from "../mod.ts";
import {
  ENVELOPE,
  Events,
  listen,
  MODERN,
  openSession as openRawSession,
  post,
} from "./_raw_http.ts";
import { ROOT, SEES, serveArgs, startHttpServe, withEstate } from "./_serve.ts";

const INIT = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: {
    protocolVersion: "2025-11-25",
    // A client that can confirm a call: it sees payments.release, which the user must confirm.
    capabilities: { elicitation: {} },
    clientInfo: { name: "t", version: "1" },
  },
};

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");
const delay = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `check` until it holds (states, not times: the bound only stops a hang). */
async function until(
  check: () => boolean | Promise<boolean>,
  what: string,
): Promise<void> {
  for (let i = 0; i < 400; i++) {
    if (await check()) return;
    await delay(50);
  }
  throw new Error(`never happened: ${what}`);
}

interface EstatePrincipal {
  id: string;
  scopes: string[];
  tenant: string;
  clearance: string;
  tokenSha256?: string;
}

/** Rewrites principals.json the way an editor saving atomically does (temp file, rename). */
function editPrincipals(
  dir: string,
  edit: (p: EstatePrincipal[]) => EstatePrincipal[],
): void {
  const file = path.join(dir, "principals.json");
  const next = edit(JSON.parse(fs.readFileSync(file, "utf8")));
  fs.writeFileSync(`${file}.tmp`, JSON.stringify(next, null, 2) + "\n");
  fs.renameSync(`${file}.tmp`, file);
}

/** A stateless tools/list as `token`: the status, and the names when 200. */
async function modernList(
  url: URL,
  token: string,
): Promise<{ status: number; names: string[] }> {
  const res = await post(
    url,
    {
      jsonrpc: "2.0",
      id: 1,
      method: "tools/list",
      params: { _meta: ENVELOPE },
    },
    token,
    { "mcp-protocol-version": MODERN, "mcp-method": "tools/list" },
  );
  const body = await res.json();
  return {
    status: res.status,
    names: res.status === 200 ? body.result.tools.map((t: { name: string }) => t.name) : [],
  };
}

/** A handshake-era session of a client that can confirm a call (INIT's capabilities). */
const openSession = (url: URL, token: string): Promise<string> =>
  openRawSession(url, token, INIT.params.capabilities);

/** tools/list in a session: the status, and the names when 200. */
async function sessionList(
  url: URL,
  session: string,
  token: string,
): Promise<{ status: number; names: string[] }> {
  const res = await post(
    url,
    { jsonrpc: "2.0", id: 2, method: "tools/list" },
    token,
    {
      "mcp-session-id": session,
    },
  );
  const body = await res.json();
  return {
    status: res.status,
    names: res.status === 200 ? body.result.tools.map((t: { name: string }) => t.name) : [],
  };
}

function getStream(url: URL, session: string, token: string): Promise<Events> {
  return fetch(url, {
    headers: {
      accept: "text/event-stream",
      authorization: `Bearer ${token}`,
      "mcp-session-id": session,
    },
  }).then((res) => new Events(res));
}

const LIST_CHANGED = "notifications/tools/list_changed";

Deno.test("estate serve --http: a rotated token is refused and its sessions end; a removed scope shrinks the tools and tells only that principal; a bad file keeps the last good principals", async () => {
  await withEstate("serve-credentials-", async (dir) => {
    let log = "";
    const { url, stop } = await startHttpServe(dir, (text) => (log += text));
    const streams: Events[] = [];
    try {
      const retail = DEMO_TOKENS["retail-agent"];
      const operator = DEMO_TOKENS["wholesale-operator"];
      const analyst = DEMO_TOKENS["group-risk-analyst"];
      const retailSession = await openSession(url, retail);
      const retailStream = await getStream(url, retailSession, retail);
      const operatorSession = await openSession(url, operator);
      const operatorStream = await getStream(url, operatorSession, operator);
      const operatorListen = await listen(url, operator, "listen-1");
      const analystSession = await openSession(url, analyst);
      const analystStream = await getStream(url, analystSession, analyst);
      streams.push(retailStream, operatorStream, operatorListen, analystStream);
      await until(
        () => operatorListen.messages.length === 1,
        "the listen acknowledgement",
      );
      assert.deepEqual(
        (await sessionList(url, operatorSession, operator)).names,
        SEES["wholesale-operator"],
      );

      // The retail agent's token is rotated; the operator loses payments:release.
      const rotated = "rotated-token-retail-agent-2";
      editPrincipals(
        dir,
        (all) =>
          all.map((p) =>
            p.id === "retail-agent"
              ? { ...p, tokenSha256: sha256(rotated) }
              : p.id === "wholesale-operator"
              ? {
                ...p,
                scopes: p.scopes.filter((s) => s !== "payments:release"),
              }
              : p
          ),
      );
      await until(
        async () => (await modernList(url, retail)).status === 401,
        "old token refused",
      );
      await until(
        () => retailStream.ended,
        "the rotated token's GET stream ends",
      );
      assert.equal((await sessionList(url, retailSession, retail)).status, 401);
      assert.equal(
        (await sessionList(url, retailSession, rotated)).status,
        404,
        "the session opened with the old token ended",
      );
      const fresh = await openSession(url, rotated);
      assert.deepEqual(
        (await sessionList(url, fresh, rotated)).names,
        SEES["retail-agent"],
      );
      assert.deepEqual(
        (await modernList(url, rotated)).names,
        SEES["retail-agent"],
      );

      await until(
        () => operatorStream.messages.length === 1,
        "list_changed on the session",
      );
      assert.deepEqual(operatorStream.methods(), [LIST_CHANGED]);
      await until(
        () => operatorListen.messages.length === 2,
        "list_changed on the listen stream",
      );
      assert.deepEqual(operatorListen.messages[1], {
        jsonrpc: "2.0",
        method: LIST_CHANGED,
        params: { _meta: { [STATELESS_META.subscriptionId]: "listen-1" } },
      });
      const shrunk = ["fx.quote", "payments.lookup", "policy.search"];
      assert.deepEqual(
        (await sessionList(url, operatorSession, operator)).names,
        shrunk,
      );
      assert.deepEqual((await modernList(url, operator)).names, shrunk);

      // The analyst's view did not change: its stream got nothing. Now it loses risk:read, and
      // the first message on its stream is that change's.
      const analystBefore = (await sessionList(url, analystSession, analyst)).names;
      assert.ok(analystBefore.includes("risk.exposure.get"));
      editPrincipals(
        dir,
        (all) =>
          all.map((p) =>
            p.id === "group-risk-analyst"
              ? { ...p, scopes: p.scopes.filter((s) => s !== "risk:read") }
              : p
          ),
      );
      await until(
        () => analystStream.messages.length > 0,
        "list_changed for the analyst",
      );
      assert.deepEqual(analystStream.methods(), [LIST_CHANGED]);
      assert.deepEqual(
        (await sessionList(url, analystSession, analyst)).names,
        analystBefore.filter((n) => n !== "risk.exposure.get"),
      );
      assert.deepEqual(
        operatorStream.methods(),
        [LIST_CHANGED],
        "the operator was not told again",
      );

      // A file that cannot be read drops no one: the last good principals stay, the log says where.
      fs.writeFileSync(
        path.join(dir, "principals.json"),
        '[\n  {\n    "id": retail-agent\n  }\n]\n',
      );
      await until(
        () => /principals\.json:3:\d+: not valid JSON/.test(log),
        "the error logged",
      );
      assert.match(log, /the 3 principals read before stay in force/);
      assert.deepEqual(
        (await modernList(url, rotated)).names,
        SEES["retail-agent"],
      );
      assert.deepEqual((await modernList(url, operator)).names, shrunk);
      assert.equal((await modernList(url, retail)).status, 401);
    } finally {
      for (const s of streams) await s.close();
      await stop();
    }
  });
});

/** Lines of JSON from a child's stdout, read as they come. */
class Lines {
  readonly messages: Record<string, unknown>[] = [];
  readonly done: Promise<void>;

  constructor(stream: ReadableStream<Uint8Array>) {
    this.done = (async () => {
      let buffer = "";
      for await (const chunk of stream.pipeThrough(new TextDecoderStream())) {
        buffer += chunk;
        let nl: number;
        while ((nl = buffer.indexOf("\n")) !== -1) {
          const line = buffer.slice(0, nl);
          buffer = buffer.slice(nl + 1);
          if (line.trim()) this.messages.push(JSON.parse(line));
        }
      }
    })();
  }

  response(id: unknown): Record<string, unknown> | undefined {
    return this.messages.find((m) => m.id === id && !("method" in m));
  }
}

Deno.test("estate serve --stdio re-reads its --principal: a removed scope sends list_changed and shrinks the tools in both eras; a removed principal stops the server", async () => {
  await withEstate("serve-credentials-stdio-", async (dir) => {
    const child = new Deno.Command(Deno.execPath(), {
      args: serveArgs(dir, "--stdio", "--principal", "wholesale-operator"),
      cwd: ROOT,
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    let exited: Deno.CommandStatus | undefined;
    const status = child.status.then((s) => (exited = s));
    const stdout = new Lines(child.stdout);
    let log = "";
    const logged = child.stderr.pipeThrough(new TextDecoderStream()).pipeTo(
      new WritableStream({ write: (t) => void (log += t) }),
    );
    const writer = child.stdin.getWriter();
    const send = (m: unknown) => writer.write(new TextEncoder().encode(JSON.stringify(m) + "\n"));
    let nextId = 10;
    const names = async (modern: boolean): Promise<string[]> => {
      const id = nextId++;
      await send({
        jsonrpc: "2.0",
        id,
        method: "tools/list",
        ...(modern ? { params: { _meta: ENVELOPE } } : {}),
      });
      await until(
        () => stdout.response(id) !== undefined,
        `the answer to ${id}`,
      );
      const result = stdout.response(id)!.result as {
        tools: { name: string }[];
      };
      return result.tools.map((t) => t.name);
    };
    try {
      await send(INIT);
      await until(
        () => stdout.response(1) !== undefined,
        "initialize answered",
      );
      await send({ jsonrpc: "2.0", method: "notifications/initialized" });
      assert.deepEqual(await names(false), SEES["wholesale-operator"]);
      await until(() => log.includes("serving"), "the server watching");

      editPrincipals(
        dir,
        (all) =>
          all.map((p) =>
            p.id === "wholesale-operator"
              ? {
                ...p,
                scopes: p.scopes.filter((s) => s !== "payments:release"),
              }
              : p
          ),
      );
      await until(
        () => stdout.messages.some((m) => m.method === LIST_CHANGED),
        "list_changed on stdout",
      );
      const shrunk = ["fx.quote", "payments.lookup", "policy.search"];
      assert.deepEqual(await names(false), shrunk);
      assert.deepEqual(await names(true), shrunk);

      editPrincipals(
        dir,
        (all) => all.filter((p) => p.id !== "wholesale-operator"),
      );
      await until(() => exited !== undefined, "the server stops");
      assert.equal(exited!.code, 1);
      assert.match(
        log,
        /principal wholesale-operator is no longer in principals\.json: stopping/,
      );
    } finally {
      await writer.close().catch(() => {});
      if (exited === undefined) child.kill("SIGTERM");
      await status;
      await stdout.done.catch(() => {});
      await logged.catch(() => {});
    }
  });
});
