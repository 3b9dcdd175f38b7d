/**
 * JSON values, exactly: what `JSON.parse` can return. `jsonProblems` finds every place a value is
 * something else (`NaN`, `Infinity`, `undefined`, a function, a symbol, a bigint, an array hole, a
 * `Date`/`Map`/class instance, a getter, a cycle) instead of letting `JSON.stringify` turn it into
 * something that looks valid; `frozenJsonCopy` makes the deep, frozen copy the registry keeps.
 * Both walk with an explicit stack: a deeply nested value never overflows the call stack.
 *
 * @module
 */
import type { PathSegment } from "./types.ts";

/** One place where a value is not JSON. */
export interface JsonProblem {
  /** Where, from the root. */
  path: PathSegment[];
  /** What is there, e.g. `NaN is not a JSON value`. */
  message: string;
}

/** What a non-JSON leaf or object is, for messages. */
function describeNonJson(v: unknown): string | undefined {
  switch (typeof v) {
    case "string":
    case "boolean":
      return undefined;
    case "number":
      return Number.isFinite(v) ? undefined : `${v} is not a JSON value (numbers must be finite)`;
    case "undefined":
      return "undefined is not a JSON value";
    case "function":
      return "a function is not a JSON value";
    case "symbol":
      return "a symbol is not a JSON value";
    case "bigint":
      return `the bigint ${v}n is not a JSON value`;
  }
  if (v === null) return undefined;
  const proto = Object.getPrototypeOf(v);
  if (Array.isArray(v)) {
    return proto === Array.prototype ? undefined : "an array subclass is not a JSON value";
  }
  if (proto === Object.prototype || proto === null) return undefined;
  let kind = "object";
  try {
    const name = (proto as { constructor?: { name?: unknown } }).constructor
      ?.name;
    if (typeof name === "string" && name) kind = name;
  } catch {
    // A hostile prototype: keep the generic name.
  }
  return `a ${kind} is not a JSON value (only plain objects and arrays are)`;
}

/** The own entries a JSON reading of a plain object or array sees, or a problem with them. */
function entriesOf(
  v: object,
  path: PathSegment[],
  problems: JsonProblem[],
): [PathSegment, unknown][] {
  const out: [PathSegment, unknown][] = [];
  if (Array.isArray(v)) {
    const arr = v as unknown[];
    const holes = Object.keys(arr).length !== arr.length;
    for (let i = 0; i < arr.length; i++) {
      if (holes && !Object.hasOwn(arr, i)) {
        problems.push({
          path: [...path, i],
          message: "an array hole is not a JSON value",
        });
        continue;
      }
      const d = Object.getOwnPropertyDescriptor(arr, i)!;
      if (d.get || d.set) {
        problems.push({
          path: [...path, i],
          message: "a getter is not a JSON value",
        });
      } else out.push([i, d.value]);
    }
    return out;
  }
  for (const k of Object.keys(v)) {
    const d = Object.getOwnPropertyDescriptor(v, k)!;
    if (d.get || d.set) {
      problems.push({
        path: [...path, k],
        message: "a getter is not a JSON value",
      });
    } else out.push([k, d.value]);
  }
  for (const s of Object.getOwnPropertySymbols(v)) {
    if (Object.prototype.propertyIsEnumerable.call(v, s)) {
      problems.push({
        path,
        message: `a symbol-keyed property is not JSON (${String(s)})`,
      });
    }
  }
  return out;
}

/**
 * Every place where `value` is not a JSON value, in document order: each non-finite number,
 * `undefined` (as a property value or an array element), function, symbol, bigint, array hole,
 * getter, non-plain object and cycle. Empty when the value is JSON. `-0` counts as JSON.
 *
 * @param value Anything.
 * @param limit Stop after this many problems (default: all).
 */
export function jsonProblems(value: unknown, limit = Infinity): JsonProblem[] {
  const problems: JsonProblem[] = [];
  // Frames: a value to visit, or (exit) an object leaving the ancestor chain.
  const stack: { v: unknown; path: PathSegment[]; exit?: boolean }[] = [{
    v: value,
    path: [],
  }];
  const ancestors = new Set<object>();
  while (stack.length && problems.length < limit) {
    const { v, path, exit } = stack.pop()!;
    if (exit) {
      ancestors.delete(v as object);
      continue;
    }
    const bad = describeNonJson(v);
    if (bad) {
      problems.push({ path, message: bad });
      continue;
    }
    if (typeof v !== "object" || v === null) continue;
    if (ancestors.has(v)) {
      problems.push({
        path,
        message: "a cycle is not a JSON value (the value contains itself)",
      });
      continue;
    }
    ancestors.add(v);
    stack.push({ v, path, exit: true });
    const entries = entriesOf(v, path, problems);
    for (let i = entries.length - 1; i >= 0; i--) {
      stack.push({ v: entries[i][1], path: [...path, entries[i][0]] });
    }
  }
  return problems.slice(0, limit);
}

/** Sets an own property without ever invoking the `__proto__` setter. */
function put(
  o: Record<PathSegment, unknown>,
  k: PathSegment,
  v: unknown,
): void {
  Object.defineProperty(o, k, {
    value: v,
    enumerable: true,
    writable: true,
    configurable: true,
  });
}

/**
 * A deep copy of a JSON value with every object and array frozen: nothing reachable from it can
 * change. Keys keep their order; a `__proto__` key stays an own property.
 *
 * @param value A value {@linkcode jsonProblems} finds nothing wrong with.
 * @throws {TypeError} When it is not a JSON value.
 */
export function frozenJsonCopy<T>(value: T): T {
  const problems = jsonProblems(value, 1);
  if (problems.length) {
    throw new TypeError(
      `Cannot copy a value that is not JSON: ${problems[0].message}`,
    );
  }
  if (typeof value !== "object" || value === null) return value;
  const made: object[] = [];
  const shell = (v: object): Record<PathSegment, unknown> => {
    const copy = (Array.isArray(v) ? [] : {}) as Record<PathSegment, unknown>;
    made.push(copy);
    return copy;
  };
  const root = shell(value);
  const stack: [object, Record<PathSegment, unknown>][] = [[value, root]];
  while (stack.length) {
    const [from, to] = stack.pop()!;
    const keys: PathSegment[] = Array.isArray(from) ? from.map((_, i) => i) : Object.keys(from);
    for (const k of keys) {
      const v = (from as Record<PathSegment, unknown>)[k];
      if (typeof v === "object" && v !== null) {
        const c = shell(v);
        put(to, k, c);
        stack.push([v, c]);
      } else put(to, k, v);
    }
  }
  for (const o of made) Object.freeze(o);
  return root as T;
}
