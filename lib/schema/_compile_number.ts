/** The closures for the number keywords: `minimum`, `maximum`, their exclusive forms, `multipleOf`. */
import { multipleOfTest } from "./decimal.ts";
import { type Check, report, type SchemaSite } from "./_compile_context.ts";

/** Compiles the number keywords; each check is run only on a number. */
export function compileNumber(site: SchemaSite): Check[] {
  const { s } = site;
  const checks: Check[] = [];
  const bound = (
    k: string,
    fails: (v: number, b: number) => boolean,
    text: string,
  ): void => {
    if (typeof s[k] !== "number") return;
    const b = s[k] as number;
    const message = `must be ${text} ${b}`;
    const where = site.kw(k);
    checks.push((v, ctx) => !fails(v as number, b) || report(ctx, k, message, where));
  };
  bound("minimum", (v, b) => v < b, ">=");
  bound("maximum", (v, b) => v > b, "<=");
  bound("exclusiveMinimum", (v, b) => v <= b, ">");
  bound("exclusiveMaximum", (v, b) => v >= b, "<");
  if (typeof s.multipleOf === "number" && s.multipleOf > 0) {
    const m = s.multipleOf;
    const message = `must be a multiple of ${m}`;
    const where = site.kw("multipleOf");
    const test = multipleOfTest(m);
    checks.push((v, ctx) =>
      !Number.isFinite(v as number) || test(v as number) ||
      report(ctx, "multipleOf", message, where)
    );
  }
  return checks;
}
