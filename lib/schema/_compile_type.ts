/** The closures for `type`, `enum` and `const`: what a value may be. */
import { isObject } from "../_object.ts";
import { jsonEqual } from "./json_equal.ts";
import { type Check, report, type SchemaSite, show } from "./_compile_context.ts";

const TYPE_TESTS: Record<string, (v: unknown) => boolean> = {
  null: (v) => v === null,
  boolean: (v) => typeof v === "boolean",
  object: isObject,
  array: (v) => Array.isArray(v),
  number: (v) => typeof v === "number" && Number.isFinite(v),
  integer: (v) => Number.isInteger(v),
  string: (v) => typeof v === "string",
};

/** A `type` keyword compiled: the test, and what its issue says before `, got <type>`. */
export interface TypeCheck {
  test: (v: unknown) => boolean;
  message: string;
}

/** Compiles `type` (checked before every other keyword: a mismatch is the only issue). */
export function compileType(site: SchemaSite): TypeCheck | undefined {
  const { s } = site;
  if (!site.has("type")) return undefined;
  const names = (Array.isArray(s.type) ? s.type : [s.type]).filter((
    t,
  ): t is string => typeof t === "string" && Object.hasOwn(TYPE_TESTS, t));
  const tests = names.map((t) => TYPE_TESTS[t]);
  const test = tests.length === 1 ? tests[0] : (v: unknown) => {
    for (let i = 0; i < tests.length; i++) if (tests[i](v)) return true;
    return false;
  };
  return { test, message: `expected ${names.join(" or ")}` };
}

/** Compiles `enum` and `const`. */
export function compileEnumConst(site: SchemaSite): Check[] {
  const { s } = site;
  const checks: Check[] = [];
  if (site.has("enum") && Array.isArray(s.enum)) {
    const values = s.enum as unknown[];
    const primitives = new Set(
      values.filter((x) => x === null || typeof x !== "object"),
    );
    const composites = values.filter((x) => x !== null && typeof x === "object");
    const message = `must be one of ${values.slice(0, 10).map(show).join(", ")}${
      values.length > 10 ? ", ..." : ""
    }`;
    const where = site.kw("enum");
    checks.push((v, ctx) => {
      if (v === null || typeof v !== "object") {
        if (primitives.has(v)) return true;
      } else if (composites.some((c) => jsonEqual(c, v))) return true;
      return report(ctx, "enum", message, where);
    });
  }
  if (site.has("const")) {
    const c = s.const;
    const message = `must be equal to ${show(c)}`;
    const where = site.kw("const");
    checks.push((v, ctx) => jsonEqual(c, v) || report(ctx, "const", message, where));
  }
  return checks;
}
