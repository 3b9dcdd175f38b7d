/** The collector's code for the array keywords (run only on an array). */
import { plural } from "./_compile_context.ts";
import { type CollectSite, q } from "./_collect_context.ts";
import type { PathSegment } from "./types.ts";

/** An item subschema: where it is, and the keyword a `false` one reports. */
interface ItemSchema {
  schema: unknown;
  segs: PathSegment[];
  kw: string;
}

/**
 * The lines for `prefixItems`/`items`/`additionalItems` (both drafts' forms), `contains` with
 * `minContains`/`maxContains`, `minItems`, `maxItems` and `uniqueItems`.
 */
export function collectArray(site: CollectSite): string[] {
  const { s } = site;
  const out: string[] = [];
  const prefix: ItemSchema[] = Array.isArray(s.prefixItems)
    ? s.prefixItems.map((x, i) => ({
      schema: x,
      segs: ["prefixItems", i],
      kw: "prefixItems",
    }))
    : Array.isArray(s.items)
    ? s.items.map((x, i) => ({ schema: x, segs: ["items", i], kw: "items" }))
    : [];
  let rest: ItemSchema | undefined;
  if (site.has("items") && !Array.isArray(s.items)) {
    rest = { schema: s.items, segs: ["items"], kw: "items" };
  } else if (Array.isArray(s.items) && site.has("additionalItems")) {
    rest = {
      schema: s.additionalItems,
      segs: ["additionalItems"],
      kw: "additionalItems",
    };
  }
  prefix.forEach((p, i) => {
    out.push(`    if (x.length > ${i}) {`);
    out.push(site.descend(p.schema, p.segs, p.kw, `x[${i}]`, `${i}`, "      "));
    out.push(`    }`);
  });
  if (rest) {
    out.push(`    for (let i = ${prefix.length}; i < x.length; i++) {`);
    out.push(
      site.descend(rest.schema, rest.segs, rest.kw, "x[i]", "i", "      "),
    );
    out.push(`    }`);
  }
  if (site.has("contains")) {
    const probe = site.probe(s.contains, ["contains"], "x[i]", "d");
    const min = typeof s.minContains === "number" ? s.minContains : 1;
    const max = typeof s.maxContains === "number" ? s.maxContains : Infinity;
    const minKw = "minContains" in s ? "minContains" : "contains";
    const minWhere = "minContains" in s ? site.kw("minContains") : site.kw("contains");
    out.push(
      `    { let n = 0; for (let i = 0; i < x.length; i++) if (${probe}) n++;`,
    );
    out.push(
      `      if (n < ${min}) ok = R(${q(minKw)}, ${
        q(`must contain at least ${plural(min, "item")} matching contains; found `)
      } + n, ${q(minWhere)});`,
    );
    if (max !== Infinity) {
      out.push(
        `      else if (n > ${max}) ok = R("maxContains", ${
          q(`must contain at most ${plural(max, "item")} matching contains; found `)
        } + n, ${q(site.kw("maxContains"))});`,
      );
    }
    out.push(`    }`);
  }
  if (typeof s.minItems === "number") {
    out.push(
      `    if (x.length < ${s.minItems}) ok = R("minItems", ${
        q(`must have at least ${plural(s.minItems, "item")}`)
      }, ${q(site.kw("minItems"))});`,
    );
  }
  if (typeof s.maxItems === "number") {
    out.push(
      `    if (x.length > ${s.maxItems}) ok = R("maxItems", ${
        q(`must have at most ${plural(s.maxItems, "item")}`)
      }, ${q(site.kw("maxItems"))});`,
    );
  }
  if (s.uniqueItems === true) {
    out.push(
      `    { const p = DUP(x); if (p) ok = R("uniqueItems", "items [" + p[0] + "] and [" + p[1] + "] are equal; items must be unique", ${
        q(site.kw("uniqueItems"))
      }); }`,
    );
  }
  return out;
}
