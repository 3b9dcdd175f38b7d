/**
 * The restricted schema of a form elicitation (`elicitation/create`, mode `form`): a flat object
 * whose properties are primitives only, as the 2025-11-25 and 2026-07-28 schemas define it —
 * `string` (with `format` `email`, `uri`, `date` or `date-time`), `number`/`integer`,
 * `boolean`, a single-select enum (`enum`, `oneOf` of `{const, title}`, or the legacy `enumNames`)
 * and a multi-select enum (`array` whose `items` is `{type: "string", enum}` or `anyOf` of
 * `{const, title}`). {@linkcode checkElicitationSchema} lists what a requested schema has beyond
 * that; {@linkcode checkElicitationContent} checks the content a user submits against it.
 *
 * Both answer with data: a list of issues, each with a path and a keyword.
 *
 * @module
 */
import { isObject } from "../_object.ts";

/** One way a requested schema, or the content submitted for it, breaks the restricted form. */
export interface ElicitationSchemaIssue {
  /** Where: `$` is the schema (or the content), `$.properties.email.format` a keyword in it. */
  path: string;
  /** The keyword at fault (`type`, `properties`, `format`, `required`, `enum`, …). */
  keyword: string;
  /** What is wrong, for a person. */
  message: string;
}

const ROOT_KEYS = new Set([
  "$schema",
  "type",
  "properties",
  "required",
  "title",
  "description",
]);
const STRING_FORMATS = new Set(["email", "uri", "date", "date-time"]);
const COMMON_KEYS = ["type", "title", "description", "default"];
const KEYS: Record<string, Set<string>> = {
  string: new Set([...COMMON_KEYS, "minLength", "maxLength", "format"]),
  enum: new Set([...COMMON_KEYS, "enum", "enumNames"]),
  oneOf: new Set([...COMMON_KEYS, "oneOf"]),
  number: new Set([...COMMON_KEYS, "minimum", "maximum"]),
  boolean: new Set(COMMON_KEYS),
  array: new Set([...COMMON_KEYS, "minItems", "maxItems", "items"]),
};

/**
 * Lists what a form elicitation's `requestedSchema` has beyond the restricted flat form the
 * specification allows. An empty list means the schema is acceptable. Nested objects, arrays of
 * anything but enum strings, `pattern`, `$ref`, composition keywords and unknown keywords are all
 * reported.
 *
 * @param schema The `requestedSchema` as the server sent it.
 * @returns The issues, in the order found (empty when the schema is acceptable).
 *
 * @example
 * ```ts
 * import { checkElicitationSchema } from "@tool-estate/core";
 * import assert from "node:assert/strict";
 * assert.deepEqual(
 *   checkElicitationSchema({
 *     type: "object",
 *     properties: { email: { type: "string", format: "email" } },
 *     required: ["email"],
 *   }),
 *   [],
 * );
 * const [issue] = checkElicitationSchema({
 *   type: "object",
 *   properties: { address: { type: "object", properties: {} } },
 * });
 * assert.equal(issue.path, "$.properties.address.type");
 * ```
 */
export function checkElicitationSchema(
  schema: unknown,
): ElicitationSchemaIssue[] {
  const issues: ElicitationSchemaIssue[] = [];
  const add = (path: string, keyword: string, message: string): void => {
    issues.push({ path, keyword, message });
  };
  if (!isObject(schema)) {
    add("$", "type", "requestedSchema must be an object schema");
    return issues;
  }
  for (const key of Object.keys(schema)) {
    if (!ROOT_KEYS.has(key)) {
      add(`$.${key}`, key, `keyword ${key} is not allowed at the root`);
    }
  }
  if (schema.$schema !== undefined && typeof schema.$schema !== "string") {
    add("$.$schema", "$schema", "$schema must be a string");
  }
  if (schema.type !== "object") {
    add("$.type", "type", 'the root must be {"type": "object"}');
  }
  if (!isObject(schema.properties)) {
    add("$.properties", "properties", "properties must be an object");
    return issues;
  }
  for (const [name, property] of Object.entries(schema.properties)) {
    checkProperty(property, `$.properties.${name}`, add);
  }
  if (schema.required !== undefined) {
    const required = schema.required;
    if (
      !Array.isArray(required) || !required.every((r) => typeof r === "string")
    ) {
      add(
        "$.required",
        "required",
        "required must be an array of property names",
      );
    } else {
      for (const r of required) {
        if (!Object.hasOwn(schema.properties, r)) {
          add(
            "$.required",
            "required",
            `required names ${r}, which is not a property`,
          );
        }
      }
    }
  }
  return issues;
}

