/**
 * Call limits across replicas on one real PostgreSQL (`_postgres.ts`): two `estate serve`
 * processes, both eras' requests fired at both at once. Between them they admit exactly a limit's
 * `calls` in its window (counted in the database, all or none), answer the rest 429 with
 * `Retry-After`, and a principal hammering at its limit takes nothing from another's.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { postgresSkipReason, startPostgres } from "./_postgres.ts";
import {
  bearer,
  type DemoPrincipal,
  type GatewayServe,
  startServeProcess,
} from "./_gateway_estate.ts";
import { ROOT } from "./_serve.ts";
import { STATELESS_META } from "../mod.ts";

const skip = postgresSkipReason();
const HOUR = 3_600_000;

/** One 2026-07-28 `policy.search` call; its status and `Retry-After`. */
async function search(
  url: URL,
  principal: DemoPrincipal,
  id: number,
): Promise<{ status: number; retryAfter: string | null; code?: number }> {
  const res = await fetch(url, {
    method: "POST",
    headers: {
      authorization: bearer(principal),
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": "tools/call",
      "mcp-name": "policy.search",
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id,
      method: "tools/call",
      params: {
        name: "policy.search",
        arguments: { query: `limits ${id}` },
        _meta: {
          [STATELESS_META.protocolVersion]: "2026-07-28",
          [STATELESS_META.clientCapabilities]: {},
        },
      },
    }),
  });
  const body = await res.json();
  return { status: res.status, retryAfter: res.headers.get("retry-after"), code: body.error?.code };
}

async function cli(args: string[]): Promise<void> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", `${ROOT}cli.ts`, ...args],
    cwd: ROOT,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder();
  assert.equal(out.code, 0, text.decode(out.stdout) + text.decode(out.stderr));
}

Deno.test({
  name: skip
    ? `[postgres] call limits across two estate serve replicas (ignored: ${skip})`
    : "[postgres] call limits across two estate serve replicas: exactly the limit admitted under concurrent load on both, 429 with Retry-After for the rest, another principal unaffected",
  ignore: skip !== undefined,
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const pg = await startPostgres();
    const work = fs.mkdtempSync(path.join(os.tmpdir(), "estate-limits-pg-"));
    const replicas: GatewayServe[] = [];
    try {
      const url = await pg.createDatabase();
      fs.cpSync(`${ROOT}corpus`, work, { recursive: true });
      fs.writeFileSync(
        path.join(work, "estate.json"),
        JSON.stringify({
          limits: [
            { tool: "policy.search", calls: 25, per: "hour" },
            { each: "estate", calls: 60, per: "hour" },
          ],
        }),
      );
      await cli(["migrate", "--from", work, "--to", url]);
      replicas.push(await startServeProcess(["--store", url]));
      replicas.push(await startServeProcess(["--store", url]));
      const [a, b] = replicas;
      const started = Date.now();
      // 120 calls by the retail agent, 8 at a time on each replica, all at once.
      const results: Awaited<ReturnType<typeof search>>[] = [];
      let next = 0;
      const worker = async (replica: GatewayServe) => {
        while (next < 120) results.push(await search(replica.url, "retail-agent", next++));
      };
      await Promise.all([...Array(8)].flatMap(() => [worker(a), worker(b)]));
      const windows = Math.floor(Date.now() / HOUR) - Math.floor(started / HOUR) + 1;
      const admitted = results.filter((r) => r.status === 200);
      const refused = results.filter((r) => r.status === 429);
      assert.equal(admitted.length + refused.length, 120, JSON.stringify(results));
      if (windows === 1) assert.equal(admitted.length, 25);
      else assert.ok(admitted.length >= 25 && admitted.length <= 50);
      for (const r of refused) {
        assert.equal(r.code, -32029);
        assert.ok(Number(r.retryAfter) >= 1 && Number(r.retryAfter) <= 3600, r.retryAfter ?? "");
      }
      // Both replicas admitted and refused: the count is the database's, not a replica's.
      await a.waitFor(/call retail-agent policy\.search@\S+ rate-limited/);
      await b.waitFor(/call retail-agent policy\.search@\S+ rate-limited/);
      // The retail agent at its limit, still calling; the operator's calls all run (the estate's
      // 60 an hour has 35 left: refused calls took none of it).
      const operator = await Promise.all(
        [...Array(30)].map((_, i) => search(i % 2 ? a.url : b.url, "wholesale-operator", 1000 + i)),
      );
      const ran = operator.filter((r) => r.status === 200).length;
      // Its own 25 an hour of policy.search, whatever the retail agent did.
      if (windows === 1) assert.equal(ran, 25);
      else assert.ok(ran >= 25);
    } finally {
      for (const r of replicas) await r.stop();
      await pg.stop();
      fs.rmSync(work, { recursive: true, force: true });
    }
  },
});
