/**
 * The evidence behind a major verdict: a call the published version took that the draft refuses
 * (for an input change under `backward`), or a result the draft may return that the published
 * version's callers were promised would not come (for an output change), or the mirror under
 * `forward`. A real stored call is shown first ("the call of 2026-11-12 by retail-agent"), else a
 * made one; each is checked by the validator (`findWitness`) before it is shown.
 *
 * @module
 */
import { type CompatibilityMode, compatibilityRule } from "../compat/compatibility_mode.ts";
import { findWitness } from "../compat/witness.ts";
import { shortenText } from "../schema/issue_limit.ts";
import type { JsonSchema, SchemaIssue } from "../schema/types.ts";
import type { SchemaChange } from "../compat/schema_change.ts";
import type { StoredCall } from "./replay.ts";

/** A value that shows a major change breaks someone, with why. */
export interface BreakingCall {
  /** Which schema: the input (a call) or the output (a result). */
  field: "inputSchema" | "outputSchema";
  /** The value: a call's arguments, or a result. */
  value: unknown;
  /**
   * `old-accepts`: the published schema accepts it, the draft's rejects it; `new-accepts`: the
   * mirror (an output a backward check fears, an input a forward check fears).
   */
  direction: "old-accepts" | "new-accepts";
  /** Why the rejecting schema rejects it: its first issue (path and schema path in that schema). */
  rejection: SchemaIssue;
  /**
   * Where in `field` of the draft to show it: the node that rejects it when that is the draft's,
   * else the first major change.
   */
  path: string;
  /** The stored call it is, when it is one. */
  call?: { principal: string; at: string; version: string };
  /** One sentence saying all of it. */
  message: string;
}

/** What {@linkcode breakingCall} needs. */
export interface BreakingCallSubject {
  /** The compatibility mode the change is held to. */
  mode: CompatibilityMode;
  /** The published version's schemas. */
  old: { inputSchema: JsonSchema; outputSchema?: JsonSchema };
  /** The draft's schemas. */
  draft: { inputSchema: JsonSchema; outputSchema?: JsonSchema };
  /**
   * The classified changes of the input and the output schema: evidence is sought for a side
   * with a major change, made first at the major changes' nodes.
   */
  changes: { input: readonly SchemaChange[]; output: readonly SchemaChange[] };
  /** The tool's stored calls (of the line being compared), tried first as input witnesses. */
  calls?: () => Iterable<StoredCall>;
  /**
   * What to call the two sides in the sentence. Default: `the published version` and
   * `the draft`.
   */
  names?: { old: string; draft: string };
}

function shown(value: unknown): string {
  return shortenText(JSON.stringify(value), 160);
}

/**
 * A breaking call (or result) for a major change, or `undefined` when none was found within the
 * search's bounds.
 *
 * @param subject The mode, both versions' schemas, their changes, the stored calls.
 * @returns The evidence, checked by the validator, with its sentence.
 */
export function breakingCall(
  subject: BreakingCallSubject,
): BreakingCall | undefined {
  const rule = compatibilityRule(subject.mode);
  const { old, draft } = subject;
  const name = subject.names ?? { old: "the published version", draft: "the draft" };
  const majorPaths = (changes: readonly SchemaChange[]) =>
    changes.filter((c) => c.bump === "major").map((c) => c.path);
  const at = {
    input: majorPaths(subject.changes.input),
    output: majorPaths(subject.changes.output),
  };
  // A rejection by the draft's schema is shown where it rejects; else at the first major change.
  const where = (field: "input" | "output", byDraft: SchemaIssue | undefined) =>
    byDraft?.schemaPath ?? at[field][0] ?? "$";
  if (at.input.length) {
    if (rule.backward) {
      const w = findWitness<StoredCall>(old.inputSchema, draft.inputSchema, {
        candidates: subject.calls?.() ?? [],
        valueOf: (c) => c.arguments,
        at: at.input,
      });
      if (w) {
        const why = `${w.rejection.path} ${w.rejection.message}`;
        const call = w.candidate
          ? {
            principal: w.candidate.principal,
            at: w.candidate.at,
            version: w.candidate.version,
          }
          : undefined;
        return {
          field: "inputSchema",
          value: w.value,
          direction: "old-accepts",
          rejection: w.rejection,
          path: where("input", w.rejection),
          ...(call ? { call } : {}),
          message: call
            ? `the call of ${call.at.slice(0, 10)} by ${call.principal} (to ${call.version}) with ${
              shown(w.value)
            } would now be rejected: ${why}`
            : `a call ${name.old} accepts, ${shown(w.value)}, would now be rejected: ${why}`,
        };
      }
    }
    if (rule.forward) {
      const w = findWitness(draft.inputSchema, old.inputSchema, { at: at.input });
      if (w) {
        return {
          field: "inputSchema",
          value: w.value,
          direction: "new-accepts",
          rejection: w.rejection,
          path: where("input", undefined),
          message: `a call ${name.draft} accepts, ${
            shown(w.value)
          }, fails after a rollback to ${name.old}: ${w.rejection.path} ${w.rejection.message}`,
        };
      }
    }
  }
  if (
    at.output.length && old.outputSchema !== undefined &&
    draft.outputSchema !== undefined
  ) {
    if (rule.backward) {
      const w = findWitness(draft.outputSchema, old.outputSchema, { at: at.output });
      if (w) {
        return {
          field: "outputSchema",
          value: w.value,
          direction: "new-accepts",
          rejection: w.rejection,
          path: where("output", undefined),
          message: `${name.draft} may return ${
            shown(w.value)
          }, which ${name.old}'s output schema rules out: ${w.rejection.path} ${w.rejection.message}`,
        };
      }
    }
    if (rule.forward) {
      const w = findWitness(old.outputSchema, draft.outputSchema, { at: at.output });
      if (w) {
        return {
          field: "outputSchema",
          value: w.value,
          direction: "old-accepts",
          rejection: w.rejection,
          path: where("output", undefined),
          message: `after a rollback ${name.old} may return ${
            shown(w.value)
          }, which ${name.draft}'s output schema rules out: ${w.rejection.path} ${w.rejection.message}`,
        };
      }
    }
  }
  return undefined;
}
