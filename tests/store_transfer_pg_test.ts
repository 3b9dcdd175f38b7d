/**
 * Moving an estate between a folder and PostgreSQL (`lib/store/pg/transfer.ts`), on a real
 * PostgreSQL started for this file (`_postgres.ts`): folder → database → folder gives every
 * estate file back byte for byte, and a store on the migrated database is the folder's estate.
 */
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import fs from "node:fs";
import path from "node:path";
import postgres from "postgres";
import type { DriftRecord, StoredCall, ToolSpec } from "../mod.ts";
import { EstateDir, type TornLine } from "../lib/store/mod.ts";
import { MIGRATION_FILES, migrations } from "../lib/store/pg/migrate.ts";
import { PgEstateStore } from "../lib/store/pg/pg_store.ts";
import {
  exportToFolder,
  type MigrateResult,
  migrateToPostgres,
  type TransferCounts,
} from "../lib/store/pg/transfer.ts";
import { clock, lookup } from "./_store_fixtures.ts";
import { postgresSkipReason, startPostgres, type TestPostgres } from "./_postgres.ts";

const skip = postgresSkipReason();
let server: Promise<TestPostgres> | undefined;
const CORPUS = new URL("../corpus/", import.meta.url).pathname;

function pgTest(
  name: string,
  fn: (url: string, tmp: string) => Promise<void>,
): void {
  Deno.test({
    name: `[postgres] ${name}${skip ? ` (skipped: ${skip})` : ""}`,
    ignore: skip !== undefined,
    sanitizeResources: false,
    sanitizeOps: false,
    fn: async () => {
      const url = await (await (server ??= startPostgres())).createDatabase();
      const tmp = fs.mkdtempSync(
        path.join(Deno.makeTempDirSync(), "transfer-"),
      );
      try {
        await fn(url, tmp);
      } finally {
        fs.rmSync(path.dirname(tmp), { recursive: true, force: true });
      }
    },
  });
}

/** Every file under `dir`: relative path (`/`-separated) → bytes (the audit log's lock, runtime, left out). */
function tree(dir: string): Map<string, Uint8Array> {
  const out = new Map<string, Uint8Array>();
  const walk = (d: string, prefix: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      if (prefix === "" && e.name === ".audit-lock") continue;
      if (e.isDirectory()) walk(path.join(d, e.name), `${prefix}${e.name}/`);
      else out.set(`${prefix}${e.name}`, fs.readFileSync(path.join(d, e.name)));
    }
  };
  walk(dir, "");
  return out;
}

/** Asserts that the export holds exactly the source's estate files (all but `skipped`), byte for byte. */
function assertSameEstate(
  source: string,
  exported: string,
  skipped: string[],
): void {
  const want = tree(source);
  for (const f of skipped) want.delete(f);
  const got = tree(exported);
  assert.deepEqual(
    [...got.keys()].sort(),
    [...want.keys()].sort(),
    "the same estate files",
  );
  for (const [file, bytes] of want) {
    assert.ok(
      Buffer.from(got.get(file)!).equals(Buffer.from(bytes)),
      `${file} byte for byte`,
    );
  }
}

async function collect<T>(
  stream: Iterable<T> | AsyncIterable<T>,
): Promise<T[]> {
  const out: T[] = [];
  for await (const x of stream) out.push(x);
  return out;
}

/** The source folder's estate and a store on the migrated database hold the same estate. */
async function assertSameStore(source: string, url: string): Promise<void> {
  const folder = EstateDir.open(source);
  const store = await PgEstateStore.open(url);
  try {
    const names = folder.registry.names();
    assert.deepEqual(store.registry.names(), names);
    for (const name of names) {
      assert.deepEqual(
        store.registry.versions(name),
        folder.registry.versions(name),
        name,
      );
      assert.deepEqual(await collect(store.readCalls(name)), [
        ...folder.readCalls(name),
      ], name);
    }
    assert.deepEqual(store.principals(), folder.principals());
    assert.deepEqual(store.registry.servers(), folder.registry.servers());
    assert.deepEqual(await collect(store.readDrift()), [...folder.readDrift()]);
  } finally {
    await store.close();
  }
}

