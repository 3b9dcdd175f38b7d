/**
 * Classifying a change under a compatibility mode, transitive modes included: the one function
 * publish, `estate check`, the editor and the gateway's drift check share.
 *
 * @module
 */
import type { JsonSchema } from "../schema/types.ts";
import { classifyOutputSchemaChange, classifySchemaChange } from "./classify.ts";
import {
  type CompatibilityMode,
  compatibilityRule,
  DEFAULT_COMPATIBILITY,
} from "./compatibility_mode.ts";
import type { SchemaChange, SchemaChangeClassification } from "./schema_change.ts";

/** An earlier version of the major line, for a transitive mode. */
export interface EarlierSchema {
  /** Its version, named in the changes found against it: `1.0.0`. */
  version: string;
  /** Its input schema (or output schema, with `output`); undefined: it has no output schema. */
  schema: JsonSchema | undefined;
}

/** Options for {@linkcode classifyForMode}. */
export interface ClassifyForModeOptions {
  /** The mode. Default `backward`. */
  mode?: CompatibilityMode;
  /** Classify output schemas (the mirror rule of `classifyOutputSchemaChange`). Default false. */
  output?: boolean;
  /** The bump for a changed `description` or `title`, as for `classifySchemaChange`. */
  descriptionBump?: "patch" | "minor";
  /**
   * For a `-transitive` mode: the other versions of the major line the change must keep the
   * mode's guarantee against (oldest first; the baseline itself is `oldSchema`). Ignored by the
   * other modes.
   */
  earlier?: readonly EarlierSchema[];
}

/** What {@linkcode classifyForMode} decides. */
export interface ModeClassification extends SchemaChangeClassification {
  /** The mode it was classified under. */
  mode: CompatibilityMode;
  /** The earlier versions (from `earlier`) the change is breaking against, oldest first. */
  breaksAgainst: string[];
}

/**
 * Classifies the change from a published contract to a candidate under a compatibility mode. The
 * bump and changes against `oldSchema` (the baseline, the newest version) are
 * `classifySchemaChange`'s (or `classifyOutputSchemaChange`'s) under the mode; a `-transitive`
 * mode also classifies the change against each of `earlier`, and where it is breaking (major)
 * against one, the bump is major and those major changes are listed too, after the baseline's,
 * each message ending `(against <version>)`. A change that is only minor against an earlier
 * version raises nothing: the versions between them already released it.
 *
 * @param oldSchema The baseline's schema (undefined only for an output schema it lacks).
 * @param newSchema The candidate's schema (undefined only for an output schema it lacks).
 * @param options The mode, inputs or outputs, and the earlier versions of the line.
 * @returns The bump, the changes, the mode, and the earlier versions it breaks against.
 * @throws {TypeError} When an input schema is undefined.
 *
 * @example
 * ```ts
 * import { classifyForMode } from "@tool-estate/core";
 * import assert from "node:assert/strict";
 *
 * const v1 = { type: "object", properties: { currency: { enum: ["EUR", "GBP"] } } };
 * const v2 = { type: "object", properties: { currency: { enum: ["EUR", "GBP", "USD"] } } };
 * // Adding an enum value: callers built for v1 still work (backward), but a caller built for v2
 * // that sends USD is rejected after a rollback to v1 (forward).
 * assert.equal(classifyForMode(v1, v2, { mode: "backward" }).bump, "minor");
 * assert.equal(classifyForMode(v1, v2, { mode: "forward" }).bump, "major");
 * assert.equal(classifyForMode(v1, v2, { mode: "full" }).bump, "major");
 * // Removing one is the other way round.
 * assert.equal(classifyForMode(v2, v1, { mode: "forward" }).bump, "minor");
 *
 * // Transitive: a caller built for v2 sends USD; a rollback to v2 is safe, one to v1 is not.
 * const same = structuredClone(v2);
 * assert.equal(classifyForMode(v2, same, { mode: "forward-transitive" }).bump, "patch");
 * const t = classifyForMode(v2, same, {
 *   mode: "forward-transitive",
 *   earlier: [{ version: "1.0.0", schema: v1 }],
 * });
 * assert.equal(t.bump, "major");
 * assert.deepEqual(t.breaksAgainst, ["1.0.0"]);
 * ```
 */
export function classifyForMode(
  oldSchema: JsonSchema | undefined,
  newSchema: JsonSchema | undefined,
  options: ClassifyForModeOptions = {},
): ModeClassification {
  const mode = options.mode ?? DEFAULT_COMPATIBILITY;
  const settings = {
    compatibility: mode,
    ...(options.descriptionBump ? { descriptionBump: options.descriptionBump } : {}),
  };
  const pair = (o: JsonSchema | undefined): SchemaChangeClassification => {
    if (options.output) {
      return classifyOutputSchemaChange(o, newSchema, settings);
    }
    if (o === undefined || newSchema === undefined) {
      throw new TypeError(
        "classifyForMode: an input schema cannot be undefined",
      );
    }
    return classifySchemaChange(o, newSchema, settings);
  };
  const result = pair(oldSchema);
  const changes: SchemaChange[] = [...result.changes];
  const breaksAgainst: string[] = [];
  if (compatibilityRule(mode).transitive) {
    for (const e of options.earlier ?? []) {
      const c = pair(e.schema);
      if (c.bump !== "major") continue;
      breaksAgainst.push(e.version);
      for (const m of c.changes) {
        if (m.bump === "major") {
          changes.push({
            ...m,
            message: `${m.message} (against ${e.version})`,
          });
        }
      }
    }
  }
  return {
    bump: breaksAgainst.length ? "major" : result.bump,
    changes,
    mode,
    breaksAgainst,
  };
}
