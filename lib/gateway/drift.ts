/**
 * Drift: how an upstream server's live listing of a tool differs from the version the estate
 * registered, and what that means. Principals only ever see the registered version; the gateway
 * validates their arguments against the registered `inputSchema`, forwards them, and validates the
 * upstream's `structuredContent` against the registered `outputSchema`. So the question is always
 * asked from the registered contract towards the live one:
 *
 * - input: would the upstream now reject a call the registered schema accepts?
 *   `classifySchemaChange(registered, live)` — `major` means yes;
 * - output: may the upstream now return a value the registered output schema does not allow?
 *   `classifyOutputSchemaChange(registered, live)` — `major` means yes;
 * - annotations: does the upstream now say the tool does more to the world than the estate's
 *   side-effect class (read-only → writes, non-destructive → destructive, idempotent → not)?
 *
 * A tool whose compatibility mode (its `compatibility`, else the estate's) asks for `forward` is
 * also held to it: a live contract that callers built for it could not roll back from — an input
 * that accepts calls the registered one rejects, an output the registered one allows but it does
 * not — is outside what the registered version promises, as a publish of it would be a major
 * change. (`backward` always applies: the gateway forwards what the registered contract accepts.)
 *
 * Any of those quarantines the tool ({@linkcode DriftAssessment.quarantine}); anything smaller is
 * compatible. A changed description or title (or new text inside the schemas) is reported apart,
 * as a rug-pull signal, with what a description lint finds in the new text.
 *
 * @module
 */
import { isObject } from "../_object.ts";
import { classifyOutputSchemaChange, classifySchemaChange } from "../compat/classify.ts";
import { combineCompatibility, type CompatibilityMode } from "../compat/compatibility_mode.ts";
import type { SchemaChangeClassification } from "../compat/schema_change.ts";
import { findWitness, type Witness } from "../compat/witness.ts";
import { annotationsFor, type ToolAnnotations, type ToolSpec } from "../estate/spec.ts";
import type { ListedTool } from "../mcp/protocol.ts";
import type { JsonSchema } from "../schema/types.ts";
import { shortenText } from "../schema/issue_limit.ts";

/** One finding of a description lint (see `GatewayOptions.descriptionSignals`). */
export interface DescriptionSignal {
  /** A stable code, e.g. `invisible-characters`, `model-instructions`. */
  code: string;
  /** What was found. */
  message: string;
}

/** A description lint: what tool poisoning looks like in a text. */
export type DescriptionLint = (text: string) => DescriptionSignal[];

/** A text the model reads that the live listing changed. */
export interface TextChange {
  /** `description`, `title`, or the path of a `description`/`title` inside a schema. */
  field: string;
  /** The registered text (undefined when the registered version has none there). */
  registered: string | undefined;
  /** The live text. */
  live: string | undefined;
  /** What the description lint found in the live text. */
  signals: DescriptionSignal[];
}

/** A hint the live listing states differently from the estate's side-effect class. */
export interface AnnotationChange {
  /** The hint. */
  hint: keyof ToolAnnotations;
  /** What the estate's side-effect class implies. */
  registered: boolean;
  /** What the upstream says. */
  live: boolean;
  /** Whether the upstream now claims more effect on the world (this quarantines). */
  widens: boolean;
}

/** How a live listing compares with the registered version (from {@linkcode classifyDrift}). */
export interface DriftAssessment {
  /**
   * The input schema, registered → live, when they differ: `major` means the upstream may reject
   * calls the registered contract accepts.
   */
  input?: SchemaChangeClassification;
  /**
   * The output schema, registered → live, when they differ: `major` means the upstream may return
   * values the registered output schema does not allow.
   */
  output?: SchemaChangeClassification;
  /** Hints the upstream states differently. */
  annotations: AnnotationChange[];
  /** Texts the model reads that changed (the description, the title, texts in the schemas). */
  text: TextChange[];
  /**
   * Why the live contract is outside the registered one, one sentence each; empty when it is
   * within it. Not empty means quarantine.
   */
  quarantine: string[];
}

/** Options for {@linkcode classifyDrift}. */
export interface ClassifyDriftOptions {
  /** The description lint run on each changed text. Default: none. */
  descriptionSignals?: DescriptionLint;
  /**
   * The tool's compatibility mode (`ToolRegistry.compatibilityOf(registered)`). The schemas are
   * classified under it combined with `backward` (so `forward` is checked as `full`);
   * `-transitive` adds nothing here: drift is against the registered version only. Default:
   * the registered spec's `compatibility`, else `backward`.
   */
  compatibility?: CompatibilityMode;
}

