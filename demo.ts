/**
 * `deno task demo`: a worked session, section by section — the contract core (JSON-RPC envelopes,
 * validation of a model's bad arguments, repair, classification of schema changes, version
 * constraints), then the governed estate on a scratch copy of the example bank estate in
 * `corpus/`: discovery for two principals side by side, a publish, a refused breaking-as-minor
 * bump, a corpus replay refusal, lifecycle and impact. Everything printed is computed here.
 *
 * @module
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { EstateDir } from "./lib/store/mod.ts";
import {
  bumpFor,
  classifySchemaChange,
  type JsonRpcError,
  type JsonSchema,
  makeRequest,
  parseMessage,
  type PublishError,
  repairArguments,
  satisfies,
  type StoredCall,
  type ToolSpec,
  validateSchema,
} from "./mod.ts";

const lookupV1: JsonSchema = {
  type: "object",
  properties: {
    reference: { type: "string", pattern: "^PMT-[0-9]{6}$", description: "Payment reference" },
    currency: { type: "string", enum: ["EUR", "GBP", "USD"] },
    amount: { type: "number", exclusiveMinimum: 0, multipleOf: 0.01 },
    legs: {
      type: "array",
      items: {
        type: "object",
        properties: { account: { type: "string" }, amount: { type: "number", multipleOf: 0.01 } },
        required: ["account", "amount"],
      },
    },
    includeHistory: { type: "boolean", default: false },
  },
  required: ["reference"],
  additionalProperties: false,
};

function section(title: string): void {
  console.log(`\n== ${title} ${"=".repeat(Math.max(0, 72 - title.length))}`);
}

function main(): void {
  console.log("tool-estate demo: the contract core (JSON-RPC, schemas, versions, repair)");

  section("1. JSON-RPC 2.0: three shapes, and the errors a server must answer with");
  const request = makeRequest({
    id: 7,
    method: "tools/call",
    params: { name: "payments.lookup", arguments: { reference: "PMT-000771" } },
  });
  console.log("request      ", JSON.stringify(request));
  for (
    const text of [
      '{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}',
      JSON.stringify(request),
    ]
  ) {
    console.log(`classified as  ${parseMessage(text).kind.padEnd(12)} ${text.slice(0, 60)}`);
  }
  for (
    const text of [
      '{"jsonrpc":"2.0","id":1.5,"method":"ping"}',
      "{not json",
      '{"jsonrpc":"1.0","id":1,"method":"ping"}',
    ]
  ) {
    try {
      parseMessage(text);
    } catch (e) {
      const err = e as JsonRpcError;
      console.log(
        `refused ${String(err.code).padEnd(7)}${JSON.stringify(err.toJSON().message)}  <- ${text}`,
      );
    }
  }

  section("2. Validation: every issue, with its path, sorted, one per type mismatch");
  const bad = {
    reference: "771",
    currency: "eur",
    amount: "12.50",
    legs: [{ account: "GB29NWBK60161331926819", amount: 10.001 }, { amount: true }],
    note: "urgent please",
  };
  console.log("arguments:", JSON.stringify(bad));
  for (const i of validateSchema(lookupV1, bad)) {
    console.log(`  ${i.path.padEnd(18)} ${i.keyword.padEnd(21)} ${i.message}`);
  }

  section("3. Repair: fix syntax, never invent semantics");
  const repaired = repairArguments(lookupV1, {
    reference: "PMT-000771",
    amount: "12.50",
    note: "pls",
  });
  for (const r of repaired.repairs) {
    console.log(`  ${r.kind.padEnd(9)} ${r.path.padEnd(16)} ${r.message}`);
  }
  console.log(
    "  repaired:",
    JSON.stringify(repaired.arguments),
    "issues left:",
    repaired.issues.length,
  );
  const invented = repairArguments(lookupV1, { amount: 5 });
  console.log(
    "  a missing reference stays missing:",
    invented.issues.map((i) => `${i.path} ${i.keyword}`).join(", "),
  );

  section("4. Who breaks? Classifying schema changes");
  const props = (lookupV1 as { properties: Record<string, unknown> }).properties;
  const edits: [string, JsonSchema][] = [
    ["reword a description", { ...lookupV1 as object, description: "Look up a wholesale payment" }],
    ["add an optional property", {
      ...lookupV1 as object,
      properties: { ...props, channel: { type: "string" } },
    }],
    ["widen the currency enum", {
      ...lookupV1 as object,
      properties: { ...props, currency: { type: "string", enum: ["EUR", "GBP", "USD", "CHF"] } },
    }],
    ["make currency required", { ...lookupV1 as object, required: ["reference", "currency"] }],
    ["remove the legs property", {
      ...lookupV1 as object,
      properties: Object.fromEntries(Object.entries(props).filter(([k]) => k !== "legs")),
    }],
  ];
  for (const [what, next] of edits) {
    const result = classifySchemaChange(lookupV1, next);
    console.log(
      `  ${what.padEnd(26)} -> ${result.bump.padEnd(5)} (publish ${
        bumpFor("1.4.0", result.bump)
      } after 1.4.0)`,
    );
    for (const c of result.changes) {
      console.log(`      ${c.bump.padEnd(5)} ${c.path}: ${c.message}`);
    }
  }

  section("5. Versions: what a caller's pin accepts");
  for (
    const [version, range] of [["1.4.2", "^1.2.0"], ["2.0.0", "^1.2.0"], ["0.3.1", "^0.2.3"], [
      "1.2.9",
      "~1.2.0",
    ]]
  ) {
    console.log(`  ${version.padEnd(6)} satisfies ${range.padEnd(7)} ${satisfies(version, range)}`);
  }
}

function estateSession(): void {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "tool-estate-demo-"));
  try {
    fs.cpSync(new URL("./corpus/", import.meta.url), scratch, { recursive: true });
    const estate = EstateDir.open(scratch);
    const registry = estate.registry;
    const events: string[] = [];
    registry.subscribe((e) => events.push(`${e.type} ${e.name}@${e.version}`));

    section("6. The example estate (a scratch copy of corpus/)");
    for (const name of registry.names()) {
      const versions = registry.versions(name).map((v) =>
        `${v.spec.version}${v.state === "active" ? "" : ` (${v.state})`}`
      );
      const calls = [...estate.readCalls(name)].length;
      console.log(`  ${name.padEnd(25)} ${versions.join(", ").padEnd(34)} ${calls} stored calls`);
    }

    section("7. Discovery: the same estate, two principals");
    const [retail, wholesale] = ["retail-agent", "wholesale-operator"].map((id) =>
      estate.principal(id)!
    );
    const left = registry.discover(retail).map((s) => `${s.name}@${s.version}`);
    const right = registry.discover(wholesale).map((s) => `${s.name}@${s.version}`);
    console.log(
      `  ${`${retail.id} (${retail.tenant})`.padEnd(36)} ${wholesale.id} (${wholesale.tenant})`,
    );
    for (let i = 0; i < Math.max(left.length, right.length); i++) {
      console.log(`  ${(left[i] ?? "").padEnd(36)} ${right[i] ?? ""}`);
    }
    console.log(
      "  (payments.release is invisible to the retail agent: not forbidden, simply absent)",
    );

    section("8. Publishing: a compatible change lands; a breaking one as a minor is refused");
    const current = registry.latest("payments.lookup")!;
    const schema = current.inputSchema as { properties: Record<string, unknown> };
    const withChannel: ToolSpec = {
      ...current,
      version: "2.1.0",
      inputSchema: {
        ...schema,
        properties: { ...schema.properties, channel: { type: "string", enum: ["api", "swift"] } },
      },
    };
    const published = estate.publish(withChannel);
    console.log(
      `  ${published.status} payments.lookup@2.1.0: ${published.plan.bump} change against ${published.plan.baseline?.spec.version}`,
    );
    const { includeHistory: _dropped, ...rest } =
      (withChannel.inputSchema as { properties: Record<string, unknown> }).properties;
    try {
      estate.publish({
        ...withChannel,
        version: "2.2.0",
        inputSchema: { ...withChannel.inputSchema as object, properties: rest },
      });
    } catch (e) {
      for (const line of (e as PublishError).message.split("\n")) console.log(`  refused: ${line}`);
    }

    section("9. Corpus replay: a patch is refused when stored calls would break");
    // Calls imported from the legacy gateway's log, which accepted amounts as strings.
    const legacy: StoredCall[] = ["250000", "1000000", "75000.50"].map((amount, i) => ({
      version: "1.0.0",
      arguments: { sell: "GBP", buy: "EUR", amount },
      principal: "legacy-gateway",
      at: `2026-03-2${4 + i}T10:00:00.000Z`,
    }));
    estate.appendCalls("fx.quote", legacy);
    const fx = registry.latest("fx.quote")!;
    try {
      estate.publish({ ...fx, version: "1.0.1", title: "Quote an FX rate" });
    } catch (e) {
      console.log(`  refused: ${(e as PublishError).message.split("; accept them")[0]}`);
    }
    const fixed = repairArguments(fx.inputSchema, legacy[0].arguments);
    console.log(`  the repair loop would fix such a call: ${fixed.repairs[0].message}`);

    section("10. Lifecycle and impact: deprecate, pin, retire, and who must migrate");
    estate.deprecate("payments.lookup", "1.1.0", {
      reason: "use ^2.0.0",
      retireAfter: "2027-06-30",
    });
    console.log(
      `  latest payments.lookup:            ${registry.latest("payments.lookup")?.version}`,
    );
    console.log(
      `  resolve payments.lookup ^1.0.0:    ${
        registry.resolve("payments.lookup", "^1.0.0")?.version
      } (deprecated, still resolvable by pin)`,
    );
    const callers = new Map<string, { n: number; last: string }>();
    for (const c of estate.readCalls("payments.lookup")) {
      if (c.version !== "1.1.0") continue;
      const e = callers.get(c.principal) ?? { n: 0, last: "" };
      e.n++;
      if (c.at > e.last) e.last = c.at;
      callers.set(c.principal, e);
    }
    for (const [who, e] of callers) {
      console.log(`  impact payments.lookup@1.1.0: ${who} made ${e.n} calls, last seen ${e.last}`);
    }
    estate.retire("payments.lookup", "1.0.0", { reason: "retirement date passed" });
    console.log(
      `  resolve payments.lookup ~1.0.0:    ${
        registry.resolve("payments.lookup", "~1.0.0")?.version ?? "nothing (retired)"
      }`,
    );
    console.log(
      `  events a server would turn into notifications/tools/list_changed: ${events.join(", ")}`,
    );
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

if (import.meta.main) {
  main();
  estateSession();
}
