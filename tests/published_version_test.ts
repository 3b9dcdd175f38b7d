/**
 * A published version never changes: the registry keeps its own deep, frozen copy, and every
 * reader — lists, calls, resolution, classification, the store — sees that one value, whatever
 * the caller does afterwards to the object it published.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import {
  McpServer,
  type Principal,
  PublishError,
  toMcpTool,
  ToolRegistry,
  type ToolSpec,
  ToolSpecError,
  validateSchema,
} from "../mod.ts";
import { EstateDir } from "../lib/store/mod.ts";
import { ready } from "./_mcp_fixtures.ts";

const OPS: Principal = {
  id: "ops",
  scopes: ["payments:read", "payments:audit"],
  tenant: "wholesale",
  clearance: "restricted",
};

/** A fresh spec with something mutable at every depth: nested schemas, lists, enums, $defs. */
function original(version = "1.0.0"): ToolSpec {
  return {
    name: "payments.lookup",
    version,
    title: "Look up a payment",
    description: "Returns a payment's status by reference. Reads the payments system of record.",
    inputSchema: {
      type: "object",
      properties: {
        reference: { type: "string", pattern: "^PMT-[0-9]{6}$" },
        currency: { type: "string", enum: ["EUR", "GBP"] },
        legs: { type: "array", items: { $ref: "#/$defs/leg" }, maxItems: 3 },
        filter: {
          anyOf: [{ type: "string" }, { type: "integer", minimum: 1 }],
        },
      },
      required: ["reference"],
      additionalProperties: false,
      $defs: {
        leg: {
          type: "object",
          properties: { amount: { type: "number", minimum: 0 } },
          required: ["amount"],
        },
      },
    },
    outputSchema: {
      type: "object",
      properties: { status: { type: "string", enum: ["settled", "pending"] } },
    },
    sideEffect: "read",
    requiredScopes: ["payments:read", "payments:audit"],
    dataClassification: "confidential",
    tenants: ["wholesale", "group"],
    owner: "payments-platform",
  };
}

type Path = (string | number)[];

/** Every object and array reachable from a value, with its path (the root included). */
function containers(value: unknown, at: Path = []): Path[] {
  if (typeof value !== "object" || value === null) return [];
  const out: Path[] = [at];
  const entries = Array.isArray(value)
    ? value.map((v, i) => [i, v] as const)
    : Object.entries(value);
  for (const [k, v] of entries) out.push(...containers(v, [...at, k]));
  return out;
}

function reach(root: unknown, p: Path): unknown {
  return p.reduce(
    (v: unknown, k) => (v as Record<string | number, unknown>)[k],
    root,
  );
}

/** The ways a caller can change one container in place. */
const MUTATIONS: [string, (c: Record<string, unknown> | unknown[]) => void][] = [
  ["add an entry", (c) => {
    if (Array.isArray(c)) c.push("injected");
    else c["x-injected"] = { type: "string" };
  }],
  ["remove an entry", (c) => {
    if (Array.isArray(c)) c.pop();
    else delete c[Object.keys(c)[0]];
  }],
  ["replace every entry", (c) => {
    if (Array.isArray(c)) c.fill("replaced");
    else for (const k of Object.keys(c)) c[k] = "replaced";
  }],
  ["reorder or empty it", (c) => {
    if (Array.isArray(c)) c.reverse().splice(0, 1);
    else for (const k of Object.keys(c)) delete c[k];
  }],
];

