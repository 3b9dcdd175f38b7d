/**
 * Compares the object keywords of two subschemas. A property is "named" by `properties` or
 * `required`; callers rely on named properties, so removing one is major and adding an optional
 * one minor. Properties the schema does not name are governed by `patternProperties` and
 * `additionalProperties`; rejecting them where they were accepted is major.
 */
import { jsonEqual } from "../schema/json_equal.ts";
import { compilePattern } from "../schema/safe_pattern.ts";
import { isObject } from "../_object.ts";
import type { PathSegment } from "../schema/types.ts";
import { compareStrings } from "../schema/path.ts";
import { type Change, change, hasMajor, show, showList, topBump, under } from "./_change.ts";
import { compareCounts } from "./_compare_scalar.ts";
import type { CompareContext } from "./_context.ts";
import type { Step } from "./_places.ts";
import { isTriviallyTrue } from "./_schema_facts.ts";

type Obj = Record<string, unknown>;

function propsOf(s: Obj): Obj {
  return isObject(s.properties) ? s.properties : {};
}

function patternsOf(s: Obj): Obj {
  return isObject(s.patternProperties) ? s.patternProperties : {};
}

function requiredOf(s: Obj): Set<string> {
  return new Set(
    Array.isArray(s.required) ? s.required.filter((k): k is string => typeof k === "string") : [],
  );
}

function additionalOf(s: Obj): unknown {
  return Object.hasOwn(s, "additionalProperties") ? s.additionalProperties : true;
}

/** Whether a `patternProperties` pattern matches a name; a pattern that cannot run matches. */
function matches(pattern: string, name: string): boolean {
  const c = compilePattern(pattern);
  return !c.ok || c.pattern.test(name);
}

/** The subschemas a property's value must satisfy (all of them). */
function governing(s: Obj, name: string): unknown[] {
  const out: unknown[] = [];
  const props = propsOf(s);
  const named = Object.hasOwn(props, name);
  if (named) out.push(props[name]);
  let matched = false;
  const pats = patternsOf(s);
  for (const p of Object.keys(pats)) {
    if (matches(p, name)) {
      out.push(pats[p]);
      matched = true;
    }
  }
  if (!named && !matched) out.push(additionalOf(s));
  return out;
}

/**
 * Compares two conjunctions of subschemas that apply to the same member: identical members
 * cancel, the rest pair up in order, and an unpaired member is compared with `true`. Each new
 * member is then implied by an old one.
 */
export function compareConjunction(
  ctx: CompareContext,
  os: unknown[],
  ns: unknown[],
  step: Step,
): Change[] {
  if (os.length === 1 && ns.length === 1) {
    return ctx.compare(os[0], ns[0], step);
  }
  const restO = [...os];
  const restN: unknown[] = [];
  for (const b of ns) {
    const i = restO.findIndex((a) => jsonEqual(a, b) && ctx.compare(a, b, step).length === 0);
    if (i === -1) restN.push(b);
    else restO.splice(i, 1);
  }
  const out: Change[] = [];
  for (let i = 0; i < Math.max(restO.length, restN.length); i++) {
    out.push(
      ...ctx.compare(
        i < restO.length ? restO[i] : true,
        i < restN.length ? restN[i] : true,
        step,
      ),
    );
  }
  return out;
}

function malformed(o: Obj, n: Obj): Change[] {
  const out: Change[] = [];
  const shapes: [string, (v: unknown) => boolean][] = [
    ["properties", isObject],
    ["patternProperties", isObject],
    [
      "required",
      (v) => Array.isArray(v) && v.every((x) => typeof x === "string"),
    ],
    ["dependentRequired", isObject],
    ["dependentSchemas", isObject],
    ["dependencies", isObject],
  ];
  for (const [kw, ok] of shapes) {
    const bad = [o, n].some((s) => Object.hasOwn(s, kw) && !ok(s[kw]));
    if (bad && !jsonEqual(o[kw], n[kw])) {
      out.push(change(
        [kw],
        "undecidable",
        "major",
        `${kw} changed in a form the classifier does not understand: callers may be affected`,
      ));
    }
  }
  return out;
}

/** The object keywords of a pair of subschemas. */
export function compareObject(ctx: CompareContext, o: Obj, n: Obj): Change[] {
  const out = malformed(o, n);
  out.push(...compareNamed(ctx, o, n));
  out.push(...compareUnnamed(ctx, o, n));
  if (
    !jsonEqual(o.propertyNames, n.propertyNames) ||
    o.propertyNames !== undefined
  ) {
    out.push(
      ...under(
        ["propertyNames"],
        ctx.compare(
          o.propertyNames ?? true,
          n.propertyNames ?? true,
          "property-name",
        ),
      ),
    );
  }
  out.push(...compareDependencies(ctx, o, n));
  out.push(...compareCounts(o, n, "minProperties", "maxProperties", {
    under: (k) => `objects with fewer than ${k} properties`,
    over: (k) => `objects with more than ${k} properties`,
  }));
  return out;
}

