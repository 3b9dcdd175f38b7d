/**
 * Shared by the pending-call tests: the tool, the principals, and the desk's contract on one store
 * (hold, who sees what, refusals told as for an unknown id, one decision of two at once, one claim
 * of an approved call, expiry).
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import {
  argumentsDigest,
  type AuditEvent,
  type CallApprovalRule,
  claimApprovedCall,
  decideCall,
  holdCall,
  PendingCallDecisionError,
  type PendingCallDesk,
  pendingCallFor,
  pendingCallsFor,
  type PendingCallStore,
  type Principal,
  settleExpiry,
  type ToolSpec,
} from "../mod.ts";
import { ROOT } from "./_serve.ts";

export const RULE: CallApprovalRule = {
  tool: "payments.release",
  above: { path: "$.approvedAmount", amount: 10_000 },
  approverScope: "payments:approve",
  expiresMinutes: 30,
};
export const RELEASE = JSON.parse(
  fs.readFileSync(path.join(ROOT, "corpus/tools/payments.release/1.0.0.json"), "utf8"),
) as ToolSpec;
export const ARGS = { reference: "PMT-004211", approvedAmount: 25_000, currency: "EUR" };

export const who = (id: string, scopes: string[], tenant = "wholesale"): Principal => ({
  id,
  scopes,
  tenant,
  clearance: "restricted",
});
export const CALLER = who("wholesale-operator", ["payments:read", "payments:release"]);
export const APPROVER = who("treasury-lead", [
  "payments:read",
  "payments:release",
  "payments:approve",
]);
export const APPROVER2 = who("cfo-office", [
  "payments:read",
  "payments:release",
  "payments:approve",
]);
// Holds the scope but cannot see the tool (another tenant): to them, there is no such call.
export const BLIND = who("retail-lead", ["payments:approve"], "retail");
export const STRANGER = who("group-risk-analyst", ["risk:read"], "group");

export function deskOver(
  store: PendingCallStore,
  clock: { t: number },
  audit?: AuditEvent[],
): PendingCallDesk {
  return {
    store,
    ...(audit ? { audit: (e: AuditEvent) => audit.push(e) } : {}),
    specOf: (tool, version) =>
      tool === RELEASE.name && version === RELEASE.version ? RELEASE : undefined,
    now: () => clock.t,
  };
}

export const T0 = Date.parse("2026-12-04T09:00:00Z");

/** The desk's contract, on one store. */
export async function deskContract(store: PendingCallStore): Promise<void> {
  const clock = { t: T0 };
  const audit: AuditEvent[] = [];
  const desk = deskOver(store, clock, audit);
  const call = await holdCall(desk, {
    spec: RELEASE,
    principal: CALLER,
    arguments: ARGS,
    rule: RULE,
  });
  assert.equal(call.state, "pending");
  assert.equal(call.caller, CALLER.id);
  assert.equal(call.argumentsSha256, await argumentsDigest(ARGS));
  assert.equal(call.expiresAt, "2026-12-04T09:30:00.000Z");
  assert.match(call.rule, /payments\.release, \$\.approvedAmount above 10000/);
  assert.deepEqual(await store.get(call.id), call);

  // Who sees it: the caller and an approver; not one blind to the tool, not a stranger.
  for (const p of [CALLER, APPROVER]) {
    assert.deepEqual((await pendingCallsFor(desk, p)).map((c) => c.id), [call.id]);
    assert.equal((await pendingCallFor(desk, call.id, p))?.id, call.id);
  }
  for (const p of [BLIND, STRANGER]) {
    assert.deepEqual(await pendingCallsFor(desk, p), []);
    assert.equal(await pendingCallFor(desk, call.id, p), undefined);
  }

  // Refusals: an unseen call is told exactly as an unknown id; the caller never decides.
  const refusal = async (id: string, by: Principal, approve = true) => {
    try {
      await decideCall(desk, id, { by, approve, reason: "no" });
    } catch (e) {
      assert.ok(e instanceof PendingCallDecisionError);
      return `${e.reason}: ${e.message.replace(id, "ID")}`;
    }
    assert.fail("decided");
  };
  const unknown = crypto.randomUUID();
  assert.equal(await refusal(unknown, APPROVER), "not-found: No pending call ID");
  assert.equal(await refusal(call.id, BLIND), "not-found: No pending call ID");
  assert.equal(await refusal(call.id, STRANGER), "not-found: No pending call ID");
  assert.match(await refusal(call.id, CALLER), /^own-call: wholesale-operator cannot decide/);
  await assert.rejects(
    decideCall(desk, call.id, { by: APPROVER, approve: false }),
    /needs a reason/,
  );
  assert.equal(await claimApprovedCall(desk, call.id), undefined, "not approved: nothing runs");

  // Two approvers at once: exactly one decides; the other is told who did.
  const both = await Promise.allSettled([
    decideCall(desk, call.id, { by: APPROVER, approve: true }),
    decideCall(desk, call.id, { by: APPROVER2, approve: false, reason: "too large" }),
  ]);
  const won = both.filter((r) => r.status === "fulfilled");
  assert.equal(won.length, 1, JSON.stringify(both));
  const lost = both.find((r) => r.status === "rejected") as PromiseRejectedResult;
  assert.match(
    lost.reason.message,
    /was (approved|rejected) already by (treasury-lead|cfo-office)/,
  );

  // An approved call is claimed once, with the arguments as approved.
  const decided = (won[0] as PromiseFulfilledResult<Awaited<ReturnType<typeof decideCall>>>)
    .value;
  if (decided.state === "approved") {
    const claims = await Promise.all([
      claimApprovedCall(desk, call.id),
      claimApprovedCall(desk, call.id),
    ]);
    const ran = claims.filter((c) => c !== undefined);
    assert.equal(ran.length, 1);
    assert.deepEqual(ran[0]!.arguments, ARGS);
    assert.equal((await store.get(call.id))?.state, "ran");
  } else {
    assert.equal(await claimApprovedCall(desk, call.id), undefined);
  }

  // A call nobody decides expires at its time, is kept expired, and is never run.
  const late = await holdCall(desk, {
    spec: RELEASE,
    principal: CALLER,
    arguments: { ...ARGS, approvedAmount: 99_000 },
    rule: RULE,
  });
  clock.t = T0 + 30 * 60_000;
  assert.equal((await pendingCallFor(desk, late.id, APPROVER))?.state, "expired");
  assert.match(
    await refusal(late.id, APPROVER),
    /^expired: Pending call ID expired at .* undecided/,
  );
  assert.equal((await store.get(late.id))?.state, "expired");
  assert.equal((await settleExpiry(desk, late.id))?.state, "expired");
  assert.equal(await claimApprovedCall(desk, late.id), undefined);
  assert.deepEqual(
    (await pendingCallsFor(desk, CALLER, { state: "expired" })).map((c) => c.id),
    [late.id],
  );

  // Each step is audited once, by whom, with the arguments' digest and never their values.
  const steps = audit.map((e) => `${e.detail?.state} ${e.principal ?? "-"}`);
  assert.deepEqual(
    steps,
    decided.state === "approved"
      ? [
        `pending ${CALLER.id}`,
        `approved ${decided.decidedBy}`,
        `ran ${CALLER.id}`,
        `pending ${CALLER.id}`,
        "expired -",
      ]
      : [
        `pending ${CALLER.id}`,
        `rejected ${decided.decidedBy}`,
        `pending ${CALLER.id}`,
        "expired -",
      ],
  );
  assert.ok(audit.every((e) => e.kind === "pending-call" && !JSON.stringify(e).includes("PMT-")));
}
