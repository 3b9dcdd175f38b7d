import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { runCli } from "../lib/cli/main.ts";
import { runServe } from "../lib/cli/serve.ts";
import { MAX_ISSUES_BYTES, MAX_ISSUES_IN_RESPONSE } from "../mod.ts";

const CORPUS = new URL("../corpus/", import.meta.url).pathname;
/**
 * The example estate's own time (its last calls are from 2026-11-29): its payments.lookup@1.0.0
 * is deprecated until 2027-03-31 and then retires by itself, so tests of that state fix the clock.
 */
const CORPUS_NOW = () => new Date("2026-11-30T12:00:00Z");

async function run(
  args: string[],
  cwd = Deno.cwd(),
  isTerminal = false,
  now?: () => Date,
): Promise<{ code: number; out: string; err: string }> {
  let out = "", err = "";
  const code = await runCli(args, {
    stdout: (t) => (out += t),
    stderr: (t) => (err += t),
    isTerminal,
    cwd,
    ...(now ? { now } : {}),
  });
  return { code, out, err };
}

/** A scratch copy of the example estate, removed after the test. */
async function withEstate(
  fn: (dir: string) => void | Promise<void>,
): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "estate-cli-" });
  try {
    fs.cpSync(CORPUS, path.join(dir, "corpus"), { recursive: true });
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

function draft(
  dir: string,
  file: string,
  edit: (spec: Record<string, unknown>) => void,
): string {
  const spec = JSON.parse(
    fs.readFileSync(
      path.join(dir, "corpus/tools/payments.lookup/2.0.0.json"),
      "utf8",
    ),
  );
  edit(spec);
  const p = path.join(dir, file);
  fs.writeFileSync(p, JSON.stringify(spec, null, 2));
  return p;
}

Deno.test("estate check fails a breaking change published as a minor, with exit 1 and every change", async () => {
  await withEstate(async (dir) => {
    draft(dir, "lookup.tool.json", (s) => {
      s.version = "2.1.0";
      const schema = s.inputSchema as {
        properties: Record<string, unknown>;
        required: string[];
      };
      delete schema.properties.includeHistory;
      schema.properties.channel = { type: "string" };
    });
    const r = await run(["check"], dir);
    assert.equal(r.code, 1, r.out + r.err);
    assert.match(
      r.out,
      /^FAIL lookup\.tool\.json: payments\.lookup@2\.1\.0 against payments\.lookup@2\.0\.0 \(active\), major change$/m,
    );
    assert.match(
      r.out,
      /lookup\.tool\.json:\d+:\d+: error +version-too-low version: change is major against payments\.lookup@2\.0\.0 \(published\): removed property includeHistory — version must be at least 3\.0\.0/,
    );
    assert.match(
      r.out,
      /lookup\.tool\.json:\d+:\d+: warning property-removed inputSchema \$\.properties\.includeHistory: removed property includeHistory/,
    );
    assert.match(
      r.out,
      /lookup\.tool\.json:\d+:\d+: info +property-added inputSchema \$\.properties\.channel: added optional property channel/,
    );
    assert.match(r.out, /1 checked, 1 failed/);
    const json = JSON.parse(
      (await run(["check", "lookup.tool.json", "--json"], dir)).out,
    );
    assert.equal(json.ok, false);
    assert.equal(json.reports[0].minimumVersion, "3.0.0");
  });
});

Deno.test("estate check passes an enough version and reports it as a version-ok hint (info)", async () => {
  await withEstate(async (dir) => {
    draft(dir, "lookup.tool.json", (s) => {
      s.version = "2.1.0";
      (s.inputSchema as { properties: Record<string, unknown> }).properties
        .channel = {
          type: "string",
        };
    });
    const r = await run(["check", "lookup.tool.json"], dir);
    assert.equal(r.code, 0, r.out);
    assert.match(
      r.out,
      /info +version-ok version: minor change against 2\.0\.0: version 2\.1\.0 is enough/,
    );
  });
});

Deno.test("estate publish writes the version, refuses what the registry refuses, and is idempotent", async () => {
  await withEstate(async (dir) => {
    const ok = draft(dir, "ok.tool.json", (s) => {
      s.version = "2.1.0";
      (s.inputSchema as { properties: Record<string, unknown> }).properties
        .channel = {
          type: "string",
        };
    });
    let r = await run(["publish", ok], dir);
    assert.equal(r.code, 0, r.out + r.err);
    assert.match(
      r.out,
      /published payments\.lookup@2\.1\.0 \(minor change against 2\.0\.0\)/,
    );
    assert.ok(
      fs.existsSync(path.join(dir, "corpus/tools/payments.lookup/2.1.0.json")),
    );
    r = await run(["publish", ok], dir);
    assert.equal(r.code, 0);
    assert.match(r.out, /already published with this content; nothing written/);
    const bad = draft(dir, "bad.tool.json", (s) => {
      s.version = "2.2.0";
      s.inputSchema = {
        type: "object",
        properties: {},
        additionalProperties: false,
      };
    });
    r = await run(["publish", bad, "--json"], dir);
    assert.equal(r.code, 1);
    const refusal = JSON.parse(r.out);
    assert.equal(refusal.refusal, "bump-too-small");
    assert.match(refusal.message, /publish 3\.0\.0, not 2\.2\.0/);
  });
});

Deno.test("estate deprecate and retire move the lifecycle and refuse what they must", async () => {
  await withEstate(async (dir) => {
    // A fixed clock: the retire-after date must be in the future, and calls count as recent.
    const at = (args: string[], cwd: string) =>
      run(args, cwd, false, () => new Date("2026-11-30T12:00:00Z"));
    let r = await at([
      "deprecate",
      "payments.lookup@1.1.0",
      "--reason",
      "use ^2.0.0",
      "--retire-after",
      "2027-06-30",
    ], dir);
    assert.equal(r.code, 0, r.err);
    assert.equal(r.out, "payments.lookup@1.1.0 is now deprecated\n");
    const lifecycle = JSON.parse(
      fs.readFileSync(
        path.join(dir, "corpus/tools/payments.lookup/lifecycle.json"),
        "utf8",
      ),
    );
    assert.deepEqual(lifecycle["1.1.0"].at(-1).reason, "use ^2.0.0");
    assert.equal(lifecycle["1.1.0"].at(-1).retireAfter, "2027-06-30");
    r = await at(["deprecate", "payments.lookup@1.1.0"], dir);
    assert.equal(r.code, 1);
    assert.match(r.out, /only an active version can be deprecated/);
    // Retirement rules (issue 10, part 7): not before the retire-after date unless retired early,
    // with a reason the lifecycle record keeps; callers in the last 30 days need --force.
    r = await at(["retire", "payments.lookup@1.1.0"], dir);
    assert.equal(r.code, 1);
    assert.match(r.out, /before its retire-after date 2027-06-30/);
    r = await at([
      "retire",
      "payments.lookup@1.1.0",
      "--now",
      "--reason",
      "window closed early",
      "--force",
    ], dir);
    assert.equal(r.code, 0, r.out + r.err);
    assert.equal(
      JSON.parse(
        fs.readFileSync(
          path.join(dir, "corpus/tools/payments.lookup/lifecycle.json"),
          "utf8",
        ),
      )["1.1.0"].at(-1).reason,
      "window closed early",
    );
    assert.equal((await at(["retire", "payments.lookup@1.1.0"], dir)).code, 1);
    assert.equal((await at(["retire", "payments.lookup@9.9.9"], dir)).code, 1);
  });
});

Deno.test("estate list shows what each principal discovers, side by side different", async () => {
  const retail = await run([
    "list",
    "--principal",
    "retail-agent",
    "--estate",
    CORPUS,
  ]);
  const wholesale = await run([
    "list",
    "--principal",
    "wholesale-operator",
    "--estate",
    CORPUS,
    "--json",
  ]);
  assert.equal(retail.code, 0);
  assert.match(retail.out, /retail\.transfers\.lookup@1\.1\.0/);
  assert.doesNotMatch(retail.out, /payments\./);
  const tools = JSON.parse(wholesale.out).tools.map((t: { name: string }) => t.name);
  assert.deepEqual(tools, [
    "drafts.review",
    "fx.quote",
    "payments.lookup",
    "payments.release",
    "policy.search",
    "policy.summarize",
  ]);
  assert.match(
    (await run(["list", "--estate", CORPUS], Deno.cwd(), false, CORPUS_NOW))
      .out,
    /payments\.lookup +1\.0\.0 \(deprecated\), 1\.1\.0, 2\.0\.0/,
  );
});

Deno.test("estate replay replays each call against its major line by default, and reports rejected calls per node and exits 1", async () => {
  // The shipped estate: 1.x calls against 1.1.0, 2.x calls against 2.0.0 — nothing rejected.
  const lines = await run(["replay", "payments.lookup", "--estate", CORPUS]);
  assert.equal(lines.code, 0, lines.out + lines.err);
  assert.match(
    lines.out,
    /^replayed 300 of 300 stored calls of payments\.lookup in [\d.]+ s: 0 rejected\n1\.x calls against payments\.lookup@1\.1\.0: 0 rejected\n2\.x calls against payments\.lookup@2\.0\.0: 0 rejected\n$/,
  );
  // Every call against one version: the 1.x calls that send currency are rejected by 2.0.0.
  const r = await run([
    "replay",
    "payments.lookup",
    "--version",
    "2.0.0",
    "--estate",
    CORPUS,
  ]);
  assert.equal(r.code, 1);
  assert.match(
    r.out,
    /replayed 300 of 300 stored calls of payments\.lookup in [\d.]+ s: 80 rejected\nall calls against payments\.lookup@2\.0\.0: 80 rejected/,
  );
  assert.match(
    r.out,
    /at \$\.additionalProperties: \$\.currency property "currency" is not allowed/,
  );
  assert.equal(r.err, "");
  await withEstate(async (dir) => {
    fs.writeFileSync(
      path.join(dir, "open.json"),
      JSON.stringify({ type: "object" }),
    );
    const ok = await run(
      ["replay", "payments.lookup", "--schema", "open.json"],
      dir,
      true,
    );
    assert.equal(ok.code, 0);
    assert.match(ok.out, /all calls against open\.json: 0 rejected/);
  });
});

Deno.test("estate replay shows progress on a terminal", async () => {
  await withEstate(async (dir) => {
    const file = path.join(dir, "corpus/tools/policy.search/calls.jsonl");
    const line = fs.readFileSync(file, "utf8").split("\n")[0] + "\n";
    fs.appendFileSync(file, line.repeat(25_000));
    const r = await run(["replay", "policy.search"], dir, true);
    assert.equal(r.code, 0);
    assert.match(
      r.err,
      /\rreplayed 10,000 calls\.\.\..*\rreplayed 20,000 calls\.\.\./s,
    );
  });
});

Deno.test("estate impact lists who called a version, how often, last seen", async () => {
  const r = await run(
    ["impact", "payments.lookup@1.0.0", "--estate", CORPUS, "--json"],
    Deno.cwd(),
    false,
    CORPUS_NOW,
  );
  assert.equal(r.code, 0);
  const report = JSON.parse(r.out);
  assert.equal(report.state, "deprecated");
  assert.equal(report.callers[0].principal, "wholesale-operator");
  // Whom the deprecation notice reached: each caller with a call since the deprecation (every
  // answer since carried it), counted from the stored calls themselves.
  const calls = fs.readFileSync(`${CORPUS}tools/payments.lookup/calls.jsonl`, "utf8").trim()
    .split("\n").map((l) => JSON.parse(l))
    .filter((c) => c.version === "1.0.0");
  const since = (p: string) => calls.some((c) => c.principal === p && c.at >= report.deprecatedAt);
  assert.equal(report.deprecatedAt, "2026-09-01T09:00:00.000Z");
  assert.deepEqual(
    [...report.told].sort(),
    [...new Set(calls.map((c) => c.principal as string))].filter(since).sort(),
  );
  assert.ok(report.told.length > 0);
  assert.deepEqual(
    [...report.told, ...report.untold].sort(),
    report.callers.map((c: { principal: string }) => c.principal).sort(),
  );
  assert.equal(
    report.calls,
    report.callers.reduce((n: number, c: { calls: number }) => n + c.calls, 0),
  );
  assert.match(
    (await run(
      ["impact", "payments.lookup@1.0.0", "--estate", CORPUS],
      Deno.cwd(),
      false,
      CORPUS_NOW,
    )).out,
    /retire after 2027-03-31/,
  );
});

Deno.test("estate exits 2 with a clear message on usage and input errors", async () => {
  assert.equal((await run([])).code, 2);
  assert.match((await run(["frobnicate"])).err, /unknown command "frobnicate"/);
  assert.match(
    (await run(["list", "--estate", "/nonexistent"])).err,
    /estate folder \/nonexistent does not exist/,
  );
  assert.match((await run(["list", "--bogus"])).err, /unknown option --bogus/);
  assert.match(
    (await run(["impact", "payments.lookup", "--estate", CORPUS])).err,
    /expected NAME@VERSION/,
  );
  assert.match(
    (await run(["list", "--principal", "mallory", "--estate", CORPUS])).err,
    /no principal "mallory"/,
  );
  await withEstate(async (dir) => {
    fs.writeFileSync(path.join(dir, "broken.tool.json"), '{"name": "x",');
    const r = await run(["check", "broken.tool.json"], dir);
    assert.equal(r.code, 2);
    assert.match(
      r.out,
      /^ERR {2}broken\.tool\.json: .*broken\.tool\.json is not valid JSON/m,
    );
    fs.writeFileSync(
      path.join(dir, "nometa.tool.json"),
      JSON.stringify({
        name: "x.y",
        version: "1.0.0",
        title: "t",
        description: "d",
        inputSchema: { type: "object" },
        dataClassification: "public",
      }),
    );
    const m = await run(["check", "nometa.tool.json"], dir);
    assert.equal(m.code, 2);
    assert.match(
      m.out,
      /sideEffect is required.*owner is required|owner is required.*sideEffect is required/,
    );
    fs.appendFileSync(
      path.join(dir, "corpus/tools/fx.quote/calls.jsonl"),
      "{not json\n",
    );
    const c = await run(["replay", "fx.quote"], dir);
    assert.equal(c.code, 2);
    assert.match(c.err, /fx\.quote\/calls\.jsonl:301:2: not valid JSON/);
  });
});

// ---------------------------------------------------------------- output has a size limit

/** A stored 2.0.0 call of about 1 MB: a valid reference and 92,000 keys the schema forbids. */
function floodCall(): string {
  const args: Record<string, unknown> = { reference: "PMT-000001" };
  for (let i = 0; i < 92_000; i++) args[`x${String(i).padStart(5, "0")}`] = 0;
  return JSON.stringify({
    version: "2.0.0",
    arguments: args,
    principal: "wholesale-operator",
    at: "2026-11-30T09:00:00.000Z",
  });
}

const bytes = (text: string) => new TextEncoder().encode(text).length;

Deno.test("estate replay and publish print the first 100 issues of a call and the count of the rest, human and --json", async () => {
  await withEstate(async (dir) => {
    const file = path.join(dir, "corpus/tools/payments.lookup/calls.jsonl");
    fs.writeFileSync(file, floodCall() + "\n" + fs.readFileSync(file, "utf8"));
    const human = await run(["replay", "payments.lookup"], dir);
    assert.equal(human.code, 1);
    const line = human.out.split("\n").find((l) => l.startsWith("  call 1 "))!;
    assert.ok(
      bytes(human.out) < 3 * MAX_ISSUES_BYTES,
      `${bytes(human.out)} bytes`,
    );
    const shown = line.split("; ");
    assert.equal(shown.length, MAX_ISSUES_IN_RESPONSE + 1);
    assert.match(shown[0], /: \$\.x00000 property "x00000" is not allowed$/);
    assert.equal(shown.at(-1), "and 91900 more issues");
    const json = JSON.parse(
      (await run(["replay", "payments.lookup", "--json"], dir)).out,
    );
    const line2 = json.lines.find((l: { major: number }) => l.major === 2);
    const first = line2.first[0];
    assert.equal(first.issues.length, MAX_ISSUES_IN_RESPONSE);
    assert.equal(first.issues[99].path, "$.x00099");
    assert.equal(first.omittedIssues, 91_900);
    assert.equal(line2.omittedNodes, 0);
    // A minor publish replays the 2.x calls: the refusal names the call, cut the same way.
    const minor = draft(dir, "minor.tool.json", (s) => (s.version = "2.0.1"));
    const refused = await run(["publish", minor, "--json"], dir);
    assert.equal(refused.code, 1, refused.out + refused.err);
    const message = JSON.parse(refused.out).message as string;
    assert.ok(bytes(message) < 2 * MAX_ISSUES_BYTES, `${bytes(message)} bytes`);
    assert.match(
      message,
      /call 1 \(wholesale-operator, .*\$\.x00099 .*, and 91900 more issues/,
    );
  });
});

Deno.test("estate check prints at most 100 findings a file and the count of the rest, human and --json", async () => {
  await withEstate(async (dir) => {
    draft(dir, "wide.tool.json", (s) => {
      s.version = "2.1.0";
      const props = (s.inputSchema as { properties: Record<string, unknown> }).properties;
      for (let i = 0; i < 150; i++) {
        props[`note${String(i).padStart(3, "0")}`] = { type: "string" };
      }
    });
    const human = await run(["check"], dir);
    assert.equal(human.code, 0, human.out + human.err);
    const lines = human.out.split("\n").filter((l) => l.startsWith("  "));
    assert.equal(lines.length, MAX_ISSUES_IN_RESPONSE + 1);
    assert.equal(lines.at(-1), "  … and 51 more findings"); // 150 changes and the version hint
    const json = JSON.parse((await run(["check", "--json"], dir)).out);
    const report = json.reports[0];
    assert.equal(report.findings.length, MAX_ISSUES_IN_RESPONSE);
    assert.equal(report.omittedFindings, 51);
    assert.equal(report.changes.length, MAX_ISSUES_IN_RESPONSE);
    assert.equal(report.omittedChanges, 50);
    assert.equal(report.changes[0].path, "$.properties.note000");
  });
});

Deno.test("estate serve --help documents the limits the HTTP server enforces, with their defaults", async () => {
  let out = "", err = "";
  const io = {
    stdout: (t: string) => (out += t),
    stderr: (t: string) => (err += t),
    isTerminal: false,
    cwd: Deno.cwd(),
  };
  const code = await runServe(["--help"], io, {
    system: () => {
      throw new Error("--help serves nothing");
    },
  });
  assert.equal(code, 0, err);
  assert.match(out, /^usage: estate serve /);
  for (
    const limit of [
      /sessions +1000 open at once \(maxSessions\), 503 past it; 100 per principal\s+\(maxSessionsPerPrincipal\): one more ends that principal's session idle\s+longest/,
      /connections +1024 at once \(maxConnections\), 128 from one address\s+\(maxConnectionsPerAddress\): one more is answered 503 and closed at once/,
      /request headers +complete within 30 s of the connection[^]*\(headersTimeoutMs\): 408, closed/,
      /request bodies +at most 1 MiB \(maxBodyBytes, 413\), within 30 s \(requestTimeoutMs, 408\)/,
      /an edited principals\.json takes effect at\s+once/,
    ]
  ) assert.match(out, limit);
  assert.match(
    (await run(["--help"])).out,
    /serve \[--http HOST:PORT \| --stdio --principal ID\]/,
  );
});

Deno.test("estate serve --upstream-max-bytes takes a whole number of bytes and refuses anything else with exit 2", async () => {
  const dir = await Deno.makeTempDir({ prefix: "serve-cap-" });
  try {
    for (const bad of ["0", "-5", "1.5", "lots"]) {
      let err = "";
      const code = await runServe(
        [
          "--stdio",
          "--principal",
          "wholesale-operator",
          "--estate",
          CORPUS,
          "--upstream-max-bytes",
          bad,
        ],
        {
          stdout: () => {},
          stderr: (t: string) => (err += t),
          isTerminal: false,
          cwd: dir,
        },
        {
          system: () => {
            throw new Error("a refused flag serves nothing");
          },
        },
      );
      assert.equal(code, 2, bad);
      assert.match(err, /--upstream-max-bytes takes a whole number of bytes, 1 or more/, bad);
    }
    let help = "";
    await runServe(["--help"], {
      stdout: (t: string) => (help += t),
      stderr: () => {},
      isTerminal: false,
      cwd: dir,
    }, { system: () => ({ handlerFor: () => undefined }) as never });
    assert.match(help, /--upstream-max-bytes N\s+the largest answer taken from an upstream server/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
