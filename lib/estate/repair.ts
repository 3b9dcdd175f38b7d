import { isObject } from "../_object.ts";
import { jsonProblems } from "../schema/json_value.ts";
import { createRefResolver, type RefResolver } from "../schema/resolve.ts";
import { comparePathSegments, compareStrings, formatPath } from "../schema/path.ts";
import { patternTest } from "../schema/pattern.ts";
import type { JsonSchema, PathSegment, SchemaIssue } from "../schema/types.ts";
import { validateSchema } from "../schema/validate.ts";

/** What one repair did. */
export interface Repair {
  /** Where in the arguments, e.g. `$.legs[0].amount`. */
  path: string;
  /** `coerced` a string to a number or boolean, `dropped` a forbidden property, `defaulted` a missing one. */
  kind: "coerced" | "dropped" | "defaulted";
  /** A sentence saying what changed, for logs and a model's repair turn. */
  message: string;
}

/** Options for {@linkcode repairArguments}. */
export interface RepairOptions {
  /**
   * Platform defaults for missing properties, used where the schema has no `default`: keyed by a
   * top-level property name (`currency`) or by a `$` path (`$.debtor.country`).
   */
  defaults?: Record<string, unknown>;
}

/** The outcome of {@linkcode repairArguments}. */
export interface RepairResult {
  /**
   * The repaired arguments: a new value; the input is never changed. Input that is not JSON is
   * handed back as it is, unrepaired, with a `json` issue at each place that is not JSON.
   */
  arguments: unknown;
  /** What was repaired, in the order applied (document order). */
  repairs: Repair[];
  /** The issues left after repair, sorted as {@linkcode validateSchema} sorts them. */
  issues: SchemaIssue[];
}

/** The JSON number grammar, exactly: no sign `+`, no leading zeros, no spaces, no hex. */
const JSON_NUMBER = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$/;

/**
 * Repairs the unambiguous, syntactic mistakes in tool-call arguments and nothing else:
 * - a string that is exactly a JSON number becomes a number where the schema wants a number and
 *   not a string (an integer only if it is a safe integer), when no precision is lost; `"true"` and
 *   `"false"` become booleans where the schema wants a boolean. Nothing else is coerced, and a
 *   number never becomes a string;
 * - properties that `additionalProperties: false` forbids are dropped (`__proto__` included,
 *   without touching any prototype);
 * - a missing property is filled from its schema `default`, else from `options.defaults`. A missing
 *   required property with neither stays missing and is reported: values are never invented.
 *
 * Repair is idempotent: repairing its own output changes nothing.
 *
 * Only JSON is repaired. Arguments holding anything `JSON.parse` cannot return — `NaN`,
 * `Infinity`, `undefined` (in an object or an array), an array hole, a function, a symbol, a
 * bigint, a `Date`, `Map` or other non-plain object, a getter, a cycle — are refused, never
 * coerced (`JSON.stringify` would turn `NaN` into a `null` that might validate): nothing is
 * repaired, and each such place is an issue with keyword `json`. `-0` is JSON.
 *
 * @param schema The tool's input schema.
 * @param args The arguments as the model sent them (not changed).
 * @param options Platform defaults.
 * @returns The repaired arguments, what was done, and the issues that remain.
 * @throws {TypeError} When a platform default, or a schema `default` repair would use, is not
 *   JSON (a configuration error, named with its key or path).
 *
 * @example
 * ```ts
 * import { repairArguments } from "@tool-estate/core";
 * import assert from "node:assert/strict";
 *
 * const schema = {
 *   type: "object",
 *   properties: {
 *     account: { type: "string" },
 *     amount: { type: "number" },
 *     urgent: { type: "boolean", default: false },
 *   },
 *   required: ["account", "amount"],
 *   additionalProperties: false,
 * };
 * const out = repairArguments(schema, { amount: "42.50", note: "pls hurry" });
 * assert.deepEqual(out.arguments, { amount: 42.5, urgent: false });
 * assert.deepEqual(out.repairs.map((r) => `${r.kind} ${r.path}`), ["coerced $.amount", "dropped $.note", "defaulted $.urgent"]);
 * assert.deepEqual(out.issues.map((i) => `${i.path} ${i.keyword}`), ["$.account required"]); // never invented
 * ```
 */
export function repairArguments(
  schema: JsonSchema,
  args: unknown,
  options: RepairOptions = {},
): RepairResult {
  const notJson = jsonProblems(args);
  if (notJson.length) {
    const issues = notJson.sort((a, b) =>
      comparePathSegments(a.path, b.path) ||
      compareStrings(a.message, b.message)
    ).map((p) => ({
      path: formatPath(p.path),
      keyword: "json",
      message: p.message,
      schemaPath: "$",
    }));
    return { arguments: args, repairs: [], issues };
  }
  const defaults = options.defaults ?? {};
  for (const k of Object.keys(defaults)) {
    const bad = jsonProblems(defaults[k], 1)[0];
    if (bad) {
      throw new TypeError(
        `Cannot repair with options.defaults[${JSON.stringify(k)}]${
          bad.path.length ? ` at ${formatPath(bad.path)}` : ""
        }: ${bad.message}`,
      );
    }
  }
  const repairs: Repair[] = [];
  const resolve = createRefResolver(schema);
  const repaired = repairValue(schema, args, [], {
    resolve,
    repairs,
    defaults,
  });
  return {
    arguments: repaired,
    repairs,
    issues: validateSchema(schema, repaired),
  };
}

interface State {
  resolve: RefResolver;
  repairs: Repair[];
  defaults: Record<string, unknown>;
}

