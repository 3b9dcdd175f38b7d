/**
 * `estate diff OLD NEW`: tool files and bare schemas, each change at its node in NEW's text, exit
 * codes with `--fail-on`, and input errors as one line and exit 2.
 */
import { type CliRun, estate } from "./_cli.ts";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import fc from "fast-check";

const CORPUS = new URL("../corpus/", import.meta.url).pathname;
const LOOKUP = path.join(CORPUS, "tools/payments.lookup");

function run(args: string[], cwd: string): Promise<CliRun> {
  return estate(args, cwd);
}

async function inScratch(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "estate-diff-" });
  try {
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

function write(dir: string, file: string, value: unknown): string {
  const text = typeof value === "string" ? value : JSON.stringify(value, null, 2);
  fs.writeFileSync(path.join(dir, file), text);
  return text;
}

/**
 * The 1-based line and column of the `n`th occurrence (from 0) of `needle` in `text` after
 * `anchor` — worked out from the text itself, not from the code under test.
 */
function at(
  text: string,
  needle: string,
  anchor = "",
): { line: number; column: number } {
  const offset = text.indexOf(needle, text.indexOf(anchor));
  assert.ok(offset >= 0, `${needle} not in the text`);
  const before = text.slice(0, offset).split("\n");
  return { line: before.length, column: before[before.length - 1].length + 1 };
}

interface JsonReport {
  command: string;
  files: string[];
  ok: boolean;
  findings: {
    rule: string;
    severity: string;
    file: string;
    line: number;
    column: number;
    bump?: string;
    field?: string;
    path?: string;
    message: string;
  }[];
  summary: Record<string, unknown>;
}

const spec = (file: string) => JSON.parse(fs.readFileSync(path.join(LOOKUP, file), "utf8"));

Deno.test("estate diff of two tool files: a removed property is major, shown at its nearest node in NEW, exit 1", async () => {
  await inScratch(async (dir) => {
    write(
      dir,
      "old.json",
      fs.readFileSync(path.join(LOOKUP, "1.1.0.json"), "utf8"),
    );
    const text = write(
      dir,
      "new.json",
      fs.readFileSync(path.join(LOOKUP, "2.0.0.json"), "utf8"),
    );
    const r = await run(["diff", "old.json", "new.json"], dir);
    assert.equal(r.code, 1, r.out + r.err);
    const props = at(text, '"properties"', '"inputSchema"');
    assert.match(
      r.out,
      new RegExp(
        `^new\\.json:${props.line}:${props.column}: error +property-removed inputSchema \\$\\.properties\\.currency: removed property currency`,
        "m",
      ),
    );
    const version = at(text, '"2.0.0"');
    assert.match(
      r.out,
      new RegExp(
        `^new\\.json:${version.line}:${version.column}: info +version-ok .*2\\.0\\.0 is enough`,
        "m",
      ),
    );
    assert.match(r.out, /info +field-changed description: description changed/);
    assert.match(r.out, /major change \(input major, output patch/);
    assert.match(r.out, /failed: a major change, at or above --fail-on major/);

    const json: JsonReport = JSON.parse(
      (await run(["diff", "old.json", "new.json", "--json"], dir)).out,
    );
    assert.equal(json.command, "diff");
    assert.deepEqual(json.files, ["old.json", "new.json"]);
    assert.equal(json.ok, false);
    const removed = json.findings.find((f) => f.rule === "property-removed")!;
    assert.deepEqual(
      {
        severity: removed.severity,
        bump: removed.bump,
        field: removed.field,
        path: removed.path,
        line: removed.line,
        column: removed.column,
        file: removed.file,
      },
      {
        severity: "error",
        bump: "major",
        field: "inputSchema",
        path: "$.properties.currency",
        ...props,
        file: "new.json",
      },
    );
    assert.equal(json.summary.bump, "major");
    assert.equal(json.summary.versionOk, true);
    assert.equal(json.summary.minimumVersion, "2.0.0");
  });
});

Deno.test("estate diff: an added property is minor, at its key in NEW; --fail-on decides the exit", async () => {
  await inScratch(async (dir) => {
    write(
      dir,
      "old.json",
      fs.readFileSync(path.join(LOOKUP, "1.0.0.json"), "utf8"),
    );
    const text = write(
      dir,
      "new.json",
      fs.readFileSync(path.join(LOOKUP, "1.1.0.json"), "utf8"),
    );
    const r = await run(["diff", "old.json", "new.json"], dir);
    assert.equal(r.code, 0, r.out + r.err);
    const key = at(text, '"includeHistory"');
    assert.match(
      r.out,
      new RegExp(
        `^new\\.json:${key.line}:${key.column}: info +property-added inputSchema \\$\\.properties\\.includeHistory`,
        "m",
      ),
    );
    assert.match(r.out, /ok: below --fail-on major/);
    const minor = await run([
      "diff",
      "old.json",
      "new.json",
      "--fail-on",
      "minor",
    ], dir);
    assert.equal(minor.code, 1);
    assert.match(minor.out, /error +property-added/);
    assert.equal(
      (await run(["diff", "old.json", "new.json", "--fail-on=patch"], dir))
        .code,
      1,
    );
    // The reverse: the property removed again is major.
    assert.equal(
      (await run(["diff", "new.json", "old.json", "--fail-on", "major"], dir))
        .code,
      1,
    );
  });
});

Deno.test("estate diff fails a version that is not enough for the change, whatever --fail-on says", async () => {
  await inScratch(async (dir) => {
    const v2 = spec("2.0.0.json");
    write(dir, "old.json", v2);
    const draft = structuredClone(v2);
    draft.version = "2.0.1";
    draft.inputSchema.properties.channel = { type: "string" };
    const text = write(dir, "new.json", draft);
    const r = await run(["diff", "old.json", "new.json", "--json"], dir);
    assert.equal(r.code, 1, r.out);
    const json: JsonReport = JSON.parse(r.out);
    const version = json.findings.find((f) => f.field === "version")!;
    assert.equal(version.rule, "version-too-low");
    assert.equal(version.severity, "error");
    assert.match(version.message, /version must be at least 2\.1\.0/);
    assert.deepEqual(
      { line: version.line, column: version.column },
      at(text, '"2.0.1"'),
    );
    assert.equal(json.summary.minimumVersion, "2.1.0");
    assert.equal(
      json.findings.find((f) => f.rule === "property-added")!.severity,
      "info",
    );

    draft.version = "2.0.0";
    write(dir, "same.json", draft);
    const same: JsonReport = JSON.parse(
      (await run(["diff", "old.json", "same.json", "--json"], dir)).out,
    );
    assert.equal(
      same.findings.find((f) => f.field === "version")!.rule,
      "version-unchanged",
    );

    // The same content and version: nothing to say, exit 0.
    const unchanged = await run(["diff", "old.json", "old.json"], dir);
    assert.equal(unchanged.code, 0);
    assert.match(
      unchanged.out,
      /^payments\.lookup@2\.0\.0 → payments\.lookup@2\.0\.0: patch change .*; unchanged$/m,
    );
  });
});

Deno.test("estate diff classifies output schemas by the mirror rule and names other field changes", async () => {
  await inScratch(async (dir) => {
    const v2 = spec("2.0.0.json");
    v2.outputSchema = {
      type: "object",
      properties: { status: { enum: ["HELD", "RELEASED"] } },
      required: ["status"],
    };
    write(dir, "old.json", v2);
    const next = structuredClone(v2);
    next.version = "2.1.0";
    next.outputSchema.properties.status.enum.push("RETURNED");
    next.sideEffect = "write";
    next.requiredScopes = ["payments:read", "payments:audit"];
    const text = write(dir, "new.json", next);
    const r = await run(["diff", "old.json", "new.json", "--json"], dir);
    assert.equal(r.code, 1, r.out);
    const json: JsonReport = JSON.parse(r.out);
    const widened = json.findings.find((f) => f.field === "outputSchema")!;
    assert.equal(widened.bump, "major");
    assert.equal(widened.path, "$.properties.status.enum");
    assert.deepEqual(
      { line: widened.line, column: widened.column },
      at(text, '"enum"', '"outputSchema"'),
    );
    assert.equal(json.summary.outputBump, "major");
    assert.equal(json.summary.inputBump, "patch");
    const fields = json.findings.filter((f) => f.rule === "field-changed");
    assert.deepEqual(fields.map((f) => f.message), [
      'sideEffect changed from "read" to "write"',
      'requiredScopes: added "payments:audit"',
    ]);
    assert.deepEqual(
      { line: fields[0].line, column: fields[0].column },
      at(text, '"write"'),
    );
    // The version is not enough for a major change.
    assert.equal(
      json.findings.find((f) => f.field === "version")!.rule,
      "version-too-low",
    );
  });
});

Deno.test("estate diff of two bare schemas: the changes and the bump, at their nodes", async () => {
  await inScratch(async (dir) => {
    const old = {
      type: "object",
      properties: {
        currency: { enum: ["EUR", "GBP", "USD"] },
        amount: { type: "number", maximum: 1000 },
      },
      required: ["currency"],
    };
    write(dir, "old.schema.json", old);
    const next = structuredClone(old);
    next.properties.currency.enum = ["EUR", "GBP"];
    next.properties.amount.maximum = 5000;
    const text = write(dir, "new.schema.json", next);
    const r = await run(["diff", "old.schema.json", "new.schema.json"], dir);
    assert.equal(r.code, 1, r.out + r.err);
    const enumAt = at(text, '"enum"');
    const maxAt = at(text, "5000");
    assert.equal(
      r.out,
      `new.schema.json:${enumAt.line}:${enumAt.column}: error   enum-narrowed $.properties.currency.enum: ${
        /enum-narrowed \$\.properties\.currency\.enum: ([^\n]*)/.exec(r.out)![1]
      }\n` +
        `new.schema.json:${enumAt.line}:${enumAt.column}: info    breaking-call $.properties.currency.enum: a call the old schema accepts, {"currency":"USD"}, would now be rejected: $.currency must be one of "EUR", "GBP"\n` +
        `new.schema.json:${maxAt.line}:${maxAt.column}: info    bound-loosened $.properties.amount.maximum: ${
          /bound-loosened \$\.properties\.amount\.maximum: ([^\n]*)/.exec(
            r.out,
          )![1]
        }\n` +
        "old.schema.json → new.schema.json: major change (2 changes)\n" +
        "failed: a major change, at or above --fail-on major\n",
    );
    const wider = structuredClone(old);
    wider.properties.currency.enum.push("CHF");
    wider.properties.amount.maximum = 5000;
    write(dir, "wider.schema.json", wider);
    const json: JsonReport = JSON.parse(
      (await run(
        ["diff", "old.schema.json", "wider.schema.json", "--json"],
        dir,
      )).out,
    );
    assert.equal(json.ok, true);
    assert.deepEqual(json.summary, {
      kind: "schema",
      old: "old.schema.json",
      new: "wider.schema.json",
      bump: "minor",
      failOn: "major",
      changes: 2,
    });
    // A removed property is shown at the nearest enclosing node: the properties key.
    const fewer = structuredClone(old) as Record<string, unknown>;
    fewer.properties = { currency: old.properties.currency };
    const fewerText = write(dir, "fewer.schema.json", fewer);
    const removed: JsonReport = JSON.parse(
      (await run(
        ["diff", "old.schema.json", "fewer.schema.json", "--json"],
        dir,
      )).out,
    );
    const f = removed.findings.find((x) => x.rule === "property-removed")!;
    assert.deepEqual(
      { line: f.line, column: f.column },
      at(fewerText, '"properties"'),
    );
    // Boolean schemas are schemas: true → false closes everything.
    write(dir, "true.json", "true");
    write(dir, "false.json", "false");
    const closed = await run(
      ["diff", "true.json", "false.json", "--json"],
      dir,
    );
    assert.equal(closed.code, 1, closed.out);
    assert.equal(JSON.parse(closed.out).summary.bump, "major");
  });
});

Deno.test("estate diff counts columns in UTF-16 code units and lines across CRLF", async () => {
  await inScratch(async (dir) => {
    write(dir, "old.json", {
      type: "object",
      properties: { a: { type: "string" } },
    });
    const text = '{\r\n  "title": "Zahlung 💶",\r\n  "type": "object", "properties": {\r\n' +
      '    "a": { "type": "string" }, "b": { "type": "integer" }\r\n  }\r\n}\r\n';
    write(dir, "new.json", text);
    const json: JsonReport = JSON.parse(
      (await run(["diff", "old.json", "new.json", "--json"], dir)).out,
    );
    const added = json.findings.find((f) => f.rule === "property-added")!;
    assert.deepEqual({ line: added.line, column: added.column }, {
      line: 4,
      column: 32,
    });
    assert.equal(text.split("\r\n")[3].slice(31, 34), '"b"');
  });
});

Deno.test("estate diff input errors: one line and exit 2 (JSON with --json)", async () => {
  await inScratch(async (dir) => {
    write(
      dir,
      "tool.json",
      fs.readFileSync(path.join(LOOKUP, "2.0.0.json"), "utf8"),
    );
    write(dir, "schema.json", { type: "object" });
    write(dir, "broken.json", "{ nope");
    write(dir, "list.json", [1, 2]);
    write(dir, "bad.tool.json", { name: "x", inputSchema: {} });
    const cases: [string[], RegExp][] = [
      [["diff", "tool.json"], /^estate: usage: estate diff OLD NEW/],
      [
        ["diff", "tool.json", "missing.json"],
        /cannot read missing\.json: .*no such file/i,
      ],
      [["diff", "tool.json", "broken.json"], /broken\.json is not valid JSON/],
      [
        ["diff", "list.json", "schema.json"],
        /list\.json is neither a tool file .* nor a JSON Schema/,
      ],
      [
        ["diff", "tool.json", "schema.json"],
        /cannot compare a tool file \(tool\.json\) with a bare schema \(schema\.json\)/,
      ],
      [["diff", "tool.json", "bad.tool.json"], /bad\.tool\.json/],
      [
        ["diff", "tool.json", "tool.json", "--fail-on", "huge"],
        /--fail-on must be one of patch, minor, major, got "huge"/,
      ],
      [
        ["diff", "tool.json", "tool.json", "--fail-on"],
        /--fail-on needs a value/,
      ],
    ];
    for (const [args, pattern] of cases) {
      const r = await run(args, dir);
      assert.equal(r.code, 2, `${args.join(" ")}: ${r.out}${r.err}`);
      assert.equal(r.out, "");
      assert.match(r.err, /^estate: [^\n]+\n$/, args.join(" "));
      assert.match(r.err, pattern, args.join(" "));
      const j = await run([...args, "--json"], dir);
      assert.equal(j.code, 2);
      assert.equal(JSON.parse(j.out).status, "error");
    }
    const help = await run(["diff", "--help"], dir);
    assert.equal(help.code, 0);
    assert.match(
      help.out,
      /^usage: estate diff OLD NEW \[--fail-on patch\|minor\|major\]/,
    );
  });
});

Deno.test("property: estate diff never throws on arbitrary files, exits 0, 1 or 2, and --json is JSON", async () => {
  await inScratch(async (dir) => {
    const tool = fs.readFileSync(path.join(LOOKUP, "2.0.0.json"), "utf8");
    const text = fc.oneof(
      fc.string({ maxLength: 30 }),
      fc.json({ maxDepth: 4 }),
      fc.constant(tool),
      fc.constant(
        tool.replace('"2.0.0"', '"1.0.0"').replace('"boolean"', '"string"'),
      ),
      fc.jsonValue({ maxDepth: 3 }).map((v) =>
        JSON.stringify({ type: "object", properties: { a: v } })
      ),
    );
    await fc.assert(
      fc.asyncProperty(
        text,
        text,
        fc.constantFrom<string[]>([], ["--json"], ["--fail-on", "minor"]),
        async (a, b, extra) => {
          write(dir, "a.json", a);
          write(dir, "b.json", b);
          let r;
          try {
            r = await run(["diff", "a.json", "b.json", ...extra], dir);
          } catch (e) {
            assert.fail(`diff threw ${(e as Error)?.stack ?? e}`);
          }
          assert.ok([0, 1, 2].includes(r.code), `exit ${r.code}`);
          assert.doesNotMatch(r.out + r.err, /^\s+at .+[:(]/m);
          if (extra.includes("--json")) JSON.parse(r.out);
        },
      ),
      { numRuns: 200 },
    );
  });
});
