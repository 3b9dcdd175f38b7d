/**
 * The closures for the array keywords: `prefixItems`/`items`/`additionalItems` (both drafts'
 * forms), `contains` with `minContains`/`maxContains`, `minItems`, `maxItems`, `uniqueItems`.
 */
import { findDuplicate } from "./_values.ts";
import { type Check, plural, probe, report, type SchemaSite } from "./_compile_context.ts";

/** Compiles the array keywords; each check is run only on an array. */
export function compileArray(site: SchemaSite): Check[] {
  const { s } = site;
  const checks: Check[] = [];
  const prefix = Array.isArray(s.prefixItems)
    ? s.prefixItems.map((x, i) => site.sub(x, ["prefixItems", i], "prefixItems"))
    : Array.isArray(s.items)
    ? s.items.map((x, i) => site.sub(x, ["items", i], "items"))
    : [];
  let rest: Check | undefined;
  if (site.has("items") && !Array.isArray(s.items)) {
    rest = site.sub(s.items, ["items"], "items");
  } else if (Array.isArray(s.items) && site.has("additionalItems")) {
    rest = site.sub(s.additionalItems, ["additionalItems"], "additionalItems");
  }
  if (prefix.length || rest) {
    const r = rest;
    checks.push((v, ctx) => {
      const a = v as unknown[];
      let ok = true;
      for (let i = 0; i < a.length; i++) {
        const c = i < prefix.length ? prefix[i] : r;
        if (!c) break;
        if (!site.descend(c, a[i], i, ctx)) {
          ok = false;
          if (!ctx.issues) return false;
        }
      }
      return ok;
    });
  }
  if (site.has("contains")) {
    const check = site.sub(s.contains, ["contains"]);
    const min = typeof s.minContains === "number" ? s.minContains : 1;
    const max = typeof s.maxContains === "number" ? s.maxContains : Infinity;
    const where = site.kw("contains");
    checks.push((v, ctx) => {
      const a = v as unknown[];
      const p = probe(ctx);
      let n = 0;
      for (let i = 0; i < a.length; i++) {
        p.path.push(i);
        if (check(a[i], p)) n++;
        p.path.pop();
      }
      if (n < min) {
        return report(
          ctx,
          "minContains" in s ? "minContains" : "contains",
          `must contain at least ${plural(min, "item")} matching contains; found ${n}`,
          "minContains" in s ? site.kw("minContains") : where,
        );
      }
      if (n > max) {
        return report(
          ctx,
          "maxContains",
          `must contain at most ${plural(max, "item")} matching contains; found ${n}`,
          site.kw("maxContains"),
        );
      }
      return true;
    });
  }
  if (typeof s.minItems === "number") {
    const n = s.minItems;
    const message = `must have at least ${plural(n, "item")}`;
    const where = site.kw("minItems");
    checks.push((v, ctx) =>
      (v as unknown[]).length >= n || report(ctx, "minItems", message, where)
    );
  }
  if (typeof s.maxItems === "number") {
    const n = s.maxItems;
    const message = `must have at most ${plural(n, "item")}`;
    const where = site.kw("maxItems");
    checks.push((v, ctx) =>
      (v as unknown[]).length <= n || report(ctx, "maxItems", message, where)
    );
  }
  if (s.uniqueItems === true) {
    const where = site.kw("uniqueItems");
    checks.push((v, ctx) => {
      const dup = findDuplicate(v as unknown[]);
      return !dup ||
        report(
          ctx,
          "uniqueItems",
          `items [${dup[0]}] and [${dup[1]}] are equal; items must be unique`,
          where,
        );
    });
  }
  return checks;
}
