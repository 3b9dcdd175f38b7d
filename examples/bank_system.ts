/**
 * An embedded example system of record for the example estate in `corpus/`: a few payments,
 * transfers, customers, policies, FX rates and exposures, and a handler per tool that reads (or,
 * for `payments.release`, changes) them. What `estate serve` runs, so a real MCP client can call
 * real tools. Deterministic: no clock, no randomness.
 *
 * @module
 */
import type {
  McpServerOptions,
  Principal,
  PromptProvider,
  ResourceProvider,
  ToolContext,
  ToolHandler,
  ToolSpec,
} from "../mod.ts";
import { checkDraft, parseToolSpec, PromptArgumentError, type ToolRegistry } from "../mod.ts";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

interface Payment {
  reference: string;
  /** The tenant whose data it is. */
  tenant: string;
  status: "HELD" | "RELEASED" | "SETTLED" | "REJECTED";
  amount: number;
  currency: string;
  debtor: string;
  creditor: string;
  history: { at: string; status: string }[];
}

function payments(): Map<string, Payment> {
  const list: Payment[] = [
    {
      reference: "PMT-004211",
      tenant: "wholesale",
      status: "HELD",
      amount: 2_450_000,
      currency: "EUR",
      debtor: "Northwind Trading GmbH",
      creditor: "Contoso Shipping BV",
      history: [{ at: "2026-11-30T08:02:11Z", status: "RECEIVED" }, {
        at: "2026-11-30T08:02:40Z",
        status: "HELD",
      }],
    },
    {
      reference: "PMT-004212",
      tenant: "wholesale",
      status: "SETTLED",
      amount: 180_000,
      currency: "GBP",
      debtor: "Fabrikam Ltd",
      creditor: "Tailspin Toys plc",
      history: [{ at: "2026-11-29T15:10:00Z", status: "RECEIVED" }, {
        at: "2026-11-29T15:40:00Z",
        status: "SETTLED",
      }],
    },
    {
      reference: "PMT-000771",
      tenant: "wholesale",
      status: "REJECTED",
      amount: 12_500.5,
      currency: "USD",
      debtor: "Litware Inc",
      creditor: "Adventure Works LLC",
      history: [{ at: "2026-11-28T10:00:00Z", status: "RECEIVED" }, {
        at: "2026-11-28T10:03:00Z",
        status: "REJECTED",
      }],
    },
  ];
  return new Map(list.map((p) => [p.reference, p]));
}

const POLICIES = [
  {
    id: "POL-PAY-007",
    area: "payments",
    title: "Same-day sterling payment cut-off",
    effective: "2026-04-01",
    text:
      "Same-day sterling payments must be released by 16:30 UK time; later releases settle next business day.",
  },
  {
    id: "POL-PAY-012",
    area: "payments",
    title: "Releasing a held payment",
    effective: "2026-06-15",
    text:
      "A held payment may be released only after the approver confirms the amount and the sanctions screening result.",
  },
  {
    id: "POL-KYC-003",
    area: "kyc",
    title: "Customer due diligence refresh",
    effective: "2025-11-01",
    text: "High-risk customers are reviewed yearly; standard-risk customers every three years.",
  },
  {
    id: "POL-CON-021",
    area: "conduct",
    title: "Vulnerable customers",
    effective: "2026-02-01",
    text:
      "Staff must record any vulnerability a customer discloses and offer the support options in section 4.",
  },
];

const RATES: Record<string, number> = {
  EUR: 1,
  GBP: 0.8712,
  USD: 1.0931,
  CHF: 0.9402,
  JPY: 162.38,
};

/** Options for a {@linkcode BankSystem}. */
export interface BankSystemOptions {
  /** The estate, for `drafts.review` (without it, that tool has no handler). */
  registry?: ToolRegistry;
}

/** The policies that best match a query's words (3 letters or more), best first. */
function searchPolicies(
  options: { query: unknown; area: unknown; limit: unknown },
): (typeof POLICIES)[number][] {
  const words = String(options.query).toLowerCase().split(/\W+/).filter((w) => w.length > 2);
  return POLICIES.filter((p) => options.area === undefined || p.area === options.area)
    .map((p) => ({
      p,
      score: words.filter((w) => `${p.title} ${p.text}`.toLowerCase().includes(w)).length,
    }))
    .filter((h) => h.score > 0)
    .sort((a, b) => b.score - a.score || (a.p.id < b.p.id ? -1 : 1))
    .slice(0, (options.limit as number | undefined) ?? 5)
    .map((h) => h.p);
}

