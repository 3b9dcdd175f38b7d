/**
 * Tool specs: what the estate knows about a tool beyond MCP — its side-effect class, who may see
 * it, and who owns it — and the MCP listing entry built from it, which carries none of that.
 *
 * @module
 */
import { isObject } from "../_object.ts";
import { Version } from "../compat/semver.ts";
import {
  COMPATIBILITY_MODES,
  type CompatibilityMode,
  isCompatibilityMode,
} from "../compat/compatibility_mode.ts";
import { frozenJsonCopy, jsonProblems } from "../schema/json_value.ts";
import type { PublishTrace } from "./publish_trace.ts";
import { formatPath } from "../schema/path.ts";
import type { JsonSchema } from "../schema/types.ts";

/**
 * What calling a tool does to the world. Retry policy and MCP annotations derive from it; it is
 * required, with no default, because a default of `read` is how a payment tool becomes retryable.
 */
export type SideEffect = "read" | "idempotent-write" | "write" | "irreversible";

/** The side-effect classes, from harmless to irreversible. */
export const SIDE_EFFECTS: readonly SideEffect[] = [
  "read",
  "idempotent-write",
  "write",
  "irreversible",
];

/**
 * Whether a failed call may be retried automatically, derived from the side-effect class in this
 * one mapping: reads and idempotent writes may be retried; other writes may not.
 *
 * @example
 * ```ts
 * import { RETRYABLE } from "@tool-estate/core";
 * import assert from "node:assert/strict";
 * assert.equal(RETRYABLE["idempotent-write"], true);
 * assert.equal(RETRYABLE.irreversible, false);
 * ```
 */
export const RETRYABLE: Readonly<Record<SideEffect, boolean>> = Object.freeze({
  "read": true,
  "idempotent-write": true,
  "write": false,
  "irreversible": false,
});

/** MCP tool annotations (hints to the client), as the 2025-03-26+ revisions define them. */
export interface ToolAnnotations {
  /** The tool does not modify its environment. */
  readOnlyHint: boolean;
  /** Calling it again with the same arguments has no further effect. */
  idempotentHint: boolean;
  /** It may perform destructive updates (only meaningful when not read-only). */
  destructiveHint: boolean;
}

const ANNOTATIONS: Readonly<Record<SideEffect, ToolAnnotations>> = Object
  .freeze({
    "read": {
      readOnlyHint: true,
      idempotentHint: true,
      destructiveHint: false,
    },
    "idempotent-write": {
      readOnlyHint: false,
      idempotentHint: true,
      destructiveHint: false,
    },
    "write": {
      readOnlyHint: false,
      idempotentHint: false,
      destructiveHint: false,
    },
    "irreversible": {
      readOnlyHint: false,
      idempotentHint: false,
      destructiveHint: true,
    },
  });

/**
 * The MCP annotations a side-effect class implies: the one place they are derived.
 *
 * @param sideEffect The tool's class.
 * @returns A fresh annotations object.
 *
 * @example
 * ```ts
 * import { annotationsFor } from "@tool-estate/core";
 * import assert from "node:assert/strict";
 * assert.deepEqual(annotationsFor("irreversible"), { readOnlyHint: false, idempotentHint: false, destructiveHint: true });
 * ```
 */
export function annotationsFor(sideEffect: SideEffect): ToolAnnotations {
  return { ...ANNOTATIONS[sideEffect] };
}

/** How sensitive the data a tool returns or touches is. */
export type DataClassification =
  | "public"
  | "internal"
  | "confidential"
  | "restricted";

/** The classifications in rank order: `public < internal < confidential < restricted`. */
export const DATA_CLASSIFICATIONS: readonly DataClassification[] = [
  "public",
  "internal",
  "confidential",
  "restricted",
];

/**
 * The rank of a classification (public 0 … restricted 3), for clearance comparisons.
 *
 * @param c A classification.
 * @returns Its rank.
 */
export function classificationRank(c: DataClassification): number {
  return DATA_CLASSIFICATIONS.indexOf(c);
}

