import { inPlaceCycle, inPlaceCycleMessage } from "./_cycles.ts";
import { Compiler } from "./_compile.ts";
import type { Check, CheckRun } from "./_compile_context.ts";
import { generateForms } from "./_codegen_collect.ts";
import { finishRaw } from "./_finish.ts";
import type { JsonSchema, SchemaIssue } from "./types.ts";

/** Options for {@linkcode validateSchema}. */
export interface ValidateOptions {
  /**
   * Assert `format` (date, date-time, time, email, uri, uuid, ipv4, ipv6, hostname); unknown
   * formats always pass. Default `true`. Set `false` for draft 2020-12's annotation-only reading.
   */
  formatAssertion?: boolean;
  /** How many levels of nesting (values and `$ref`s) are validated before a `depth` issue. Default 1000. */
  maxDepth?: number;
}

/**
 * A schema compiled for one set of options: call it for every issue of a value (sorted, with
 * paths), or ask `isValid` for a yes or no. From {@linkcode compileSchema}.
 */
export interface CompiledSchema {
  /**
   * Every issue of a value, sorted as {@linkcode validateSchema} sorts them; empty when valid.
   *
   * @param value The value.
   * @returns The issues.
   */
  (value: unknown): SchemaIssue[];
  /**
   * Whether a value is valid: stops at the first failure.
   *
   * @param value The value.
   * @returns True when the compiled schema would report no issue.
   */
  isValid(value: unknown): boolean;
}

/**
 * Compiles a schema once for one set of options, the way ajv users expect: the returned function
 * gives every issue of a value, `isValid` a yes or no. Both are generated JavaScript where the
 * runtime allows it (the issues in one walk of the value, paths built only for what fails), else
 * closures that give the same answers.
 *
 * `validateSchema(schema, value)` and `isValid(schema, value)` keep a compiled form per schema
 * object (by identity) and use it; `compileSchema` is for code that holds on to a validator
 * itself — a tool's handler, a replay loop, a hot path that wants no cache lookup. Use
 * `validateSchema` when schemas come and go; hold a `CompiledSchema` when one schema validates
 * many values.
 *
 * @param schema The schema.
 * @param options Format assertion and depth limit.
 * @returns The validator.
 *
 * @example
 * ```ts
 * import { compileSchema } from "@tool-estate/core";
 * import assert from "node:assert/strict";
 *
 * const validate = compileSchema({ type: "object", properties: { amount: { type: "number" } }, required: ["amount"] });
 * assert.equal(validate.isValid({ amount: 12.5 }), true);
 * assert.deepEqual(validate({ amount: "12.5" }).map((i) => i.path), ["$.amount"]);
 * ```
 */
export function compileSchema(
  schema: JsonSchema,
  options: ValidateOptions = {},
): CompiledSchema {
  return compiledFor(
    schema,
    options.formatAssertion ?? true,
    options.maxDepth ?? 1000,
  );
}

/** A schema's compiled forms for option sets other than the default, and its closures. */
interface Forms {
  closures?: Check;
  others?: Map<string, CompiledSchema>;
}

/**
 * The compiled form for the default options, by schema identity: what nearly every call asks
 * for, one lookup away.
 */
const defaults = new WeakMap<object, CompiledSchema>();
const cache = new WeakMap<object, Forms>();

/** The compiled form of a schema for an option set, cached by the schema object's identity. */
function compiledFor(
  schema: JsonSchema,
  formats: boolean,
  maxDepth: number,
): CompiledSchema {
  const isObject = typeof schema === "object" && schema !== null;
  const isDefault = formats && maxDepth === 1000;
  if (isDefault && isObject) {
    const hit = defaults.get(schema);
    if (hit !== undefined) return hit;
  }
  let forms = isObject ? cache.get(schema) : undefined;
  if (forms) {
    const hit = isDefault ? undefined : forms.others?.get(`${formats}:${maxDepth}`);
    if (hit) return hit;
  } else {
    forms = {};
    if (isObject) cache.set(schema, forms);
  }
  const compiled = build(schema, forms, formats, maxDepth);
  if (isDefault) {
    if (isObject) defaults.set(schema, compiled);
  } else (forms.others ??= new Map()).set(`${formats}:${maxDepth}`, compiled);
  return compiled;
}

