/**
 * Compares the applicators `allOf`, `anyOf`, `oneOf`, `not` and `if`/`then`/`else`.
 *
 * - `allOf`: every new branch must be implied by an old branch (or be trivially true).
 * - `anyOf`: every old branch must be included in some new branch; added branches widen.
 * - `oneOf`: as `anyOf`, and each added or widened branch must be provably disjoint from the
 *   others, since a value matching two branches is rejected.
 * - `not` and a changed `if` are not decided: any change there is major.
 */
import { jsonEqual } from "../schema/json_equal.ts";
import { type Change, change, hasMajor, keepsValues, nonMonotone, under } from "./_change.ts";
import type { CompareContext } from "./_context.ts";
import { isTriviallyTrue, provablyDisjoint } from "./_schema_facts.ts";

type Obj = Record<string, unknown>;

/** The applicator keywords of a pair of subschemas. */
export function compareApplicators(
  ctx: CompareContext,
  o: Obj,
  n: Obj,
): Change[] {
  const out: Change[] = [];
  for (const kw of ["allOf", "anyOf", "oneOf"]) {
    for (const s of [o, n]) {
      if (
        Object.hasOwn(s, kw) && !Array.isArray(s[kw]) &&
        !jsonEqual(o[kw], n[kw])
      ) {
        return [change(
          [kw],
          "undecidable",
          "major",
          `${kw} changed in a form the classifier does not understand: callers may be affected`,
        )];
      }
    }
  }
  out.push(...compareAllOf(ctx, o, n));
  out.push(...compareAnyOf(ctx, o, n, "anyOf"));
  out.push(...compareAnyOf(ctx, o, n, "oneOf"));
  out.push(...compareNot(ctx, o, n));
  out.push(...compareConditional(ctx, o, n));
  return out;
}

function compareAllOf(ctx: CompareContext, o: Obj, n: Obj): Change[] {
  const bo = (o.allOf ?? []) as unknown[], bn = (n.allOf ?? []) as unknown[];
  if (!bo.length && !bn.length) return [];
  if (bo.length === bn.length) {
    // Same shape: compare branch by branch (the common case, and the one with exact paths).
    const out: Change[] = [];
    bn.forEach((b, i) => out.push(...under(["allOf", i], ctx.compare(bo[i], b))));
    if (!hasMajor(out)) return out;
  }
  // Otherwise identical branches cancel and the rest pair up in order.
  const restO = bo.map((s, i) => ({ s, i })),
    restN: { s: unknown; i: number }[] = [];
  bn.forEach((s, i) => {
    const j = restO.findIndex((a) => jsonEqual(a.s, s) && ctx.compare(a.s, s).length === 0);
    if (j === -1) restN.push({ s, i });
    else restO.splice(j, 1);
  });
  const out: Change[] = [];
  for (let k = 0; k < Math.max(restO.length, restN.length); k++) {
    const a = restO[k], b = restN[k];
    out.push(
      ...under(
        ["allOf", (b ?? a).i],
        ctx.compare(a ? a.s : true, b ? b.s : true),
      ),
    );
  }
  return out;
}

