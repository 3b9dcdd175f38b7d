/** The collector's code for the number keywords (run only on a number). */
import { multipleOfTest } from "./decimal.ts";
import { type CollectSite, q } from "./_collect_context.ts";

/** The lines for `minimum`, `maximum`, their exclusive forms and `multipleOf`. */
export function collectNumber(site: CollectSite): string[] {
  const { s } = site;
  const out: string[] = [];
  const bound = (k: string, op: string, text: string): void => {
    if (typeof s[k] !== "number") return;
    const b = s[k] as number;
    out.push(
      `    if (x ${op} ${b}) ok = ${site.report}${q(k)}, ${q(`must be ${text} ${b}`)}, ${
        q(site.kw(k))
      });`,
    );
  };
  bound("minimum", "<", ">=");
  bound("maximum", ">", "<=");
  bound("exclusiveMinimum", "<=", ">");
  bound("exclusiveMaximum", ">=", "<");
  if (typeof s.multipleOf === "number" && s.multipleOf > 0) {
    out.push(
      `    if (Number.isFinite(x) && !${
        site.constant(multipleOfTest(s.multipleOf))
      }(x)) ok = ${site.report}${q("multipleOf")}, ${q(`must be a multiple of ${s.multipleOf}`)}, ${
        q(site.kw("multipleOf"))
      });`,
    );
  }
  return out;
}
