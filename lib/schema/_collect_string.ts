/** The collector's code for the string keywords (run only on a string). */
import { compilePattern } from "./safe_pattern.ts";
import { FORMAT_CHECKS } from "./formats.ts";
import { plural } from "./_compile_context.ts";
import { type CollectSite, q } from "./_collect_context.ts";

/** The lines for `minLength`, `maxLength`, `pattern` and (when asserted) `format`. */
export function collectString(site: CollectSite): string[] {
  const { s } = site;
  const out: string[] = [];
  if (typeof s.minLength === "number") {
    const n = s.minLength;
    out.push(
      `    if (!(x.length >= ${2 * n} || CP(x) >= ${n})) ok = ${site.report}"minLength", ${
        q(`must be at least ${plural(n, "character")} long`)
      }, ${q(site.kw("minLength"))});`,
    );
  }
  if (typeof s.maxLength === "number") {
    const n = s.maxLength;
    out.push(
      `    if (!(x.length <= ${n} || CP(x) <= ${n})) ok = ${site.report}"maxLength", ${
        q(`must be at most ${plural(n, "character")} long`)
      }, ${q(site.kw("maxLength"))});`,
    );
  }
  if (typeof s.pattern === "string") {
    const src = s.pattern;
    const c = compilePattern(src);
    out.push(
      c.ok
        ? `    if (!${site.constant(c.pattern)}.test(x)) ok = ${site.report}"pattern", ${
          q(`must match pattern ${src}`)
        }, ${q(site.kw("pattern"))});`
        : `    ok = ${site.report}"pattern", ${
          q(`pattern ${src} cannot be run safely (${c.reason}); value rejected`)
        }, ${q(site.kw("pattern"))});`,
    );
  }
  if (
    site.formats && typeof s.format === "string" &&
    Object.hasOwn(FORMAT_CHECKS, s.format)
  ) {
    out.push(
      `    if (!${site.constant(FORMAT_CHECKS[s.format])}(x)) ok = ${site.report}"format", ${
        q(`must be a valid ${s.format}`)
      }, ${q(site.kw("format"))});`,
    );
  }
  return out;
}