const withNote = (version: string, changes: Partial<ToolSpec> = {}): ToolSpec =>
  lookup(version, {
    inputSchema: {
      type: "object",
      properties: { reference: { type: "string" }, note: { type: "string" } },
      required: ["reference"],
    },
    ...changes,
  });

const PRINCIPALS_TEXT = `[ {"description" : "An operator",  "id":"ops-bot",
\t"scopes":["payments:read"],"tenant":"wholesale","clearance":"confidential"},

  {"id":"teller","scopes":[ ],"tenant":"retail","clearance":"internal",
   "tokenSha256": "ABCDEF0123456789abcdef0123456789ABCDEF0123456789abcdef0123456789"}
]`;

/** A hand-written server record: its own key order and spacing. */
const HAND_SERVER = `{ "tools": ["ledger.balance"], "id": "ledger-mcp",
  "owner": "ledger-team", "description": "The ledger's MCP server (hand-written).",
  "upstream": {"kind": "http", "url": "https://ledger.internal/mcp",
               "identity": {"spiffeId": "spiffe://bank.example/ledger"}} }
`;

const DRIFT: DriftRecord[] = [
  {
    at: "2026-01-05T09:00:00.000Z",
    server: "crm-mcp",
    kind: "unavailable",
    details: "refused",
  },
  {
    at: "2026-01-05T09:01:00.000Z",
    server: "crm-mcp",
    tool: "crm.customer.get",
    registeredVersion: "1.0.0",
    kind: "description",
    details: "the description changed",
    evidence: { live: "Ünïcode 𝄞" },
  },
];

/** A richer estate than corpus/, written by EstateDir (and a few files by hand). */
function buildEstate(dir: string, calls: number): void {
  const estate = EstateDir.open(dir, { now: clock() });
  estate.publish(lookup("1.0.0"));
  estate.publish(withNote("1.1.0"));
  estate.publish(lookup("2.0.0", { title: "Look up a payment (v2)" }));
  estate.deprecate("payments.lookup", "1.0.0", {
    reason: "use 1.1.0 — «notes»",
    retireAfter: "2026-06-30",
  });
  estate.retire("payments.lookup", "1.0.0", { reason: "no callers left" });
  estate.deprecate("payments.lookup", "1.1.0", { retireAfter: "2099-12-31" });
  const batch: StoredCall[] = [];
  for (let i = 0; i < calls; i++) {
    const version = ["1.0.0", "1.1.0", "2.0.0"][i % 3];
    batch.push({
      version,
      arguments: i % 7 === 0
        ? { reference: `PMT-${i}`, note: 'Überweisung für 𝄞 Ltd\n"quoted"' }
        : { reference: `PMT-${i}` },
      principal: i % 2 ? "ops-bot" : "teller",
      at: new Date(Date.UTC(2026, 0, 5, 9) + i * 1000).toISOString(),
    });
    if (batch.length === 5000) {
      estate.appendCalls("payments.lookup", batch.splice(0));
    }
  }
  estate.appendCalls("payments.lookup", batch);
  // A call written by hand: its own key order and spacing, kept as it is.
  fs.appendFileSync(
    path.join(dir, "tools", "payments.lookup", "calls.jsonl"),
    '{ "principal": "ops-bot", "at": "2026-02-01T10:00:00Z", "version": "2.0.0", "arguments": {"reference": "PMT-hand"} }\n',
  );
  estate.publish({
    ...lookup("1.0.0"),
    name: "crm.customer.get",
    title: "Get a customer",
    owner: "crm-team",
  });
  estate.registerServer({
    id: "crm-mcp",
    owner: "crm-team",
    description: "The CRM team's MCP server.",
    upstream: {
      kind: "http",
      url: "https://crm.internal/mcp",
      identity: { spiffeId: "spiffe://bank.example/crm" },
    },
    tools: ["crm.customer.get"],
  });
  fs.writeFileSync(path.join(dir, "servers", "ledger-mcp.json"), HAND_SERVER);
  estate.appendDrift(DRIFT);
  fs.writeFileSync(path.join(dir, "principals.json"), PRINCIPALS_TEXT);
  // A version file written by hand, with its own spacing (and a lifecycle in the store's form).
  const hand = path.join(dir, "tools", "fx.quote");
  fs.mkdirSync(hand);
  fs.writeFileSync(
    path.join(hand, "1.0.0.json"),
    JSON.stringify(
      { ...lookup("1.0.0"), name: "fx.quote", title: "FX quote" },
      null,
      "\t",
    ),
  );
  fs.writeFileSync(
    path.join(hand, "lifecycle.json"),
    JSON.stringify(
      { "1.0.0": [{ state: "active", at: "2026-01-05T08:00:00Z" }] },
      null,
      2,
    ) + "\n",
  );
  // Not part of the estate.
  fs.writeFileSync(path.join(dir, "README.md"), "# notes\n");
  fs.writeFileSync(path.join(hand, ".gitkeep"), "");
}