/** Properties named by `properties` or `required` on either side. */
function compareNamed(ctx: CompareContext, o: Obj, n: Obj): Change[] {
  const out: Change[] = [];
  const po = propsOf(o), pn = propsOf(n);
  const ro = requiredOf(o), rn = requiredOf(n);
  const names = [
    ...new Set([...Object.keys(po), ...ro, ...Object.keys(pn), ...rn]),
  ].sort(
    compareStrings,
  );
  for (const name of names) {
    const at = ["properties", name];
    const step: Step = { member: name };
    const inO = Object.hasOwn(po, name), inN = Object.hasOwn(pn, name);
    const namedO = inO || ro.has(name), namedN = inN || rn.has(name);
    if (inO && !namedN) {
      out.push(...propertyRemoved(ctx, o, n, name));
      continue;
    }
    if (!namedO) {
      if (rn.has(name)) {
        out.push(change(
          at,
          "required-added",
          "major",
          `added required property ${name}: callers that omit it are now rejected`,
        ));
        continue;
      } else if (!ctx.relies(name)) {
        out.push(change(
          at,
          "property-added",
          "minor",
          `added optional property ${name}: callers may now send it`,
        ));
        continue;
      } else {
        // Callers may already send it: another subschema at this place names it (or a pattern
        // matches it), or every value counts. What governed it here before is compared with
        // what governs it now.
        const inner = compareConjunction(
          ctx,
          governing(o, name),
          governing(n, name),
          step,
        );
        out.push(propertyAddedWhereRelied(ctx, at, name, inner));
        out.push(...under(at, inner));
        continue;
      }
    }
    if (ro.has(name) && !rn.has(name)) {
      out.push(change(
        at,
        "required-removed",
        "minor",
        `property ${name} is no longer required: callers may now omit it`,
      ));
    } else if (!ro.has(name) && rn.has(name)) {
      out.push(change(
        at,
        "required-added",
        "major",
        `property ${name} is now required: callers that omit it are now rejected`,
      ));
    }
    out.push(
      ...under(
        at,
        compareConjunction(ctx, governing(o, name), governing(n, name), step),
      ),
    );
  }
  if (
    !jsonEqual(o.required, n.required) && ro.size === rn.size &&
    [...ro].every((k) => rn.has(k))
  ) {
    out.push(change(
      ["required"],
      "required-reordered",
      "patch",
      "required lists the same properties in another order",
    ));
  }
  return out;
}

/**
 * A property the old subschema named in `properties` and the new one does not name at all. Under
 * the named-property contract that is major: callers that send it lose what it meant. Where every
 * value counts (outputs, `contains`), it is what governs the property now against what governed
 * it before.
 */
function propertyRemoved(
  ctx: CompareContext,
  o: Obj,
  n: Obj,
  name: string,
): Change[] {
  const at = ["properties", name];
  const nowGoverning = governing(n, name);
  if (ctx.strict()) {
    const inner = compareConjunction(ctx, governing(o, name), nowGoverning, {
      member: name,
    });
    const bump = topBump(inner);
    const out = [
      change(
        at,
        "property-removed",
        bump,
        bump === "major"
          ? `removed property ${name}: values of it that were accepted may now be rejected`
          : `removed property ${name}: what governs it now accepts every value it accepted`,
      ),
      ...under(at, inner),
    ];
    if (requiredOf(o).has(name)) {
      out.push(change(
        at,
        "required-removed",
        "minor",
        `property ${name} is no longer required: callers may now omit it`,
      ));
    }
    return out;
  }
  const rejected = nowGoverning.some((s) => s === false);
  return [change(
    at,
    "property-removed",
    "major",
    rejected
      ? `removed property ${name}: callers that send it are now rejected`
      : `removed property ${name}: callers that send it can no longer rely on it being understood`,
  )];
}

/** The line for an optional property added where callers may already send it. */
function propertyAddedWhereRelied(
  ctx: CompareContext,
  at: PathSegment[],
  name: string,
  inner: Change[],
): Change {
  const bump = topBump(inner);
  const what = ctx.strict()
    ? `added property ${name}`
    : `added property ${name}, which another subschema at the same place already names`;
  return change(
    at,
    "property-added",
    bump,
    bump === "major"
      ? `${what}: callers that send values of it that it rejects are now rejected`
      : `${what}; it accepts every value of it accepted there before`,
  );
}

