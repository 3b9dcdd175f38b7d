import { inPlaceCycle, inPlaceCycleMessage } from "./_cycles.ts";
import { compilePattern } from "./safe_pattern.ts";
import { DEFAULT_BASE, type Location, RefIndex } from "./refs.ts";
import { isObject } from "../_object.ts";
import { forEachSubschema, isSchema } from "./subschemas.ts";
import { ANNOTATION_KEYWORDS, ENFORCED_KEYWORDS, UNSUPPORTED_KEYWORDS } from "./keywords.ts";
import { formatPath, formatSegment, sortIssues } from "./path.ts";
import type { JsonSchema, SchemaIssue } from "./types.ts";

/** Options for {@linkcode checkSchema}. */
export interface CheckSchemaOptions {
  /** Require `type: "object"` at the root, as MCP requires of a tool's input schema. Default `true`. */
  toolInput?: boolean;
}

const KNOWN = new Set([...ENFORCED_KEYWORDS, ...ANNOTATION_KEYWORDS]);
const UNSUPPORTED = new Set(UNSUPPORTED_KEYWORDS);
const TYPES = new Set([
  "null",
  "boolean",
  "object",
  "array",
  "number",
  "integer",
  "string",
]);
const NON_NEGATIVE_INTEGER = [
  "maxLength",
  "minLength",
  "maxItems",
  "minItems",
  "maxProperties",
  "minProperties",
  "maxContains",
  "minContains",
];
const NUMBERS = ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"];
const MAX_SCHEMA_DEPTH = 500;

/**
 * Reports what the validator cannot enforce in a schema, so that a publish can fail closed: an
 * unknown or unsupported keyword, a keyword with a value of the wrong shape, a remote or dangling
 * `$ref`, a pattern that cannot run in linear time, and (for a tool input schema) a root that is
 * not `type: "object"`. Paths point into the schema, e.g. `$.properties.iban.pattern`.
 *
 * @param schema The schema to check.
 * @param options Whether it is a tool input schema (the default).
 * @returns The issues, sorted; empty when the validator enforces the whole schema.
 *
 * @example
 * ```ts
 * import { checkSchema } from "@tool-estate/core";
 * import assert from "node:assert/strict";
 *
 * const issues = checkSchema({
 *   type: "object",
 *   properties: { iban: { type: "string", $ref: "https://example.com/iban.json" } },
 *   unevaluatedProperties: false,
 * });
 * assert.deepEqual(issues.map((i) => `${i.path} ${i.keyword}`), [
 *   "$.properties.iban.$ref $ref",
 *   "$.unevaluatedProperties unevaluatedProperties",
 * ]);
 * ```
 */
export function checkSchema(
  schema: JsonSchema,
  options: CheckSchemaOptions = {},
): SchemaIssue[] {
  const issues: SchemaIssue[] = [];
  const add = (path: string, keyword: string, message: string): void => {
    issues.push({ path, keyword, message, schemaPath: path });
  };
  if (!isSchema(schema)) {
    add(
      "$",
      "schema",
      `a schema must be an object or a boolean, got ${JSON.stringify(schema) ?? typeof schema}`,
    );
    return issues;
  }
  if (options.toolInput ?? true) {
    if (!isObject(schema) || schema.type !== "object") {
      add(
        "$",
        "type",
        'a tool input schema must have type "object" at its root',
      );
    }
  }
  const index = new RefIndex(schema);
  const seen = new Set<object>();
  const visit = (node: JsonSchema, loc: Location): void => {
    if (!isObject(node) || seen.has(node)) return;
    seen.add(node);
    const at = formatPath(loc.segments);
    if (loc.segments.length > MAX_SCHEMA_DEPTH) {
      add(
        at,
        "depth",
        `schema nested more than ${MAX_SCHEMA_DEPTH} levels deep`,
      );
      return;
    }
    for (const key of Object.keys(node)) {
      checkKeyword(node, key, at + formatSegment(key), loc, index, add);
    }
    forEachSubschema(node, (sub, segs) => {
      visit(
        sub,
        index.locationOf(sub) ??
          { base: loc.base, segments: [...loc.segments, ...segs] },
      );
    });
  };
  visit(
    schema,
    index.locationOf(schema) ?? { base: DEFAULT_BASE, segments: [] },
  );
  const cycle = inPlaceCycle(schema, index);
  if (cycle) add(cycle.path, "$ref", inPlaceCycleMessage(cycle));
  return sortIssues(issues);
}

