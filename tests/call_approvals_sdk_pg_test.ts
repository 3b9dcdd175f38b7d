/**
 * Calls that wait on a person, end to end: two `estate serve` replicas on one PostgreSQL estate
 * (`examples/pending-calls/`: `payments.release` above 1,000,000 waits for a holder of
 * `payments:approve`; the approver's tools published), callers on the official SDK clients — v2
 * (`@modelcontextprotocol/client` 2.4.0, 2026-07-28) and v1 (`@modelcontextprotocol/sdk` 1.32.2,
 * the handshake era) — whose calls wait until a second person decides, on the other replica or
 * from `estate approvals`: approved (the call runs once, with the approved arguments), rejected
 * (the caller is told why; nothing runs), and lapsed (nobody decided in time; nothing runs).
 * Neither SDK client takes a task here (v2 has no task runtime; v1 asks for one only for a tool
 * listed with `execution.taskSupport`), so each call waits for its answer, as the tasks extension
 * lets a server answer a client that takes none.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import {
  type CallToolResult as V2CallToolResult,
  Client as V2Client,
  StreamableHTTPClientTransport as V2Http,
} from "@modelcontextprotocol/client";
// @ts-types="@modelcontextprotocol/sdk/client/index"
import { Client as V1Client } from "@modelcontextprotocol/sdk/client/index.js";
// @ts-types="@modelcontextprotocol/sdk/client/streamableHttp"
import { StreamableHTTPClientTransport as V1Http } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import {
  type CallToolResult as V1CallToolResult,
  ElicitRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { DEMO_TOKENS } from "../lib/cli/demo_tokens.ts";
import { PgEstateStore } from "../lib/store/pg/mod.ts";
import type { PendingCall } from "../mod.ts";
import { postgresSkipReason, startPostgres } from "./_postgres.ts";
import { type GatewayServe, startServeProcess } from "./_gateway_estate.ts";
import { ROOT } from "./_serve.ts";

const skip = postgresSkipReason();
const EXAMPLE = path.join(ROOT, "examples/pending-calls");
const OPERATOR = "wholesale-operator";
const APPROVER_TOKEN = "demo-token-treasury-lead";
/** The example bank's held payment, with the amount the user approves. */
const HELD = { reference: "PMT-004211", approvedAmount: 2_450_000, currency: "EUR" };
const CONFIRMED = { action: "accept" as const, content: { confirm: true } };

async function cli(args: string[]): Promise<{ code: number; out: string }> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", `${ROOT}cli.ts`, ...args],
    cwd: ROOT,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder();
  return { code: out.code, out: text.decode(out.stdout) + text.decode(out.stderr) };
}

const text = (r: { content: { type: string; text?: string }[] }) =>
  r.content.map((c) => c.type === "text" ? c.text : "").join("\n");

/** The v2 SDK client as the operator, confirming what the estate asks it to confirm. */
async function v2Operator(url: URL): Promise<V2Client> {
  const client = new V2Client({ name: "approvals-e2e", version: "1.0.0" }, {
    versionNegotiation: { mode: "auto" },
    capabilities: { elicitation: { form: {} } },
  });
  client.setRequestHandler("elicitation/create", () => CONFIRMED as never);
  await client.connect(
    new V2Http(url, {
      requestInit: { headers: { Authorization: `Bearer ${DEMO_TOKENS[OPERATOR]}` } },
    }),
  );
  return client;
}

/** A v1 SDK client with a bearer token (the operator confirms; the approver is asked nothing). */
async function v1Client(url: URL, token: string): Promise<V1Client> {
  const client = new V1Client({ name: "approvals-e2e", version: "1.0.0" }, {
    capabilities: { elicitation: {} },
  });
  client.setRequestHandler(ElicitRequestSchema, () => CONFIRMED);
  await client.connect(
    new V1Http(url, { requestInit: { headers: { Authorization: `Bearer ${token}` } } }),
  );
  return client;
}