/** A tool in the estate: its MCP contract plus the platform's metadata. */
export interface ToolSpec {
  /** 1-128 characters of `A-Za-z0-9_.-`, namespaced with dots: `payments.lookup`. */
  name: string;
  /** A strict semantic version: `1.4.0`. */
  version: string;
  /** A short human title. */
  title: string;
  /** What the model reads: system of record, freshness, boundary. Never platform metadata. */
  description: string;
  /** The arguments' JSON Schema: an object schema the validator fully enforces. */
  inputSchema: JsonSchema;
  /** The result's JSON Schema, if the tool returns structured content. */
  outputSchema?: JsonSchema;
  /** What a call does to the world; required, no default. */
  sideEffect: SideEffect;
  /** Scopes a caller's credential must all carry to see or call the tool. */
  requiredScopes: string[];
  /**
   * Action scopes a caller's credential must also carry to *run* the tool, on top of
   * `requiredScopes` (which decide who sees it): `payments.release` is listed for
   * `payments:read` but runs only for `payments:release`. A caller who sees the tool but lacks one
   * gets the step-up answer (over HTTP 403 `insufficient_scope` naming the scopes; over stdio a
   * tool error naming them); a caller who cannot see it is answered as for a tool that does not
   * exist. Absent: none.
   */
  callScopes?: string[];
  /** How sensitive the tool's data is; a caller needs at least this clearance. */
  dataClassification: DataClassification;
  /** Tenants allowed to see the tool; empty means every tenant. */
  tenants: string[];
  /** The accountable team; required. */
  owner: string;
  /**
   * The id of the server that serves the tool, when it is not served in-process: a server the
   * estate records (`servers/<id>.json`) whose record lists this tool's name. Publish refuses a
   * server that is not registered or does not list the tool. Governance (side effect, scopes,
   * tenants, classification, owner) is still this spec's, never the server's.
   */
  server?: string;
  /**
   * What the handler asks of the client (`sampling`, `elicitation`, `roots`): discovery hides the
   * tool from clients that did not declare each, and the handler may ask for nothing else.
   */
  uses?: ClientDirection[];
  /**
   * Asks the user to confirm each call before the handler runs (form elicitation), on top of what
   * the side-effect class requires (see `CONFIRMATION`): a spec can make the policy stricter,
   * never looser. `message` is the question, with `{argument}` placeholders filled from the
   * call's top-level string, number and boolean arguments: `"Release payment {reference} of
   * {amount} {currency}?"`.
   */
  confirm?: { message?: string };
  /**
   * The compatibility mode publish holds this tool's changes to (see `CompatibilityMode`):
   * `backward` (callers built for the old version keep working), `forward` (callers built for the
   * new version survive a rollback), `full` (both), each also `-transitive` (against every
   * version of the major line that is not retired). Absent: the estate's default (`estate.json`),
   * else `backward`.
   */
  compatibility?: CompatibilityMode;
}

/** A direction in which a server asks its client: for a completion, for user input, for roots. */
export type ClientDirection = "sampling" | "elicitation" | "roots";

/** Every {@linkcode ClientDirection}. */
export const CLIENT_DIRECTIONS: readonly ClientDirection[] = [
  "sampling",
  "elicitation",
  "roots",
];

/** A caller: whoever an agent acts for, as the authenticator established it. */
export interface Principal {
  /** A stable identifier, used in stored calls and impact reports. */
  id: string;
  /** The scopes the credential carries. */
  scopes: string[];
  /** The caller's tenant, e.g. `retail`, `wholesale`, `group`. */
  tenant: string;
  /** The highest classification the caller may see. */
  clearance: DataClassification;
}

const NAME = /^[A-Za-z0-9_.-]{1,128}$/;

/** An OAuth scope token (RFC 6749 §3.3): `%x21 / %x23-5B / %x5D-7E`, at least one. */
const SCOPE_TOKEN = /^[\x21\x23-\x5b\x5d-\x7e]+$/;

/**
 * Whether a text is a valid tool name: 1-128 characters of `A-Z a-z 0-9 _ . -`, not starting with
 * `.` (so a name is never a path such as `..` or `a/b`).
 *
 * @param name The candidate.
 * @returns True for a valid name.
 *
 * @example
 * ```ts
 * import { isToolName } from "@tool-estate/core";
 * import assert from "node:assert/strict";
 * assert.equal(isToolName("payments.lookup"), true);
 * assert.equal(isToolName("../x"), false);
 * ```
 */
export function isToolName(name: string): boolean {
  return NAME.test(name) && !name.startsWith(".");
}

