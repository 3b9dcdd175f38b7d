import { jsonEqual } from "../schema/json_equal.ts";
import { isObject } from "../_object.ts";
import { comparePathSegments, compareStrings, formatPath } from "../schema/path.ts";
import type { JsonSchema, PathSegment } from "../schema/types.ts";
import { type Change, change, keepsValues, maxBump, topBump } from "./_change.ts";
import { Comparer } from "./_compare.ts";
import { Budget, BudgetExceeded } from "./_memo.ts";
import { type CompatibilityMode, compatibilityRule } from "./compatibility_mode.ts";
import type { SchemaBump, SchemaChange, SchemaChangeClassification } from "./schema_change.ts";

/** Options for {@linkcode classifySchemaChange}. */
export interface ClassifySchemaChangeOptions {
  /**
   * The bump for a changed `description` or `title`. No accepted value changes, so the default is
   * `patch`; choose `minor` to treat them as prompt surface (a model reads them when it picks and
   * calls the tool) that deserves a release and a re-run of the evaluation suite.
   */
  descriptionBump?: "patch" | "minor";
  /**
   * The compatibility mode the change is classified under (default `backward`, the rule described
   * below). `forward`: a change is breaking when callers built for the new contract may fail after
   * a rollback — the new input schema accepts a value the old one rejects (for outputs: the old
   * output schema allows a value the new one does not) — and a change that only narrows is
   * `minor`. `full`: breaking in either direction; only changes that keep the accepted values
   * (or change a `default`) are not major. A `-transitive` mode classifies one pair as its base
   * mode: see `classifyForMode` for the checks against earlier versions.
   */
  compatibility?: CompatibilityMode;
  /**
   * The most comparison steps (pairs of subschemas compared, changes handed back) the
   * classification may take; default {@linkcode defaultClassifyBudget}, which grows with the two
   * schemas. Past it the verdict is `major`, with one `undecidable`
   * change saying the budget was exceeded: a schema whose recursive `$ref`s would take long to
   * compare cannot stall a caller. Counted in steps, not time, so the verdict is deterministic.
   */
  budget?: number;
}

/**
 * The base of the default step budget of one classification. The default budget is this plus
 * {@linkcode CLASSIFY_BUDGET_PER_NODE} for every object and array in the two schemas, so it grows
 * with the schemas, linearly: random and MCP-style tool schemas with edits need at most about a
 * thousand steps (`p99` about 200), and a pathological 1.5 KB schema is cut off within tens of
 * milliseconds.
 */
export const DEFAULT_CLASSIFY_BUDGET = 10_000;

/** What the default step budget adds per object or array in the old and the new schema. */
export const CLASSIFY_BUDGET_PER_NODE = 20;

/** The default step budget for a pair of schemas (see {@linkcode DEFAULT_CLASSIFY_BUDGET}). */
export function defaultClassifyBudget(oldSchema: unknown, newSchema: unknown): number {
  return DEFAULT_CLASSIFY_BUDGET + CLASSIFY_BUDGET_PER_NODE * (nodes(oldSchema) + nodes(newSchema));
}

/** How many objects and arrays a JSON value holds (itself included). */
function nodes(root: unknown): number {
  let count = 0;
  const stack: unknown[] = [root];
  const seen = new Set<object>();
  while (stack.length) {
    const v = stack.pop();
    if (typeof v !== "object" || v === null || seen.has(v)) continue;
    seen.add(v);
    count++;
    for (const x of Array.isArray(v) ? v : Object.values(v)) {
      if (typeof x === "object" && x !== null) stack.push(x);
    }
  }
  return count;
}

