/**
 * The pending-call desk (`lib/estate/pending_calls.ts`) over each store that keeps pending calls —
 * in memory, the folder's `.pending-calls/` — and the two surfaces on top of it: `estate approvals`
 * and the approver's MCP tools (`approvals.pending`, `approvals.decide`). Who sees what: the caller
 * and an approver who may see the tool; anyone else is told exactly what an unknown id tells. A
 * decision is made once (two approvers at once: one wins), an approved call is claimed to run
 * once, and a call nobody decided in time expires and is never run.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import {
  holdCall,
  memoryPendingCalls,
  PENDING_CALL_TOOL_SPECS,
  pendingCallHandlers,
  type Principal,
  type ToolContext,
  type ToolSpec,
} from "../mod.ts";
import { EstateDir } from "../lib/store/mod.ts";
import { ROOT } from "./_serve.ts";
import { estate } from "./_cli.ts";
import {
  APPROVER,
  APPROVER2,
  ARGS,
  BLIND,
  CALLER,
  deskContract,
  deskOver,
  RELEASE,
  RULE,
  STRANGER,
  T0,
} from "./_pending_calls.ts";

Deno.test("the pending-call desk over the in-memory store", async () => {
  await deskContract(memoryPendingCalls());
});

Deno.test("the pending-call desk over the folder store: .pending-calls/, ignored by git", async () => {
  const dir = Deno.makeTempDirSync({ prefix: "pending-calls-" });
  try {
    fs.cpSync(path.join(ROOT, "corpus"), dir, { recursive: true });
    const store = EstateDir.open(dir).pendingCalls();
    await deskContract(store);
    const files = fs.readdirSync(path.join(dir, ".pending-calls")).filter((f) =>
      f.endsWith(".json")
    );
    assert.equal(files.length, 2);
    assert.equal(fs.readFileSync(path.join(dir, ".pending-calls/.gitignore"), "utf8"), "*\n");
    // Another process's view (a second EstateDir on the folder) sees the same calls.
    assert.equal((await EstateDir.open(dir).pendingCalls().list()).length, 2);
    assert.equal(store.get("../principals"), undefined, "an id that is no UUID names no file");
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

/** A context for calling a tool handler directly as `principal`. */
function context(principal: Principal, spec: ToolSpec): ToolContext {
  return {
    principal,
    spec,
    signal: new AbortController().signal,
    progress: () => {},
    log: () => {},
    clientCapabilities: {},
    sample: () => Promise.reject(new Error("no")),
    elicit: () => Promise.reject(new Error("no")),
    listRoots: () => Promise.reject(new Error("no")),
  } as ToolContext;
}

Deno.test("approvals.pending and approvals.decide answer for their caller only", async () => {
  const clock = { t: T0 };
  const desk = deskOver(memoryPendingCalls(), clock);
  const handlerFor = pendingCallHandlers(desk);
  const [listSpec, decideSpec] = PENDING_CALL_TOOL_SPECS;
  const list = handlerFor(listSpec)!;
  const decide = handlerFor(decideSpec)!;
  assert.equal(handlerFor(RELEASE), undefined);
  const call = await holdCall(desk, {
    spec: RELEASE,
    principal: CALLER,
    arguments: ARGS,
    rule: RULE,
  });

  type Result = { content: { text: string }[]; structuredContent: Record<string, unknown> };
  const as = async (p: Principal, h: typeof list, args: Record<string, unknown>) =>
    await h(args, context(p, h === list ? listSpec : decideSpec)) as Result & {
      isError?: boolean;
    };
  assert.deepEqual((await as(APPROVER, list, {})).structuredContent.calls, [call]);
  assert.deepEqual((await as(BLIND, list, {})).structuredContent.calls, []);
  assert.equal((await as(STRANGER, list, {})).content[0].text, "No pending calls.");

  // A stranger deciding a real id and anyone deciding an unknown one get the same answer.
  const unknown = crypto.randomUUID();
  const strangerAnswer = await as(STRANGER, decide, { id: call.id, decision: "approve" });
  const unknownAnswer = await as(STRANGER, decide, { id: unknown, decision: "approve" });
  assert.equal(strangerAnswer.isError, true);
  assert.deepEqual(
    JSON.parse(JSON.stringify(strangerAnswer).replaceAll(call.id, "ID")),
    JSON.parse(JSON.stringify(unknownAnswer).replaceAll(unknown, "ID")),
  );
  const own = await as(CALLER, decide, { id: call.id, decision: "approve" });
  assert.equal(own.isError, true);
  assert.match(own.content[0].text, /it is their own call/);
  const ok = await as(APPROVER, decide, { id: call.id, decision: "approve", reason: "checked" });
  assert.equal(ok.isError, undefined);
  assert.match(ok.content[0].text, /^Approved payments\.release@1\.0\.0 call .* it runs once/);
  assert.equal((await desk.store.get(call.id))?.state, "approved");
});

