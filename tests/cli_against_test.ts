/**
 * `estate check --against REF|DIR`: drafts in a real git work tree checked against the same file at
 * HEAD, at a branch, or under a folder; new files; and the input errors (not a repository, an
 * unknown ref, unreadable drafts and baselines).
 */
import { type CliRun, estate } from "./_cli.ts";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { runCli } from "../lib/cli/main.ts";

const LOOKUP = new URL("../corpus/tools/payments.lookup/", import.meta.url).pathname;

function run(args: string[], cwd: string): Promise<CliRun> {
  return estate(args, cwd);
}

function git(cwd: string, ...args: string[]): string {
  const r = spawnSync(
    "git",
    [
      "-c",
      "user.name=Test",
      "-c",
      "user.email=test@example.com",
      "-c",
      "commit.gpgsign=false",
      ...args,
    ],
    { cwd, encoding: "utf8" },
  );
  assert.equal(r.status, 0, `git ${args.join(" ")}: ${r.stderr}`);
  return r.stdout;
}

type Spec = Record<string, unknown> & {
  version: string;
  inputSchema: { properties: Record<string, unknown>; required: string[] };
};

const v2 = (): Spec => JSON.parse(fs.readFileSync(path.join(LOOKUP, "2.0.0.json"), "utf8"));

function write(dir: string, file: string, value: unknown): string {
  const text = typeof value === "string" ? value : JSON.stringify(value, null, 2) + "\n";
  fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
  fs.writeFileSync(path.join(dir, file), text);
  return text;
}

