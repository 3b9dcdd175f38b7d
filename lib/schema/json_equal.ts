/**
 * JSON equality and canonical text, one definition for the validator (`const`, `enum`,
 * `uniqueItems`), the classifier, the estate's digests and the gateway.
 *
 * @module
 */
/** Deep JSON equality: key order ignored, `0` and `false` distinct, arrays by position. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (
    typeof a !== "object" || typeof b !== "object" || a === null || b === null
  ) return false;
  const aa = Array.isArray(a), ba = Array.isArray(b);
  if (aa !== ba) return false;
  if (aa) {
    const x = a as unknown[], y = b as unknown[];
    if (x.length !== y.length) return false;
    for (let i = 0; i < x.length; i++) if (!jsonEqual(x[i], y[i])) return false;
    return true;
  }
  const x = a as Record<string, unknown>, y = b as Record<string, unknown>;
  const kx = Object.keys(x), ky = Object.keys(y);
  if (kx.length !== ky.length) return false;
  for (const k of kx) {
    if (!Object.hasOwn(y, k) || !jsonEqual(x[k], y[k])) return false;
  }
  return true;
}

/** A canonical JSON text (keys sorted by code unit) so equal values give equal strings. */
export function canonicalJson(v: unknown): string {
  if (v === null || typeof v !== "object") {
    return typeof v === "number" && Object.is(v, -0) ? "0" : JSON.stringify(v) ?? "undefined";
  }
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(",")}]`;
  const o = v as Record<string, unknown>;
  const keys = Object.keys(o).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(o[k])}`).join(",")}}`;
}
