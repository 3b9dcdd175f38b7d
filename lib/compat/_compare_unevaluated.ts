/**
 * Compares `unevaluatedProperties` and `unevaluatedItems`, and guards what they see.
 *
 * What such a keyword rejects depends on every keyword that applies to the same instance: the
 * members and items they evaluate, and which in-place subschemas pass. The ordinary comparers
 * decide whether the new schema accepts every value the old one did; beside an `unevaluated*`
 * keyword that is not enough, the evaluated members and items must not shrink either. They
 * provably do not when, at every subschema of the place, the keywords that evaluate keep what
 * they evaluated (names, patterns and prefixes only added; `additionalProperties`, `items`,
 * `contains` and `unevaluated*` kept), the in-place applicators keep their shape (so a subschema
 * that passed before still passes: the ordinary comparers show it accepts at least as much, branch
 * by branch), and `if` keeps its values. Anything else is `undecidable`, naming the keyword. Under
 * `not`, in `if` or in an overlapping `oneOf` branch the changes go through `nonMonotone()` as
 * every other change does.
 */
import { jsonEqual } from "../schema/json_equal.ts";
import { type Change, change, hasMajor, keepsValues, under } from "./_change.ts";
import type { CompareContext } from "./_context.ts";
import type { Step } from "./_places.ts";
import { isTriviallyTrue } from "./_schema_facts.ts";

type Obj = Record<string, unknown>;
type Watcher = "unevaluatedProperties" | "unevaluatedItems";

const NOUN: Record<Watcher, string> = {
  unevaluatedProperties: "properties",
  unevaluatedItems: "items",
};

const STEP: Record<Watcher, Step> = {
  unevaluatedProperties: "unnamed-member",
  unevaluatedItems: "item",
};

/** The `unevaluated*` keywords of a pair of subschemas, and what they see. */
export function compareUnevaluated(ctx: CompareContext, o: Obj, n: Obj): Change[] {
  const out: Change[] = [];
  for (const kw of ["unevaluatedProperties", "unevaluatedItems"] as const) {
    out.push(...compareKeyword(ctx, o, n, kw));
    if (ctx.watchers(kw) > 0) out.push(...guard(ctx, o, n, kw));
  }
  return out;
}

function compareKeyword(ctx: CompareContext, o: Obj, n: Obj, kw: Watcher): Change[] {
  const ho = Object.hasOwn(o, kw), hn = Object.hasOwn(n, kw);
  if (!ho && !hn) return [];
  if (ho && hn) return under([kw], ctx.compare(o[kw], n[kw], STEP[kw]));
  if (hn) {
    if (isTriviallyTrue(n[kw])) {
      return ctx.watchers(kw) > 0
        ? [grew(kw, kw)]
        : [change([kw], "rewritten", "patch", `${kw} added and accepts anything`)];
    }
    return [change(
      [kw],
      "constraint-added",
      "major",
      `${kw} added: callers that send ${NOUN[kw]} no other keyword here evaluates are now rejected`,
    )];
  }
  // Removed: this place accepts more, but an enclosing one of its kind saw these evaluated.
  if (ctx.watchers(kw) > 1) {
    return [undecidable(kw, kw, "removed")];
  }
  return [change(
    [kw],
    "constraint-removed",
    "minor",
    `${kw} removed: callers may now send ${NOUN[kw]} no other keyword here evaluates`,
  )];
}

function undecidable(kw: string, watcher: Watcher, what: string): Change {
  return change(
    [kw],
    "undecidable",
    "major",
    `${kw} ${what} beside ${watcher}: the ${
      NOUN[watcher]
    } it sees as evaluated may change, so callers may be affected`,
  );
}

/** Evaluating more beside an `unevaluated*` keyword accepts more: a widening. */
function grew(kw: string, watcher: Watcher): Change {
  return change(
    [kw],
    "constraint-removed",
    "minor",
    `${kw} now evaluates more beside ${watcher}: callers may now send ${NOUN[watcher]} it rejected`,
  );
}

function keys(v: unknown): string[] {
  return v !== null && typeof v === "object" && !Array.isArray(v) ? Object.keys(v) : [];
}

function schemaKeys(v: unknown): string[] {
  // `dependencies` mixes schemas (which evaluate) with lists of names (which do not).
  return keys(v).filter((k) => !Array.isArray((v as Obj)[k]));
}

function arity(v: unknown): number {
  return Array.isArray(v) ? v.length : -1;
}

/** What must hold at a subschema pair of a place an `unevaluated*` keyword watches. */
function guard(ctx: CompareContext, o: Obj, n: Obj, kw: Watcher): Change[] {
  const out: Change[] = [];
  const kept = (k: string) => {
    if (!Object.hasOwn(o, k) && Object.hasOwn(n, k)) out.push(grew(k, kw));
    return !Object.hasOwn(o, k) || Object.hasOwn(n, k);
  };
  const lost = (k: string) => out.push(undecidable(k, kw, "no longer evaluates what it did"));
  if (kw === "unevaluatedProperties") {
    for (const k of ["properties", "patternProperties"]) {
      if (!keys(o[k]).every((name) => keys(n[k]).includes(name))) lost(k);
      else if (keys(n[k]).length > keys(o[k]).length) out.push(grew(k, kw));
    }
    if (!kept("additionalProperties")) lost("additionalProperties");
    for (const k of ["dependentSchemas", "dependencies"]) {
      const a = schemaKeys(o[k]), b = schemaKeys(n[k]);
      if (a.length !== b.length || !a.every((name) => b.includes(name))) {
        out.push(undecidable(k, kw, "changed"));
      }
    }
  } else {
    const prefix = (s: Obj) =>
      Math.max(arity(s.prefixItems), Array.isArray(s.items) ? s.items.length : 0);
    const at = Array.isArray(o.items) || Array.isArray(n.items) ? "items" : "prefixItems";
    if (prefix(n) < prefix(o)) lost(at);
    else if (prefix(n) > prefix(o)) out.push(grew(at, kw));
    if (!Array.isArray(o.items) && !kept("items")) lost("items");
    if (!kept("additionalItems")) lost("additionalItems");
    if (!kept("contains")) lost("contains");
    if (Object.hasOwn(o, "contains") && !jsonEqual(o.contains, n.contains)) {
      // An item `contains` matched was evaluated: it must still match.
      if (!ctx.compare(o.contains, n.contains, "contains").every(keepsValues)) {
        out.push(undecidable("contains", kw, "changed"));
      }
    }
  }
  // The in-place applicators pass on what their passing subschemas evaluate: each must keep its
  // shape, and each branch accept at least what it did (not merely be covered by another).
  for (const k of ["allOf", "anyOf", "oneOf"]) {
    if (arity(o[k]) !== arity(n[k])) {
      out.push(undecidable(k, kw, "changed shape"));
      continue;
    }
    if (k === "allOf" || !Array.isArray(o[k])) continue;
    const bo = o[k] as unknown[], bn = n[k] as unknown[];
    const i = bo.findIndex((b, j) => hasMajor(ctx.compare(b, bn[j])));
    if (i !== -1) out.push(undecidable(k, kw, `branch ${i} changed`));
  }
  for (const k of ["if", "then", "else"]) {
    if (Object.hasOwn(o, k) !== Object.hasOwn(n, k)) out.push(undecidable(k, kw, "changed"));
  }
  if (Object.hasOwn(o, "if") && Object.hasOwn(n, "if")) {
    if (!ctx.compare(o.if, n.if).every(keepsValues)) out.push(undecidable("if", kw, "changed"));
  }
  return out;
}