function checkKeyword(
  node: Record<string, unknown>,
  key: string,
  at: string,
  loc: Location,
  index: RefIndex,
  add: (path: string, keyword: string, message: string) => void,
): void {
  const v = node[key];
  if (UNSUPPORTED.has(key)) {
    add(at, key, `unsupported keyword ${key}: the validator cannot enforce it`);
    return;
  }
  if (!KNOWN.has(key)) {
    if (key.startsWith("x-")) return; // extension annotations
    add(
      at,
      key,
      `unknown keyword ${key}: nothing enforces it; remove it or use a supported keyword`,
    );
    return;
  }
  const bad = (expected: string): void =>
    add(
      at,
      key,
      `${key} must be ${expected}, got ${JSON.stringify(v) ?? typeof v}`,
    );
  if (key === "type") {
    const list = Array.isArray(v) ? v : [v];
    if (
      list.length === 0 ||
      !list.every((t) => typeof t === "string" && TYPES.has(t))
    ) {
      bad("a JSON type name or a list of them");
    }
  } else if (NON_NEGATIVE_INTEGER.includes(key)) {
    if (!Number.isInteger(v) || (v as number) < 0) {
      bad("a non-negative integer");
    }
  } else if (NUMBERS.includes(key)) {
    if (typeof v === "boolean") {
      add(
        at,
        key,
        `${key} as a boolean is the draft-04 form, which is not supported: use a number`,
      );
    } else if (typeof v !== "number") bad("a number");
  } else if (key === "multipleOf") {
    if (typeof v !== "number" || !(v > 0)) bad("a number greater than 0");
  } else if (key === "required") {
    if (!Array.isArray(v) || !v.every((x) => typeof x === "string")) {
      bad("a list of property names");
    }
  } else if (key === "enum") {
    if (!Array.isArray(v)) bad("a list of values");
  } else if (key === "uniqueItems") {
    if (typeof v !== "boolean") bad("a boolean");
  } else if (key === "format" || key === "pattern") {
    if (typeof v !== "string") bad("a string");
  } else if (key === "dependentRequired") {
    if (
      !isObject(v) ||
      !Object.values(v).every((d) => Array.isArray(d) && d.every((x) => typeof x === "string"))
    ) {
      bad("an object of property-name lists");
    }
  } else if (["allOf", "anyOf", "oneOf", "prefixItems"].includes(key)) {
    if (!Array.isArray(v) || v.length === 0 || !v.every(isSchema)) {
      bad("a non-empty list of schemas");
    }
  } else if (
    [
      "properties",
      "patternProperties",
      "$defs",
      "definitions",
      "dependentSchemas",
    ].includes(key)
  ) {
    if (!isObject(v) || !Object.values(v).every(isSchema)) {
      bad("an object of schemas");
    }
  } else if (
    [
      "additionalProperties",
      "propertyNames",
      "not",
      "if",
      "then",
      "else",
      "contains",
    ].includes(key)
  ) {
    if (!isSchema(v)) bad("a schema");
  } else if (key === "items") {
    if (!isSchema(v) && !(Array.isArray(v) && v.every(isSchema))) {
      bad("a schema");
    }
  }

  if (key === "pattern" && typeof v === "string") checkPattern(v, at, add);
  if (key === "patternProperties" && isObject(v)) {
    for (const p of Object.keys(v)) checkPattern(p, at + formatSegment(p), add);
  }
  if (key === "$ref") {
    if (typeof v !== "string") bad("a URI reference string");
    else if (!index.resolve(v, loc)) {
      const local = v.startsWith("#");
      add(
        at,
        "$ref",
        local
          ? `dangling $ref ${JSON.stringify(v)}: no such location in this schema`
          : `remote $ref ${
            JSON.stringify(v)
          }: references outside the schema are never fetched; inline it under $defs`,
      );
    }
  }
}

function checkPattern(
  source: string,
  at: string,
  add: (p: string, k: string, m: string) => void,
): void {
  const c = compilePattern(source);
  if (!c.ok) {
    add(
      at,
      "pattern",
      `pattern ${JSON.stringify(source)} cannot be run safely: ${c.reason}`,
    );
  }
}