/** Every reader shows `expected` (the pristine content), through one frozen value. */
async function assertUnchanged(
  registry: ToolRegistry,
  expected: ToolSpec,
  where: string,
) {
  const name = expected.name;
  const seen = [
    registry.versions(name)[0].spec,
    registry.latest(name),
    registry.resolve(name, "^1.0.0"),
    registry.discover(OPS)[0],
    registry.visible(name, OPS),
  ];
  for (const s of seen) {
    assert.deepEqual(s, expected, where);
    assert.equal(s, seen[0], `${where}: every reader sees the same value`);
    assert.ok(Object.isFrozen(s), where);
    assert.ok(Object.isFrozen(s!.inputSchema), where);
  }
  // Classification and immutability are judged against the real 1.0.0.
  const same = registry.plan(original());
  assert.equal(
    same.alreadyPublished,
    true,
    `${where}: ${JSON.stringify(same.refusals)}`,
  );
  const patch = registry.plan(original("1.0.1"));
  assert.equal(patch.bump, "patch", where);
  assert.deepEqual(patch.changes, [], where);
  assert.deepEqual(patch.refusals, [], where);
  // What MCP lists and what it enforces.
  const server = new McpServer({ registry, handlerFor: () => () => "ok" });
  const session = await ready(server, OPS);
  const list = await server.handle(
    { jsonrpc: "2.0", id: 1, method: "tools/list", params: {} },
    session,
  ) as { result: { tools: unknown[] } };
  assert.deepEqual(list.result.tools, [
    JSON.parse(JSON.stringify(toMcpTool(expected))),
  ], where);
  const call = async (args: unknown) => {
    const r = await server.handle(
      {
        jsonrpc: "2.0",
        id: 2,
        method: "tools/call",
        params: { name, arguments: args },
      },
      session,
    ) as { result: { isError?: boolean } };
    return r.result.isError === true;
  };
  const good = {
    reference: "PMT-000001",
    currency: "GBP",
    legs: [{ amount: 1 }],
    filter: 2,
  };
  assert.deepEqual(validateSchema(expected.inputSchema, good), []);
  assert.equal(await call(good), false, `${where}: a call 1.0.0 accepts`);
  for (
    const bad of [{}, { reference: "PMT-000001", currency: "USD" }, {
      ...good,
      extra: 1,
    }]
  ) {
    assert.notDeepEqual(validateSchema(expected.inputSchema, bad), []);
    assert.equal(
      await call(bad),
      true,
      `${where}: a call 1.0.0 refuses: ${JSON.stringify(bad)}`,
    );
  }
  server.close();
}

Deno.test("publish() keeps a deep frozen copy: changing the caller's object anywhere changes no reader", async () => {
  const paths = containers(original());
  assert.ok(paths.length > 20, `${paths.length} places to mutate`);
  for (const p of paths) {
    for (const [how, mutate] of MUTATIONS) {
      const registry = new ToolRegistry();
      const mine = original();
      registry.publish(mine);
      mutate(reach(mine, p) as Record<string, unknown>);
      await assertUnchanged(
        registry,
        original(),
        `${how} at ${JSON.stringify(p)}`,
      );
    }
  }
  // The top-level fields too.
  const registry = new ToolRegistry();
  const mine = original() as unknown as Record<string, unknown>;
  registry.publish(mine);
  for (const k of Object.keys(mine)) {
    mine[k] = k === "version" ? "1.0.0" : "replaced";
  }
  await assertUnchanged(registry, original(), "every top-level field replaced");
});

Deno.test("restore() keeps a deep frozen copy too", async () => {
  const registry = new ToolRegistry();
  const mine = original();
  registry.restore({
    spec: mine,
    history: [{ state: "active", at: "2026-01-01T00:00:00Z" }],
  });
  for (const p of containers(mine).reverse()) {
    MUTATIONS[3][1](reach(mine, p) as never);
  }
  await assertUnchanged(
    registry,
    original(),
    "restored, then emptied everywhere",
  );
});

Deno.test("publishing 1.0.1 after editing the published object is classified against the real 1.0.0", () => {
  const registry = new ToolRegistry();
  const mine = original();
  registry.publish(mine);
  // The old code reported "patch, 0 changes" here and silently rewrote 1.0.0.
  const props = (mine.inputSchema as { properties: Record<string, unknown> }).properties;
  delete props.currency;
  mine.version = "1.0.1";
  assert.throws(
    () => registry.publish(mine),
    (e: unknown) =>
      e instanceof PublishError && e.refusal === "bump-too-small" &&
      /removed property currency/.test(e.message),
  );
  assert.equal(registry.plan(mine).bump, "major");
  assert.deepEqual(registry.versions("payments.lookup").map((v) => v.spec), [
    original(),
  ]);
});