const SERVER_ID = /^[a-z0-9][a-z0-9-]{0,62}$/;

/**
 * Whether a text is a valid server id: 1-63 characters of `a-z 0-9 -`, starting with a letter or
 * digit (it names a file, `servers/<id>.json`).
 *
 * @param id The candidate.
 * @returns True for a valid id.
 *
 * @example
 * ```ts
 * import { isServerId } from "@tool-estate/core";
 * import assert from "node:assert/strict";
 * assert.equal(isServerId("payments-mcp"), true);
 * assert.equal(isServerId("../crm"), false);
 * ```
 */
export function isServerId(id: string): boolean {
  return SERVER_ID.test(id);
}

/** The fields of a tool spec, in the order a tool file lists them. */
export const TOOL_SPEC_FIELDS: readonly (keyof ToolSpec)[] = [
  "name",
  "version",
  "title",
  "description",
  "inputSchema",
  "outputSchema",
  "sideEffect",
  "requiredScopes",
  "callScopes",
  "dataClassification",
  "tenants",
  "owner",
  "server",
  "uses",
  "confirm",
  "compatibility",
];

/** A tool spec that was refused, with every problem found (each names its field). */
export class ToolSpecError extends Error {
  /** One sentence per problem, each naming the field. */
  readonly problems: string[];

  /**
   * Makes the error from every problem found.
   *
   * @param subject What was being read, e.g. a file name or `payments.lookup@1.2.0`; empty when
   *   there is nothing to call it (`Invalid tool spec: …`).
   * @param problems The problems, each naming its field.
   */
  constructor(subject: string, problems: string[]) {
    super(
      `Invalid tool spec${subject ? ` ${subject}` : ""}: ${problems.join("; ")}`,
    );
    this.name = "ToolSpecError";
    this.problems = problems;
  }
}

function isStringList(v: unknown): v is string[] {
  return Array.isArray(v) && v.every((x) => typeof x === "string");
}

/**
 * What to call a candidate spec in a message before it is parsed: `payments.lookup@1.2.0`,
 * `payments.lookup@?` when its version is not a string, nothing (empty) when it has no name.
 *
 * @param candidate The candidate.
 * @returns The label.
 */
export function specSubject(candidate: unknown): string {
  if (typeof candidate === "object" && candidate !== null) {
    const c = candidate as Record<string, unknown>;
    if (typeof c.name === "string") {
      return `${c.name}@${typeof c.version === "string" ? c.version : "?"}`;
    }
  }
  return "";
}

/** Options for {@linkcode keepToolSpec}. */
export interface KeepToolSpecOptions {
  /** What the value was read from, for messages (a file). Default: its `name@version`. */
  subject?: string;
  /** Told when the value is checked (not when it was kept already). */
  trace?: PublishTrace;
}

/** The specs {@linkcode keepToolSpec} made: checked already, and safe to keep as they are. */
const KEPT = new WeakSet<ToolSpec>();

/**
 * A candidate as the registry keeps it: checked with {@linkcode parseToolSpec}, then copied deep
 * and frozen, so nothing done to the value afterwards reaches a published version. A spec this
 * function returned is returned as it is, not checked again: parse a candidate once, at the edge,
 * and the registry and the stores take it as it is.
 *
 * @param value The candidate (e.g. a parsed `*.tool.json`), or a spec kept already.
 * @param options What it was read from, and a trace told of the check.
 * @returns The deep, frozen, checked spec.
 * @throws {ToolSpecError} Listing every problem, when the value is not a valid spec.
 *
 * @example
 * ```ts
 * import { keepToolSpec } from "@tool-estate/core";
 * import assert from "node:assert/strict";
 *
 * let checks = 0;
 * const spec = keepToolSpec({
 *   name: "fx.quote", version: "1.0.0", title: "Quote", description: "Quotes a currency rate.",
 *   inputSchema: { type: "object" }, sideEffect: "read", requiredScopes: ["fx:read"],
 *   dataClassification: "internal", tenants: ["wholesale"], owner: "fx-desk",
 * }, { trace: { parsed: () => checks++ } });
 * assert.ok(Object.isFrozen(spec.inputSchema));
 * assert.equal(keepToolSpec(spec, { trace: { parsed: () => checks++ } }), spec);
 * assert.equal(checks, 1);
 * ```
 */