/**
 * `drafts.review`: roots for a real reason — the drafts live in the caller's workspace, which only
 * the client knows. Asks for the roots, lets the user pick one when there are several (form
 * elicitation), then checks each `*.tool.json` there against the estate.
 */
function reviewDrafts(registry: ToolRegistry): ToolHandler {
  return async (args, ctx) => {
    const roots = (await ctx.listRoots()).filter((r) => r.uri.startsWith("file://"));
    if (!roots.length) return { reviewed: [], note: "The client exposes no file:// root." };
    let root = roots[0].uri;
    if (roots.length > 1) {
      const choice = await ctx.elicit({
        message: "Which workspace folder should I review the draft tool files of?",
        requestedSchema: {
          type: "object",
          properties: {
            root: { type: "string", title: "Folder", enum: roots.map((r) => r.uri) },
          },
          required: ["root"],
        },
      });
      if (choice.action !== "accept") {
        return { reviewed: [], note: `The user chose ${choice.action}.` };
      }
      root = String(choice.content?.root);
    }
    const dir = fileURLToPath(root);
    const max = (args.maxFiles as number | undefined) ?? 50;
    const names = (await readdir(dir)).filter((n) => n.endsWith(".tool.json")).sort().slice(0, max);
    const reviewed = [];
    for (const name of names) {
      try {
        const draft = parseToolSpec(JSON.parse(await readFile(join(dir, name), "utf8")), name);
        const report = checkDraft(draft, registry);
        reviewed.push({
          file: name,
          tool: `${report.name}@${report.version}`,
          bump: report.bump,
          ok: report.ok,
          findings: report.findings.filter((f) => f.severity === "error").map((f) => f.message),
        });
      } catch (e) {
        reviewed.push({ file: name, ok: false, findings: [(e as Error).message] });
      }
    }
    return { root, reviewed };
  };
}

/** The example system: state shared by the handlers of one server. */
export class BankSystem {
  readonly payments: Map<string, Payment> = payments();
  readonly #registry: ToolRegistry | undefined;

  /**
   * Makes the system.
   *
   * @param options The estate, for the tool that reviews drafts against it.
   */
  constructor(options: BankSystemOptions = {}) {
    this.#registry = options.registry;
  }

