/**
 * Pending calls on a real PostgreSQL (`_postgres.ts`, migration 010): the desk's contract on one
 * replica's store, then two replicas (two stores on one database) deciding one call at once —
 * exactly one decision holds — and claiming an approved call at once — exactly one runs it.
 */
import assert from "node:assert/strict";
import { claimApprovedCall, decideCall, holdCall } from "../mod.ts";
import { PgEstateStore } from "../lib/store/pg/mod.ts";
import { postgresSkipReason, startPostgres } from "./_postgres.ts";
import {
  APPROVER,
  APPROVER2,
  ARGS,
  CALLER,
  deskContract,
  deskOver,
  RELEASE,
  RULE,
  T0,
} from "./_pending_calls.ts";

const skip = postgresSkipReason();

Deno.test({
  name: skip
    ? `[postgres] pending calls on a database estate (ignored: ${skip})`
    : "[postgres] pending calls on a database estate: the desk's contract; two replicas decide and claim once",
  ignore: skip !== undefined,
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const pg = await startPostgres();
    try {
      const url = await pg.createDatabase();
      const a = await PgEstateStore.open(url);
      const b = await PgEstateStore.open(url);
      try {
        await deskContract(a.pendingCalls());
        const clock = { t: T0 };
        const [da, db] = [deskOver(a.pendingCalls(), clock), deskOver(b.pendingCalls(), clock)];
        for (let round = 0; round < 5; round++) {
          const call = await holdCall(da, {
            spec: RELEASE,
            principal: CALLER,
            arguments: ARGS,
            rule: RULE,
          });
          assert.deepEqual(await b.pendingCalls().get(call.id), call, "the other replica reads it");
          const decided = await Promise.allSettled([
            decideCall(da, call.id, { by: APPROVER, approve: true }),
            decideCall(db, call.id, { by: APPROVER2, approve: true }),
          ]);
          assert.equal(decided.filter((r) => r.status === "fulfilled").length, 1);
          const claims = await Promise.all([
            claimApprovedCall(da, call.id),
            claimApprovedCall(db, call.id),
          ]);
          assert.equal(claims.filter((c) => c !== undefined).length, 1, "one replica runs it");
          assert.equal((await a.pendingCalls().get(call.id))?.state, "ran");
        }
      } finally {
        await a.close();
        await b.close();
      }
    } finally {
      await pg.stop();
    }
  },
});