export function keepToolSpec(value: unknown, options: KeepToolSpecOptions = {}): ToolSpec {
  if (KEPT.has(value as ToolSpec)) return value as ToolSpec;
  const subject = options.subject ?? specSubject(value);
  options.trace?.parsed?.(subject);
  const spec = frozenJsonCopy(parseToolSpec(value, subject));
  KEPT.add(spec);
  return spec;
}

/**
 * Checks a value (e.g. a parsed `*.tool.json`) and returns it as a {@linkcode ToolSpec}. Every
 * problem is reported at once, each naming its field; `sideEffect` and `owner` have no default.
 * `requiredScopes` and `tenants` default to empty lists, `dataClassification` does not default.
 * The schemas must be JSON values: a `NaN`, `undefined`, function, `Date` or cycle anywhere in
 * them is a problem at its path (it would not survive being stored, and nothing may coerce it).
 *
 * @param value The candidate spec.
 * @param subject What to call it in the error (a file name, say); default: nothing
 *   (`Invalid tool spec: …`).
 * @returns A fresh spec object with only the known fields.
 * @throws {ToolSpecError} Naming every field that is missing or wrong.
 *
 * @example
 * ```ts
 * import { parseToolSpec, ToolSpecError } from "@tool-estate/core";
 * import assert from "node:assert/strict";
 * assert.throws(
 *   () => parseToolSpec({ name: "payments.release", version: "1.0.0", title: "Release", description: "d", inputSchema: { type: "object" }, dataClassification: "restricted" }),
 *   (e: unknown) => e instanceof ToolSpecError && /sideEffect is required/.test(e.message) && /owner is required/.test(e.message),
 * );
 * ```
 */
