// Tasks (MCP's tasks: 2025-11-25's experimental core feature, 2026-07-28's extension
// io.modelcontextprotocol/tasks): the model and the memory store (lib/estate/tasks.ts), the
// server's methods in both eras (lib/mcp/_tasks.ts), a task visible to its principal only, TTLs,
// finishing a task from outside, and McpClient waiting on a task by itself.
import assert from "node:assert/strict";
import { PassThrough } from "node:stream";
import {
  asTask,
  changeTask,
  createLinkedTransports,
  finishTask,
  isTerminalTaskStatus,
  JsonRpcError,
  type JsonRpcResponse,
  McpClient,
  McpServer,
  memoryTaskStore,
  newTaskRecord,
  type Principal,
  serveTransport,
  setTaskStatus,
  STATELESS_META,
  TASKS_EXTENSION,
  type TaskStore,
  type ToolHandler,
  ToolRegistry,
  visibleTask,
} from "../mod.ts";
import { ready, RETAIL, spec } from "./_mcp_fixtures.ts";
import {
  bearerTokens,
  serveHttp,
  StreamableHttpClientTransport,
} from "../lib/mcp/transports/http_mod.ts";
import { serveStdio } from "../lib/mcp/transports/stdio.ts";

const OTHER: Principal = { ...RETAIL, id: "retail-agent-2" };

const delay = (ms: number) => new Promise((r) => setTimeout(r, ms));
const resultOf = (r: JsonRpcResponse | undefined) =>
  (r as { result: Record<string, unknown> }).result;
const errorOf = (r: JsonRpcResponse | undefined) =>
  (r as { error: { code: number; message: string; data?: unknown } }).error;

/** A 2026-07-28 request, declaring the tasks extension unless `declare` is false. */
function req(
  id: number,
  method: string,
  params: Record<string, unknown> = {},
  declare = true,
) {
  return {
    jsonrpc: "2.0" as const,
    id,
    method,
    params: {
      ...params,
      _meta: {
        [STATELESS_META.protocolVersion]: "2026-07-28",
        [STATELESS_META.clientCapabilities]: declare
          ? { extensions: { [TASKS_EXTENSION]: {} } }
          : {},
      },
    },
  };
}

/** A tool every principal sees, with no arguments. */
function openSpec(name: string) {
  return spec(name, "1.0.0", {
    inputSchema: { type: "object", properties: { x: { type: "string" } } },
    requiredScopes: [],
  });
}

/** A server with tools `quick` (no task), `job` (a task that waits for `release`), `outside` (a
 * task finished from outside), `ask` (a task that asks the user), `crash` (fails). */
function taskServer(store: TaskStore = memoryTaskStore(), now?: () => number) {
  const registry = new ToolRegistry();
  for (const name of ["quick", "job", "outside", "ask", "crash", "fail", "required"]) {
    registry.publish(openSpec(name));
  }
  let release: () => void = () => {};
  const released = new Promise<void>((r) => release = r);
  const created: string[] = [];
  const handlers: Record<string, ToolHandler> = {
    quick: () => "done",
    job: () =>
      asTask({
        work: async (task) => {
          await task.setStatusMessage("waiting for release");
          await Promise.race([
            released,
            new Promise((r) => task.signal.addEventListener("abort", r, { once: true })),
          ]);
          return "job done";
        },
        pollIntervalMs: 20,
      }),
    outside: () =>
      asTask({
        statusMessage: "waiting for an approver",
        onCreated: (task) => {
          created.push(task.taskId);
        },
        pollIntervalMs: 20,
      }),
    ask: () =>
      asTask({
        work: async (task) => {
          const a = await task.elicit({
            message: "Name?",
            requestedSchema: { type: "object", properties: { name: { type: "string" } } },
          }, { key: "name" });
          return `Hello, ${a.content?.name}`;
        },
        pollIntervalMs: 20,
      }),
    crash: () =>
      asTask({
        work: () => {
          throw new Error("boom");
        },
      }),
    fail: () =>
      asTask({
        work: () => {
          throw new JsonRpcError(-32603, "Internal error: the core crashed", {
            data: { at: "core" },
          });
        },
      }),
    required: () => asTask({ required: true, work: () => "only as a task" }),
  };
  const server = new McpServer({
    registry,
    handlerFor: (s) => handlers[s.name],
    tasks: { store, waitPollMs: 10, taskSupport: () => "optional" },
    ...(now ? { now } : {}),
  });
  return { server, release, created, store };
}