/**
 * Classifies the change from one JSON Schema to the next by who breaks: a caller may rely on
 * every value the old schema accepts through the properties it names. A change that rejects such
 * a value is `major`; one that only accepts more (or changes a `default`) is `minor`; one that
 * changes no accepted value is `patch`. What the classifier cannot decide — a changed `not` or
 * `if`, an unknown keyword, a `oneOf` branch not provably disjoint from the others, an
 * unresolvable `$ref` — is `major`, with an `undecidable` change that says so.
 *
 * Local `$ref`s are followed on both sides (cycles are guarded) and the changes inside their
 * targets are reported where the reference sits. Closing an object (`additionalProperties`
 * becoming `false` or stricter) is `major`: callers that send properties the schema does not
 * name are rejected. A `$ref` reached along very many paths lists at most 200 changes per
 * subschema (the largest bumps first), so the bump is always exact.
 *
 * @param oldSchema The published schema.
 * @param newSchema The candidate schema.
 * @param options The bump for description and title changes.
 * @returns The largest bump and every change, sorted by path, then kind, then message.
 *
 * @example
 * ```ts
 * import { classifySchemaChange } from "@tool-estate/core";
 * import assert from "node:assert/strict";
 *
 * const v1 = {
 *   type: "object",
 *   properties: { reference: { type: "string" }, currency: { enum: ["EUR", "GBP"] } },
 *   required: ["reference"],
 *   additionalProperties: false,
 * };
 * const v2 = {
 *   type: "object",
 *   properties: { reference: { type: "string" }, currency: { enum: ["EUR", "GBP", "USD"] } },
 *   required: ["reference"],
 *   additionalProperties: false,
 * };
 * assert.equal(classifySchemaChange(v1, v2).bump, "minor");
 *
 * const { bump, changes } = classifySchemaChange(v2, { ...v2, properties: { reference: { type: "string" } } });
 * assert.equal(bump, "major");
 * assert.deepEqual(changes, [{
 *   path: "$.properties.currency",
 *   kind: "property-removed",
 *   bump: "major",
 *   message: "removed property currency: callers that send it are now rejected",
 * }]);
 * ```
 */
export function classifySchemaChange(
  oldSchema: JsonSchema,
  newSchema: JsonSchema,
  options: ClassifySchemaChangeOptions = {},
): SchemaChangeClassification {
  if (jsonEqual(oldSchema, newSchema)) return { bump: "patch", changes: [] };
  const rule = compatibilityRule(options.compatibility ?? "backward");
  const run: Run = {
    descriptionBump: options.descriptionBump ?? "patch",
    budget: new Budget(options.budget ?? defaultClassifyBudget(oldSchema, newSchema)),
  };
  // Backward: does the new schema accept every value the old one did (widening is safe)?
  const backward = () => compareSchemas(oldSchema, newSchema, run, false);
  // Forward: does the old schema accept every value the new one does (narrowing is safe)?
  const forward = () => narrowingSafe(oldSchema, newSchema, run, false, ROLLBACK);
  return withinBudget(() => {
    if (!rule.forward) return finish(backward());
    if (!rule.backward) return finish(forward());
    return finish(both(backward(), forward()));
  });
}

/** What one classification shares between its comparisons. */
interface Run {
  descriptionBump: SchemaBump;
  budget: Budget;
}

/** The classification, or `major` with the reason when it exceeds its step budget. */
function withinBudget(
  classify: () => SchemaChangeClassification,
): SchemaChangeClassification {
  try {
    return classify();
  } catch (e) {
    if (!(e instanceof BudgetExceeded)) throw e;
    return finish([change(
      [],
      "undecidable",
      "major",
      `the classifier's budget was exceeded (${e.reason}): callers may be affected`,
    )]);
  }
}

/** Every change from `o` to `n`, with the internal flags still on them. */
function compareSchemas(o: JsonSchema, n: JsonSchema, run: Run, strict: boolean): Change[] {
  const comparer = new Comparer(o, n, { ...run, strict });
  const found = comparer.compare(o, n);
  found.push(...unusedDefinitions(comparer, o, n));
  if (found.length === 0) {
    found.push(change(
      [],
      "rewritten",
      "patch",
      "the schema is written differently but accepts the same values",
    ));
  }
  return found;
}

/**
 * Classifies the change from one output schema to the next by who breaks — the mirror image of
 * {@linkcode classifySchemaChange}: consumers read outputs, so they may rely on every value the
 * old output schema allows, including members it does not name. The new contract must produce
 * only values the old one allowed. Narrowing an output (a value removed from an `enum`, a bound
 * tightened, a property made required) is `minor`; widening it (an `enum` value added, a required
 * output field removed, a type added) is `major`, as is anything the classifier cannot prove
 * narrower. Adding an output schema where there was none is `minor`; removing one is `major`.
 *
 * The bump comes from the same engine run the other way round (does the old output schema accept
 * every value the new one does?); the changes are listed as edits from old to new, with messages
 * about consumers.
 *
 * @param oldSchema The published output schema, or undefined when there was none.
 * @param newSchema The candidate output schema, or undefined when it has none.
 * @param options The bump for description and title changes.
 * @returns The largest bump and every change, sorted by path, then kind, then message.
 *
 * @example
 * ```ts
 * import { classifyOutputSchemaChange } from "@tool-estate/core";
 * import assert from "node:assert/strict";
 *
 * const v1 = {
 *   type: "object",
 *   properties: { status: { enum: ["HELD", "RELEASED"] } },
 *   required: ["status"],
 * };
 * const narrower = { ...v1, properties: { status: { enum: ["HELD"] } } };
 * assert.equal(classifyOutputSchemaChange(v1, narrower).bump, "minor");
 * const wider = { ...v1, properties: { status: { enum: ["HELD", "RELEASED", "RETURNED"] } } };
 * const { bump, changes } = classifyOutputSchemaChange(v1, wider);
 * assert.equal(bump, "major");
 * assert.equal(changes[0].path, "$.properties.status.enum");
 * ```
 */