export function parseToolSpec(value: unknown, subject = ""): ToolSpec {
  const problems: string[] = [];
  if (!isObject(value)) {
    throw new ToolSpecError(subject, ["a tool spec must be a JSON object"]);
  }
  const v = value as Record<string, unknown>;
  const str = (k: string, required = true): string => {
    if (!Object.hasOwn(v, k) || v[k] === undefined) {
      if (required) problems.push(`${k} is required`);
      return "";
    }
    if (typeof v[k] !== "string") {
      problems.push(`${k} must be a string, got ${JSON.stringify(v[k])}`);
    }
    return typeof v[k] === "string" ? v[k] as string : "";
  };
  const name = str("name");
  if (typeof v.name === "string" && !isToolName(name)) {
    problems.push(
      `name ${
        JSON.stringify(name)
      } must be 1-128 characters of A-Z a-z 0-9 _ . - not starting with "."`,
    );
  }
  const version = str("version");
  if (version) {
    try {
      Version.parse(version);
    } catch (e) {
      problems.push(`version: ${(e as Error).message}`);
    }
  }
  const title = str("title");
  const description = str("description");
  if (Object.hasOwn(v, "description") && description.trim() === "") {
    problems.push("description must not be empty");
  }
  const owner = str("owner");
  if (
    Object.hasOwn(v, "owner") && typeof v.owner === "string" &&
    owner.trim() === ""
  ) {
    problems.push("owner must not be empty");
  }
  const sideEffect = str("sideEffect") as SideEffect;
  if (sideEffect && !SIDE_EFFECTS.includes(sideEffect)) {
    problems.push(
      `sideEffect must be one of ${SIDE_EFFECTS.join(", ")}, got ${JSON.stringify(sideEffect)}`,
    );
  }
  const dataClassification = str("dataClassification") as DataClassification;
  if (
    dataClassification && !DATA_CLASSIFICATIONS.includes(dataClassification)
  ) {
    problems.push(
      `dataClassification must be one of ${DATA_CLASSIFICATIONS.join(", ")}, got ${
        JSON.stringify(dataClassification)
      }`,
    );
  }
  const list = (k: string): string[] => {
    if (!Object.hasOwn(v, k) || v[k] === undefined) return [];
    if (!isStringList(v[k])) {
      problems.push(`${k} must be a list of strings`);
      return [];
    }
    return [...v[k] as string[]];
  };
  const requiredScopes = list("requiredScopes");
  const callScopes = list("callScopes");
  for (const s of callScopes) {
    if (!SCOPE_TOKEN.test(s)) {
      problems.push(
        `callScopes: ${
          JSON.stringify(s)
        } is not an OAuth scope (RFC 6749: printable ASCII, no space, " or \\)`,
      );
    }
  }
  const tenants = list("tenants");
  const schema = (k: string, required: boolean): JsonSchema | undefined => {
    if (!Object.hasOwn(v, k) || v[k] === undefined) {
      if (required) problems.push(`${k} is required`);
      return undefined;
    }
    const s = v[k];
    if (typeof s !== "boolean" && !isObject(s)) {
      problems.push(`${k} must be a JSON Schema object`);
      return undefined;
    }
    const notJson = jsonProblems(s, 3);
    for (const p of notJson) {
      problems.push(`${k} at ${formatPath(p.path)}: ${p.message}`);
    }
    return notJson.length ? undefined : s as JsonSchema;
  };
  const uses = list("uses");
  for (const u of uses) {
    if (!CLIENT_DIRECTIONS.includes(u as ClientDirection)) {
      problems.push(
        `uses must list only ${CLIENT_DIRECTIONS.join(", ")}, got ${JSON.stringify(u)}`,
      );
    }
  }
  let confirm: { message?: string } | undefined;
  if (Object.hasOwn(v, "confirm") && v.confirm !== undefined) {
    const c = v.confirm;
    if (!isObject(c)) {
      problems.push("confirm must be an object: { message?: string }");
    } else {
      for (const k of Object.keys(c)) {
        if (k !== "message") problems.push(`unknown field confirm.${k}`);
      }
      if (
        c.message !== undefined &&
        (typeof c.message !== "string" || c.message.trim() === "")
      ) {
        problems.push("confirm.message must be a non-empty string");
      }
      confirm = typeof c.message === "string" ? { message: c.message } : {};
    }
  }
  const server = str("server", false);
  if (typeof v.server === "string" && !isServerId(server)) {
    problems.push(
      `server ${JSON.stringify(server)} must be a server id: 1-63 characters of a-z 0-9 -`,
    );
  }
  const compatibility = str("compatibility", false);
  if (
    typeof v.compatibility === "string" && !isCompatibilityMode(compatibility)
  ) {
    problems.push(
      `compatibility must be one of ${COMPATIBILITY_MODES.join(", ")}, got ${
        JSON.stringify(compatibility)
      }`,
    );
  }
  const inputSchema = schema("inputSchema", true);
  const outputSchema = schema("outputSchema", false);
  const known = new Set([...TOOL_SPEC_FIELDS, "$schema"]);
  for (const k of Object.keys(v)) {
    if (!known.has(k)) problems.push(`unknown field ${k}`);
  }
  if (problems.length) throw new ToolSpecError(subject, problems);
  const spec: ToolSpec = {
    name,
    version,
    title,
    description,
    inputSchema: inputSchema!,
    sideEffect,
    requiredScopes,
    dataClassification,
    tenants,
    owner,
  };
  if (outputSchema !== undefined) spec.outputSchema = outputSchema;
  if (typeof v.server === "string") spec.server = server;
  if (Object.hasOwn(v, "uses") && v.uses !== undefined) {
    spec.uses = [...new Set(uses as ClientDirection[])].sort();
  }
  if (confirm !== undefined) spec.confirm = confirm;
  if (typeof v.compatibility === "string") {
    spec.compatibility = compatibility as CompatibilityMode;
  }
  if (Object.hasOwn(v, "callScopes") && v.callScopes !== undefined) {
    spec.callScopes = [...new Set(callScopes)];
  }
  return spec;
}

/** Our `_meta` key prefix (reverse DNS, not the `modelcontextprotocol`/`mcp` names MCP reserves). */
export const META_PREFIX = "dev.tool-estate/";

/** The `_meta` key under which a listed tool carries its version. */
export const META_VERSION_KEY: string = `${META_PREFIX}version`;

/** A tool as `tools/list` shows it to a client. */
export interface McpTool {
  /** The tool's name, as the model calls it. */
  name: string;
  /** A short human title. */
  title: string;
  /** What the model reads when choosing and calling the tool. */
  description: string;
  /** The arguments' JSON Schema. */
  inputSchema: JsonSchema;
  /** The structured result's JSON Schema, when there is one. */
  outputSchema?: JsonSchema;
  /** Hints derived from the side-effect class. */
  annotations: ToolAnnotations;
  /** Our metadata: the version, under `dev.tool-estate/version`. */
  _meta: Record<string, unknown>;
}