async function until<T>(
  f: () => T | undefined | Promise<T | undefined>,
  ms = 2000,
): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await f();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error("timed out");
    await delay(10);
  }
}

Deno.test("visibleTask() shows a task to its owner only, and to nobody once its TTL has passed", () => {
  const task = newTaskRecord({ owner: "a", method: "tools/call", name: "t", now: 0, ttlMs: 100 });
  assert.equal(visibleTask(task, { principal: "a", now: 99 }), task);
  assert.equal(visibleTask(task, { principal: "b", now: 0 }), undefined);
  assert.equal(visibleTask(task, { principal: "a", now: 100 }), undefined);
  const forever = newTaskRecord({ owner: "a", method: "m", name: "t", now: 0, ttlMs: null });
  assert.equal(visibleTask(forever, { principal: "a", now: 1e15 }), forever);
});

Deno.test("changeTask() is a compare-and-set on the revision; a terminal task never changes", async () => {
  const store = memoryTaskStore();
  const task = newTaskRecord({ owner: "a", method: "tools/call", name: "t", now: 0 });
  store.create(task);
  assert.throws(() => store.create(task), /exists already/);
  // A stale revision loses.
  assert.equal(store.change({ ...task, revision: 1 }), false);
  assert.equal(store.change({ ...task, revision: 2, statusMessage: "x" }), true);
  assert.equal(store.change({ ...task, revision: 2, statusMessage: "y" }), false);
  const working = await setTaskStatus(store, {
    taskId: task.taskId,
    status: "input_required",
    statusMessage: "waiting",
  });
  assert.equal(working?.status, "input_required");
  const done = await finishTask(store, {
    taskId: task.taskId,
    outcome: { error: { code: -32603, message: "no" } },
  });
  assert.equal(done?.status, "failed");
  assert.ok(isTerminalTaskStatus(done!.status));
  const again = await finishTask(store, {
    taskId: task.taskId,
    outcome: { result: { content: [] } },
  });
  assert.equal(again?.status, "failed");
  assert.equal(again?.revision, done?.revision);
  assert.equal(await changeTask(store, { taskId: "nope", edit: (t) => t }), undefined);
});

Deno.test("2026-07-28: server/discover announces the extension; initialize announces 2025-11-25's tasks", async () => {
  const { server } = taskServer();
  const discover = resultOf(
    await server.handleStateless(req(1, "server/discover"), { principal: RETAIL }),
  );
  assert.deepEqual(
    (discover.capabilities as Record<string, unknown>).extensions,
    { [TASKS_EXTENSION]: {} },
  );
  assert.equal((discover.capabilities as Record<string, unknown>).tasks, undefined);
  const session = server.openSession({ principal: RETAIL, notify: () => {} });
  const init = resultOf(
    await server.handle({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {} },
    }, session),
  );
  assert.deepEqual((init.capabilities as Record<string, unknown>).tasks, {
    list: {},
    cancel: {},
    requests: { tools: { call: {} } },
  });
  server.close();
});

