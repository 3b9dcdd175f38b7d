/**
 * The CLI never throws and says everything in its chosen format: input errors are one line and
 * exit 2 (JSON on stdout with `--json`), every command has `--help`, `check` reports every file,
 * and a property feeds it arbitrary arguments and files.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import fc from "fast-check";
import { runCli } from "../lib/cli/main.ts";

const CORPUS = new URL("../corpus/", import.meta.url).pathname;

async function run(
  args: string[],
  cwd = Deno.cwd(),
): Promise<{ code: number; out: string; err: string }> {
  let out = "", err = "";
  const code = await runCli(args, {
    stdout: (t) => (out += t),
    stderr: (t) => (err += t),
    isTerminal: false,
    cwd,
  });
  return { code, out, err };
}

async function withEstate(
  fn: (dir: string) => void | Promise<void>,
): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "estate-cli-errors-" });
  try {
    fs.cpSync(CORPUS, path.join(dir, "corpus"), { recursive: true });
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** No output line looks like a stack frame. */
function assertNoStack(text: string): void {
  assert.doesNotMatch(text, /^\s+at .+[:(]/m, text);
}

/** One line on stderr, exit 2, nothing on stdout. */
function assertInputError(
  r: { code: number; out: string; err: string },
  pattern: RegExp,
): void {
  assert.equal(r.code, 2, r.out + r.err);
  assert.equal(r.out, "");
  assert.match(r.err, /^estate: [^\n]+\n$/);
  assert.match(r.err, pattern);
}

Deno.test("estate refuses a tool reference that is a path with one line and exit 2", async () => {
  await withEstate(async (dir) => {
    for (
      const ref of [
        "../x@1.0.0",
        "a/b@1.0.0",
        "..@1.0.0",
        "fx.quote@../../1.0.0",
      ]
    ) {
      for (const command of ["deprecate", "retire", "impact"]) {
        assertInputError(
          await run([command, ref], dir),
          /is not (a tool name|a version like 1\.2\.0)/,
        );
      }
    }
    assertInputError(
      await run(["replay", "../x", "--schema", "x.json"], dir),
      /is not a tool name/,
    );
    // Nothing outside the estate was touched.
    assert.deepEqual(fs.readdirSync(dir).sort(), ["corpus"]);
  });
});

Deno.test("estate gives a held lock one line and exit 2, never a stack trace", async () => {
  await withEstate(async (dir) => {
    const lock = path.join(dir, "corpus/tools/fx.quote/.lock");
    // Held by this (live) process: the CLI waits its 5 s and gives up, saying who holds it.
    fs.writeFileSync(
      lock,
      JSON.stringify({
        pid: Deno.pid,
        host: "",
        at: new Date().toISOString(),
        nonce: "x",
      }),
    );
    const r = await run(["deprecate", "fx.quote@1.0.0"], dir);
    assertInputError(
      r,
      /Cannot deprecate fx\.quote@1\.0\.0: .*\.lock is held by pid/,
    );
    assertNoStack(r.err);
  });
});

Deno.test("estate COMMAND --help prints that command's usage, and estate --help lists serve", async () => {
  for (
    const command of [
      "check",
      "publish",
      "deprecate",
      "retire",
      "list",
      "replay",
      "impact",
    ]
  ) {
    const r = await run([command, "--help"]);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, new RegExp(`^usage: estate ${command}`));
    assert.equal((await run([command, "-h"])).out, r.out);
  }
  const all = await run(["--help"]);
  assert.equal(all.code, 0);
  assert.match(
    all.out,
    /estate serve \[--http HOST:PORT \| --stdio --principal ID\]/,
  );
  for (
    const command of [
      "check",
      "publish",
      "deprecate",
      "retire",
      "list",
      "replay",
      "impact",
    ]
  ) {
    assert.match(all.out, new RegExp(`^  estate ${command}\\b`, "m"));
  }
});

