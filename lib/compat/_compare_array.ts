/**
 * Compares the array keywords of two subschemas: positional items (`prefixItems`, `items`,
 * draft-07 `items` arrays and `additionalItems`), `contains` with its counts, item counts and
 * `uniqueItems`.
 */
import type { PathSegment } from "../schema/types.ts";
import { type Change, change, hasMajor, nonMonotone, show, under } from "./_change.ts";
import { compareCounts, type CountNoun } from "./_compare_scalar.ts";
import type { CompareContext } from "./_context.ts";

type Obj = Record<string, unknown>;

interface Slot {
  schema: unknown;
  segs: PathSegment[];
}

/** Which schema governs each array position, as the validator reads it. */
function layout(s: Obj): { prefix: Slot[]; rest: Slot } {
  const prefix: Slot[] = Array.isArray(s.prefixItems)
    ? s.prefixItems.map((x, i) => ({ schema: x, segs: ["prefixItems", i] }))
    : Array.isArray(s.items)
    ? s.items.map((x, i) => ({ schema: x, segs: ["items", i] }))
    : [];
  let rest: Slot = { schema: true, segs: ["items"] };
  if (Object.hasOwn(s, "items") && !Array.isArray(s.items)) {
    rest = { schema: s.items, segs: ["items"] };
  } else if (Array.isArray(s.items)) {
    rest = {
      schema: Object.hasOwn(s, "additionalItems") ? s.additionalItems : true,
      segs: ["additionalItems"],
    };
  }
  return { prefix, rest };
}

const ITEM_NOUN: CountNoun = {
  under: (k) => `arrays with fewer than ${k} items`,
  over: (k) => `arrays with more than ${k} items`,
};

const CONTAINS_NOUN: CountNoun = {
  under: (k) => `arrays with fewer than ${k} items matching contains`,
  over: (k) => `arrays with more than ${k} items matching contains`,
};

/** The array keywords of a pair of subschemas. */
export function compareArray(ctx: CompareContext, o: Obj, n: Obj): Change[] {
  const out: Change[] = [];
  const lo = layout(o), ln = layout(n);
  const len = Math.max(lo.prefix.length, ln.prefix.length);
  for (let i = 0; i < len; i++) {
    const a = lo.prefix[i] ?? lo.rest, b = ln.prefix[i] ?? ln.rest;
    out.push(...under(b.segs, ctx.compare(a.schema, b.schema, "item")));
  }
  out.push(
    ...under(ln.rest.segs, ctx.compare(lo.rest.schema, ln.rest.schema, "item")),
  );
  out.push(...compareContains(ctx, o, n));
  out.push(...compareCounts(o, n, "minItems", "maxItems", ITEM_NOUN));
  if (o.uniqueItems !== n.uniqueItems) {
    const uo = o.uniqueItems === true, un = n.uniqueItems === true;
    if (!uo && un) {
      out.push(change(
        ["uniqueItems"],
        "bound-tightened",
        "major",
        "uniqueItems added: callers that send arrays with duplicate items are now rejected",
        { check: { uniqueItems: true }, narrows: true },
      ));
    } else if (uo && !un) {
      out.push(change(
        ["uniqueItems"],
        "bound-loosened",
        "minor",
        "uniqueItems removed: callers may now send arrays with duplicate items",
      ));
    } else {
      out.push(change(
        ["uniqueItems"],
        "rewritten",
        "patch",
        `uniqueItems written as ${show(n.uniqueItems)} instead of ${
          show(o.uniqueItems)
        }; it allows the same values`,
      ));
    }
  }
  return out;
}

function compareContains(ctx: CompareContext, o: Obj, n: Obj): Change[] {
  const ho = Object.hasOwn(o, "contains"), hn = Object.hasOwn(n, "contains");
  const inert = (s: Obj) => s.minContains === 0 && s.maxContains === undefined;
  if (!ho && !hn) {
    const same = o.minContains === n.minContains &&
      o.maxContains === n.maxContains;
    return same ? [] : [
      change(
        [n.minContains !== o.minContains ? "minContains" : "maxContains"],
        "rewritten",
        "patch",
        "minContains/maxContains changed, which has no effect without contains",
      ),
    ];
  }
  if (!ho) {
    if (inert(n)) {
      return [
        change(
          ["contains"],
          "rewritten",
          "patch",
          "contains added with minContains 0: no effect",
        ),
      ];
    }
    return [change(
      ["contains"],
      "constraint-added",
      "major",
      "contains added: callers that send arrays without an item matching it are now rejected",
    )];
  }
  if (!hn) {
    return [change(
      ["contains"],
      inert(o) ? "rewritten" : "constraint-removed",
      inert(o) ? "patch" : "minor",
      inert(o)
        ? "contains with minContains 0 removed: no effect"
        : "contains removed: callers may now send arrays without an item matching it",
    )];
  }
  const out = compareCounts(o, n, "minContains", "maxContains", CONTAINS_NOUN, {
    defaults: { min: 1, max: Infinity },
    context: { contains: n.contains },
  });
  // contains is monotone without maxContains (more matching items only help minContains), and
  // non-monotone with it (more matching items can exceed the maximum).
  const inner = ctx.compare(o.contains, n.contains, "contains");
  if (n.maxContains === undefined || hasMajor(inner)) {
    out.push(...under(["contains"], inner));
  } else {
    out.push(...nonMonotone(
      ["contains"],
      inner,
      "contains changed while maxContains bounds how many items match it: callers whose arrays now have too many matching items would be rejected",
    ));
  }
  return out;
}