/** Just the counts of a transfer's result. */
function counts(r: TransferCounts): TransferCounts {
  const {
    tools,
    versions,
    lifecycleEvents,
    calls,
    servers,
    drift,
    principals,
  } = r;
  return {
    tools,
    versions,
    lifecycleEvents,
    calls,
    servers,
    drift,
    principals,
  };
}

function noChanges(result: MigrateResult): void {
  assert.deepEqual(
    result.changed,
    [],
    "every estate file comes back byte for byte",
  );
  assert.deepEqual(result.tornLines, []);
}

pgTest(
  "corpus/ → PostgreSQL → folder gives every estate file back byte for byte",
  async (url, tmp) => {
    const store = await PgEstateStore.open(url);
    let result: MigrateResult;
    try {
      result = await migrateToPostgres(CORPUS, store);
      noChanges(result);
      assert.deepEqual(result.skipped, ["README.md"]);
      const files = [...tree(CORPUS).keys()];
      assert.equal(
        result.tools,
        files.filter((f) => f.endsWith("/lifecycle.json")).length,
      );
      assert.equal(
        result.versions,
        files.filter((f) => /^tools\/[^/]+\/\d[^/]*\.json$/.test(f)).length,
      );
      assert.equal(
        result.principals,
        EstateDir.open(CORPUS).principals().length,
      );
      const calls = files.filter((f) => f.endsWith("calls.jsonl"))
        .reduce(
          (n, f) =>
            n +
            fs.readFileSync(path.join(CORPUS, f), "utf8").split("\n").length -
            1,
          0,
        );
      assert.equal(result.calls, calls);
      assert.deepEqual(
        store.registry.names(),
        EstateDir.open(CORPUS).registry.names(),
      );

      const out = path.join(tmp, "exported");
      const exported = await exportToFolder(store, out);
      assert.deepEqual(
        counts(exported),
        counts(result),
        "the export counts what was migrated",
      );
      assertSameEstate(CORPUS, out, result.skipped);
    } finally {
      await store.close();
    }
    await assertSameStore(CORPUS, url);
  },
);

pgTest(
  "a richer estate (several versions, deprecations, a retirement, 25,000 calls, servers, drift, hand-written files) round-trips byte for byte",
  async (url, tmp) => {
    const source = path.join(tmp, "estate");
    fs.mkdirSync(source);
    buildEstate(source, 25_000);
    const store = await PgEstateStore.open(url);
    try {
      const result = await migrateToPostgres(source, store, { batchSize: 999 });
      noChanges(result);
      assert.deepEqual(result.skipped, [
        "README.md",
        "tools/fx.quote/.gitkeep",
      ]);
      assert.deepEqual(counts(result), {
        tools: 3,
        versions: 5,
        lifecycleEvents: 5 + 3,
        calls: 25_001,
        servers: 2,
        drift: 2,
        principals: 2,
      });
      const out = path.join(tmp, "exported");
      fs.mkdirSync(out); // an existing empty folder is fine
      const exported = await exportToFolder(store, out, { batchSize: 777 });
      assert.deepEqual(counts(exported), counts(result));
      assertSameEstate(source, out, result.skipped);
      // And through the folder store again: the same bytes.
      assert.deepEqual(
        EstateDir.open(out).registry.versions("payments.lookup"),
        EstateDir.open(source).registry.versions("payments.lookup"),
      );
    } finally {
      await store.close();
    }
    await assertSameStore(source, url);
  },
);

