/**
 * The surface-leak law over the example estate (`corpus/` served as `estate serve` serves it):
 * for every principal, in both eras and over both transports, no byte the principal receives —
 * on any surface a client can reach — carries the name of a tool, a prompt or a resource the
 * principal may not see, nor a value of such a tool's data. And a probe for a hidden name is
 * answered byte for byte as a probe for a nonexistent one, and logged as a probe.
 *
 * What is forbidden is worked out here from the estate's files, the example system's records and
 * the providers' declarations, by a visibility rule written again below: never by asking the
 * server under test.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import fc from "fast-check";
import { BankSystem, exampleBank } from "../examples/bank_system.ts";
import { DEMO_TOKENS } from "../lib/cli/demo_tokens.ts";
import { estateServer } from "../lib/cli/serve.ts";
import { EstateDir } from "../lib/store/mod.ts";
import { bearerTokens, serveHttp } from "../lib/mcp/transports/http_mod.ts";
import { type JsonRpcResponse, type McpServer, type Principal, STATELESS_META } from "../mod.ts";
import {
  type Connection,
  type Era,
  httpConnection,
  stdioConnection,
  type Wire,
} from "./_surface_walk.ts";
import { ROOT, withEstate } from "./_serve.ts";

// ---------------------------------------------------------------------------------------------
// The estate, read from its files, and the visibility rule, written again.

interface EstatePrincipal extends Principal {
  tokenSha256: string;
}

const PRINCIPALS: EstatePrincipal[] = JSON.parse(
  fs.readFileSync(path.join(ROOT, "corpus", "principals.json"), "utf8"),
);

const RANK = ["public", "internal", "confidential", "restricted"];

interface DiskTool {
  name: string;
  active: {
    requiredScopes: string[];
    tenants: string[];
    dataClassification: string;
  }[];
  /** Property names whose values are identifiers (a `pattern` in some version's schema). */
  identifiers: Set<string>;
  calls: Record<string, unknown>[];
}

function readTools(dir: string): DiskTool[] {
  const tools = path.join(dir, "tools");
  return fs.readdirSync(tools).sort().map((name) => {
    const folder = path.join(tools, name);
    const lifecycle = JSON.parse(
      fs.readFileSync(path.join(folder, "lifecycle.json"), "utf8"),
    );
    const specs = fs.readdirSync(folder).filter((f) => /^\d+\.\d+\.\d+\.json$/.test(f)).map((f) =>
      JSON.parse(fs.readFileSync(path.join(folder, f), "utf8"))
    );
    const identifiers = new Set<string>();
    for (const s of specs) {
      for (const [k, v] of Object.entries(s.inputSchema.properties ?? {})) {
        if ((v as { pattern?: string }).pattern) identifiers.add(k);
      }
    }
    const callsFile = path.join(folder, "calls.jsonl");
    const calls = fs.existsSync(callsFile)
      ? fs.readFileSync(callsFile, "utf8").split("\n").filter((l) => l.trim())
        .map((l) => JSON.parse(l).arguments)
      : [];
    return {
      name,
      active: specs.filter((s) => lifecycle[s.version]?.at(-1)?.state === "active"),
      identifiers,
      calls,
    };
  });
}

function admits(
  rule: {
    requiredScopes: string[];
    tenants: string[];
    dataClassification: string;
  },
  p: Principal,
): boolean {
  return RANK.indexOf(rule.dataClassification) <= RANK.indexOf(p.clearance) &&
    (rule.tenants.length === 0 || rule.tenants.includes(p.tenant)) &&
    rule.requiredScopes.every((s) => p.scopes.includes(s));
}

function sees(tools: DiskTool[], p: Principal, name: string): boolean {
  return tools.some((t) => t.name === name && t.active.some((v) => admits(v, p)));
}

interface Declared {
  requires?: {
    tools?: string[];
    scopes?: string[];
    tenants?: string[];
    clearance?: string;
  };
}

