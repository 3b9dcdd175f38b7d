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
      await sql.begin(async (tx) => {
        await tx`insert into tasks (id, owner, revision, created_at, record)
          values (${task.taskId}, ${task.owner}, ${task.revision}, ${new Date(task.createdAt)},
            ${json(sql, task)})`;
        await tx`select pg_notify(${TASKS_CHANNEL}, ${task.taskId})`;
      });
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
      return await sql.begin(async (tx) => {
        const rows = await tx`update tasks set revision = ${next.revision},
            record = ${json(sql, next)}
          where id = ${next.taskId} and revision = ${next.revision - 1} returning id`;
        if (rows.length !== 1) return false;
        await tx`select pg_notify(${TASKS_CHANNEL}, ${next.taskId})`;
        return true;
      });
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