/**
 * The `tools/list` entry for a spec: the MCP contract, annotations derived from the side-effect
 * class, and the version under our `_meta` key. Scopes, tenants, classification and owner are
 * control-plane data and never appear.
 *
 * @param spec The spec.
 * @returns The listing entry.
 *
 * @example
 * ```ts
 * import { toMcpTool } from "@tool-estate/core";
 * import assert from "node:assert/strict";
 * const entry = toMcpTool({
 *   name: "payments.lookup", version: "1.4.0", title: "Look up a payment", description: "Reads the payments system of record.",
 *   inputSchema: { type: "object" }, sideEffect: "read", requiredScopes: ["payments:read"],
 *   dataClassification: "confidential", tenants: ["wholesale"], owner: "payments-platform",
 * });
 * assert.equal(entry._meta["dev.tool-estate/version"], "1.4.0");
 * assert.equal(JSON.stringify(entry).includes("payments:read"), false);
 * ```
 */
export function toMcpTool(spec: ToolSpec): McpTool {
  const tool: McpTool = {
    name: spec.name,
    title: spec.title,
    description: spec.description,
    inputSchema: spec.inputSchema,
    annotations: { ...annotationsFor(spec.sideEffect) },
    _meta: { [META_VERSION_KEY]: spec.version },
  };
  if (spec.outputSchema !== undefined) tool.outputSchema = spec.outputSchema;
  return tool;
}

/**
 * Whether a principal may see a tool: every required scope held, tenant allowed, and
 * classification at or below the principal's clearance.
 *
 * @param spec The tool.
 * @param principal The caller.
 * @returns True when the tool is visible to the caller.
 */
export function canSee(spec: ToolSpec, principal: Principal): boolean {
  if (
    classificationRank(spec.dataClassification) >
      classificationRank(principal.clearance)
  ) {
    return false;
  }
  if (spec.tenants.length > 0 && !spec.tenants.includes(principal.tenant)) {
    return false;
  }
  return spec.requiredScopes.every((s) => principal.scopes.includes(s));
}

/**
 * Lints a description as prompt surface: empty, or carrying platform metadata that belongs in the
 * control plane — the spec's own scopes or owner, or talk of tenants, scopes, clearance,
 * classification or ownership. (A tenant's name alone is not flagged: "a wholesale payment" is a
 * good description, "tenants: wholesale" is not.)
 *
 * @param spec The spec whose description to lint.
 * @returns One sentence per problem; empty when the description is clean.
 *
 * @example
 * ```ts
 * import { lintDescription, type ToolSpec } from "@tool-estate/core";
 * import assert from "node:assert/strict";
 * const spec: ToolSpec = {
 *   name: "crm.customer.get", version: "1.0.0", title: "Customer", inputSchema: { type: "object" },
 *   description: "Returns a customer. Requires scope crm:read; restricted to the retail tenant.",
 *   sideEffect: "read", requiredScopes: ["crm:read"], dataClassification: "confidential", tenants: ["retail"], owner: "crm-team",
 * };
 * assert.equal(lintDescription(spec).length, 2);
 * ```
 */
export function lintDescription(spec: ToolSpec): string[] {
  const d = spec.description;
  if (d.trim() === "") {
    return [
      "description is empty: the model chooses tools by their descriptions",
    ];
  }
  const problems: string[] = [];
  const lower = d.toLowerCase();
  for (const scope of spec.requiredScopes) {
    if (scope && lower.includes(scope.toLowerCase())) {
      problems.push(
        `description names the required scope ${
          JSON.stringify(scope)
        }: platform metadata belongs in the spec, not the prompt`,
      );
    }
  }
  if (spec.owner && lower.includes(spec.owner.toLowerCase())) {
    problems.push(
      `description names the owner ${
        JSON.stringify(spec.owner)
      }: platform metadata belongs in the spec, not the prompt`,
    );
  }
  const words = /\b(tenants?|scopes?|clearance|classification|classified|owned by|owner)\b/i
    .exec(
      d,
    );
  if (words) {
    problems.push(
      `description mentions "${
        words[1]
      }": access control and ownership belong in the spec, not the prompt`,
    );
  }
  return problems;
}
