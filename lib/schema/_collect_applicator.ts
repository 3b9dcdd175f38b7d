/**
 * The collector's code for `$ref`, `allOf`, `anyOf`, `oneOf`, `not` and `if`/`then`/`else`. Those
 * that only ask whether a subschema matches (`anyOf`, `oneOf`, `not`, `if`) call the fast path's
 * boolean functions, as the closures run a probe.
 */
import { isObject } from "../_object.ts";
import { show } from "./_compile_context.ts";
import { type CollectSite, q } from "./_collect_context.ts";

/** The lines for the applicators, in the order the closures run them. */
export function collectApplicators(site: CollectSite): string[] {
  const { s } = site;
  const out: string[] = [];
  if (typeof s.$ref === "string") {
    const where = site.kw("$ref");
    const sub = site.refInPlace(s.$ref);
    if (sub === undefined) {
      const message = `cannot resolve $ref ${
        show(s.$ref)
      }: only references inside this schema are followed`;
      out.push(`  ok = R("$ref", ${q(message)}, ${q(where)});`);
    } else {
      out.push(`  if (d >= M) ok = R("depth", DM, ${q(where)});`);
      out.push(`  else if (!(${sub})) ok = false;`);
    }
  }
  if (Array.isArray(s.allOf)) {
    s.allOf.forEach((sub, i) => {
      out.push(
        `  if (!(${site.inPlace(sub, ["allOf", i], "false", "x", "d")})) ok = false;`,
      );
    });
  }
  if (Array.isArray(s.anyOf)) {
    const branches = s.anyOf;
    const probes = branches.map((b, i) => site.probe(b, ["anyOf", i], "x", "d"));
    const branchTypes = branches.map((b) =>
      isObject(b) && Object.keys(b).length === 1 && typeof b.type === "string" ? b.type : undefined
    );
    const allTyped = branchTypes.every((t) => t !== undefined);
    const message = allTyped
      ? `${q(`expected ${branchTypes.join(" or ")}, got `)} + TN(x)`
      : q(`must match at least one of the ${branches.length} schemas in anyOf`);
    out.push(
      `  if (!(${probes.join(" || ") || "false"})) ok = R("anyOf", ${message}, ${
        q(site.kw("anyOf"))
      });`,
    );
  }
  if (Array.isArray(s.oneOf)) {
    const probes = s.oneOf.map((b, i) => site.probe(b, ["oneOf", i], "x", "d"));
    out.push(`  { const m = [];`);
    probes.forEach((p, i) => out.push(`    if (${p}) m.push(${i});`));
    out.push(
      `    if (m.length !== 1) ok = R("oneOf", ${
        q(`must match exactly one of the ${probes.length} schemas in oneOf; `)
      } + (m.length === 0 ? "matched none" : "matched schemas " + m.join(" and ")), ${
        q(site.kw("oneOf"))
      }); }`,
    );
  }
  if (site.has("not")) {
    out.push(
      `  if (${site.probe(s.not, ["not"], "x", "d")}) ok = R(${q("not")}, ${
        q("must not match the schema in not")
      }, ${q(site.kw("not"))});`,
    );
  }
  if (site.has("if") && (site.has("then") || site.has("else"))) {
    const cond = site.probe(s.if, ["if"], "x", "d");
    const then = site.has("then") ? site.inPlace(s.then, ["then"], "then", "x", "d") : "true";
    const otherwise = site.has("else") ? site.inPlace(s.else, ["else"], "else", "x", "d") : "true";
    out.push(`  if (!(${cond} ? ${then} : ${otherwise})) ok = false;`);
  }
  return out;
}