type Add = (path: string, keyword: string, message: string) => void;

/** Which restricted shape a property claims to be (from `type` and its enum keywords). */
function shapeOf(p: Record<string, unknown>): keyof typeof KEYS | undefined {
  switch (p.type) {
    case "string":
      return p.enum !== undefined ? "enum" : p.oneOf !== undefined ? "oneOf" : "string";
    case "number":
    case "integer":
      return "number";
    case "boolean":
      return "boolean";
    case "array":
      return "array";
  }
  return undefined;
}

function checkProperty(p: unknown, at: string, add: Add): void {
  if (!isObject(p)) {
    return add(at, "type", "a property must be a schema object");
  }
  const shape = shapeOf(p);
  if (shape === undefined) {
    return add(
      `${at}.type`,
      "type",
      "a property must be of type string, number, integer, boolean, or an array of enum strings",
    );
  }
  for (const key of Object.keys(p)) {
    if (!KEYS[shape].has(key)) {
      add(`${at}.${key}`, key, `keyword ${key} is not allowed here`);
    }
  }
  for (const key of ["title", "description"]) {
    if (p[key] !== undefined && typeof p[key] !== "string") {
      add(`${at}.${key}`, key, `${key} must be a string`);
    }
  }
  const counts = (keys: string[]): void => {
    for (const key of keys) {
      const v = p[key];
      if (
        v !== undefined &&
        !(typeof v === "number" && Number.isInteger(v) && v >= 0)
      ) {
        add(`${at}.${key}`, key, `${key} must be a non-negative integer`);
      }
    }
  };
  switch (shape) {
    case "string":
      counts(["minLength", "maxLength"]);
      if (p.format !== undefined && !STRING_FORMATS.has(p.format as string)) {
        add(
          `${at}.format`,
          "format",
          "format must be one of email, uri, date, date-time",
        );
      }
      if (p.default !== undefined && typeof p.default !== "string") {
        add(`${at}.default`, "default", "default must be a string");
      }
      return;
    case "enum": {
      const values = stringList(p.enum);
      if (!values) {
        return add(
          `${at}.enum`,
          "enum",
          "enum must be a non-empty array of strings",
        );
      }
      if (p.enumNames !== undefined) {
        const names = stringList(p.enumNames);
        if (!names || names.length !== values.length) {
          add(
            `${at}.enumNames`,
            "enumNames",
            "enumNames must be strings, one per enum value",
          );
        }
      }
      if (p.default !== undefined && !values.includes(p.default as string)) {
        add(
          `${at}.default`,
          "default",
          "default must be one of the enum values",
        );
      }
      return;
    }
    case "oneOf": {
      const values = titledConsts(p.oneOf);
      if (!values) {
        return add(
          `${at}.oneOf`,
          "oneOf",
          "oneOf must be a non-empty array of {const, title}",
        );
      }
      if (p.default !== undefined && !values.includes(p.default as string)) {
        add(
          `${at}.default`,
          "default",
          "default must be one of the oneOf constants",
        );
      }
      return;
    }
    case "number":
      for (const key of ["minimum", "maximum", "default"]) {
        if (p[key] !== undefined && typeof p[key] !== "number") {
          add(`${at}.${key}`, key, `${key} must be a number`);
        }
      }
      return;
    case "boolean":
      if (p.default !== undefined && typeof p.default !== "boolean") {
        add(`${at}.default`, "default", "default must be a boolean");
      }
      return;
    case "array": {
      counts(["minItems", "maxItems"]);
      const values = isObject(p.items) ? itemValues(p.items) : undefined;
      if (!values) {
        return add(
          `${at}.items`,
          "items",
          'items must be {"type": "string", "enum": [...]} or {"anyOf": [{const, title}, ...]}',
        );
      }
      const d = p.default;
      if (
        d !== undefined &&
        !(Array.isArray(d) &&
          d.every((v) => typeof v === "string" && values.includes(v)))
      ) {
        add(
          `${at}.default`,
          "default",
          "default must be an array of the enum values",
        );
      }
    }
  }
}

/** The values of a multi-select `items`, or undefined when it is not one of the two forms. */
function itemValues(items: Record<string, unknown>): string[] | undefined {
  const keys = Object.keys(items).sort().join(",");
  if (keys === "enum,type" && items.type === "string") {
    return stringList(items.enum);
  }
  if (keys === "anyOf") return titledConsts(items.anyOf);
  return undefined;
}

