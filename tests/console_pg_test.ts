/**
 * The console over PostgreSQL, as `estate serve --store URL` runs it: two replicas on one
 * database; a publish from the CLI (a third process) reaches a live console page on each replica
 * through LISTEN/NOTIFY, for the principal who may see the tool only; the tool page's counts read
 * past a cursor agree with the database's own count, after calls appended by another process too.
 */
import assert from "node:assert/strict";
import postgres from "postgres";
import { postgresSkipReason, startPostgres } from "./_postgres.ts";
import { type GatewayServe, startServeProcess } from "./_gateway_estate.ts";
import { ROOT } from "./_serve.ts";
import { DEMO_TOKENS } from "../lib/cli/demo_tokens.ts";
import { readEvents } from "./_console.ts";

const skip = postgresSkipReason();

async function cli(url: string, args: string[]): Promise<{ code: number; out: string }> {
  const r = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", `${ROOT}cli.ts`, ...args, args[0] === "migrate" ? "--to" : "--store", url],
    cwd: ROOT,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder();
  return { code: r.code, out: text.decode(r.stdout) + text.decode(r.stderr) };
}

async function signIn(base: string, who: keyof typeof DEMO_TOKENS): Promise<string> {
  const res = await fetch(`${base}/sign-in`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ token: DEMO_TOKENS[who], next: "/console/" }),
    redirect: "manual",
  });
  await res.body?.cancel();
  assert.equal(res.status, 303, `sign-in as ${who}`);
  return res.headers.get("set-cookie")!.split(";")[0];
}

const callsShown = (page: string) =>
  [...page.matchAll(
    /<section\s+data-impact="[^"]+"><h3>[^<]*<span[^>]*>[a-z]+<\/span> <span class="muted">(\d+) calls?/g,
  )]
    .reduce((a, m) => a + Number(m[1]), 0);

Deno.test({
  name: skip
    ? `[postgres] console over two replicas (ignored: ${skip})`
    : "[postgres] console over two replicas: a CLI publish reaches each replica's live page for who may see it; counts read past a cursor agree with the database",
  ignore: skip !== undefined,
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const pg = await startPostgres();
    const replicas: GatewayServe[] = [];
    const work = await Deno.makeTempDir({ prefix: "estate-console-pg-" });
    const url = await pg.createDatabase();
    const sql = postgres(url, { max: 1, onnotice: () => {} });
    try {
      const migrated = await cli(url, ["migrate", "--from", `${ROOT}corpus`]);
      assert.equal(migrated.code, 0, migrated.out);
      replicas.push(await startServeProcess(["--store", url]));
      replicas.push(await startServeProcess(["--store", url]));
      const bases = replicas.map((r) => `${r.url.origin}/console`);
      const retail = await Promise.all(bases.map((b) => signIn(b, "retail-agent")));
      const ops = await signIn(bases[1], "wholesale-operator");

      // The tool page's counts equal the database's.
      const count = async () =>
        Number(
          (await sql`select count(*)::int as n from stored_calls where name = 'retail.transfers.lookup'`)[
            0
          ].n,
        );
      const page = async (i: number) =>
        await (await fetch(`${bases[i]}/tools/retail.transfers.lookup`, {
          headers: { cookie: retail[i] },
        })).text();
      assert.equal(callsShown(await page(0)), await count());
      // Calls appended by another process (a third writer): only those are read, and shown.
      const more = Array.from({ length: 25 }, (_, i) => ({
        version: "1.1.0",
        arguments: { transferId: `TRF-${String(i).padStart(8, "0")}` },
        principal: "retail-agent",
        at: new Date(Date.UTC(2026, 11, 2, 10, i)).toISOString(),
      }));
      await sql`insert into stored_calls (name, call)
        select 'retail.transfers.lookup', line from unnest(${
        more.map((c) => JSON.stringify(c))
      }::text[]) as line`;
      assert.equal(callsShown(await page(0)), await count());
      assert.equal(callsShown(await page(1)), await count());

      // Live pages on both replicas; a publish from the CLI.
      const open = (base: string, cookie: string) =>
        fetch(`${base}/events`, { headers: { cookie } });
      const streams = await Promise.all([
        open(bases[0], retail[0]),
        open(bases[1], retail[1]),
        open(bases[1], ops),
      ]);
      const reading = [
        readEvents(streams[0], 20_000, (t) => t.includes("retail.statements.list")),
        readEvents(streams[1], 20_000, (t) => t.includes("retail.statements.list")),
        readEvents(streams[2], 4_000, (t) => t.includes("event: change")),
      ];
      const spec = JSON.parse(
        Deno.readTextFileSync(`${ROOT}corpus/tools/retail.transfers.lookup/1.1.0.json`),
      );
      const file = `${work}/retail.statements.list.tool.json`;
      Deno.writeTextFileSync(
        file,
        JSON.stringify({ ...spec, name: "retail.statements.list", version: "1.0.0" }),
      );
      const published = await cli(url, ["publish", file]);
      assert.equal(published.code, 0, published.out);
      const [a, b, c] = await Promise.all(reading);
      assert.match(a, /event: change\ndata: \{"name":"retail\.statements\.list"\}/);
      assert.match(b, /event: change\ndata: \{"name":"retail\.statements\.list"\}/);
      assert.doesNotMatch(c, /event: change/);
      for (let i = 0; i < 2; i++) {
        const home = await (await fetch(`${bases[i]}/`, { headers: { cookie: retail[i] } })).text();
        assert.match(home, /<tr data-tool="retail\.statements\.list">/);
      }
      const opsHome = await (await fetch(`${bases[1]}/`, { headers: { cookie: ops } })).text();
      assert.doesNotMatch(opsHome, /retail\.statements\.list/);
    } finally {
      for (const r of replicas) await r.stop();
      await sql.end();
      await pg.stop();
      await Deno.remove(work, { recursive: true });
    }
  },
});