Deno.test("2026-07-28: a task-creating call answers CreateTaskResult; tasks/get inlines the result once done", async () => {
  const { server, release } = taskServer();
  const created = resultOf(
    await server.handleStateless(req(1, "tools/call", { name: "job" }), { principal: RETAIL }),
  );
  assert.equal(created.resultType, "task");
  assert.equal(created.status, "working");
  assert.equal(typeof created.taskId, "string");
  assert.ok(Number.isInteger(created.ttlMs) && (created.ttlMs as number) > 0);
  assert.equal(created.pollIntervalMs, 20);
  for (const absent of ["task", "result", "error", "inputRequests", "requestState", "ttl"]) {
    assert.ok(!(absent in created), absent);
  }
  const taskId = created.taskId as string;
  const working = resultOf(
    await server.handleStateless(req(2, "tasks/get", { taskId }), { principal: RETAIL }),
  );
  assert.equal(working.resultType, "complete");
  assert.equal(working.status, "working");
  assert.ok(!("result" in working));
  release();
  const done = await until(async () => {
    const got = resultOf(
      await server.handleStateless(req(3, "tasks/get", { taskId }), { principal: RETAIL }),
    );
    return got.status === "completed" ? got : undefined;
  });
  assert.deepEqual(done.result, { content: [{ type: "text", text: "job done" }] });
  assert.equal(done.statusMessage, "waiting for release");
  server.close();
});

Deno.test("2026-07-28: without the extension a call runs while it waits, a required one is -32021, tasks/* are -32021", async () => {
  const { server, release } = taskServer();
  release();
  const sync = resultOf(
    await server.handleStateless(req(1, "tools/call", { name: "job" }, false), {
      principal: RETAIL,
    }),
  );
  assert.equal(sync.resultType, "complete");
  assert.deepEqual(sync.content, [{ type: "text", text: "job done" }]);
  const required = errorOf(
    await server.handleStateless(req(2, "tools/call", { name: "required" }, false), {
      principal: RETAIL,
    }),
  );
  assert.equal(required.code, -32021);
  assert.deepEqual(required.data, {
    requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } },
  });
  for (const method of ["tasks/get", "tasks/update", "tasks/cancel"]) {
    const e = errorOf(
      await server.handleStateless(req(3, method, { taskId: "x", inputResponses: {} }, false), {
        principal: RETAIL,
      }),
    );
    assert.equal(e.code, -32021, method);
  }
  for (const method of ["tasks/result", "tasks/list"]) {
    const e = errorOf(
      await server.handleStateless(req(4, method, { taskId: "x" }), { principal: RETAIL }),
    );
    assert.equal(e.code, -32601, method);
  }
  server.close();
});

Deno.test("2026-07-28: another principal's task answers byte for byte as a nonexistent one (get, update, cancel)", async () => {
  const { server } = taskServer();
  const created = resultOf(
    await server.handleStateless(req(1, "tools/call", { name: "outside" }), { principal: RETAIL }),
  );
  const taskId = created.taskId as string;
  const missing = crypto.randomUUID();
  for (const method of ["tasks/get", "tasks/update", "tasks/cancel"]) {
    const params = (id: string) => ({ taskId: id, inputResponses: {} });
    const theirs = await server.handleStateless(req(7, method, params(taskId)), {
      principal: OTHER,
    });
    const none = await server.handleStateless(req(7, method, params(missing)), {
      principal: OTHER,
    });
    assert.equal(
      JSON.stringify(theirs).replace(taskId, "ID"),
      JSON.stringify(none).replace(missing, "ID"),
      method,
    );
    assert.equal(errorOf(theirs).code, -32602);
  }
  // The owner still sees it, working: nobody else cancelled it.
  const mine = resultOf(
    await server.handleStateless(req(8, "tasks/get", { taskId }), { principal: RETAIL }),
  );
  assert.equal(mine.status, "working");
  server.close();
});

