/**
 * `estate changelog NAME`: Markdown release notes from the estate's published versions, newest
 * first, with the classifier's changes, other fields and lifecycle; `--from`/`--to` bound it.
 */
import { type CliRun, estate } from "./_cli.ts";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";

const CORPUS = new URL("../corpus/", import.meta.url).pathname;
/** The example estate's own time: payments.lookup@1.0.0 is deprecated, not yet retired. */
const CORPUS_NOW = () => new Date("2026-11-30T12:00:00Z");

function run(args: string[], cwd: string, now = CORPUS_NOW): Promise<CliRun> {
  return estate(args, cwd, now);
}

async function withEstate(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "estate-changelog-" });
  try {
    fs.cpSync(CORPUS, path.join(dir, "corpus"), { recursive: true });
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("estate changelog prints payments.lookup's versions newest first, with changes by bump and the deprecation", async () => {
  await withEstate(async (dir) => {
    const r = await run(["changelog", "payments.lookup"], dir);
    assert.equal(r.code, 0, r.err);
    assert.equal(r.err, "");
    assert.equal(
      r.out,
      [
        "# payments.lookup changelog",
        "",
        "## 2.0.0 (2026-08-20)",
        "",
        "**Major** change against 1.1.0.",
        "",
        "### Breaking changes",
        "",
        "- input `$.properties.currency`: removed property currency: callers that send it are now rejected",
        "",
        "### Other fields",
        "",
        "- description changed",
        "",
        "## 1.1.0 (2026-05-04)",
        "",
        "**Minor** change against 1.0.0.",
        "",
        "### Compatible changes",
        "",
        "- input `$.properties.includeHistory`: added optional property includeHistory: callers may now send it",
        "",
        "### Other fields",
        "",
        "- description changed",
        "",
        "## 1.0.0 (2026-01-15)",
        "",
        "First published version.",
        "",
        "- **Deprecated** 2026-09-01 (retires after 2027-03-31): superseded by 1.1.0 and 2.0.0; callers should move to ^2.0.0",
        "",
      ].join("\n"),
    );
  });
});

Deno.test("estate changelog --from starts after a version, --to ends at one", async () => {
  await withEstate(async (dir) => {
    const since = await run(
      ["changelog", "payments.lookup", "--from", "1.0.0"],
      dir,
    );
    assert.equal(since.code, 0, since.err);
    assert.deepEqual([...since.out.matchAll(/^## (\S+)/gm)].map((m) => m[1]), [
      "2.0.0",
      "1.1.0",
    ]);
    const upTo = await run(
      ["changelog", "payments.lookup", "--to", "1.1.0"],
      dir,
    );
    assert.deepEqual([...upTo.out.matchAll(/^## (\S+)/gm)].map((m) => m[1]), [
      "1.1.0",
      "1.0.0",
    ]);
    const one = await run(
      [
        "changelog",
        "payments.lookup",
        "--from",
        "1.1.0",
        "--to",
        "2.0.0",
        "--json",
      ],
      dir,
    );
    assert.equal(one.code, 0);
    const json = JSON.parse(one.out);
    assert.equal(json.name, "payments.lookup");
    assert.deepEqual(json.versions.map((v: { version: string }) => v.version), [
      "2.0.0",
    ]);
    assert.equal(json.versions[0].previous, "1.1.0");
    assert.equal(json.versions[0].bump, "major");
    assert.deepEqual(
      json.versions[0].changes.map((c: { kind: string }) => c.kind),
      [
        "property-removed",
      ],
    );
    assert.match(json.markdown, /^# payments\.lookup changelog\n\n## 2\.0\.0 /);
    // Bounds between published versions work too.
    const between = await run([
      "changelog",
      "payments.lookup",
      "--from",
      "1.0.5",
    ], dir);
    assert.deepEqual(
      [...between.out.matchAll(/^## (\S+)/gm)].map((m) => m[1]),
      ["2.0.0", "1.1.0"],
    );
  });
});

Deno.test("estate changelog shows output schema and field changes, retirement and its reason", async () => {
  await withEstate(async (dir) => {
    const spec = JSON.parse(
      fs.readFileSync(
        path.join(dir, "corpus/tools/payments.lookup/2.0.0.json"),
        "utf8",
      ),
    );
    spec.version = "2.1.0";
    spec.outputSchema = {
      type: "object",
      properties: { status: { type: "string" } },
    };
    spec.requiredScopes = ["payments:read", "payments:history"];
    fs.writeFileSync(
      path.join(dir, "next.tool.json"),
      JSON.stringify(spec, null, 2),
    );
    const published = await run(["publish", "next.tool.json"], dir);
    assert.equal(published.code, 0, published.out + published.err);
    const retired = await run(
      [
        "retire",
        "payments.lookup@1.1.0",
        "--now",
        "--reason",
        "no callers left",
        "--force",
      ],
      dir,
    );
    assert.equal(retired.code, 0, retired.out + retired.err);
    const r = await run(["changelog", "payments.lookup"], dir);
    assert.equal(r.code, 0, r.err);
    const section = (v: string) => r.out.split(/^## /m).find((s) => s.startsWith(v))!;
    assert.match(section("2.1.0"), /\*\*Minor\*\* change against 2\.0\.0\./);
    assert.match(
      section("2.1.0"),
      /### Compatible changes\n\n- output `\$`: outputSchema added/,
    );
    assert.match(
      section("2.1.0"),
      /- requiredScopes: added "payments:history"/,
    );
    assert.match(
      section("1.1.0"),
      /- \*\*Retired\*\* 2026-11-30: no callers left/,
    );
    // After 1.0.0's date it retires by itself; the changelog says when.
    const later = await run(
      ["changelog", "payments.lookup", "--to", "1.0.0"],
      dir,
      () => new Date("2027-05-01T00:00:00Z"),
    );
    assert.match(later.out, /- \*\*Deprecated\*\* 2026-09-01/);
    assert.match(later.out, /- \*\*Retired\*\* 2027-04-01/);
  });
});

Deno.test("estate changelog input errors: one line and exit 2", async () => {
  await withEstate(async (dir) => {
    const cases: [string[], RegExp][] = [
      [["changelog"], /usage: estate changelog NAME/],
      [["changelog", "../x"], /"\.\.\/x" is not a tool name/],
      [["changelog", "nope.tool"], /no tool "nope\.tool" in the estate/],
      [
        ["changelog", "payments.lookup", "--from", "one"],
        /--from "one" is not a version/,
      ],
      [
        ["changelog", "payments.lookup", "--from", "2.0.0", "--to", "1.0.0"],
        /must be lower/,
      ],
      [
        ["changelog", "payments.lookup", "--from", "2.0.0"],
        /no published version of payments\.lookup after 2\.0\.0; published: 1\.0\.0, 1\.1\.0, 2\.0\.0/,
      ],
      [["changelog", "payments.lookup", "--estate", "missing"], /missing/],
    ];
    for (const [args, pattern] of cases) {
      const r = await run(args, dir);
      assert.equal(r.code, 2, `${args.join(" ")}: ${r.out}${r.err}`);
      assert.equal(r.out, "");
      assert.match(r.err, /^estate: [^\n]+\n$/, args.join(" "));
      assert.match(r.err, pattern, args.join(" "));
    }
  });
});
