/**
 * Compares the value keywords of two subschemas: `type`, `enum`/`const`, numeric bounds and
 * `multipleOf`, and the string keywords. Paths are relative to the subschema (e.g. `["maximum"]`).
 */
import { jsonEqual } from "../schema/json_equal.ts";
import { integerStep, isMultipleOf } from "../schema/decimal.ts";
import type { JsonSchema } from "../schema/types.ts";
import { type Change, change, show, showList } from "./_change.ts";
import type { OldFacts } from "./_context.ts";
import { finiteDomain, kindNames, typeKeywordKinds, type ValueKind } from "./_schema_facts.ts";

type Obj = Record<string, unknown>;

function undecidable(keyword: string, o: Obj, n: Obj): Change {
  return change(
    [keyword],
    "undecidable",
    "major",
    `${keyword} changed from ${show(o[keyword])} to ${
      show(n[keyword])
    } in a form the classifier does not understand: callers may be affected`,
  );
}

function article(name: string): string {
  return /^[aeiou]/.test(name) ? `an ${name}` : `a ${name}`;
}

/** `type`: kinds the new `type` rejects that the old schema may accept, and kinds it adds. */
export function compareType(o: Obj, n: Obj, facts: OldFacts): Change[] {
  if (jsonEqual(o.type, n.type)) return [];
  const all: ValueKind[] = [
    "null",
    "boolean",
    "integer",
    "fraction",
    "string",
    "array",
    "object",
  ];
  const ko = o.type === undefined ? new Set(all) : typeKeywordKinds(o.type);
  const kn = n.type === undefined ? new Set(all) : typeKeywordKinds(n.type);
  if (!ko || !kn) return [undecidable("type", o, n)];
  const lost = [...facts.kinds].filter((c) => !kn.has(c));
  const gained = [...kn].filter((c) => !ko.has(c));
  const out: Change[] = [];
  const check: JsonSchema = n.type === undefined ? true : { type: n.type };
  if (lost.length) {
    const message = lost.length === 1 && lost[0] === "fraction" && kn.has("integer")
      ? "type narrowed from number to integer: callers that send fractional numbers such as 1.5 are now rejected"
      : `type no longer allows ${kindNames(lost).join(", ")}: callers that send ${
        kindNames(lost).map(article).join(" or ")
      } are now rejected`;
    out.push(
      change(["type"], "type-narrowed", "major", message, {
        check,
        narrows: !gained.length,
      }),
    );
  }
  if (gained.length) {
    const message = gained.length === 1 && gained[0] === "fraction" && ko.has("integer")
      ? "type widened from integer to number: callers may now send fractional numbers"
      : `type now also allows ${kindNames(gained).join(", ")}: callers may now send ${
        kindNames(gained).map(article).join(" or ")
      }`;
    out.push(change(["type"], "type-widened", "minor", message));
  }
  if (!out.length) {
    const narrower = [...ko].some((c) => !kn.has(c));
    out.push(
      narrower
        ? change(
          ["type"],
          "type-narrowed",
          "patch",
          `type restricted to ${show(n.type)}; no value the old schema accepts is affected`,
        )
        : change(
          ["type"],
          "rewritten",
          "patch",
          `type written as ${show(n.type)} instead of ${show(o.type)}; it allows the same values`,
        ),
    );
  }
  return out;
}