Deno.test("2026-07-28: a task's ask surfaces as inputRequests; tasks/update answers it and the task completes", async () => {
  const { server } = taskServer();
  const taskId = resultOf(
    await server.handleStateless(req(1, "tools/call", { name: "ask" }), { principal: RETAIL }),
  ).taskId as string;
  const asking = await until(async () => {
    const got = resultOf(
      await server.handleStateless(req(2, "tasks/get", { taskId }), { principal: RETAIL }),
    );
    return got.status === "input_required" ? got : undefined;
  });
  assert.deepEqual(Object.keys(asking.inputRequests as object), ["name"]);
  assert.equal(
    (asking.inputRequests as Record<string, { method: string }>).name.method,
    "elicitation/create",
  );
  // An unknown key is ignored, and acknowledged.
  const ack = resultOf(
    await server.handleStateless(
      req(3, "tasks/update", { taskId, inputResponses: { other: { action: "accept" } } }),
      { principal: RETAIL },
    ),
  );
  assert.equal(ack.resultType, "complete");
  assert.ok(!("taskId" in ack));
  await server.handleStateless(
    req(4, "tasks/update", {
      taskId,
      inputResponses: { name: { action: "accept", content: { name: "Ana" } } },
    }),
    { principal: RETAIL },
  );
  const done = await until(async () => {
    const got = resultOf(
      await server.handleStateless(req(5, "tasks/get", { taskId }), { principal: RETAIL }),
    );
    return got.status === "completed" ? got : undefined;
  });
  assert.deepEqual(done.result, { content: [{ type: "text", text: "Hello, Ana" }] });
  server.close();
});

Deno.test("tasks: a task finished from outside, through the store, is what tasks/get and tasks/result answer", async () => {
  const { server, created, store } = taskServer();
  const taskId = resultOf(
    await server.handleStateless(req(1, "tools/call", { name: "outside" }), { principal: RETAIL }),
  ).taskId as string;
  assert.deepEqual(created, [taskId]);
  // Its status and message, set from outside, are what tasks/get answers.
  await setTaskStatus(store, {
    taskId,
    status: "working",
    statusMessage: "with the second approver",
  });
  const seen = resultOf(
    await server.handleStateless(req(9, "tasks/get", { taskId }), { principal: RETAIL }),
  );
  assert.deepEqual([seen.status, seen.statusMessage], ["working", "with the second approver"]);
  // A handshake session of the same principal waits on tasks/result meanwhile.
  const session = await ready(server, RETAIL);
  const waiting = server.handle({
    jsonrpc: "2.0",
    id: 2,
    method: "tasks/result",
    params: { taskId },
  }, session);
  await delay(30);
  await finishTask(store, {
    taskId,
    outcome: { result: { content: [{ type: "text", text: "approved" }] }, statusMessage: "ok" },
  });
  const result = resultOf(await waiting);
  assert.deepEqual(result.content, [{ type: "text", text: "approved" }]);
  assert.deepEqual(
    (result._meta as Record<string, unknown>)[
      "io.modelcontextprotocol/related-task"
    ],
    { taskId },
  );
  const got = resultOf(
    await server.handleStateless(req(3, "tasks/get", { taskId }), { principal: RETAIL }),
  );
  assert.equal(got.status, "completed");
  assert.equal(got.statusMessage, "ok");
  server.close();
});

