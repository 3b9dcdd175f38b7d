/**
 * The one plain-object guard: a JSON object as `JSON.parse` gives it — not null, not an array.
 * Every layer (JSON-RPC, schemas, the estate, the store, MCP) asks this question; they ask it here.
 *
 * @module
 */

/**
 * Whether a value is an object that is neither null nor an array (a JSON object, a schema object,
 * a params or arguments object). Its prototype is not looked at.
 *
 * @param v The value.
 * @returns True for a non-null, non-array object.
 */
export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
