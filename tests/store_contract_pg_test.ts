/**
 * The store contract (`_store_contract.ts`) against the PostgreSQL store, on a real PostgreSQL
 * started for this file (`_postgres.ts`): a fresh database per test, the server stopped at the end.
 */
import assert from "node:assert/strict";
import { migrate } from "../lib/store/pg/migrate.ts";
import { PgEstateStore } from "../lib/store/pg/pg_store.ts";
import { lookup } from "./_store_fixtures.ts";
import { postgresSkipReason, startPostgres, type TestPostgres } from "./_postgres.ts";
import { storeContract } from "./_store_contract.ts";

const skip = postgresSkipReason();
let server: Promise<TestPostgres> | undefined;

storeContract("postgres", async () => {
  const url = await (await (server ??= startPostgres())).createDatabase();
  const admin = await PgEstateStore.open(url);
  return {
    open: (options = {}) => PgEstateStore.open(url, options),
    writePrincipals: (principals) => admin.setPrincipals(principals),
    cleanup: () => admin.close(),
  };
}, skip === undefined ? {} : { skip });

Deno.test({
  name:
    "[postgres] the database itself refuses a second row for a version, and any rewrite of history",
  ignore: skip !== undefined,
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const url = await (await (server ??= startPostgres())).createDatabase();
    const store = await PgEstateStore.open(url);
    try {
      await store.publish(lookup("1.0.0"));
      const code = async (run: () => Promise<unknown>) => {
        try {
          await run();
        } catch (e) {
          return (e as { code?: string }).code;
        }
        return "none";
      };
      const sql = store.sql;
      assert.equal(
        await code(() =>
          sql`insert into tool_versions (name, version, spec) values ('payments.lookup', '1.0.0', '{}')`
        ),
        "23505", // unique_violation
      );
      assert.equal(
        await code(() => sql`update tool_versions set spec = '{}'`),
        "P0001",
      );
      assert.equal(
        await code(() => sql`delete from lifecycle_events`),
        "P0001",
      );
      assert.deepEqual(await migrate(sql), [], "migrations apply once");
    } finally {
      await store.close();
    }
  },
});

Deno.test({
  name: "[postgres] the test server stops",
  ignore: skip !== undefined,
  fn: async () => {
    if (server) await (await server).stop();
  },
});
