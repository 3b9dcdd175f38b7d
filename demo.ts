/**
 * `deno task demo`: a worked session with the contract core, section by section — JSON-RPC
 * envelopes, validation of a model's bad arguments, classification of a schema change, repair,
 * and version constraints. Everything printed is computed here, by the library.
 *
 * @module
 */
import {
  bumpFor,
  classifySchemaChange,
  type JsonRpcError,
  type JsonSchema,
  makeRequest,
  parseMessage,
  repairArguments,
  satisfies,
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
  const request = makeRequest(7, "tools/call", {
    name: "payments.lookup",
    arguments: { reference: "PMT-000771" },
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

if (import.meta.main) main();