/** The most schema texts looked at per listing (a hostile listing may be huge). */
const MAX_SCHEMA_TEXTS = 200;

/**
 * Compares a tool's live listing (an upstream server's `tools/list` entry) with the version the
 * estate registered.
 *
 * @param registered The registered version.
 * @param live The upstream's entry for it (under whatever name the upstream uses).
 * @param options The description lint.
 * @returns The schema classifications, changed hints and texts, and the reasons to quarantine.
 *
 * @example
 * ```ts
 * import { classifyDrift, type ToolSpec } from "@tool-estate/core";
 * import assert from "node:assert/strict";
 *
 * const registered: ToolSpec = {
 *   name: "crm.lookup", version: "1.0.0", title: "Look up a customer", description: "Reads the CRM.",
 *   inputSchema: { type: "object", properties: { id: { type: "string" } }, required: ["id"] },
 *   sideEffect: "read", requiredScopes: [], dataClassification: "internal", tenants: [], owner: "crm",
 * };
 * const wider = { type: "object", properties: { id: { type: "string" }, region: { type: "string" } }, required: ["id"] };
 * const compatible = classifyDrift(registered, { name: "lookup", inputSchema: wider, description: "Reads the CRM." });
 * assert.equal(compatible.input?.bump, "minor");
 * assert.deepEqual(compatible.quarantine, []);
 *
 * const stricter = { ...wider, required: ["id", "region"] };
 * const breaking = classifyDrift(registered, { name: "lookup", inputSchema: stricter, description: "Reads the CRM." });
 * assert.equal(breaking.input?.bump, "major");
 * assert.equal(breaking.quarantine.length, 1);
 * ```
 */
export function classifyDrift(
  registered: ToolSpec,
  live: ListedTool,
  options: ClassifyDriftOptions = {},
): DriftAssessment {
  const quarantine: string[] = [];
  const declared = options.compatibility ?? registered.compatibility ??
    "backward";
  // The gateway's own guarantee (what the registered contract accepts is forwarded) is backward.
  const compatibility = combineCompatibility(
    declared.replace(/-transitive$/, "") as CompatibilityMode,
    "backward",
  );
  const under = compatibility === "backward" ? "" : ` under ${compatibility} compatibility`;
  const liveInput: JsonSchema = isSchema(live.inputSchema) ? live.inputSchema : { type: "object" };
  const input = compare(() =>
    classifySchemaChange(registered.inputSchema, liveInput, { compatibility })
  );
  if (input?.bump === "major") {
    // "Rejects" only with a call to show for it; a major change that rejects nothing (a property
    // no longer declared, so no longer promised to be understood) is said as what it is.
    const rejected = under ? undefined : safeWitness(registered.inputSchema, liveInput);
    quarantine.push(
      under
        ? `its input schema changed beyond the registered contract${under} (${firstMajor(input)})`
        : rejected
        ? `its input schema now rejects calls the registered one accepts (${
          firstMajor(input)
        }; e.g. ${
          shortenText(JSON.stringify(rejected.value), 120)
        } is refused at ${rejected.rejection.path})`
        : `its input schema no longer promises what the registered one does (${firstMajor(input)})`,
    );
  }
  const liveOutput = isSchema(live.outputSchema) ? live.outputSchema : undefined;
  const output = compare(() =>
    classifyOutputSchemaChange(registered.outputSchema, liveOutput, {
      compatibility,
    })
  );
  if (output?.bump === "major") {
    quarantine.push(
      under
        ? `its output schema changed beyond the registered contract${under} (${firstMajor(output)})`
        : `its output schema now allows values the registered one does not (${firstMajor(output)})`,
    );
  }
  const annotations = annotationChanges(registered, live);
  for (const a of annotations) {
    if (a.widens) {
      quarantine.push(
        `it now declares ${a.hint}: ${a.live}, beyond the estate's side-effect class ${registered.sideEffect}`,
      );
    }
  }
  return {
    ...(input ? { input } : {}),
    ...(output ? { output } : {}),
    annotations,
    text: textChanges(registered, live, options.descriptionSignals),
    quarantine,
  };
}

/** A call the registered schema accepts and the live one rejects, when one is found in bounds. */
function safeWitness(registered: JsonSchema, live: JsonSchema): Witness | undefined {
  try {
    return findWitness(registered, live);
  } catch {
    return undefined; // a schema the generator cannot work with: no example, the verdict stands
  }
}