function stringList(v: unknown): string[] | undefined {
  return Array.isArray(v) && v.length > 0 &&
      v.every((s) => typeof s === "string")
    ? v as string[]
    : undefined;
}

function titledConsts(v: unknown): string[] | undefined {
  if (!Array.isArray(v) || v.length === 0) return undefined;
  const out: string[] = [];
  for (const o of v) {
    if (
      !isObject(o) || Object.keys(o).sort().join(",") !== "const,title" ||
      typeof o.const !== "string" || typeof o.title !== "string"
    ) return undefined;
    out.push(o.const);
  }
  return out;
}

/**
 * Checks the content a user submitted for a form elicitation against its requested schema (one
 * that {@linkcode checkElicitationSchema} accepts): every required property present, no property
 * the schema does not name, and each value of its property's type, within its bounds and enum.
 * Formats are not checked (the host's form does that as it sees fit).
 *
 * @param schema The requested schema.
 * @param content The submitted content.
 * @returns The issues (empty when the content fits).
 *
 * @example
 * ```ts
 * import { checkElicitationContent } from "@tool-estate/core";
 * import assert from "node:assert/strict";
 * const schema = { type: "object", properties: { age: { type: "integer", minimum: 18 } }, required: ["age"] };
 * assert.deepEqual(checkElicitationContent(schema, { age: 30 }), []);
 * assert.equal(checkElicitationContent(schema, { age: 12 })[0].keyword, "minimum");
 * ```
 */
export function checkElicitationContent(
  schema: Record<string, unknown>,
  content: unknown,
): ElicitationSchemaIssue[] {
  const issues: ElicitationSchemaIssue[] = [];
  const add: Add = (path, keyword, message) => issues.push({ path, keyword, message });
  if (!isObject(content)) {
    add("$", "type", "content must be an object");
    return issues;
  }
  const properties = isObject(schema.properties) ? schema.properties : {};
  const required = Array.isArray(schema.required) ? schema.required : [];
  for (const r of required) {
    if (typeof r === "string" && !Object.hasOwn(content, r)) {
      add("$", "required", `${r} is required`);
    }
  }
  for (const [name, value] of Object.entries(content)) {
    const p = properties[name];
    if (!isObject(p)) {
      add(
        `$.${name}`,
        "additionalProperties",
        `${name} is not a property of the form`,
      );
      continue;
    }
    checkValue(p, value, `$.${name}`, add);
  }
  return issues;
}

function checkValue(
  p: Record<string, unknown>,
  v: unknown,
  at: string,
  add: Add,
): void {
  const num = (key: string): number | undefined => typeof p[key] === "number" ? p[key] : undefined;
  switch (shapeOf(p)) {
    case "string": {
      if (typeof v !== "string") return add(at, "type", "must be a string");
      const min = num("minLength"), max = num("maxLength");
      const length = [...v].length;
      if (min !== undefined && length < min) {
        add(at, "minLength", `must be at least ${min} long`);
      }
      if (max !== undefined && length > max) {
        add(at, "maxLength", `must be at most ${max} long`);
      }
      return;
    }
    case "enum":
    case "oneOf": {
      const values = stringList(p.enum) ?? titledConsts(p.oneOf) ?? [];
      if (typeof v !== "string" || !values.includes(v)) {
        add(at, "enum", "must be one of the choices");
      }
      return;
    }
    case "number": {
      if (typeof v !== "number" || !Number.isFinite(v)) {
        return add(at, "type", "must be a number");
      }
      if (p.type === "integer" && !Number.isInteger(v)) {
        add(at, "type", "must be an integer");
      }
      const min = num("minimum"), max = num("maximum");
      if (min !== undefined && v < min) {
        add(at, "minimum", `must be at least ${min}`);
      }
      if (max !== undefined && v > max) {
        add(at, "maximum", `must be at most ${max}`);
      }
      return;
    }
    case "boolean":
      if (typeof v !== "boolean") add(at, "type", "must be a boolean");
      return;
    case "array": {
      const values = isObject(p.items) ? itemValues(p.items) ?? [] : [];
      if (!Array.isArray(v)) return add(at, "type", "must be an array");
      if (!v.every((x) => typeof x === "string" && values.includes(x))) {
        add(at, "enum", "every item must be one of the choices");
      }
      const min = num("minItems"), max = num("maxItems");
      if (min !== undefined && v.length < min) {
        add(at, "minItems", `must have at least ${min}`);
      }
      if (max !== undefined && v.length > max) {
        add(at, "maxItems", `must have at most ${max}`);
      }
      return;
    }
    default:
      add(at, "type", "the form's schema does not say what this is");
  }
}
