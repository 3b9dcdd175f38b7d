/**
 * The PostgreSQL store's pending calls (table `pending_calls`, migration 010): one row per call,
 * the record as JSON. A decision is an update from the state it was read in, so of two replicas
 * deciding one call exactly one wins.
 *
 * @module
 */
import type postgres from "postgres";
import type { Sql } from "postgres";
import type { PendingCall, PendingCallStore } from "../../estate/call_approvals.ts";

function json(sql: Sql, call: PendingCall) {
  return sql.json(call as unknown as postgres.JSONValue);
}

/**
 * The pending calls of an estate on PostgreSQL.
 *
 * @param sql The connection pool.
 * @returns The store.
 */
export function pgPendingCalls(sql: Sql): PendingCallStore {
  return {
    async hold(call) {
      await sql`insert into pending_calls (id, state, created_at, record)
        values (${call.id}, ${call.state}, ${new Date(call.createdAt)}, ${json(sql, call)})`;
    },
    async get(id) {
      const rows = await sql`select record from pending_calls where id = ${id}`;
      return rows.length ? rows[0].record as PendingCall : undefined;
    },
    async list() {
      const rows = await sql`select record from pending_calls order by created_at, id`;
      return rows.map((r) => r.record as PendingCall);
    },
    async change(next, from) {
      const rows = await sql`update pending_calls set state = ${next.state},
          record = ${json(sql, next)}
        where id = ${next.id} and state = ${from} returning id`;
      return rows.length === 1;
    },
  };
}