/** A classification, undefined when nothing changed; a classifier that throws is major. */
function compare(
  run: () => SchemaChangeClassification,
): SchemaChangeClassification | undefined {
  let c: SchemaChangeClassification;
  try {
    c = run();
  } catch (e) {
    c = {
      bump: "major",
      changes: [{
        path: "$",
        kind: "undecidable",
        bump: "major",
        message: `the schemas could not be compared: ${(e as Error).message}`,
      }],
    };
  }
  return c.changes.length === 0 ? undefined : c;
}

function firstMajor(c: SchemaChangeClassification): string {
  const m = c.changes.find((x) => x.bump === "major") ?? c.changes[0];
  return `${m.path}: ${m.message}`;
}

function isSchema(v: unknown): v is JsonSchema {
  return isObject(v) || typeof v === "boolean";
}

const HINTS: readonly (keyof ToolAnnotations)[] = [
  "readOnlyHint",
  "idempotentHint",
  "destructiveHint",
];

/**
 * The hints the live listing states and the side-effect class contradicts. A hint the upstream
 * leaves out says nothing (MCP's defaults are the most cautious reading, which the estate's class
 * already governs).
 */
function annotationChanges(
  registered: ToolSpec,
  live: ListedTool,
): AnnotationChange[] {
  const want = annotationsFor(registered.sideEffect);
  const stated = isObject(live.annotations) ? live.annotations as Record<string, unknown> : {};
  const liveReadOnly = typeof stated.readOnlyHint === "boolean"
    ? stated.readOnlyHint
    : want.readOnlyHint;
  const out: AnnotationChange[] = [];
  for (const hint of HINTS) {
    const value = stated[hint];
    if (typeof value !== "boolean" || value === want[hint]) continue;
    // Destructive and idempotent only speak of tools that write.
    const widens = hint === "readOnlyHint"
      ? value === false
      : hint === "destructiveHint"
      ? value === true && !liveReadOnly
      : value === false && !liveReadOnly;
    out.push({ hint, registered: want[hint], live: value, widens });
  }
  return out;
}

/** The texts a model reads that the live listing changed, each with what the lint finds. */
function textChanges(
  registered: ToolSpec,
  live: ListedTool,
  lint: DescriptionLint | undefined,
): TextChange[] {
  const out: TextChange[] = [];
  const signals = (text: string | undefined): DescriptionSignal[] => {
    if (!lint || !text) return [];
    try {
      return lint(text);
    } catch (e) {
      // A failing lint must not stop the classification (nor the connection it runs in).
      return [{
        code: "lint-failed",
        message: `the description lint failed: ${String(e)}`,
      }];
    }
  };
  const description = typeof live.description === "string" ? live.description : undefined;
  if (description !== registered.description) {
    out.push({
      field: "description",
      registered: registered.description,
      live: description,
      signals: signals(description),
    });
  }
  const liveTitle = typeof live.title === "string"
    ? live.title
    : isObject(live.annotations) && typeof live.annotations.title === "string"
    ? live.annotations.title
    : undefined;
  // A listing without a title says nothing about it; a different one is a change.
  if (liveTitle !== undefined && liveTitle !== registered.title) {
    out.push({
      field: "title",
      registered: registered.title,
      live: liveTitle,
      signals: signals(liveTitle),
    });
  }
  // Texts inside the live schemas that the registered schemas do not have anywhere: parameter
  // descriptions are prompt surface too.
  const known = new Set<string>();
  const collect = (
    schema: unknown,
    prefix: string,
    into: (path: string, text: string) => void,
  ) => schemaTexts(schema, prefix, into, { left: MAX_SCHEMA_TEXTS * 10 });
  collect(registered.inputSchema, "inputSchema", (_, t) => known.add(t));
  collect(registered.outputSchema, "outputSchema", (_, t) => known.add(t));
  let added = 0;
  const take = (path: string, text: string): void => {
    if (known.has(text) || added >= MAX_SCHEMA_TEXTS) return;
    added++;
    out.push({
      field: path,
      registered: undefined,
      live: text,
      signals: signals(text),
    });
  };
  collect(live.inputSchema, "inputSchema", take);
  collect(live.outputSchema, "outputSchema", take);
  return out;
}

/** Every `description`/`title` string in a schema, with its path (bounded by `budget`). */
function schemaTexts(
  node: unknown,
  path: string,
  into: (path: string, text: string) => void,
  budget: { left: number },
): void {
  if (budget.left-- <= 0) return;
  if (Array.isArray(node)) {
    node.forEach((v, i) => schemaTexts(v, `${path}[${i}]`, into, budget));
    return;
  }
  if (!isObject(node)) return;
  for (const [k, v] of Object.entries(node)) {
    const at = `${path}.${k}`;
    if ((k === "description" || k === "title") && typeof v === "string") {
      into(at, v);
    } else schemaTexts(v, at, into, budget);
  }
}