/** Waits until the store holds a pending call in `state` that is not among `seen`. */
async function nextCall(
  store: PgEstateStore,
  seen: Set<string>,
  state: PendingCall["state"] = "pending",
): Promise<PendingCall> {
  for (let i = 0; i < 400; i++) {
    const found = (await store.pendingCalls().list()).find((c) =>
      !seen.has(c.id) && c.state === state
    );
    if (found) {
      seen.add(found.id);
      return found;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`no new ${state} call within 20 s`);
}

Deno.test({
  name: skip
    ? `[postgres] calls that wait on a person, with the official SDK clients (ignored: ${skip})`
    : "[postgres] calls that wait on a person, with the official SDK clients on two replicas: approved on the other, rejected from the CLI, lapsed",
  ignore: skip !== undefined,
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const pg = await startPostgres();
    const work = fs.mkdtempSync(path.join(os.tmpdir(), "estate-approvals-pg-"));
    const replicas: GatewayServe[] = [];
    const clients: { close(): Promise<void> }[] = [];
    let store: PgEstateStore | undefined;
    try {
      const url = await pg.createDatabase();
      fs.cpSync(path.join(ROOT, "corpus"), path.join(work, "estate"), { recursive: true });
      assert.equal(
        (await cli(["migrate", "--from", path.join(work, "estate"), "--to", url])).code,
        0,
      );
      const s = ["--store", url];
      for (
        const args of [
          ["principals", "set", path.join(EXAMPLE, "principals.json")],
          ["settings", "set", path.join(EXAMPLE, "estate.json")],
          ["publish", path.join(EXAMPLE, "approvals.pending.tool.json")],
          ["publish", path.join(EXAMPLE, "approvals.decide.tool.json")],
        ]
      ) {
        const r = await cli([...args, ...s]);
        assert.equal(r.code, 0, `${args.join(" ")}: ${r.out}`);
      }
      replicas.push(await startServeProcess(s), await startServeProcess(s));
      const [a, b] = replicas;
      store = await PgEstateStore.open(url);
      const seen = new Set<string>();

      // 1. Approved on the other replica: the v2 client's call on A waits; the approver decides
      //    through approvals.decide on B (the v1 client); the call runs once and answers.
      const operator2 = await v2Operator(a.url);
      clients.push(operator2);
      const approver = await v1Client(b.url, APPROVER_TOKEN);
      clients.push(approver);
      const small = await operator2.callTool({
        name: "payments.release",
        arguments: { ...HELD, reference: "PMT-000771", approvedAmount: 12_500.5, currency: "USD" },
      }) as V2CallToolResult;
      assert.match(
        text(small),
        /PMT-000771 is REJECTED, not HELD/,
        "below the amount: runs at once",
      );
      const waiting = operator2.callTool({ name: "payments.release", arguments: HELD });
      const held = await nextCall(store, seen);
      assert.equal(held.caller, OPERATOR);
      assert.deepEqual(held.arguments, HELD);
      const listed = await approver.callTool({
        name: "approvals.pending",
        arguments: {},
      }) as V1CallToolResult;
      assert.ok(text(listed as never).includes(held.id), text(listed as never));
      const decided = await approver.callTool({
        name: "approvals.decide",
        arguments: { id: held.id, decision: "approve", reason: "treasury checked the payee" },
      }) as V1CallToolResult;
      assert.notEqual(decided.isError, true, text(decided as never));
      const answered = await waiting as V2CallToolResult;
      assert.notEqual(answered.isError, true, text(answered));
      assert.deepEqual(answered.structuredContent, { reference: "PMT-004211", status: "RELEASED" });
      assert.equal((await store.pendingCalls().get(held.id))?.state, "ran");

      // 2. Rejected from the CLI: the v1 client's call on B waits, and is told why.
      const operator1 = await v1Client(b.url, DEMO_TOKENS[OPERATOR]);
      clients.push(operator1);
      const refused = operator1.callTool({ name: "payments.release", arguments: HELD }, undefined, {
        timeout: 60_000,
      });
      const second = await nextCall(store, seen);
      const own = await cli(["approvals", "approve", second.id, "--as", OPERATOR, ...s]);
      assert.equal(own.code, 1);
      assert.match(own.out, /it is their own call/);
      const rejected = await cli([
        "approvals",
        "reject",
        second.id.slice(0, 8),
        "--as",
        "treasury-lead",
        "--reason",
        "released already today",
        ...s,
      ]);
      assert.equal(rejected.code, 0, rejected.out);
      const told = await refused as V1CallToolResult;
      assert.equal(told.isError, true);
      assert.equal(
        text(told as never),
        "payments.release was not run: rejected by treasury-lead: released already today",
      );

      // 3. Lapsed: with a rule of three seconds, nobody decides; the call is answered, not run.
      const quick = JSON.parse(fs.readFileSync(path.join(EXAMPLE, "estate.json"), "utf8"));
      quick.callApprovals[0].expiresMinutes = 0.05;
      fs.writeFileSync(path.join(work, "estate.json"), JSON.stringify(quick));
      assert.equal((await cli(["settings", "set", path.join(work, "estate.json"), ...s])).code, 0);
      await a.waitFor(/settings|estate\.json/, { timeoutMs: 10_000 }).catch(() => {});
      await new Promise((r) => setTimeout(r, 500));
      const lapsed = await operator2.callTool({
        name: "payments.release",
        arguments: HELD,
      }) as V2CallToolResult;
      assert.equal(lapsed.isError, true, text(lapsed));
      assert.match(text(lapsed), /^payments\.release was not run: nobody approved it by /);
      const calls = await store.pendingCalls().list();
      assert.deepEqual(calls.map((c) => c.state).sort(), ["expired", "ran", "rejected"]);

      // The audit log holds every step, by whom, with the arguments' digest and never their values
      // (payments.release is restricted), and its chain verifies.
      const steps: string[] = [];
      for await (const r of store.readAudit({ kind: "pending-call" })) {
        steps.push(`${r.detail.state} ${r.principal ?? "-"}`);
        assert.equal(r.detail.argumentsSha256, held.argumentsSha256);
        assert.ok(!JSON.stringify(r).includes("2450000"), JSON.stringify(r));
      }
      assert.deepEqual(steps, [
        `pending ${OPERATOR}`,
        "approved treasury-lead",
        `ran ${OPERATOR}`,
        `pending ${OPERATOR}`,
        "rejected treasury-lead",
        `pending ${OPERATOR}`,
        "expired -",
      ]);
      // The calls as decided (each replica appends its own, so only the counts are fixed): three
      // held; two ran (the small one at once, the approved one later), each allowed.
      const decided2: string[] = [];
      for await (const r of store.readAudit({ kind: "call", tool: "payments.release" })) {
        decided2.push(`${r.detail.decision} ${r.detail.outcome}`);
      }
      assert.equal(decided2.filter((d) => d === "held held").length, 3, decided2.join());
      assert.equal(
        decided2.filter((d) => /^allowed (ok|tool-error)$/.test(d)).length,
        2,
        decided2.join(),
      );
      const verified = await cli(["audit", "verify", ...s]);
      assert.equal(verified.code, 0, verified.out);
      assert.match(verified.out, /^chain ok: \d+ records/);
    } finally {
      for (const c of clients) await c.close().catch(() => {});
      for (const r of replicas) await r.stop();
      await store?.close();
      fs.rmSync(work, { recursive: true, force: true });
      await pg.stop();
    }
  },
});