Deno.test("2025-11-25: the task param makes a task; tasks/get, tasks/list (paged, own only), tasks/result, tasks/cancel", async () => {
  const { server, release } = taskServer();
  const session = await ready(server, RETAIL);
  const other = await ready(server, OTHER);
  let id = 10;
  const send = (s: typeof session, method: string, params: Record<string, unknown>) =>
    server.handle({ jsonrpc: "2.0", id: ++id, method, params }, s);
  // tools/list says which tools run as tasks.
  const listed = resultOf(await send(session, "tools/list", {})).tools as Record<string, unknown>[];
  assert.deepEqual(listed.find((t) => t.name === "job")?.execution, { taskSupport: "optional" });
  const created = resultOf(
    await send(session, "tools/call", { name: "job", task: { ttl: 60000 } }),
  );
  const task = created.task as Record<string, unknown>;
  assert.equal(task.status, "working");
  assert.equal(task.ttl, 60000);
  assert.equal(task.pollInterval, 20);
  const taskId = task.taskId as string;
  const got = resultOf(await send(session, "tasks/get", { taskId }));
  assert.equal(got.taskId, taskId);
  assert.ok(!("result" in got));
  // Three more tasks, to page through.
  for (let i = 0; i < 3; i++) await send(session, "tools/call", { name: "outside", task: {} });
  const firstPage = resultOf(await send(session, "tasks/list", {}));
  assert.equal((firstPage.tasks as unknown[]).length, 4);
  // The other principal lists none, and its view of the id is a nonexistent one's.
  assert.deepEqual(resultOf(await send(other, "tasks/list", {})).tasks, []);
  for (const method of ["tasks/get", "tasks/result", "tasks/cancel"]) {
    const theirs = await send(other, method, { taskId });
    const none = await send(other, method, { taskId: "00000000-0000-4000-8000-000000000000" });
    assert.equal(
      JSON.stringify({ ...theirs, id: 0 }).replace(taskId, "ID"),
      JSON.stringify({ ...none, id: 0 }).replace("00000000-0000-4000-8000-000000000000", "ID"),
      method,
    );
  }
  const result = send(session, "tasks/result", { taskId });
  release();
  assert.deepEqual(resultOf(await result).content, [{ type: "text", text: "job done" }]);
  // Cancelling an ended task is -32602; a working one is cancelled and answered with its state.
  assert.equal(errorOf(await send(session, "tasks/cancel", { taskId })).code, -32602);
  const open = (resultOf(await send(session, "tasks/list", {})).tasks as Record<string, unknown>[])
    .find((t) => t.status === "working")!;
  const cancelled = resultOf(await send(session, "tasks/cancel", { taskId: open.taskId }));
  assert.equal(cancelled.status, "cancelled");
  server.close();
});