function build(
  schema: JsonSchema,
  forms: Forms,
  formats: boolean,
  maxDepth: number,
): CompiledSchema {
  const cycle = inPlaceCycle(schema);
  if (cycle) {
    // Fail closed, before any value is tested: such a schema's tests may never end.
    const issue: SchemaIssue = Object.freeze({
      path: "$",
      keyword: "$ref",
      message: inPlaceCycleMessage(cycle),
      schemaPath: cycle.path,
    });
    const refuse = ((_value: unknown): SchemaIssue[] => [issue]) as CompiledSchema;
    refuse.isValid = () => false;
    return refuse;
  }
  // Most calls are valid: the boolean check answers them. Only a value it rejects is walked by
  // the collector, which builds paths only for what fails.
  const generated = generateForms(schema, { formats, maxDepth, nothing: disagreement });
  if (generated) {
    const validate = generated.validate as CompiledSchema;
    validate.isValid = generated.isValid;
    return validate;
  }
  // Where generated code is not allowed: the closures, for both.
  const closures = (): Check => (forms.closures ??= new Compiler(schema).root(schema));
  const fast = (value: unknown) =>
    closures()(value, { issues: null, path: [], depth: 0, maxDepth, formats });
  const validate = ((value: unknown): SchemaIssue[] => {
    if (fast(value)) return [];
    const ctx: CheckRun = { issues: [], path: [], depth: 0, maxDepth, formats };
    closures()(value, ctx);
    const raw = ctx.issues!;
    return raw.length === 0 ? disagreement() : finishRaw(raw);
  }) as CompiledSchema;
  validate.isValid = fast;
  return validate;
}

/**
 * Validates a value against a JSON Schema (draft 2020-12, with draft-07 forms) and returns
 * **all** issues, sorted: by path segment by segment (indexes numerically, names by code unit, a
 * prefix first), then keyword, then message. A type mismatch gives one issue at its path and
 * nothing below it; a missing required property is reported at the property's own path.
 *
 * The schema is compiled once and cached by identity: validate many values against the same
 * schema object. Nothing is fetched: a `$ref` outside the schema gives a `$ref` issue.
 *
 * @param schema The schema.
 * @param value The value, e.g. a tool call's arguments.
 * @param options Format assertion and depth limit.
 * @returns The issues; empty when the value is valid.
 *
 * @example
 * ```ts
 * import { validateSchema } from "@tool-estate/core";
 * import assert from "node:assert/strict";
 *
 * const schema = {
 *   type: "object",
 *   properties: { amount: { type: "integer", minimum: 1 }, currency: { type: "string" } },
 *   required: ["amount", "currency"],
 * };
 * const issues = validateSchema(schema, { amount: "12" });
 * assert.deepEqual(issues.map((i) => `${i.path} ${i.keyword}`), ["$.amount type", "$.currency required"]);
 * ```
 */
export function validateSchema(
  schema: JsonSchema,
  value: unknown,
  options?: ValidateOptions,
): SchemaIssue[] {
  if (options === undefined) {
    const hit = defaults.get(schema as object);
    if (hit !== undefined) return hit(value);
  }
  return compiledFor(
    schema,
    options?.formatAssertion ?? true,
    options?.maxDepth ?? 1000,
  )(value);
}

/**
 * Whether a value satisfies a schema; the fast path of {@linkcode validateSchema}, which stops
 * at the first failure.
 *
 * @param schema The schema.
 * @param value The value.
 * @param options Format assertion and depth limit.
 * @returns `true` when {@linkcode validateSchema} would return no issues.
 *
 * @example
 * ```ts
 * import { isValid } from "@tool-estate/core";
 * import assert from "node:assert/strict";
 * assert.equal(isValid({ type: "integer" }, true), false);
 * assert.equal(isValid({ type: "number" }, 5), true);
 * ```
 */
export function isValid(
  schema: JsonSchema,
  value: unknown,
  options?: ValidateOptions,
): boolean {
  if (options === undefined) {
    const hit = defaults.get(schema as object);
    if (hit !== undefined) return hit.isValid(value);
  }
  return compiledFor(
    schema,
    options?.formatAssertion ?? true,
    options?.maxDepth ?? 1000,
  )
    .isValid(value);
}

/** What `validateSchema` says when its two validators disagree (a bug): the value is rejected. */
const DISAGREEMENT: SchemaIssue = Object.freeze({
  path: "$",
  keyword: "schema",
  message: "value rejected; the validator found no detail",
  schemaPath: "$",
});

function disagreement(): SchemaIssue[] {
  return [DISAGREEMENT];
}