Deno.test("estate --json prints errors as JSON on stdout with the same exit codes", async () => {
  await withEstate(async (dir) => {
    const cases: [string[], number, RegExp][] = [
      [["frobnicate", "--json"], 2, /unknown command/],
      [["deprecate", "../x@1.0.0", "--json"], 2, /not a tool name/],
      [
        ["list", "--principal", "mallory", "--json"],
        2,
        /no principal "mallory"/,
      ],
      [["list", "--bogus", "--json"], 2, /unknown option --bogus/],
      [
        ["impact", "payments.lookup@9.9.9", "--json"],
        2,
        /not a published version/,
      ],
      [
        ["deprecate", "payments.lookup@1.0.0", "--json"],
        1,
        /only an active version/,
      ],
    ];
    for (const [args, code, pattern] of cases) {
      const r = await run(args, dir);
      assert.equal(r.code, code, `${args.join(" ")}: ${r.out}${r.err}`);
      assert.equal(r.err, "", args.join(" "));
      const body = JSON.parse(r.out);
      if (code === 2) {
        assert.equal(body.status, "error");
        assert.equal(body.exitCode, 2);
      }
      assert.match(body.message ?? JSON.stringify(body), pattern);
    }
  });
});

Deno.test("estate check reports every file: a bad one does not hide the others", async () => {
  await withEstate(async (dir) => {
    const spec = JSON.parse(
      fs.readFileSync(
        path.join(dir, "corpus/tools/fx.quote/1.0.0.json"),
        "utf8",
      ),
    );
    fs.writeFileSync(path.join(dir, "a.tool.json"), '{"name": ');
    fs.writeFileSync(
      path.join(dir, "b.tool.json"),
      JSON.stringify({ ...spec, version: "1.0.1", title: "Quote" }),
    );
    fs.writeFileSync(
      path.join(dir, "c.tool.json"),
      JSON.stringify({
        ...spec,
        version: "1.0.2",
        inputSchema: { type: "object" },
        title: "Q",
      }),
    );
    const r = await run(
      [
        "check",
        "a.tool.json",
        "b.tool.json",
        "missing.tool.json",
        "c.tool.json",
      ],
      dir,
    );
    assert.equal(r.code, 2, r.out + r.err);
    assert.match(r.out, /^ok {3}b\.tool\.json: fx\.quote@1\.0\.1 against/m);
    assert.match(
      r.out,
      /^(ok {2}|FAIL) c\.tool\.json: fx\.quote@1\.0\.2 against/m,
    );
    assert.match(r.out, /^ERR {2}a\.tool\.json: .*not valid JSON/m);
    assert.match(r.out, /^ERR {2}missing\.tool\.json: cannot read/m);
    assert.match(r.out, /^4 checked, \d failed, 2 could not be read$/m);
    const json = JSON.parse(
      (await run(["check", "a.tool.json", "b.tool.json", "--json"], dir)).out,
    );
    assert.equal(json.ok, false);
    assert.deepEqual(json.reports.map((x: { file: string }) => x.file), [
      "b.tool.json",
    ]);
    assert.deepEqual(json.errors.map((x: { file: string }) => x.file), [
      "a.tool.json",
    ]);
  });
});

Deno.test("estate check without files skips test fixtures, node_modules and dist", async () => {
  await withEstate(async (dir) => {
    const spec = JSON.parse(
      fs.readFileSync(
        path.join(dir, "corpus/tools/fx.quote/1.0.0.json"),
        "utf8",
      ),
    );
    const good = JSON.stringify({ ...spec, version: "1.0.1", title: "Quote" });
    for (
      const where of [
        "tests/testdata",
        "node_modules/x",
        "dist",
        "fixtures",
        ".cache",
      ]
    ) {
      fs.mkdirSync(path.join(dir, where), { recursive: true });
      fs.writeFileSync(path.join(dir, where, "broken.tool.json"), "{");
    }
    fs.mkdirSync(path.join(dir, "tools"));
    fs.writeFileSync(path.join(dir, "tools/fx.tool.json"), good);
    const r = await run(["check"], dir);
    assert.equal(r.code, 0, r.out + r.err);
    assert.match(r.out, /^ok {3}tools\/fx\.tool\.json/m);
    assert.match(r.out, /^1 checked, 0 failed$/m);
  });
});

Deno.test("estate calls a brand-new tool new, not a patch change, in check and publish", async () => {
  await withEstate(async (dir) => {
    const spec = JSON.parse(
      fs.readFileSync(
        path.join(dir, "corpus/tools/fx.quote/1.0.0.json"),
        "utf8",
      ),
    );
    fs.writeFileSync(
      path.join(dir, "new.tool.json"),
      JSON.stringify({ ...spec, name: "fx.forward", title: "Quote a forward" }),
    );
    const c = await run(["check", "new.tool.json"], dir);
    assert.equal(c.code, 0, c.out);
    assert.match(
      c.out,
      /^ok {3}new\.tool\.json: fx\.forward@1\.0\.0 \(new tool\)$/m,
    );
    const p = await run(["publish", "new.tool.json"], dir);
    assert.equal(p.out, "published fx.forward@1.0.0 (new tool)\n");
  });
});