/** `enum` and `const`, compared as the finite sets of values they allow. */
export function compareEnum(o: Obj, n: Obj, facts: OldFacts): Change[] {
  if (jsonEqual(o.enum, n.enum) && jsonEqual(o.const, n.const)) return [];
  for (const s of [o, n]) {
    if (Object.hasOwn(s, "enum") && !Array.isArray(s.enum)) {
      return [undecidable("enum", o, n)];
    }
  }
  const domO = finiteDomain(o), domN = finiteDomain(n);
  const nConst = Object.hasOwn(n, "const"), oConst = Object.hasOwn(o, "const");
  const at = nConst ? "const" : Object.hasOwn(n, "enum") ? "enum" : oConst ? "const" : "enum";
  const narrowKind = nConst ? "const-changed" : "enum-narrowed";
  const has = (d: unknown[], v: unknown) => d.some((w) => jsonEqual(v, w));
  const out: Change[] = [];
  const check: JsonSchema = {
    ...(nConst ? { const: n.const } : {}),
    ...(Array.isArray(n.enum) ? { enum: n.enum } : {}),
  };
  if (domN) {
    const accepted = facts.domain;
    if (!accepted) {
      out.push(change(
        [at],
        narrowKind,
        "major",
        nConst && !Array.isArray(n.enum)
          ? `const ${show(n.const)} added: callers that send any other value are now rejected`
          : `enum added: callers that send values other than ${showList(domN)} are now rejected`,
        { narrows: true },
      ));
    } else {
      const rejected = accepted.filter((v) => !has(domN, v));
      if (rejected.length) {
        const message = nConst && oConst && domN.length === 1
          ? `const changed from ${show(o.const)} to ${show(n.const)}: callers that send ${
            show(o.const)
          } are now rejected`
          : `${at} no longer allows ${showList(rejected)}: callers that send ${
            rejected.length === 1 ? "it" : "them"
          } are now rejected`;
        const narrows = !!domO && domN.every((v) => has(domO, v));
        out.push(
          change([at], narrowKind, "major", message, { check, narrows }),
        );
      }
    }
  }
  if (domO && !domN) {
    out.push(change(
      [oConst ? "const" : "enum"],
      oConst ? "const-removed" : "enum-widened",
      "minor",
      `${oConst ? "const" : "enum"} removed: callers may now send other values`,
    ));
  } else if (domO && domN && (!(oConst && nConst) || !out.length)) {
    // Values the new enum/const allows that the old one did not — also when both keep the same
    // const and an enum beside it went away: {const: 1, enum: [2]} allowed nothing, {const: 1}
    // allows 1. (A changed const already reported as major needs no second line.)
    const added = domN.filter((v) => !has(domO, v));
    if (added.length) {
      out.push(change(
        [at],
        "enum-widened",
        "minor",
        `${at} now also allows ${showList(added)}: callers may now send ${
          added.length === 1 ? "it" : "them"
        }`,
      ));
    }
  }
  if (!out.length && domO && domN) {
    const same = domO.length === domN.length && domO.every((v) => has(domN, v));
    if (same) {
      out.push(
        oConst === nConst &&
          Object.hasOwn(o, "enum") === Object.hasOwn(n, "enum")
          ? change(
            ["enum"],
            "enum-reordered",
            "patch",
            "enum lists the same values in another order",
          )
          : change(
            [at],
            "rewritten",
            "patch",
            `${at} written differently; it allows the same values`,
          ),
      );
    } else {
      out.push(change(
        [at],
        narrowKind,
        "patch",
        `${at} no longer lists ${
          showList(domO.filter((v) => !has(domN, v)))
        }; no value the old schema accepts is affected`,
      ));
    }
  }
  return out;
}

interface Bound {
  value: number;
  exclusive: boolean;
  kw: string;
}

/** The tighter of a schema's inclusive and exclusive bound on one side. */
function boundOf(s: Obj, side: "lower" | "upper"): Bound | undefined {
  const [inc, exc] = side === "lower"
    ? ["minimum", "exclusiveMinimum"]
    : ["maximum", "exclusiveMaximum"];
  const a = typeof s[inc] === "number"
    ? { value: s[inc] as number, exclusive: false, kw: inc }
    : undefined;
  const b = typeof s[exc] === "number"
    ? { value: s[exc] as number, exclusive: true, kw: exc }
    : undefined;
  if (!a || !b) return a ?? b;
  const sign = side === "lower" ? 1 : -1;
  if (a.value * sign > b.value * sign) return a;
  return b;
}

