/**
 * The surfaces around the tools — prompts, resources, resource templates — answered relative to
 * the principal: which items a principal may see (their declared requirements), what the wire
 * carries of them (never the requirement), which requirements guard a URI, and whether an
 * answer is the same for every principal (`cacheScope`).
 *
 * @module
 */
import {
  everyoneMeets,
  type Guarded,
  meetsRequirement,
  type Requirement,
} from "../estate/requirement.ts";
import type { ToolRegistry } from "../estate/registry.ts";
import type { Principal } from "../estate/spec.ts";
import type { Resource, ResourceTemplate } from "./protocol.ts";

/**
 * A 2026-07-28 result's `cacheScope`: `public` when the answer is the same for every principal
 * (a shared cache may hold it), `private` when it depends on who asks.
 */
export type CacheScope = "public" | "private";

/** The wire form of an item: everything but its requirement. */
export function wireForm<T>(item: Guarded<T>): T {
  if (!Object.hasOwn(item as object, "requires")) return item;
  const { requires: _, ...rest } = item as Guarded<T> & Record<string, unknown>;
  return rest as T;
}

/** The items a principal may see, in wire form, in the provider's order. */
export function visibleItems<T>(
  items: readonly Guarded<T>[],
  principal: Principal,
  registry: ToolRegistry,
): T[] {
  return items.filter((i) => meetsRequirement(i.requires, principal, { registry })).map(wireForm);
}

/** Whether every principal sees every one of these items. */
export function itemsForEveryone(
  items: readonly Guarded<unknown>[],
  registry: ToolRegistry,
): boolean {
  return items.every((i) => everyoneMeets(i.requires, registry));
}

/**
 * Whether a URI is one of an RFC 6570 template's: literal parts must match; a simple `{var}`
 * stands for one path segment (`[^/]*`), any other expression (`{+var}`, `{#var}`, `{/var}`, ...)
 * for anything. Matching more than the template means is the safe side: more requirements apply.
 */
export function uriTemplateMatches(uriTemplate: string, uri: string): boolean {
  let pattern = "^";
  let last = 0;
  for (const m of uriTemplate.matchAll(/\{([^}]*)\}/g)) {
    pattern += escape(uriTemplate.slice(last, m.index));
    pattern += /^[A-Za-z0-9_%]/.test(m[1]) ? "[^/]*" : ".*";
    last = m.index + m[0].length;
  }
  pattern += escape(uriTemplate.slice(last)) + "$";
  return new RegExp(pattern, "s").test(uri);
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/**
 * The requirements that guard a URI: the listed resource's with that URI and every matching
 * template's. A principal may read the URI only when it meets them all.
 */
export function uriRequirements(
  uri: string,
  resources: readonly Guarded<Resource>[],
  templates: readonly Guarded<ResourceTemplate>[],
): (Requirement | undefined)[] {
  return [
    ...resources.filter((r) => r.uri === uri).map((r) => r.requires),
    ...templates.filter((t) => uriTemplateMatches(t.uriTemplate, uri)).map((t) => t.requires),
  ];
}
