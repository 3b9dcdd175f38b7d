/**
 * The surfaces around the tools — prompts, resources, resource templates — answered relative to
 * the principal: which items a principal may see (their declared requirements), what the wire
 * carries of them (never the requirement), which requirements guard a URI, whether a prompt is
 * visible, hidden or unlisted, and whether an answer is the same for every principal
 * (`cacheScope`). The functions at the end ask a server's providers; those above are pure.
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
import type { Prompt, Resource, ResourceTemplate } from "./protocol.ts";
import type { PromptProvider, ResourceProvider } from "./providers.ts";

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
    ...templates.filter((t) => uriTemplateMatches(t.uriTemplate, uri)).map((
      t,
    ) => t.requires),
  ];
}

/** What the surfaces are asked of: a server's providers and its estate. */
export interface Surfaces {
  /** The resources and templates; none when absent. */
  readonly resources?: ResourceProvider;
  /** The prompts; none when absent. */
  readonly prompts?: PromptProvider;
  /** The estate the requirements are met against. */
  readonly registry: ToolRegistry;
}

/** A list as a principal sees it, and whether it is the same for every principal. */
export interface SurfaceList<T> {
  /** The items the principal may see, in wire form. */
  items: T[];
  /** `public` only when the provider ignores the principal and every item is for everyone. */
  scope: CacheScope;
}

function surface<T>(
  surfaces: Surfaces,
  lists: {
    provider: { variesByPrincipal?: boolean } | undefined;
    all: Guarded<T>[];
    principal: Principal;
  },
): SurfaceList<T> {
  const { provider, all, principal } = lists;
  const uniform = provider === undefined ||
    (provider.variesByPrincipal === false &&
      itemsForEveryone(all, surfaces.registry));
  return {
    items: visibleItems(all, principal, surfaces.registry),
    scope: uniform ? "public" : "private",
  };
}

/** The resources a principal may see (`resources/list`). */
export function listResources(
  surfaces: Surfaces,
  principal: Principal,
): SurfaceList<Resource> {
  const provider = surfaces.resources;
  return surface(surfaces, {
    provider,
    all: provider?.list(principal) ?? [],
    principal,
  });
}

/** The resource templates a principal may see (`resources/templates/list`). */
export function listTemplates(
  surfaces: Surfaces,
  principal: Principal,
): SurfaceList<ResourceTemplate> {
  const provider = surfaces.resources;
  return surface(surfaces, {
    provider,
    all: provider?.templates?.(principal) ?? [],
    principal,
  });
}

/** The prompts a principal may see (`prompts/list`). */
export function listPrompts(
  surfaces: Surfaces,
  principal: Principal,
): SurfaceList<Prompt> {
  const provider = surfaces.prompts;
  return surface(surfaces, {
    provider,
    all: provider?.list(principal) ?? [],
    principal,
  });
}

/** The requirements that guard a resource URI for this principal's provider answers. */
export function uriGuards(
  surfaces: Surfaces,
  asked: { uri: string; principal: Principal },
): (Requirement | undefined)[] {
  const p = surfaces.resources;
  if (!p) return [];
  return uriRequirements(
    asked.uri,
    p.list(asked.principal),
    p.templates?.(asked.principal) ?? [],
  );
}

/** Whether a principal may read a resource URI: it meets every requirement guarding it. */
export function mayRead(
  surfaces: Surfaces,
  asked: { uri: string; principal: Principal },
): boolean {
  return uriGuards(surfaces, asked).every((r) =>
    meetsRequirement(r, asked.principal, { registry: surfaces.registry })
  );
}

/**
 * A prompt as the provider lists it for this principal: `visible` when listed and its
 * requirement met, `hidden` when listed but not met, `unlisted` otherwise (the provider decides).
 */
export function promptStanding(
  surfaces: Surfaces,
  asked: { name: string; principal: Principal },
): "visible" | "hidden" | "unlisted" {
  const listed = surfaces.prompts?.list(asked.principal).find((p) => p.name === asked.name);
  if (!listed) return "unlisted";
  return meetsRequirement(listed.requires, asked.principal, {
      registry: surfaces.registry,
    })
    ? "visible"
    : "hidden";
}
