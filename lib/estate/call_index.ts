/**
 * An index of stored calls for replaying them again and again against edited schemas — what an
 * editor does on every keystroke. Calls are grouped by the set of keys they send, per key (which
 * calls send it), and each property's distinct values are kept once; a schema is taken apart into
 * parts — one per key-set rule (`required` of one key, one key `additionalProperties: false`
 * refuses, …) and one schema per property — and each part's verdict (the calls it rejects, with
 * their issues) is cached by the part's text. The index keeps the sum of the parts in force: per
 * call how many reject it, per schema node which parts reject there. After an edit, only the parts
 * that changed are validated, taken out and added: an edit costs what it changed (and reading the
 * parts' texts), not the number of key sets. The answer is exactly what `replayCalls` gives.
 *
 * @module
 */
import { isObject } from "../_object.ts";
import { Version } from "../compat/semver.ts";
import { canonicalJson } from "../schema/json_equal.ts";
import { sortIssues } from "../schema/path.ts";
import type { JsonSchema, SchemaIssue } from "../schema/types.ts";
import { isValid, validateSchema } from "../schema/validate.ts";
import { AppliedParts, holds, makePart, type Part, type PartUnit } from "./_call_parts.ts";
import type { RejectedCall, Rejections, RejectionsAtNode, StoredCall } from "./replay.ts";
import { rejectionNode, replayCalls } from "./replay.ts";

/** Root keywords whose effect depends only on which keys a call sends. */
const KEYSET_KEYWORDS = new Set([
  "required",
  "additionalProperties",
  "minProperties",
  "maxProperties",
  "dependentRequired",
]);
/** Root keywords that change nothing about acceptance, or that the parts carry along. */
const NEUTRAL_KEYWORDS = new Set([
  "type",
  "properties",
  "$defs",
  "definitions",
  "$schema",
  "$id",
  "$comment",
  "title",
  "description",
  "examples",
  "default",
  "deprecated",
  "readOnly",
  "writeOnly",
]);

interface View {
  /** Positions (in the full call list) of the calls in this major line, in order. */
  calls: number[];
  /** Calls whose arguments are not a plain object: validated whole. */
  nonObject: number[];
  /** Calls whose arguments are a plain object, ascending. */
  objects: Int32Array;
  /** Calls by the set of keys they send. */
  keysets: { keys: string[]; calls: number[] }[];
  /** Per call position: its key-set group (-1 for calls outside the line or not objects). */
  groupOf: Int32Array;
  /** Per key: the calls that send it, ascending, in first-seen order of the keys. */
  callsWithKey: Map<string, number[]>;
  /** Per property name: its distinct values, each with the calls that sent it. */
  values: Map<string, { value: unknown; calls: number[] }[]>;
  /** Per property name: a value's canonical text → its entry in `values`. */
  entryOf: Map<string, Map<string, number>>;
  /** Parts built for this line, by key. */
  parts: Map<string, Part>;
  /** The parts of the schema last asked about, in force. */
  applied: AppliedParts;
}

/** A schema taken apart: the keys of its parts, in the order a call's issues are put together. */
interface Plan {
  /** The part for calls that are not objects (when the line has some). */
  nonObject?: string;
  /** Key-set rules, in the order `validateSchema` meets them. */
  rules: string[];
  /** Per named property that calls send: its name and its part's key. */
  props: { name: string; key: string }[];
  /** How to build each part not built yet. */
  build: Map<string, () => Part>;
}

/** Keywords no validator reads: a property's schema that changes only these keeps its verdict. */
const UNREAD_KEYWORDS = new Set([
  "title",
  "description",
  "examples",
  "default",
  "deprecated",
  "readOnly",
  "writeOnly",
  "$comment",
]);