/** Sets an own property without ever invoking the `__proto__` setter. */
function put(o: Record<string, unknown>, k: string, v: unknown): void {
  Object.defineProperty(o, k, {
    value: v,
    enumerable: true,
    writable: true,
    configurable: true,
  });
}

function clone(v: unknown): unknown {
  return v === undefined ? undefined : JSON.parse(JSON.stringify(v));
}

/** The types a schema allows at its top level, or undefined when it does not say. */
function typesOf(s: Record<string, unknown>): string[] | undefined {
  if (typeof s.type === "string") return [s.type];
  if (Array.isArray(s.type)) {
    return s.type.filter((t): t is string => typeof t === "string");
  }
  return undefined;
}

/** Digits and exponent of a decimal text, normalised so equal values compare equal. */
function normalDecimal(text: string): string {
  const m = /^-?(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(text)!;
  let digits = m[1] + (m[2] ?? "");
  let exp = Number(m[3] ?? 0) - (m[2]?.length ?? 0);
  digits = digits.replace(/^0+/, "");
  if (digits === "") return "0";
  while (digits.endsWith("0")) {
    digits = digits.slice(0, -1);
    exp++;
  }
  return `${text.startsWith("-") ? "-" : ""}${digits}e${exp}`;
}

/** The number a string stands for, when the conversion is exact; otherwise undefined. */
function exactNumber(text: string, integer: boolean): number | undefined {
  if (!JSON_NUMBER.test(text)) return undefined;
  const n = Number(text);
  if (!Number.isFinite(n)) return undefined;
  if (integer && !Number.isSafeInteger(n)) return undefined;
  if (normalDecimal(text) !== normalDecimal(String(n).replace(/e\+/, "e"))) {
    return undefined;
  }
  return n;
}

function repairValue(
  schemaIn: unknown,
  value: unknown,
  path: PathSegment[],
  st: State,
): unknown {
  const schema = st.resolve(schemaIn as JsonSchema);
  if (!isObject(schema)) return clone(value);
  const types = typesOf(schema);

  if (typeof value === "string" && types && !types.includes("string")) {
    const wantsInteger = types.includes("integer") && !types.includes("number");
    if (types.includes("number") || types.includes("integer")) {
      const n = exactNumber(value, wantsInteger);
      if (n !== undefined) {
        st.repairs.push({
          path: formatPath(path),
          kind: "coerced",
          message: `coerced string ${JSON.stringify(value)} to number ${n}`,
        });
        return n;
      }
    }
    if (types.includes("boolean") && (value === "true" || value === "false")) {
      st.repairs.push({
        path: formatPath(path),
        kind: "coerced",
        message: `coerced string "${value}" to boolean ${value}`,
      });
      return value === "true";
    }
    return value;
  }

  if (Array.isArray(value)) {
    const prefix = Array.isArray(schema.prefixItems)
      ? schema.prefixItems
      : Array.isArray(schema.items)
      ? schema.items
      : [];
    const rest = Array.isArray(schema.items) ? schema.additionalItems : schema.items;
    return value.map((item, i) => {
      const sub = i < prefix.length ? prefix[i] : rest;
      return sub === undefined ? clone(item) : repairValue(sub, item, [...path, i], st);
    });
  }

  if (isObject(value)) {
    if (types && !types.includes("object")) return clone(value);
    const props = isObject(schema.properties) ? schema.properties : {};
    const patterns = isObject(schema.patternProperties)
      ? Object.keys(schema.patternProperties)
      : [];
    const out: Record<string, unknown> = {};
    const keys = Object.keys(value);
    for (const k of keys) {
      const named = Object.hasOwn(props, k);
      if (
        !named && schema.additionalProperties === false &&
        !patterns.some((p) => safeTest(p, k))
      ) {
        st.repairs.push({
          path: formatPath([...path, k]),
          kind: "dropped",
          message: `dropped property ${JSON.stringify(k)}, which the schema does not allow`,
        });
        continue;
      }
      put(
        out,
        k,
        named ? repairValue(props[k], value[k], [...path, k], st) : clone(value[k]),
      );
    }
    for (const k of Object.keys(props)) {
      if (Object.hasOwn(value, k)) continue;
      const propSchema = st.resolve(props[k] as JsonSchema);
      const where = formatPath([...path, k]);
      let filled: unknown;
      let source = "";
      if (isObject(propSchema) && Object.hasOwn(propSchema, "default")) {
        filled = propSchema.default;
        source = "the schema's default";
        const bad = jsonProblems(filled, 1)[0];
        if (bad) {
          throw new TypeError(
            `Cannot repair ${where} with the schema's default: ${bad.message}`,
          );
        }
      } else if (Object.hasOwn(st.defaults, where)) {
        filled = st.defaults[where];
        source = "the platform default";
      } else if (path.length === 0 && Object.hasOwn(st.defaults, k)) {
        filled = st.defaults[k];
        source = "the platform default";
      } else continue;
      st.repairs.push({
        path: where,
        kind: "defaulted",
        message: `filled missing ${k} with ${JSON.stringify(filled)} from ${source}`,
      });
      // A default goes through the same repair as a sent value, so repair stays idempotent.
      put(out, k, repairValue(props[k], clone(filled), [...path, k], st));
    }
    return out;
  }
  return clone(value);
}

/** Whether a key may match a patternProperties pattern; a pattern that cannot run counts as a match. */
function safeTest(pattern: string, key: string): boolean {
  const test = patternTest(pattern);
  return test === undefined || test(key);
}
