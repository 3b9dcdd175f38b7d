import assert from "node:assert/strict";
import {
  callApprovalFor,
  callApprovalProblems,
  type CallApprovalRule,
  decidePendingCall,
  estateConfigProblems,
  mayViewPendingCall,
  type PendingCall,
  pendingCallAt,
  PendingCallDecisionError,
  type Principal,
  type ToolSpec,
} from "../mod.ts";

const RULES: CallApprovalRule[] = [
  {
    tool: "payments.release",
    above: { path: "$.amount", amount: 10_000 },
    approverScope: "payments:approve",
  },
  { sideEffect: "irreversible", tenant: "retail", approverScope: "ops:approve" },
];
const release = { name: "payments.release", sideEffect: "irreversible" as const };
const who = (id: string, scopes: string[] = [], tenant = "wholesale"): Principal => ({
  id,
  scopes,
  tenant,
  clearance: "restricted",
});

Deno.test("callApprovalProblems() names each entry and field; estate.json takes callApprovals", () => {
  assert.deepEqual(callApprovalProblems(RULES), []);
  assert.deepEqual(callApprovalProblems({}), ["callApprovals must be an array of rules"]);
  assert.deepEqual(
    callApprovalProblems([{ tool: ".*", above: { path: "amount", amount: "x" }, extra: 1 }]),
    [
      'callApprovals[0].tool must be a tool name or a prefix ending in .*, got ".*"',
      'callApprovals[0].above must be {path, amount}: a $ path below the arguments (e.g. "$.amount") and a number, got {"path":"amount","amount":"x"}',
      "callApprovals[0].approverScope must be a non-empty string, got undefined",
      "callApprovals[0] has an unknown field extra",
    ],
  );
  assert.deepEqual(estateConfigProblems({ callApprovals: RULES }), []);
  assert.deepEqual(estateConfigProblems({ callApprovals: [{ approverScope: "" }] }), [
    'callApprovals[0].approverScope must be a non-empty string, got ""',
  ]);
});

Deno.test("callApprovalFor(): the first rule whose every field matches; a non-number amount is held", () => {
  const caller = who("desk", [], "wholesale");
  assert.equal(
    callApprovalFor(RULES, { spec: release, principal: caller, arguments: { amount: 10_000 } }),
    undefined,
  );
  assert.equal(
    callApprovalFor(RULES, { spec: release, principal: caller, arguments: { amount: 10_000.01 } })
      ?.index,
    0,
  );
  assert.equal(
    callApprovalFor(RULES, { spec: release, principal: caller, arguments: {} }),
    undefined,
  );
  assert.equal(
    callApprovalFor(RULES, { spec: release, principal: caller, arguments: { amount: "25000" } })
      ?.index,
    0,
  );
  // The second rule: any irreversible tool, for retail callers only.
  const retail = who("teller", [], "retail");
  const wipe = { name: "accounts.close", sideEffect: "irreversible" as const };
  assert.equal(callApprovalFor(RULES, { spec: wipe, principal: retail, arguments: {} })?.index, 1);
  assert.equal(callApprovalFor(RULES, { spec: wipe, principal: caller, arguments: {} }), undefined);
  assert.equal(
    callApprovalFor([{ tool: "payments.*", approverScope: "a" }], {
      spec: { name: "payments.lookup", sideEffect: "read" },
      principal: caller,
      arguments: {},
    })?.index,
    0,
  );
});

const SPEC = {
  name: "payments.release",
  requiredScopes: ["payments:release"],
  dataClassification: "restricted",
  tenants: [],
} as unknown as ToolSpec;
const PENDING: PendingCall = {
  id: "t-1",
  tool: "payments.release",
  version: "1.0.0",
  caller: "desk",
  tenant: "wholesale",
  arguments: { amount: 25_000 },
  argumentsSha256: "0".repeat(64),
  rule: "payments.release, $.amount above 10000: approved by a holder of payments:approve",
  approverScope: "payments:approve",
  createdAt: "2026-12-03T10:00:00.000Z",
  expiresAt: "2026-12-03T11:00:00.000Z",
  state: "pending",
};
const NOW = Date.parse("2026-12-03T10:30:00.000Z");

Deno.test("decidePendingCall(): four eyes — not the caller, only an approver who can see the tool", () => {
  const approver = who("risk", ["payments:approve", "payments:release"]);
  const decided = decidePendingCall(PENDING, { by: approver, approve: true, now: NOW }, SPEC);
  assert.equal(decided.state, "approved");
  assert.equal(decided.decidedBy, "risk");
  assert.equal(decided.arguments, PENDING.arguments);
  const refused = (by: Principal, approve = true, call = PENDING, at = NOW) => {
    try {
      decidePendingCall(call, { by, approve, now: at, reason: approve ? undefined : "no" }, SPEC);
    } catch (e) {
      assert.ok(e instanceof PendingCallDecisionError);
      return `${e.reason}: ${e.message}`;
    }
    return "decided";
  };
  // The caller, even holding the scope.
  assert.match(refused(who("desk", ["payments:approve", "payments:release"])), /^own-call: /);
  // Without the scope: nothing to see, exactly as an unknown id.
  assert.equal(refused(who("intern", ["payments:release"])), "not-found: No pending call t-1");
  // With the scope but unable to see the tool (clearance too low): the same.
  const low = { ...approver, clearance: "public" as const };
  assert.equal(refused(low), "not-found: No pending call t-1");
  assert.equal(mayViewPendingCall(PENDING, low, SPEC), false);
  assert.equal(mayViewPendingCall(PENDING, who("desk"), SPEC), true);
  // Decided already; expired undecided (fails safe); a rejection needs a reason.
  assert.match(refused(approver, true, decided), /^decided: .*approved already by risk/);
  assert.match(refused(approver, true, PENDING, Date.parse(PENDING.expiresAt)), /^expired: /);
  assert.equal(pendingCallAt(PENDING, Date.parse(PENDING.expiresAt)).state, "expired");
  assert.throws(
    () => decidePendingCall(PENDING, { by: approver, approve: false, now: NOW }, SPEC),
    /needs a reason/,
  );
  const rejected = decidePendingCall(PENDING, {
    by: approver,
    approve: false,
    reason: "beneficiary not verified",
    now: NOW,
  }, SPEC);
  assert.deepEqual([rejected.state, rejected.reason], ["rejected", "beneficiary not verified"]);
});
