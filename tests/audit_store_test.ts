/**
 * The audit log of a folder estate (`audit.jsonl`, `audit-checkpoints.jsonl`) and `estate audit`:
 * the events the store performs itself are recorded; `verify` passes an intact log and names the
 * first broken record of one whose lines were edited, deleted, reordered or cut off; `show`
 * filters; `checkpoint` signs with a key `keygen` made; no token or classified argument is kept.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { EstateDir, propose } from "../lib/store/mod.ts";
import { type AuditRecord, verifyAuditChain } from "../mod.ts";
import { estate as run } from "./_cli.ts";
import { spec } from "./_mcp_fixtures.ts";

const AT = Date.parse("2026-12-01T09:00:00.000Z");

/** A folder estate with a history: publishes, a deprecation, a retirement, proposals, drift. */
async function history(dir: string): Promise<EstateDir> {
  fs.writeFileSync(
    path.join(dir, "estate.json"),
    JSON.stringify({ approval: { require: ["major"], approvers: ["gov-lead"] } }) + "\n",
  );
  let t = AT;
  const tick = () => new Date(t += 60_000);
  const estate = EstateDir.open(dir, { now: () => new Date(t) });
  tick();
  estate.publish(spec("fx.quote", "1.0.0"));
  tick();
  estate.publish(spec("fx.quote", "1.1.0", { title: "FX quote" }));
  tick();
  estate.publish(spec("payments.release", "1.0.0", { dataClassification: "restricted" }));
  tick();
  estate.deprecate("fx.quote", "1.0.0", { reason: "superseded by 1.1.0" });
  tick();
  estate.retire("fx.quote", "1.0.0", { reason: "no callers" });
  const draft = spec("fx.quote", "2.0.0", { inputSchema: { type: "object" } });
  const { proposal } = await propose(estate, draft, {
    text: JSON.stringify(draft),
    proposer: "ana",
    at: tick(),
  });
  estate.recordProposal({
    kind: "approve",
    id: proposal.id,
    principal: "gov-lead",
    at: tick().toISOString(),
  });
  estate.appendDrift([{
    at: tick().toISOString(),
    server: "crm-mcp",
    tool: "crm.customer.get",
    registeredVersion: "1.0.0",
    kind: "quarantined",
    details: "the upstream removed a property",
  }]);
  tick();
  estate.appendAudit([{
    kind: "call",
    principal: "ops",
    tool: "payments.release",
    version: "1.0.0",
    detail: { decision: "allowed", outcome: "ok", authorization: "Bearer tok-SECRET" },
  }]);
  return estate;
}

