/**
 * `estate servers`, `estate servers add FILE` and `estate drift`: human output and `--json`, exit
 * codes as the other commands (0 ok, 1 refused, 2 a usage or input error), `--help` for each, and
 * text from an upstream printed so that it cannot drive the reader's terminal.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { runCli } from "../lib/cli/main.ts";
import { EstateDir } from "../lib/store/mod.ts";
import type { DriftRecord, ServerRecord } from "../mod.ts";

const CORPUS = new URL("../corpus/", import.meta.url).pathname;

async function run(
  args: string[],
  cwd: string,
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
  const dir = await Deno.makeTempDir({ prefix: "estate-cli-servers-" });
  try {
    fs.cpSync(CORPUS, path.join(dir, "corpus"), { recursive: true });
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

const CRM: ServerRecord = {
  id: "crm-mcp",
  owner: "crm-team",
  description: "The CRM team's MCP server.",
  upstream: {
    kind: "http",
    url: "https://crm.internal:8443/mcp",
    identity: { spiffeId: "spiffe://bank.example/crm" },
  },
  tools: ["crm.customer.get", "crm.customer.search"],
};

const EVERYTHING: ServerRecord = {
  id: "everything",
  owner: "platform",
  description: "The reference server, over stdio.",
  upstream: {
    kind: "stdio",
    command: "/usr/bin/node",
    args: [
      "node_modules/@modelcontextprotocol/server-everything/dist/index.js",
    ],
    sha256: "0123456789abcdef".repeat(4),
  },
  tools: ["everything.echo"],
};

function write(dir: string, file: string, value: unknown): string {
  fs.writeFileSync(path.join(dir, file), JSON.stringify(value, null, 2));
  return file;
}

Deno.test("estate servers add registers a record file; estate servers lists it with upstream, identity and tools", async () => {
  await withEstate(async (dir) => {
    const empty = await run(["servers"], dir);
    assert.equal(empty.code, 0);
    assert.match(empty.out, /^no servers recorded/);
    assert.deepEqual(JSON.parse((await run(["servers", "--json"], dir)).out), {
      servers: [],
    });

    const added = await run(
      ["servers", "add", write(dir, "crm.json", CRM)],
      dir,
    );
    assert.equal(added.code, 0, added.err);
    assert.equal(
      added.out,
      "registered server crm-mcp (2 tools: crm.customer.get, crm.customer.search) in corpus/servers/crm-mcp.json\n",
    );
    const json = JSON.parse(
      (await run(
        ["servers", "add", write(dir, "e.json", EVERYTHING), "--json"],
        dir,
      )).out,
    );
    assert.deepEqual(json, {
      status: "registered",
      server: "everything",
      file: path.join(dir, "corpus/servers/everything.json"),
      tools: ["everything.echo"],
    });
    const again = await run(["servers", "add", "crm.json"], dir);
    assert.equal(again.code, 0);
    assert.equal(
      again.out,
      "server crm-mcp is already registered with this record; nothing written\n",
    );

    const list = await run(["servers"], dir);
    assert.equal(list.code, 0);
    assert.equal(
      list.out,
      "crm-mcp (owner crm-team): The CRM team's MCP server.\n" +
        "  upstream  http https://crm.internal:8443/mcp\n" +
        "  identity  SPIFFE ID spiffe://bank.example/crm\n" +
        "  tools     crm.customer.get@1.0.0, crm.customer.search (not published)\n" +
        "everything (owner platform): The reference server, over stdio.\n" +
        "  upstream  stdio /usr/bin/node node_modules/@modelcontextprotocol/server-everything/dist/index.js\n" +
        "  identity  binary sha256 0123456789abcdef…\n" +
        "  tools     everything.echo (not published)\n",
    );
    const listed = JSON.parse((await run(["servers", "--json"], dir)).out);
    assert.deepEqual(listed.servers.map((s: { id: string }) => s.id), [
      "crm-mcp",
      "everything",
    ]);
    assert.deepEqual(listed.servers[0].upstream, CRM.upstream);
    assert.deepEqual(listed.servers[0].tools, [
      { name: "crm.customer.get", version: "1.0.0", quarantined: false },
      { name: "crm.customer.search", version: null, quarantined: false },
    ]);
  });
});

Deno.test("estate servers add refuses what the registry refuses with exit 1, human and --json; --update replaces", async () => {
  await withEstate(async (dir) => {
    await run(["servers", "add", write(dir, "crm.json", CRM)], dir);
    const rogue = write(dir, "rogue.json", {
      ...CRM,
      id: "rogue",
      tools: ["payments.release", "crm.customer.get"],
    });
    const refused = await run(["servers", "add", rogue], dir);
    assert.equal(refused.code, 1);
    assert.equal(refused.err, "");
    assert.equal(
      refused.out,
      "Cannot register server rogue: it lists crm.customer.get, which server crm-mcp serves; exactly one server serves a tool name (remove it from one of the records)\n",
    );
    const json = JSON.parse(
      (await run(["servers", "add", rogue, "--json"], dir)).out,
    );
    assert.equal(json.status, "refused");
    assert.equal(json.refusal, "tool-served-elsewhere");
    assert.deepEqual(json.conflicts, [{
      tool: "crm.customer.get",
      server: "crm-mcp",
    }]);
    assert.equal(
      fs.existsSync(path.join(dir, "corpus/servers/rogue.json")),
      false,
    );

    const changed = write(dir, "crm2.json", { ...CRM, owner: "crm-platform" });
    const unasked = await run(["servers", "add", changed], dir);
    assert.equal(unasked.code, 1);
    assert.match(
      unasked.out,
      /\(it differs in owner\); register it as an update to replace it \(estate servers add FILE --update\)\n$/,
    );
    const updated = await run(["servers", "add", changed, "--update"], dir);
    assert.equal(updated.code, 0, updated.out);
    assert.match(updated.out, /^updated server crm-mcp/);
    assert.match(
      (await run(["servers"], dir)).out,
      /^crm-mcp \(owner crm-platform\)/,
    );
  });
});

Deno.test("estate servers exits 2 on usage and input errors: a missing or invalid file, extra arguments, --update alone", async () => {
  await withEstate(async (dir) => {
    const cases: [string[], RegExp][] = [
      [["servers", "add"], /usage: estate servers \[add FILE \[--update\]\]/],
      [["servers", "remove", "x"], /usage: estate servers/],
      [["servers", "--update"], /--update goes with add FILE/],
      [
        ["servers", "add", "nope.json"],
        /cannot read .*nope\.json: no such file/,
      ],
      [
        ["servers", "add", write(dir, "bad.json", { id: "Bad", tools: [] })],
        /bad\.json: not a valid server record: id "Bad"/,
      ],
    ];
    fs.writeFileSync(path.join(dir, "broken.json"), '{\n  "id": ');
    cases.push([
      ["servers", "add", "broken.json"],
      /broken\.json:2:\d+: not valid JSON/,
    ]);
    for (const [args, pattern] of cases) {
      const r = await run(args, dir);
      assert.equal(r.code, 2, `${args.join(" ")}: ${r.out}${r.err}`);
      assert.equal(r.out, "");
      assert.match(r.err, /^estate: [^\n]+\n$/);
      assert.match(r.err, pattern);
      const j = await run([...args, "--json"], dir);
      assert.equal(j.code, 2);
      assert.equal(JSON.parse(j.out).status, "error");
    }
    // A malformed record already in the estate is named by every command that opens it.
    fs.mkdirSync(path.join(dir, "corpus/servers"));
    fs.writeFileSync(
      path.join(dir, "corpus/servers/crm.json"),
      JSON.stringify({ ...CRM, id: "crm" }).replace('"http"', '"ftp"'),
    );
    const r = await run(["list"], dir);
    assert.equal(r.code, 2);
    assert.match(
      r.err,
      /corpus\/servers\/crm\.json: not a valid server record: upstream\.kind/,
    );
  });
});

const DRIFT: DriftRecord[] = [
  {
    at: "2026-12-01T09:00:00.000Z",
    server: "crm-mcp",
    tool: "crm.customer.get",
    registeredVersion: "1.0.0",
    kind: "compatible",
    bump: "minor",
    details: "added optional property locale to the input schema",
  },
  {
    at: "2026-12-01T10:00:00.000Z",
    server: "crm-mcp",
    tool: "crm.customer.get",
    registeredVersion: "1.0.0",
    kind: "quarantined",
    bump: "major",
    details: "removed property customerId from the input schema",
  },
  {
    at: "2026-12-01T08:00:00.000Z",
    server: "crm-mcp",
    kind: "refused-identity",
    details: "presented spiffe://bank.example/evil, expected spiffe://bank.example/crm",
    evidence: { check: "spiffe", observed: "spiffe://bank.example/evil" },
  },
  {
    at: "2026-12-01T11:00:00.000Z",
    server: "crm-mcp",
    tool: "crm.customer.get",
    registeredVersion: "1.0.0",
    kind: "description",
    details: 'the description changed to "Return a customer. \u001b[8m<IMPORTANT>\u202E"',
  },
  {
    at: "2026-12-01T07:00:00.000Z",
    server: "everything",
    tool: "payments.release",
    kind: "dropped-tool",
    details: "offered payments.release, which its record does not list",
  },
];

Deno.test("estate drift prints the log grouped by server and tool, newest first, upstream text made harmless; --json for machines", async () => {
  await withEstate(async (dir) => {
    const none = await run(["drift"], dir);
    assert.equal(none.code, 0);
    assert.match(none.out, /^no drift recorded/);
    EstateDir.open(path.join(dir, "corpus")).appendDrift(DRIFT);
    const r = await run(["drift"], dir);
    assert.equal(r.code, 0, r.err);
    assert.equal(
      r.out,
      "crm-mcp (the server)\n" +
        "  2026-12-01T08:00:00.000Z  refused-identity  presented spiffe://bank.example/evil, expected spiffe://bank.example/crm\n" +
        "crm-mcp crm.customer.get (registered 1.0.0)\n" +
        '  2026-12-01T11:00:00.000Z  description          the description changed to "Return a customer. <U+001B>[8m<IMPORTANT><U+202E>"\n' +
        "  2026-12-01T10:00:00.000Z  quarantined (major)  removed property customerId from the input schema\n" +
        "  2026-12-01T09:00:00.000Z  compatible (minor)   added optional property locale to the input schema\n" +
        "everything payments.release\n" +
        "  2026-12-01T07:00:00.000Z  dropped-tool  offered payments.release, which its record does not list\n",
    );
    assert.ok(
      !r.out.includes("\u001b") && !r.out.includes("\u202e"),
      "no escape reaches the terminal",
    );
    const json = JSON.parse((await run(["drift", "--json"], dir)).out);
    assert.equal(json.total, 5);
    assert.deepEqual(
      json.groups.map((
        g: { server: string; tool: string | null; records: DriftRecord[] },
      ) => [
        g.server,
        g.tool,
        g.records.map((x) => x.kind),
      ]),
      [
        ["crm-mcp", null, ["refused-identity"]],
        ["crm-mcp", "crm.customer.get", [
          "description",
          "quarantined",
          "compatible",
        ]],
        ["everything", "payments.release", ["dropped-tool"]],
      ],
    );
    assert.deepEqual(json.groups[0].records[0], DRIFT[2]);
    const filtered = JSON.parse(
      (await run(["drift", "--server", "everything", "--json"], dir)).out,
    );
    assert.deepEqual(filtered.groups.map((g: { tool: string }) => g.tool), [
      "payments.release",
    ]);
    const byTool = await run(["drift", "--tool", "crm.customer.get"], dir);
    assert.match(
      byTool.out,
      /^crm-mcp crm\.customer\.get \(registered 1\.0\.0\)\n/,
    );
    assert.equal(byTool.out.split("\n").length, 5);
    assert.match(
      (await run(["drift", "--server", "nope"], dir)).out,
      /^no drift recorded for that server or tool/,
    );
  });
});

Deno.test("estate servers marks a tool the gateway quarantined until a version is published", async () => {
  await withEstate(async (dir) => {
    await run(["servers", "add", write(dir, "crm.json", CRM)], dir);
    const estate = EstateDir.open(path.join(dir, "corpus"));
    estate.appendDrift(DRIFT);
    assert.match(
      (await run(["servers"], dir)).out,
      /tools {5}crm\.customer\.get@1\.0\.0 \(quarantined: see estate drift\), crm\.customer\.search \(not published\)/,
    );
    const json = JSON.parse((await run(["servers", "--json"], dir)).out);
    assert.equal(json.servers[0].tools[0].quarantined, true);
    // A later compatible observation lifts it.
    estate.appendDrift([{ ...DRIFT[0], at: "2026-12-02T09:00:00.000Z" }]);
    assert.doesNotMatch((await run(["servers"], dir)).out, /quarantined/);
    // So does a published version: the quarantine was of 1.0.0.
    estate.appendDrift([{ ...DRIFT[1], at: "2026-12-03T09:00:00.000Z" }]);
    assert.match((await run(["servers"], dir)).out, /quarantined/);
    const spec = JSON.parse(
      fs.readFileSync(
        path.join(dir, "corpus/tools/crm.customer.get/1.0.0.json"),
        "utf8",
      ),
    );
    estate.publish({ ...spec, version: "2.0.0", server: "crm-mcp" });
    assert.doesNotMatch((await run(["servers"], dir)).out, /quarantined/);
  });
});

Deno.test("estate drift exits 2 naming the line of a malformed drift.jsonl, and on extra arguments", async () => {
  await withEstate(async (dir) => {
    fs.writeFileSync(
      path.join(dir, "corpus/drift.jsonl"),
      JSON.stringify(DRIFT[0]) + '\n{"kind": 1}\n',
    );
    const r = await run(["drift"], dir);
    assert.equal(r.code, 2);
    assert.match(
      r.err,
      /corpus\/drift\.jsonl:2: not a drift record: at must be an ISO 8601 time/,
    );
    assert.equal((await run(["drift", "extra"], dir)).code, 2);
  });
});

Deno.test("estate servers, servers add and drift have --help, and estate --help lists them", async () => {
  for (
    const [args, usage] of [
      [["servers", "--help"], "usage: estate servers [add FILE [--update]]"],
      [["servers", "add", "-h"], "usage: estate servers [add FILE [--update]]"],
      [["drift", "--help"], "usage: estate drift [--server ID] [--tool NAME]"],
    ] as const
  ) {
    const r = await run([...args], Deno.cwd());
    assert.equal(r.code, 0);
    assert.ok(r.out.startsWith(usage), r.out);
  }
  const all = (await run(["--help"], Deno.cwd())).out;
  assert.ok(all.includes("\n  estate servers [add FILE [--update]]\n"), all);
  assert.ok(
    all.includes("\n  estate drift [--server ID] [--tool NAME]\n"),
    all,
  );
});