Deno.test("2025-11-25: tasks/list pages like the other lists", async () => {
  const registry = new ToolRegistry();
  registry.publish(openSpec("outside"));
  const server = new McpServer({
    registry,
    handlerFor: () => () => asTask({}),
    pageSize: 2,
  });
  const session = await ready(server, RETAIL);
  let id = 0;
  const send = (method: string, params: Record<string, unknown>) =>
    server.handle({ jsonrpc: "2.0", id: ++id, method, params }, session);
  for (let i = 0; i < 5; i++) await send("tools/call", { name: "outside", task: {} });
  const seen: string[] = [];
  let cursor: unknown = undefined;
  do {
    const page = resultOf(await send("tasks/list", cursor === undefined ? {} : { cursor }));
    for (const t of page.tasks as { taskId: string }[]) seen.push(t.taskId);
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  assert.equal(seen.length, 5);
  assert.equal(new Set(seen).size, 5);
  assert.equal(errorOf(await send("tasks/list", { cursor: "bogus" })).code, -32602);
  server.close();
});

Deno.test("tasks: an expired task answers as a nonexistent one, and is removed", async () => {
  let now = Date.parse("2026-12-01T00:00:00Z");
  const store = memoryTaskStore();
  const registry = new ToolRegistry();
  registry.publish(openSpec("outside"));
  const server = new McpServer({
    registry,
    handlerFor: () => () => asTask({ ttlMs: 1000 }),
    tasks: { store },
    now: () => now,
  });
  const taskId = resultOf(
    await server.handleStateless(req(1, "tools/call", { name: "outside" }), { principal: RETAIL }),
  ).taskId as string;
  now += 999;
  assert.equal(
    resultOf(await server.handleStateless(req(2, "tasks/get", { taskId }), { principal: RETAIL }))
      .status,
    "working",
  );
  now += 1;
  const gone = errorOf(
    await server.handleStateless(req(3, "tasks/get", { taskId }), { principal: RETAIL }),
  );
  assert.equal(gone.code, -32602);
  assert.equal(gone.message, `Unknown task: ${taskId}`);
  assert.equal(store.get(taskId), undefined);
  server.close();
});

Deno.test("tasks: a work's JSON-RPC error fails the task; any other throw completes it as a tool error", async () => {
  const { server } = taskServer();
  const taskId = resultOf(
    await server.handleStateless(req(1, "tools/call", { name: "crash" }), { principal: RETAIL }),
  ).taskId as string;
  const done = await until(async () => {
    const got = resultOf(
      await server.handleStateless(req(2, "tasks/get", { taskId }), { principal: RETAIL }),
    );
    return got.status === "working" ? undefined : got;
  });
  assert.equal(done.status, "completed");
  assert.equal((done.result as { isError?: boolean }).isError, true);
  assert.ok(!("error" in done));
  const failedId = resultOf(
    await server.handleStateless(req(3, "tools/call", { name: "fail" }), { principal: RETAIL }),
  ).taskId as string;
  const failed = await until(async () => {
    const got = resultOf(
      await server.handleStateless(req(4, "tasks/get", { taskId: failedId }), {
        principal: RETAIL,
      }),
    );
    return got.status === "working" ? undefined : got;
  });
  assert.equal(failed.status, "failed");
  assert.deepEqual(failed.error, {
    code: -32603,
    message: "Internal error: the core crashed",
    data: { at: "core" },
  });
  assert.ok(!("result" in failed));
  server.close();
});

Deno.test("2026-07-28: tasks/cancel acknowledges empty, cancels a working task, and again on an ended one", async () => {
  const { server } = taskServer();
  const taskId = resultOf(
    await server.handleStateless(req(1, "tools/call", { name: "job" }), { principal: RETAIL }),
  ).taskId as string;
  const ack = resultOf(
    await server.handleStateless(req(2, "tasks/cancel", { taskId }), { principal: RETAIL }),
  );
  assert.deepEqual(Object.keys(ack).filter((k) => k !== "_meta"), ["resultType"]);
  const got = resultOf(
    await server.handleStateless(req(3, "tasks/get", { taskId }), { principal: RETAIL }),
  );
  assert.equal(got.status, "cancelled");
  const again = resultOf(
    await server.handleStateless(req(4, "tasks/cancel", { taskId }), { principal: RETAIL }),
  );
  assert.equal(again.resultType, "complete");
  server.close();
});

for (const era of ["stateless", "handshake"] as const) {
  Deno.test(`McpClient (${era}) waits on a task by itself and returns the call's result`, async () => {
    const { server, release } = taskServer();
    const [near, far] = createLinkedTransports();
    serveTransport({ server, transport: far, principal: RETAIL, stateless: era === "stateless" });
    const client = new McpClient(near, {
      era,
      serverRequests: {
        elicitation: { form: () => ({ action: "accept", content: { name: "Bo" } }) },
      },
    });
    await client.connect();
    if (era === "handshake") {
      // Not listed yet: sent without the task param, refused -32601, listed, sent as a task.
      const required = await client.callTool("required", {});
      assert.equal(required.kind, "ok", JSON.stringify(required));
      assert.deepEqual((required as { result: { content: unknown } }).result.content, [
        { type: "text", text: "only as a task" },
      ]);
    }
    setTimeout(release, 50);
    const outcome = await client.callTool("job", {});
    assert.equal(outcome.kind, "ok");
    assert.deepEqual((outcome as { result: { content: unknown } }).result.content, [
      { type: "text", text: "job done" },
    ]);
    if (era === "stateless") {
      const asked = await client.callTool("ask", {});
      assert.equal(asked.kind, "ok");
      assert.deepEqual((asked as { result: { content: unknown } }).result.content, [
        { type: "text", text: "Hello, Bo" },
      ]);
    }
    await client.close();
    server.close();
  });
}

Deno.test("2026-07-28: subscriptions/listen with taskIds sends notifications/tasks as the caller's tasks change", async () => {
  const { server, release } = taskServer();
  const taskId = resultOf(
    await server.handleStateless(req(1, "tools/call", { name: "job" }), { principal: RETAIL }),
  ).taskId as string;
  const notes: { method: string; params: Record<string, unknown> }[] = [];
  const controller = new AbortController();
  const listening = server.handleStateless(
    req(2, "subscriptions/listen", {
      notifications: { taskIds: [taskId, crypto.randomUUID()] },
    }),
    {
      principal: RETAIL,
      notify: (m) => notes.push(m as unknown as (typeof notes)[number]),
      signal: controller.signal,
    },
  );
  const ack = await until(() =>
    notes.find((n) => n.method === "notifications/subscriptions/acknowledged")
  );
  // Only the caller's own task is agreed to.
  assert.deepEqual((ack.params.notifications as Record<string, unknown>).taskIds, [taskId]);
  release();
  const done = await until(() =>
    notes.find((n) => n.method === "notifications/tasks" && n.params.status === "completed")
  );
  assert.equal(done.params.taskId, taskId);
  assert.deepEqual(done.params.result, { content: [{ type: "text", text: "job done" }] });
  controller.abort();
  await listening;
  // Asking for task ids without the extension is -32021.
  const refused = errorOf(
    await server.handleStateless(
      req(3, "subscriptions/listen", { notifications: { taskIds: [taskId] } }, false),
      { principal: RETAIL },
    ),
  );
  assert.equal(refused.code, -32021);
  server.close();
});

Deno.test("over Streamable HTTP: McpClient in both eras waits on tasks; another principal's token sees none of them", async () => {
  const { server, release } = taskServer();
  const http = await serveHttp(server, {
    authenticate: bearerTokens([{ ...RETAIL, token: "retail" }, { ...OTHER, token: "other" }]),
    keepAliveMs: 0,
  });
  try {
    release();
    for (const era of ["stateless", "handshake"] as const) {
      const client = new McpClient(
        new StreamableHttpClientTransport(http.url, {
          headers: { authorization: "Bearer retail" },
        }),
        { era },
      );
      await client.connect();
      const outcome = await client.callTool("required", {});
      assert.equal(outcome.kind, "ok", `${era}: ${JSON.stringify(outcome)}`);
      assert.deepEqual((outcome as { result: { content: unknown } }).result.content, [
        { type: "text", text: "only as a task" },
      ]);
      await client.close();
    }
    // A raw 2026-07-28 POST: tasks/get needs Mcp-Name = taskId; another principal is told
    // exactly what a nonexistent id is told.
    const post = (token: string, method: string, params: Record<string, unknown>, name?: string) =>
      fetch(http.url, {
        method: "POST",
        headers: {
          authorization: `Bearer ${token}`,
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "mcp-protocol-version": "2026-07-28",
          "mcp-method": method,
          ...(name === undefined ? {} : { "mcp-name": name }),
        },
        body: JSON.stringify(req(1, method, params)),
      });
    const created = await (await post("retail", "tools/call", { name: "outside" }, "outside"))
      .json();
    const taskId = created.result.taskId as string;
    const missing = crypto.randomUUID();
    const noHeader = await post("retail", "tasks/get", { taskId });
    assert.equal(noHeader.status, 400);
    assert.equal((await noHeader.json()).error.code, -32020);
    const theirs = await post("other", "tasks/get", { taskId }, taskId);
    const none = await post("other", "tasks/get", { taskId: missing }, missing);
    assert.equal(theirs.status, none.status);
    assert.equal(
      (await theirs.text()).replace(taskId, "ID"),
      (await none.text()).replace(missing, "ID"),
    );
    const mine = await post("retail", "tasks/get", { taskId }, taskId);
    assert.equal((await mine.json()).result.status, "working");
  } finally {
    await http.close();
    server.close();
  }
});

Deno.test("over stdio: a 2025-11-25 task, its status notifications, and tasks/result; a 2026-07-28 task beside it", async () => {
  const { server, release } = taskServer();
  const input = new PassThrough();
  const output = new PassThrough();
  const lines: Record<string, unknown>[] = [];
  let buffer = "";
  output.on("data", (c: Uint8Array) => {
    buffer += new TextDecoder().decode(c);
    let nl;
    while ((nl = buffer.indexOf("\n")) !== -1) {
      lines.push(JSON.parse(buffer.slice(0, nl)));
      buffer = buffer.slice(nl + 1);
    }
  });
  const done = serveStdio(server, { principal: RETAIL, input, output });
  const send = (m: unknown) => input.write(JSON.stringify(m) + "\n");
  const line = (pred: (l: Record<string, unknown>) => boolean) => until(() => lines.find(pred));
  send({
    jsonrpc: "2.0",
    id: "init",
    method: "initialize",
    params: { protocolVersion: "2025-11-25", capabilities: {} },
  });
  await line((l) => l.id === "init");
  send({ jsonrpc: "2.0", method: "notifications/initialized" });
  send({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "job", task: {} } });
  const created = await line((l) => l.id === 1);
  const taskId = ((created.result as Record<string, unknown>).task as { taskId: string }).taskId;
  send({ jsonrpc: "2.0", id: 2, method: "tasks/result", params: { taskId } });
  send(req(3, "tools/call", { name: "outside" }));
  const modern = await line((l) => l.id === 3);
  assert.equal((modern.result as Record<string, unknown>).resultType, "task");
  release();
  const result = await line((l) => l.id === 2);
  assert.deepEqual((result.result as Record<string, unknown>).content, [
    { type: "text", text: "job done" },
  ]);
  const statuses = lines.filter((l) => l.method === "notifications/tasks/status")
    .map((l) => (l.params as Record<string, unknown>).status);
  assert.ok(statuses.includes("completed"), JSON.stringify(statuses));
  input.end();
  await done;
  server.close();
});