export function classifyOutputSchemaChange(
  oldSchema: JsonSchema | undefined,
  newSchema: JsonSchema | undefined,
  options: ClassifySchemaChangeOptions = {},
): SchemaChangeClassification {
  const rule = compatibilityRule(options.compatibility ?? "backward");
  if (oldSchema === undefined && newSchema === undefined) return { bump: "patch", changes: [] };
  if (oldSchema === undefined) {
    return finish([
      rule.forward
        ? change(
          [],
          "constraint-added",
          "major",
          "outputSchema added: after a rollback, structuredContent need not match it",
        )
        : change(
          [],
          "constraint-added",
          "minor",
          "outputSchema added: consumers may now rely on structuredContent matching it",
        ),
    ]);
  }
  if (newSchema === undefined) {
    return finish([
      rule.backward
        ? change(
          [],
          "constraint-removed",
          "major",
          "outputSchema removed: consumers can no longer rely on the shape of structuredContent",
        )
        : change(
          [],
          "constraint-removed",
          "minor",
          "outputSchema removed: consumers built for the new contract rely on no shape, so a rollback is safe",
        ),
    ]);
  }
  if (jsonEqual(oldSchema, newSchema)) return { bump: "patch", changes: [] };
  const run: Run = {
    descriptionBump: options.descriptionBump ?? "patch",
    budget: new Budget(options.budget ?? defaultClassifyBudget(oldSchema, newSchema)),
  };
  // Backward for outputs: does the old output schema allow every value the new one does?
  const backward = () => narrowingSafe(oldSchema, newSchema, run, true, CONSUMERS);
  // Forward for outputs: does the new output schema allow every value the old one does?
  const forward = () => compareSchemas(oldSchema, newSchema, run, true).map(forOutputRollback);
  return withinBudget(() => {
    if (!rule.forward) return finish(backward());
    if (!rule.backward) return finish(forward());
    return finish(both(backward(), forward()));
  });
}

/** How a narrowing-safe classification words its changes, for one audience. */
interface MirrorWords {
  same: string;
  narrower: string;
  wider: string;
  fewer: string;
  unproven: string;
}

/** Outputs under `backward`: consumers built for the old output schema. */
const CONSUMERS: MirrorWords = {
  same: "; the output allows the same values",
  narrower: ": the output now allows only values the old output schema allowed",
  wider: ": consumers may now receive values the old output schema did not allow",
  fewer: ": the output now allows fewer values; consumers are unaffected",
  unproven:
    ": consumers may be affected (the classifier cannot prove the old output schema allows every value the new one does)",
};

/** Inputs under `forward`: callers built for the new contract, after a rollback to the old one. */
const ROLLBACK: MirrorWords = {
  same: "; the input accepts the same values",
  narrower: ": the input now accepts only values the old contract accepted, so a rollback is safe",
  wider:
    ": callers built for the new contract may send values the old one rejects, so a rollback breaks them",
  fewer: ": the input now accepts fewer values; callers built for it survive a rollback",
  unproven:
    ": a rollback may break callers built for the new contract (the classifier cannot prove the old contract accepts every value the new one does)",
};

/**
 * The changes from `o` to `n` when what must hold is "`o` accepts every value `n` accepts": the
 * bump comes from the engine run the other way round, the changes are listed as edits from old to
 * new, worded for `words`' audience. `strict`: members the schemas do not name count (outputs).
 */
function narrowingSafe(
  o: JsonSchema,
  n: JsonSchema,
  run: Run,
  strict: boolean,
  words: MirrorWords,
): Change[] {
  // Does the old schema accept every value the new one does? That decides the bump.
  const back = compareSchemas(n, o, run, strict);
  const proven = topBump(back.filter((c) => !keepsValues(c)));
  // The edits as made (old to new) are what a reader wants listed.
  const edits = compareSchemas(o, n, run, strict);
  let mapped = edits.map((c) => mirror(c, proven, words));
  if (proven === "major" && !mapped.some((c) => c.bump === "major")) {
    mapped = mapped.map((c) => keepsValues(c) ? c : { ...c, bump: "major" as const });
  }
  if (proven === "major" && !mapped.some((c) => c.bump === "major")) {
    // Every edit read old to new keeps the values, yet the reverse comparison could not prove it:
    // its reasons stand.
    mapped.push(...back.filter((c) => c.bump === "major"));
  }
  return mapped;
}