  /**
   * The system of record's own entitlement check: a principal sees a payment of its own tenant,
   * with the `payments:read` scope. (The MCP server hides what a principal may not see first;
   * this is the system refusing to hand out what it should not, whoever asks.)
   */
  #entitled(principal: Principal, payment: Payment): boolean {
    return principal.tenant === payment.tenant && principal.scopes.includes("payments:read");
  }

  /**
   * The handler for a tool version, or undefined when the example system has none.
   *
   * @param spec The tool version.
   * @returns The handler.
   */
  handlerFor(spec: ToolSpec): ToolHandler | undefined {
    const major = Number(spec.version.split(".")[0]);
    switch (spec.name) {
      case "payments.lookup":
        return (args) => {
          const p = this.payments.get(args.reference as string);
          if (!p) throw new Error(`no payment with reference ${args.reference}`);
          const out: Record<string, unknown> = {
            reference: p.reference,
            status: p.status,
            amount: p.amount,
            currency: p.currency,
            debtor: p.debtor,
            creditor: p.creditor,
          };
          if (major === 1 && args.currency !== undefined && args.currency !== p.currency) {
            throw new Error(`payment ${p.reference} is in ${p.currency}, not ${args.currency}`);
          }
          if (args.includeHistory) out.history = p.history;
          return out;
        };
      case "payments.release":
        return (args) => {
          const p = this.payments.get(args.reference as string);
          if (!p) throw new Error(`no payment with reference ${args.reference}`);
          if (p.status !== "HELD") {
            throw new Error(`payment ${p.reference} is ${p.status}, not HELD`);
          }
          if (p.amount !== args.approvedAmount || p.currency !== args.currency) {
            throw new Error(
              `approved ${args.approvedAmount} ${args.currency} differs from the held ${p.amount} ${p.currency}; nothing released`,
            );
          }
          p.status = "RELEASED";
          p.history.push({ at: "2026-11-30T09:00:00Z", status: "RELEASED" });
          return { reference: p.reference, status: p.status };
        };
      case "retail.transfers.lookup":
        return (args) => {
          const id = args.transferId as string;
          const out: Record<string, unknown> = {
            transferId: id,
            status: Number(id.slice(-1)) % 3 === 0 ? "PENDING" : "COMPLETED",
            amount: 25 + (Number(id.slice(-4)) % 975),
            currency: "GBP",
          };
          if (args.includeFees) out.fees = 0;
          return out;
        };
      case "crm.customer.get":
        return (args) => {
          const all: Record<string, unknown> = {
            name: `Customer ${String(args.customerId).slice(-4)}`,
            segment: "personal",
            contact: { preferred: "app" },
            products: ["current-account", "savings"],
            kyc: { status: "verified", reviewed: "2026-03-02" },
          };
          const fields = (args.fields as string[] | undefined) ?? Object.keys(all);
          return {
            customerId: args.customerId,
            ...Object.fromEntries(fields.map((f) => [f, all[f]])),
          };
        };
      case "policy.search":
        return (args) => ({
          passages: searchPolicies({ query: args.query, area: args.area, limit: args.limit }).map((
            p,
          ) => ({ policyId: p.id, title: p.title, effective: p.effective, text: p.text })),
        });
      case "policy.summarize":
        // Sampling for a real reason: the caller's own model drafts the summary, from the
        // passages only (includeContext "none": nothing else of the conversation is asked for).
        return async (args, ctx: ToolContext) => {
          const hits = searchPolicies({ query: args.question, area: args.area, limit: 3 });
          if (!hits.length) {
            return { summary: "No published policy matches the question.", policyIds: [] };
          }
          const passages = hits.map((p) =>
            `[${p.id}] ${p.title} (effective ${p.effective}): ${p.text}`
          );
          const answer = await ctx.sample({
            messages: [{
              role: "user",
              content: {
                type: "text",
                text:
                  `Summarise, in at most three sentences for a relationship manager, what these bank policies say about: ${args.question}\nCite each policy id you use.\n\n${
                    passages.join("\n")
                  }`,
              },
            }],
            systemPrompt:
              "You summarise bank policy passages faithfully. Use only the passages given.",
            includeContext: "none",
            maxTokens: 300,
          });
          const blocks = [answer.content].flat() as { type?: string; text?: unknown }[];
          const text = blocks.filter((b) => b?.type === "text").map((b) => String(b.text)).join(
            "\n",
          );
          return { summary: text, policyIds: hits.map((p) => p.id), model: answer.model };
        };
      case "drafts.review":
        return this.#registry && reviewDrafts(this.#registry);
      case "fx.quote":
        return async (args, ctx: ToolContext) => {
          ctx.progress({ progress: 1, total: 2, message: "pricing" });
          await Promise.resolve();
          const rate = RATES[args.buy as string] / RATES[args.sell as string];
          ctx.progress({ progress: 2, total: 2, message: "priced" });
          return {
            sell: args.sell,
            buy: args.buy,
            tenor: args.tenor ?? "SPOT",
            rate: Number(rate.toFixed(6)),
            buyAmount: Number(((args.amount as number) * rate).toFixed(2)),
            validForSeconds: 30,
          };
        };
      case "risk.exposure.get":
        return (args) => ({
          counterpartyId: args.counterpartyId,
          asOf: args.asOf ?? "2026-11-27",
          totalExposureEur: 12_000_000 + (Number(String(args.counterpartyId).slice(-3)) * 10_000),
          byProduct: { loans: 0.62, derivatives: 0.28, trade: 0.1 },
        });
    }
    return undefined;
  }

  /**
   * Resources, each declaring the tool whose data it serves: policy documents (`policy.search`'s
   * data, for whoever may see that tool), and wholesale payments (`payments.lookup`'s: the held
   * payments, and any payment by reference).
   */
  resources(): ResourceProvider {
    const policies = { tools: ["policy.search"] };
    const payments = { tools: ["payments.lookup"] };
    return {
      list: () => [
        ...POLICIES.map((p) => ({
          uri: `bank://policies/${p.id}`,
          name: p.id,
          title: p.title,
          mimeType: "text/plain",
          requires: policies,
        })),
        {
          uri: "bank://payments/held",
          name: "held-payments",
          title: "Wholesale payments held for review",
          mimeType: "application/json",
          requires: payments,
        },
      ],
      templates: () => [{
        uriTemplate: "bank://policies/{id}",
        name: "policy",
        title: "A bank policy by id",
        mimeType: "text/plain",
        requires: policies,
      }, {
        uriTemplate: "bank://payments/{reference}",
        name: "payment",
        title: "A wholesale payment by reference",
        mimeType: "application/json",
        requires: payments,
      }],
      read: (uri, principal) => {
        const p = POLICIES.find((x) => `bank://policies/${x.id}` === uri);
        if (p) {
          return [{
            uri,
            mimeType: "text/plain",
            text: `${p.title} (effective ${p.effective})\n\n${p.text}`,
          }];
        }
        const mine = [...this.payments.values()].filter((x) => this.#entitled(principal, x));
        if (uri === "bank://payments/held") {
          const held = mine.filter((x) => x.status === "HELD").map((x) => ({
            reference: x.reference,
            amount: x.amount,
            currency: x.currency,
          }));
          return [{ uri, mimeType: "application/json", text: JSON.stringify(held) }];
        }
        const payment = mine.find((x) => `bank://payments/${x.reference}` === uri);
        if (!payment) return undefined;
        const { tenant: _, ...record } = payment;
        return [{ uri, mimeType: "application/json", text: JSON.stringify(record) }];
      },
    };
  }

  /**
   * Prompts, each declaring the tools its text tells the model to call: a wholesale payment
   * investigation (its reference completes to the payments the principal is entitled to) and a
   * retail transfer explanation.
   */
  prompts(): PromptProvider {
    const investigate = {
      name: "investigate-payment",
      title: "Investigate a payment",
      description:
        "Look up a payment, explain its status and suggest the next step under bank policy.",
      arguments: [{
        name: "reference",
        description: "The payment reference, e.g. PMT-123456",
        required: true,
      }],
      requires: { tools: ["payments.lookup", "policy.search"] },
    };
    const explain = {
      name: "explain-transfer",
      title: "Explain a retail transfer",
      description: "Look up a customer's transfer and explain its status and fees in plain words.",
      arguments: [{
        name: "transferId",
        description: "The transfer id, e.g. TRF-12345678",
        required: true,
      }],
      requires: { tools: ["retail.transfers.lookup"] },
    };
    const texts: Record<string, (args: Record<string, string>) => string> = {
      "investigate-payment": (args) =>
        `Look up payment ${args.reference} with payments.lookup (include its history), explain its status in one paragraph, and use policy.search to say what the bank's policy allows next. Do not release it.`,
      "explain-transfer": (args) =>
        `Look up transfer ${args.transferId} with retail.transfers.lookup (include its fees) and explain its status and fees to the customer in two sentences.`,
    };
    const prompts = [investigate, explain];
    return {
      list: () => prompts,
      variesByPrincipal: false,
      completeArgument: ({ name, argument, value, principal }) =>
        name === "investigate-payment" && argument === "reference"
          ? [...this.payments.values()].filter((p) => this.#entitled(principal, p))
            .map((p) => p.reference).filter((r) => r.startsWith(value)).sort()
          : [],
      getPrompt: ({ name, args }) => {
        const prompt = prompts.find((p) => p.name === name);
        if (!prompt) return undefined;
        const missing = prompt.arguments.find((a) => a.required && !args[a.name]);
        if (missing) throw new PromptArgumentError(`missing required argument ${missing.name}`);
        return {
          description: prompt.description,
          messages: [{ role: "user", content: { type: "text", text: texts[name](args) } }],
        };
      },
    };
  }
}

/**
 * The example bank as `estate serve` runs it (`cli.ts` gives it to `runServe`): a fresh system's
 * handlers, resources and prompts, with the server's name and instructions.
 *
 * @param estate The estate (for `drafts.review`, which checks drafts against it).
 * @returns The options of an MCP server that runs the example estate's tools over a new system.
 */
export function exampleBank(estate: BankSystemOptions = {}): Pick<
  McpServerOptions,
  "handlerFor" | "resources" | "prompts" | "serverInfo" | "instructions"
> {
  const bank = new BankSystem(estate);
  return {
    handlerFor: (spec) => bank.handlerFor(spec),
    resources: bank.resources(),
    prompts: bank.prompts(),
    serverInfo: { name: "tool-estate-example-bank", version: "0.1.0" },
    instructions:
      "Tools of the example bank. Each tool's description names its system of record, freshness and boundary.",
  };
}
