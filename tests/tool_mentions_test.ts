/**
 * A description that names another tool some of its principals may not see: flagged exactly
 * (against a brute-force search over principals), refused by publish, an error of `estate check`
 * and the editor; platform metadata stays a warning. The example estate has none.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import fc from "fast-check";
import { runCli } from "../lib/cli/main.ts";
import { EstateDir } from "../lib/store/mod.ts";
import {
  canSee,
  checkDraft,
  DATA_CLASSIFICATIONS,
  type DataClassification,
  hiddenToolMentions,
  type Principal,
  PublishError,
  ToolRegistry,
  type ToolSpec,
} from "../mod.ts";

const CORPUS = new URL("../corpus/", import.meta.url).pathname;

function tool(name: string, changes: Partial<ToolSpec> = {}): ToolSpec {
  return {
    name,
    version: "1.0.0",
    title: name,
    description: `Reads the ${name.split(".")[0]} system of record.`,
    inputSchema: { type: "object" },
    sideEffect: "read",
    requiredScopes: [],
    dataClassification: "internal",
    tenants: [],
    owner: "team",
    ...changes,
  };
}

const lookup = tool("payments.lookup", {
  requiredScopes: ["payments:read"],
  dataClassification: "confidential",
  tenants: ["wholesale"],
});
const transfers = tool("retail.transfers.lookup", {
  requiredScopes: ["transfers:read"],
  dataClassification: "confidential",
  tenants: ["retail"],
  description: "Reads retail transfers. Does not cover wholesale payments: use payments.lookup.",
});

Deno.test("hiddenToolMentions() flags a named tool some of the describer's principals may not see, with the weakest of them", () => {
  const registry = new ToolRegistry();
  registry.publish(lookup);
  assert.deepEqual(hiddenToolMentions(transfers, registry), [{
    tool: "payments.lookup",
    who: "a principal of tenant retail with scopes transfers:read and clearance confidential",
  }]);
  // Whoever sees payments.release sees payments.lookup: no leak.
  const release = tool("payments.release", {
    requiredScopes: ["payments:read", "payments:release"],
    dataClassification: "restricted",
    tenants: ["wholesale"],
    description: "Releases a held payment. Use payments.lookup first.",
  });
  assert.deepEqual(hiddenToolMentions(release, registry), []);
  // A tool open to every tenant naming a tenant's tool: anyone outside that tenant.
  const open = tool("policy.search", {
    description: "Searches policies; see payments.lookup.",
  });
  assert.deepEqual(hiddenToolMentions(open, registry), [{
    tool: "payments.lookup",
    who: "a principal of a tenant other than wholesale with no scopes and clearance internal",
  }]);
});

Deno.test("hiddenToolMentions() matches whole names only, skips the tool itself and tools nobody discovers", () => {
  const registry = new ToolRegistry();
  registry.publish(lookup);
  registry.publish(tool("fx.quote", { requiredScopes: ["fx:quote"] }));
  const say = (description: string) =>
    hiddenToolMentions({ ...transfers, description }, registry).map((m) => m.tool);
  assert.deepEqual(say("Ends a sentence with payments.lookup."), [
    "payments.lookup",
  ]);
  assert.deepEqual(say("Quoted: `payments.lookup`, (payments.lookup)"), [
    "payments.lookup",
  ]);
  assert.deepEqual(
    say("Not payments.lookups, not xpayments.lookup, not payments.lookup.v2"),
    [],
  );
  assert.deepEqual(
    say("Not payments.lookup-old or payments.lookup_2 either"),
    [],
  );
  assert.deepEqual(say("Both payments.lookup and fx.quote."), [
    "fx.quote",
    "payments.lookup",
  ]);
  assert.deepEqual(
    hiddenToolMentions(
      { ...lookup, description: "This is payments.lookup." },
      registry,
    ),
    [],
  );
  registry.deprecate("fx.quote", "1.0.0");
  assert.deepEqual(say("Both payments.lookup and fx.quote."), [
    "payments.lookup",
  ]);
});

const SCOPES = ["a:read", "b:read", "c:write"];
const TENANTS = ["retail", "wholesale", "group"];

const rule = fc.record({
  requiredScopes: fc.subarray(SCOPES),
  tenants: fc.subarray(TENANTS),
  dataClassification: fc.constantFrom(...DATA_CLASSIFICATIONS),
});

/** Every principal over the vocabulary, plus a tenant no tool lists. */
const EVERYONE: Principal[] = (() => {
  const out: Principal[] = [];
  for (let mask = 0; mask < 1 << SCOPES.length; mask++) {
    const scopes = SCOPES.filter((_, i) => mask & (1 << i));
    for (const tenant of [...TENANTS, "elsewhere"]) {
      for (const clearance of DATA_CLASSIFICATIONS) {
        out.push({
          id: "p",
          scopes,
          tenant,
          clearance: clearance as DataClassification,
        });
      }
    }
  }
  return out;
})();

