/**
 * Realistic arguments for the example estate's tools, from a seeded generator: what agents send.
 */

/** A small deterministic PRNG (mulberry32). */
export function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Args = Record<string, unknown>;

/** Argument generators by tool name and version line. */
export function argumentsFor(name: string, version: string, r: () => number): Args {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)];
  const digits = (n: number) => Array.from({ length: n }, () => Math.floor(r() * 10)).join("");
  const maybe = (p: number) => r() < p;
  const major = Number(version.split(".")[0]);
  const minor = Number(version.split(".")[1]);
  const ccy = ["EUR", "GBP", "USD", "CHF", "JPY"] as const;
  switch (name) {
    case "payments.lookup": {
      const a: Args = { reference: `PMT-${digits(6)}` };
      if (major === 1 && maybe(0.4)) a.currency = pick(ccy);
      if ((major > 1 || minor >= 1) && maybe(0.3)) a.includeHistory = maybe(0.5);
      return a;
    }
    case "payments.release": {
      const a: Args = {
        reference: `PMT-${digits(6)}`,
        approvedAmount: Math.round(r() * 5_000_000_00) / 100 + 1,
        currency: pick(ccy),
      };
      if (maybe(0.5)) {
        a.note = pick([
          "Approved by treasury desk",
          "Release after KYC refresh",
          "Client call confirmed",
        ]);
      }
      return a;
    }
    case "retail.transfers.lookup": {
      const a: Args = { transferId: `TRF-2026${digits(4)}` };
      if (minor >= 1 && maybe(0.3)) a.includeFees = maybe(0.5);
      return a;
    }
    case "crm.customer.get": {
      const a: Args = { customerId: `C${digits(8)}` };
      if (maybe(0.5)) {
        const all = ["name", "segment", "contact", "products", "kyc"];
        a.fields = all.filter(() => maybe(0.5));
      }
      return a;
    }
    case "policy.summarize": {
      const a: Args = {
        question: pick([
          "what must be checked before releasing a held payment",
          "when is customer due diligence refreshed",
          "how are vulnerable customers supported",
          "what is the cut-off for same-day sterling payments",
        ]),
      };
      if (maybe(0.4)) a.area = pick(["payments", "lending", "kyc", "conduct", "operations"]);
      return a;
    }
    case "drafts.review": {
      const a: Args = {};
      if (maybe(0.3)) a.maxFiles = 1 + Math.floor(r() * 200);
      return a;
    }
    case "policy.search": {
      const a: Args = {
        query: pick([
          "cut-off time for same-day sterling payments",
          "when to refresh customer due diligence",
          "limits for releasing a held payment",
          "complaint handling timelines",
          "vulnerable customer support",
          "sanctions screening false positives",
        ]),
      };
      if (maybe(0.5)) a.area = pick(["payments", "lending", "kyc", "conduct", "operations"]);
      if (maybe(0.3)) a.limit = 1 + Math.floor(r() * 20);
      return a;
    }
    case "fx.quote": {
      const sell = pick(ccy);
      const buy = pick(ccy.filter((c) => c !== sell));
      const a: Args = { sell, buy, amount: 1000 * (1 + Math.floor(r() * 5000)) };
      if (maybe(0.5)) a.tenor = pick(["SPOT", "1W", "1M", "3M", "6M", "1Y"]);
      return a;
    }
    case "risk.exposure.get": {
      const a: Args = { counterpartyId: `CP-${digits(6)}` };
      if (maybe(0.4)) {
        a.asOf = `2026-${String(1 + Math.floor(r() * 11)).padStart(2, "0")}-${
          String(1 + Math.floor(r() * 28)).padStart(2, "0")
        }`;
      }
      return a;
    }
  }
  throw new Error(`no argument generator for ${name}`);
}