/** Whether a declared prompt, resource or template is for this principal (no declaration: yes). */
function meets(tools: DiskTool[], p: Principal, item: Declared): boolean {
  const r = item.requires;
  if (!r) return true;
  return (r.tools ?? []).every((t) => sees(tools, p, t)) &&
    (r.scopes ?? []).every((s) => p.scopes.includes(s)) &&
    (!r.tenants?.length || r.tenants.includes(p.tenant)) &&
    (r.clearance === undefined ||
      RANK.indexOf(r.clearance) <= RANK.indexOf(p.clearance));
}

/** The example system's prompts, resources and templates: everything any principal is offered. */
function catalogue(): {
  prompts: ({ name: string; arguments?: { name: string }[] } & Declared)[];
  resources: ({ uri: string } & Declared)[];
  templates: ({ uriTemplate: string } & Declared)[];
} {
  const bank = new BankSystem();
  const byKey = <T>(
    items: T[],
    key: (t: T) => string,
  ) => [...new Map(items.map((i) => [key(i), i])).values()];
  const prompts = bank.prompts(), resources = bank.resources();
  return {
    prompts: byKey(PRINCIPALS.flatMap((p) => prompts.list(p)), (x) => x.name),
    resources: byKey(
      PRINCIPALS.flatMap((p) => resources.list(p)),
      (x) => x.uri,
    ),
    templates: byKey(
      PRINCIPALS.flatMap((p) => resources.templates?.(p) ?? []),
      (x) => x.uriTemplate,
    ),
  };
}

/** A template's URIs for a few ids (the example system's and made-up ones). */
function instances(uriTemplate: string): string[] {
  return ["POL-PAY-007", "PMT-004211", "PMT-000771", "NOPE-1"].map((id) =>
    uriTemplate.replace(/\{[^}]*\}/g, id)
  );
}

/** The records of the example system that belong to a tool (a tool's data, beyond its calls). */
function recordsOf(tool: string): string[] {
  if (tool !== "payments.lookup" && tool !== "payments.release") return [];
  return [...new BankSystem().payments.values()].flatMap((
    p,
  ) => [p.reference, p.debtor, p.creditor]);
}

/**
 * What must never reach `p`: the names of tools, prompts, resources and templates it may not
 * see, and the identifiers and records of those tools' data.
 */
function forbiddenFor(dir: string, p: Principal): Set<string> {
  const tools = readTools(dir);
  const out = new Set<string>();
  for (const t of tools) {
    if (sees(tools, p, t.name)) continue;
    out.add(t.name);
    for (const args of t.calls) {
      for (const [k, v] of Object.entries(args)) {
        if (typeof v === "string" && t.identifiers.has(k)) out.add(v);
      }
    }
    for (const v of recordsOf(t.name)) out.add(v);
  }
  // A value a visible tool also holds is not the hidden tool's alone.
  for (const t of tools) {
    if (!sees(tools, p, t.name)) continue;
    for (const v of recordsOf(t.name)) out.delete(v);
  }
  const c = catalogue();
  for (const x of c.prompts) if (!meets(tools, p, x)) out.add(x.name);
  for (const x of c.resources) if (!meets(tools, p, x)) out.add(x.uri);
  for (const x of c.templates) if (!meets(tools, p, x)) out.add(x.uriTemplate);
  return out;
}

/** Every forbidden string found in what a connection received, echoes of its own names aside. */
function leaks(connection: Connection, forbidden: Set<string>): string[] {
  const found: string[] = [];
  const pattern = new RegExp(
    [...forbidden].sort((a, b) => b.length - a.length).map((s) =>
      s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")
    ).join("|"),
    "g",
  );
  for (const r of connection.received) {
    let text = r.text;
    for (const e of r.echoes) text = text.split(e).join("<echo>");
    for (const m of new Set(text.match(pattern) ?? [])) {
      found.push(
        `${connection.label}: ${r.surface} carries ${JSON.stringify(m)}`,
      );
    }
  }
  return found;
}

// ---------------------------------------------------------------------------------------------
// The walk: every surface a client can reach.

const UNKNOWN_TOOLS = ["payments.cancel", "treasury.sweep"];
const UNKNOWN_PROMPTS = ["investigate-transfer"];
const UNKNOWN_URIS = ["bank://payments/PMT-999999x", "bank://nothing/here"];

