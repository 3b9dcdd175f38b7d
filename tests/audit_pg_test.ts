/**
 * The audit log on a real PostgreSQL (`_postgres.ts`, migration 011): two replicas (two
 * `PgEstateStore`s on one database) appending at once keep one unbroken chain; the store records
 * what it does in the same transaction; rows edited, deleted, reordered or cut off with SQL are
 * named by `verifyAuditChain` and by `estate audit verify --store URL`.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import {
  type AuditRecord,
  generateAuditKeys,
  importAuditKey,
  signAuditCheckpoint,
  verifyAuditChain,
} from "../mod.ts";
import { PgEstateStore } from "../lib/store/pg/mod.ts";
import { postgresSkipReason, startPostgres } from "./_postgres.ts";
import { estate as run } from "./_cli.ts";
import { spec } from "./_mcp_fixtures.ts";

const skip = postgresSkipReason();

async function all(store: PgEstateStore): Promise<AuditRecord[]> {
  const out: AuditRecord[] = [];
  for await (const r of store.readAudit()) out.push(r);
  return out;
}

Deno.test({
  name: skip
    ? `[postgres] the audit log on a database estate (ignored: ${skip})`
    : "[postgres] two replicas appending at once keep one chain; edited, deleted, reordered and truncated rows are named",
  ignore: skip !== undefined,
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const pg = await startPostgres();
    fs.mkdirSync(".scratch", { recursive: true });
    const cwd = fs.mkdtempSync(".scratch/audit-pg-");
    try {
      const url = await pg.createDatabase();
      const a = await PgEstateStore.open(url);
      const b = await PgEstateStore.open(url, { migrate: false });
      try {
        // What the store does, it records, in the same transaction.
        await a.publish(spec("fx.quote", "1.0.0"));
        await b.publish(spec("fx.quote", "1.1.0", { title: "FX quote" }));
        await b.refresh();
        await a.refresh();
        await b.deprecate("fx.quote", "1.0.0", { reason: "superseded" });
        await a.appendDrift([{
          at: "2026-12-01T09:00:00.000Z",
          server: "crm-mcp",
          tool: "crm.customer.get",
          registeredVersion: "1.0.0",
          kind: "quarantined",
          details: "the upstream removed a property",
        }]);
        assert.deepEqual((await all(a)).map((r) => [r.seq, r.kind, r.version]), [
          [1, "publish", "1.0.0"],
          [2, "publish", "1.1.0"],
          [3, "deprecate", "1.0.0"],
          [4, "quarantine", "1.0.0"],
        ]);

        // Two replicas, many appends interleaved (and a publish among them): one chain.
        const N = 60;
        await Promise.all(
          Array.from({ length: N }, (_, i) =>
            (i % 2 ? a : b).appendAudit([
              { kind: "call", principal: `p${i % 5}`, tool: "fx.quote", detail: { i } },
              ...(i % 7 === 0 ? [{ kind: "confirmation" as const, detail: { i } }] : []),
            ])).concat([a.publish(spec("policy.search", "1.0.0")).then(() => [])]),
        );
        const records = await all(b);
        const expected = 4 + N + Array.from({ length: N }, (_, i) => i).filter((i) => i % 7 === 0)
          .length +
          1;
        assert.equal(records.length, expected);
        assert.deepEqual(
          records.map((r) => r.seq),
          Array.from({ length: expected }, (_, i) => i + 1),
        );
        const verdict = await verifyAuditChain(records);
        assert.equal(verdict.ok, true, JSON.stringify(verdict));
        assert.deepEqual(await a.auditHead(), { seq: expected, hash: records.at(-1)!.hash });
        // Both records of one append are adjacent: appends do not interleave inside.
        for (const r of records.filter((r) => r.kind === "confirmation")) {
          const before = records[r.seq - 2];
          assert.equal(before.kind, "call");
          assert.equal(before.detail.i, r.detail.i);
        }
        assert.deepEqual(
          (await (async () => {
            const out: number[] = [];
            for await (const r of a.readAudit({ principal: "p3", kind: "call" })) {
              out.push(r.detail.i as number);
            }
            return out;
          })()).sort((x, y) => x - y),
          Array.from({ length: N }, (_, i) => i).filter((i) => i % 5 === 3),
        );

        const ok = await run(["audit", "verify", "--store", url], cwd);
        assert.equal(ok.code, 0, ok.out + ok.err);
        assert.match(ok.out, new RegExp(`^chain ok: ${expected} records`));

        const verify = async () => {
          const v = await run(["audit", "verify", "--store", url, "--json"], cwd);
          assert.equal(v.code, 1, v.out + v.err);
          const { reason, seq } = JSON.parse(v.out);
          return { reason, seq };
        };
        const sql = a.sql;
        const saved = async (seq: number) =>
          (await sql`select * from audit_log where seq = ${seq}`)[0];

        // Edited.
        const five = await saved(5);
        await sql`update audit_log set record = jsonb_set(record, '{detail,i}', '999') where seq = 5`;
        assert.deepEqual(await verify(), { reason: "edited", seq: 5 });
        await sql`update audit_log set record = ${sql.json(five.record)} where seq = 5`;

        // Deleted.
        const seven = await saved(7);
        await sql`delete from audit_log where seq = 7`;
        assert.deepEqual(await verify(), { reason: "deleted", seq: 7 });
        await sql`insert into audit_log (seq, at, kind, principal, tool, hash, record)
          values (${seven.seq}, ${seven.at}, ${seven.kind}, ${seven.principal}, ${seven.tool},
            ${seven.hash}, ${sql.json(seven.record)})`;

        // Reordered: two rows' records swapped.
        await sql`update audit_log set record = case seq
            when 3 then (select record from audit_log where seq = 4)
            else (select record from audit_log where seq = 3) end
          where seq in (3, 4)`;
        assert.deepEqual(await verify(), { reason: "reordered", seq: 3 });
        await sql`update audit_log set record = case seq
            when 3 then (select record from audit_log where seq = 4)
            else (select record from audit_log where seq = 3) end
          where seq in (3, 4)`;
        assert.equal((await run(["audit", "verify", "--store", url], cwd)).code, 0);

        // Truncated after a signed checkpoint.
        const { privatePem, publicPem } = await generateAuditKeys();
        const head = await a.auditHead();
        await a.appendAuditCheckpoint(
          await signAuditCheckpoint(head, { privateKey: await importAuditKey(privatePem, "sign") }),
        );
        await sql`delete from audit_log where seq > ${head.seq - 3}`;
        const v = await verifyAuditChain(a.readAudit(), {
          checkpoints: await a.auditCheckpoints(),
          publicKey: await importAuditKey(publicPem, "verify"),
        });
        assert.equal(v.ok ? "ok" : v.reason, "truncated");
        assert.deepEqual(await verify(), { reason: "truncated", seq: head.seq });
      } finally {
        await a.close();
        await b.close();
      }
    } finally {
      fs.rmSync(cwd, { recursive: true, force: true });
      await pg.stop();
    }
  },
});
