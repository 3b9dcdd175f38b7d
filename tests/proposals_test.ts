/**
 * Proposals and approvals: `approvalRequirement` on each trigger of the policy, `proposalEvent`'s
 * rules (the proposer never approves their own, only an owner or an approver decides, a decision
 * needs a pending proposal, a new proposal supersedes), the folder store's `proposals/` files, and
 * the whole flow through the command line run as a subprocess (`cli.ts`): publish refused naming
 * the rule, propose, approve, check showing each state, publish of exactly the approved bytes, a
 * file edited after approval refused.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import {
  type ApprovalPolicy,
  approvalRequirement,
  approvalStatus,
  type Proposal,
  ProposalError,
  proposalEvent,
  ToolRegistry,
  type ToolSpec,
} from "../mod.ts";
import { EXAMPLE_TOOL, findRule } from "../lib/estate/rules.ts";
import { EstateDir, proposalId, propose, publishApproved } from "../lib/store/mod.ts";
import { ROOT } from "./_serve.ts";

const POLICY: ApprovalPolicy = {
  require: [
    "major",
    "new-tool",
    "new-irreversible",
    "side-effect-raised",
    "classification-lowered",
  ],
  owners: { "payments-platform": ["ana", "ben"] },
  approvers: ["gov-lead"],
};

const V1: ToolSpec = { ...EXAMPLE_TOOL };
const spec = (edit: Partial<ToolSpec>): ToolSpec => ({ ...V1, ...edit });
const subject = (
  candidate: ToolSpec,
  base?: ToolSpec,
  bump: "patch" | "minor" | "major" = "patch",
) => ({
  spec: candidate,
  ...(base ? { baseline: { spec: base } } : {}),
  bump,
});

Deno.test("approvalRequirement() names each trigger of the policy the change meets, and only those", () => {
  const rules = (s: ReturnType<typeof subject>, policy = POLICY) =>
    approvalRequirement(s, policy).rules.map((r) => r.rule);
  // A minor release with nothing else: nothing.
  assert.deepEqual(rules(subject(spec({ version: "1.1.0" }), V1, "minor")), []);
  // A new major number, or a major change (even numbered as a minor: publish refuses that anyway).
  assert.deepEqual(rules(subject(spec({ version: "2.0.0" }), V1, "patch")), ["major"]);
  assert.deepEqual(rules(subject(spec({ version: "1.1.0" }), V1, "major")), ["major"]);
  assert.deepEqual(rules(subject(spec({}))), ["new-tool"]);
  assert.deepEqual(rules(subject(spec({ sideEffect: "irreversible" }))), [
    "new-tool",
    "new-irreversible",
  ]);
  assert.deepEqual(
    rules(subject(spec({ version: "1.0.1", sideEffect: "irreversible" }), V1)),
    ["new-irreversible", "side-effect-raised"],
  );
  assert.deepEqual(rules(subject(spec({ version: "1.0.1", sideEffect: "write" }), V1)), [
    "side-effect-raised",
  ]);
  // Lowering the side effect, raising the classification: nothing.
  const write = spec({ sideEffect: "write" });
  assert.deepEqual(rules(subject(spec({ version: "1.0.1" }), write)), []);
  assert.deepEqual(
    rules(subject(spec({ version: "1.0.1", dataClassification: "restricted" }), V1)),
    [],
  );
  assert.deepEqual(
    rules(subject(spec({ version: "1.0.1", dataClassification: "internal" }), V1)),
    ["classification-lowered"],
  );
  // Only the triggers the policy requires; no policy, or an identical republish: none.
  assert.deepEqual(
    rules(subject(spec({ version: "2.0.0", dataClassification: "public" }), V1), {
      require: ["classification-lowered"],
    }),
    ["classification-lowered"],
  );
  assert.equal(
    approvalRequirement(subject(spec({ version: "2.0.0" }), V1), undefined).needed,
    false,
  );
  assert.equal(
    approvalRequirement(
      { ...subject(spec({ version: "2.0.0" }), V1), alreadyPublished: true },
      POLICY,
    )
      .needed,
    false,
  );
  assert.equal(
    approvalRequirement(subject(spec({ version: "2.0.0" }), V1), POLICY).rules[0].reason,
    "the release is 2.0.0 against 1.0.0",
  );
});

function pending(over: Partial<Proposal> = {}): Proposal {
  return {
    id: "5f0c1d2e3a4b".padEnd(64, "0"),
    tool: "payments.lookup",
    version: "2.0.0",
    owner: "payments-platform",
    proposer: "ana",
    created: "2026-12-01T09:00:00.000Z",
    text: "{}",
    classification: { baseline: "1.0.0", bump: "major", changes: [], requires: [] },
    witnesses: [],
    impact: { rejectedCalls: 0, breaksAgainst: [] },
    state: "pending",
    approvals: [],
    ...over,
  };
}

Deno.test("proposalEvent() refuses the proposer, a non-owner and a decided proposal; an owner or an approver decides", () => {
  const p = pending();
  const at = "2026-12-01T10:00:00.000Z";
  const refused = (event: Parameters<typeof proposalEvent>[1], re: RegExp) =>
    assert.throws(
      () => proposalEvent([p], event, POLICY),
      (e) => e instanceof ProposalError && re.test(e.message),
    );
  refused(
    { kind: "approve", id: p.id, principal: "ana", at },
    /ana proposed it: another owner must approve it/,
  );
  refused({ kind: "reject", id: p.id, principal: "ana", at, reason: "no" }, /ana proposed it/);
  refused(
    { kind: "approve", id: p.id, principal: "zed", at },
    /zed is not an owner of payments\.lookup \(owner payments-platform: ana, ben\) nor an approver/,
  );
  refused({ kind: "published", id: p.id, at }, /is pending, not approved: it cannot be published/);
  refused(
    { kind: "approve", id: "ff".repeat(32), principal: "ben", at },
    /no proposal ffffffffffff/,
  );
  const [approved] = proposalEvent([p], {
    kind: "approve",
    id: p.id,
    principal: "ben",
    at,
    note: "ok",
  }, POLICY);
  assert.equal(approved.state, "approved");
  assert.deepEqual(approved.approvals, [{ principal: "ben", at, note: "ok" }]);
  // An approver of every tool may decide too; with no policy nobody may.
  assert.equal(
    proposalEvent([p], { kind: "approve", id: p.id, principal: "gov-lead", at }, POLICY)[0].state,
    "approved",
  );
  assert.throws(
    () => proposalEvent([p], { kind: "approve", id: p.id, principal: "ben", at }, undefined),
    ProposalError,
  );
  // Decided once: no second decision.
  assert.throws(
    () =>
      proposalEvent([approved], {
        kind: "reject",
        id: p.id,
        principal: "gov-lead",
        at,
        reason: "late",
      }, POLICY),
    /Cannot reject proposal 5f0c1d2e3a4b \(payments\.lookup@2\.0\.0\): it is approved by ben/,
  );
  const [rejected] = proposalEvent([p], {
    kind: "reject",
    id: p.id,
    principal: "ben",
    at,
    reason: "breaks retail",
  }, POLICY);
  assert.deepEqual([rejected.state, rejected.rejection], ["rejected", {
    principal: "ben",
    at,
    reason: "breaks retail",
  }]);
  assert.equal(
    proposalEvent([approved], { kind: "published", id: p.id, at }, POLICY)[0].state,
    "published",
  );
});

Deno.test("proposalEvent() a new proposal of a version supersedes its pending and approved ones; the same bytes twice are refused", () => {
  const a = pending({ state: "approved", approvals: [{ principal: "ben", at: "x" }] });
  const other = pending({ id: "ab".repeat(32), version: "2.1.0" });
  const b = pending({ id: "cd".repeat(32), created: "2026-12-02T09:00:00.000Z" });
  const written = proposalEvent([a, other], { kind: "propose", proposal: b }, POLICY);
  assert.deepEqual(written.map((p) => [p.id.slice(0, 4), p.state, p.supersededBy?.slice(0, 4)]), [
    ["5f0c", "superseded", "cdcd"],
    ["cdcd", "pending", undefined],
  ]);
  assert.throws(
    () => proposalEvent([b], { kind: "propose", proposal: b }, POLICY),
    /already proposed with these bytes \(proposal cdcdcdcdcdcd, pending\)/,
  );
  // A superseded proposal's bytes may be proposed again: pending, its approvals cleared.
  const again = proposalEvent([written[0], written[1]], { kind: "propose", proposal: a }, POLICY);
  assert.deepEqual(again.map((p) => [p.id.slice(0, 4), p.state, p.approvals.length]), [
    ["cdcd", "superseded", 0],
    ["5f0c", "pending", 0],
  ]);
});

Deno.test("the needs-approval and approved rules' examples give what the catalog says", () => {
  const registry = new ToolRegistry();
  registry.publish(V1);
  const draft = spec({
    version: "2.0.0",
    inputSchema: {
      type: "object",
      properties: { reference: { type: "string" } },
      required: ["reference"],
    },
  });
  const requirement = approvalRequirement(registry.plan(draft), { require: ["major"] });
  const p = pending();
  assert.equal(approvalStatus(requirement, p)?.message, findRule("needs-approval")!.example.gives);
  const approved = { ...p, state: "approved" as const, approvals: [{ principal: "ben", at: "x" }] };
  assert.equal(approvalStatus(requirement, approved)?.message, findRule("approved")!.example.gives);
  assert.match(
    approvalStatus(requirement, undefined)!.message,
    /no proposal of these bytes: estate propose FILE --as YOU$/,
  );
  assert.equal(approvalStatus({ needed: false, rules: [] }, p), undefined);
});

/** A copy of the example estate with an approval policy, and a major draft of payments.lookup. */
function scratchEstate(): { dir: string; estate: string; draft: string; text: string } {
  const dir = Deno.makeTempDirSync({ prefix: "proposals-" });
  const estate = path.join(dir, "estate");
  fs.cpSync(path.join(ROOT, "corpus"), estate, { recursive: true });
  fs.writeFileSync(
    path.join(estate, "estate.json"),
    JSON.stringify({ approval: POLICY }, null, 2) + "\n",
  );
  const v2 = JSON.parse(
    fs.readFileSync(path.join(estate, "tools/payments.lookup/2.0.0.json"), "utf8"),
  );
  v2.version = "3.0.0";
  delete v2.inputSchema.properties.includeHistory;
  const text = JSON.stringify(v2, null, 2) + "\n";
  const draft = path.join(dir, "lookup.tool.json");
  fs.writeFileSync(draft, text);
  return { dir, estate, draft, text };
}