/** Tools published while the principals are connected: one each for two tenants. */
const PUBLISHED_LATER = [
  {
    name: "payments.recall",
    version: "1.0.0",
    title: "Recall a released wholesale payment",
    description:
      "Ask the beneficiary's bank to return a released wholesale payment by its reference. Writes to the payments system of record; the other bank may refuse.",
    inputSchema: {
      type: "object",
      properties: { reference: { type: "string", pattern: "^PMT-[0-9]{6}$" } },
      required: ["reference"],
      additionalProperties: false,
    },
    sideEffect: "write" as const,
    requiredScopes: ["payments:release"],
    dataClassification: "restricted" as const,
    tenants: ["wholesale"],
    owner: "payments-platform",
  },
  {
    name: "retail.standing-orders.list",
    version: "1.0.0",
    title: "List a retail customer's standing orders",
    description:
      "Return a retail customer's standing orders by customer id. Reads the retail core banking ledger; data is up to 5 minutes old. Does not change them.",
    inputSchema: {
      type: "object",
      properties: { customerId: { type: "string", pattern: "^C[0-9]{8}$" } },
      required: ["customerId"],
      additionalProperties: false,
    },
    sideEffect: "read" as const,
    requiredScopes: ["transfers:read"],
    dataClassification: "confidential" as const,
    tenants: ["retail"],
    owner: "retail-core-banking",
  },
];

async function listAll(c: Connection, method: string): Promise<void> {
  let cursor: string | undefined;
  for (let page = 0; page < 20; page++) {
    const res = await c.request(method, cursor === undefined ? {} : { cursor });
    cursor = (res.result as { nextCursor?: string } | undefined)?.nextCursor;
    if (cursor === undefined) return;
  }
}

async function walk(c: Connection, era: Era, dir: string): Promise<void> {
  const tools = readTools(dir);
  const cat = catalogue();
  if (era === "2026-07-28") await c.request("server/discover");
  for (
    const m of [
      "tools/list",
      "prompts/list",
      "resources/list",
      "resources/templates/list",
    ]
  ) {
    await listAll(c, m);
  }
  for (const name of [...tools.map((t) => t.name), ...UNKNOWN_TOOLS]) {
    const args = tools.find((t) => t.name === name)?.calls.at(-1) ??
      { reference: "PMT-004211" };
    await c.request("tools/call", { name, arguments: args });
    await c.request("tools/call", { name, arguments: { unexpected: true } });
    await c.request("tools/call", {
      name,
      arguments: args,
      _meta: { "dev.tool-estate/version": "^1.0.0" },
    });
  }
  for (
    const prompt of [
      ...cat.prompts,
      ...UNKNOWN_PROMPTS.map((name) => ({ name })),
    ]
  ) {
    const names = (prompt as { arguments?: { name: string }[] }).arguments?.map((a) => a.name) ??
      ["reference"];
    // A value of the kind each argument takes (a visible prompt echoes it: the client's own).
    const sample = (a: string) => a === "transferId" ? "TRF-20261130" : "PMT-004211";
    await c.request("prompts/get", {
      name: prompt.name,
      arguments: Object.fromEntries(names.map((a) => [a, sample(a)])),
    });
    await c.request("prompts/get", { name: prompt.name });
    for (const argument of names) {
      for (const value of ["", "P", "PMT-", "PMT-0042", "TRF-"]) {
        await c.request("completion/complete", {
          ref: { type: "ref/prompt", name: prompt.name },
          argument: { name: argument, value },
        });
      }
    }
  }
  for (const uri of uris()) await c.request("resources/read", { uri });
  for (const t of cat.templates) {
    await c.request("completion/complete", {
      ref: { type: "ref/resource", uri: t.uriTemplate },
      argument: { name: "id", value: "" },
    });
  }
}

/** Every URI worth reading or subscribing to: listed, templated, and made up. */
function uris(): string[] {
  const cat = catalogue();
  return [
    ...cat.resources.map((r) => r.uri),
    ...cat.templates.flatMap((t) => instances(t.uriTemplate)),
    ...UNKNOWN_URIS,
  ];
}