/** `anyOf` or `oneOf`. */
function compareAnyOf(
  ctx: CompareContext,
  o: Obj,
  n: Obj,
  kw: "anyOf" | "oneOf",
): Change[] {
  const ho = Object.hasOwn(o, kw), hn = Object.hasOwn(n, kw);
  if (!ho && !hn) return [];
  const bo = (o[kw] ?? []) as unknown[], bn = (n[kw] ?? []) as unknown[];
  if (!ho) {
    if (kw === "anyOf" && bn.some(isTriviallyTrue)) {
      return [
        change(
          [kw],
          "rewritten",
          "patch",
          `${kw} added with a branch that accepts anything`,
        ),
      ];
    }
    return [change(
      [kw],
      "constraint-added",
      "major",
      `${kw} added: callers that send values matching ${
        kw === "anyOf" ? "none" : "none or several"
      } of its ${bn.length} branches are now rejected`,
    )];
  }
  if (!hn) {
    return [change(
      [kw],
      "constraint-removed",
      "minor",
      `${kw} removed: callers no longer need to match one of its branches`,
    )];
  }
  const out: Change[] = [];
  // Pair each old branch with the new branch that covers it: an identical one first, then the
  // nearest (by position) whose comparison shows nothing major.
  const cover: (number | undefined)[] = bo.map(() => undefined);
  const coverChanges: Change[][] = bo.map(() => []);
  const same = new Set<number>();
  bo.forEach((a, i) => {
    const order = bn.map((_, j) => j).sort((x, y) => Math.abs(x - i) - Math.abs(y - i) || x - y);
    for (const j of order) {
      if (!same.has(j) && ctx.compare(a, bn[j]).length === 0) {
        cover[i] = j;
        same.add(j);
        return;
      }
    }
  });
  bo.forEach((a, i) => {
    if (cover[i] !== undefined) return;
    const order = bn.map((_, j) => j).filter((j) => !same.has(j)).sort((x, y) =>
      Math.abs(x - i) - Math.abs(y - i) || x - y
    );
    for (const j of order) {
      const r = ctx.compare(a, bn[j]);
      if (!hasMajor(r)) {
        cover[i] = j;
        coverChanges[i] = r;
        return;
      }
    }
  });
  const used = new Set<number>();
  bo.forEach((a, i) => {
    const j = cover[i];
    if (j !== undefined) {
      used.add(j);
      out.push(...under([kw, j], coverChanges[i]));
      return;
    }
    // Uncovered: report against the branch at the same position if it is not taken, else as removed.
    if (i < bn.length && !same.has(i) && !cover.includes(i)) {
      used.add(i);
      out.push(...under([kw, i], ctx.compare(a, bn[i])));
    } else {
      out.push(change(
        [kw, i],
        "branch-removed",
        "major",
        `${kw} branch ${i} removed: callers that send values only it accepted are now rejected`,
      ));
    }
  });
  bn.forEach((_, j) => {
    if (!used.has(j)) {
      out.push(change(
        [kw, j],
        "branch-added",
        "minor",
        `${kw} branch ${j} added: callers may now send values it accepts`,
      ));
    }
  });
  if (kw === "oneOf") {
    out.push(...oneOfOverlaps(ctx, bn, cover, coverChanges, same));
  }
  return out;
}

/**
 * A `oneOf` rejects a value that matches two branches. An old value matched exactly one old
 * branch; it still does when every new branch that was added or widened is provably disjoint
 * from every other new branch.
 */
function oneOfOverlaps(
  ctx: CompareContext,
  bn: unknown[],
  cover: (number | undefined)[],
  coverChanges: Change[][],
  same: Set<number>,
): Change[] {
  const out: Change[] = [];
  const grown = new Set<number>();
  bn.forEach((_, j) => {
    if (same.has(j)) return;
    const covering = cover.map((c, i) => (c === j ? i : -1)).filter((i) => i !== -1);
    // Added (covers no old branch), widened, or covering several old branches: a oneOf branch
    // is a non-monotone position, so only a branch with exactly its old values is safe as is.
    const changed = covering.length !== 1 ||
      !coverChanges[covering[0]].every(keepsValues);
    if (changed) grown.add(j);
  });
  for (const j of grown) {
    const other = bn.findIndex((b, k) => k !== j && !provablyDisjoint(ctx.new, bn[j], b));
    if (other !== -1) {
      out.push(change(
        ["oneOf", j],
        "undecidable",
        "major",
        `oneOf branch ${j} is new or accepts more and is not provably disjoint from branch ${other}: callers whose values now match both are rejected`,
      ));
    }
  }
  return out;
}

function compareNot(ctx: CompareContext, o: Obj, n: Obj): Change[] {
  const ho = Object.hasOwn(o, "not"), hn = Object.hasOwn(n, "not");
  if (!ho && !hn) return [];
  if (!ho) {
    return [change(
      ["not"],
      "constraint-added",
      "major",
      "not added: callers that send values matching it are now rejected",
    )];
  }
  if (!hn) {
    return [change(
      ["not"],
      "constraint-removed",
      "minor",
      "not removed: callers may now send values matching it",
    )];
  }
  // `not` is antitone: a subschema that accepts more makes the root accept less.
  return nonMonotone(
    ["not"],
    ctx.compare(o.not, n.not),
    "not changed: a subschema under not that accepts different values rejects different values, so callers may be affected",
  );
}