Deno.test("EstateDir keeps proposals as proposals/<id>.json, decided under its lock; publishApproved publishes only approved bytes", async () => {
  const { dir, estate, text } = scratchEstate();
  try {
    const store = EstateDir.open(estate);
    const candidate = JSON.parse(text) as ToolSpec;
    await assert.rejects(
      () => publishApproved(store, candidate, { text, now: new Date() }),
      /Cannot publish payments\.lookup@3\.0\.0: it needs approval \(rule major: the release is 3\.0\.0 against 2\.0\.0, a major change\); no proposal of these bytes/,
    );
    const { proposal, requirement } = await propose(store, candidate, {
      text,
      proposer: "ana",
      at: new Date("2026-12-01T09:00:00Z"),
    });
    assert.equal(proposal.id, proposalId(text));
    assert.equal(requirement.needed, true);
    assert.deepEqual(proposal.classification.changes, [
      "removed property includeHistory at $.properties.includeHistory",
    ]);
    assert.equal(proposal.witnesses.length, 1);
    const file = path.join(estate, "proposals", `${proposal.id}.json`);
    assert.deepEqual(JSON.parse(fs.readFileSync(file, "utf8")), proposal);
    assert.equal(proposal.text, text, "the exact bytes are kept");
    await assert.rejects(
      () => publishApproved(store, candidate, { text, now: new Date() }),
      /proposal [0-9a-f]{12} by ana is pending/,
    );
    store.recordProposal({
      kind: "approve",
      id: proposal.id,
      principal: "ben",
      at: "2026-12-01T10:00:00.000Z",
    });
    // Edited after approval (one space): other bytes, no approval.
    await assert.rejects(
      () => publishApproved(store, candidate, { text: text + " ", now: new Date() }),
      /no proposal of these bytes/,
    );
    const done = await publishApproved(store, candidate, {
      text,
      now: new Date("2026-12-01T11:00:00Z"),
    });
    assert.equal(done.status, "published");
    assert.equal(done.proposal?.state, "published");
    assert.deepEqual(store.proposals().map((p) => p.state), ["published"]);
    assert.deepEqual(
      JSON.parse(fs.readFileSync(path.join(estate, "tools/payments.lookup/3.0.0.json"), "utf8")),
      JSON.parse(text),
    );
    // A bad file in proposals/ is an error naming it.
    fs.writeFileSync(path.join(estate, "proposals", "nope.json"), "{}");
    assert.throws(() => store.proposals(), /nope\.json: not a proposal/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

/** `estate ARGS` as a subprocess: `deno run cli.ts`, as `deno task estate` runs it. */
async function cli(args: string[], cwd: string): Promise<{ code: number; out: string }> {
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--quiet",
      "--config",
      path.join(ROOT, "deno.runtime.jsonc"),
      "--allow-read",
      "--allow-write",
      "--allow-env",
      "--allow-sys",
      path.join(ROOT, "cli.ts"),
      ...args,
    ],
    cwd,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const dec = new TextDecoder();
  return { code, out: dec.decode(stdout) + dec.decode(stderr) };
}

Deno.test("CLI end to end (cli.ts as a subprocess): publish refused naming the rule, propose, approve by another owner, check shows each state, publish exactly the approved bytes", async () => {
  const { dir, draft, text } = scratchEstate();
  const e = ["--estate", "estate"];
  try {
    const refused = await cli(["publish", draft, ...e], dir);
    assert.equal(refused.code, 1, refused.out);
    assert.match(
      refused.out,
      /it needs approval \(rule major: the release is 3\.0\.0 against 2\.0\.0, a major change\); no proposal of these bytes .*run estate propose FILE --as YOU/,
    );
    let check = await cli(["check", draft, ...e, "--format", "github"], dir);
    assert.equal(check.code, 1);
    assert.match(
      check.out,
      /title=needs-approval::needs approval \(rule major: .*\); no proposal of these bytes/,
    );
    assert.equal((await cli(["propose", draft, ...e], dir)).code, 2, "--as is required");
    const proposed = await cli(["propose", draft, ...e, "--as", "ana", "--json"], dir);
    assert.equal(proposed.code, 0, proposed.out);
    const body = JSON.parse(proposed.out);
    assert.equal(body.needsApproval, true);
    const id: string = body.proposal.id;
    assert.equal(id, proposalId(text));
    const short = id.slice(0, 12);
    check = await cli(["check", draft, ...e, "--json"], dir);
    assert.equal(check.code, 1);
    const finding = JSON.parse(check.out).findings.find((f: { rule: string }) =>
      f.rule === "needs-approval"
    );
    assert.match(finding.message, new RegExp(`pending proposal ${short} by ana`));
    assert.equal(finding.line, 3, "at the version");
    const listed = await cli(["proposals", ...e], dir);
    assert.match(
      listed.out,
      new RegExp(`^${short}  payments\\.lookup@3\\.0\\.0 +pending +by ana`, "m"),
    );
    const own = await cli(["approve", short, ...e, "--as", "ana"], dir);
    assert.equal(own.code, 1);
    assert.match(own.out, /ana proposed it: another owner must approve it/);
    const stranger = await cli(["approve", short, ...e, "--as", "zed"], dir);
    assert.equal(stranger.code, 1);
    assert.match(stranger.out, /zed is not an owner of payments\.lookup/);
    const ok = await cli(["approve", short, ...e, "--as", "ben", "--note", "retail told"], dir);
    assert.equal(ok.code, 0, ok.out);
    check = await cli(["check", draft, ...e, "--format", "sarif"], dir);
    assert.equal(check.code, 0, check.out);
    const sarif = JSON.parse(check.out);
    assert.ok(
      sarif.runs[0].results.some((r: { ruleId: string; message: { text: string } }) =>
        r.ruleId === "approved" && r.message.text.startsWith(`approved by ben (proposal ${short})`)
      ),
    );
    // Edited after approval: refused, the approval does not carry over.
    fs.writeFileSync(draft, text.replace('"title"', '"title" '));
    const edited = await cli(["publish", draft, ...e], dir);
    assert.equal(edited.code, 1);
    assert.match(edited.out, /no proposal of these bytes/);
    fs.writeFileSync(draft, text);
    const published = await cli(["publish", draft, ...e], dir);
    assert.equal(published.code, 0, published.out);
    assert.match(
      published.out,
      new RegExp(
        `published payments\\.lookup@3\\.0\\.0 \\(major change against 2\\.0\\.0\\), approved by ben \\(proposal ${short}\\)`,
      ),
    );
    const after = JSON.parse((await cli(["proposals", ...e, "--json"], dir)).out).proposals;
    assert.deepEqual(after.map((p: Proposal) => [p.state, p.approvals[0].note]), [[
      "published",
      "retail told",
    ]]);
    // A rejection says why, and a rejected proposal cannot be approved.
    const v4 = JSON.parse(text);
    v4.version = "4.0.0";
    delete v4.inputSchema.properties.currency;
    fs.writeFileSync(draft, JSON.stringify(v4, null, 2) + "\n");
    const second = JSON.parse(
      (await cli(["propose", draft, ...e, "--as", "ben", "--json"], dir)).out,
    ).proposal.id.slice(0, 12);
    assert.equal(
      (await cli(["reject", second, ...e, "--as", "ana"], dir)).code,
      2,
      "--reason is required",
    );
    const rejected = await cli(
      ["reject", second, ...e, "--as", "ana", "--reason", "keep currency"],
      dir,
    );
    assert.equal(rejected.code, 0, rejected.out);
    const late = await cli(["approve", second, ...e, "--as", "gov-lead"], dir);
    assert.equal(late.code, 1);
    assert.match(late.out, /it is rejected/);
    const blocked = await cli(["publish", draft, ...e], dir);
    assert.equal(blocked.code, 1);
    assert.match(blocked.out, /was rejected by ana \(keep currency\)/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
