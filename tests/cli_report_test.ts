/**
 * `estate check --format …`: SARIF 2.1.0 valid against the SARIF JSON Schema (checked with this
 * library's own validator), JUnit XML read back with an independent parser, GitHub annotations at
 * exactly the places the editor puts its diagnostics, and the text report's `file:line:col`.
 */
import { type CliRun, estate } from "./_cli.ts";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { XMLParser } from "fast-xml-parser";
import { escapeGithubData, escapeGithubProperty, githubAnnotation } from "../lib/report/render.ts";
import { RULES } from "../lib/estate/rules.ts";
import { checkToolFile } from "../extension/src/check_file.ts";
import { EstateSnapshot } from "../extension/src/estate.ts";
import { compileSchema, type JsonSchema } from "../mod.ts";

const CORPUS = new URL("../corpus/", import.meta.url).pathname;
const NOW = () => new Date("2026-11-30T12:00:00Z");
/**
 * The SARIF 2.1.0 schema as npm ships it: @microsoft/jest-sarif's `sarif-2.1.0-rtm.5.json`
 * (schemastore's copy, draft-04, MIT). It differs from OASIS's errata01 `sarif-schema-2.1.0.json`
 * only in descriptions, a `type: "string"` beside some enums and `language`'s pattern; no npm
 * package ships the OASIS file itself.
 */
const SARIF_SCHEMA = new URL(
  "../node_modules/@microsoft/jest-sarif/lib/schemas/sarif-2.1.0-rtm.5.json",
  import.meta.url,
);

function run(args: string[], cwd: string): Promise<CliRun> {
  return estate(args, cwd, NOW);
}

/**
 * A scratch estate with three drafts: `lookup.tool.json` (a major change as a minor, with a
 * removed and an added property: errors, a warning and infos), `ok.tool.json` (a clean minor)
 * and `broken.tool.json` (not a valid spec).
 */
