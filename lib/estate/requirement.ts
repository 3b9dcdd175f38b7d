/**
 * Requirements: what a principal needs to see something that is not a tool but names or serves a
 * tool's data — a prompt whose text tells the model to call `payments.lookup`, a resource that
 * serves payment records. Declared next to the thing, decided against the estate's discovery, so
 * a prompt is visible exactly to the principals who can see the tools it depends on.
 *
 * @module
 */
import type { ToolRegistry } from "./registry.ts";
import {
  classificationRank,
  type DataClassification,
  type Principal,
  type ToolSpec,
} from "./spec.ts";

/**
 * What a principal must have to see a prompt, a resource or a resource template. Every part that
 * is given must hold; an empty requirement holds for everyone.
 */
export interface Requirement {
  /**
   * Tools the principal must see, through discovery (some active version admits them): every tool
   * the thing names or whose data it serves.
   */
  tools?: string[];
  /** Scopes the principal must all hold. */
  scopes?: string[];
  /** Tenants allowed; absent or empty: every tenant. */
  tenants?: string[];
  /** The least clearance the principal needs. */
  clearance?: DataClassification;
}

/**
 * An item offered beside the tools — a prompt, a resource, a resource template — with what a
 * principal needs to see it. An MCP server applies `requires` wherever the item can be reached
 * (list, get, read, complete, subscribe) and never sends it.
 */
export type Guarded<T> = T & {
  /** What a principal needs to see the item; none: everyone who reaches its provider. */
  requires?: Requirement;
};

/** Options for {@linkcode meetsRequirement}. */
export interface MeetsRequirementOptions {
  /** The estate whose discovery decides the `tools` part. */
  registry: ToolRegistry;
}

/**
 * Whether a principal meets a requirement: sees every named tool (as `registry.discover` would
 * list it), holds every scope, is in an allowed tenant and has the clearance.
 *
 * @param requirement The requirement (undefined: none).
 * @param principal The caller.
 * @param options `registry`: the estate whose discovery decides the `tools` part.
 * @returns True when the principal may see what the requirement guards.
 *
 * @example
 * ```ts
 * import { meetsRequirement, ToolRegistry } from "@tool-estate/core";
 * import assert from "node:assert/strict";
 * const registry = new ToolRegistry();
 * registry.publish({
 *   name: "payments.lookup", version: "1.0.0", title: "Look up a payment", description: "Reads the payments system of record.",
 *   inputSchema: { type: "object" }, sideEffect: "read", requiredScopes: ["payments:read"],
 *   dataClassification: "confidential", tenants: ["wholesale"], owner: "payments-platform",
 * });
 * const retail = { id: "retail-agent", scopes: ["transfers:read"], tenant: "retail", clearance: "confidential" as const };
 * assert.equal(meetsRequirement({ tools: ["payments.lookup"] }, retail, { registry }), false);
 * assert.equal(meetsRequirement({ tenants: ["retail"] }, retail, { registry }), true);
 * ```
 */
export function meetsRequirement(
  requirement: Requirement | undefined,
  principal: Principal,
  options: MeetsRequirementOptions,
): boolean;
/**
 * Whether a principal meets a requirement, the registry given on its own.
 *
 * @deprecated Give the registry as an option: `meetsRequirement(requirement, principal, { registry })`.
 *
 * @param requirement The requirement (undefined: none).
 * @param principal The caller.
 * @param registry The estate whose discovery decides the `tools` part.
 * @returns True when the principal may see what the requirement guards.
 */
export function meetsRequirement(
  requirement: Requirement | undefined,
  principal: Principal,
  registry: ToolRegistry,
): boolean;
export function meetsRequirement(
  requirement: Requirement | undefined,
  principal: Principal,
  options: MeetsRequirementOptions | ToolRegistry,
): boolean {
  const registry = "registry" in options ? options.registry : options;
  if (!requirement) return true;
  const { tools = [], scopes = [], tenants = [], clearance } = requirement;
  if (clearance !== undefined) {
    const need = classificationRank(clearance);
    if (need < 0 || need > classificationRank(principal.clearance)) {
      return false;
    }
  }
  if (tenants.length > 0 && !tenants.includes(principal.tenant)) return false;
  if (!scopes.every((s) => principal.scopes.includes(s))) return false;
  return tools.every((t) => registry.visible(t, principal) !== undefined);
}

/**
 * Whether a tool version admits every principal: no scopes, no tenant list, `public` data.
 *
 * @param spec The tool version.
 * @returns True when no principal is kept from it.
 */
export function admitsEveryone(spec: ToolSpec): boolean {
  return spec.requiredScopes.length === 0 && spec.tenants.length === 0 &&
    classificationRank(spec.dataClassification) === 0;
}

/**
 * Whether every principal, whoever they are, meets a requirement: it asks for no scope, tenant or
 * clearance above `public`, and every tool it names has an active version that admits everyone.
 * What only such requirements guard is the same for every principal (a shared cache may hold it).
 *
 * @param requirement The requirement (undefined: none).
 * @param registry The estate.
 * @returns True when no principal is kept from what the requirement guards.
 *
 * @example
 * ```ts
 * import { everyoneMeets, ToolRegistry } from "@tool-estate/core";
 * import assert from "node:assert/strict";
 * const registry = new ToolRegistry();
 * assert.equal(everyoneMeets(undefined, registry), true);
 * assert.equal(everyoneMeets({ scopes: ["policy:read"] }, registry), false);
 * assert.equal(everyoneMeets({ tools: ["policy.search"] }, registry), false); // not in the estate
 * ```
 */
export function everyoneMeets(
  requirement: Requirement | undefined,
  registry: ToolRegistry,
): boolean {
  if (!requirement) return true;
  const { tools = [], scopes = [], tenants = [], clearance } = requirement;
  if (scopes.length > 0 || tenants.length > 0) return false;
  if (clearance !== undefined && classificationRank(clearance) !== 0) {
    return false;
  }
  return tools.every((t) =>
    registry.versions(t).some((v) => v.state === "active" && admitsEveryone(v.spec))
  );
}
