/**
 * The rule catalog and rules.json: every example gives its rule, docs/rules.md is the catalog,
 * and `estate check` applies an estate's severities and ignores (an expired ignore fails).
 */
import { type CliRun, estate } from "./_cli.ts";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { rulesMarkdown } from "../lib/cli/_rules_doc.ts";
import {
  applyRules,
  EXAMPLE_TOOL,
  parseRulesConfig,
  RULES,
  type RuleSubject,
} from "../lib/estate/rules.ts";
import {
  checkDraft,
  classifySchemaChange,
  driftNotices,
  SCHEMA_CHANGE_KINDS,
  type StoredCall,
  ToolRegistry,
  type ToolSpec,
} from "../mod.ts";

const CORPUS = new URL("../corpus/", import.meta.url).pathname;
const NOW = new Date("2026-11-30T12:00:00Z");

Deno.test("the catalog has a rule per schema change kind, then the checks, ids unique", () => {
  const ids = RULES.map((r) => r.id);
  assert.deepEqual(ids.slice(0, SCHEMA_CHANGE_KINDS.length), [
    ...SCHEMA_CHANGE_KINDS,
  ]);
  assert.equal(new Set(ids).size, ids.length);
  for (const r of RULES) {
    assert.ok(r.summary && r.meaning && r.example.gives, r.id);
    if (r.kind === "change") {
      assert.equal(
        r.defaultSeverity,
        r.usualBump === "major" ? "warning" : "info",
        r.id,
      );
    }
  }
});

Deno.test("every change rule's example, run through classifySchemaChange, gives that kind with its usual bump and message", () => {
  for (const r of RULES.filter((r) => r.kind === "change")) {
    const { changes } = classifySchemaChange(
      r.example.before!,
      r.example.after!,
    );
    const found = changes.filter((c) => c.kind === r.id).map((c) => `${c.bump}: ${c.message}`);
    assert.deepEqual(found, [r.example.gives], r.id);
    assert.ok(r.example.gives.startsWith(`${r.usualBump}: `), r.id);
  }
});

Deno.test("every check rule's example with a draft, run through checkDraft, gives a finding of that code and message", () => {
  let ran = 0;
  for (const r of RULES.filter((r) => r.kind === "check" && r.example.draft)) {
    const e = r.example;
    const calls: StoredCall[] = (e.calls ?? []).map((args) => ({
      version: e.published?.version ?? "1.0.0",
      arguments: args,
      principal: "ops-bot",
      at: "2026-11-01T09:00:00.000Z",
    }));
    const registry = new ToolRegistry({
      now: () => NOW,
      storedCalls: () => calls,
    });
    if (e.published) {
      registry.publish({ ...EXAMPLE_TOOL, ...e.published } as ToolSpec);
    }
    const report = checkDraft(
      { ...EXAMPLE_TOOL, ...e.draft } as ToolSpec,
      registry,
    );
    const messages = report.findings.filter((f) => f.code === r.id).map((f) => f.message);
    assert.ok(
      messages.includes(e.gives),
      `${r.id}: ${JSON.stringify(report.findings)}`,
    );
    ran++;
  }
  // hidden-tool and server need principals or servers; spec, unreadable, the drift-* rules and
  // ignore-expired are not checkDraft's: the CLI tests below run those (needs-approval and
  // approved need a proposal: tests/proposals_test.ts runs those).
  assert.equal(ran, RULES.filter((r) => r.kind === "check").length - 11);
});

Deno.test("every drift-* rule's example record, through driftNotices on the example tool, gives a notice of that code and message", () => {
  const registry = new ToolRegistry({ now: () => NOW });
  registry.publish(EXAMPLE_TOOL);
  const drift = RULES.filter((r) => r.id.startsWith("drift-"));
  assert.deepEqual(drift.map((r) => r.id), [
    "drift-quarantined",
    "drift-description",
    "drift-dropped-tool",
    "drift-unavailable",
  ]);
  for (const r of drift) {
    const notices = driftNotices(
      [JSON.parse(r.example.input!)],
      EXAMPLE_TOOL.name,
      registry,
    );
    assert.deepEqual(notices.map((n) => [n.code, n.message]), [[
      r.id,
      r.example.gives,
    ]], r.id);
  }
});

Deno.test("docs/rules.md is the catalog: each rule's heading, meaning and example", () => {
  const squash = (s: string) => s.replace(/\s+/g, " ").trim();
  const doc = fs.readFileSync(
    new URL("../docs/rules.md", import.meta.url),
    "utf8",
  );
  assert.equal(
    squash(doc),
    squash(rulesMarkdown()),
    "regenerate: deno run --allow-write scripts/rules_doc.ts && deno fmt docs/rules.md",
  );
  for (const r of RULES) {
    assert.match(doc, new RegExp(`^### ${r.id}$`, "m"));
    assert.ok(squash(doc).includes(squash(r.meaning)), r.id);
    assert.ok(squash(doc).includes(r.example.gives), r.id);
  }
});

