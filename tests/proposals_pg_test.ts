/**
 * Proposals and approvals on a real PostgreSQL (`_postgres.ts`, migration 009): the flow of
 * tests/proposals_test.ts through the command line run as a subprocess with `--store URL` —
 * publish refused naming the rule, propose, approve by another owner (not the proposer, not a
 * stranger), check showing each state, publish of exactly the approved bytes — and two owners
 * deciding one proposal at once from two connections: exactly one decision is recorded.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import type { ApprovalPolicy, Proposal } from "../mod.ts";
import { ProposalError } from "../mod.ts";
import { proposalId } from "../lib/store/mod.ts";
import { PgEstateStore } from "../lib/store/pg/mod.ts";
import { postgresSkipReason, startPostgres } from "./_postgres.ts";
import { ROOT } from "./_serve.ts";

const skip = postgresSkipReason();

const POLICY: ApprovalPolicy = {
  require: ["major", "new-irreversible", "classification-lowered"],
  owners: { "payments-platform": ["ana", "ben"] },
  approvers: ["gov-lead"],
};

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
      "--allow-net",
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

Deno.test({
  name: skip
    ? `[postgres] proposals and approvals through the CLI on a database estate (ignored: ${skip})`
    : "[postgres] proposals and approvals through the CLI on a database estate; concurrent decisions record one",
  ignore: skip !== undefined,
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const pg = await startPostgres();
    const dir = Deno.makeTempDirSync({ prefix: "proposals-pg-" });
    try {
      const url = await pg.createDatabase();
      fs.cpSync(path.join(ROOT, "corpus"), path.join(dir, "estate"), { recursive: true });
      const copied = await cli(["migrate", "--from", "estate", "--to", url], dir);
      assert.equal(copied.code, 0, copied.out);
      fs.writeFileSync(
        path.join(dir, "estate.json"),
        JSON.stringify({ approval: POLICY }, null, 2) + "\n",
      );
      const set = await cli(["settings", "set", "estate.json", "--store", url], dir);
      assert.equal(set.code, 0, set.out);

      const v2 = JSON.parse(
        fs.readFileSync(path.join(ROOT, "corpus/tools/payments.lookup/2.0.0.json"), "utf8"),
      );
      v2.version = "3.0.0";
      delete v2.inputSchema.properties.includeHistory;
      const text = JSON.stringify(v2, null, 2) + "\n";
      const draft = path.join(dir, "lookup.tool.json");
      fs.writeFileSync(draft, text);
      const s = ["--store", url];

      const refused = await cli(["publish", draft, ...s], dir);
      assert.equal(refused.code, 1, refused.out);
      assert.match(
        refused.out,
        /Cannot publish payments\.lookup@3\.0\.0: it needs approval \(rule major: the release is 3\.0\.0 against 2\.0\.0, a major change\); no proposal of these bytes/,
      );
      const proposed = await cli(["propose", draft, ...s, "--as", "ana", "--json"], dir);
      assert.equal(proposed.code, 0, proposed.out);
      const id: string = JSON.parse(proposed.out).proposal.id;
      assert.equal(id, proposalId(text));
      const short = id.slice(0, 12);
      let check = await cli(["check", draft, ...s, "--format", "github"], dir);
      assert.equal(check.code, 1);
      assert.match(
        check.out,
        new RegExp(`title=needs-approval::.*pending proposal ${short} by ana`),
      );
      assert.match(
        (await cli(["approve", short, ...s, "--as", "ana"], dir)).out,
        /ana proposed it/,
      );
      assert.match(
        (await cli(["approve", short, ...s, "--as", "zed"], dir)).out,
        /zed is not an owner of payments\.lookup/,
      );
      const ok = await cli(["approve", short, ...s, "--as", "gov-lead", "--note", "ok"], dir);
      assert.equal(ok.code, 0, ok.out);
      check = await cli(["check", draft, ...s, "--format", "github"], dir);
      assert.equal(check.code, 0, check.out);
      assert.match(
        check.out,
        new RegExp(`title=approved::approved by gov-lead \\(proposal ${short}\\)`),
      );
      fs.writeFileSync(draft, text.trimEnd());
      assert.match((await cli(["publish", draft, ...s], dir)).out, /no proposal of these bytes/);
      fs.writeFileSync(draft, text);
      const published = await cli(["publish", draft, ...s], dir);
      assert.equal(published.code, 0, published.out);
      assert.match(published.out, /approved by gov-lead/);
      const listed = JSON.parse((await cli(["proposals", ...s, "--json"], dir)).out).proposals;
      assert.deepEqual(listed.map((p: Proposal) => [p.id, p.state]), [[id, "published"]]);

      // Exported as a folder, the published version is the approved spec.
      const exported = await cli(["export", ...s, "--to", "out"], dir);
      assert.equal(exported.code, 0, exported.out);
      assert.deepEqual(
        JSON.parse(fs.readFileSync(path.join(dir, "out/tools/payments.lookup/3.0.0.json"), "utf8")),
        v2,
      );

      // Two owners decide one proposal at once, from two stores: exactly one decision holds.
      const a = await PgEstateStore.open(url);
      const b = await PgEstateStore.open(url);
      try {
        v2.version = "4.0.0";
        delete v2.inputSchema.properties.currency;
        const text4 = JSON.stringify(v2, null, 2) + "\n";
        fs.writeFileSync(draft, text4);
        assert.equal((await cli(["propose", draft, ...s, "--as", "gov-lead"], dir)).code, 0);
        const id4 = proposalId(text4);
        const at = "2026-12-01T10:00:00.000Z";
        const results = await Promise.allSettled([
          a.recordProposal({ kind: "approve", id: id4, principal: "ana", at }),
          b.recordProposal({ kind: "reject", id: id4, principal: "ben", at, reason: "no" }),
        ]);
        const won = results.filter((r) => r.status === "fulfilled");
        const lost = results.filter((r) => r.status === "rejected");
        assert.equal(won.length, 1, JSON.stringify(results));
        assert.ok((lost[0] as PromiseRejectedResult).reason instanceof ProposalError);
        const final = (await a.proposals()).find((p) => p.id === id4)!;
        assert.ok(final.state === "approved" || final.state === "rejected");
        assert.equal(final.approvals.length + (final.rejection ? 1 : 0), 1);
      } finally {
        await a.close();
        await b.close();
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
      await pg.stop();
    }
  },
});
