/**
 * Builds the example estate deterministically: publishes every version of `_estate_specs.ts` in
 * order through the registry (so each bump is the one the rules demand, and each non-major bump
 * replays the calls made so far), generates a few hundred stored calls per tool from the
 * principals who could see it at the time, applies the deprecations, and writes the estate.
 *
 *   deno run -A scripts/make_corpus.ts [DIR]     (default: corpus/, which must not hold tools yet)
 *
 * The same inputs always give byte-identical files; a test rebuilds the estate into a temporary
 * folder and compares it with the committed `corpus/`.
 *
 * @module
 */
import fs from "node:fs";
import path from "node:path";
import process from "node:process";
import { type Principal, type StoredCall, validateSchema } from "../mod.ts";
import { EstateDir } from "../lib/store/mod.ts";
import { DEMO_TOKENS } from "../lib/cli/demo_tokens.ts";
import { tokenSha256 } from "../lib/mcp/transports/bearer_tokens.ts";
import { argumentsFor, rng } from "./_estate_calls.ts";
import { DEPRECATIONS, PUBLISHED } from "./_estate_specs.ts";

/**
 * The example principals: who the agents act for. `principals.json` stores the SHA-256 of each
 * one's demo token (`lib/cli/demo_tokens.ts`), never the token.
 */
export const PRINCIPALS: (Principal & { description: string })[] = [
  {
    id: "retail-agent",
    description: "A retail banking assistant acting for branch and contact-centre staff.",
    scopes: ["transfers:read", "crm:read", "policy:read"],
    tenant: "retail",
    clearance: "confidential",
  },
  {
    id: "wholesale-operator",
    description: "A payments operations agent on the wholesale desk.",
    scopes: ["payments:read", "payments:release", "fx:quote", "policy:read"],
    tenant: "wholesale",
    clearance: "restricted",
  },
  {
    id: "group-risk-analyst",
    description: "A group risk analyst's research agent.",
    scopes: ["risk:read", "crm:read", "fx:quote", "policy:read"],
    tenant: "group",
    clearance: "restricted",
  },
];

/** When each version was published (deterministic, spread over 2026). */
const PUBLISHED_AT: Record<string, string> = {
  "payments.lookup@1.0.0": "2026-01-15T09:00:00.000Z",
  "payments.lookup@1.1.0": "2026-05-04T09:00:00.000Z",
  "payments.lookup@2.0.0": "2026-08-20T09:00:00.000Z",
  "payments.release@1.0.0": "2026-02-02T09:00:00.000Z",
  "retail.transfers.lookup@1.0.0": "2026-01-20T09:00:00.000Z",
  "retail.transfers.lookup@1.1.0": "2026-06-10T09:00:00.000Z",
  "crm.customer.get@1.0.0": "2026-02-16T09:00:00.000Z",
  "policy.search@1.0.0": "2026-03-02T09:00:00.000Z",
  "fx.quote@1.0.0": "2026-03-23T09:00:00.000Z",
  "risk.exposure.get@1.0.0": "2026-04-13T09:00:00.000Z",
  // The tools that ask their client (sampling; roots and elicitation) came last.
  "policy.summarize@1.0.0": "2026-11-16T09:00:00.000Z",
  "drafts.review@1.0.0": "2026-11-23T09:00:00.000Z",
};
const END = Date.parse("2026-11-29T18:00:00.000Z");
const CALLS_PER_TOOL = 300;

/**
 * Writes the example estate into `dir` (which must hold no tools yet): publishes, calls and
 * deprecates in time order through the estate on disk, so every rule is checked on the way.
 *
 * @param dir The target folder; created if missing.
 * @returns The estate, opened.
 */
export function writeEstate(dir: string): EstateDir {
  fs.mkdirSync(dir, { recursive: true });
  if (fs.existsSync(path.join(dir, "tools"))) {
    throw new Error(`${dir} already holds tools: pick an empty folder`);
  }
  const stored = PRINCIPALS.map((p) => ({ ...p, tokenSha256: tokenSha256(DEMO_TOKENS[p.id]) }));
  fs.writeFileSync(path.join(dir, "principals.json"), JSON.stringify(stored, null, 2) + "\n");
  let clock = new Date(0);
  const estate = EstateDir.open(dir, { now: () => clock });
  const r = rng(20261130);
  const events = [
    ...PUBLISHED.map((spec) => ({
      at: PUBLISHED_AT[`${spec.name}@${spec.version}`],
      kind: "publish" as const,
      spec,
    })),
    ...DEPRECATIONS.map((d) => ({ at: d.at, kind: "deprecate" as const, d })),
  ].sort((a, b) => a.at < b.at ? -1 : a.at > b.at ? 1 : 0);
  for (const e of events) {
    clock = new Date(e.at);
    if (e.kind === "deprecate") {
      estate.deprecate(e.d.name, e.d.version, { reason: e.d.reason, retireAfter: e.d.retireAfter });
      continue;
    }
    if (!e.at) throw new Error(`no publish date for ${e.spec.name}@${e.spec.version}`);
    const result = estate.publish(e.spec);
    if (result.status !== "published") {
      throw new Error(`${e.spec.name}@${e.spec.version} was already published`);
    }
    // Calls to this version until the next version of the tool (or the end of the corpus).
    const next = PUBLISHED.filter((s) =>
      s.name === e.spec.name
    ).map((s) => PUBLISHED_AT[`${s.name}@${s.version}`])
      .filter((t) =>
        t > e.at
      ).sort()[0];
    const from = Date.parse(e.at), to = next ? Date.parse(next) : END;
    const lines = PUBLISHED.filter((s) => s.name === e.spec.name).length;
    const callers = PRINCIPALS.filter((p) =>
      estate.registry.discover(p).some((s) => s.name === e.spec.name)
    );
    const calls: StoredCall[] = [];
    for (let i = 0; i < Math.round(CALLS_PER_TOOL / lines); i++) {
      const args = argumentsFor(e.spec.name, e.spec.version, r);
      const issues = validateSchema(e.spec.inputSchema, args);
      if (issues.length) {
        throw new Error(
          `generated an invalid call for ${e.spec.name}@${e.spec.version}: ${
            JSON.stringify(issues)
          }`,
        );
      }
      // A quarter of a version's callers stay pinned to it after the next version ships.
      const pinned = to < END && r() < 0.25;
      const at = new Date(
        pinned ? to + Math.floor(r() * (END - to)) : from + Math.floor(r() * (to - from)),
      )
        .toISOString();
      calls.push({
        version: e.spec.version,
        arguments: args,
        principal: callers[Math.floor(r() * callers.length)].id,
        at,
      });
    }
    calls.sort((a, b) => a.at < b.at ? -1 : a.at > b.at ? 1 : 0);
    estate.appendCalls(e.spec.name, calls);
  }
  // The example estate ships without an audit log: its history is made up, not lived.
  fs.rmSync(path.join(dir, "audit.jsonl"), { force: true });
  fs.rmSync(path.join(dir, ".audit-lock"), { recursive: true, force: true });
  return estate;
}

if (import.meta.main) {
  const dir = process.argv[2] ?? "corpus";
  const estate = writeEstate(dir);
  const names = estate.registry.names();
  console.log(`wrote ${names.length} tools to ${dir}: ${names.join(", ")}`);
}
