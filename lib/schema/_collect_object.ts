/**
 * The collector's code for the object keywords (run only on an object): one loop over the keys
 * the value has for `properties`, `required`, `patternProperties`, `additionalProperties` and
 * `propertyNames` (a `switch` on the name, required names counted), then the dependencies,
 * `minProperties` and `maxProperties`.
 */
import { isObject } from "../_object.ts";
import { compilePattern } from "./safe_pattern.ts";
import { formatSegment } from "./path.ts";
import { plural, show } from "./_compile_context.ts";
import { type CollectSite, fseg, q } from "./_collect_context.ts";
import { isFew } from "./_codegen.ts";

/** The lines for the object keywords. */
export function collectObject(site: CollectSite): string[] {
  const { s } = site;
  const out = keyLoop(site);
  for (const key of ["dependentRequired", "dependencies", "dependentSchemas"]) {
    const deps = s[key];
    if (!isObject(deps)) continue;
    for (const [name, d] of Object.entries(deps)) {
      if (Array.isArray(d) && key !== "dependentSchemas") {
        const where = site.kw(key) + formatSegment(name);
        const needs = d.filter((k): k is string => typeof k === "string");
        if (!needs.length) continue;
        out.push(`    if (HAS(x, ${q(name)})) {`);
        for (const k of needs) {
          out.push(
            `      if (!HAS(x, ${q(k)})) ok = R1("dependentRequired", ${
              q(`required when ${show(name)} is present`)
            }, ${q(where)}, ${fseg(q(k))});`,
          );
        }
        out.push(`    }`);
      } else if (
        key !== "dependentRequired" && (typeof d === "boolean" || isObject(d))
      ) {
        const sub = site.inPlace(d, [key, name], "false", "x", "d");
        out.push(`    if (HAS(x, ${q(name)}) && !(${sub})) ok = false;`);
      }
    }
  }
  if (typeof s.minProperties === "number") {
    out.push(
      `    if (Object.keys(x).length < ${s.minProperties}) ok = R("minProperties", ${
        q(`must have at least ${plural(s.minProperties, "property")}`.replace(
          "propertys",
          "properties",
        ))
      }, ${q(site.kw("minProperties"))});`,
    );
  }
  if (typeof s.maxProperties === "number") {
    out.push(
      `    if (Object.keys(x).length > ${s.maxProperties}) ok = R("maxProperties", ${
        q(`must have at most ${plural(s.maxProperties, "property")}`.replace(
          "propertys",
          "properties",
        ))
      }, ${q(site.kw("maxProperties"))});`,
    );
  }
  return out;
}

/**
 * A schema naming a few properties and no patterns, as the fast path reads it (`isFew`): each
 * named property read directly, then one loop over the keys not named, for
 * `additionalProperties`. The same issues as the loop over every key.
 */
function fewProperties(
  site: CollectSite,
  props: Record<string, unknown>,
  required: string[],
): string[] {
  const { s } = site;
  const out: string[] = [];
  const req = new Set(required);
  const missing = (k: string) =>
    `ok = R1("required", "required property is missing", ${q(site.kw("required"))}, ${
      fseg(q(k))
    });`;
  for (const [i, k] of Object.keys(props).entries()) {
    if (props[k] === true && !req.has(k)) continue;
    out.push(`    const p${i} = x[${q(k)}];`);
    out.push(`    if (p${i} !== undefined && HAS(x, ${q(k)})) {`);
    out.push(site.descend(props[k], ["properties", k], "false", `p${i}`, q(k), "      "));
    out.push(req.has(k) ? `    } else ${missing(k)}` : `    }`);
  }
  for (const k of required) {
    if (Object.hasOwn(props, k)) continue;
    out.push(`    if (!(HAS(x, ${q(k)}) && x[${q(k)}] !== undefined)) ${missing(k)}`);
  }
  if (site.has("additionalProperties") && s.additionalProperties !== true) {
    const named = Object.keys(props).map((k) => `k === ${q(k)}`);
    out.push(`    for (const k in x) {`);
    if (named.length) out.push(`      if (${named.join(" || ")}) continue;`);
    out.push(`      if (!HAS(x, k)) continue;`);
    if (s.additionalProperties === false) {
      out.push(
        `      ok = R1("additionalProperties", NA(k), ${
          q(site.kw("additionalProperties"))
        }, FS(k));`,
      );
    } else {
      out.push(`      const v = x[k];`);
      out.push(
        site.descend(
          s.additionalProperties,
          ["additionalProperties"],
          "additionalProperties",
          "v",
          "k",
          "      ",
        ),
      );
    }
    out.push(`    }`);
  }
  return out;
}

