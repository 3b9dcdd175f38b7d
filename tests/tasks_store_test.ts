// TaskStore (lib/estate/tasks.ts), one contract run against every backend: in memory, the folder
// (`.tasks/`, git-ignored), PostgreSQL (table `tasks`, migration 012). And on PostgreSQL, two
// replicas of `estate serve` sharing the store: a task made on one is answered for by the other,
// finished from a third through the store, seen by a `tasks/result` waiting on the other, and still
// there after the replica that made it is gone.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import {
  asTask,
  changeTask,
  finishTask,
  McpServer,
  memoryTaskStore,
  newTaskRecord,
  STATELESS_META,
  TASKS_EXTENSION,
  type TaskStore,
} from "../mod.ts";
import { EstateDir } from "../lib/store/estate_dir.ts";
import { PgEstateStore } from "../lib/store/pg/pg_store.ts";
import { estateServer } from "../lib/cli/serve.ts";
import { withTempDir } from "./_store_fixtures.ts";
import { postgresSkipReason, startPostgres, type TestPostgres } from "./_postgres.ts";
import { OPERATOR, ready, RETAIL, spec } from "./_mcp_fixtures.ts";

/** The contract every TaskStore keeps. */
async function contract(store: TaskStore): Promise<void> {
  const a = newTaskRecord({ owner: "ana", method: "tools/call", name: "t", now: 1000 });
  const b = newTaskRecord({ owner: "ana", method: "tools/call", name: "t", now: 2000 });
  const c = newTaskRecord({ owner: "bo", method: "tools/call", name: "t", now: 1500 });
  await store.create(b);
  await store.create(a);
  await store.create(c);
  await assert.rejects(async () => await store.create(a));
  assert.deepEqual(await store.get(a.taskId), a);
  assert.equal(await store.get(crypto.randomUUID()), undefined);
  assert.equal(await store.get("../../etc/passwd"), undefined);
  assert.deepEqual((await store.list("ana")).map((t) => t.taskId), [a.taskId, b.taskId]);
  assert.deepEqual(await store.list("nobody"), []);
  // Compare-and-set on the revision: of two concurrent changes exactly one wins.
  const wins = await Promise.all([
    store.change({ ...a, revision: 2, statusMessage: "one" }),
    store.change({ ...a, revision: 2, statusMessage: "two" }),
  ]);
  assert.equal(wins.filter(Boolean).length, 1);
  assert.equal(await store.change({ ...a, revision: 5 }), false);
  // changeTask retries until its edit lands, on top of the other writer's change.
  const [x, y] = await Promise.all([
    changeTask(store, {
      taskId: b.taskId,
      edit: (t) => ({ ...t, askedKeys: [...t.askedKeys ?? [], "x"] }),
    }),
    changeTask(store, {
      taskId: b.taskId,
      edit: (t) => ({ ...t, askedKeys: [...t.askedKeys ?? [], "y"] }),
    }),
  ]);
  assert.ok(x && y);
  assert.deepEqual((await store.get(b.taskId))?.askedKeys?.sort(), ["x", "y"]);
  const done = await finishTask(store, {
    taskId: b.taskId,
    outcome: { result: { content: [{ type: "text", text: "ok" }] } },
  });
  assert.equal((await store.get(b.taskId))?.status, "completed");
  assert.equal(done?.revision, 4);
  assert.equal(await store.remove(c.taskId), true);
  assert.equal(await store.remove(c.taskId), false);
  assert.equal(await store.get(c.taskId), undefined);
}

Deno.test("TaskStore contract: in memory", async () => {
  await contract(memoryTaskStore());
});

Deno.test("TaskStore contract: the folder store keeps tasks in .tasks/, which git ignores", async () => {
  await withTempDir(async (dir) => {
    fs.writeFileSync(path.join(dir, "estate.json"), "{}\n");
    const estate = EstateDir.open(dir);
    await contract(estate.tasks());
    assert.equal(fs.readFileSync(path.join(dir, ".tasks", ".gitignore"), "utf8"), "*\n");
    // Another process's view of the same folder sees them.
    const again = EstateDir.open(dir);
    assert.equal((await again.tasks().list("ana")).length, 2);
  });
});

const skip = postgresSkipReason();
let server: Promise<TestPostgres> | undefined;
const pg = { ignore: skip !== undefined, sanitizeResources: false, sanitizeOps: false };

Deno.test({
  ...pg,
  name: "[postgres] TaskStore contract: table tasks (migration 012)",
  fn: async () => {
    const url = await (await (server ??= startPostgres())).createDatabase();
    const store = await PgEstateStore.open(url);
    try {
      await contract(store.tasks());
    } finally {
      await store.close();
    }
  },
});

