/** The tests' PostgreSQL (`_postgres.ts`): it starts, answers on 127.0.0.1, and stops. */
import assert from "node:assert/strict";
import postgres from "postgres";
import { postgresSkipReason, startPostgres } from "./_postgres.ts";

const skip = postgresSkipReason();

Deno.test({
  name: `startPostgres() runs a real PostgreSQL on 127.0.0.1 and stop() removes it${
    skip ? ` (skipped: ${skip})` : ""
  }`,
  ignore: skip !== undefined,
  fn: async () => {
    const pg = await startPostgres();
    try {
      const sql = postgres(await pg.createDatabase(), { max: 1 });
      try {
        const [row] = await sql`select current_setting('server_version_num')::int as v`;
        assert.ok(row.v >= 150000, String(row.v));
      } finally {
        await sql.end();
      }
    } finally {
      await pg.stop();
    }
  },
});
