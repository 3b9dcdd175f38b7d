/**
 * Tool mentions: a description that names another tool of the estate tells every principal who
 * sees the first tool that the second exists. When some of them may not see the second, that is
 * the leak discovery exists to prevent — `retail.transfers.lookup` saying "use payments.lookup
 * for those" to a retail agent who has no `payments.lookup`. Decided exactly, from the two tools'
 * scopes, tenants and classifications, over every principal there could be.
 *
 * @module
 */
import type { VersionRecord } from "./lifecycle.ts";
import { classificationRank, type ToolSpec } from "./spec.ts";

/** Where the named tools are looked up: a {@linkcode ToolRegistry} is one. */
export interface ToolVersions {
  /**
   * Every published version of a tool, oldest first, with its lifecycle.
   *
   * @param name The tool.
   * @returns The versions (none for a name not in the estate).
   */
  versions(name: string): VersionRecord[];
}

/** A tool a description names that some principal who sees the described tool may not see. */
export interface ToolMention {
  /** The tool named. */
  tool: string;
  /**
   * The weakest such principal, in words: `a principal of tenant retail with scopes
   * transfers:read and clearance confidential`.
   */
  who: string;
}

const NAME_CHAR = "A-Za-z0-9_\\-";

/** Whether `text` names `name` as a whole token (a sentence's full stop after it is fine). */
function names(text: string, name: string): boolean {
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return new RegExp(
    `(?<![${NAME_CHAR}.])${escaped}(?![${NAME_CHAR}]|\\.[${NAME_CHAR}])`,
  ).test(
    text,
  );
}

/**
 * The names a text could name as whole tokens: each run of name characters and dots, and each of
 * its prefixes that ends before a dot not followed by a name character. What `names` accepts is
 * always one of these, so only they need looking up — not every tool of the estate.
 */
function candidates(text: string): Set<string> {
  const out = new Set<string>();
  for (const [run] of text.matchAll(new RegExp(`[${NAME_CHAR}.]+`, "g"))) {
    for (let i = 0; i <= run.length; i++) {
      if (
        i === run.length ||
        (run[i] === "." && !new RegExp(`[${NAME_CHAR}]`).test(run[i + 1] ?? ""))
      ) {
        if (i > 0) out.add(run.slice(0, i));
      }
    }
  }
  return out;
}

function whoText(spec: ToolSpec, tenant: string): string {
  const scopes = spec.requiredScopes.length
    ? `scopes ${spec.requiredScopes.join(", ")}`
    : "no scopes";
  return `a principal of ${tenant} with ${scopes} and clearance ${spec.dataClassification}`;
}

/**
 * The tools of the estate that a spec's description names and that some principal who may see
 * the spec may not see (no active version of the named tool admits them). The weakest principal
 * who sees the spec — its scopes, its classification as clearance, one of its tenants (or, for a
 * spec open to every tenant, a tenant no version of the named tool lists) — decides: anyone
 * stronger sees at least as much. The spec's own name and tools without an active version (no
 * one discovers them) are not flagged.
 *
 * @param spec The spec whose description to check.
 * @param registry The estate the named tools are looked up in (a `ToolRegistry`).
 * @returns One mention per named tool some of the spec's principals may not see, in name order.
 *
 * @example
 * ```ts
 * import { hiddenToolMentions, ToolRegistry, type ToolSpec } from "@tool-estate/core";
 * import assert from "node:assert/strict";
 * const base = { version: "1.0.0", title: "t", inputSchema: { type: "object" }, sideEffect: "read", dataClassification: "confidential", owner: "o" } as const;
 * const registry = new ToolRegistry();
 * registry.publish({ ...base, name: "payments.lookup", description: "Reads payments.", requiredScopes: ["payments:read"], tenants: ["wholesale"] });
 * const retail: ToolSpec = {
 *   ...base, name: "retail.transfers.lookup", requiredScopes: ["transfers:read"], tenants: ["retail"],
 *   description: "Reads retail transfers. For wholesale payments use payments.lookup.",
 * };
 * assert.deepEqual(hiddenToolMentions(retail, registry), [{
 *   tool: "payments.lookup",
 *   who: "a principal of tenant retail with scopes transfers:read and clearance confidential",
 * }]);
 * ```
 */
export function hiddenToolMentions(
  spec: ToolSpec,
  registry: ToolVersions,
): ToolMention[] {
  const out: ToolMention[] = [];
  const scopes = new Set(spec.requiredScopes);
  const rank = classificationRank(spec.dataClassification);
  // Only the names the description could name are looked up: a publish costs what its
  // description costs, not what the estate holds.
  for (const name of [...candidates(spec.description)].sort()) {
    if (name === spec.name || !names(spec.description, name)) continue;
    const active = registry.versions(name).filter((r) => r.state === "active")
      .map((r) => r.spec);
    if (active.length === 0) continue;
    // Whether the weakest principal of the spec, in a tenant the test admits, sees a version.
    const seen = (tenantAdmits: (v: ToolSpec) => boolean) =>
      active.some((v) =>
        v.requiredScopes.every((s) => scopes.has(s)) &&
        classificationRank(v.dataClassification) <= rank && tenantAdmits(v)
      );
    if (spec.tenants.length > 0) {
      const tenant = spec.tenants.find((t) =>
        !seen((v) => v.tenants.length === 0 || v.tenants.includes(t))
      );
      if (tenant !== undefined) {
        out.push({ tool: name, who: whoText(spec, `tenant ${tenant}`) });
      }
    } else if (!seen((v) => v.tenants.length === 0)) {
      const listed = [...new Set(active.flatMap((v) => v.tenants))].sort();
      const tenant = listed.length ? `a tenant other than ${listed.join(", ")}` : "any tenant";
      out.push({ tool: name, who: whoText(spec, tenant) });
    }
  }
  return out;
}

/**
 * The sentence for a mention, as `estate check`, the editor and a refused publish say it.
 *
 * @param mention The mention.
 * @returns What is wrong and what to do instead.
 */
export function toolMentionMessage(mention: ToolMention): string {
  return `description names ${mention.tool}, which a principal who sees this tool may not see ` +
    `(${mention.who}): the name would reach them; describe the boundary (what this tool does ` +
    `not cover), not the other tool`;
}