/** A git repository on branch main with tools/lookup.tool.json at 2.0.0 committed. */
async function withRepo(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "estate-against-" });
  try {
    git(dir, "init", "-q", "-b", "main");
    write(dir, "tools/lookup.tool.json", v2());
    git(dir, "add", ".");
    git(dir, "commit", "-q", "-m", "lookup 2.0.0");
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

function at(text: string, needle: string): { line: number; column: number } {
  const before = text.slice(0, text.indexOf(needle)).split("\n");
  return { line: before.length, column: before[before.length - 1].length + 1 };
}

Deno.test("estate check --against HEAD fails a draft whose version is too low for the change against the committed file", async () => {
  await withRepo(async (dir) => {
    const draft = v2();
    draft.version = "2.1.0";
    delete draft.inputSchema.properties.includeHistory;
    const text = write(dir, "tools/lookup.tool.json", draft);
    const r = await run(["check", "--against", "HEAD"], dir);
    assert.equal(r.code, 1, r.out + r.err);
    const version = at(text, '"2.1.0"');
    assert.match(
      r.out,
      new RegExp(
        `^tools/lookup\\.tool\\.json:${version.line}:${version.column}: error +version-too-low version: major change against 2\\.0\\.0: removed property includeHistory at \\$\\.properties\\.includeHistory — version must be at least 3\\.0\\.0$`,
        "m",
      ),
    );
    const props = at(text, '"properties"');
    assert.match(
      r.out,
      new RegExp(
        `^tools/lookup\\.tool\\.json:${props.line}:${props.column}: warning property-removed inputSchema \\$\\.properties\\.includeHistory: `,
        "m",
      ),
    );
    assert.match(
      r.out,
      /^FAIL tools\/lookup\.tool\.json: payments\.lookup@2\.1\.0 against 2\.0\.0 \(HEAD:tools\/lookup\.tool\.json\)/m,
    );
    assert.match(r.out, /^1 checked against HEAD \([0-9a-f]{12}\), 1 failed$/m);

    draft.version = "3.0.0";
    write(dir, "tools/lookup.tool.json", draft);
    const ok = await run([
      "check",
      "tools/lookup.tool.json",
      "--against",
      "HEAD",
      "--json",
    ], dir);
    assert.equal(ok.code, 0, ok.out);
    const json = JSON.parse(ok.out);
    assert.equal(json.command, "check");
    assert.equal(json.ok, true);
    assert.deepEqual(json.files, ["tools/lookup.tool.json"]);
    assert.equal(json.summary.kind, "git");
    assert.match(json.summary.commit, /^[0-9a-f]{40}$/);
    assert.deepEqual(
      { ...json.summary.results[0], message: undefined },
      {
        file: "tools/lookup.tool.json",
        status: "ok",
        baseline: "HEAD:tools/lookup.tool.json",
        name: "payments.lookup",
        version: "3.0.0",
        baselineVersion: "2.0.0",
        bump: "major",
        minimumVersion: "3.0.0",
        message: undefined,
      },
    );
  });
});

Deno.test("estate check --against a branch compares with that branch's file, from a subfolder too; a file not at the ref is new", async () => {
  await withRepo(async (dir) => {
    git(dir, "switch", "-q", "-c", "feature");
    const minor = v2();
    minor.version = "2.1.0";
    minor.inputSchema.properties.channel = { type: "string" };
    write(dir, "tools/lookup.tool.json", minor);
    git(dir, "commit", "-q", "-am", "lookup 2.1.0");

    // Against main (2.0.0) the committed 2.1.0 is enough; against HEAD it is unchanged.
    const vsMain = await run(["check", "--against", "main"], dir);
    assert.equal(vsMain.code, 0, vsMain.out + vsMain.err);
    assert.match(
      vsMain.out,
      /info +version-ok version: minor change against 2\.0\.0: 2\.1\.0 is enough/,
    );
    assert.match(
      vsMain.out,
      /info +property-added inputSchema \$\.properties\.channel/,
    );
    const vsHead = await run(["check", "--against", "HEAD"], dir);
    assert.equal(vsHead.code, 0);
    assert.match(
      vsHead.out,
      /^ok {3}tools\/lookup\.tool\.json: .*unchanged from 2\.1\.0$/m,
    );

    // A further edit under the same version: against HEAD the version is unchanged.
    const more = structuredClone(minor);
    more.inputSchema.properties.region = { type: "string" };
    write(dir, "tools/lookup.tool.json", more);
    const same = await run(["check", "--against", "HEAD", "--json"], dir);
    assert.equal(same.code, 1);
    const json = JSON.parse(same.out);
    assert.equal(
      json.findings.find((f: { field?: string }) => f.field === "version").rule,
      "version-unchanged",
    );
    assert.match(
      json.findings.find((f: { field?: string }) => f.field === "version")
        .message,
      /version must be at least 2\.2\.0/,
    );

    // From a subfolder, with a relative file: the same path at the ref.
    const sub = await run(
      ["check", "lookup.tool.json", "--against", "main"],
      path.join(dir, "tools"),
    );
    assert.equal(sub.code, 0, sub.out + sub.err);
    assert.match(sub.out, /against 2\.0\.0 \(main:tools\/lookup\.tool\.json\)/);

    // A tool file the ref does not have is new.
    const fresh = v2();
    fresh.name = "payments.history";
    fresh.version = "1.0.0";
    write(dir, "tools/history.tool.json", fresh);
    const withNew = await run(["check", "--against", "main"], dir);
    assert.equal(withNew.code, 0, withNew.out);
    assert.match(
      withNew.out,
      /^new {2}tools\/history\.tool\.json: payments\.history@1\.0\.0 \(not at main:tools\/history\.tool\.json\)$/m,
    );
    assert.match(
      withNew.out,
      /info +new [^:]*: payments\.history@1\.0\.0 is new/,
    );
    assert.match(
      withNew.out,
      /^2 checked against main \([0-9a-f]{12}\), 0 failed, 1 new$/m,
    );
  });
});

Deno.test("estate check --against DIR takes the same path under the folder, and never takes the folder's files as drafts", async () => {
  await withRepo(async (dir) => {
    write(dir, "baseline/tools/lookup.tool.json", v2());
    const draft = v2();
    draft.version = "2.0.1";
    draft.inputSchema.properties.channel = { type: "string" };
    write(dir, "tools/lookup.tool.json", draft);
    const r = await run(["check", "--against", "baseline", "--json"], dir);
    assert.equal(r.code, 1, r.out + r.err);
    const json = JSON.parse(r.out);
    assert.deepEqual(json.files, ["tools/lookup.tool.json"]);
    assert.equal(json.summary.kind, "folder");
    assert.equal(
      json.summary.results[0].baseline,
      "baseline/tools/lookup.tool.json",
    );
    assert.equal(json.summary.results[0].minimumVersion, "2.1.0");
    const v = json.findings.find((f: { field?: string }) => f.field === "version");
    assert.equal(v.rule, "version-too-low");
    assert.equal(v.severity, "error");
    // A folder outside the working folder works the same.
    fs.cpSync(
      path.join(dir, "baseline"),
      path.join(dir, "..", path.basename(dir) + "-base"),
      {
        recursive: true,
      },
    );
    try {
      const outside = await run([
        "check",
        "--against",
        `../${path.basename(dir)}-base`,
      ], dir);
      assert.equal(outside.code, 1, outside.out + outside.err);
    } finally {
      fs.rmSync(path.join(dir, "..", path.basename(dir) + "-base"), {
        recursive: true,
      });
    }
  });
});

Deno.test("estate check --against: not a repository, an unknown ref and no drafts are one-line input errors", async () => {
  const plain = await Deno.makeTempDir({ prefix: "estate-against-plain-" });
  try {
    write(plain, "a.tool.json", v2());
    const r = await run(["check", "--against", "main"], plain);
    assert.equal(r.code, 2, r.out + r.err);
    assert.equal(r.out, "");
    assert.match(
      r.err,
      /^estate: --against main: not a folder, and .* is not in a git repository/,
    );
    assert.match(r.err, /^[^\n]+\n$/);
    const j = await run(["check", "--against", "main", "--json"], plain);
    assert.equal(j.code, 2);
    assert.equal(JSON.parse(j.out).status, "error");
  } finally {
    await Deno.remove(plain, { recursive: true });
  }
  await withRepo(async (dir) => {
    for (const ref of ["nope", "--upload-pack=x", "HEAD~5", "main:tools"]) {
      const r = await run(["check", `--against=${ref}`], dir);
      assert.equal(r.code, 2, `${ref}: ${r.out}${r.err}`);
      assert.match(
        r.err,
        /^estate: --against .*: no such git ref \(branch, tag or commit\) in /,
      );
    }
    fs.rmSync(path.join(dir, "tools"), { recursive: true });
    const none = await run(["check", "--against", "HEAD"], dir);
    assert.equal(none.code, 2);
    assert.match(none.err, /no \*\.tool\.json files to check/);
  });
});

Deno.test("estate check --against reports an unreadable draft or baseline and still checks the others (exit 2)", async () => {
  await withRepo(async (dir) => {
    write(dir, "tools/broken.tool.json", "{ not json");
    write(dir, "tools/old.tool.json", "[1]");
    git(dir, "add", ".");
    git(dir, "commit", "-q", "-m", "a broken baseline");
    write(dir, "tools/old.tool.json", v2());
    const draft = v2();
    draft.version = "3.0.0";
    write(dir, "tools/lookup.tool.json", draft);
    const r = await run(["check", "--against", "HEAD"], dir);
    assert.equal(r.code, 2, r.out + r.err);
    assert.match(
      r.out,
      /^ERR {2}tools\/broken\.tool\.json: tools\/broken\.tool\.json is not valid JSON/m,
    );
    assert.match(
      r.out,
      /^ERR {2}tools\/old\.tool\.json: the baseline HEAD:tools\/old\.tool\.json is not a tool file/m,
    );
    assert.match(
      r.out,
      /^ok {3}tools\/lookup\.tool\.json: payments\.lookup@3\.0\.0 against 2\.0\.0/m,
    );
    assert.match(r.out, /^tools\/broken\.tool\.json:1:1: error +unreadable/m);
    assert.match(
      r.out,
      /3 checked against HEAD .*, 0 failed, 2 could not be read$/m,
    );
    const missing = await run([
      "check",
      "tools/missing.tool.json",
      "--against",
      "HEAD",
    ], dir);
    assert.equal(missing.code, 2);
    assert.match(
      missing.out,
      /^ERR {2}tools\/missing\.tool\.json: cannot read/m,
    );
  });
});

Deno.test("estate check --against REF --estate DIR checks drafts against the estate as the ref has it", async () => {
  await withRepo(async (dir) => {
    fs.cpSync(
      new URL("../corpus/", import.meta.url).pathname,
      path.join(dir, "corpus"),
      {
        recursive: true,
      },
    );
    git(dir, "add", ".");
    git(dir, "commit", "-q", "-m", "the estate");
    fs.rmSync(path.join(dir, "tools"), { recursive: true });
    // The working estate moves on (uncommitted): payments.lookup@2.1.0 published there.
    const published = v2();
    published.version = "2.1.0";
    published.inputSchema.properties.region = { type: "string" };
    write(dir, "published.json", published);
    const now = () => new Date("2026-11-30T12:00:00Z");
    let out = "";
    const io = {
      stdout: (t: string) => (out += t),
      stderr: () => {},
      isTerminal: false,
      cwd: dir,
      now,
    };
    assert.equal(await runCli(["publish", "published.json"], io), 0, out);
    fs.rmSync(path.join(dir, "published.json"));
    const draft = v2();
    draft.version = "2.1.0";
    draft.inputSchema.properties.channel = { type: "string" };
    write(dir, "lookup.tool.json", draft);

    // Against the working estate, 2.1.0 is taken; against HEAD's estate it is a minor change on 2.0.0.
    const working = await run(["check", "lookup.tool.json"], dir);
    assert.equal(working.code, 1, working.out + working.err);
    const atHead = await run([
      "check",
      "lookup.tool.json",
      "--against",
      "HEAD",
      "--estate",
      "corpus",
    ], dir);
    assert.equal(atHead.code, 0, atHead.out + atHead.err);
    assert.match(
      atHead.out,
      /^ok {3}lookup\.tool\.json: payments\.lookup@2\.1\.0 against payments\.lookup@2\.0\.0 \(active\), minor change$/m,
    );
    // The working estate is untouched.
    assert.ok(
      fs.existsSync(path.join(dir, "corpus/tools/payments.lookup/2.1.0.json")),
    );

    const missing = await run([
      "check",
      "lookup.tool.json",
      "--against",
      "HEAD",
      "--estate",
      "elsewhere",
    ], dir);
    assert.equal(missing.code, 2);
    assert.match(
      missing.err,
      /^estate: --against HEAD: elsewhere\/tools is not at HEAD\n$/,
    );
    fs.mkdirSync(path.join(dir, "base"));
    const folder = await run([
      "check",
      "--against",
      "base",
      "--estate",
      "corpus",
    ], dir);
    assert.equal(folder.code, 2);
    assert.match(folder.err, /--against base is a folder/);
  });
});