Deno.test("estate list aligns its columns whatever the names' lengths", async () => {
  await withEstate(async (dir) => {
    const spec = JSON.parse(
      fs.readFileSync(
        path.join(dir, "corpus/tools/fx.quote/1.0.0.json"),
        "utf8",
      ),
    );
    const long = "a.tool.with.a.name.longer.than.twenty.eight.characters";
    fs.writeFileSync(
      path.join(dir, "long.tool.json"),
      JSON.stringify({ ...spec, name: long }),
    );
    assert.equal((await run(["publish", "long.tool.json"], dir)).code, 0);
    for (
      const args of [["list"], ["list", "--principal", "group-risk-analyst"]]
    ) {
      const rows = (await run(args, dir)).out.split("\n").filter((l) => /\d+\.\d+\.\d+/.test(l));
      const starts = rows.map((l) => l.search(/ {2}\S+$|\S+ *$/).valueOf());
      const column = rows.map((l) => {
        const m = /^(\s*\S+)( +)/.exec(l)!;
        return m[1].length + m[2].length;
      });
      assert.ok(rows.length > 1, args.join(" "));
      assert.equal(
        new Set(column).size,
        1,
        `${args.join(" ")}: ${rows.join("\n")}`,
      );
      assert.ok(starts.length);
    }
  });
});

Deno.test("property: the CLI never throws, exits 0, 1 or 2, prints no stack trace, and --json is JSON", async () => {
  await withEstate(async (dir) => {
    const piece = fc.oneof(
      fc.constantFrom(
        "check",
        "publish",
        "deprecate",
        "retire",
        "list",
        "replay",
        "impact",
        "servers",
        "add",
        "--update",
        "drift",
        "--server",
        "--tool",
        "help",
        "--json",
        "--estate",
        "--reason",
        "--retire-after",
        "--principal",
        "--schema",
        "--version",
        "--help",
        "-h",
        "--",
        "corpus",
        "payments.lookup",
        "payments.lookup@1.0.0",
        "fx.quote@1.0.0",
        "../x@1.0.0",
        "x.tool.json",
        "y.tool.json",
        "2027-03-31",
        "retail-agent",
        "",
        "@",
        "/",
        "--estate=",
        "--json=1",
        "diff",
        "changelog",
        "rules",
        "--format",
        "sarif",
        "junit",
        "github",
        "--fail-on",
        "minor",
        "--against",
        "HEAD",
        "--rules",
        "--from",
        "--to",
        "1.0.0",
        "migrate",
        "export",
        "principals",
        "set",
        "--store",
        "postgres://estate@127.0.0.1:1/x",
        "http://x",
      ),
      fc.string({ maxLength: 12 }),
    );
    const fileText = fc.oneof(
      fc.string({ maxLength: 40 }),
      fc.json({ maxDepth: 3 }),
      fc.constant(
        fs.readFileSync(
          path.join(dir, "corpus/tools/fx.quote/1.0.0.json"),
          "utf8",
        ).replace(
          '"1.0.0"',
          '"1.0.1"',
        ),
      ),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(piece, { maxLength: 7 }),
        fileText,
        fileText,
        async (argv, x, y) => {
          fs.writeFileSync(path.join(dir, "x.tool.json"), x);
          fs.writeFileSync(path.join(dir, "y.tool.json"), y);
          let r;
          try {
            r = await run(argv, dir);
          } catch (e) {
            assert.fail(
              `estate ${JSON.stringify(argv)} threw ${(e as Error)?.stack ?? e}`,
            );
          }
          assert.ok(
            [0, 1, 2].includes(r.code),
            `${JSON.stringify(argv)}: exit ${r.code}`,
          );
          assertNoStack(r.out + r.err);
          if (r.code === 2 && !argv.includes("--json")) {
            assert.match(
              r.err + r.out,
              /\S/,
              `${JSON.stringify(argv)} said nothing`,
            );
          }
          if (
            argv.includes("--json") && !argv.includes("--help") &&
            !argv.includes("-h")
          ) {
            const jsonArg = argv[0] === "help" || argv[0] === "--help" ||
              argv[0] === "-h" ||
              argv[0] === undefined;
            if (!jsonArg) {
              assert.doesNotThrow(
                () => JSON.parse(r.out),
                `${JSON.stringify(argv)}: stdout is not JSON: ${r.out}`,
              );
            }
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