/** The loop over the value's own keys, for the keywords that look at each property. */
function keyLoop(site: CollectSite): string[] {
  const { s } = site;
  const out: string[] = [];
  const props = isObject(s.properties) ? s.properties : {};
  const propNames = Object.keys(props);
  const required = Array.isArray(s.required)
    ? [...new Set(s.required.filter((k): k is string => typeof k === "string"))]
    : [];
  const req = new Set(required);
  const patterns = isObject(s.patternProperties) ? Object.keys(s.patternProperties) : [];
  const hasAdditional = site.has("additionalProperties");
  const hasNames = site.has("propertyNames");
  const names = [...new Set([...propNames, ...required])];
  if (!(names.length || patterns.length || hasAdditional || hasNames)) {
    return out;
  }
  if (isFew(names) && !patterns.length && !hasNames) return fewProperties(site, props, required);
  if (required.length) out.push(`    let r = 0;`);
  // Own keys only. An own-key test per key is cheaper than asking once whether the object is
  // plain: Object.prototype is a dictionary, and enumerating it finds no cached keys.
  out.push(`    for (const k in x) {`);
  out.push(`      if (!HAS(x, k)) continue;`);
  out.push(`      const v = x[k];`);
  if (hasNames) {
    const probe = site.probe(s.propertyNames, ["propertyNames"], "k", "d");
    out.push(
      `      if (!(${probe})) ok = R1("propertyNames", "property name " + SHOW(k) + " does not match propertyNames", ${
        q(site.kw("propertyNames"))
      }, FS(k));`,
    );
  }
  out.push(`      let m = true;`);
  if (names.length) {
    out.push(`      switch (k) {`);
    for (const k of names) {
      out.push(`        case ${q(k)}:`);
      if (req.has(k)) out.push(`          if (v !== undefined) r++;`);
      if (Object.hasOwn(props, k)) {
        out.push(`          if (v !== undefined) {`);
        out.push(
          site.descend(
            props[k],
            ["properties", k],
            "false",
            "v",
            "k",
            "            ",
          ),
        );
        out.push(`          }`);
      } else out.push(`          m = false;`);
      out.push(`          break;`);
    }
    out.push(`        default: m = false;`);
    out.push(`      }`);
  } else out.push(`      m = false;`);
  for (const p of patterns) {
    const c = compilePattern(p);
    const sub = (s.patternProperties as Record<string, unknown>)[p];
    if (!c.ok) {
      out.push(
        `      ok = R1("patternProperties", ${
          q(`pattern ${p} cannot be run safely (${c.reason}); value rejected`)
        }, ${q(site.kw("patternProperties"))}, FS(k)); m = true;`,
      );
      continue;
    }
    out.push(`      if (${site.constant(c.pattern)}.test(k)) {`);
    out.push(`        m = true;`);
    out.push(
      site.descend(
        sub,
        ["patternProperties", p],
        "false",
        "v",
        "k",
        "        ",
      ),
    );
    out.push(`      }`);
  }
  if (hasAdditional) {
    if (s.additionalProperties === false) {
      out.push(
        `      if (!m) ok = R1("additionalProperties", NA(k), ${
          q(site.kw("additionalProperties"))
        }, FS(k));`,
      );
    } else {
      out.push(`      if (!m) {`);
      out.push(
        site.descend(
          s.additionalProperties,
          ["additionalProperties"],
          "additionalProperties",
          "v",
          "k",
          "        ",
        ),
      );
      out.push(`      }`);
    }
  }
  out.push(`    }`);
  if (required.length) {
    out.push(`    if (r !== ${required.length}) {`);
    for (const k of required) {
      const present = `(HAS(x, ${q(k)}) && x[${q(k)}] !== undefined)`;
      out.push(
        `      if (!${present}) ok = R1("required", "required property is missing", ${
          q(site.kw("required"))
        }, ${fseg(q(k))});`,
      );
    }
    out.push(`    }`);
  }
  return out;
}
