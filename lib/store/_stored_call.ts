/**
 * The shape of a stored call as `calls.jsonl` holds it: exactly `version`, `arguments`,
 * `principal` and `at`.
 */
import { isObject } from "../_object.ts";
import { Version } from "../compat/semver.ts";
import type { StoredCall } from "../estate/replay.ts";

const FIELDS = new Set(["version", "arguments", "principal", "at"]);

/**
 * What is wrong with a value as a stored call.
 *
 * @param value The candidate (a parsed line, or a call about to be appended).
 * @param versions Versions already found valid (a reader's cache; added to).
 * @returns One sentence per problem, each naming its field; empty when it is a stored call.
 */
export function storedCallProblems(
  value: unknown,
  versions?: Set<string>,
): string[] {
  if (!isObject(value)) {
    return ["a stored call must be a JSON object"];
  }
  const v = value as Record<string, unknown>;
  const problems: string[] = [];
  if (typeof v.version !== "string") problems.push("version must be a string");
  else if (!versions?.has(v.version)) {
    try {
      Version.parse(v.version);
      versions?.add(v.version);
    } catch {
      problems.push(
        `version ${JSON.stringify(v.version)} is not a semantic version`,
      );
    }
  }
  if (!Object.hasOwn(v, "arguments") || v.arguments === undefined) {
    problems.push("arguments is required");
  }
  if (typeof v.principal !== "string" || v.principal === "") {
    problems.push("principal must be a non-empty string");
  }
  if (typeof v.at !== "string" || Number.isNaN(Date.parse(v.at))) {
    problems.push("at must be an ISO 8601 timestamp");
  }
  for (const k of Object.keys(v)) {
    if (!FIELDS.has(k)) problems.push(`unknown field ${k}`);
  }
  return problems;
}

/**
 * A stored call as one line of `calls.jsonl`, fields in a fixed order, without the newline.
 *
 * @param call The call.
 * @returns The JSON text.
 */
export function storedCallLine(call: StoredCall): string {
  return JSON.stringify({
    version: call.version,
    arguments: call.arguments,
    principal: call.principal,
    at: call.at,
  });
}

/**
 * Whether the text of a line is a whole stored call (JSON, with exactly the fields of one).
 *
 * @param text The line, without its newline.
 * @returns True when it is.
 */
export function isStoredCallText(text: string): boolean {
  try {
    return storedCallProblems(JSON.parse(text)).length === 0;
  } catch {
    return false;
  }
}