/** A bound as an inclusive integer (for integer-only schemas). */
function integerBound(b: Bound, side: "lower" | "upper"): number {
  if (side === "lower") {
    return b.exclusive ? Math.floor(b.value) + 1 : Math.ceil(b.value);
  }
  return b.exclusive ? Math.ceil(b.value) - 1 : Math.floor(b.value);
}

/** Compares two bounds on one side: > 0 when the new one is tighter, < 0 when looser. */
function tightness(
  bo: Bound | undefined,
  bn: Bound | undefined,
  side: "lower" | "upper",
  integerOnly: boolean,
): number {
  if (!bo && !bn) return 0;
  if (!bo) return 1;
  if (!bn) return -1;
  const sign = side === "lower" ? 1 : -1;
  if (integerOnly) {
    return sign * (integerBound(bn, side) - integerBound(bo, side));
  }
  if (bn.value !== bo.value) return sign * (bn.value - bo.value);
  return Number(bn.exclusive) - Number(bo.exclusive);
}

function describe(b: Bound): string {
  return `${b.kw} ${b.value}`;
}

function numericBound(
  o: Obj,
  n: Obj,
  side: "lower" | "upper",
  facts: OldFacts,
): Change[] {
  const [inc, exc] = side === "lower"
    ? ["minimum", "exclusiveMinimum"]
    : ["maximum", "exclusiveMaximum"];
  if (o[inc] === n[inc] && o[exc] === n[exc]) return [];
  for (const k of [inc, exc]) {
    for (const s of [o, n]) {
      if (s[k] !== undefined && typeof s[k] !== "number") {
        return [undecidable(k, o, n)];
      }
    }
  }
  const bo = boundOf(o, side), bn = boundOf(n, side);
  const t = tightness(bo, bn, side, facts.integerOnly);
  const at = [bn?.kw ?? bo!.kw];
  const check: JsonSchema = Object.fromEntries(
    [inc, exc].filter((k) => n[k] !== undefined).map((k) => [k, n[k]]),
  );
  const word = side === "lower" ? "lower" : "upper";
  if (t > 0) {
    const rejects = side === "lower"
      ? bn!.exclusive ? `${bn!.value} or less` : `values below ${bn!.value}`
      : bn!.exclusive
      ? `${bn!.value} or more`
      : `values above ${bn!.value}`;
    const what = bo
      ? `${word} bound tightened from ${describe(bo)} to ${describe(bn!)}`
      : `${describe(bn!)} added`;
    return [
      change(
        at,
        "bound-tightened",
        "major",
        `${what}: callers that send ${rejects} are now rejected`,
        // Tighter on integers is tighter on every number: the bound only moved inwards.
        { check, narrows: true },
      ),
    ];
  }
  if (t < 0) {
    const what = bn
      ? `${word} bound loosened from ${describe(bo!)} to ${describe(bn)}`
      : `${describe(bo!)} removed`;
    return [
      change(
        at,
        "bound-loosened",
        "minor",
        `${what}: callers may now send ${side === "lower" ? "smaller" : "larger"} values`,
      ),
    ];
  }
  if (
    facts.integerOnly && !facts.newIntegerOnly &&
    tightness(bo, bn, side, false) < 0
  ) {
    // The same integers pass, but the new schema accepts fractions, and more of them.
    return [
      change(
        at,
        "bound-loosened",
        "minor",
        `${word} bound written as ${bn ? describe(bn) : "none"} instead of ${
          bo ? describe(bo) : "none"
        }: it allows the same integers, and callers may now send more fractional numbers`,
      ),
    ];
  }
  return [
    change(
      at,
      "rewritten",
      "patch",
      `${word} bound written as ${bn ? describe(bn) : "none"} instead of ${
        bo ? describe(bo) : "none"
      }; ${facts.integerOnly ? "for integers " : ""}it allows the same values`,
    ),
  ];
}