Deno.test("parseRulesConfig() refuses unknown rules, bad settings, fixed rules lowered or ignored, ignores without reason or expiry, bad dates", () => {
  const problems = (v: unknown) =>
    parseRulesConfig(v).problems.map((p) => `${JSON.stringify(p.path)} ${p.message}`);
  assert.deepEqual(
    problems({ rules: { "property-removed": "error", "version-ok": "off" } }),
    [],
  );
  assert.deepEqual(problems({ rules: { "no-such": "off" } }), [
    '["rules","no-such"] unknown rule "no-such"; estate rules lists them',
  ]);
  assert.deepEqual(problems({ rules: { "enum-narrowed": "fatal" } }), [
    '["rules","enum-narrowed"] must be one of "error", "warning", "info", "off", not "fatal"',
  ]);
  assert.deepEqual(problems({ rules: { "version-too-low": "warning" } }), [
    '["rules","version-too-low"] version-too-low is a refusal of publish: it stays an error (it cannot be set to warning)',
  ]);
  assert.deepEqual(problems({ ignore: [{ rule: "enum-narrowed" }] }), [
    '["ignore",0] reason is required: say why the finding is ignored',
    '["ignore",0] expires is required: the last day the ignore holds, YYYY-MM-DD',
  ]);
  assert.deepEqual(
    problems({
      ignore: [{ rule: "rejected-calls", reason: "x", expires: "2027-02-30" }],
    }),
    [
      '["ignore",0,"rule"] rejected-calls is a refusal of publish: it cannot be ignored',
      '["ignore",0,"expires"] expires must be a calendar date YYYY-MM-DD, not "2027-02-30"',
    ],
  );
  assert.deepEqual(problems({ rules: [], extra: 1 }), [
    '["extra"] unknown field extra: expected rules and ignore',
    '["rules"] must be an object of rule id to severity',
  ]);
});

Deno.test("applyRules() sets severities, drops off rules and active ignores (by tool, field, path and under it), keeps fixed rules, reports expired ignores", () => {
  const { config } = parseRulesConfig({
    rules: {
      "property-removed": "error",
      "property-added": "off",
      "version-too-low": "error",
    },
    ignore: [
      {
        rule: "enum-narrowed",
        tool: "a.b",
        path: "$.properties.c",
        reason: "r",
        expires: "2026-11-30",
      },
      { rule: "description", reason: "old", expires: "2026-11-29" },
    ],
  });
  const f = (rule: string, extra: Record<string, string> = {}) => ({
    rule,
    severity: "warning" as const,
    tool: "a.b",
    field: "inputSchema",
    ...extra,
  });
  const applied = applyRules(
    [
      f("property-removed", { path: "$.properties.x" }),
      f("property-added", { path: "$.properties.y" }),
      f("enum-narrowed", { path: "$.properties.c.items" }),
      f("enum-narrowed", { path: "$.properties.cd" }),
      f("enum-narrowed", { path: "$.properties.c", tool: "other.tool" }),
      f("description", { field: "description" }),
      { rule: "version-too-low", severity: "error" as const },
    ],
    config,
    NOW,
  );
  assert.deepEqual(
    applied.findings.map((
      x: RuleSubject,
    ) => [x.rule, x.severity, x.path ?? x.tool]),
    [
      ["property-removed", "error", "$.properties.x"],
      ["enum-narrowed", "warning", "$.properties.cd"],
      ["enum-narrowed", "warning", "$.properties.c"],
      ["description", "warning", "a.b"], // its ignore expired the day before
      ["version-too-low", "error", undefined],
    ],
  );
  assert.equal(applied.ignored, 1);
  assert.equal(applied.off, 1);
  assert.deepEqual(applied.expired.map((i) => i.rule), ["description"]);
  // The ignore holds through its day, UTC: the next day it has expired.
  assert.equal(
    applyRules([], config, new Date("2026-12-01T00:00:00Z")).expired.length,
    2,
  );
});

// ---------------------------------------------------------------- through the CLI

function run(args: string[], cwd: string): Promise<CliRun> {
  return estate(args, cwd, () => NOW);
}