const delay = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Connects every principal to one `estate serve` server over `wire` in `era`, walks every
 * surface, publishes into the estate and touches every resource while they listen, walks the
 * lists again, and returns what each connection received.
 */
async function exercise(
  era: Era,
  wire: Wire,
  dir: string,
): Promise<Connection[]> {
  const estate = EstateDir.open(dir);
  const server = estateServer(estate, {
    system: exampleBank(),
    log: () => {},
    recordCalls: false,
  });
  const http = wire === "http"
    ? await serveHttp(server, {
      authenticate: bearerTokens(PRINCIPALS),
      keepAliveMs: 0,
    })
    : undefined;
  const connections: Connection[] = [];
  try {
    for (const p of PRINCIPALS) {
      connections.push(
        http
          ? await httpConnection(http, p, DEMO_TOKENS[p.id], era)
          : await stdioConnection(server, p, era),
      );
    }
    for (const c of connections) await c.listen(uris());
    for (const c of connections) await walk(c, era, dir);
    for (const spec of PUBLISHED_LATER) estate.publish(spec);
    // The system tells of changes to resources that exist (for someone).
    const bank = new BankSystem().resources();
    for (const uri of uris()) {
      if (PRINCIPALS.some((p) => bank.read(uri, p))) {
        server.resourceUpdated(uri);
      }
    }
    await delay(150);
    for (const c of connections) {
      for (const m of ["tools/list", "prompts/list", "resources/list"]) {
        await listAll(c, m);
      }
    }
  } finally {
    for (const c of connections) await c.close();
    await http?.close();
    server.close();
  }
  return connections;
}

for (const era of ["2025-11-25", "2026-07-28"] as const) {
  for (const wire of ["stdio", "http"] as const) {
    Deno.test(`surface-leak law: nothing a principal may not see reaches them (${era}, ${wire})`, async () => {
      await withEstate("leak-law-", async (dir) => {
        const connections = await exercise(era, wire, dir);
        const found: string[] = [];
        for (const [i, p] of PRINCIPALS.entries()) {
          const c = connections[i];
          assert.ok(c.received.length > 50, `${c.label} walked the surfaces`);
          found.push(...leaks(c, forbiddenFor(dir, p)));
        }
        assert.deepEqual(found, []);
        // The notification channels were live: each principal heard what was theirs to hear.
        const heard = (id: string) =>
          connections[PRINCIPALS.findIndex((p) => p.id === id)].received
            .filter((r) => r.surface.endsWith("stream")).map((r) => r.text)
            .join("\n");
        assert.match(
          heard("wholesale-operator"),
          /notifications\/tools\/list_changed/,
        );
        assert.match(
          heard("retail-agent"),
          /notifications\/tools\/list_changed/,
        );
        assert.doesNotMatch(heard("group-risk-analyst"), /list_changed/);
        if (era === "2025-11-25") {
          assert.match(
            heard("wholesale-operator"),
            /"uri":"bank:\/\/payments\/held"/,
          );
          assert.match(
            heard("retail-agent"),
            /"uri":"bank:\/\/policies\/POL-PAY-007"/,
          );
        } else {
          assert.match(
            heard("retail-agent"),
            /notifications\/subscriptions\/acknowledged/,
          );
        }
      });
    });
  }
}

// ---------------------------------------------------------------------------------------------
// Probes: a hidden name is answered as a nonexistent one, and logged as a probe.

type ProbeKind = "tool" | "prompt" | "resource" | "completion";

/** The names hidden from `p`, by kind, from the estate's files and the declarations. */
function hiddenFrom(p: Principal): Record<ProbeKind, string[]> {
  const tools = readTools(path.join(ROOT, "corpus"));
  const cat = catalogue();
  const prompts = cat.prompts.filter((x) => !meets(tools, p, x)).map((x) => x.name);
  return {
    tool: tools.filter((t) => !sees(tools, p, t.name)).map((t) => t.name),
    prompt: prompts,
    completion: prompts,
    resource: [
      ...cat.resources.filter((x) => !meets(tools, p, x)).map((x) => x.uri),
      ...cat.templates.filter((x) => !meets(tools, p, x)).flatMap((x) => instances(x.uriTemplate)),
    ],
  };
}