/** `patternProperties` and `additionalProperties`: what governs properties the schema does not name. */
function compareUnnamed(ctx: CompareContext, o: Obj, n: Obj): Change[] {
  const out: Change[] = [];
  const pso = patternsOf(o), psn = patternsOf(n);
  const ao = additionalOf(o), an = additionalOf(n);
  const keysO = Object.keys(pso), keysN = Object.keys(psn);
  for (const p of [...new Set([...keysO, ...keysN])].sort(compareStrings)) {
    const at = ["patternProperties", p];
    const inO = Object.hasOwn(pso, p), inN = Object.hasOwn(psn, p);
    if (inO && inN) {
      out.push(...under(at, ctx.compare(pso[p], psn[p], "unnamed-member")));
    } else if (inN) {
      // Unnamed properties matching p were governed by the old additionalProperties.
      const safe = isTriviallyTrue(psn[p]) ||
        (keysO.length === 0 &&
          (ao === false ||
            !hasMajor(ctx.compare(ao, psn[p], "unnamed-member"))));
      out.push(
        safe
          ? change(
            at,
            "additional-properties-widened",
            "minor",
            `pattern property ${show(p)} added: callers may now send properties matching it`,
          )
          : change(
            at,
            "undecidable",
            "major",
            `pattern property ${
              show(p)
            } added: callers that send unnamed properties matching it may now be rejected`,
          ),
      );
    } else {
      // Unnamed properties matching p fall to the new additionalProperties.
      const safe = isTriviallyTrue(an) ||
        (keysN.length === 0 &&
          !hasMajor(ctx.compare(pso[p], an, "unnamed-member")));
      out.push(
        safe
          ? change(
            at,
            "additional-properties-widened",
            "minor",
            `pattern property ${show(p)} removed: callers may now send more properties matching it`,
          )
          : change(
            at,
            "undecidable",
            "major",
            `pattern property ${
              show(p)
            } removed: callers that send unnamed properties matching it may now be rejected`,
          ),
      );
    }
  }
  const inner = ctx.compare(ao, an, "unnamed-member");
  if (inner.length === 0) return out;
  if (an === false && ao !== false) {
    out.push(change(
      ["additionalProperties"],
      "additional-properties-narrowed",
      "major",
      "additionalProperties set to false: callers that send properties the schema does not name are now rejected",
    ));
  } else if (ao === false && an !== false) {
    out.push(change(
      ["additionalProperties"],
      "additional-properties-widened",
      "minor",
      "additionalProperties no longer false: callers may now send properties the schema does not name",
    ));
  } else {
    out.push(...under(["additionalProperties"], inner));
  }
  return out;
}

interface Deps {
  names: Map<string, { names: string[]; kw: string }>;
  schemas: Map<string, { schema: unknown; kw: string }>;
}

function depsOf(s: Obj): Deps {
  const out: Deps = { names: new Map(), schemas: new Map() };
  for (const kw of ["dependencies", "dependentRequired", "dependentSchemas"]) {
    const d = s[kw];
    if (!isObject(d)) continue;
    for (const [k, v] of Object.entries(d)) {
      if (Array.isArray(v) && kw !== "dependentSchemas") {
        const prev = out.names.get(k)?.names ?? [];
        out.names.set(k, {
          names: [...prev, ...v.filter((x) => typeof x === "string")],
          kw,
        });
      } else if (
        kw !== "dependentRequired" && (typeof v === "boolean" || isObject(v))
      ) {
        out.schemas.set(k, { schema: v, kw });
      }
    }
  }
  return out;
}

/** `dependentRequired`, `dependentSchemas` and draft-07 `dependencies`. */
function compareDependencies(ctx: CompareContext, o: Obj, n: Obj): Change[] {
  const out: Change[] = [];
  const dO = depsOf(o), dN = depsOf(n);
  for (
    const k of [...new Set([...dO.names.keys(), ...dN.names.keys()])].sort(
      compareStrings,
    )
  ) {
    const a = dO.names.get(k), b = dN.names.get(k);
    const at = [b?.kw ?? a!.kw, k];
    const before = new Set(a?.names ?? []), after = new Set(b?.names ?? []);
    const added = [...after].filter((x) => !before.has(x));
    const removed = [...before].filter((x) => !after.has(x));
    if (added.length) {
      out.push(change(
        at,
        "dependency-added",
        "major",
        `callers that send ${k} must now also send ${
          showList(added)
        }: callers that do not are now rejected`,
        {
          check: { dependentRequired: { [k]: [...after] } },
          narrows: !removed.length,
        },
      ));
    }
    if (removed.length) {
      out.push(change(
        at,
        "dependency-removed",
        "minor",
        `callers that send ${k} no longer need to send ${showList(removed)}`,
      ));
    }
    if (
      !added.length && !removed.length &&
      (a?.kw !== b?.kw || !jsonEqual(a?.names, b?.names))
    ) {
      out.push(
        change(
          at,
          "rewritten",
          "patch",
          `dependency of ${k} written differently`,
        ),
      );
    }
  }
  for (
    const k of [...new Set([...dO.schemas.keys(), ...dN.schemas.keys()])].sort(
      compareStrings,
    )
  ) {
    const a = dO.schemas.get(k), b = dN.schemas.get(k);
    const at = [b?.kw ?? a!.kw, k];
    if (a && b) {
      out.push(...under(at, ctx.compare(a.schema, b.schema)));
    } else if (b) {
      out.push(
        isTriviallyTrue(b.schema)
          ? change(
            at,
            "rewritten",
            "patch",
            `dependent schema for ${k} added, accepting anything`,
          )
          : change(
            at,
            "dependency-added",
            "major",
            `dependent schema for ${k} added: callers that send ${k} must now also satisfy it`,
          ),
      );
    } else if (a) {
      out.push(change(
        at,
        "dependency-removed",
        "minor",
        `dependent schema for ${k} removed: callers that send ${k} no longer need to satisfy it`,
      ));
    }
  }
  return out;
}