/** `minimum`, `maximum`, `exclusiveMinimum`, `exclusiveMaximum` and `multipleOf`. */
export function compareNumeric(o: Obj, n: Obj, facts: OldFacts): Change[] {
  const out = [
    ...numericBound(o, n, "lower", facts),
    ...numericBound(o, n, "upper", facts),
  ];
  if (o.multipleOf === n.multipleOf) return out;
  const valid = (m: unknown) => m === undefined || (typeof m === "number" && m > 0 && isFinite(m));
  if (!valid(o.multipleOf) || !valid(n.multipleOf)) {
    return [...out, undecidable("multipleOf", o, n)];
  }
  if (facts.integerOnly && facts.newIntegerOnly) {
    out.push(
      integerMultipleOf(
        o.multipleOf as number | undefined,
        n.multipleOf as number | undefined,
      ),
    );
    return out;
  }
  const mo = (o.multipleOf as number | undefined) ??
    (facts.integerOnly ? 1 : undefined);
  const mn = n.multipleOf as number | undefined;
  if (mn === undefined) {
    out.push(change(
      ["multipleOf"],
      "bound-loosened",
      "minor",
      `multipleOf ${o.multipleOf} removed: callers may now send other numbers`,
    ));
  } else if (mo === undefined || !isMultipleOf(mo, mn)) {
    out.push(change(
      ["multipleOf"],
      "bound-tightened",
      "major",
      `${
        o.multipleOf === undefined
          ? `multipleOf ${mn} added`
          : `multipleOf changed from ${o.multipleOf} to ${mn}`
      }: callers that send numbers that are not multiples of ${mn} are now rejected`,
      {
        check: { multipleOf: mn },
        narrows: mo === undefined || isMultipleOf(mn, mo),
      },
    ));
  } else if (o.multipleOf === undefined) {
    out.push(change(
      ["multipleOf"],
      "bound-tightened",
      "patch",
      `multipleOf ${mn} added; every integer is a multiple of it, so no value the old schema accepts is affected`,
    ));
  } else if (mo === mn) {
    out.push(
      change(
        ["multipleOf"],
        "rewritten",
        "patch",
        "multipleOf written differently",
      ),
    );
  } else {
    out.push(change(
      ["multipleOf"],
      "bound-loosened",
      "minor",
      `multipleOf changed from ${o.multipleOf} to ${mn}, which divides it: callers may now send more numbers`,
    ));
  }
  return out;
}

/**
 * `multipleOf` where both schemas accept only integers: the integers that are multiples of `p/q`
 * (in lowest terms) are the multiples of `p`, so `1.5` and `3` accept the same values.
 */
function integerMultipleOf(
  mo: number | undefined,
  mn: number | undefined,
): Change {
  const so = integerStep(mo ?? 1), sn = integerStep(mn ?? 1);
  const what = mo === undefined
    ? `multipleOf ${mn} added`
    : mn === undefined
    ? `multipleOf ${mo} removed`
    : `multipleOf changed from ${mo} to ${mn}`;
  if (so === sn) {
    return change(
      ["multipleOf"],
      "rewritten",
      "patch",
      `${what}; on integers both accept the multiples of ${so}, the same values`,
    );
  }
  if (so % sn === 0n) {
    return change(
      ["multipleOf"],
      "bound-loosened",
      "minor",
      `${what}: callers may now send integers that are multiples of ${sn} but not of ${so}`,
    );
  }
  return change(
    ["multipleOf"],
    "bound-tightened",
    "major",
    `${what}: callers that send integers that are not multiples of ${sn} are now rejected`,
    { check: { multipleOf: Number(sn) }, narrows: sn % so === 0n },
  );
}

/** What a count bound counts, for messages. */
export interface CountNoun {
  /** e.g. `strings shorter than`, given the minimum. */
  under: (n: number) => string;
  /** e.g. `strings longer than`, given the maximum. */
  over: (n: number) => string;
}

