/** What the scalar generators need from the builder: a bounded filter and an error at their path. */
import type fc from "fast-check";
import type { SchemaGenerationError } from "./generation_error.ts";

/** Bounded filtering and errors, located at the subschema being generated. */
export interface ScalarContext {
  /** Keeps values that `accept`; gives up with a clear error after the attempt budget. */
  filter(
    arb: fc.Arbitrary<unknown>,
    accept: (v: unknown) => boolean,
    what: string,
  ): fc.Arbitrary<unknown>;
  /** The error to throw when no value can be generated here. */
  fail(reason: string): SchemaGenerationError;
}
