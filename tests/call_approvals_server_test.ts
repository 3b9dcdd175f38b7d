/**
 * Calls that wait on a person, served: a `tools/call` the estate's `callApprovals` hold becomes a
 * task and a pending call (nothing runs); an approver decides it through the approver's tools
 * (`approvals.decide`) — never the caller, and nobody who cannot see the tool — and the call runs
 * once, with exactly the arguments approved, on whichever replica claims it; a rejected call's
 * task ends with the reason, a lapsed one's says nobody approved it, and neither runs. Two servers
 * sharing the stores stand for two replicas; `McpClient` waits on the task by itself in both eras.
 */
import assert from "node:assert/strict";
import {
  type CallRecord,
  createLinkedTransports,
  type JsonRpcResponse,
  McpClient,
  McpServer,
  memoryPendingCalls,
  memoryTaskStore,
  PENDING_CALL_TOOL_SPECS,
  pendingCallHandlers,
  type PendingCallStore,
  type Principal,
  serveTransport,
  STATELESS_META,
  TASKS_EXTENSION,
  type TaskStore,
  type ToolHandler,
  ToolRegistry,
} from "../mod.ts";
import {
  APPROVER,
  ARGS,
  BLIND,
  CALLER,
  RELEASE as IRREVERSIBLE,
  RULE,
  T0,
} from "./_pending_calls.ts";

// The example's payments.release, as a `write` tool: an irreversible one asks the caller's user to
// confirm first (tests/confirmation_test.ts), which these tests leave out.
const RELEASE = { ...IRREVERSIBLE, sideEffect: "write" as const };

function resultOf(r: JsonRpcResponse | undefined): Record<string, unknown> {
  const result = (r as { result?: Record<string, unknown> }).result;
  assert.ok(result, JSON.stringify(r));
  return result;
}

/** A 2026-07-28 request declaring the tasks extension. */
function req(id: number, method: string, params: Record<string, unknown> = {}) {
  return {
    jsonrpc: "2.0" as const,
    id,
    method,
    params: {
      ...params,
      _meta: {
        [STATELESS_META.protocolVersion]: "2026-07-28",
        [STATELESS_META.clientCapabilities]: { extensions: { [TASKS_EXTENSION]: {} } },
      },
    },
  };
}

/** The shared state of the "replicas": one estate, one store of pending calls and of tasks. */
interface Shared {
  registry: ToolRegistry;
  pending: PendingCallStore;
  tasks: TaskStore;
  clock: { t: number };
  /** Every run of payments.release: the arguments it ran with. */
  runs: Record<string, unknown>[];
  log: CallRecord[];
}

function shared(): Shared {
  const registry = new ToolRegistry();
  registry.publish(RELEASE);
  for (const s of PENDING_CALL_TOOL_SPECS) registry.publish(s);
  return {
    registry,
    pending: memoryPendingCalls(),
    tasks: memoryTaskStore(),
    clock: { t: T0 },
    runs: [],
    log: [],
  };
}

/** One replica over the shared state. */
function replica(s: Shared): McpServer {
  const release: ToolHandler = (args) => {
    s.runs.push(structuredClone(args));
    return { content: [{ type: "text", text: `released ${args.reference}` }] };
  };
  const self: { server?: McpServer } = {};
  const approverTools = pendingCallHandlers({
    store: s.pending,
    specOf: (tool, version) => s.registry.version(tool, version)?.spec,
    now: () => s.clock.t,
    tasks: s.tasks,
  }, () => void self.server?.sweepPendingCalls());
  const server = self.server = new McpServer({
    registry: s.registry,
    now: () => s.clock.t,
    handlerFor: (spec) => approverTools(spec) ?? (spec.name === RELEASE.name ? release : undefined),
    tasks: { store: s.tasks, waitPollMs: 10, pollIntervalMs: 10 },
    callApprovals: { rules: () => [RULE], pendingCalls: s.pending, sweepMs: 20 },
    onCall: (r) => s.log.push(r),
  });
  return server;
}

async function call(server: McpServer, who: Principal, id: number, name: string, args: unknown) {
  return resultOf(
    await server.handleStateless(req(id, "tools/call", { name, arguments: args }), {
      principal: who,
    }),
  );
}

async function taskOf(server: McpServer, who: Principal, taskId: string) {
  return await server.handleStateless(req(99, "tasks/get", { taskId }), { principal: who });
}

