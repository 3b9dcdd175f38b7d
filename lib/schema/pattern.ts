import { compilePattern } from "./safe_pattern.ts";

/**
 * Compiles a JSON Schema `pattern` for use outside the validator, with the validator's guarantees:
 * ECMA-262 semantics, run natively only where backtracking is bounded and otherwise by a
 * linear-time engine.
 *
 * @param source The regular expression source, as written in a schema.
 * @returns A search test, or `undefined` when the pattern cannot be run safely.
 *
 * @example
 * ```ts
 * import { patternTest } from "@tool-estate/core";
 * import assert from "node:assert/strict";
 * assert.equal(patternTest("^(a+)+$")!("a".repeat(40) + "!"), false);
 * assert.equal(patternTest("(a)\\1"), undefined);
 * ```
 */
export function patternTest(
  source: string,
): ((text: string) => boolean) | undefined {
  const c = compilePattern(source);
  return c.ok ? (text) => c.pattern.test(text) : undefined;
}