/** A property schema's text for caching its verdict: without its own top-level annotations. */
function verdictText(schema: unknown): string {
  if (!isObject(schema)) return canonicalJson(schema);
  const read: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(schema)) {
    if (!UNREAD_KEYWORDS.has(k) && !k.startsWith("x-")) read[k] = v;
  }
  return canonicalJson(read);
}

/** The calls of ascending `all` that are not in ascending `some`. */
function minus(all: ArrayLike<number>, some: ArrayLike<number>): number[] {
  const out: number[] = [];
  let j = 0;
  for (let i = 0; i < all.length; i++) {
    const c = all[i];
    while (j < some.length && some[j] < c) j++;
    if (j < some.length && some[j] === c) continue;
    out.push(c);
  }
  return out;
}

/** Whether a root schema can be taken apart into key-set rules and per-property schemas. */
function decomposable(schema: JsonSchema): schema is Record<string, unknown> {
  if (!isObject(schema) || schema.type !== "object") return false;
  if (
    Object.hasOwn(schema, "additionalProperties") &&
    typeof schema.additionalProperties !== "boolean"
  ) return false;
  if (Object.hasOwn(schema, "properties") && !isObject(schema.properties)) {
    return false;
  }
  for (const k of Object.keys(schema)) {
    if (
      !KEYSET_KEYWORDS.has(k) && !NEUTRAL_KEYWORDS.has(k) && !k.startsWith("x-")
    ) return false;
  }
  return true;
}

/** Options for {@linkcode CallIndex.rejections}: those of `replayCalls`, without progress. */
export interface IndexReplayOptions {
  /** Only calls made to this major version line. Default: every call. */
  major?: number;
  /** How many rejected calls to keep. Default 3. */
  sample?: number;
}

/**
 * Stored calls, indexed for fast repeated replay. Build it once per set of calls.
 *
 * @example
 * ```ts
 * import { CallIndex, replayCalls } from "@tool-estate/core";
 * import assert from "node:assert/strict";
 * const calls = [
 *   { version: "1.0.0", arguments: { reference: "PMT-1", currency: "EUR" }, principal: "a", at: "2026-11-01T00:00:00Z" },
 *   { version: "1.0.0", arguments: { reference: "PMT-2" }, principal: "b", at: "2026-11-02T00:00:00Z" },
 * ];
 * const index = new CallIndex(calls);
 * const schema = { type: "object", properties: { reference: { type: "string" } }, required: ["currency"] };
 * assert.deepEqual(index.rejections(schema), replayCalls(schema, calls));
 * ```
 */
export class CallIndex {
  readonly #calls: StoredCall[];
  readonly #majors: (number | undefined)[];
  readonly #views = new Map<string, View>();
  readonly #whole = new Map<string, Rejections>();
  readonly #issues = new Map<string, SchemaIssue | null>();
  #nextPart = 0;

