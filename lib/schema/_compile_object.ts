/**
 * The closures for the object keywords. `properties`, `required`, `patternProperties`,
 * `additionalProperties` and `propertyNames` share one loop over the keys the value has (its
 * cost follows the value, not the schema); then the dependencies (`dependentRequired`,
 * `dependentSchemas`, draft-07 `dependencies`), `minProperties` and `maxProperties`.
 */
import { isObject } from "../_object.ts";
import { compilePattern } from "./safe_pattern.ts";
import { formatSegment } from "./path.ts";
import { type Check, plural, probe, report, type SchemaSite, show } from "./_compile_context.ts";

/** Compiles the object keywords; each check is run only on an object (not an array). */
export function compileObject(site: SchemaSite): Check[] {
  const checks: Check[] = [];
  const keys = keyLoop(site);
  if (keys) checks.push(keys);
  const dependencies = dependencyCheck(site);
  if (dependencies) checks.push(dependencies);
  const { s } = site;
  if (typeof s.minProperties === "number") {
    const n = s.minProperties;
    const where = site.kw("minProperties");
    checks.push((v, ctx) =>
      Object.keys(v as object).length >= n ||
      report(
        ctx,
        "minProperties",
        `must have at least ${plural(n, "property")}`.replace(
          "propertys",
          "properties",
        ),
        where,
      )
    );
  }
  if (typeof s.maxProperties === "number") {
    const n = s.maxProperties;
    const where = site.kw("maxProperties");
    checks.push((v, ctx) =>
      Object.keys(v as object).length <= n ||
      report(
        ctx,
        "maxProperties",
        `must have at most ${plural(n, "property")}`.replace(
          "propertys",
          "properties",
        ),
        where,
      )
    );
  }
  return checks;
}

/** The one loop over the value's keys, for the keywords that look at each property. */
function keyLoop(site: SchemaSite): Check | undefined {
  const { s } = site;
  const props = isObject(s.properties) ? s.properties : undefined;
  const propChecks = new Map<string, Check>(
    props
      ? Object.keys(props).map((
        k,
      ) => [k, site.sub(props[k], ["properties", k])])
      : [],
  );
  const req = Array.isArray(s.required)
    ? [...new Set(s.required.filter((k): k is string => typeof k === "string"))]
    : [];
  const reqSet = new Set(req);
  const whereRequired = site.kw("required");
  const patterns = isObject(s.patternProperties)
    ? Object.entries(s.patternProperties).map(([src, sub]) => ({
      src,
      re: compilePattern(src),
      check: site.sub(sub, ["patternProperties", src]),
    }))
    : [];
  const additional = site.has("additionalProperties")
    ? site.sub(
      s.additionalProperties,
      ["additionalProperties"],
      "additionalProperties",
    )
    : undefined;
  const names = site.has("propertyNames")
    ? site.sub(s.propertyNames, ["propertyNames"])
    : undefined;
  if (
    !(propChecks.size || req.length || patterns.length || additional || names)
  ) return undefined;
  const whereNames = site.kw("propertyNames");
  const wherePatterns = site.kw("patternProperties");
  const additionalFalse = s.additionalProperties === false;
  const whereAdditional = site.kw("additionalProperties");
  return (v, ctx) => {
    const o = v as Record<string, unknown>;
    let ok = true;
    let seen = 0;
    for (const k of Object.keys(o)) {
      // A JSON value is never `undefined`: a key holding it counts as absent.
      const x = o[k];
      if (x !== undefined && reqSet.has(k)) seen++;
      if (names && !names(k, probe(ctx))) {
        ok = report(
          ctx,
          "propertyNames",
          `property name ${show(k)} does not match propertyNames`,
          whereNames,
          k,
        );
        if (!ctx.issues) return false;
      }
      const check = propChecks.get(k);
      let matched = check !== undefined;
      if (check && x !== undefined && !site.descend(check, x, k, ctx)) {
        ok = false;
        if (!ctx.issues) return false;
      }
      for (const p of patterns) {
        if (!p.re.ok) {
          ok = report(
            ctx,
            "patternProperties",
            `pattern ${p.src} cannot be run safely (${p.re.reason}); value rejected`,
            wherePatterns,
            k,
          );
          matched = true;
          continue;
        }
        if (p.re.pattern.test(k)) {
          matched = true;
          if (!site.descend(p.check, x, k, ctx)) ok = false;
        }
      }
      if (!matched && additional) {
        if (additionalFalse) {
          ok = report(
            ctx,
            "additionalProperties",
            `property ${show(k)} is not allowed`,
            whereAdditional,
            k,
          );
        } else if (!site.descend(additional, x, k, ctx)) ok = false;
      }
      if (!ok && !ctx.issues) return false;
    }
    if (seen !== req.length) {
      // Some required name is missing: say which, in the order `required` lists them.
      for (const k of req) {
        if (!Object.hasOwn(o, k) || o[k] === undefined) {
          ok = report(
            ctx,
            "required",
            "required property is missing",
            whereRequired,
            k,
          );
          if (!ctx.issues) return false;
        }
      }
    }
    return ok;
  };
}

/** `dependentRequired`, `dependentSchemas` and draft-07 `dependencies` (either form). */
function dependencyCheck(site: SchemaSite): Check | undefined {
  const depReq: [string, string[], string][] = [];
  const depSchemas: [string, Check][] = [];
  for (const key of ["dependentRequired", "dependencies", "dependentSchemas"]) {
    const deps = site.s[key];
    if (!isObject(deps)) continue;
    for (const [name, d] of Object.entries(deps)) {
      if (Array.isArray(d) && key !== "dependentSchemas") {
        depReq.push([
          name,
          d.filter((x): x is string => typeof x === "string"),
          site.kw(key) + formatSegment(name),
        ]);
      } else if (
        key !== "dependentRequired" && (typeof d === "boolean" || isObject(d))
      ) {
        depSchemas.push([name, site.sub(d, [key, name])]);
      }
    }
  }
  if (!(depReq.length || depSchemas.length)) return undefined;
  return (v, ctx) => {
    const o = v as Record<string, unknown>;
    let ok = true;
    for (const [name, needs, where] of depReq) {
      if (!Object.hasOwn(o, name)) continue;
      for (const k of needs) {
        if (!Object.hasOwn(o, k)) {
          ok = report(
            ctx,
            "dependentRequired",
            `required when ${show(name)} is present`,
            where,
            k,
          );
        }
      }
    }
    for (const [name, c] of depSchemas) {
      if (Object.hasOwn(o, name) && !c(o, ctx)) ok = false;
    }
    return ok;
  };
}
