/**
 * The example bank estate's tool specs, version by version, in publish order. Descriptions follow
 * the guide: the system of record, the freshness, and the boundary (what the tool does not do).
 */
import type { ToolSpec } from "../mod.ts";

const reference = {
  type: "string",
  pattern: "^PMT-[0-9]{6}$",
  description: "The payment reference, e.g. PMT-004211.",
};
const currency = {
  type: "string",
  enum: ["EUR", "GBP", "USD", "CHF", "JPY"],
  description: "ISO 4217 code.",
};

const lookupBase = {
  name: "payments.lookup",
  title: "Look up a wholesale payment",
  sideEffect: "read",
  requiredScopes: ["payments:read"],
  dataClassification: "confidential",
  tenants: ["wholesale"],
  owner: "payments-platform",
} as const;

/** Every version of every tool, in the order they were published. */
export const PUBLISHED: ToolSpec[] = [
  {
    ...lookupBase,
    version: "1.0.0",
    description:
      "Return the current status, amount and counterparties of a wholesale payment by its reference. Reads the payments system of record; data is real-time. Does not cover card transactions or retail customers' transfers.",
    inputSchema: {
      type: "object",
      properties: { reference, currency },
      required: ["reference"],
      additionalProperties: false,
    },
    tenants: ["wholesale"],
    requiredScopes: ["payments:read"],
  },
  {
    ...lookupBase,
    version: "1.1.0",
    description:
      "Return the current status, amount and counterparties of a wholesale payment by its reference, optionally with its status history. Reads the payments system of record; data is real-time. Does not cover card transactions or retail customers' transfers.",
    inputSchema: {
      type: "object",
      properties: {
        reference,
        currency,
        includeHistory: {
          type: "boolean",
          default: false,
          description: "Also return every status change.",
        },
      },
      required: ["reference"],
      additionalProperties: false,
    },
    tenants: ["wholesale"],
    requiredScopes: ["payments:read"],
  },
  {
    ...lookupBase,
    version: "2.0.0",
    description:
      "Return the current status, amount and counterparties of a wholesale payment by its reference, optionally with its status history. Reads the payments system of record; data is real-time. The currency is returned, not asked for. Does not cover card transactions or retail customers' transfers.",
    inputSchema: {
      type: "object",
      properties: {
        reference,
        includeHistory: {
          type: "boolean",
          default: false,
          description: "Also return every status change.",
        },
      },
      required: ["reference"],
      additionalProperties: false,
    },
    tenants: ["wholesale"],
    requiredScopes: ["payments:read"],
  },
  {
    name: "payments.release",
    version: "1.0.0",
    title: "Release a held wholesale payment",
    description:
      "Release a wholesale payment that is held for review so that it settles. Writes to the payments system of record; the release is final and cannot be recalled. Use payments.lookup first to confirm the payment is HELD and the amount is the one the user approved.",
    inputSchema: {
      type: "object",
      properties: {
        reference,
        approvedAmount: {
          type: "number",
          exclusiveMinimum: 0,
          multipleOf: 0.01,
          description:
            "The amount the user approved; the release fails if it differs from the held amount.",
        },
        currency,
        note: {
          type: "string",
          maxLength: 140,
          description: "Free text kept with the audit record.",
        },
      },
      required: ["reference", "approvedAmount", "currency"],
      additionalProperties: false,
    },
    sideEffect: "irreversible",
    requiredScopes: ["payments:read", "payments:release"],
    dataClassification: "restricted",
    tenants: ["wholesale"],
    owner: "payments-platform",
  },
  {
    name: "retail.transfers.lookup",
    version: "1.0.0",
    title: "Look up a retail transfer",
    description:
      "Return the status and amount of a retail customer's transfer by its transfer id. Reads the retail core banking ledger; data is up to 5 minutes old. Does not cover wholesale payments.",
    inputSchema: {
      type: "object",
      properties: {
        transferId: {
          type: "string",
          pattern: "^TRF-[0-9]{8}$",
          description: "The transfer id, e.g. TRF-20261130.",
        },
      },
      required: ["transferId"],
      additionalProperties: false,
    },
    sideEffect: "read",
    requiredScopes: ["transfers:read"],
    dataClassification: "confidential",
    tenants: ["retail"],
    owner: "retail-core-banking",
  },
  {
    name: "retail.transfers.lookup",
    version: "1.1.0",
    title: "Look up a retail transfer",
    description:
      "Return the status and amount of a retail customer's transfer by its transfer id, optionally with the fees charged. Reads the retail core banking ledger; data is up to 5 minutes old. Does not cover wholesale payments.",
    inputSchema: {
      type: "object",
      properties: {
        transferId: {
          type: "string",
          pattern: "^TRF-[0-9]{8}$",
          description: "The transfer id, e.g. TRF-20261130.",
        },
        includeFees: {
          type: "boolean",
          default: false,
          description: "Also return the fees charged.",
        },
      },
      required: ["transferId"],
      additionalProperties: false,
    },
    sideEffect: "read",
    requiredScopes: ["transfers:read"],
    dataClassification: "confidential",
    tenants: ["retail"],
    owner: "retail-core-banking",
  },
  {
    name: "crm.customer.get",
    version: "1.0.0",
    title: "Get a customer profile",
    description:
      "Return a customer's profile (name, segment, contact preferences and products held) by customer id. Reads the customer relationship system; updated nightly. Does not return balances or transactions.",
    inputSchema: {
      type: "object",
      properties: {
        customerId: {
          type: "string",
          pattern: "^C[0-9]{8}$",
          description: "The customer id, e.g. C00412877.",
        },
        fields: {
          type: "array",
          items: { enum: ["name", "segment", "contact", "products", "kyc"] },
          uniqueItems: true,
          description: "Which parts to return; all when omitted.",
        },
      },
      required: ["customerId"],
      additionalProperties: false,
    },
    sideEffect: "read",
    requiredScopes: ["crm:read"],
    dataClassification: "confidential",
    tenants: ["retail", "group"],
    owner: "customer-data",
  },
  {
    name: "policy.search",
    version: "1.0.0",
    title: "Search bank policies",
    description:
      "Search the bank's published policies and procedures by keywords and return the best-matching passages with their policy id and effective date. Reads the policy library; updated when a policy is approved. Not legal advice and not customer-specific.",
    inputSchema: {
      type: "object",
      properties: {
        query: { type: "string", minLength: 3, maxLength: 200 },
        area: { type: "string", enum: ["payments", "lending", "kyc", "conduct", "operations"] },
        limit: { type: "integer", minimum: 1, maximum: 20, default: 5 },
      },
      required: ["query"],
      additionalProperties: false,
    },
    sideEffect: "read",
    requiredScopes: ["policy:read"],
    dataClassification: "internal",
    tenants: [],
    owner: "group-compliance",
  },
  {
    name: "fx.quote",
    version: "1.0.0",
    title: "Quote a foreign-exchange rate",
    description:
      "Return an indicative foreign-exchange quote for selling one currency and buying another, for spot or a forward tenor. Reads the treasury pricing engine; quotes are valid for 30 seconds and are not an execution. Does not book a trade.",
    inputSchema: {
      type: "object",
      properties: {
        sell: currency,
        buy: currency,
        amount: {
          type: "number",
          exclusiveMinimum: 0,
          maximum: 100000000,
          description: "Amount in the sell currency.",
        },
        tenor: { type: "string", enum: ["SPOT", "1W", "1M", "3M", "6M", "1Y"], default: "SPOT" },
      },
      required: ["sell", "buy", "amount"],
      additionalProperties: false,
    },
    sideEffect: "read",
    requiredScopes: ["fx:quote"],
    dataClassification: "internal",
    tenants: ["wholesale", "group"],
    owner: "treasury-pricing",
  },
  {
    name: "risk.exposure.get",
    version: "1.0.0",
    title: "Get a counterparty's credit exposure",
    description:
      "Return the current credit exposure to a counterparty across the group, by product and by legal entity. Reads the group risk data warehouse; figures are as of the last end-of-day run. Does not change limits.",
    inputSchema: {
      type: "object",
      properties: {
        counterpartyId: { type: "string", pattern: "^CP-[0-9]{6}$" },
        asOf: {
          type: "string",
          format: "date",
          description: "An end-of-day date; the latest when omitted.",
        },
      },
      required: ["counterpartyId"],
      additionalProperties: false,
    },
    sideEffect: "read",
    requiredScopes: ["risk:read"],
    dataClassification: "restricted",
    tenants: ["group"],
    owner: "group-risk",
  },
  {
    name: "policy.summarize",
    version: "1.0.0",
    title: "Summarise bank policies on a question",
    description:
      "Find the bank's published policies that bear on a question and have the caller's own model summarise them in plain words, citing each policy id. Reads the policy library; the summary is drafted by the client's model (sampling) from the passages only, never from other context. Not legal advice.",
    inputSchema: {
      type: "object",
      properties: {
        question: { type: "string", minLength: 3, maxLength: 200 },
        area: { type: "string", enum: ["payments", "lending", "kyc", "conduct", "operations"] },
      },
      required: ["question"],
      additionalProperties: false,
    },
    outputSchema: {
      type: "object",
      properties: {
        summary: { type: "string" },
        policyIds: { type: "array", items: { type: "string" } },
        model: { type: "string" },
      },
      required: ["summary", "policyIds"],
    },
    sideEffect: "read",
    requiredScopes: ["policy:read"],
    dataClassification: "internal",
    tenants: [],
    owner: "group-compliance",
    uses: ["sampling"],
  },
  {
    name: "drafts.review",
    version: "1.0.0",
    title: "Review draft tool files in the workspace",
    description:
      "Check the draft tool files (*.tool.json) in a folder of the caller's workspace against the estate and report the version bump each needs. Asks the client for its roots (file:// folders on this machine) and, when there are several, which one to review. Reads the files and the estate; changes nothing.",
    inputSchema: {
      type: "object",
      properties: { maxFiles: { type: "integer", minimum: 1, maximum: 200, default: 50 } },
      additionalProperties: false,
    },
    sideEffect: "read",
    requiredScopes: [],
    dataClassification: "internal",
    tenants: [],
    owner: "platform-governance",
    uses: ["elicitation", "roots"],
  },
];

/** Lifecycle changes after publishing: which versions were deprecated, when and why. */
export const DEPRECATIONS: {
  name: string;
  version: string;
  at: string;
  reason: string;
  retireAfter?: string;
}[] = [
  {
    name: "payments.lookup",
    version: "1.0.0",
    at: "2026-09-01T09:00:00.000Z",
    reason: "superseded by 1.1.0 and 2.0.0; callers should move to ^2.0.0",
    retireAfter: "2027-03-31",
  },
];