Deno.test("property: a mention is flagged exactly when some principal sees the describer but no active version of the named tool", () => {
  fc.assert(
    fc.property(
      rule,
      fc.array(rule, { minLength: 1, maxLength: 3 }),
      (a, bs) => {
        const registry = new ToolRegistry();
        const versions = bs.map((b, i) => tool("b.tool", { ...b, version: `${i + 1}.0.0` }));
        for (const v of versions) registry.publish(v);
        const describer = tool("a.tool", {
          ...a,
          description: "Use b.tool for the rest.",
        });
        const flagged = hiddenToolMentions(describer, registry).length > 0;
        const witness = EVERYONE.some((p) =>
          canSee(describer, p) && !versions.some((v) => canSee(v, p))
        );
        assert.equal(flagged, witness, JSON.stringify({ a, bs }));
      },
    ),
    { numRuns: 500 },
  );
});

Deno.test("publish() refuses a description naming a tool some of its principals may not see; checkDraft() makes it an error at the description", () => {
  const registry = new ToolRegistry();
  registry.publish(lookup);
  assert.throws(
    () => registry.publish(transfers),
    (e: unknown) =>
      e instanceof PublishError && e.refusal === "names-hidden-tool" &&
      e.message ===
        "Cannot publish retail.transfers.lookup@1.0.0: its description names payments.lookup, which a principal who sees this tool may not see (a principal of tenant retail with scopes transfers:read and clearance confidential): the name would reach them; describe the boundary (what this tool does not cover), not the other tool",
  );
  assert.equal(registry.latest("retail.transfers.lookup"), undefined);
  const report = checkDraft(transfers, registry);
  assert.equal(report.ok, false);
  assert.deepEqual(report.findings.filter((f) => f.code === "hidden-tool"), [{
    severity: "error",
    code: "hidden-tool",
    target: { field: "description" },
    message:
      "description names payments.lookup, which a principal who sees this tool may not see (a principal of tenant retail with scopes transfers:read and clearance confidential): the name would reach them; describe the boundary (what this tool does not cover), not the other tool",
  }]);
  assert.equal(
    registry.publish({
      ...transfers,
      description: "Reads retail transfers. Not wholesale payments.",
    })
      .status,
    "published",
  );
});

Deno.test("publish() does not refuse platform metadata in a description: checkDraft() warns, a person decides", () => {
  const registry = new ToolRegistry();
  const noisy = {
    ...lookup,
    description: "Owned by payments-platform; needs scope payments:read. Reads payments.",
  };
  const report = checkDraft(noisy, registry);
  assert.equal(report.ok, true);
  assert.ok(report.findings.length >= 2);
  for (const f of report.findings) {
    assert.deepEqual([f.severity, f.code], ["warning", "description"]);
  }
  assert.match(
    report.findings.map((f) => f.message).join("\n"),
    /required scope "payments:read"/,
  );
  assert.equal(registry.publish(noisy).status, "published");
});

Deno.test("the example estate: no description names a tool some of its principals may not see", () => {
  const estate = EstateDir.open(CORPUS);
  const found = estate.registry.names().flatMap((name) =>
    estate.registry.versions(name).filter((r) => r.state !== "retired").flatMap(
      (r) =>
        hiddenToolMentions(r.spec, estate.registry).map((m) =>
          `${name}@${r.spec.version}: ${m.tool}`
        ),
    )
  );
  assert.deepEqual(found, []);
});

Deno.test("estate check fails a draft whose description names a tool its principals may not see", async () => {
  const dir = await Deno.makeTempDir({ prefix: "estate-mentions-" });
  try {
    fs.cpSync(CORPUS, path.join(dir, "corpus"), { recursive: true });
    const spec = JSON.parse(
      fs.readFileSync(
        path.join(dir, "corpus/tools/retail.transfers.lookup/1.1.0.json"),
        "utf8",
      ),
    );
    spec.version = "1.1.1";
    spec.description += " For wholesale payments use payments.lookup.";
    fs.writeFileSync(
      path.join(dir, "transfers.tool.json"),
      JSON.stringify(spec, null, 2),
    );
    let out = "";
    const code = await runCli(["check", "transfers.tool.json"], {
      stdout: (t) => (out += t),
      stderr: (t) => (out += t),
      isTerminal: false,
      cwd: dir,
    });
    assert.equal(code, 1, out);
    assert.match(
      out,
      /transfers\.tool\.json:\d+:\d+: error +hidden-tool description: description names payments\.lookup, which a principal who sees this tool may not see \(a principal of tenant retail with scopes transfers:read and clearance confidential\)/,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
