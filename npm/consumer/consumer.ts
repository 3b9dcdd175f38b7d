// A Node project using the npm package of @tool-estate/core as its users would: every entry point
// imported by its published name, type-checked with tsc (strict, NodeNext resolution through the
// package's `exports`) and run under Node. scripts/check_npm_package.ts installs the packed
// tarball into a scratch project beside this file and runs it; it prints one line per check.
//
//   node consumer.js               the checks
//   node consumer.js serve-stdio   an MCP server on stdin/stdout (the stdio check spawns it)
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import fc from "fast-check";
import {
  type CallOutcome,
  classifySchemaChange,
  type JsonSchema,
  McpClient,
  McpServer,
  type Principal,
  repairArguments,
  type SchemaIssue,
  ToolRegistry,
  type ToolSpec,
  validateSchema,
} from "@tool-estate/core";
import { arbitraryForSchema } from "@tool-estate/core/testing";
import { EstateDir } from "@tool-estate/core/store";
import {
  CHANGE_CHANNEL,
  type Migration,
  MIGRATION_FILES,
  migrations,
  PgEstateStore,
  type PgStoreOptions,
} from "@tool-estate/core/postgres";
import { serveStdio, StdioClientTransport } from "@tool-estate/core/stdio";
import { bearerTokens, serveHttp, StreamableHttpClientTransport } from "@tool-estate/core/http";

const fields = {
  type: "object",
  properties: {
    pair: { type: "string", pattern: "^[A-Z]{6}$" },
    amount: { type: "number", minimum: 0 },
  },
  required: ["pair"],
  additionalProperties: false,
};
const schema: JsonSchema = fields;

const quote: ToolSpec = {
  name: "fx.quote",
  version: "1.0.0",
  title: "FX quote",
  description: "Quotes a currency pair's rate from the pricing engine. Read-only.",
  inputSchema: schema,
  sideEffect: "read",
  requiredScopes: [],
  dataClassification: "internal",
  tenants: [],
  owner: "treasury",
};

const desk: Principal = { id: "desk", scopes: [], tenant: "group", clearance: "internal" };

function server(): McpServer {
  const registry = new ToolRegistry();
  registry.publish(quote);
  return new McpServer({
    registry,
    handlerFor: () => (args) => ({ pair: args.pair, rate: 1.17 }),
  });
}

function check(name: string): void {
  console.log(`ok   ${name}`);
}

/** What an MCP client sees of the example server, the same over every transport. */
async function talk(client: McpClient): Promise<void> {
  await client.connect();
  assert.deepEqual((await client.listTools()).map((t) => t.name), ["fx.quote"]);
  const ok: CallOutcome = await client.callTool("fx.quote", { pair: "EURUSD" });
  assert.equal(ok.kind, "ok");
  const bad = await client.callTool("fx.quote", { pair: "euro" });
  assert.equal(bad.kind, "invalid-arguments");
  if (bad.kind === "invalid-arguments") assert.deepEqual(bad.issues.map((i) => i.path), ["$.pair"]);
  await client.close();
}

async function main(): Promise<void> {
  // @tool-estate/core: validation, repair, classification, the registry.
  const issues: SchemaIssue[] = validateSchema(schema, { pair: "eurusd", amount: "12", note: 1 });
  assert.deepEqual(issues.map((i) => [i.path, i.keyword]), [
    ["$.amount", "type"],
    ["$.note", "additionalProperties"],
    ["$.pair", "pattern"],
  ]);
  assert.deepEqual(repairArguments(schema, { pair: "EURUSD", amount: "12.5" }).arguments, {
    pair: "EURUSD",
    amount: 12.5,
  });
  check("validateSchema() and repairArguments()");

  const removed: JsonSchema = { ...fields, properties: { pair: { type: "string" } } };
  assert.equal(classifySchemaChange(schema, removed).bump, "major");
  assert.equal(classifySchemaChange(schema, { ...fields, required: [] }).bump, "minor");
  check("classifySchemaChange()");

  const registry = new ToolRegistry();
  registry.publish(quote);
  assert.throws(
    () => registry.publish({ ...quote, version: "1.1.0", inputSchema: removed }),
    /change is major/,
  );
  registry.publish({ ...quote, version: "2.0.0", inputSchema: removed });
  assert.equal(registry.latest("fx.quote")?.version, "2.0.0");
  check("ToolRegistry publish() refuses a breaking minor and takes it as a major");

  // @tool-estate/core/testing, with the project's own fast-check.
  fc.assert(
    fc.property(arbitraryForSchema(schema), (value) => validateSchema(schema, value).length === 0),
  );
  check("arbitraryForSchema() values validate (fast-check)");

  // @tool-estate/core/store: an estate on disk.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "consumer-estate-"));
  try {
    const estate = EstateDir.open(dir);
    assert.equal(estate.publish(quote).status, "published");
    estate.appendCalls("fx.quote", [
      {
        version: "1.0.0",
        arguments: { pair: "EURUSD" },
        principal: "desk",
        at: "2026-01-05T09:00:00Z",
      },
    ]);
    const reopened = EstateDir.open(dir);
    assert.equal(reopened.registry.latest("fx.quote")?.version, "1.0.0");
    assert.deepEqual([...reopened.readCalls("fx.quote")].map((c) => c.principal), ["desk"]);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  check("EstateDir publishes, stores calls and reopens");

  // @tool-estate/core/postgres, without a database: the driver loads, and the migrations are read
  // from the .sql files the package ships beside its migrate.js.
  const shipped = fileURLToPath(
    new URL("./node_modules/@tool-estate/core/lib/store/pg/migrations/", import.meta.url),
  );
  assert.deepEqual([...MIGRATION_FILES], fs.readdirSync(shipped).sort());
  const all: Migration[] = await migrations();
  assert.deepEqual(
    all.map((m) => [m.version, m.name]),
    MIGRATION_FILES.map((name) => [Number(name.slice(0, 3)), name]),
  );
  for (const m of all) {
    assert.equal(m.sql, fs.readFileSync(path.join(shipped, m.name), "utf8"));
    assert.match(m.sql, /\b(create( unlogged)?|alter) table\b/i);
  }
  // The declarations carry the store's API (nothing connects here).
  const open: (url: string, options?: PgStoreOptions) => Promise<PgEstateStore> =
    PgEstateStore.open;
  assert.equal(typeof open, "function");
  assert.equal(CHANGE_CHANNEL, "estate_changes");
  check(`migrations() reads the ${all.length} .sql files the package ships`);

  // @tool-estate/core/http: a Streamable HTTP server and client on 127.0.0.1.
  const mcp = server();
  const http = await serveHttp(mcp, {
    authenticate: bearerTokens([{ ...desk, token: "t0k" }]),
  });
  try {
    await talk(new McpClient(new StreamableHttpClientTransport(http.url, { token: "t0k" })));
  } finally {
    await http.close();
    mcp.close();
  }
  check("serveHttp() and StreamableHttpClientTransport: list, call, invalid arguments");

  // @tool-estate/core/stdio: this program as the server, spawned.
  await talk(
    new McpClient(
      new StdioClientTransport({
        command: process.execPath,
        args: [fileURLToPath(import.meta.url), "serve-stdio"],
      }),
    ),
  );
  check("StdioClientTransport and serveStdio(): list, call, invalid arguments");
}

if (process.argv[2] === "serve-stdio") {
  await serveStdio(server(), { principal: desk, input: process.stdin, output: process.stdout });
} else {
  await main();
  console.log(`consumer: every check passed on Node ${process.version}`);
}
