/**
 * Reference cycles that never move in the value. A subschema applies some of its subschemas to
 * the same value it tests (`allOf`, `anyOf`, `oneOf`, `not`, `if`/`then`/`else`,
 * `dependentSchemas`, the schema form of `dependencies`, and the target of its `$ref`); when
 * following only those leads back to a subschema already on the way, testing a value may test
 * it against the same subschema again, and again: `{"$defs": {"a": {"anyOf": [{"type":
 * "string"}, {"$ref": "#/$defs/a"}]}}}` never finishes for a number (with two such branches, the
 * work doubles at each level before any depth limit is reached). JSON Schema leaves such a schema
 * undefined; here it is an error, found once when the schema is compiled or checked, before any
 * value is tested. A cycle through `properties`, `items` or any keyword that moves to a member or
 * an item is ordinary recursion and ends with the value.
 *
 * @module
 */
import { isObject } from "../_object.ts";
import { formatPath } from "./path.ts";
import { forEachSubschema } from "./subschemas.ts";
import { DEFAULT_BASE, type Location, RefIndex } from "./refs.ts";
import type { JsonSchema, PathSegment } from "./types.ts";

/** The applicators whose subschemas test the same value, by the shape of their value. */
const IN_PLACE_SINGLE = ["not", "if", "then", "else"] as const;
const IN_PLACE_ARRAY = ["allOf", "anyOf", "oneOf"] as const;
const IN_PLACE_MAP = ["dependentSchemas", "dependencies"] as const;

/** A cycle of subschemas that test the same value. */
export interface InPlaceCycle {
  /** The `$ref` that closes the cycle, as a `$`-path into the schema. */
  path: string;
  /** The cycle's subschemas, as `$`-paths, from the first one reached to the `$ref`. */
  through: string[];
}

/**
 * The first cycle of subschemas that test the same value (see the module), in document order, or
 * `undefined` when there is none.
 *
 * @param root The schema document.
 * @param index Its references, when the caller has indexed them already.
 * @returns The cycle, or undefined.
 */
export function inPlaceCycle(
  root: JsonSchema,
  index: RefIndex = new RefIndex(root),
): InPlaceCycle | undefined {
  if (!isObject(root)) return undefined;
  const rootLocation: Location = index.locationOf(root) ?? { base: DEFAULT_BASE, segments: [] };
  /** 0: not reached, 1: on the current way, 2: done (no cycle through it). */
  const state = new Map<object, 1 | 2>();
  const way: string[] = [];
  let found: InPlaceCycle | undefined;

  const inPlace = (node: Record<string, unknown>, loc: Location) => {
    const out: { schema: Record<string, unknown>; loc: Location; ref?: string }[] = [];
    const add = (sub: unknown, segs: PathSegment[]): void => {
      if (!isObject(sub)) return;
      out.push({
        schema: sub,
        loc: index.locationOf(sub) ?? { base: loc.base, segments: [...loc.segments, ...segs] },
      });
    };
    for (const kw of IN_PLACE_SINGLE) add(node[kw], [kw]);
    for (const kw of IN_PLACE_ARRAY) {
      const v = node[kw];
      if (Array.isArray(v)) v.forEach((sub, i) => add(sub, [kw, i]));
    }
    for (const kw of IN_PLACE_MAP) {
      const v = node[kw];
      if (isObject(v)) { for (const [k, sub] of Object.entries(v)) add(sub, [kw, k]); }
    }
    if (typeof node.$ref === "string") {
      const target = index.resolve(node.$ref, loc);
      if (target && isObject(target.schema)) {
        out.push({
          schema: target.schema,
          loc: target.location,
          ref: formatPath([...loc.segments, "$ref"]),
        });
      }
    }
    return out;
  };

  // Depth-first, iteratively: a schema may nest deeper than the call stack allows.
  const visit = (start: Record<string, unknown>, startLoc: Location): void => {
    type Frame = {
      node: Record<string, unknown>;
      next: ReturnType<typeof inPlace>;
      i: number;
    };
    const stack: Frame[] = [];
    const enter = (node: Record<string, unknown>, loc: Location): void => {
      state.set(node, 1);
      way.push(formatPath(loc.segments));
      stack.push({ node, next: inPlace(node, loc), i: 0 });
    };
    enter(start, startLoc);
    while (stack.length && !found) {
      const top = stack[stack.length - 1];
      if (top.i >= top.next.length) {
        state.set(top.node, 2);
        way.pop();
        stack.pop();
        continue;
      }
      const edge = top.next[top.i++];
      const s = state.get(edge.schema);
      if (s === 1) {
        const from = way.indexOf(formatPath(edge.loc.segments));
        found = {
          path: edge.ref ?? way[way.length - 1],
          through: from === -1 ? [...way] : way.slice(from),
        };
      } else if (s === undefined) enter(edge.schema, edge.loc);
    }
  };

  // Every subschema of the document starts a search (a cycle may sit in `$defs`, reached only by
  // a member's `$ref`).
  const all: { node: Record<string, unknown>; loc: Location }[] = [];
  const collect = (node: JsonSchema, loc: Location, seen: Set<object>): void => {
    if (!isObject(node) || seen.has(node)) return;
    seen.add(node);
    all.push({ node, loc });
    forEachSubschema(node, (sub, segs) =>
      collect(
        sub,
        index.locationOf(sub) ?? { base: loc.base, segments: [...loc.segments, ...segs] },
        seen,
      ));
  };
  collect(root, rootLocation, new Set());
  for (const { node, loc } of all) {
    if (found) break;
    if (state.get(node) === undefined) visit(node, loc);
  }
  return found;
}

/**
 * What is wrong with a schema that has an in-place cycle, in one sentence: the same words for
 * `checkSchema` and for the issue every value gets from the compiled schema.
 */
export function inPlaceCycleMessage(cycle: InPlaceCycle): string {
  return `the schema refers back to ${cycle.through[0]} without moving into a member or an ` +
    `item (through ${cycle.through.join(" → ")}): testing a value could never end, so none ` +
    `is accepted; make the reference apply to a property or an item`;
}
