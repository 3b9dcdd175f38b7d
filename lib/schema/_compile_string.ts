/** The closures for the string keywords: `minLength`, `maxLength`, `pattern`, `format`. */
import { codePoints } from "./_values.ts";
import { compilePattern, type SafePattern } from "./safe_pattern.ts";
import { FORMAT_CHECKS } from "./formats.ts";
import { type Check, plural, report, type SchemaSite } from "./_compile_context.ts";

/** Compiles the string keywords; each check is run only on a string. */
export function compileString(site: SchemaSite): Check[] {
  const { s } = site;
  const checks: Check[] = [];
  if (typeof s.minLength === "number") {
    const n = s.minLength;
    const message = `must be at least ${plural(n, "character")} long`;
    const where = site.kw("minLength");
    checks.push((v, ctx) => {
      const t = v as string;
      return t.length >= 2 * n || codePoints(t) >= n ||
        report(ctx, "minLength", message, where);
    });
  }
  if (typeof s.maxLength === "number") {
    const n = s.maxLength;
    const message = `must be at most ${plural(n, "character")} long`;
    const where = site.kw("maxLength");
    checks.push((v, ctx) => {
      const t = v as string;
      return t.length <= n || codePoints(t) <= n ||
        report(ctx, "maxLength", message, where);
    });
  }
  if (typeof s.pattern === "string") {
    const src = s.pattern;
    const where = site.kw("pattern");
    const compiled = compilePattern(src);
    if (compiled.ok) {
      const re: SafePattern = compiled.pattern;
      const message = `must match pattern ${src}`;
      checks.push((v, ctx) => re.test(v as string) || report(ctx, "pattern", message, where));
    } else {
      const message = `pattern ${src} cannot be run safely (${compiled.reason}); value rejected`;
      checks.push((_v, ctx) => report(ctx, "pattern", message, where));
    }
  }
  if (typeof s.format === "string" && Object.hasOwn(FORMAT_CHECKS, s.format)) {
    const name = s.format;
    const test = FORMAT_CHECKS[name];
    const message = `must be a valid ${name}`;
    const where = site.kw("format");
    checks.push((v, ctx) =>
      !ctx.formats || test(v as string) || report(ctx, "format", message, where)
    );
  }
  return checks;
}
