/** Small facts about JSON values shared by the two validators (`_compile.ts`, `_codegen.ts`). */
import { canonicalJson } from "./json_equal.ts";

/** Length in Unicode code points. */
export function codePoints(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length - 1; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n--;
        i++;
      }
    }
  }
  return n;
}

/** The first pair of equal items, by deep JSON equality, or undefined. */
export function findDuplicate(a: unknown[]): [number, number] | undefined {
  if (a.length < 2) return undefined;
  if (a.every((x) => x === null || typeof x !== "object")) {
    const first = new Map<unknown, number>();
    for (let i = 0; i < a.length; i++) {
      const j = first.get(a[i]);
      if (j !== undefined) return [j, i];
      first.set(a[i], i);
    }
    return undefined;
  }
  const seen = new Map<string, number>();
  for (let i = 0; i < a.length; i++) {
    const key = canonicalJson(a[i]);
    const j = seen.get(key);
    if (j !== undefined) return [j, i];
    seen.set(key, i);
  }
  return undefined;
}