function compareConditional(ctx: CompareContext, o: Obj, n: Obj): Change[] {
  const ho = Object.hasOwn(o, "if"), hn = Object.hasOwn(n, "if");
  const thenO = o.then ?? true,
    elseO = o.else ?? true,
    thenN = n.then ?? true,
    elseN = n.else ?? true;
  const inert = (t: unknown, e: unknown) => isTriviallyTrue(t) && isTriviallyTrue(e);
  if (!ho && !hn) {
    if (jsonEqual(o.then, n.then) && jsonEqual(o.else, n.else)) return [];
    return [
      change(
        ["then"],
        "rewritten",
        "patch",
        "then/else changed, which has no effect without if",
      ),
    ];
  }
  if (!ho) {
    if (inert(thenN, elseN)) return [];
    return [change(
      ["if"],
      "constraint-added",
      "major",
      "if/then/else added: callers that send values failing the branch that applies are now rejected",
    )];
  }
  if (!hn) {
    if (inert(thenO, elseO)) return [];
    return [change(
      ["if"],
      "constraint-removed",
      "minor",
      "if/then/else removed: callers no longer need to satisfy then or else",
    )];
  }
  // `if` is non-monotone (it decides which of then/else applies); then and else are monotone.
  const ifChanges = ctx.compare(o.if, n.if);
  if (ifChanges.every(keepsValues)) {
    return [
      ...under(["if"], ifChanges),
      ...under(["then"], ctx.compare(thenO, thenN)),
      ...under(["else"], ctx.compare(elseO, elseN)),
    ];
  }
  if (inert(thenN, elseN)) {
    return [
      change(
        ["if"],
        "constraint-removed",
        "minor",
        "if changed and then/else accept anything",
      ),
    ];
  }
  return [change(
    ["if"],
    "undecidable",
    "major",
    "if changed: the classifier does not decide which values now take the then or else branch, so callers may be affected",
  )];
}

/**
 * Rewrites between combinators that a keyword-by-keyword comparison would call major although
 * they only widen, or keep the accepted values:
 *
 * - `oneOf` → `anyOf` (old side): a value that matches exactly one branch matches at least one,
 *   so the old schema with its `oneOf` read as `anyOf` accepts at least as much. Comparing that
 *   reading with the new schema is sound; it is exact (`patch`) when the old branches are
 *   provably pairwise disjoint, else the rewrite itself is `minor`.
 * - `oneOf` whose branches are provably pairwise disjoint (new side): it accepts exactly what the
 *   same branches under `anyOf` accept, so it is compared as that `anyOf`.
 * - wrapping (`X` → `anyOf: [X, Y]`): the new schema is its siblings and one of its branches; if
 *   the old schema is included in (siblings ∧ branch i) for some `i`, it is included in the new
 *   schema. The other branches are `branch-added` (`minor`).
 *
 * Every result that accepts more is `minor`, never `patch`, so the callers in non-monotone places
 * (`not`, `if`, a `oneOf` branch, `contains` with `maxContains`) turn it into `undecidable` through
 * {@linkcode nonMonotone}. With `unevaluatedProperties`/`unevaluatedItems` beside the combinator
 * the rewrite changes which members count as evaluated: it stays `undecidable` there.
 *
 * @returns The changes, or undefined when no such rewrite applies.
 */