pgTest(
  "a store on the migrated database has the folder's registry, histories, principals, servers, and calls in order",
  async (url, tmp) => {
    const source = path.join(tmp, "estate");
    fs.mkdirSync(source);
    buildEstate(source, 3000);
    const store = await PgEstateStore.open(url);
    try {
      await migrateToPostgres(source, store);
      // The migrating store reloaded: it already holds the estate.
      const folder = EstateDir.open(source);
      assert.deepEqual(
        store.registry.versions("payments.lookup").map((
          r,
        ) => [r.spec.version, r.state, r.history]),
        folder.registry.versions("payments.lookup").map((
          r,
        ) => [r.spec.version, r.state, r.history]),
      );
      assert.deepEqual(
        store.registry.versions("payments.lookup").map((r) => r.state),
        ["retired", "deprecated", "active"],
      );
      assert.equal(
        store.principal("teller")?.tokenSha256?.slice(0, 6),
        "abcdef",
      );
    } finally {
      await store.close();
    }
    await assertSameStore(source, url);
  },
);

pgTest(
  "migrate refuses a database that holds an estate, naming what is there; export refuses a folder that is not empty",
  async (url, tmp) => {
    const store = await PgEstateStore.open(url, { now: clock() });
    try {
      await store.publish(lookup("1.0.0"));
      await store.setPrincipals([
        {
          id: "ops-bot",
          scopes: [],
          tenant: "wholesale",
          clearance: "internal",
        },
      ]);
      await assert.rejects(
        () => migrateToPostgres(CORPUS, store),
        (e: Error) => {
          assert.match(
            e.message,
            /^Cannot migrate .*corpus\/? into database estate_\d+/,
          );
          assert.match(
            e.message,
            /already holds an estate \(tool versions: 1, lifecycle events: 1, a principals file\); migrate into an empty database$/,
          );
          return true;
        },
      );
      assert.deepEqual(
        store.registry.names(),
        ["payments.lookup"],
        "nothing was written",
      );

      const full = path.join(tmp, "full");
      fs.mkdirSync(full);
      fs.writeFileSync(path.join(full, "keep.txt"), "mine\n");
      await assert.rejects(() => exportToFolder(store, full), (e: Error) => {
        assert.equal(
          e.message,
          `Cannot export the estate to ${full}: the folder is not empty (it holds keep.txt); export into a new or empty folder`,
        );
        return true;
      });
      assert.deepEqual(
        fs.readdirSync(full),
        ["keep.txt"],
        "nothing was written",
      );
      await assert.rejects(
        () => exportToFolder(store, path.join(full, "keep.txt")),
        /keep\.txt: it is a file, not a folder/,
      );
    } finally {
      await store.close();
    }
  },
);

pgTest(
  "a bad line fails the whole migration, naming its file and line, and leaves the database empty",
  async (url, tmp) => {
    const source = path.join(tmp, "estate");
    fs.mkdirSync(source);
    buildEstate(source, 100);
    const calls = path.join(source, "tools", "payments.lookup", "calls.jsonl");
    const good = fs.readFileSync(calls, "utf8");
    fs.appendFileSync(calls, '{"version":"1.0.0"}\n');
    const store = await PgEstateStore.open(url);
    try {
      await assert.rejects(
        () => migrateToPostgres(source, store, { batchSize: 10 }),
        /calls\.jsonl:102: not a stored call: arguments is required/,
      );
      assert.deepEqual(store.registry.names(), []);
      const [{ n }] = await store
        .sql`select count(*)::int as n from stored_calls`;
      assert.equal(n, 0, "the batches already inserted were rolled back");
      fs.writeFileSync(calls, good);
      noChanges(await migrateToPostgres(source, store));
    } finally {
      await store.close();
    }
  },
);