async function withEstate(fn: (dir: string, estate: EstateDir) => Promise<void>): Promise<void> {
  fs.mkdirSync(".scratch", { recursive: true });
  const dir = fs.mkdtempSync(".scratch/audit-");
  try {
    await fn(path.resolve(dir), await history(dir));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

function lines(dir: string): string[] {
  return fs.readFileSync(path.join(dir, "audit.jsonl"), "utf8").trimEnd().split("\n");
}

function writeLines(dir: string, list: string[]): void {
  fs.writeFileSync(path.join(dir, "audit.jsonl"), list.map((l) => l + "\n").join(""));
}

Deno.test("a folder estate records what it does in audit.jsonl, one chain, no credentials", async () => {
  await withEstate(async (dir, estate) => {
    const records = lines(dir).map((l) => JSON.parse(l) as AuditRecord);
    assert.deepEqual(records.map((r) => [r.seq, r.kind, r.tool, r.version, r.principal]), [
      [1, "publish", "fx.quote", "1.0.0", undefined],
      [2, "publish", "fx.quote", "1.1.0", undefined],
      [3, "publish", "payments.release", "1.0.0", undefined],
      [4, "deprecate", "fx.quote", "1.0.0", undefined],
      [5, "retire", "fx.quote", "1.0.0", undefined],
      [6, "proposal", "fx.quote", "2.0.0", "ana"],
      [7, "approval", "fx.quote", "2.0.0", "gov-lead"],
      [8, "quarantine", "crm.customer.get", "1.0.0", undefined],
      [9, "call", "payments.release", "1.0.0", "ops"],
    ]);
    assert.equal(records[1].detail.baseline, "1.0.0");
    assert.equal(records[3].detail.reason, "superseded by 1.1.0");
    assert.equal(records[3].at, "2026-12-01T09:04:00.000Z");
    assert.equal(
      fs.readFileSync(path.join(dir, "audit.jsonl"), "utf8").includes("tok-SECRET"),
      false,
    );
    assert.deepEqual(await estate.auditHead(), { seq: 9, hash: records[8].hash });
    // Another instance on the same folder continues the chain.
    const other = EstateDir.open(dir);
    const [next] = other.appendAudit([{ kind: "settings", detail: { file: "estate.json" } }]);
    assert.equal(next.seq, 10);
    assert.equal(next.prev, records[8].hash);
    assert.deepEqual(
      [...estate.readAudit({ tool: "fx.quote", since: "2026-12-01T09:03:00.000Z" })].map((r) =>
        r.seq
      ),
      [4, 5, 6, 7],
    );
    // Who publishes through the CLI is its --as.
    const file = path.join(dir, "..", `${path.basename(dir)}-policy.tool.json`);
    fs.writeFileSync(file, JSON.stringify(spec("policy.search", "1.0.0"), null, 2) + "\n");
    try {
      const published = await run(["publish", file, "--estate", dir, "--as", "ana"], dir);
      assert.equal(published.code, 0, published.out + published.err);
    } finally {
      fs.rmSync(file);
    }
    const last = [...estate.readAudit()].at(-1)!;
    assert.deepEqual([last.seq, last.kind, last.tool, last.principal], [
      11,
      "publish",
      "policy.search",
      "ana",
    ]);
    const ok = await run(["audit", "verify", "--estate", dir], dir);
    assert.equal(ok.code, 0, ok.out + ok.err);
    assert.match(
      ok.out,
      new RegExp(`^chain ok: 11 records, head ${last.hash} \\(record 11\\); no checkpoint`),
    );
  });
});

Deno.test("estate audit verify names an edited, a deleted and a reordered line of audit.jsonl", async () => {
  await withEstate(async (dir) => {
    const original = lines(dir);
    const verify = () => run(["audit", "verify", "--estate", dir, "--json"], dir);

    const edited = [...original];
    edited[3] = edited[3].replace("superseded by 1.1.0", "superseded by 9.9.9");
    writeLines(dir, edited);
    let v = await verify();
    assert.equal(v.code, 1);
    assert.deepEqual(
      (({ status, seq, reason }) => ({ status, seq, reason }))(JSON.parse(v.out)),
      { status: "broken", seq: 4, reason: "edited" },
    );
    const human = await run(["audit", "verify", "--estate", dir], dir);
    assert.match(
      human.out,
      /^chain broken at record 4 \(edited\): record 4 \(deprecate at .*\) does not match its hash: it was edited/,
    );

    writeLines(dir, [...original.slice(0, 4), ...original.slice(5)]);
    v = await verify();
    assert.equal(v.code, 1);
    assert.equal(JSON.parse(v.out).reason, "deleted");
    assert.equal(JSON.parse(v.out).seq, 5);

    writeLines(dir, [original[0], original[2], original[1], ...original.slice(3)]);
    v = await verify();
    assert.equal(v.code, 1);
    assert.equal(JSON.parse(v.out).reason, "reordered");
    assert.equal(JSON.parse(v.out).seq, 2);

    writeLines(dir, [...original.slice(0, 2), "not json", ...original.slice(3)]);
    v = await verify();
    assert.equal(v.code, 1);
    assert.equal(JSON.parse(v.out).reason, "malformed");

    writeLines(dir, original);
    assert.equal((await verify()).code, 0);
  });
});

Deno.test("estate audit keygen, checkpoint and verify --key: a log cut after a checkpoint is named truncated", async () => {
  await withEstate(async (dir) => {
    const key = path.join(dir, "..", `${path.basename(dir)}-ops.pem`);
    try {
      const made = await run(["audit", "keygen", "--out", key], dir);
      assert.equal(made.code, 0, made.out + made.err);
      assert.equal(fs.statSync(key).mode & 0o777, 0o600);
      assert.match(fs.readFileSync(`${key}.pub`, "utf8"), /^-----BEGIN PUBLIC KEY-----/);
      assert.equal((await run(["audit", "keygen", "--out", key], dir)).code, 2); // never overwritten

      const signed = await run(
        ["audit", "checkpoint", "--estate", dir, "--key", key, "--json"],
        dir,
      );
      assert.equal(signed.code, 0, signed.out + signed.err);
      assert.equal(JSON.parse(signed.out).checkpoint.seq, 9);
      const ok = await run(["audit", "verify", "--estate", dir, "--key", `${key}.pub`], dir);
      assert.equal(ok.code, 0, ok.out + ok.err);
      assert.match(ok.out, /chain ok: 9 records, .*; 1 checkpoint held, signatures verified/);

      const original = lines(dir);
      writeLines(dir, original.slice(0, 7));
      const cut = await run(["audit", "verify", "--estate", dir, "--key", `${key}.pub`], dir);
      assert.equal(cut.code, 1);
      assert.match(
        cut.out,
        /chain broken at record 9 \(truncated\): .*the log ends at record 7: it was truncated/,
      );
      // A checkpoint refuses to sign a broken chain.
      const refused = await run(["audit", "checkpoint", "--estate", dir, "--key", key], dir);
      assert.equal(refused.code, 1);
      assert.match(refused.out, /not signed: the chain is broken at record 9 \(truncated\)/);

      // A checkpoint whose signature was altered is named.
      writeLines(dir, original);
      const file = path.join(dir, "audit-checkpoints.jsonl");
      const cp = JSON.parse(fs.readFileSync(file, "utf8"));
      fs.writeFileSync(
        file,
        JSON.stringify({ ...cp, seq: 8, head: JSON.parse(original[7]).hash }) + "\n",
      );
      const forged = await run(["audit", "verify", "--estate", dir, "--key", `${key}.pub`], dir);
      assert.equal(forged.code, 1);
      assert.match(forged.out, /\(signature\)/);
    } finally {
      fs.rmSync(key, { force: true });
      fs.rmSync(`${key}.pub`, { force: true });
    }
  });
});

Deno.test("estate audit show filters by tool, principal, kind and time; --json gives the records", async () => {
  await withEstate(async (dir) => {
    const shown = await run(["audit", "show", "--estate", dir, "--tool", "fx.quote"], dir);
    assert.equal(shown.code, 0, shown.err);
    assert.deepEqual(
      shown.out.trimEnd().split("\n").map((l) => l.trim().split(/\s+/).slice(0, 4).join(" ")),
      [
        "1 2026-12-01T09:01:00.000Z publish fx.quote@1.0.0",
        "2 2026-12-01T09:02:00.000Z publish fx.quote@1.1.0",
        "4 2026-12-01T09:04:00.000Z deprecate fx.quote@1.0.0",
        "5 2026-12-01T09:05:00.000Z retire fx.quote@1.0.0",
        "6 2026-12-01T09:06:00.000Z proposal fx.quote@2.0.0",
        "7 2026-12-01T09:07:00.000Z approval fx.quote@2.0.0",
      ],
    );
    const json = await run(
      ["audit", "show", "--estate", dir, "--principal", "gov-lead", "--json"],
      dir,
    );
    assert.deepEqual(JSON.parse(json.out).map((r: AuditRecord) => r.seq), [7]);
    const kind = await run(
      ["audit", "show", "--estate", dir, "--kind", "quarantine", "--json"],
      dir,
    );
    assert.deepEqual(JSON.parse(kind.out).map((r: AuditRecord) => r.tool), ["crm.customer.get"]);
    const until = await run(
      ["audit", "show", "--estate", dir, "--until", "2026-12-01T09:03:00.000Z", "--json"],
      dir,
    );
    assert.deepEqual(JSON.parse(until.out).map((r: AuditRecord) => r.seq), [1, 2]);
    assert.equal(
      (await run(["audit", "show", "--estate", dir, "--since", "yesterday"], dir)).code,
      2,
    );
    assert.equal((await run(["audit", "nope", "--estate", dir], dir)).code, 2);
  });
});

Deno.test("estate serve's server appends each call decision to the estate's audit log: no classified argument values", async () => {
  const { estateServer } = await import("../lib/cli/serve.ts");
  const { STATELESS_META } = await import("../mod.ts");
  fs.mkdirSync(".scratch", { recursive: true });
  const dir = fs.mkdtempSync(".scratch/audit-serve-");
  try {
    fs.cpSync("corpus", dir, { recursive: true });
    // The example estate as shipped: without the audit log a local estate serve keeps of it.
    fs.rmSync(path.join(dir, "audit.jsonl"), { force: true });
    fs.rmSync(path.join(dir, "audit-checkpoints.jsonl"), { force: true });
    const store = EstateDir.open(dir);
    const server = estateServer(store, {
      system: { handlerFor: () => () => ({ ok: true }) },
      log: () => {},
      recordCalls: false,
      now: () => AT,
    });
    const principal = {
      id: "retail-agent",
      scopes: ["policy:read", "crm:read"],
      tenant: "retail",
      clearance: "confidential" as const,
    };
    const call = (name: string, args: Record<string, unknown>) =>
      server.handleStateless({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: {
          name,
          arguments: args,
          _meta: {
            [STATELESS_META.protocolVersion]: "2026-07-28",
            [STATELESS_META.clientCapabilities]: {},
          },
        },
      }, { principal });
    await call("policy.search", { query: "wire limits" });
    await call("crm.customer.get", { customerId: "C00412877" });
    await call("risk.exposure.get", { counterpartyId: "X-SECRET-1" }); // hidden: refused
    await new Promise((r) => setTimeout(r, 50));
    server.close();
    const records = [...store.readAudit()];
    assert.deepEqual(
      records.map((r) => [r.kind, r.tool, r.detail.decision, r.detail.outcome]).sort(),
      [
        ["call", "crm.customer.get", "allowed", "ok"],
        ["call", "policy.search", "allowed", "ok"],
        ["call", "risk.exposure.get", "refused", "hidden-tool"],
      ],
    );
    assert.deepEqual(
      records.find((r) => r.tool === "policy.search")?.detail.arguments,
      { query: "wire limits" },
    );
    const text = fs.readFileSync(path.join(dir, "audit.jsonl"), "utf8");
    assert.equal(text.includes("C00412877"), false);
    assert.equal(text.includes("X-SECRET-1"), false);
    assert.equal((await verifyAuditChain(records)).ok, true);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
