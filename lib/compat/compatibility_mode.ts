/**
 * Compatibility modes, named as Confluent's schema registry names them and defined for tool
 * contracts. With `accepts(S)` the values a contract's input schema accepts (through the
 * properties it names), a change from the published contract O to the candidate N is, per mode:
 *
 * | mode | a non-major change guarantees | breaking (major) |
 * |---|---|---|
 * | `backward` | every call O accepted, N accepts: callers built for O keep working | N rejects a value O accepted |
 * | `forward` | every call N accepts, O accepts: callers built for N survive a rollback to O | N accepts a value O rejected |
 * | `full` | both: N and O accept the same calls | any change of the accepted calls |
 *
 * Each has a `-transitive` variant: the guarantee holds against every version of the major line
 * that is not retired, not only the newest. Outputs follow the mirror rule: a consumer of
 * `structuredContent` relies on the values the output schema allows, so `backward` for outputs
 * means every value N may return, O allowed (consumers built for O keep working), `forward` means
 * every value O may return, N allows (consumers built for N survive a rollback), `full` both.
 *
 * @module
 */

/** A compatibility mode a tool or the estate declares (default `backward`). */
export type CompatibilityMode =
  | "backward"
  | "backward-transitive"
  | "forward"
  | "forward-transitive"
  | "full"
  | "full-transitive";

/** Every {@linkcode CompatibilityMode}, the default first. */
export const COMPATIBILITY_MODES: readonly CompatibilityMode[] = [
  "backward",
  "backward-transitive",
  "forward",
  "forward-transitive",
  "full",
  "full-transitive",
];

/** The mode when neither the tool nor the estate declares one: today's rule. */
export const DEFAULT_COMPATIBILITY: CompatibilityMode = "backward";

/**
 * Whether a value names a compatibility mode.
 *
 * @param value The candidate.
 * @returns True for one of {@linkcode COMPATIBILITY_MODES}.
 *
 * @example
 * ```ts
 * import { isCompatibilityMode } from "@tool-estate/core";
 * import assert from "node:assert/strict";
 * assert.equal(isCompatibilityMode("forward-transitive"), true);
 * assert.equal(isCompatibilityMode("FORWARD"), false);
 * ```
 */
export function isCompatibilityMode(
  value: unknown,
): value is CompatibilityMode {
  return COMPATIBILITY_MODES.includes(value as CompatibilityMode);
}

/** What a mode asks of a change: which guarantees, and against which versions. */
export interface CompatibilityRule {
  /** Callers (consumers, for outputs) built for the old contract keep working with the new one. */
  backward: boolean;
  /** Callers (consumers) built for the new contract keep working after a rollback to the old one. */
  forward: boolean;
  /** Against every version of the major line that is not retired, not only the newest. */
  transitive: boolean;
}

/**
 * The guarantees a mode asks for.
 *
 * @param mode The mode.
 * @returns Its directions, and whether it is transitive.
 *
 * @example
 * ```ts
 * import { compatibilityRule } from "@tool-estate/core";
 * import assert from "node:assert/strict";
 * assert.deepEqual(compatibilityRule("full-transitive"), { backward: true, forward: true, transitive: true });
 * assert.deepEqual(compatibilityRule("forward"), { backward: false, forward: true, transitive: false });
 * ```
 */
export function compatibilityRule(mode: CompatibilityMode): CompatibilityRule {
  const base = mode.replace(/-transitive$/, "");
  return {
    backward: base !== "forward",
    forward: base !== "backward",
    transitive: mode.endsWith("-transitive"),
  };
}

/**
 * The mode that asks for what both modes ask: the directions of either, transitive if either is.
 * A publish that changes a tool's mode is held to this (`backward` → `forward` is checked as
 * `full`), so a change of mode never lets through a change either mode calls breaking. The
 * gateway's drift check holds a tool to its mode combined with `backward`.
 *
 * @param a One mode.
 * @param b The other.
 * @returns The combined mode.
 *
 * @example
 * ```ts
 * import { combineCompatibility } from "@tool-estate/core";
 * import assert from "node:assert/strict";
 * assert.equal(combineCompatibility("backward", "forward-transitive"), "full-transitive");
 * assert.equal(combineCompatibility("forward", "forward"), "forward");
 * ```
 */
export function combineCompatibility(
  a: CompatibilityMode,
  b: CompatibilityMode,
): CompatibilityMode {
  const x = compatibilityRule(a), y = compatibilityRule(b);
  const backward = x.backward || y.backward, forward = x.forward || y.forward;
  const base = backward && forward ? "full" : forward ? "forward" : "backward";
  return (x.transitive || y.transitive ? `${base}-transitive` : base) as CompatibilityMode;
}
