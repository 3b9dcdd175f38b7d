import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { writeEstate } from "../scripts/make_corpus.ts";
import { DEMO_TOKENS } from "../lib/cli/demo_tokens.ts";

const CORPUS = new URL("../corpus/", import.meta.url).pathname;

/** The audit log `estate serve` keeps of the example estate: lived, not shipped (git ignores it). */
const AUDIT = new Set(["audit.jsonl", "audit-checkpoints.jsonl", ".audit-lock"]);

function files(dir: string, rel = ""): string[] {
  return fs.readdirSync(path.join(dir, rel), { withFileTypes: true })
    .filter((e) => rel !== "" || !AUDIT.has(e.name))
    .flatMap((e) => e.isDirectory() ? files(dir, path.join(rel, e.name)) : [path.join(rel, e.name)])
    .filter((f) => f !== "README.md").sort();
}

Deno.test("scripts/make_corpus.ts rebuilds the shipped corpus byte for byte", async () => {
  const dir = await Deno.makeTempDir({ prefix: "corpus-" });
  try {
    writeEstate(dir);
    assert.deepEqual(files(dir), files(CORPUS));
    for (const f of files(CORPUS)) {
      assert.equal(
        fs.readFileSync(path.join(dir, f), "utf8"),
        fs.readFileSync(path.join(CORPUS, f), "utf8"),
        f,
      );
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("the example estate has several versions of payments.lookup, one deprecated, and a few hundred calls per tool", () => {
  const tools = fs.readdirSync(path.join(CORPUS, "tools")).sort();
  assert.deepEqual(tools, [
    "crm.customer.get",
    "drafts.review",
    "fx.quote",
    "payments.lookup",
    "payments.release",
    "policy.search",
    "policy.summarize",
    "retail.transfers.lookup",
    "risk.exposure.get",
  ]);
  const lifecycle = JSON.parse(
    fs.readFileSync(
      path.join(CORPUS, "tools/payments.lookup/lifecycle.json"),
      "utf8",
    ),
  );
  assert.deepEqual(Object.keys(lifecycle), ["1.0.0", "1.1.0", "2.0.0"]);
  assert.equal(lifecycle["1.0.0"].at(-1).state, "deprecated");
  const release = JSON.parse(
    fs.readFileSync(
      path.join(CORPUS, "tools/payments.release/1.0.0.json"),
      "utf8",
    ),
  );
  assert.deepEqual([
    release.sideEffect,
    release.dataClassification,
    release.tenants,
  ], [
    "irreversible",
    "restricted",
    ["wholesale"],
  ]);
  for (const t of tools) {
    const lines = fs.readFileSync(path.join(CORPUS, "tools", t, "calls.jsonl"), "utf8")
      .trim().split("\n")
      .length;
    assert.ok(lines >= 200 && lines <= 1000, `${t}: ${lines} calls`);
  }
});

Deno.test("the shipped principals.json stores token hashes, never tokens; each is the SHA-256 of the demo token estate serve prints", () => {
  const text = fs.readFileSync(path.join(CORPUS, "principals.json"), "utf8");
  for (const token of Object.values(DEMO_TOKENS)) {
    assert.ok(!text.includes(token), token);
  }
  const principals = JSON.parse(text);
  assert.deepEqual(
    principals.map((p: { id: string }) => p.id),
    Object.keys(DEMO_TOKENS),
  );
  for (const p of principals) {
    assert.equal(p.token, undefined, p.id);
    const digest = createHash("sha256").update(DEMO_TOKENS[p.id]).digest("hex");
    assert.equal(p.tokenSha256, digest, p.id);
  }
});
