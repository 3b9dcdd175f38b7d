import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { EstateSnapshot } from "../extension/src/estate.ts";
import { checkDraft } from "../mod.ts";
import { EstateDir } from "../lib/store/mod.ts";

const CORPUS = new URL("../corpus/", import.meta.url).pathname;
/** The example estate's own time: its payments.lookup@1.0.0 retires by itself after 2027-03-31. */
const CORPUS_NOW = () => new Date("2026-11-30T12:00:00Z");

function draft(): Parameters<typeof checkDraft>[0] {
  const spec = JSON.parse(
    fs.readFileSync(
      path.join(CORPUS, "tools/payments.lookup/2.0.0.json"),
      "utf8",
    ),
  );
  spec.version = "2.1.0";
  spec.inputSchema.required = ["reference", "includeHistory"];
  return spec;
}

Deno.test("EstateSnapshot.check() reports exactly what checkDraft reports against the estate on disk", () => {
  const snapshot = EstateSnapshot.load(CORPUS, { now: CORPUS_NOW });
  const expected = checkDraft(
    draft(),
    EstateDir.open(CORPUS, { now: CORPUS_NOW }).registry,
  );
  assert.deepEqual(snapshot.check(draft()), expected);
  assert.ok(expected.rejected.count > 0, "the draft rejects stored calls");
  assert.deepEqual(
    snapshot.registry.versions("payments.lookup").map((
      r,
    ) => [r.spec.version, r.state]),
    [["1.0.0", "deprecated"], ["1.1.0", "active"], ["2.0.0", "active"]],
  );
});

Deno.test("EstateSnapshot reads a tool's stored calls once and keeps them", async () => {
  const dir = await Deno.makeTempDir({ prefix: "estate-snapshot-" });
  try {
    fs.cpSync(CORPUS, dir, { recursive: true });
    const snapshot = EstateSnapshot.load(dir);
    const first = snapshot.check(draft());
    // The calls file goes away: the snapshot answers from memory, the same as before.
    fs.rmSync(path.join(dir, "tools/payments.lookup/calls.jsonl"));
    assert.deepEqual(snapshot.check(draft()), first);
    assert.equal(snapshot.calls("payments.lookup").length, 300);
    // A new load sees the folder as it is now.
    assert.equal(EstateSnapshot.load(dir).check(draft()).rejected.count, 0);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("EstateSnapshot.empty() treats every draft as a new tool", () => {
  const report = EstateSnapshot.empty("nowhere").check(draft());
  assert.equal(report.baseline, undefined);
  assert.equal(report.ok, true);
});

Deno.test("EstateSnapshot.load() refuses a folder that does not exist, naming it", () => {
  assert.throws(
    () => EstateSnapshot.load("/no/such/estate"),
    /\/no\/such\/estate: no such folder/,
  );
});

Deno.test("EstateSnapshot keeps the server records, and reads drift.jsonl again only when it changed", async () => {
  const dir = await Deno.makeTempDir({ prefix: "estate-snapshot-" });
  try {
    fs.cpSync(CORPUS, dir, { recursive: true });
    const disk = EstateDir.open(dir);
    disk.registerServer({
      id: "crm-mcp",
      owner: "crm-team",
      description: "The CRM team's MCP server.",
      upstream: {
        kind: "http",
        url: "https://crm.internal/mcp",
        identity: { spiffeId: "spiffe://bank.example/crm" },
      },
      tools: ["crm.customer.get"],
    });
    const snapshot = EstateSnapshot.load(dir);
    assert.equal(
      snapshot.registry.serverFor("crm.customer.get")?.id,
      "crm-mcp",
    );
    assert.deepEqual(snapshot.drift(), []);
    const record = {
      at: "2026-12-01T09:00:00.000Z",
      server: "crm-mcp",
      tool: "crm.customer.get",
      registeredVersion: "1.0.0",
      kind: "quarantined" as const,
      bump: "major" as const,
      details: "crm.customer.get quarantined",
    };
    disk.appendDrift([record]);
    const first = snapshot.drift();
    assert.deepEqual(first, [record]);
    assert.equal(
      snapshot.drift(),
      first,
      "unchanged on disk: the records kept, not read again",
    );
    assert.deepEqual(
      snapshot.driftNotices("crm.customer.get").map((n) => n.code),
      [
        "drift-quarantined",
      ],
    );
    disk.appendDrift([{
      ...record,
      at: "2026-12-01T10:00:00.000Z",
      kind: "cleared",
    }]);
    assert.equal(snapshot.drift().length, 2);
    assert.deepEqual(snapshot.driftNotices("crm.customer.get"), []);
    // A bad line is an error naming it, until the file changes.
    fs.appendFileSync(path.join(dir, "drift.jsonl"), "{}\n");
    assert.throws(() => snapshot.drift(), /drift\.jsonl:3: not a drift record/);
    assert.throws(() => snapshot.drift(), /drift\.jsonl:3/);
    fs.rmSync(path.join(dir, "drift.jsonl"));
    assert.deepEqual(snapshot.drift(), []);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