Deno.test("estate approvals: list, approve and reject as a principal of principals.json", async () => {
  const dir = Deno.makeTempDirSync({ prefix: "approvals-cli-" });
  try {
    fs.cpSync(path.join(ROOT, "corpus"), dir, { recursive: true });
    const principals = JSON.parse(fs.readFileSync(path.join(dir, "principals.json"), "utf8"));
    principals.push(
      { ...APPROVER, description: "Approves large releases." },
      { ...APPROVER2, description: "Approves large releases too." },
    );
    fs.writeFileSync(path.join(dir, "principals.json"), JSON.stringify(principals, null, 2));
    const now = () => new Date(T0 + 60_000);
    const desk = deskOver(EstateDir.open(dir).pendingCalls(), { t: T0 });
    const a = await holdCall(desk, {
      spec: RELEASE,
      principal: CALLER,
      arguments: ARGS,
      rule: RULE,
    });
    const b = await holdCall(desk, {
      spec: RELEASE,
      principal: CALLER,
      arguments: { ...ARGS, approvedAmount: 12_500 },
      rule: RULE,
    });
    const run = (args: string[]) => estate(["approvals", ...args, "--estate", dir], dir, now);

    let r = await run(["--as", "treasury-lead"]);
    assert.equal(r.code, 0, r.err);
    assert.ok(r.out.includes(a.id) && r.out.includes(b.id), r.out);
    assert.match(
      r.out,
      /payments\.release@1\.0\.0\s+pending\s+by wholesale-operator \(wholesale\)/,
    );
    r = await run(["--as", "group-risk-analyst"]);
    assert.equal(r.out, "no pending calls\n");
    r = await run(["--as", "nobody"]);
    assert.equal(r.code, 2);
    assert.match(r.err, /--as nobody: no such principal/);

    r = await run(["approve", a.id.slice(0, 8), "--as", "wholesale-operator"]);
    assert.equal(r.code, 1);
    assert.match(r.out, /it is their own call/);
    r = await run(["approve", a.id.slice(0, 8), "--as", "group-risk-analyst"]);
    assert.equal(r.code, 1);
    assert.equal(r.out, `No pending call ${a.id.slice(0, 8)}\n`);
    r = await run(["approve", a.id.slice(0, 8), "--as", "treasury-lead", "--note", "checked"]);
    assert.equal(r.code, 0, r.out + r.err);
    assert.match(
      r.out,
      /^approved payments\.release@1\.0\.0 call .* it runs once, with arguments sha256 [0-9a-f]{64}\n$/,
    );
    r = await run(["approve", a.id, "--as", "cfo-office"]);
    assert.equal(r.code, 1);
    assert.match(r.out, /was approved already by treasury-lead/);
    r = await run(["reject", b.id, "--as", "cfo-office"]);
    assert.equal(r.code, 2, "a rejection needs --reason");
    r = await run(["reject", b.id, "--as", "cfo-office", "--reason", "split it", "--json"]);
    assert.equal(r.code, 0, r.out);
    assert.equal(JSON.parse(r.out).status, "rejected");
    assert.equal(JSON.parse(r.out).call.reason, "split it");
    r = await run(["--as", "wholesale-operator", "--state", "rejected", "--json"]);
    assert.deepEqual(JSON.parse(r.out).calls.map((c: { id: string }) => c.id), [b.id]);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
