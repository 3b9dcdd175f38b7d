/**
 * Several `estate serve` replicas on one real PostgreSQL (`_postgres.ts`): the official SDK client
 * on each, as different principals. A publish through the CLI reaches every replica through
 * `LISTEN/NOTIFY` and each session hears `list_changed` only when its own view changed; two
 * writers publishing one version at once: exactly one wins; a writer killed with SIGKILL in the
 * middle of a publish leaves nothing written; a replica killed with SIGKILL loses nothing; the
 * database restarted under load: both replicas reconnect, say so, reload, and follow again.
 * Handshake-era sessions are per replica (sticky routing): another replica answers the session
 * id with 404, as the spec says, and the client initializes again there; stateless 2026-07-28
 * requests are answered alike by any replica.
 */
import assert from "node:assert/strict";
// @ts-types="@modelcontextprotocol/sdk/client/index"
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
// @ts-types="@modelcontextprotocol/sdk/client/streamableHttp"
import {
  StreamableHTTPClientTransport,
  StreamableHTTPError,
} from "@modelcontextprotocol/sdk/client/streamableHttp.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import postgres from "postgres";
import { postgresSkipReason, startPostgres, type TestPostgres } from "./_postgres.ts";
import {
  bearer,
  type DemoPrincipal,
  type GatewayServe,
  legacySession,
  modernRequest,
  startServeProcess,
} from "./_gateway_estate.ts";
import { ROOT } from "./_serve.ts";
import { type Events, listen } from "./_raw_http.ts";
import { DEMO_TOKENS } from "../lib/cli/demo_tokens.ts";

const skip = postgresSkipReason();
const VERSION_KEY = "dev.tool-estate/version";

/** `estate ARGS --store URL` (`--to URL` for migrate) in its own process. */
function cliProcess(url: string, args: string[]): Deno.ChildProcess {
  return new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      `${ROOT}cli.ts`,
      ...args,
      args[0] === "migrate" ? "--to" : "--store",
      url,
    ],
    cwd: ROOT,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
}

/** Runs `estate ARGS --store URL` to its end. */
async function cli(
  url: string,
  args: string[],
): Promise<{ code: number; out: string }> {
  const r = await cliProcess(url, args).output();
  const text = new TextDecoder();
  return { code: r.code, out: text.decode(r.stdout) + text.decode(r.stderr) };
}

/** Writes a tool file for the CLI to publish; returns its path. */
async function toolFile(
  dir: string,
  spec: Record<string, unknown>,
  tag: string,
): Promise<string> {
  const file = `${dir}/${spec.name}-${spec.version}-${tag}.tool.json`;
  await Deno.writeTextFile(file, JSON.stringify(spec, null, 2) + "\n");
  return file;
}

/** payments.lookup at a 2.x version with these optional properties added to 2.0.0's. */
function lookupVersion(
  version: string,
  properties: string[],
): Record<string, unknown> {
  const base = JSON.parse(
    Deno.readTextFileSync(`${ROOT}corpus/tools/payments.lookup/2.0.0.json`),
  );
  base.version = version;
  for (const p of properties) {
    base.inputSchema.properties[p] = { type: "string" };
  }
  return base;
}

/** An SDK client of one replica as one principal, recording the list_changed it follows. */
interface Connected {
  client: Client;
  principal: DemoPrincipal;
  /** Each re-list after a list_changed: the tools' name@version. */
  changes: string[][];
  /** Resolves with the first re-list whose tools satisfy `test`. */
  waitFor(test: (tools: string[]) => boolean, what: string): Promise<string[]>;
}

async function connect(url: URL, principal: DemoPrincipal): Promise<Connected> {
  const changes: string[][] = [];
  const waiters = new Set<() => void>();
  const client = new Client({ name: "replicas-test", version: "1.0.0" }, {
    listChanged: {
      tools: {
        debounceMs: 0,
        onChanged: (error, tools) => {
          if (error || !tools) return;
          changes.push(
            tools.map((t) => `${t.name}@${(t._meta as Record<string, unknown>)?.[VERSION_KEY]}`),
          );
          for (const w of waiters) w();
        },
      },
    },
  });
  await client.connect(
    new StreamableHTTPClientTransport(url, {
      requestInit: { headers: { Authorization: bearer(principal) } },
    }),
  );
  return {
    client,
    principal,
    changes,
    waitFor: (test, what) =>
      new Promise((resolve, reject) => {
        const check = () => {
          const hit = changes.find(test);
          if (!hit) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve(hit);
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(
            new Error(
              `${principal} heard no list_changed with ${what} within 20 s; heard ${
                JSON.stringify(changes)
              }`,
            ),
          );
        }, 20_000);
        waiters.add(check);
        check();
      }),
  };
}