Deno.test("a held call becomes a task; approved on another replica, it runs once with the approved arguments", async () => {
  const s = shared();
  const [a, b] = [replica(s), replica(s)];
  try {
    // Below the amount: runs at once.
    const small = await call(a, CALLER, 1, RELEASE.name, { ...ARGS, approvedAmount: 500 });
    assert.deepEqual(small.content, [{ type: "text", text: "released PMT-004211" }]);
    assert.equal(s.runs.length, 1);

    const held = await call(a, CALLER, 2, RELEASE.name, ARGS);
    assert.equal(held.resultType, "task", JSON.stringify(held));
    const taskId = held.taskId as string;
    assert.equal(held.status, "working");
    assert.match(
      held.statusMessage as string,
      /Waiting for approval \(payments\.release, \$\.approvedAmount above 10000: approved by a holder of payments:approve\)/,
    );
    assert.equal(s.runs.length, 1, "nothing ran");
    assert.equal((await s.pending.get(taskId))?.state, "pending");
    assert.equal(s.log.at(-1)?.outcome, "held");

    // The caller cannot approve its own call; one blind to the tool is told it does not exist.
    const own = await call(b, CALLER, 3, "approvals.decide", { id: taskId, decision: "approve" });
    assert.equal(own.isError, true);
    assert.match((own.content as { text: string }[])[0].text, /their own call/);
    const blind = await call(b, BLIND, 4, "approvals.decide", { id: taskId, decision: "approve" });
    assert.equal((blind.content as { text: string }[])[0].text, `No pending call ${taskId}`);
    // The approver cannot read the caller's task: exactly as a task that does not exist.
    const theirs = JSON.stringify(await taskOf(b, APPROVER, taskId)).replace(taskId, "ID");
    const none = crypto.randomUUID();
    assert.equal(theirs, JSON.stringify(await taskOf(b, APPROVER, none)).replace(none, "ID"));

    // The approver approves on replica b; whichever replica claims it runs it, once.
    const ok = await call(b, APPROVER, 5, "approvals.decide", {
      id: taskId,
      decision: "approve",
      reason: "checked with treasury",
    });
    assert.equal(ok.isError, undefined, JSON.stringify(ok));
    await Promise.all([a.sweepPendingCalls(), b.sweepPendingCalls()]);
    await Promise.all([a.sweepPendingCalls(), b.sweepPendingCalls()]);
    assert.equal(s.runs.length, 2, "ran once");
    assert.deepEqual(s.runs[1], ARGS);
    assert.equal((await s.pending.get(taskId))?.state, "ran");

    // The caller's task, read on replica a: completed with the call's result.
    const task = resultOf(await taskOf(a, CALLER, taskId));
    assert.equal(task.status, "completed", JSON.stringify(task));
    assert.match(
      task.statusMessage as string,
      /Approved by treasury-lead \(checked with treasury\); ran/,
    );
    const final = resultOf(
      await a.handleStateless(req(6, "tasks/get", { taskId }), { principal: CALLER }),
    );
    assert.deepEqual((final.result as { content: unknown }).content ?? final.content, [
      { type: "text", text: "released PMT-004211" },
    ]);
    assert.deepEqual(
      s.log.filter((r) => r.tool === RELEASE.name).map((r) => r.outcome),
      ["ok", "held", "ok"],
    );
  } finally {
    a.close();
    b.close();
  }
});

Deno.test("a rejected call's task ends with the reason, a lapsed one's says nobody approved it; neither runs", async () => {
  const s = shared();
  const a = replica(s);
  try {
    const rejected = (await call(a, CALLER, 1, RELEASE.name, ARGS)).taskId as string;
    const lapsed = (await call(a, CALLER, 2, RELEASE.name, { ...ARGS, reference: "PMT-000001" }))
      .taskId as string;
    const no = await call(a, APPROVER, 3, "approvals.decide", { id: rejected, decision: "reject" });
    assert.equal(no.isError, true, "a rejection needs a reason");
    const yes = await call(a, APPROVER, 4, "approvals.decide", {
      id: rejected,
      decision: "reject",
      reason: "split it in two",
    });
    assert.equal(yes.isError, undefined);
    let task = resultOf(await taskOf(a, CALLER, rejected));
    assert.equal(task.status, "completed");
    assert.equal(task.statusMessage, "rejected by treasury-lead: split it in two");

    s.clock.t += 31 * 60_000; // past the rule's 30 minutes
    await a.sweepPendingCalls();
    task = resultOf(await taskOf(a, CALLER, lapsed));
    assert.equal(task.status, "completed");
    assert.match(task.statusMessage as string, /^nobody approved it by 2026-12-04T09:30:00\.000Z$/);
    assert.equal((await s.pending.get(lapsed))?.state, "expired");
    const late = await call(a, APPROVER, 5, "approvals.decide", {
      id: lapsed,
      decision: "approve",
    });
    assert.match(
      (late.content as { text: string }[])[0].text,
      /expired at .* undecided; it will not run/,
    );
    assert.deepEqual(s.runs, []);
  } finally {
    a.close();
  }
});

for (const era of ["stateless", "handshake"] as const) {
  Deno.test(`McpClient (${era}) waits on a held call by itself until an approver on another replica approves it`, async () => {
    const s = shared();
    const [a, b] = [replica(s), replica(s)];
    const [near, far] = createLinkedTransports();
    serveTransport({ server: a, transport: far, principal: CALLER, stateless: true });
    const client = new McpClient(near, { era });
    await client.connect();
    try {
      if (era === "handshake") {
        // A tool whose calls a rule may hold is listed as taking a task: the client asks for one.
        const listed = (await client.listTools()).find((t) => t.name === RELEASE.name);
        assert.deepEqual(listed?.execution, { taskSupport: "optional" });
      }
      const calling = client.callTool(RELEASE.name, ARGS);
      let id: string | undefined;
      for (let i = 0; !id && i < 500; i++) {
        await new Promise((r) => setTimeout(r, 10));
        id = (await s.pending.list())[0]?.id;
      }
      assert.ok(id, "the call is held");
      assert.equal(s.runs.length, 0);
      const ok = await call(b, APPROVER, 1, "approvals.decide", { id, decision: "approve" });
      assert.equal(ok.isError, undefined);
      const outcome = await calling;
      assert.equal(outcome.kind, "ok", JSON.stringify(outcome));
      assert.deepEqual((outcome as { result: { content: unknown } }).result.content, [
        { type: "text", text: "released PMT-004211" },
      ]);
      assert.deepEqual(s.runs, [ARGS]);
    } finally {
      await client.close();
      a.close();
      b.close();
    }
  });
}