async function withDrafts(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "estate-report-" });
  try {
    fs.cpSync(CORPUS, path.join(dir, "corpus"), { recursive: true });
    const base = JSON.parse(
      fs.readFileSync(
        path.join(dir, "corpus/tools/payments.lookup/2.0.0.json"),
        "utf8",
      ),
    );
    const lookup = structuredClone(base);
    lookup.version = "2.1.0";
    delete lookup.inputSchema.properties.includeHistory;
    lookup.inputSchema.properties.channel = { type: "string" };
    fs.writeFileSync(
      path.join(dir, "lookup.tool.json"),
      JSON.stringify(lookup, null, 2),
    );
    const ok = structuredClone(base);
    ok.version = "2.1.0";
    ok.inputSchema.properties.note = { type: "string" };
    fs.writeFileSync(
      path.join(dir, "ok.tool.json"),
      JSON.stringify(ok, null, 2),
    );
    fs.writeFileSync(
      path.join(dir, "broken.tool.json"),
      JSON.stringify({ name: "x.y", version: "1.0.0" }, null, 2),
    );
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

const FILES = ["lookup.tool.json", "ok.tool.json"];

Deno.test("estate check --format sarif is valid SARIF 2.1.0 against its JSON Schema, with every rule and each result at its region", async () => {
  await withDrafts(async (dir) => {
    const r = await run(["check", ...FILES, "--format", "sarif"], dir);
    assert.equal(r.code, 1, r.err);
    const log = JSON.parse(r.out);
    const schema = JSON.parse(
      fs.readFileSync(SARIF_SCHEMA, "utf8"),
    ) as JsonSchema;
    assert.deepEqual(compileSchema(schema)(log), []);
    // The schema is not vacuous under this validator: a wrong level and a missing message fail.
    const bad = structuredClone(log);
    bad.runs[0].results[0].level = "fatal";
    delete bad.runs[0].results[1].message;
    assert.deepEqual(
      compileSchema(schema)(bad).map((i) => i.path),
      ["$.runs[0].results[0].level", "$.runs[0].results[1].message"],
    );
    const run0 = log.runs[0];
    assert.equal(log.version, "2.1.0");
    assert.equal(run0.tool.driver.name, "tool-estate");
    assert.equal(run0.tool.driver.version, "0.1.0");
    assert.deepEqual(
      run0.tool.driver.rules.map((x: { id: string }) => x.id),
      RULES.map((x) => x.id),
    );
    const removed = run0.tool.driver.rules.find((x: { id: string }) => x.id === "property-removed");
    assert.equal(removed.defaultConfiguration.level, "warning");
    assert.match(
      removed.helpUri,
      /^file:\/\/.*\/docs\/rules\.md#property-removed$/,
    );
    assert.equal(removed.shortDescription.text, "a named property is gone");
    const results = run0.results as {
      ruleId: string;
      ruleIndex: number;
      level: string;
      locations: {
        physicalLocation: {
          artifactLocation: { uri: string };
          region: Record<string, number>;
        };
      }[];
    }[];
    assert.deepEqual(
      results.map((
        x,
      ) => [
        x.locations[0].physicalLocation.artifactLocation.uri,
        x.ruleId,
        x.level,
      ]),
      [
        ["lookup.tool.json", "version-too-low", "error"],
        ["lookup.tool.json", "rejected-calls", "error"],
        ["lookup.tool.json", "property-removed", "warning"],
        ["lookup.tool.json", "property-added", "note"],
        ["lookup.tool.json", "breaking-call", "note"],
        ["ok.tool.json", "version-ok", "note"],
        ["ok.tool.json", "property-added", "note"],
      ],
    );
    for (const x of results) assert.equal(RULES[x.ruleIndex].id, x.ruleId);
    // The region is the editor's diagnostic range, one-based.
    const text = fs.readFileSync(path.join(dir, "lookup.tool.json"), "utf8");
    const editor = editorDiagnostics(dir, text);
    const version = editor.find((d) => d.code === "version-too-low")!;
    assert.deepEqual(results[0].locations[0].physicalLocation.region, {
      startLine: version.range.start.line + 1,
      startColumn: version.range.start.character + 1,
      endLine: version.range.end.line + 1,
      endColumn: version.range.end.character + 1,
    });
    assert.equal(
      text.split("\n")[version.range.start.line].trim(),
      '"version": "2.1.0",',
    );
  });
});

/** What the editor shows for a file of the scratch estate. */
function editorDiagnostics(dir: string, text: string) {
  const snapshot = EstateSnapshot.load(path.join(dir, "corpus"), { now: NOW });
  return checkToolFile(text, {
    check: (spec) => snapshot.check(spec),
    estateLabel: "corpus/",
  }).diagnostics;
}

Deno.test("estate check --format github annotates each finding on the line and column the editor shows it", async () => {
  await withDrafts(async (dir) => {
    const r = await run(
      ["check", "lookup.tool.json", "--format", "github"],
      dir,
    );
    assert.equal(r.code, 1, r.err);
    const text = fs.readFileSync(path.join(dir, "lookup.tool.json"), "utf8");
    const editor = editorDiagnostics(dir, text);
    const lines = r.out.trimEnd().split("\n");
    assert.equal(lines.length, editor.length);
    const LEVEL: Record<number, string> = {
      1: "error",
      2: "warning",
      3: "notice",
      4: "notice",
    };
    const re =
      /^::(error|warning|notice) file=([^,]+),line=(\d+),col=(\d+),endLine=(\d+),endColumn=(\d+),title=([a-z-]+)::(.*)$/;
    const seen = new Set<number>();
    for (const line of lines) {
      const m = re.exec(line);
      assert.ok(m, line);
      const [, level, file, l, c, el, ec, title, message] = m;
      assert.equal(file, "lookup.tool.json");
      // The diagnostic of the same finding: the same message at the same place.
      const i = editor.findIndex((d, i) =>
        !seen.has(i) && d.message === message &&
        d.range.start.line + 1 === +l &&
        d.range.start.character + 1 === +c && d.range.end.line + 1 === +el &&
        d.range.end.character + 1 === +ec
      );
      assert.notEqual(i, -1, `no editor diagnostic at ${l}:${c} for ${line}`);
      seen.add(i);
      assert.equal(LEVEL[editor[i].severity], level);
      // The same rule id.
      assert.equal(title, editor[i].code);
    }
    // The removed property's warning is on the line of `properties` (its nearest node), the
    // added property's information on its key.
    const added = lines.find((l) => l.includes("title=property-added"))!;
    const at = +/,line=(\d+)/.exec(added)![1];
    assert.match(text.split("\n")[at - 1], /"channel": \{/);
  });
});

Deno.test("GitHub annotations escape %, CR and LF in the message, and : and , in properties", () => {
  assert.equal(escapeGithubData("100% a\r\nb"), "100%25 a%0D%0Ab");
  assert.equal(escapeGithubProperty("a:b,c%"), "a%3Ab%2Cc%25");
  assert.equal(
    githubAnnotation({
      rule: "enum-narrowed",
      severity: "info",
      message: "50% of\ncalls: gone, all",
      file: "dir,x/a:b.tool.json",
      line: 2,
      column: 3,
    }),
    "::notice file=dir%2Cx/a%3Ab.tool.json,line=2,col=3,title=enum-narrowed::50%25 of%0Acalls: gone, all",
  );
});

Deno.test("estate check --format junit reads back as a suite per file, a case per rule, a failure per failing rule", async () => {
  await withDrafts(async (dir) => {
    const r = await run([
      "check",
      ...FILES,
      "broken.tool.json",
      "--format",
      "junit",
    ], dir);
    assert.equal(r.code, 2, r.err); // a file could not be checked
    const parser = new XMLParser({
      ignoreAttributes: false,
      attributeNamePrefix: "",
      isArray: (name) => ["testsuite", "testcase"].includes(name),
    });
    const doc = parser.parse(r.out);
    const root = doc.testsuites;
    const suites = root.testsuite as {
      name: string;
      tests: string;
      failures: string;
      testcase: {
        name: string;
        classname: string;
        failure?: { message: string; type: string; "#text": string };
      }[];
    }[];
    assert.deepEqual(suites.map((s) => s.name), [...FILES, "broken.tool.json"]);
    const cases = (i: number) =>
      suites[i].testcase.map((c) => [c.name, c.failure ? "fail" : "pass"]);
    assert.deepEqual(cases(0), [
      ["version-too-low", "fail"],
      ["rejected-calls", "fail"],
      ["property-removed", "pass"],
      ["property-added", "pass"],
      ["breaking-call", "pass"],
    ]);
    assert.deepEqual(cases(1), [["version-ok", "pass"], [
      "property-added",
      "pass",
    ]]);
    assert.deepEqual(cases(2), [["spec", "fail"]]);
    assert.deepEqual(suites.map((s) => [+s.tests, +s.failures]), [[5, 2], [
      2,
      0,
    ], [1, 1]]);
    assert.equal(+root.tests, 8);
    assert.equal(+root.failures, 3);
    const tooLow = suites[0].testcase[0].failure!;
    assert.match(
      tooLow.message,
      /^change is major against payments\.lookup@2\.0\.0/,
    );
    assert.match(
      tooLow["#text"],
      /^lookup\.tool\.json:\d+:\d+: error +version-too-low version: /,
    );
    const spec = suites[2].testcase[0].failure!["#text"];
    assert.match(
      spec,
      /broken\.tool\.json:1:1: error +spec: title is required/,
    );
  });
});

Deno.test("estate check prints file:line:col per finding, and --json keeps its keys and adds the findings", async () => {
  await withDrafts(async (dir) => {
    const text = await run(["check", ...FILES], dir);
    assert.equal(text.code, 1);
    const lookup = fs.readFileSync(path.join(dir, "lookup.tool.json"), "utf8");
    const editor = editorDiagnostics(dir, lookup);
    const version = editor.find((d) => d.code === "version-too-low")!;
    assert.match(
      text.out,
      new RegExp(
        `^  lookup\\.tool\\.json:${version.range.start.line + 1}:${
          version.range.start.character + 1
        }: error +version-too-low version: change is major`,
        "m",
      ),
    );
    assert.match(
      text.out,
      /^ok {3}ok\.tool\.json: payments\.lookup@2\.1\.0 against/m,
    );
    assert.match(text.out, /^2 checked, 1 failed$/m);
    const json = JSON.parse(
      (await run(["check", ...FILES, "--json"], dir)).out,
    );
    const same = JSON.parse(
      (await run(["check", ...FILES, "--format", "json"], dir)).out,
    );
    assert.deepEqual(json, same);
    assert.deepEqual(Object.keys(json).sort(), [
      "command",
      "errors",
      "files",
      "findings",
      "ok",
      "omittedFindings",
      "reports",
    ]);
    assert.equal(json.ok, false);
    assert.equal(json.reports[0].minimumVersion, "3.0.0");
    assert.deepEqual(json.findings[0], {
      rule: "version-too-low",
      severity: "error",
      message: editor.find((d) => d.code === "version-too-low")!.message,
      file: "lookup.tool.json",
      line: version.range.start.line + 1,
      column: version.range.start.character + 1,
      endLine: version.range.end.line + 1,
      endColumn: version.range.end.character + 1,
      tool: "payments.lookup",
      version: "2.1.0",
      field: "version",
    });
    const bad = await run(["check", "--format", "xml"], dir);
    assert.equal(bad.code, 2);
    assert.match(
      bad.err,
      /--format takes one of text, json, sarif, junit, github, got "xml"/,
    );
    const both = await run(["check", "--json", "--format", "sarif"], dir);
    assert.equal(both.code, 2);
  });
});

Deno.test("estate diff and estate check --against render every format: SARIF valid against its schema, JUnit read back, GitHub annotations at the text's positions", async () => {
  await withDrafts(async (dir) => {
    const old = "corpus/tools/payments.lookup/2.0.0.json";
    // check --against DIR: the drafts against the same paths under a folder.
    const base = path.join(dir, "base");
    fs.mkdirSync(base);
    fs.copyFileSync(path.join(dir, old), path.join(base, "lookup.tool.json"));
    const commands: [string, string[]][] = [
      ["diff", ["diff", old, "lookup.tool.json"]],
      ["check --against", ["check", "lookup.tool.json", "--against", "base"]],
    ];
    const validate = compileSchema(
      JSON.parse(fs.readFileSync(SARIF_SCHEMA, "utf8")) as JsonSchema,
    );
    const parser = new XMLParser({
      ignoreAttributes: false,
      attributeNamePrefix: "",
    });
    for (const [name, args] of commands) {
      const text = await run(args, dir);
      assert.equal(text.code, 1, `${name}: ${text.out}${text.err}`);
      const json = JSON.parse(
        (await run([...args, "--format", "json"], dir)).out,
      );
      const findings = json.findings as {
        rule: string;
        severity: string;
        file: string;
        line: number;
        column: number;
        message: string;
      }[];
      assert.ok(findings.some((f) => f.rule === "property-removed"), name);
      // SARIF: valid, and each result where the finding is.
      const sarif = await run([...args, "--format", "sarif"], dir);
      assert.equal(sarif.code, 1, name);
      const log = JSON.parse(sarif.out);
      assert.deepEqual(
        validate(log),
        [],
        `${name}: SARIF valid against its schema`,
      );
      const results = log.runs[0].results as {
        ruleId: string;
        locations: {
          physicalLocation: {
            region: { startLine: number; startColumn: number };
          };
        }[];
      }[];
      assert.deepEqual(
        results.map((
          r,
        ) => [r.ruleId, r.locations[0].physicalLocation.region.startLine]),
        findings.map((f) => [f.rule, f.line]),
        name,
      );
      // JUnit: one failure per error finding.
      const junit = await run([...args, "--format", "junit"], dir);
      const xml = parser.parse(junit.out);
      assert.equal(
        Number(xml.testsuites.failures),
        findings.filter((f) => f.severity === "error").length,
        name,
      );
      // GitHub: one annotation per finding, on its line and column.
      const github = await run([...args, "--format", "github"], dir);
      const lines = github.out.trim().split("\n");
      assert.equal(lines.length, findings.length, name);
      for (const [i, f] of findings.entries()) {
        assert.match(
          lines[i],
          new RegExp(
            `^::(error|warning|notice) file=${
              f.file.replaceAll(".", "\\.")
            },line=${f.line},col=${f.column},.*title=${f.rule}::`,
          ),
          `${name}: ${lines[i]}`,
        );
      }
    }
  });
});