Deno.test("TaskOptions.taskFor turns a call into a task before its handler runs; finished from outside with the handler's result", async () => {
  const store = memoryTaskStore();
  const registry = new ToolRegistry();
  registry.publish(openSpec("payments.release"));
  let ran = 0;
  const handler: ToolHandler = (args) => {
    ran++;
    return `released ${args.x}`;
  };
  const held: { taskId: string; args: Record<string, unknown> }[] = [];
  const server = new McpServer({
    registry,
    handlerFor: () => handler,
    tasks: {
      store,
      waitPollMs: 10,
      taskFor: ({ spec, args, canTakeTask }) =>
        spec.name === "payments.release" && canTakeTask
          ? {
            statusMessage: "waiting for a second approver",
            onCreated: (task) => {
              held.push({ taskId: task.taskId, args });
            },
          }
          : undefined,
    },
  });
  const created = resultOf(
    await server.handleStateless(
      req(1, "tools/call", { name: "payments.release", arguments: { x: "PMT-1" } }),
      {
        principal: RETAIL,
      },
    ),
  );
  assert.equal(created.resultType, "task");
  assert.equal(created.statusMessage, "waiting for a second approver");
  assert.equal(ran, 0, "the handler waits for the approval");
  // The approver approves: the held call runs, and its result finishes the task.
  const [{ taskId, args }] = held;
  const result = await handler(args, {} as never) as string;
  await finishTask(store, {
    taskId,
    outcome: { result: { content: [{ type: "text", text: result }] }, statusMessage: "approved" },
  });
  const got = resultOf(
    await server.handleStateless(req(2, "tasks/get", { taskId }), { principal: RETAIL }),
  );
  assert.equal(got.status, "completed");
  assert.deepEqual(got.result, { content: [{ type: "text", text: "released PMT-1" }] });
  // A client that cannot take a task is not planned one: the handler runs at once.
  const sync = resultOf(
    await server.handleStateless(
      req(3, "tools/call", { name: "payments.release", arguments: { x: "PMT-2" } }, false),
      { principal: RETAIL },
    ),
  );
  assert.deepEqual(sync.content, [{ type: "text", text: "released PMT-2" }]);
  server.close();
});
