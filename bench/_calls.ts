/**
 * A deterministic stored-call corpus for benchmarks: realistic bank tool arguments against three
 * tool schemas, about 460 bytes a call, 90% valid.
 */
import type { JsonSchema } from "../mod.ts";
import { rng } from "../scripts/_estate_calls.ts";

export { rng };

/** The tool schemas the calls are made against. */
export const SCHEMAS: Record<string, JsonSchema> = {
  "payments.initiate": {
    type: "object",
    properties: {
      reference: { type: "string", pattern: "^PMT-[0-9]{6}$" },
      debtor: { $ref: "#/$defs/party" },
      creditor: { $ref: "#/$defs/party" },
      amount: { type: "number", exclusiveMinimum: 0, multipleOf: 0.01 },
      currency: { type: "string", enum: ["EUR", "GBP", "USD", "CHF", "JPY"] },
      executionDate: { type: "string", format: "date" },
      urgency: { type: "string", enum: ["normal", "urgent"], default: "normal" },
      remittance: { type: "string", maxLength: 140 },
      tags: {
        type: "array",
        items: { type: "string", minLength: 1 },
        uniqueItems: true,
        maxItems: 5,
      },
    },
    required: ["reference", "debtor", "creditor", "amount", "currency"],
    additionalProperties: false,
    $defs: {
      party: {
        type: "object",
        properties: {
          name: { type: "string", minLength: 1, maxLength: 70 },
          iban: { type: "string", pattern: "^[A-Z]{2}[0-9]{2}[A-Z0-9]{11,30}$" },
          bic: { type: "string", pattern: "^[A-Z]{6}[A-Z0-9]{2}([A-Z0-9]{3})?$" },
        },
        required: ["name", "iban"],
        additionalProperties: false,
      },
    },
  },
  "fx.quote": {
    type: "object",
    properties: {
      sell: { type: "string", pattern: "^[A-Z]{3}$" },
      buy: { type: "string", pattern: "^[A-Z]{3}$" },
      amount: { type: "number", minimum: 1, maximum: 100000000 },
      side: { enum: ["sell", "buy"] },
      valueDate: { type: "string", format: "date" },
      legs: {
        type: "array",
        minItems: 1,
        maxItems: 4,
        items: {
          type: "object",
          properties: {
            tenor: { type: "string", enum: ["SPOT", "1W", "1M", "3M", "6M", "1Y"] },
            amount: { type: "number", minimum: 0 },
          },
          required: ["tenor", "amount"],
        },
      },
      requestId: { type: "string", format: "uuid" },
    },
    required: ["sell", "buy", "amount", "side"],
  },
  "crm.customer.get": {
    type: "object",
    properties: {
      customerId: { type: "string", pattern: "^C[0-9]{8}$" },
      fields: {
        type: "array",
        items: { enum: ["name", "address", "segment", "kyc", "products", "contacts"] },
        uniqueItems: true,
      },
      asOf: { type: "string", format: "date-time" },
      includeClosed: { type: "boolean", default: false },
      channel: { anyOf: [{ type: "string", maxLength: 20 }, { type: "null" }] },
      contact: { type: "string", format: "email" },
    },
    required: ["customerId"],
    additionalProperties: false,
  },
};

/** One stored call: the tool name and its arguments as JSON text. */
export interface Call {
  tool: string;
  text: string;
}

/** `n` calls, about 10% of them invalid in one or more ways. */
export function makeCalls(n: number, seed = 7): Call[] {
  const r = rng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)];
  const digits = (k: number) => Array.from({ length: k }, () => Math.floor(r() * 10)).join("");
  const out: Call[] = [];
  for (let i = 0; i < n; i++) {
    const tool = pick(Object.keys(SCHEMAS));
    let args: Record<string, unknown>;
    if (tool === "payments.initiate") {
      args = paymentArgs(r);
    } else if (tool === "fx.quote") {
      args = {
        sell: pick(["EUR", "GBP", "USD"]),
        buy: pick(["JPY", "CHF", "USD"]),
        amount: 1000 + Math.floor(r() * 1e6),
        side: pick(["sell", "buy"]),
        valueDate: "2026-12-0" + (1 + Math.floor(r() * 9)),
        legs: [{ tenor: "SPOT", amount: 1000 }, {
          tenor: pick(["1M", "3M", "6M"]),
          amount: Math.floor(r() * 1e5),
        }],
        requestId: "3fa85f64-5717-4562-b3fc-2c963f66af" + digits(2),
      };
    } else {
      args = {
        customerId: "C" + digits(8),
        fields: ["name", "segment", "kyc", "products"],
        asOf: "2026-11-30T09:15:00Z",
        includeClosed: r() < 0.5,
        channel: pick(["branch", "mobile", null]),
        contact: "relationship.manager" + digits(3) + "@bank.example",
      };
    }
    if (r() < 0.1) breakArgs(args, r); // invalid calls: the mistakes agents make
    out.push({ tool, text: JSON.stringify(args) });
  }
  return out;
}

const PARTIES = ["Acme Trading Ltd", "Northwind GmbH", "Contoso Bank plc"];

/** Arguments of a realistic `payments.initiate` call, with counterparties drawn from `parties`. */
export function paymentArgs(
  r: () => number,
  parties: readonly string[] = PARTIES,
): Record<string, unknown> {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)];
  const digits = (k: number) => Array.from({ length: k }, () => Math.floor(r() * 10)).join("");
  const upper = (k: number) =>
    Array.from({ length: k }, () => String.fromCharCode(65 + Math.floor(r() * 26))).join("");
  const party = () => ({
    name: pick(parties),
    iban: "GB" + digits(2) + upper(4) + digits(14),
    bic: upper(6) + "2L",
  });
  return {
    reference: "PMT-" + digits(6),
    debtor: party(),
    creditor: party(),
    amount: Math.round(r() * 1e7) / 100,
    currency: pick(["EUR", "GBP", "USD"]),
    executionDate: `2026-${String(1 + Math.floor(r() * 12)).padStart(2, "0")}-${
      String(1 + Math.floor(r() * 28)).padStart(2, "0")
    }`,
    urgency: pick(["normal", "urgent"]),
    remittance: "Invoice " + digits(8) + " settlement for services rendered in Q3",
    tags: ["treasury", "batch-" + digits(3)],
  };
}

/** Breaks arguments the way agents do: a missing field, a stringified value, an extra, a wrong shape. */
export function breakArgs(args: Record<string, unknown>, r: () => number): void {
  const keys = Object.keys(args);
  const k = keys[Math.floor(r() * keys.length)];
  const breakage = Math.floor(r() * 4);
  if (breakage === 0) delete args[k];
  else if (breakage === 1) args[k] = String(args[k]);
  else if (breakage === 2) args.unexpected = true;
  else args[k] = { wrong: [1, 2, 3] };
}