function probeRequest(
  kind: ProbeKind,
  name: string,
): { method: string; params: Record<string, unknown> } {
  switch (kind) {
    case "tool":
      return {
        method: "tools/call",
        params: { name, arguments: { reference: "PMT-004211" } },
      };
    case "prompt":
      return {
        method: "prompts/get",
        params: { name, arguments: { reference: "PMT-004211" } },
      };
    case "completion":
      return {
        method: "completion/complete",
        params: {
          ref: { type: "ref/prompt", name },
          argument: { name: "reference", value: "PMT-" },
        },
      };
    case "resource":
      return { method: "resources/read", params: { uri: name } };
  }
}

const ENVELOPE = {
  [STATELESS_META.protocolVersion]: "2026-07-28",
  [STATELESS_META.clientCapabilities]: {},
};

Deno.test("probe law: a hidden name gets the bytes a nonexistent one gets, in both eras, and both are logged as probes with the principal", async () => {
  const estate = EstateDir.open(path.join(ROOT, "corpus"));
  const log: string[] = [];
  const server: McpServer = estateServer(estate, {
    system: exampleBank(),
    log: (l) => log.push(l),
    recordCalls: false,
  });
  const sessions = new Map<string, ReturnType<McpServer["openSession"]>>();
  for (const p of PRINCIPALS) {
    const s = server.openSession({ principal: p, notify: () => {} });
    await server.handle({
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {} },
    }, s);
    await server.handle(
      { jsonrpc: "2.0", method: "notifications/initialized" },
      s,
    );
    sessions.set(p.id, s);
  }
  const ask = async (
    p: Principal,
    era: Era,
    kind: ProbeKind,
    name: string,
  ): Promise<{ text: string; logged: string[] }> => {
    const { method, params } = probeRequest(kind, name);
    const before = log.length;
    const response: JsonRpcResponse | undefined = era === "2025-11-25"
      ? await server.handle(
        { jsonrpc: "2.0", id: 7, method, params },
        sessions.get(p.id)!,
      )
      : await server.handleStateless(
        {
          jsonrpc: "2.0",
          id: 7,
          method,
          params: { ...params, _meta: ENVELOPE },
        },
        { principal: p },
      );
    return { text: JSON.stringify(response), logged: log.slice(before) };
  };
  const known = new Set([
    ...readTools(path.join(ROOT, "corpus")).map((t) => t.name),
    ...catalogue().prompts.map((x) => x.name),
  ]);
  const unknownName = fc.tuple(
    fc.constantFrom("payments", "treasury", "cards", "investigate", "bank"),
    fc.constantFrom(".", "-", "_"),
    fc.stringMatching(/^[a-z]{3,12}$/),
  ).map(([a, sep, b]) => `${a}${sep}${b}`).filter((n) => !known.has(n));
  try {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...PRINCIPALS),
        fc.constantFrom<Era>("2025-11-25", "2026-07-28"),
        fc.constantFrom<ProbeKind>("tool", "prompt", "resource", "completion"),
        fc.nat(),
        unknownName,
        async (p, era, kind, pick, unknown) => {
          const hidden = hiddenFrom(p)[kind];
          fc.pre(hidden.length > 0);
          const h = hidden[pick % hidden.length];
          const n = kind === "resource" ? `bank://${unknown}` : unknown;
          const a = await ask(p, era, kind, h);
          const b = await ask(p, era, kind, n);
          assert.equal(
            a.text.split(h).join("<name>"),
            b.text.split(n).join("<name>"),
          );
          for (const [name, got] of [[h, a.logged], [n, b.logged]] as const) {
            assert.ok(
              got.some((l) => l.startsWith(`probe ${p.id} `) && l.includes(` ${name} `)),
              `${kind} probe for ${name} by ${p.id} (${era}) is logged: ${JSON.stringify(got)}`,
            );
          }
        },
      ),
      { numRuns: 300 },
    );
  } finally {
    server.close();
  }
});
