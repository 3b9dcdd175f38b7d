/**
 * The closures for the keywords that apply subschemas in place: `$ref`, `allOf`, `anyOf`,
 * `oneOf`, `not`, and `if`/`then`/`else`. Those that only ask whether a subschema matches run it
 * as a probe, whose issues are not kept.
 */
import { isObject } from "../_object.ts";
import {
  ALWAYS,
  type Check,
  probe,
  report,
  type SchemaSite,
  show,
  tooDeep,
  typeName,
} from "./_compile_context.ts";

/** Follows a `$ref` with the depth guard (a reference cycle that consumes no input ends here). */
function deeper(check: Check, where: string): Check {
  return (v, ctx) => {
    if (ctx.depth >= ctx.maxDepth) return tooDeep(ctx, where);
    ctx.depth++;
    const ok = check(v, ctx);
    ctx.depth--;
    return ok;
  };
}

/** Compiles `$ref`, `allOf`, `anyOf`, `oneOf`, `not` and `if`/`then`/`else`, in that order. */
export function compileApplicators(site: SchemaSite): Check[] {
  const { s } = site;
  const checks: Check[] = [];
  if (typeof s.$ref === "string") {
    const ref = s.$ref;
    const where = site.kw("$ref");
    const target = site.resolve(ref);
    if (!target) {
      const message = `cannot resolve $ref ${
        show(ref)
      }: only references inside this schema are followed`;
      checks.push((_v, ctx) => report(ctx, "$ref", message, where));
    } else checks.push(deeper(target, where));
  }
  if (Array.isArray(s.allOf)) {
    const all = s.allOf.map((x, i) => site.sub(x, ["allOf", i]));
    checks.push((v, ctx) => {
      let ok = true;
      for (const c of all) {
        if (!c(v, ctx)) {
          ok = false;
          if (!ctx.issues) return false;
        }
      }
      return ok;
    });
  }
  if (Array.isArray(s.anyOf)) {
    const branches = s.anyOf;
    const any = branches.map((x, i) => site.sub(x, ["anyOf", i]));
    const where = site.kw("anyOf");
    // When every branch fails on `type` alone, say which types would do.
    const branchTypes = branches.map((b) =>
      isObject(b) && Object.keys(b).length === 1 && typeof b.type === "string" ? b.type : undefined
    );
    const allTyped = branchTypes.every((t) => t !== undefined);
    checks.push((v, ctx) => {
      const p = probe(ctx);
      for (const c of any) if (c(v, p)) return true;
      const message = allTyped
        ? `expected ${branchTypes.join(" or ")}, got ${typeName(v)}`
        : `must match at least one of the ${branches.length} schemas in anyOf`;
      return report(ctx, "anyOf", message, where);
    });
  }
  if (Array.isArray(s.oneOf)) {
    const one = s.oneOf.map((x, i) => site.sub(x, ["oneOf", i]));
    const where = site.kw("oneOf");
    checks.push((v, ctx) => {
      const p = probe(ctx);
      const matched: number[] = [];
      for (let i = 0; i < one.length; i++) {
        if (one[i](v, p)) matched.push(i);
        if (matched.length > 1 && !ctx.issues) return false;
      }
      if (matched.length === 1) return true;
      const detail = matched.length === 0
        ? "matched none"
        : `matched schemas ${matched.join(" and ")}`;
      return report(
        ctx,
        "oneOf",
        `must match exactly one of the ${one.length} schemas in oneOf; ${detail}`,
        where,
      );
    });
  }
  if (site.has("not")) {
    const check = site.sub(s.not, ["not"]);
    const where = site.kw("not");
    checks.push((v, ctx) =>
      !check(v, probe(ctx)) ||
      report(ctx, "not", "must not match the schema in not", where)
    );
  }
  if (site.has("if") && (site.has("then") || site.has("else"))) {
    const cond = site.sub(s.if, ["if"]);
    const then = site.has("then") ? site.sub(s.then, ["then"], "then") : ALWAYS;
    const otherwise = site.has("else") ? site.sub(s.else, ["else"], "else") : ALWAYS;
    checks.push((v, ctx) => cond(v, probe(ctx)) ? then(v, ctx) : otherwise(v, ctx));
  }
  return checks;
}
