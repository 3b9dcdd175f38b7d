/**
 * The estate on disk records servers (`servers/<id>.json`, loaded before `tools/`, written
 * atomically under the lock of `servers/`, decided against the disk) and keeps the gateway's drift
 * log (`drift.jsonl`): round trips, refusals that write nothing, and malformed files reported with
 * their path (and line) as malformed tool files are.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import {
  type DriftRecord,
  type EstateEvent,
  PublishError,
  type ServerRecord,
  ServerRegistrationError,
} from "../mod.ts";
import { appendDriftLog, CorpusError, EstateDir, readDriftLog } from "../lib/store/mod.ts";
import { lookup, snapshot, withTempDir } from "./_store_fixtures.ts";

function record(
  id: string,
  tools: string[],
  changes: Partial<ServerRecord> = {},
): ServerRecord {
  return {
    id,
    owner: `${id}-team`,
    description: `The ${id} MCP server.`,
    upstream: {
      kind: "stdio",
      command: "/usr/bin/node",
      args: ["server.js"],
      env: { LOG: "info" },
      sha256: "b".repeat(64),
      scriptSha256: "c".repeat(64),
    },
    tools,
    ...changes,
  };
}

function throwsCorpus(
  fn: () => unknown,
  file: string,
  line?: number,
): CorpusError {
  let caught: unknown;
  try {
    fn();
  } catch (e) {
    caught = e;
  }
  assert.ok(
    caught instanceof CorpusError,
    `expected a CorpusError, got ${caught}`,
  );
  assert.equal(caught.file, file);
  assert.ok(caught.message.startsWith(file), caught.message);
  if (line !== undefined) assert.equal(caught.line, line, caught.message);
  return caught;
}

Deno.test("registerServer() writes servers/<id>.json; a reopened estate has the same servers, loaded before the tools", async () => {
  await withTempDir((dir) => {
    const estate = EstateDir.open(dir);
    const result = estate.registerServer(
      record("payments", ["payments.lookup"]),
    );
    assert.equal(result.status, "registered");
    assert.equal(result.file, `${dir}/servers/payments.json`);
    assert.deepEqual(
      JSON.parse(fs.readFileSync(result.file, "utf8")),
      record("payments", ["payments.lookup"]),
    );
    // A spec naming the server publishes, and loads again: servers are there before tools.
    estate.publish(lookup("1.0.0", { server: "payments" }));
    const again = EstateDir.open(dir);
    assert.deepEqual(again.registry.servers(), [
      record("payments", ["payments.lookup"]),
    ]);
    assert.equal(again.registry.serverFor("payments.lookup")?.id, "payments");
    assert.equal(again.registry.latest("payments.lookup")?.server, "payments");
    // The same record again writes nothing.
    const before = snapshot(dir);
    assert.equal(
      again.registerServer(record("payments", ["payments.lookup"])).status,
      "unchanged",
    );
    assert.deepEqual(snapshot(dir), before);
  });
});

Deno.test("registerServer() reads a record file, and refuses what the registry refuses, writing nothing", async () => {
  await withTempDir((dir) => {
    const estate = EstateDir.open(dir);
    const file = `${dir}/crm.json`;
    fs.writeFileSync(
      file,
      JSON.stringify(record("crm", ["crm.customer.get"]), null, 2),
    );
    assert.equal(estate.registerServer(file).status, "registered");
    fs.writeFileSync(
      `${dir}/rogue.json`,
      JSON.stringify(record("rogue", ["crm.customer.get"])),
    );
    const before = snapshot(dir);
    assert.throws(
      () => estate.registerServer(`${dir}/rogue.json`),
      (e: unknown) =>
        e instanceof ServerRegistrationError &&
        e.refusal === "tool-served-elsewhere" &&
        /it lists crm\.customer\.get, which server crm serves/.test(e.message),
    );
    const changed = record("crm", ["crm.customer.get"], {
      owner: "crm-platform",
    });
    assert.throws(
      () => estate.registerServer(changed),
      (e: unknown) =>
        e instanceof ServerRegistrationError &&
        e.refusal === "changed-without-update",
    );
    assert.deepEqual(snapshot(dir), before);
    assert.equal(
      estate.registerServer(changed, { update: true }).status,
      "updated",
    );
    assert.equal(
      EstateDir.open(dir).registry.server("crm")?.owner,
      "crm-platform",
    );
    // A file that is not a record is named, with the line and column of bad JSON.
    fs.writeFileSync(`${dir}/broken.json`, '{\n  "id": "x",\n');
    const e = throwsCorpus(
      () => estate.registerServer(`${dir}/broken.json`),
      `${dir}/broken.json`,
      3,
    );
    assert.match(e.message, /not valid JSON/);
    fs.writeFileSync(
      `${dir}/invalid.json`,
      JSON.stringify({ id: "x", tools: [] }),
    );
    assert.match(
      throwsCorpus(
        () => estate.registerServer(`${dir}/invalid.json`),
        `${dir}/invalid.json`,
      )
        .message,
      /not a valid server record: owner must be a non-empty string/,
    );
  });
});

Deno.test("registerServer() decides against the disk: a server another process registered since open() is respected", async () => {
  await withTempDir((dir) => {
    const a = EstateDir.open(dir);
    const b = EstateDir.open(dir);
    a.registerServer(record("payments", ["payments.release"]));
    assert.throws(
      () => b.registerServer(record("crm", ["payments.release"])),
      (e: unknown) =>
        e instanceof ServerRegistrationError &&
        e.refusal === "tool-served-elsewhere",
    );
    // b took in a's record when it decided; its subscribers hear of both.
    const events: string[] = [];
    b.registry.subscribe((e: EstateEvent) => events.push(`${e.type} ${e.name}`));
    b.registerServer(record("crm", ["crm.customer.get"]));
    assert.deepEqual(events, [
      "server-registered crm",
      "server-registered payments",
    ]);
    assert.equal(b.registry.serverFor("payments.release")?.id, "payments");
  });
});

Deno.test("publish() checks a spec's server against the records on disk, including those another process wrote", async () => {
  await withTempDir((dir) => {
    const a = EstateDir.open(dir);
    const b = EstateDir.open(dir);
    assert.throws(
      () => b.publish(lookup("1.0.0", { server: "payments" })),
      (e: unknown) => e instanceof PublishError && e.refusal === "unknown-server",
    );
    assert.equal(
      fs.existsSync(`${dir}/tools/payments.lookup`),
      false,
      "a refused first publish leaves no folder",
    );
    a.registerServer(record("payments", ["payments.release"]));
    assert.throws(
      () => b.publish(lookup("1.0.0", { server: "payments" })),
      (e: unknown) => e instanceof PublishError && e.refusal === "server-does-not-list",
    );
    a.registerServer(
      record("payments", ["payments.release", "payments.lookup"]),
      { update: true },
    );
    assert.equal(
      b.publish(lookup("1.0.0", { server: "payments" })).status,
      "published",
    );
  });
});

Deno.test("refresh() takes in server records other processes wrote, and tells subscribers", async () => {
  await withTempDir((dir) => {
    const reader = EstateDir.open(dir);
    const events: string[] = [];
    reader.registry.subscribe((e) => events.push(`${e.type} ${e.name}`));
    const writer = EstateDir.open(dir);
    writer.registerServer(record("crm", ["crm.customer.get"]));
    writer.registerServer(
      record("crm", ["crm.customer.get", "crm.customer.search"]),
      {
        update: true,
      },
    );
    writer.registerServer(record("fx", ["fx.quote"]));
    reader.refresh();
    assert.deepEqual(events, ["server-registered crm", "server-registered fx"]);
    assert.equal(reader.registry.serverFor("crm.customer.search")?.id, "crm");
    reader.refresh();
    assert.equal(events.length, 2, "nothing changed, nothing told");
  });
});

Deno.test("a malformed server file is a CorpusError naming it (and the line): bad JSON, an invalid record, an id not its name, a stray file", async () => {
  await withTempDir((dir) => {
    EstateDir.open(dir).registerServer(record("crm", ["crm.customer.get"]));
    const file = `${dir}/servers/crm.json`;
    const good = fs.readFileSync(file, "utf8");
    const before = snapshot(dir);

    fs.writeFileSync(file, good.slice(0, good.indexOf('"tools"') + 3));
    const truncated = throwsCorpus(() => EstateDir.open(dir), file);
    assert.ok(
      truncated.line !== undefined && truncated.column !== undefined,
      truncated.message,
    );
    assert.match(truncated.message, /not valid JSON: unexpected end of file/);

    fs.writeFileSync(file, good.replace('"stdio"', '"ftp"'));
    assert.match(
      throwsCorpus(() => EstateDir.open(dir), file).message,
      /not a valid server record: upstream\.kind must be "stdio" or "http"/,
    );

    fs.writeFileSync(file, good.replace('"id": "crm"', '"id": "crm2"'));
    assert.match(
      throwsCorpus(() => EstateDir.open(dir), file, 2).message,
      /id "crm2" does not match the file name; the record of crm2 belongs in crm2\.json/,
    );

    fs.writeFileSync(file, good);
    fs.writeFileSync(`${dir}/servers/notes.txt`, "hello");
    assert.match(
      throwsCorpus(() => EstateDir.open(dir), `${dir}/servers/notes.txt`)
        .message,
      /unexpected file: servers\/ holds one <server id>\.json per server/,
    );
    fs.rmSync(`${dir}/servers/notes.txt`);
    // Dotfiles (a lock, a crashed write's leftovers) are not part of the estate.
    fs.writeFileSync(`${dir}/servers/.tmp-crm.json-1`, "{");
    assert.equal(EstateDir.open(dir).registry.servers().length, 1);
    fs.rmSync(`${dir}/servers/.tmp-crm.json-1`);
    assert.deepEqual(snapshot(dir), before);
  });
});

Deno.test("two server files listing one tool are a CorpusError naming both files and the line", async () => {
  await withTempDir((dir) => {
    EstateDir.open(dir).registerServer(record("a-crm", ["crm.customer.get"]));
    const rogue = `${dir}/servers/b-rogue.json`;
    fs.writeFileSync(
      rogue,
      JSON.stringify(
        record("b-rogue", ["fx.quote", "crm.customer.get"]),
        null,
        2,
      ),
    );
    const e = throwsCorpus(() => EstateDir.open(dir), rogue);
    assert.match(
      e.message,
      new RegExp(
        `lists crm\\.customer\\.get, which ${dir}/servers/a-crm\\.json \\(server a-crm\\) lists too; exactly one server serves a tool name`,
      ),
    );
    assert.equal(
      e.line,
      fs.readFileSync(rogue, "utf8").split("\n").findIndex((l) =>
        l.includes('"crm.customer.get"')
      ) + 1,
    );
  });
});

Deno.test("servers/ and a server file are never followed through a symbolic link", async () => {
  await withTempDir((dir) => {
    const estate = EstateDir.open(dir);
    estate.registerServer(record("crm", ["crm.customer.get"]));
    fs.renameSync(`${dir}/servers/crm.json`, `${dir}/elsewhere.json`);
    fs.symlinkSync(`${dir}/elsewhere.json`, `${dir}/servers/crm.json`);
    assert.match(
      throwsCorpus(() => EstateDir.open(dir), `${dir}/servers/crm.json`)
        .message,
      /symbolic link/,
    );
    fs.rmSync(`${dir}/servers`, { recursive: true });
    fs.mkdirSync(`${dir}/outside`);
    fs.symlinkSync(`${dir}/outside`, `${dir}/servers`);
    throwsCorpus(
      () => estate.registerServer(record("fx", ["fx.quote"])),
      `${dir}/servers`,
    );
    assert.deepEqual(fs.readdirSync(`${dir}/outside`), []);
  });
});

// ------------------------------------------------------------------------------------- drift.jsonl

const DRIFT: DriftRecord[] = [
  {
    at: "2026-12-01T09:00:00.000Z",
    server: "crm",
    tool: "crm.customer.get",
    registeredVersion: "1.0.0",
    kind: "compatible",
    bump: "minor",
    details: "added optional property locale",
  },
  {
    at: "2026-12-01T10:00:00.000Z",
    server: "crm",
    tool: "crm.customer.get",
    registeredVersion: "1.0.0",
    kind: "quarantined",
    bump: "major",
    details: "removed property customerId",
    evidence: { changes: [{ path: "$.properties.customerId", bump: "major" }] },
  },
  {
    at: "2026-12-01T11:00:00.000Z",
    server: "crm",
    kind: "refused-identity",
    details: "presented spiffe://bank.example/evil",
  },
];

Deno.test("appendDrift() and readDrift() round-trip drift.jsonl, one record a line, in order", async () => {
  await withTempDir((dir) => {
    const estate = EstateDir.open(dir);
    assert.deepEqual([...estate.readDrift()], [], "no log, no records");
    assert.equal(estate.appendDrift(DRIFT.slice(0, 2)), 2);
    assert.equal(estate.appendDrift(DRIFT.slice(2)), 1);
    assert.equal(estate.appendDrift([]), 0);
    assert.deepEqual([...EstateDir.open(dir).readDrift()], DRIFT);
    assert.deepEqual([...readDriftLog(`${dir}/drift.jsonl`)], DRIFT);
    assert.equal(
      fs.readFileSync(`${dir}/drift.jsonl`, "utf8").split("\n").length,
      4,
    );
    // The log is not part of the registry's estate: it loads as before.
    assert.deepEqual(EstateDir.open(dir).registry.names(), []);
  });
});

Deno.test("appendDrift() refuses a record that is not a drift record before writing anything, naming it and the field", async () => {
  await withTempDir((dir) => {
    const estate = EstateDir.open(dir);
    estate.appendDrift(DRIFT.slice(0, 1));
    const before = snapshot(dir);
    assert.throws(
      () =>
        estate.appendDrift([DRIFT[1], {
          ...DRIFT[0],
          kind: "rug-pull" as DriftRecord["kind"],
        }]),
      (e: unknown) =>
        e instanceof TypeError &&
        /Cannot append drift record 2 to .*drift\.jsonl: kind must be one of compatible, quarantined/
          .test(
            e.message,
          ),
    );
    assert.throws(
      () => estate.appendDrift([{ ...DRIFT[1], registeredVersion: undefined }]),
      /registeredVersion is required for kind quarantined/,
    );
    assert.deepEqual(snapshot(dir), before);
  });
});

Deno.test("a malformed line of drift.jsonl is a CorpusError naming file and line; a torn last line is skipped, then removed by the next append", async () => {
  await withTempDir((dir) => {
    const file = `${dir}/drift.jsonl`;
    appendDriftLog(file, DRIFT.slice(0, 2));
    const good = fs.readFileSync(file, "utf8");
    fs.writeFileSync(
      file,
      good +
        '{"at": "2026-12-01T12:00:00Z", "server": "crm", "kind": "nope", "details": "x"}\n',
    );
    const e = throwsCorpus(() => [...readDriftLog(file)], file, 3);
    assert.match(e.message, /not a drift record: kind must be one of/);
    fs.writeFileSync(file, good + "{not json\n");
    assert.match(
      throwsCorpus(() => [...readDriftLog(file)], file, 3).message,
      /not valid JSON/,
    );
    // A write that never finished.
    fs.writeFileSync(file, good + JSON.stringify(DRIFT[2]).slice(0, 30));
    const torn: string[] = [];
    const options = {
      onTornLine: (t: { line: number; removed: boolean }) => torn.push(`${t.line} ${t.removed}`),
    };
    assert.deepEqual([...readDriftLog(file, options)], DRIFT.slice(0, 2));
    appendDriftLog(file, DRIFT.slice(2), options);
    assert.deepEqual(torn, ["3 false", "3 true"]);
    assert.deepEqual([...readDriftLog(file)], DRIFT);
    // A whole record without its newline (written by hand) is kept.
    fs.writeFileSync(file, good + JSON.stringify(DRIFT[2]));
    appendDriftLog(file, DRIFT.slice(0, 1));
    assert.deepEqual([...readDriftLog(file)], [...DRIFT, DRIFT[0]]);
  });
});

Deno.test("refresh() takes in the tools even when a server record is bad, then names the bad file", async () => {
  await withTempDir((dir) => {
    const reader = EstateDir.open(dir);
    const writer = EstateDir.open(dir);
    writer.registerServer(record("crm", ["crm.customer.get"]));
    writer.publish(lookup("1.0.0"));
    fs.writeFileSync(`${dir}/servers/crm.json`, "{");
    throwsCorpus(() => reader.refresh(), `${dir}/servers/crm.json`);
    assert.equal(reader.registry.latest("payments.lookup")?.version, "1.0.0");
  });
});