pgTest(
  "a torn last line of calls.jsonl or drift.jsonl is reported, skipped, and said to be left out",
  async (url, tmp) => {
    const source = path.join(tmp, "estate");
    fs.mkdirSync(source);
    buildEstate(source, 10);
    const calls = path.join(source, "tools", "payments.lookup", "calls.jsonl");
    const drift = path.join(source, "drift.jsonl");
    const wholeCalls = fs.readFileSync(calls);
    const wholeDrift = fs.readFileSync(drift);
    fs.appendFileSync(calls, '{"version":"1.0.0","argum');
    fs.appendFileSync(drift, '{"at":"2026');
    const heard: TornLine[] = [];
    const store = await PgEstateStore.open(url);
    try {
      const result = await migrateToPostgres(source, store, {
        onTornLine: (t) => heard.push(t),
      });
      const torn: TornLine[] = [
        { file: calls, line: 12, bytes: 25, removed: false },
        { file: drift, line: 3, bytes: 11, removed: false },
      ];
      assert.deepEqual(heard, torn);
      assert.deepEqual(result.tornLines, torn);
      assert.deepEqual(result.changed, [
        {
          file: "tools/payments.lookup/calls.jsonl",
          note: "torn last line (25 bytes) not copied",
        },
        { file: "drift.jsonl", note: "torn last line (11 bytes) not copied" },
      ]);
      assert.equal(result.calls, 11);
      assert.equal(result.drift, 2);
      const out = path.join(tmp, "exported");
      await exportToFolder(store, out);
      assert.ok(
        fs.readFileSync(
          path.join(out, "tools", "payments.lookup", "calls.jsonl"),
        ).equals(
          wholeCalls,
        ),
        "the export holds the whole lines",
      );
      assert.ok(
        fs.readFileSync(path.join(out, "drift.jsonl")).equals(wholeDrift),
      );
      fs.writeFileSync(calls, wholeCalls);
      fs.writeFileSync(drift, wholeDrift);
      assertSameEstate(source, out, result.skipped);
    } finally {
      await store.close();
    }
  },
);

pgTest(
  "a folder not in the export's form is migrated, and each difference is named",
  async (url, tmp) => {
    const source = path.join(tmp, "estate");
    fs.mkdirSync(source);
    buildEstate(source, 3);
    const tool = path.join(source, "tools", "payments.lookup");
    const lifecycle = fs.readFileSync(
      path.join(tool, "lifecycle.json"),
      "utf8",
    );
    fs.writeFileSync(
      path.join(tool, "lifecycle.json"),
      JSON.stringify(JSON.parse(lifecycle)),
    );
    const calls = fs.readFileSync(path.join(tool, "calls.jsonl"), "utf8");
    fs.writeFileSync(
      path.join(tool, "calls.jsonl"),
      calls.replaceAll("\n", "\r\n").trimEnd(),
    );
    fs.writeFileSync(path.join(source, "drift.jsonl"), "");
    const store = await PgEstateStore.open(url);
    try {
      const result = await migrateToPostgres(source, store);
      assert.deepEqual(result.changed, [
        {
          file: "tools/payments.lookup/lifecycle.json",
          note:
            "not in the form the folder store writes (versions ascending, two-space indent, final newline); an export writes that form",
        },
        {
          file: "tools/payments.lookup/calls.jsonl",
          note: "the last line gains its newline",
        },
        {
          file: "tools/payments.lookup/calls.jsonl",
          note: "CRLF line ends or a byte order mark are not kept",
        },
        { file: "drift.jsonl", note: "empty; an export writes no file" },
      ]);
      assert.equal(result.calls, 4);
    } finally {
      await store.close();
    }
    await assertSameStore(source, url);
  },
);

