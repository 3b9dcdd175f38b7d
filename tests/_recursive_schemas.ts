/**
 * Recursive schemas that are costly to classify, shared by the cost bench
 * (`bench/classify_cost_bench.ts`) and the tests that a serving process keeps answering while one
 * is classified: `$defs` nodes of growing number (depth) that each refer to several others
 * (width) through named properties and through an `anyOf` of references — under properties of
 * their own (`members`) or for any other property (`additional`) — with one bound that differs
 * by `variant` in the last node, so a change between two variants sits inside every cycle. Every
 * reference moves into a member: the schemas are valid (`checkSchema` finds nothing), and
 * testing a value against them ends.
 *
 * @module
 */
import type { JsonSchema } from "../mod.ts";

/** Where a node's `anyOf` of references applies. */
export type RecursiveShape = "members" | "additional";

/** A recursive schema: `depth` nodes, each referring to `width` others. */
export function recursiveSchema(
  depth: number,
  width: number,
  variant: number,
  shape: RecursiveShape = "members",
): JsonSchema {
  const defs: Record<string, unknown> = {};
  for (let i = 0; i < depth; i++) {
    const refs = Array.from({ length: width }, (_, j) => ({
      $ref: `#/$defs/n${(i + j + 1) % depth}`,
    }));
    defs[`n${i}`] = {
      type: "object",
      properties: Object.fromEntries(refs.map((r, j) => [`p${j}`, r])),
      ...(shape === "members"
        ? { anyOf: refs.map((r, j) => ({ properties: { [`q${j}`]: { ...r } } })) }
        : { additionalProperties: { anyOf: refs.map((r) => ({ ...r })) } }),
      ...(i === depth - 1 ? { maxProperties: 5 + variant } : {}),
    };
  }
  return { type: "object", properties: { root: { $ref: "#/$defs/n0" } }, $defs: defs };
}
