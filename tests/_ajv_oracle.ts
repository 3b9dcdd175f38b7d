/**
 * The independent validators the classifier's soundness checks ask (the soundness script and
 * `classify_suite_pairs_test.ts`): ajv for draft 2020-12 with ajv-formats, which enforces
 * `unevaluated*`, and @cfworker/json-schema as the third voice where ajv and this library's
 * validator disagree.
 *
 * @module
 */
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { Validator } from "@cfworker/json-schema";
import type { JsonSchema } from "../mod.ts";

type Ajv = { compile(schema: unknown): (v: unknown) => boolean };

function newAjv(): Ajv {
  // ajv's CommonJS default exports have no construct or call signature under Deno's types.
  // deno-lint-ignore no-explicit-any
  const ajv = new (Ajv2020 as any)({ strict: false, allowUnionTypes: true, logger: false });
  // deno-lint-ignore no-explicit-any
  (addFormats as any)(ajv);
  return ajv;
}

/** ajv's tests, per schema text; null where ajv refuses the schema. */
const tests = new Map<string, ((v: unknown) => boolean) | null>();
/** The ajv for schemas without an `$id`; replaced with the cache, since ajv keeps what it compiled. */
let shared = newAjv();

/**
 * ajv's test for a schema, or null where ajv refuses it (a remote reference, a form it does not
 * take). A schema with an `$id` gets its own ajv (two schemas may share an `$id`); the cache is
 * bounded, as compiled validators are large.
 */
export function ajvTest(schema: JsonSchema): ((v: unknown) => boolean) | null {
  if (typeof schema === "boolean") return () => schema;
  const key = JSON.stringify(schema);
  let test = tests.get(key);
  if (test === undefined) {
    try {
      const validate = (key.includes('"$id"') ? newAjv() : shared).compile(schema);
      test = (v) => validate(v);
    } catch {
      test = null;
    }
    if (tests.size >= 2_000) {
      tests.clear();
      shared = newAjv();
    }
    tests.set(key, test);
  }
  return test;
}

/** @cfworker/json-schema's verdict (draft 2020-12); undefined where it throws. */
export function cfworkerAccepts(schema: JsonSchema, value: unknown): boolean | undefined {
  try {
    return new Validator(schema as object, "2020-12", false).validate(value).valid;
  } catch {
    return undefined;
  }
}