pgTest(
  "migration 002 keeps the principals that 001 stored as rows, as one principals text",
  async (url) => {
    const sql = postgres(url, { max: 1, onnotice: () => {} });
    try {
      const [first] = await migrations();
      assert.equal(first.version, 1);
      await sql.begin(async (tx) => {
        await tx.unsafe(`create table estate_migrations (
        version integer primary key, name text not null,
        applied_at timestamptz not null default now())`);
        await tx.unsafe(first.sql);
        await tx`insert into estate_migrations (version, name) values (1, ${first.name})`;
        await tx`insert into principals (position, principal) values
        (0, '{"id":"ops-bot","scopes":["payments:read"],"tenant":"wholesale","clearance":"confidential"}'),
        (1, '{"id":"teller","scopes":[],"tenant":"retail","clearance":"internal"}')`;
      });
    } finally {
      await sql.end();
    }
    const store = await PgEstateStore.open(url);
    try {
      assert.deepEqual(store.principals().map((p) => p.id), [
        "ops-bot",
        "teller",
      ]);
      const [{ text }] = await store.sql`select text from principals_file`;
      assert.equal(
        text,
        '[\n{"id":"ops-bot","scopes":["payments:read"],"tenant":"wholesale","clearance":"confidential"},\n{"id":"teller","scopes":[],"tenant":"retail","clearance":"internal"}\n]\n',
      );
    } finally {
      await store.close();
    }
  },
);

/** estate.json and rules.json as a person writes them: tabs, key order, no final newline. */
const ESTATE_JSON = '{\t"compatibility":   "forward" }';
const RULES_JSON = '{\n\t"ignore": [],\n\t"rules": { "description": "off" }\n}';

/** A payments.lookup whose reference is one of `codes` (an enum: adding a code widens it). */
function coded(version: string, codes: string[]): ToolSpec {
  return lookup(version, {
    inputSchema: {
      type: "object",
      properties: { reference: { type: "string", enum: codes } },
      required: ["reference"],
    },
  });
}

pgTest(
  "a folder's estate.json and rules.json round-trip byte for byte; the store takes the mode from estate.json",
  async (url, tmp) => {
    const source = path.join(tmp, "estate");
    fs.mkdirSync(source);
    buildEstate(source, 10);
    fs.writeFileSync(path.join(source, "estate.json"), ESTATE_JSON);
    fs.writeFileSync(path.join(source, "rules.json"), RULES_JSON);
    const store = await PgEstateStore.open(url);
    try {
      const result = await migrateToPostgres(source, store);
      noChanges(result);
      assert.deepEqual(result.skipped, [
        "README.md",
        "tools/fx.quote/.gitkeep",
      ]);
      assert.equal(store.estateFile("estate.json"), ESTATE_JSON);
      assert.equal(store.estateFile("rules.json"), RULES_JSON);
      assert.equal(store.estateFile("principals.json"), undefined);
      assert.equal(store.registry.compatibility, "forward");
      const out = path.join(tmp, "exported");
      const exported = await exportToFolder(store, out);
      assert.ok(
        exported.files.includes("estate.json") &&
          exported.files.includes("rules.json"),
      );
      assertSameEstate(source, out, result.skipped);
      assert.equal(EstateDir.open(out).registry.compatibility, "forward");
    } finally {
      await store.close();
    }
    const reopened = await PgEstateStore.open(url);
    try {
      assert.equal(reopened.registry.compatibility, "forward");
    } finally {
      await reopened.close();
    }
  },
);