Deno.test("what the registry hands out cannot be changed: specs and their schemas are frozen", () => {
  const registry = new ToolRegistry();
  registry.publish(original());
  const spec = registry.latest("payments.lookup")!;
  const schema = spec.inputSchema as {
    properties: Record<string, unknown>;
    required: string[];
  };
  assert.throws(() => (spec as { title: string }).title = "x", TypeError);
  assert.throws(() => schema.required.push("currency"), TypeError);
  assert.throws(() => delete schema.properties.currency, TypeError);
  assert.throws(() => spec.tenants.push("retail"), TypeError);
  // Lifecycle records handed out are copies: changing one changes nothing inside.
  const record = registry.deprecate("payments.lookup", "1.0.0");
  record.state = "active";
  record.history.length = 0;
  assert.equal(registry.latest("payments.lookup"), undefined);
  assert.equal(registry.versions("payments.lookup")[0].state, "deprecated");
  const plan = registry.plan(original("1.0.1"));
  plan.baseline!.state = "retired";
  assert.equal(registry.versions("payments.lookup")[0].state, "deprecated");
  assert.deepEqual(registry.versions("payments.lookup")[0].spec, original());
});

Deno.test("EstateDir.publish() keeps the value it wrote: the caller's later edits reach neither memory nor disk", async () => {
  const dir = await Deno.makeTempDir({ prefix: "estate-frozen-" });
  try {
    const estate = EstateDir.open(dir);
    const mine = original();
    const { file } = estate.publish(mine);
    for (const p of containers(mine).reverse()) {
      MUTATIONS[2][1](reach(mine, p) as never);
    }
    assert.deepEqual(JSON.parse(fs.readFileSync(file, "utf8")), original());
    await assertUnchanged(estate.registry, original(), "store");
    estate.refresh(); // what is on disk agrees with what is loaded: no rewrite is reported
    assert.deepEqual(estate.registry.latest("payments.lookup"), original());
    assert.deepEqual(
      EstateDir.open(dir).registry.latest("payments.lookup"),
      original(),
    );
    assert.equal(path.basename(file), "1.0.0.json");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("publish() refuses a schema that is not JSON, naming each place, instead of storing a coerced copy", () => {
  const registry = new ToolRegistry();
  const cyclic: Record<string, unknown> = { type: "object" };
  cyclic.not = cyclic;
  const cases: [unknown, RegExp][] = [
    [
      { type: "object", properties: { n: { const: NaN } } },
      /inputSchema at \$\.properties\.n\.const: NaN is not a JSON value/,
    ],
    [
      { type: "object", properties: { n: { enum: [1, undefined] } } },
      /inputSchema at \$\.properties\.n\.enum\[1\]: undefined/,
    ],
    [
      { type: "object", properties: { n: { default: () => 1 } } },
      /\$\.properties\.n\.default: a function/,
    ],
    [
      { type: "object", properties: { at: { const: new Date(0) } } },
      /\$\.properties\.at\.const: a Date is not a JSON value/,
    ],
    [
      { type: "object", properties: { n: { maximum: Infinity } } },
      /\$\.properties\.n\.maximum: Infinity/,
    ],
    [cyclic, /inputSchema at \$\.not: a cycle/],
  ];
  for (const [inputSchema, message] of cases) {
    assert.throws(
      () => registry.publish({ ...original(), inputSchema }),
      (e: unknown) => e instanceof ToolSpecError && message.test(e.message),
      String(message),
    );
  }
  assert.deepEqual(registry.names(), []);
});