let ids = 0;
const stateless = (method: string, params: Record<string, unknown>) => ({
  jsonrpc: "2.0" as const,
  id: ++ids,
  method,
  params: {
    ...params,
    _meta: {
      [STATELESS_META.protocolVersion]: "2026-07-28",
      [STATELESS_META.clientCapabilities]: { extensions: { [TASKS_EXTENSION]: {} } },
    },
  },
});
type Wire = { result?: Record<string, unknown>; error?: { code: number; message: string } };

Deno.test({
  ...pg,
  name:
    "[postgres] a task made on one replica is answered for by another, finished from a third, and outlives the replica that made it",
  fn: async () => {
    const url = await (await (server ??= startPostgres())).createDatabase();
    const setup = await PgEstateStore.open(url);
    await setup.publish(spec("approval.wait", "1.0.0", { requiredScopes: [] }));
    await setup.close();
    const open = async () => {
      const store = await PgEstateStore.open(url);
      const replica = estateServer(store, {
        system: { handlerFor: () => () => asTask({ statusMessage: "waiting for an approver" }) },
        log: () => {},
        recordCalls: false,
      });
      return { store, replica };
    };
    const a = await open();
    const b = await open();
    const outside = await PgEstateStore.open(url);
    try {
      const created = await a.replica.handleStateless(
        stateless("tools/call", { name: "approval.wait", arguments: { reference: "PMT-000001" } }),
        { principal: RETAIL },
      ) as Wire;
      assert.equal(created.result?.resultType, "task", JSON.stringify(created));
      const taskId = created.result?.taskId as string;
      // Durable before the answer: the other replica answers for it at once.
      const got = await b.replica.handleStateless(stateless("tasks/get", { taskId }), {
        principal: RETAIL,
      }) as Wire;
      assert.equal(got.result?.status, "working");
      assert.equal(got.result?.statusMessage, "waiting for an approver");
      // Another principal, on either replica, is told it does not exist.
      const theirs = await b.replica.handleStateless(stateless("tasks/get", { taskId }), {
        principal: OPERATOR,
      }) as Wire;
      assert.equal(theirs.error?.code, -32602);
      // The replica that made it goes away; tasks/result waits on the other.
      a.replica.close();
      await a.store.close();
      const session = await ready(b.replica, RETAIL);
      const waiting = b.replica.handle(
        { jsonrpc: "2.0", id: 99, method: "tasks/result", params: { taskId } },
        session,
      ) as Promise<Wire>;
      await new Promise((r) => setTimeout(r, 100));
      await finishTask(outside.tasks(), {
        taskId,
        outcome: { result: { content: [{ type: "text", text: "approved" }] } },
      });
      const result = await waiting;
      assert.deepEqual(result.result?.content, [{ type: "text", text: "approved" }]);
      // A replica opened afterwards answers too.
      const c = await open();
      const later = await c.replica.handleStateless(stateless("tasks/get", { taskId }), {
        principal: RETAIL,
      }) as Wire;
      assert.equal(later.result?.status, "completed");
      c.replica.close();
      await c.store.close();
    } finally {
      b.replica.close();
      await b.store.close();
      await outside.close();
    }
  },
});

Deno.test({
  ...pg,
  name:
    "[postgres] a replica waiting on tasks/result hears a change made elsewhere at once (LISTEN estate_tasks), not at its next read",
  fn: async () => {
    const url = await (await (server ??= startPostgres())).createDatabase();
    const setup = await PgEstateStore.open(url);
    await setup.publish(spec("approval.wait", "1.0.0", { requiredScopes: [] }));
    await setup.close();
    const store = await PgEstateStore.open(url);
    const outside = await PgEstateStore.open(url);
    // Reads the store only once a minute: only the announcement can wake it in time.
    const replica = new McpServer({
      registry: store.registry,
      handlerFor: () => () => asTask({}),
      tasks: { store: store.tasks(), waitPollMs: 60_000 },
    });
    try {
      const session = await ready(replica, RETAIL);
      const created = await replica.handle({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "approval.wait", arguments: { reference: "PMT-000002" }, task: {} },
      }, session) as Wire;
      const taskId = (created.result?.task as { taskId: string }).taskId;
      const waiting = replica.handle(
        { jsonrpc: "2.0", id: 2, method: "tasks/result", params: { taskId } },
        session,
      ) as Promise<Wire>;
      await new Promise((r) => setTimeout(r, 200));
      const started = Date.now();
      await finishTask(outside.tasks(), {
        taskId,
        outcome: { result: { content: [{ type: "text", text: "approved" }] } },
      });
      const result = await waiting;
      assert.deepEqual(result.result?.content, [{ type: "text", text: "approved" }]);
      assert.ok(Date.now() - started < 5000, `${Date.now() - started} ms`);
    } finally {
      replica.close();
      await store.close();
      await outside.close();
    }
  },
});

Deno.test({
  ...pg,
  name: "[postgres] stop the test server",
  fn: async () => {
    if (server) await (await server).stop();
  },
});