pgTest(
  "migrate refuses a folder whose rules.json is not valid, naming it; nothing is written",
  async (url, tmp) => {
    const source = path.join(tmp, "estate");
    fs.mkdirSync(source);
    buildEstate(source, 10);
    fs.writeFileSync(
      path.join(source, "rules.json"),
      '{"rules": {"no-such-rule": "off"}}\n',
    );
    const store = await PgEstateStore.open(url);
    try {
      await assert.rejects(
        () => migrateToPostgres(source, store),
        (e: Error) => {
          assert.equal(
            e.message,
            `${
              path.join(source, "rules.json")
            }: $.rules["no-such-rule"]: unknown rule "no-such-rule"; estate rules lists them`,
          );
          return true;
        },
      );
      const [{ n }] = await store
        .sql`select count(*)::int as n from tool_versions`;
      assert.equal(n, 0);
    } finally {
      await store.close();
    }
  },
);

pgTest(
  "setEstateFile checks, keeps the bytes and announces; another store's refresh and every publish take the new mode",
  async (url) => {
    const a = await PgEstateStore.open(url, { now: clock() });
    const b = await PgEstateStore.open(url, { now: clock() });
    const heard: string[] = [];
    const watch = await b.watch((c) => heard.push(`${c.kind}:${c.name}`));
    try {
      await a.publish(coded("1.0.0", ["A", "B"]));
      await assert.rejects(
        () => a.setEstateFile("estate.json", '{"compatibility": "both"}'),
        /: estate\.json: compatibility must be one of backward, .*, got "both"$/,
      );
      await assert.rejects(
        () => a.setEstateFile("rules.json", "{"),
        /: rules\.json: not valid JSON/,
      );
      await assert.rejects(
        () => a.setEstateFile("principals.json", "[]"),
        (e: unknown) =>
          e instanceof TypeError &&
          /estate\.json and rules\.json/.test(e.message),
      );
      assert.equal(
        a.estateFile("estate.json"),
        undefined,
        "nothing was written",
      );

      await a.setEstateFile("estate.json", ESTATE_JSON);
      assert.equal(a.estateFile("estate.json"), ESTATE_JSON);
      assert.equal(a.registry.compatibility, "forward");
      // b has not refreshed: its registry still says backward, but its publish reads the mode
      // stored now, and a widening is major under forward.
      assert.equal(b.registry.compatibility, "backward");
      const registry = b.registry;
      await assert.rejects(
        () => b.publish(coded("1.1.0", ["A", "B", "C"])),
        /under forward compatibility, change is major/,
      );
      await b.refresh();
      assert.equal(
        b.registry,
        registry,
        "refresh keeps the registry its subscribers hold",
      );
      assert.equal(b.registry.compatibility, "forward");
      assert.equal(b.estateFile("estate.json"), ESTATE_JSON);
      for (let i = 0; i < 50 && !heard.includes("settings:estate.json"); i++) {
        await new Promise((r) => setTimeout(r, 20));
      }
      assert.ok(heard.includes("settings:estate.json"), heard.join(", "));

      // Back to backward: the same widening is minor.
      await a.setEstateFile("estate.json", '{"compatibility": "backward"}\n');
      const done = await b.publish(coded("1.1.0", ["A", "B", "C"]));
      assert.equal(done.status, "published");
    } finally {
      await watch.close();
      await a.close();
      await b.close();
    }
  },
);

Deno.test({
  name: "[postgres] the test server stops",
  ignore: skip !== undefined,
  fn: async () => {
    if (server) await (await server).stop();
  },
});

Deno.test("the migration list names exactly the migration files in the repository, in order", () => {
  const dir = new URL("../lib/store/pg/migrations/", import.meta.url);
  const files = [...Deno.readDirSync(dir)].map((e) => e.name).filter((n) => n.endsWith(".sql"))
    .sort();
  assert.deepEqual([...MIGRATION_FILES], files);
  // Numbers strictly increase, each once. A gap is allowed: numbers are reserved for work in
  // progress on other branches (009 was taken while 007 and 008 were in flight).
  const numbers = files.map((f) => Number(f.slice(0, 3)));
  assert.deepEqual(numbers, [...new Set(numbers)].sort((a, b) => a - b));
  assert.equal(numbers[0], 1);
});