  /**
   * Indexes the calls (kept in memory).
   *
   * @param calls The stored calls, in corpus order.
   */
  constructor(calls: Iterable<StoredCall>) {
    this.#calls = [...calls];
    this.#majors = this.#calls.map((c) => {
      try {
        return Version.parse(c.version).major;
      } catch {
        return undefined;
      }
    });
  }

  /** How many calls are indexed. */
  get size(): number {
    return this.#calls.length;
  }

  #view(major: number | undefined): View {
    const key = String(major);
    let view = this.#views.get(key);
    if (view) return view;
    const n = this.#calls.length;
    const calls: number[] = [], nonObject: number[] = [], objects: number[] = [];
    const groupOf = new Int32Array(n).fill(-1);
    const keysets = new Map<string, { keys: string[]; calls: number[] }>();
    const groups: { keys: string[]; calls: number[] }[] = [];
    const ids = new Map<string, number>();
    const callsWithKey = new Map<string, number[]>();
    const byValue = new Map<string, Map<string, { value: unknown; calls: number[] }>>();
    for (let i = 0; i < n; i++) {
      if (major !== undefined && this.#majors[i] !== major) continue;
      calls.push(i);
      const args = this.#calls[i].arguments;
      if (!isObject(args)) {
        nonObject.push(i);
        continue;
      }
      objects.push(i);
      const keys = Object.keys(args);
      const sig = JSON.stringify([...keys].sort());
      let group = keysets.get(sig);
      if (!group) {
        keysets.set(sig, group = { keys, calls: [] });
        ids.set(sig, groups.length);
        groups.push(group);
      }
      group.calls.push(i);
      groupOf[i] = ids.get(sig)!;
      for (const k of keys) {
        const withKey = callsWithKey.get(k);
        if (withKey) withKey.push(i);
        else callsWithKey.set(k, [i]);
        let entries = byValue.get(k);
        if (!entries) byValue.set(k, entries = new Map());
        const v = args[k];
        const vkey = canonicalJson(v);
        let entry = entries.get(vkey);
        if (!entry) entries.set(vkey, entry = { value: v, calls: [] });
        entry.calls.push(i);
      }
    }
    const values = new Map<string, { value: unknown; calls: number[] }[]>();
    const entryOf = new Map<string, Map<string, number>>();
    for (const [k, entries] of byValue) {
      values.set(k, [...entries.values()]);
      entryOf.set(k, new Map([...entries.keys()].map((vkey, e) => [vkey, e])));
    }
    view = {
      calls,
      nonObject,
      objects: Int32Array.from(objects),
      keysets: groups,
      groupOf,
      callsWithKey,
      values,
      entryOf,
      parts: new Map(),
      applied: new AppliedParts(n),
    };
    this.#views.set(key, view);
    return view;
  }

  /**
   * The stored calls a schema rejects — the same answer as {@linkcode replayCalls} over the same
   * calls — reusing every part of earlier answers whose schema text did not change.
   *
   * @param schema The schema to replay against.
   * @param options `major`: only calls made to that major line; `sample`: rejected calls to keep (default 3).
   * @returns The rejections.
   */
  rejections(schema: JsonSchema, options: IndexReplayOptions = {}): Rejections {
    const sample = options.sample ?? 3;
    const view = this.#view(options.major);
    if (!decomposable(schema)) {
      // Not taken apart: replay whole, cached by the schema's text.
      const key = `${options.major}|${sample}|${canonicalJson(schema)}`;
      let r = this.#whole.get(key);
      if (!r) {
        r = replayCalls(schema, view.calls.map((i) => this.#calls[i]), {
          sample,
        });
        // replayCalls counts positions within the list it was given: map them back.
        r = {
          ...r,
          first: r.first.map((f) => ({
            ...f,
            index: view.calls[f.index - 1] + 1,
          })),
        };
        if (this.#whole.size > 32) this.#whole.clear();
        this.#whole.set(key, r);
      }
      return r;
    }
    // Put the schema's parts in force: only those not in force already are looked at.
    const plan = this.#plan(schema, view);
    view.applied.set([
      ...(plan.nonObject ? [plan.nonObject] : []),
      ...plan.rules,
      ...plan.props.map((p) => p.key),
    ], (key) => {
      let part = view.parts.get(key);
      if (!part) {
        part = plan.build.get(key)!();
        if (view.parts.size > 20_000) view.parts.clear();
        view.parts.set(key, part);
      }
      return part;
    });
    // The tally replayCalls would make, from the parts: calls in corpus order, each call's issues
    // put together from its parts and sorted; per node, distinct calls, the example the first.
    const issues = new Map<number, SchemaIssue[]>();
    const issuesOf = (call: number): SchemaIssue[] => {
      let list = issues.get(call);
      if (!list) issues.set(call, list = this.#issuesOf(call, plan, view));
      return list;
    };
    const first: RejectedCall[] = view.applied.firstRejected(sample).map((c) => ({
      call: this.#calls[c],
      index: c + 1,
      issues: issuesOf(c),
    }));
    const nodes = view.applied.nodes().map((n) => {
      const list = issuesOf(n.first);
      const at = list.findIndex((issue) => rejectionNode(issue) === n.key);
      return { ...n, at, example: list[at] };
    });
    // Most calls first, then by schema path; then as the tally met them (corpus order).
    nodes.sort((a, b) =>
      b.count - a.count ||
      (a.example.schemaPath < b.example.schemaPath
        ? -1
        : a.example.schemaPath > b.example.schemaPath
        ? 1
        : 0) ||
      a.first - b.first || a.at - b.at
    );
    const byNode: RejectionsAtNode[] = nodes.map((n) => ({
      schemaPath: n.example.schemaPath,
      keyword: n.example.keyword,
      count: n.count,
      example: n.example,
    }));
    return { count: view.applied.rejected, first, byNode };
  }

  /** A call's issues under the parts in force, put together as `validateSchema` orders them. */
  #issuesOf(call: number, plan: Plan, view: View): SchemaIssue[] {
    const args = this.#calls[call].arguments;
    if (!isObject(args)) return view.applied.get(plan.nonObject!)!.issuesOf(call)!;
    const lists: SchemaIssue[][] = [];
    const keyset: SchemaIssue[] = [];
    for (const key of plan.rules) {
      const found = view.applied.get(key)!.issuesOf(call);
      if (found) keyset.push(...found);
    }
    if (keyset.length) lists.push(keyset.length > 1 ? sortIssues(keyset) : keyset);
    for (const { name, key } of plan.props) {
      if (!Object.hasOwn(args, name)) continue;
      const found = view.applied.get(key)!.issuesOf(call);
      if (found) lists.push(found);
    }
    return lists.length === 1 ? lists[0] : sortIssues(lists.flat());
  }

  /**
   * The schema's parts: the non-object calls' verdict, one per key-set rule (`required`,
   * `additionalProperties: false`, `min`/`maxProperties`, `dependentRequired`), one per named
   * property. Each key is the part's text, so an unchanged part keeps its verdict.
   */
  #plan(schema: Record<string, unknown>, view: View): Plan {
    const build = new Map<string, () => Part>();
    const plan: Plan = { rules: [], props: [], build };
    const props = (schema.properties ?? {}) as Record<string, unknown>;
    const newPart = (
      units: PartUnit[],
      issuesOf: (call: number) => SchemaIssue[] | undefined,
    ) => makePart(this.#nextPart++, units, issuesOf);
    /** A rule with one issue for every call it rejects. */
    const rule = (
      key: string,
      calls: () => ArrayLike<number>,
      issue: () => SchemaIssue | undefined,
    ) => {
      plan.rules.push(key);
      build.set(key, () => {
        const found = issue();
        const rejected = found ? calls() : [];
        const issues = found ? [found] : [];
        return newPart(
          rejected.length ? [{ calls: rejected, issues }] : [],
          (c) => rejected.length && holds(rejected, c) ? issues : undefined,
        );
      });
    };
    const withKey = (key: string) => view.callsWithKey.get(key) ?? [];
    if (view.nonObject.length) {
      // Only `type` (and the dialect) speak to a value that is not an object.
      const root = Object.fromEntries(
        Object.entries(schema).filter(([k]) => !["properties", "$defs", "definitions"].includes(k)),
      );
      const key = `nonobject|${canonicalJson(root)}`;
      plan.nonObject = key;
      build.set(key, () => {
        const failures = new Map<number, SchemaIssue[]>();
        for (const i of view.nonObject) {
          const issues = validateSchema(root, this.#calls[i].arguments);
          if (issues.length) failures.set(i, issues);
        }
        return newPart(
          [...failures].map(([i, issues]) => ({ calls: [i], issues })),
          (c) => failures.get(c),
        );
      });
    }
    if (Array.isArray(schema.required)) {
      for (const r of new Set(schema.required.filter((x): x is string => typeof x === "string"))) {
        rule(
          `required|${JSON.stringify(r)}`,
          () => minus(view.objects, withKey(r)),
          () => this.#issue({ type: "object", required: [r] }, {}),
        );
      }
    }
    if (schema.additionalProperties === false) {
      for (const key of view.callsWithKey.keys()) {
        if (Object.hasOwn(props, key)) continue;
        rule(
          `additional|${JSON.stringify(key)}`,
          () => withKey(key),
          () => this.#issue({ type: "object", additionalProperties: false }, { [key]: null }),
        );
      }
    }
    for (const k of ["minProperties", "maxProperties"]) {
      const n = schema[k];
      if (typeof n !== "number") continue;
      const key = `${k}|${n}`;
      plan.rules.push(key);
      build.set(key, () => {
        const breaks = (keys: string[]) =>
          k === "minProperties" ? keys.length < n : keys.length > n;
        const byGroup = new Map<number, SchemaIssue[]>();
        view.keysets.forEach((g, id) => {
          if (!breaks(g.keys)) return;
          const probe = Object.fromEntries(g.keys.map((key) => [key, null]));
          const issue = this.#issue({ type: "object", [k]: n }, probe);
          if (issue) byGroup.set(id, [issue]);
        });
        return newPart(
          [...byGroup].map(([id, issues]) => ({ calls: view.keysets[id].calls, issues })),
          (c) => byGroup.get(view.groupOf[c]),
        );
      });
    }
    if (isObject(schema.dependentRequired)) {
      for (const [name, needs] of Object.entries(schema.dependentRequired)) {
        if (!Array.isArray(needs)) continue;
        for (const need of new Set(needs.filter((x): x is string => typeof x === "string"))) {
          rule(
            `dependentRequired|${JSON.stringify([name, need])}`,
            () => minus(withKey(name), withKey(need)),
            () =>
              this.#issue({ type: "object", dependentRequired: { [name]: [need] } }, {
                [name]: null,
              }),
          );
        }
      }
    }
    // One schema per named property, over that property's distinct values.
    const shared: Record<string, unknown> = {};
    if (Object.hasOwn(schema, "$defs")) shared.$defs = schema.$defs;
    if (Object.hasOwn(schema, "definitions")) shared.definitions = schema.definitions;
    const sharedKey = canonicalJson(shared);
    for (const name of Object.keys(props)) {
      const entries = view.values.get(name);
      if (!entries) continue;
      const key = `prop|${JSON.stringify(name)}|${verdictText(props[name])}|${sharedKey}`;
      plan.props.push({ name, key });
      build.set(key, () => {
        const part = { type: "object", properties: { [name]: props[name] }, ...shared };
        const failures = new Map<number, SchemaIssue[]>();
        for (let e = 0; e < entries.length; e++) {
          const probe = { [name]: entries[e].value };
          if (isValid(part, probe)) continue;
          failures.set(e, validateSchema(part, probe));
        }
        const entryOf = view.entryOf.get(name)!;
        return newPart(
          [...failures].map(([e, issues]) => ({ calls: entries[e].calls, issues })),
          (c) => {
            if (failures.size === 0) return undefined;
            const args = this.#calls[c].arguments as Record<string, unknown>;
            return failures.get(entryOf.get(canonicalJson(args[name]))!);
          },
        );
      });
    }
    return plan;
  }

  /** The single issue a one-rule schema gives for a probe (cached by both). */
  #issue(
    rule: Record<string, unknown>,
    probe: Record<string, unknown>,
  ): SchemaIssue | undefined {
    const key = `issue|${canonicalJson(rule)}|${canonicalJson(probe)}`;
    let cached = this.#issues.get(key);
    if (cached === undefined) {
      cached = validateSchema(rule, probe)[0] ?? null;
      if (this.#issues.size > 50_000) this.#issues.clear();
      this.#issues.set(key, cached);
    }
    return cached ?? undefined;
  }
}