/** A pair of non-negative integer bounds such as `minLength`/`maxLength`. */
export function compareCounts(
  o: Obj,
  n: Obj,
  minKw: string,
  maxKw: string,
  noun: CountNoun,
  options: {
    /** The values an absent keyword stands for (`minContains` is 1 beside `contains`). */
    defaults?: { min: number; max: number };
    /** Keywords the count needs to mean anything in a check (`contains` for `minContains`). */
    context?: Obj;
  } = {},
): Change[] {
  const defaults = options.defaults ?? { min: 0, max: Infinity };
  const out: Change[] = [];
  for (const [kw, isMin] of [[minKw, true], [maxKw, false]] as const) {
    if (o[kw] === n[kw]) continue;
    const ok = (v: unknown) => v === undefined || (typeof v === "number" && v >= 0);
    if (!ok(o[kw]) || !ok(n[kw])) {
      out.push(undecidable(kw, o, n));
      continue;
    }
    const dflt = isMin ? defaults.min : defaults.max;
    const vo = (o[kw] as number | undefined) ?? dflt,
      vn = (n[kw] as number | undefined) ?? dflt;
    const tighter = isMin ? vn > vo : vn < vo;
    const looser = isMin ? vn < vo : vn > vo;
    const what = o[kw] === undefined
      ? `${kw} ${vn} added`
      : n[kw] === undefined
      ? `${kw} ${vo} removed`
      : `${kw} changed from ${vo} to ${vn}`;
    if (tighter) {
      out.push(change(
        [kw],
        "bound-tightened",
        "major",
        `${what}: callers that send ${isMin ? noun.under(vn) : noun.over(vn)} are now rejected`,
        // The check holds the count in force, also when it is a default standing for an absent keyword.
        { check: { ...options.context, [kw]: vn }, narrows: true },
      ));
    } else if (looser) {
      out.push(change(
        [kw],
        "bound-loosened",
        "minor",
        `${what}: callers may now send ${isMin ? noun.under(vo) : noun.over(vo)}`,
      ));
    } else {
      out.push(
        change(
          [kw],
          "rewritten",
          "patch",
          `${what}; it allows the same values`,
        ),
      );
    }
  }
  return out;
}

const STRING_NOUN: CountNoun = {
  under: (k) => `strings shorter than ${k} characters`,
  over: (k) => `strings longer than ${k} characters`,
};

/** `minLength`, `maxLength`, `pattern` and `format`. */
export function compareString(o: Obj, n: Obj): Change[] {
  const out = compareCounts(o, n, "minLength", "maxLength", STRING_NOUN);
  for (const kw of ["pattern", "format"] as const) {
    const a = o[kw], b = n[kw];
    if (a === b) continue;
    if (
      (a !== undefined && typeof a !== "string") ||
      (b !== undefined && typeof b !== "string")
    ) {
      out.push(undecidable(kw, o, n));
      continue;
    }
    const check: JsonSchema = { [kw]: b };
    if (a === undefined) {
      out.push(change(
        [kw],
        `${kw}-added`,
        "major",
        `${kw} ${show(b)} added: callers that send strings ${
          kw === "pattern" ? "not matching it" : `that are not a valid ${b}`
        } are now rejected`,
        { check, narrows: true },
      ));
    } else if (b === undefined) {
      out.push(change(
        [kw],
        `${kw}-removed`,
        "minor",
        `${kw} ${show(a)} removed: callers may now send ${
          kw === "pattern" ? "strings not matching it" : "any string"
        }`,
      ));
    } else {
      out.push(change(
        [kw],
        `${kw}-changed`,
        "major",
        `${kw} changed from ${show(a)} to ${show(b)}: callers that send strings ${
          kw === "pattern" ? "matching only the old pattern" : `that are a valid ${a} but not ${b}`
        } are now rejected${
          kw === "pattern" ? " (inclusion between regular expressions is not decided)" : ""
        }`,
        { check },
      ));
    }
  }
  return out;
}