/**
 * One input-style change read the other way round, given what the reverse comparison proved:
 * `patch` (the same values), `minor` (the new schema accepts only old values) or `major` (not
 * proven).
 */
function mirror(c: Change, proven: SchemaBump, words: MirrorWords): Change {
  if (keepsValues(c)) return c;
  // The message's statement of the edit, without its consequence for input callers.
  const what = c.message.split(/[:;] /)[0];
  if (proven === "patch") return { ...c, bump: "patch", message: `${what}${words.same}` };
  if (proven === "minor") return { ...c, bump: "minor", message: `${what}${words.narrower}` };
  if (c.bump === "minor") return { ...c, bump: "major", message: `${what}${words.wider}` };
  if (c.bump === "major" && c.narrows) {
    return { ...c, bump: "minor", message: `${what}${words.fewer}` };
  }
  return { ...c, bump: "major", message: `${what}${words.unproven}` };
}

/** An input-style change of an output schema, read for consumers built for the new one. */
function forOutputRollback(c: Change): Change {
  if (keepsValues(c)) return c;
  const what = c.message.split(/[:;] /)[0];
  return c.bump === "major"
    ? {
      ...c,
      message:
        `${what}: after a rollback, consumers built for the new output schema may receive values it does not allow`,
    }
    : {
      ...c,
      message: `${what}: the output allows more values; consumers built for it survive a rollback`,
    };
}

/**
 * The changes under both guarantees: the two lists are the same edits (old to new, in the same
 * order); each keeps the larger bump, worded by the direction that gave it.
 */
function both(backward: Change[], forward: Change[]): Change[] {
  const out = backward.map((b, i) => {
    const f = forward[i];
    return f && maxBump(b.bump, f.bump) !== b.bump ? f : b;
  });
  // A direction's own reasons beyond the shared edits (the reverse comparison's) are kept.
  return [...out, ...forward.slice(backward.length)];
}

/** Changed `$defs`/`definitions` entries that no followed `$ref` reached on either side. */
function unusedDefinitions(comparer: Comparer, o: JsonSchema, n: JsonSchema): Change[] {
  const out: Change[] = [];
  const reached = [...comparer.old.referenced, ...comparer.new.referenced];
  for (const kw of ["$defs", "definitions"]) {
    const a = isObject(o) && isObject(o[kw]) ? o[kw] as Record<string, unknown> : {};
    const b = isObject(n) && isObject(n[kw]) ? n[kw] as Record<string, unknown> : {};
    for (const name of [...new Set([...Object.keys(a), ...Object.keys(b)])].sort(compareStrings)) {
      if (jsonEqual(a[name], b[name])) continue;
      if (reached.some((segs) => segs[0] === kw && segs[1] === name)) continue;
      const what = !Object.hasOwn(a, name)
        ? "added"
        : !Object.hasOwn(b, name)
        ? "removed"
        : "changed";
      out.push(change(
        [kw, name],
        "definition-changed",
        "patch",
        `definition ${name} ${what}; nothing refers to it, so no accepted value changes`,
      ));
    }
  }
  return out;
}

/**
 * Formats paths, merges duplicates (keeping the larger bump), sorts, and takes the largest bump.
 * Echoes of a `$ref` cycle's changes are left out where the changes they repeat decide the bump.
 */
function finish(all: Change[]): SchemaChangeClassification {
  const own = all.filter((c) => !c.echo);
  const found = own.length && topBump(own) === topBump(all) ? own : all;
  const byKey = new Map<string, { segs: PathSegment[]; change: SchemaChange }>();
  for (const c of found) {
    const path = formatPath(c.segs);
    const key = `${path}\u0000${c.kind}\u0000${c.message}`;
    const prev = byKey.get(key);
    if (prev) prev.change.bump = maxBump(prev.change.bump, c.bump);
    else {byKey.set(key, {
        segs: c.segs,
        change: { path, kind: c.kind, bump: c.bump, message: c.message },
      });}
  }
  const sorted = [...byKey.values()].sort((x, y) =>
    comparePathSegments(x.segs, y.segs) || compareStrings(x.change.kind, y.change.kind) ||
    compareStrings(x.change.message, y.change.message)
  );
  const changes = sorted.map((s) => s.change);
  return { bump: topBump(changes), changes };
}
