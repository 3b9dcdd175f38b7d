// The rules shared by the make* helpers (which throw TypeError) and validateEnvelope (which
// throws JsonRpcError -32600). Each returns a description of the problem, or undefined.

import { isObject } from "../_object.ts";
import type { JsonRpcId } from "./types.ts";

const MAX_SHOWN = 40;

/** Describes a value for an error message: `1.5`, `null`, `"abc"`, `an array`. */
export function describe(value: unknown): string {
  if (value === undefined) return "nothing";
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  switch (typeof value) {
    case "string": {
      const shown = JSON.stringify(value);
      return shown.length > MAX_SHOWN ? `${shown.slice(0, MAX_SHOWN - 1)}…"` : shown;
    }
    case "number":
    case "boolean":
      return String(value);
    case "bigint":
      return `${value}n`;
    case "object":
      return "an object";
    default:
      return `a ${typeof value}`;
  }
}

/** True for a string or a safe integer. */
export function isId(value: unknown): value is JsonRpcId {
  return typeof value === "string" || Number.isSafeInteger(value);
}

/** The problem with an id (which must be present and not null), if any. */
export function idProblem(id: unknown): string | undefined {
  if (isId(id)) return undefined;
  if (Number.isInteger(id)) {
    return `id must be a string or an integer within ±(2^53 − 1), got ${describe(id)}`;
  }
  return `id must be a string or an integer, got ${describe(id)}`;
}

/** The problem with a method name, if any. */
export function methodProblem(method: unknown): string | undefined {
  return typeof method === "string"
    ? undefined
    : `method must be a string, got ${describe(method)}`;
}

/** The problem with params (`undefined` means absent, which is fine), if any. */
export function paramsProblem(params: unknown): string | undefined {
  if (params === undefined || typeof params === "object" && params !== null) {
    return undefined;
  }
  return `params must be an object or an array, got ${describe(params)}`;
}

/** The problem with an error object, if any. */
export function errorObjectProblem(error: unknown): string | undefined {
  if (!isObject(error)) {
    return `error must be an object with code and message, got ${describe(error)}`;
  }
  if (!Number.isSafeInteger(error.code)) {
    return `error.code must be an integer, got ${describe(error.code)}`;
  }
  if (typeof error.message !== "string") {
    return `error.message must be a string, got ${describe(error.message)}`;
  }
  return undefined;
}

/** The member's value if the object has it as an own property, else undefined. */
export function member(object: Record<string, unknown>, name: string): unknown {
  return Object.hasOwn(object, name) ? object[name] : undefined;
}