/** A scratch estate with `minor.tool.json`: payments.lookup@2.1.0 adding `channel`, removing nothing. */
async function withEstate(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "estate-rules-" });
  try {
    fs.cpSync(CORPUS, path.join(dir, "corpus"), { recursive: true });
    const spec = JSON.parse(
      fs.readFileSync(
        path.join(dir, "corpus/tools/payments.lookup/2.0.0.json"),
        "utf8",
      ),
    );
    spec.version = "3.0.0";
    delete spec.inputSchema.properties.includeHistory;
    spec.inputSchema.properties.channel = { type: "string" };
    fs.writeFileSync(
      path.join(dir, "major.tool.json"),
      JSON.stringify(spec, null, 2),
    );
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

const writeRules = (dir: string, value: unknown) =>
  fs.writeFileSync(
    path.join(dir, "corpus/rules.json"),
    JSON.stringify(value, null, 2),
  );

Deno.test("estate check applies the estate's rules.json: error fails a covered change, off drops a rule", async () => {
  await withEstate(async (dir) => {
    const plain = await run(["check", "major.tool.json"], dir);
    assert.equal(plain.code, 0, plain.out);
    assert.match(plain.out, /warning property-removed /);
    writeRules(dir, {
      rules: { "property-removed": "error", "property-added": "off" },
    });
    const strict = await run(["check", "major.tool.json"], dir);
    assert.equal(strict.code, 1, strict.out);
    assert.match(strict.out, /^FAIL major\.tool\.json/m);
    assert.match(
      strict.out,
      /major\.tool\.json:\d+:\d+: error +property-removed inputSchema \$\.properties\.includeHistory/,
    );
    assert.doesNotMatch(strict.out, /property-added/);
  });
});

Deno.test("estate check: an active ignore suppresses, an expired one fails at its entry in rules.json", async () => {
  await withEstate(async (dir) => {
    const ignore = {
      rule: "property-removed",
      tool: "payments.lookup",
      path: "$.properties.includeHistory",
      reason: "history moved to payments.history",
    };
    writeRules(dir, {
      rules: { "property-removed": "error" },
      ignore: [{ ...ignore, expires: "2026-11-30" }],
    });
    const active = await run(["check", "major.tool.json"], dir);
    assert.equal(active.code, 0, active.out);
    assert.doesNotMatch(active.out, /property-removed/);
    writeRules(dir, {
      rules: { "property-removed": "error" },
      ignore: [{ ...ignore, expires: "2026-11-29" }],
    });
    const expired = await run([
      "check",
      "major.tool.json",
      "--format",
      "github",
    ], dir);
    assert.equal(expired.code, 1, expired.out);
    const lines = expired.out.trimEnd().split("\n");
    // `"expires": "2026-11-29"` is line 11 of the pretty-printed file, its value at column 18.
    const text = fs.readFileSync(path.join(dir, "corpus/rules.json"), "utf8")
      .split("\n");
    assert.equal(text[10], '      "expires": "2026-11-29"');
    assert.ok(
      lines.includes(
        "::error file=corpus/rules.json,line=11,col=18,endLine=11,endColumn=30,title=ignore-expired::ignore of property-removed (tool payments.lookup, path $.properties.includeHistory) expired on 2026-11-29 (history moved to payments.history): fix the findings or renew it",
      ),
      expired.out,
    );
    assert.ok(
      lines.some((l) =>
        l.startsWith("::error file=major.tool.json,") &&
        l.includes("title=property-removed")
      ),
    );
  });
});

Deno.test("estate check refuses a bad rules.json with exit 2, naming file, line and column", async () => {
  await withEstate(async (dir) => {
    writeRules(dir, { rules: { "property-removd": "error" } });
    const r = await run(["check", "major.tool.json"], dir);
    assert.equal(r.code, 2);
    assert.equal(
      r.err,
      'estate: corpus/rules.json:3:24: unknown rule "property-removd"; estate rules lists them\n',
    );
    writeRules(dir, { ignore: [{ rule: "enum-narrowed", expires: "soon" }] });
    const e = await run(["check", "major.tool.json", "--json"], dir);
    assert.equal(e.code, 2);
    assert.match(
      JSON.parse(e.out).message,
      /^corpus\/rules\.json:3:5: reason is required: say why the finding is ignored; corpus\/rules\.json:5:18: expires must be a calendar date YYYY-MM-DD, not "soon"$/,
    );
    fs.writeFileSync(path.join(dir, "corpus/rules.json"), '{"rules": {,}}');
    assert.match(
      (await run(["check", "major.tool.json"], dir)).err,
      /corpus\/rules\.json:1:12: not valid JSON/,
    );
    const missing = await run([
      "check",
      "major.tool.json",
      "--rules",
      "nope.json",
    ], dir);
    assert.equal(missing.code, 2);
    assert.match(missing.err, /cannot read nope\.json/);
  });
});

Deno.test("estate rules lists every rule with its default severity, and --json the catalog", async () => {
  const text = await run(["rules"], Deno.cwd());
  assert.equal(text.code, 0);
  for (const r of RULES) {
    assert.match(
      text.out,
      new RegExp(`^  ${r.id} +${r.defaultSeverity}\\b`, "m"),
      r.id,
    );
  }
  assert.match(
    text.out,
    /^ {2}version-too-low +error +the draft's version is too low for its change \[fixed\]$/m,
  );
  assert.match(
    text.out,
    /^ {2}enum-narrowed +warning \(major\) +enum added, or a value removed from it$/m,
  );
  const json = JSON.parse((await run(["rules", "--json"], Deno.cwd())).out);
  assert.deepEqual(
    json.rules.map((r: { id: string }) => r.id),
    RULES.map((r) => r.id),
  );
  assert.equal((await run(["rules", "extra"], Deno.cwd())).code, 2);
});