const has = (id: string) => (tools: string[]) => tools.includes(id);
const names = async (c: Connected) =>
  (await c.client.listTools()).tools.map((t) =>
    `${t.name}@${(t._meta as Record<string, unknown>)?.[VERSION_KEY]}`
  );
const quote = (c: Connected) =>
  c.client.callTool({
    name: "fx.quote",
    arguments: { sell: "EUR", buy: "GBP", amount: 1000 },
  }) as Promise<CallToolResult>;

Deno.test({
  name: skip
    ? `[postgres] several estate serve replicas on one database (ignored: ${skip})`
    : "[postgres] several estate serve replicas on one database: list_changed per principal through LISTEN/NOTIFY, one winner of concurrent publishes, SIGKILL mid-publish, a replica killed, the database restarted under load, sessions per replica",
  ignore: skip !== undefined,
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async (t) => {
    const pg: TestPostgres = await startPostgres();
    const replicas: GatewayServe[] = [];
    const clients: Connected[] = [];
    const streams: Events[] = [];
    const work = await Deno.makeTempDir({ prefix: "estate-replicas-" });
    const url = await pg.createDatabase();
    const sql = postgres(url, { max: 1, onnotice: () => {} });
    let deadReplica: string | undefined;
    const tolerate = (event: PromiseRejectionEvent) => {
      const e = event.reason as {
        message?: string;
        cause?: { message?: string };
      } | undefined;
      const text = `${e?.message} ${e?.cause?.message}`;
      if (deadReplica && text.includes(`http://${deadReplica}/`)) {
        event.preventDefault();
      }
    };
    globalThis.addEventListener("unhandledrejection", tolerate);
    const start = async () => {
      const r = await startServeProcess(["--store", url, "--record-calls"]);
      replicas.push(r);
      return r;
    };
    try {
      // The example estate, copied in by the CLI.
      const migrated = await cli(url, ["migrate", "--from", `${ROOT}corpus`]);
      assert.equal(migrated.code, 0, migrated.out);
      const a = await start();
      const b = await start();
      const operatorA = await connect(a.url, "wholesale-operator");
      const operatorB = await connect(b.url, "wholesale-operator");
      const retailB = await connect(b.url, "retail-agent");
      clients.push(operatorA, operatorB, retailB);
      // 2026-07-28 listen streams on replica A, as each principal.
      const listenRetailA = await listen(
        a.url,
        DEMO_TOKENS["retail-agent"],
        "retail-a",
      );
      const listenOperatorA = await listen(
        a.url,
        DEMO_TOKENS["wholesale-operator"],
        "operator-a",
      );
      streams.push(listenRetailA, listenOperatorA);
      assert.ok((await names(operatorA)).includes("payments.lookup@2.0.0"));
      assert.ok(
        !(await names(retailB)).some((n) => n.startsWith("payments.lookup@")),
      );
      // The optional properties payments.lookup's 2.x versions have grown so far.
      let props: string[] = [];

      await t.step(
        "a publish through the CLI reaches every replica, per principal",
        async () => {
          const file = await toolFile(
            work,
            lookupVersion("2.1.0", ["channel"]),
            "a",
          );
          const published = await cli(url, ["publish", file]);
          assert.equal(published.code, 0, published.out);
          assert.match(
            published.out,
            /published payments\.lookup@2\.1\.0 \(minor change/,
          );
          // Both operators hear it, on either replica.
          await operatorA.waitFor(
            has("payments.lookup@2.1.0"),
            "payments.lookup@2.1.0",
          );
          await operatorB.waitFor(
            has("payments.lookup@2.1.0"),
            "payments.lookup@2.1.0",
          );
          // A tool only the retail agent sees: the retail agent hears of it, the operators not.
          const crm = JSON.parse(
            await Deno.readTextFile(
              `${ROOT}corpus/tools/crm.customer.get/1.0.0.json`,
            ),
          );
          crm.version = "1.1.0";
          crm.inputSchema.properties.locale = { type: "string" };
          const crmFile = await toolFile(work, crm, "a");
          assert.equal((await cli(url, ["publish", crmFile])).code, 0);
          await retailB.waitFor(
            has("crm.customer.get@1.1.0"),
            "crm.customer.get@1.1.0",
          );
          // Replica B has processed the change (its retail session heard it); give replica A as
          // long again, then no operator session may have heard of it, and the retail session
          // heard nothing of payments.lookup.
          await new Promise((r) => setTimeout(r, 1000));
          for (const op of [operatorA, operatorB]) {
            assert.equal(op.changes.length, 1, `${JSON.stringify(op.changes)}`);
          }
          assert.equal(
            retailB.changes.length,
            1,
            JSON.stringify(retailB.changes),
          );
          // The listen streams: after the acknowledgement, one list_changed each, for its own
          // principal's change only.
          const heard = (e: Events) => e.messages.slice(1).map((m) => m.method);
          assert.deepEqual(heard(listenOperatorA), [
            "notifications/tools/list_changed",
          ]);
          assert.deepEqual(heard(listenRetailA), [
            "notifications/tools/list_changed",
          ]);
        },
      );

      await t.step(
        "two writers publish one version at once: exactly one wins",
        async () => {
          const first = await toolFile(
            work,
            lookupVersion("2.2.0", ["channel", "branch"]),
            "x",
          );
          const second = await toolFile(
            work,
            lookupVersion("2.2.0", ["channel", "desk"]),
            "y",
          );
          const results = await Promise.all([
            cli(url, ["publish", first, "--json"]),
            cli(url, ["publish", second, "--json"]),
          ]);
          const statuses = results.map((r) => JSON.parse(r.out.slice(r.out.indexOf("{"))).status)
            .sort();
          assert.deepEqual(
            statuses,
            ["published", "refused"],
            JSON.stringify(results),
          );
          const refused = results.find((r) => r.code !== 0)!;
          assert.equal(refused.code, 1);
          assert.match(refused.out, /"refusal": "republish"/);
          const rows = await sql`select spec from tool_versions
          where name = 'payments.lookup' and version = '2.2.0'`;
          assert.equal(rows.length, 1);
          const winner = JSON.parse(rows[0].spec as string);
          const won = "branch" in winner.inputSchema.properties ? "branch" : "desk";
          // Every replica serves the winner's contract.
          for (const op of [operatorA, operatorB]) {
            await op.waitFor(
              has("payments.lookup@2.2.0"),
              "payments.lookup@2.2.0",
            );
            const listed = (await op.client.listTools()).tools.find((x) =>
              x.name === "payments.lookup"
            );
            assert.ok(won in (listed!.inputSchema.properties ?? {}), won);
          }
          // The same content twice at once: one writes it, the other finds it there.
          const same = await toolFile(
            work,
            lookupVersion("2.3.0", props = ["channel", won, "note"]),
            "s",
          );
          const twice = await Promise.all([
            cli(url, ["publish", same]),
            cli(url, ["publish", same]),
          ]);
          assert.deepEqual(
            twice.map((r) => r.code),
            [0, 0],
            JSON.stringify(twice),
          );
          assert.deepEqual(
            twice.map((r) => /already published/.test(r.out)).sort(),
            [false, true],
            JSON.stringify(twice),
          );
        },
      );

      await t.step(
        "a writer killed with SIGKILL mid-publish leaves nothing written",
        async () => {
          // 300,000 stored calls of the 2.x line: the publish replays them in its transaction.
          await sql`insert into stored_calls (name, call)
          select 'payments.lookup', ${
            JSON.stringify({
              version: "2.0.0",
              arguments: { reference: "PMT-161568" },
              principal: "wholesale-operator",
              at: "2026-08-21T01:15:56.035Z",
            })
          } from generate_series(1, 300000)`;
          const file = await toolFile(
            work,
            lookupVersion("2.4.0", props = [...props, "region"]),
            "k",
          );
          const writer = cliProcess(url, ["publish", file]);
          // Killed while it holds the tool's lock, inside the transaction.
          for (let i = 0;; i++) {
            const [held] = await sql`select count(*)::int as n from pg_locks
            where locktype = 'advisory' and granted`;
            if (held.n > 0) break;
            assert.ok(i < 1000, "the publish never took the tool's lock");
            await new Promise((r) => setTimeout(r, 10));
          }
          writer.kill("SIGKILL");
          const status = await writer.status;
          assert.equal(status.signal, "SIGKILL");
          await writer.stdout.cancel();
          await writer.stderr.cancel();
          // The database ends the dead writer's transaction: no row, no event, no lock.
          for (let i = 0;; i++) {
            const [held] = await sql`select count(*)::int as n from pg_locks
            where locktype = 'advisory'`;
            if (held.n === 0) break;
            assert.ok(i < 500, "the dead writer's lock was never released");
            await new Promise((r) => setTimeout(r, 20));
          }
          const [versions] = await sql`select count(*)::int as n from tool_versions
          where name = 'payments.lookup' and version = '2.4.0'`;
          const [events] = await sql`select count(*)::int as n from lifecycle_events
          where name = 'payments.lookup' and version = '2.4.0'`;
          assert.deepEqual([versions.n, events.n], [0, 0]);
          // Nothing half-written: the same publish again goes through, replaying every call.
          const again = await cli(url, ["publish", file]);
          assert.equal(again.code, 0, again.out);
          for (const op of [operatorA, operatorB]) {
            await op.waitFor(
              has("payments.lookup@2.4.0"),
              "payments.lookup@2.4.0",
            );
          }
        },
      );

      await t.step(
        "a replica killed with SIGKILL: the other serves on, a new one has it all",
        async () => {
          const before = (await quote(operatorB)).structuredContent;
          // (Its client goes first; should the official SDK client still try the dead replica,
          // a refused connection to it, and only to it, is expected.)
          await operatorA.client.close();
          deadReplica = a.url.host;
          await a.kill();
          assert.deepEqual((await quote(operatorB)).structuredContent, before);
          const c = await start();
          const operatorC = await connect(c.url, "wholesale-operator");
          clients.push(operatorC);
          assert.deepEqual(await names(operatorC), await names(operatorB));
          assert.ok((await names(operatorC)).includes("payments.lookup@2.4.0"));
          // The killed replica's recorded calls were committed one by one: none half-written.
          const [bad] = await sql`select count(*)::int as n from stored_calls
          where (call::json ->> 'version') is null`;
          assert.equal(bad.n, 0);
        },
      );

      await t.step(
        "the database restarted under load: both replicas recover",
        async () => {
          const b2 = replicas[1], c = replicas[2];
          const opB = operatorB, opC = clients.at(-1)!;
          const fromB = b2.log().length, fromC = c.log().length;
          await new Promise((r) => setTimeout(r, 500)); // the calls made so far are written
          const [recordedBefore] = await sql`select count(*)::int as n from stored_calls
          where name = 'fx.quote'`;
          let load = true;
          let answered = 0;
          const loop = async (client: Connected) => {
            while (load) {
              const r = await quote(client);
              assert.equal(r.isError, undefined, JSON.stringify(r));
              answered++;
              await new Promise((r) => setTimeout(r, 5));
            }
          };
          // A failed call ends its loop; it is reported when the loops are awaited.
          const failures: unknown[] = [];
          const loops = [loop(opB), loop(opC)].map((p) => p.catch((e) => failures.push(e)));
          await new Promise((r) => setTimeout(r, 300));
          await sql.end();
          await pg.restart({ downMs: 1000 });
          // Both say so in their log, and reload.
          const said = /change feed reconnected: reloading what may have been missed/;
          await b2.waitFor(said, { from: fromB, timeoutMs: 30_000 });
          await c.waitFor(said, { from: fromC, timeoutMs: 30_000 });
          load = false;
          await Promise.all(loops);
          assert.deepEqual(failures, [], "every call under load was answered");
          assert.ok(answered > 0);
          // They follow changes again.
          const file = await toolFile(
            work,
            lookupVersion("2.5.0", [...props, "purpose"]),
            "r",
          );
          const published = await cli(url, ["publish", file]);
          assert.equal(published.code, 0, published.out);
          await opB.waitFor(
            has("payments.lookup@2.5.0"),
            "payments.lookup@2.5.0",
          );
          await opC.waitFor(
            has("payments.lookup@2.5.0"),
            "payments.lookup@2.5.0",
          );
          // Every call answered, before, during and after the outage, is recorded: the calls the
          // database could not take waited in the replica until it was back.
          assert.ok((await quote(opB)).structuredContent);
          const expected = recordedBefore.n + answered + 1;
          const again = postgres(url, { max: 1, onnotice: () => {} });
          try {
            let recorded = 0;
            for (let i = 0; i < 200; i++) {
              [{ n: recorded }] = await again`select count(*)::int as n from stored_calls
              where name = 'fx.quote'`;
              if (recorded >= expected) break;
              await new Promise((r) => setTimeout(r, 50));
            }
            assert.equal(
              recorded,
              expected,
              "every answered call is recorded, once",
            );
          } finally {
            await again.end();
          }
          assert.match(
            b2.log().slice(fromB) + c.log().slice(fromC),
            /recording calls again/,
          );
          // estate impact reads them there.
          const impact = await cli(url, ["impact", "fx.quote@1.0.0"]);
          assert.equal(impact.code, 0, impact.out);
          assert.match(impact.out, /wholesale-operator +\d+ calls/);
        },
      );

      await t.step(
        "sessions are per replica; stateless requests go to any",
        async () => {
          const [b2, c] = [replicas[1], replicas[2]];
          // A handshake-era session of replica B, sent to replica C: 404, as for an expired one.
          const session = await legacySession(b2.url, "wholesale-operator");
          const listed = await session.request("tools/list");
          assert.equal(listed.status, 200);
          const init = await fetch(b2.url, {
            method: "POST",
            headers: {
              authorization: bearer("wholesale-operator"),
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
                clientInfo: { name: "replicas-test", version: "1.0.0" },
              },
            }),
          });
          const id = init.headers.get("mcp-session-id")!;
          await init.body?.cancel();
          const elsewhere = await fetch(c.url, {
            method: "POST",
            headers: {
              authorization: bearer("wholesale-operator"),
              "content-type": "application/json",
              accept: "application/json, text/event-stream",
              "mcp-session-id": id,
              "mcp-protocol-version": "2025-11-25",
            },
            body: JSON.stringify({
              jsonrpc: "2.0",
              id: 2,
              method: "tools/list",
            }),
          });
          await elsewhere.body?.cancel();
          assert.equal(elsewhere.status, 404);
          await session.close();
          // The SDK client gets the same 404 and starts over there.
          const sdk = new StreamableHTTPClientTransport(c.url, {
            sessionId: id,
            requestInit: {
              headers: { Authorization: bearer("wholesale-operator") },
            },
          });
          await sdk.start();
          await assert.rejects(
            sdk.send({ jsonrpc: "2.0", id: 3, method: "tools/list" }),
            (e) => e instanceof StreamableHTTPError && e.code === 404,
          );
          await sdk.close();
          const fresh = await connect(c.url, "wholesale-operator");
          clients.push(fresh);
          assert.ok((await names(fresh)).includes("payments.lookup@2.5.0"));
          // 2026-07-28: no session; both replicas answer the same request byte for byte.
          const answers = await Promise.all(
            [b2, c].map((r) => modernRequest(r.url, "wholesale-operator", "tools/list")),
          );
          assert.equal(answers[0].status, 200);
          assert.equal(answers[0].body, answers[1].body);
        },
      );
    } finally {
      for (const c of clients) await c.client.close().catch(() => {});
      for (const e of streams) await e.close();
      for (const r of replicas) await r.stop();
      await sql.end().catch(() => {});
      await pg.stop();
      await Deno.remove(work, { recursive: true });
      globalThis.removeEventListener("unhandledrejection", tolerate);
    }
  },
});
