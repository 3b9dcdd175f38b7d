/**
 * The PostgreSQL store's tasks (table `tasks`, migration 012): one row per task, the record as
 * JSON. A change is an update from the revision it was read at, so of two replicas changing one
 * task exactly one wins.
 *
 * @module
 */
import type postgres from "postgres";
import type { Sql } from "postgres";
import type { TaskRecord, TaskStore } from "../../estate/tasks.ts";

/** The channel task changes are announced on. */
const TASKS_CHANNEL = "estate_tasks";

function json(sql: Sql, task: TaskRecord) {
  return sql.json(task as unknown as postgres.JSONValue);
}

/**
 * The tasks of an estate on PostgreSQL.
 *
 * @param sql The connection pool.
 * @returns The store.
 */
export function pgTasks(sql: Sql): TaskStore {
  return {
    async create(task) {
      // One statement (no driver transaction: `estate serve` writes tasks, and a connection lost
      // inside one can crash the process, porsager/postgres#1208); announced at its commit.
      await sql`with made as (
          insert into tasks (id, owner, revision, created_at, record)
          values (${task.taskId}, ${task.owner}, ${task.revision}, ${new Date(task.createdAt)},
            ${json(sql, task)})
          returning id)
        select pg_notify(${TASKS_CHANNEL}, id) from made`;
    },
    async get(taskId) {
      const rows = await sql`select record from tasks where id = ${taskId}`;
      return rows.length ? rows[0].record as TaskRecord : undefined;
    },
    async list(owner) {
      const rows = await sql`select record from tasks where owner = ${owner}
        order by created_at, id`;
      return rows.map((r) => r.record as TaskRecord);
    },
    async change(next) {
      // A compare-and-set on the revision, announced at its commit: one statement.
      const rows = await sql`with changed as (
          update tasks set revision = ${next.revision}, record = ${json(sql, next)}
          where id = ${next.taskId} and revision = ${next.revision - 1}
          returning id)
        select pg_notify(${TASKS_CHANNEL}, id) from changed`;
      return rows.length === 1;
    },
    async watch(listener) {
      const { unlisten } = await sql.listen(TASKS_CHANNEL, (taskId) => listener(taskId));
      return { close: () => unlisten() };
    },
    async remove(taskId) {
      const rows = await sql`delete from tasks where id = ${taskId} returning id`;
      return rows.length === 1;
    },
  };
}
