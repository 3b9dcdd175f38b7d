/** The collector's code for `type`, `enum` and `const`. */
import { TYPE_CODE } from "./_codegen.ts";
import { show } from "./_compile_context.ts";
import { type CollectSite, q } from "./_collect_context.ts";

/** The lines for `type` (a mismatch returns at once: it is the only issue), `enum` and `const`. */
export function collectType(site: CollectSite): string[] {
  const { s } = site;
  const out: string[] = [];
  const fail = (
    cond: string,
    keyword: string,
    message: string,
    where: string,
  ): void => {
    out.push(
      `  if (${cond}) ok = ${site.report}${q(keyword)}, ${q(message)}, ${q(where)});`,
    );
  };
  if (site.has("type")) {
    const names = (Array.isArray(s.type) ? s.type : [s.type]).filter((
      t,
    ): t is string => typeof t === "string" && Object.hasOwn(TYPE_CODE, t));
    const cond = names.length ? `!(${names.map((t) => TYPE_CODE[t]("x")).join(" || ")})` : "true";
    out.push(
      `  if (${cond}) return ${site.report}"type", ${
        q(`expected ${names.join(" or ")}, got `)
      } + TN(x), ${q(site.kw("type"))});`,
    );
  }
  if (site.has("enum") && Array.isArray(s.enum)) {
    const values = s.enum as unknown[];
    const prims = values.filter((v) => v === null || typeof v !== "object");
    const comps = values.filter((v) => v !== null && typeof v === "object");
    const message = `must be one of ${values.slice(0, 10).map(show).join(", ")}${
      values.length > 10 ? ", ..." : ""
    }`;
    const tests: string[] = [];
    // As the fast path tests them: a few values compared in line, more in a set.
    if (prims.length > 0 && prims.length <= 16) {
      tests.push(...prims.map((p) => `x === ${JSON.stringify(p)}`));
    } else if (prims.length) tests.push(`${site.constant(new Set(prims))}.has(x)`);
    if (comps.length) {
      tests.push(
        `(typeof x === "object" && x !== null && ${site.constant(comps)}.some((c) => EQ(c, x)))`,
      );
    }
    fail(
      tests.length ? `!(${tests.join(" || ")})` : "true",
      "enum",
      message,
      site.kw("enum"),
    );
  }
  if (site.has("const")) {
    fail(
      `!EQ(${site.constant(s.const)}, x)`,
      "const",
      `must be equal to ${show(s.const)}`,
      site.kw("const"),
    );
  }
  return out;
}