export function compareRewrapped(
  ctx: CompareContext,
  o: Obj,
  n: Obj,
): Change[] | undefined {
  const wraps = Array.isArray(n.anyOf) && !Object.hasOwn(o, "anyOf");
  const oneToAny = Array.isArray(o.oneOf) && !Object.hasOwn(o, "anyOf") &&
    Array.isArray(n.anyOf) && !Object.hasOwn(n, "oneOf");
  const disjointNew = Array.isArray(n.oneOf) && !Object.hasOwn(n, "anyOf") &&
    !Object.hasOwn(o, "oneOf") && pairwiseDisjoint(ctx.new, n.oneOf as unknown[]);
  if (!wraps && !oneToAny && !disjointNew) return undefined;
  if (UNEVALUATED.some((k) => Object.hasOwn(o, k) || Object.hasOwn(n, k))) {
    return [change(
      [],
      "undecidable",
      "major",
      "anyOf/oneOf rewritten beside unevaluatedProperties or unevaluatedItems, which then see other members as evaluated: callers may be affected",
    )];
  }
  const out: Change[] = [];
  let ns = n;
  if (disjointNew) {
    out.push(change(
      ["oneOf"],
      "rewritten",
      "patch",
      "oneOf branches are provably disjoint, so it accepts what anyOf over them accepts",
    ));
    ns = { ...n, anyOf: n.oneOf };
    delete ns.oneOf;
  }
  // The new keyword's name, for paths into its branches.
  const kw = disjointNew ? "oneOf" : "anyOf";
  if (!Object.hasOwn(o, "anyOf")) {
    const wrapped = compareWrapped(ctx, o, ns, kw);
    if (wrapped) return [...out, ...wrapped];
  }
  if (Object.hasOwn(o, "anyOf") && disjointNew) {
    // anyOf → oneOf over disjoint branches: anyOf against anyOf, reported at the new oneOf.
    return [...out, ...atOneOf(ctx.compare(o, ns))];
  }
  if (!oneToAny) return undefined;
  const exact = pairwiseDisjoint(ctx.old, o.oneOf as unknown[]);
  out.push(
    exact
      ? change(
        ["oneOf"],
        "rewritten",
        "patch",
        "oneOf became anyOf; its branches are provably disjoint, so no value matched several and the same values are accepted",
      )
      : change(
        ["oneOf"],
        "constraint-removed",
        "minor",
        "oneOf became anyOf: callers may now send values that match several branches",
      ),
  );
  const os: Obj = { ...o, anyOf: o.oneOf };
  delete os.oneOf;
  return [...out, ...ctx.compare(os, ns)];
}

/**
 * `o` against `n` = siblings ∧ anyOf(branches): the changes against the branch (merged with the
 * siblings) that covers `o` with the fewest changes of values, and every other branch as added;
 * undefined when no branch covers `o`.
 */
function compareWrapped(ctx: CompareContext, o: Obj, n: Obj, kw: string): Change[] | undefined {
  const branches = n.anyOf as unknown[];
  let best: { i: number; changes: Change[]; cost: number } | undefined;
  branches.forEach((b, i) => {
    const alone = ctx.new.unwrapSingleBranch({ ...n, anyOf: [b] }, "anyOf");
    if (alone === undefined) return;
    const r = ctx.compare(o, alone);
    if (hasMajor(r)) return;
    const cost = r.filter((c) => !keepsValues(c)).length;
    if (!best || cost < best.cost) best = { i, changes: r, cost };
  });
  if (!best) return undefined;
  const { i, changes } = best;
  const out = under([kw, i], changes);
  branches.forEach((_, j) => {
    if (j === i) return;
    out.push(change(
      [kw, j],
      "branch-added",
      "minor",
      `${kw} added around the old schema (now branch ${i}) with branch ${j}: callers may now send values branch ${j} accepts`,
    ));
  });
  return out;
}

const UNEVALUATED = ["unevaluatedProperties", "unevaluatedItems"];

/** Whether every two of `branches` provably accept no common value. */
function pairwiseDisjoint(side: CompareContext["old"], branches: unknown[]): boolean {
  for (let i = 0; i < branches.length; i++) {
    for (let j = i + 1; j < branches.length; j++) {
      if (!provablyDisjoint(side, branches[i], branches[j])) return false;
    }
  }
  return true;
}

/** Changes under `anyOf` moved under `oneOf`, the keyword the new schema uses. */
function atOneOf(changes: Change[]): Change[] {
  return changes.map((c) =>
    c.segs[0] === "anyOf" ? { ...c, segs: ["oneOf", ...c.segs.slice(1)] } : c
  );
}
