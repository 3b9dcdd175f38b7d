/**
 * An index of stored calls for replaying them again and again against edited schemas — what an
 * editor does on every keystroke. Calls are grouped by the set of keys they send, and each
 * property's distinct values are kept once; a schema is taken apart into its key-set rules and
 * one schema per property, and each part's verdict is cached by the part's text. After an edit,
 * only the parts that changed are validated again. The answer is exactly what `replayCalls` gives.
 *
 * @module
 */
import { isObject } from "../_object.ts";
import { Version } from "../compat/semver.ts";
import { canonicalJson } from "../schema/json_equal.ts";
import { sortIssues } from "../schema/path.ts";
import type { JsonSchema, SchemaIssue } from "../schema/types.ts";
import { isValid, validateSchema } from "../schema/validate.ts";
import { type Rejections, RejectionTally, replayCalls, type StoredCall } from "./replay.ts";

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
  /** Calls by the set of keys they send. */
  keysets: { keys: string[]; calls: number[] }[];
  /** Per key: the key-set groups that send it. */
  groupsWithKey: Map<string, number[]>;
  /** Per property name: its distinct values, each with the calls that sent it. */
  values: Map<string, { value: unknown; calls: number[] }[]>;
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
  /** Per part (key-set rules, or one property's schema): the failing entries' issues. */
  readonly #parts = new Map<string, Map<number, SchemaIssue[]>>();
  readonly #whole = new Map<string, Rejections>();
  readonly #issues = new Map<string, SchemaIssue | null>();

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
    view = {
      calls: [],
      nonObject: [],
      keysets: [],
      groupsWithKey: new Map(),
      values: new Map(),
    };
    const keysets = new Map<string, { keys: string[]; calls: number[] }>();
    const values = new Map<
      string,
      Map<string, { value: unknown; calls: number[] }>
    >();
    for (let i = 0; i < this.#calls.length; i++) {
      if (major !== undefined && this.#majors[i] !== major) continue;
      view.calls.push(i);
      const args = this.#calls[i].arguments;
      if (!isObject(args)) {
        view.nonObject.push(i);
        continue;
      }
      const keys = Object.keys(args);
      const sig = JSON.stringify([...keys].sort());
      let group = keysets.get(sig);
      if (!group) keysets.set(sig, group = { keys, calls: [] });
      group.calls.push(i);
      for (const k of keys) {
        let byValue = values.get(k);
        if (!byValue) values.set(k, byValue = new Map());
        const v = args[k];
        const vkey = canonicalJson(v);
        let entry = byValue.get(vkey);
        if (!entry) byValue.set(vkey, entry = { value: v, calls: [] });
        entry.calls.push(i);
      }
    }
    view.keysets = [...keysets.values()];
    view.keysets.forEach((g, id) => {
      for (const k of g.keys) {
        const list = view!.groupsWithKey.get(k);
        if (list) list.push(id);
        else view!.groupsWithKey.set(k, [id]);
      }
    });
    for (const [k, byValue] of values) {
      view.values.set(k, [...byValue.values()]);
    }
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
    const failing = new Map<number, SchemaIssue[][]>();
    const add = (call: number, issues: SchemaIssue[]): void => {
      const list = failing.get(call);
      if (list) list.push(issues);
      else failing.set(call, [issues]);
    };
    for (const i of view.nonObject) {
      const issues = validateSchema(schema, this.#calls[i].arguments);
      if (issues.length) add(i, issues);
    }
    // Key-set rules: each rule's verdict follows from which groups send which keys.
    const props = (schema.properties ?? {}) as Record<string, unknown>;
    for (const [g, issues] of this.#keysetFailures(schema, view, props)) {
      for (const i of view.keysets[g].calls) add(i, issues);
    }
    // One schema per named property, over that property's distinct values.
    const shared: Record<string, unknown> = {};
    if (Object.hasOwn(schema, "$defs")) shared.$defs = schema.$defs;
    if (Object.hasOwn(schema, "definitions")) {
      shared.definitions = schema.definitions;
    }
    const sharedKey = canonicalJson(shared);
    for (const name of Object.keys(props)) {
      const entries = view.values.get(name);
      if (!entries) continue;
      const part = {
        type: "object",
        properties: { [name]: props[name] },
        ...shared,
      };
      const partKey = `prop|${options.major}|${JSON.stringify(name)}|${
        canonicalJson(props[name])
      }|${sharedKey}`;
      let failures = this.#parts.get(partKey);
      if (!failures) {
        failures = new Map();
        for (let e = 0; e < entries.length; e++) {
          const probe = { [name]: entries[e].value };
          if (isValid(part, probe)) continue;
          failures.set(e, validateSchema(part, probe));
        }
        this.#remember(partKey, failures);
      }
      for (const [e, issues] of failures) {
        for (const i of entries[e].calls) add(i, issues);
      }
    }
    // Assemble exactly as replayCalls does: calls in corpus order, each call's issues sorted.
    const tally = new RejectionTally(sample);
    for (const i of [...failing.keys()].sort((a, b) => a - b)) {
      const parts = failing.get(i)!;
      tally.add(
        this.#calls[i],
        i + 1,
        parts.length === 1 ? parts[0] : sortIssues(parts.flat()),
      );
    }
    return tally.result();
  }

  /**
   * The key-set groups that break `required`, `additionalProperties: false`, `min`/`maxProperties`
   * or `dependentRequired`, each with its issues (sorted, as `validateSchema` sorts them). Each
   * issue is the one `validateSchema` itself gives for that rule alone, so the wording matches.
   */
  #keysetFailures(
    schema: Record<string, unknown>,
    view: View,
    props: Record<string, unknown>,
  ): Map<number, SchemaIssue[]> {
    const out = new Map<number, SchemaIssue[]>();
    const fail = (
      groups: Iterable<number>,
      issue: SchemaIssue | undefined,
    ): void => {
      if (!issue) return;
      for (const g of groups) {
        const list = out.get(g);
        if (list) list.push(issue);
        else out.set(g, [issue]);
      }
    };
    const all = view.keysets.map((_, g) => g);
    const without = (key: string): number[] => {
      const has = new Set(view.groupsWithKey.get(key) ?? []);
      return all.filter((g) => !has.has(g));
    };
    if (Array.isArray(schema.required)) {
      for (
        const r of new Set(
          schema.required.filter((x): x is string => typeof x === "string"),
        )
      ) {
        fail(without(r), this.#issue({ type: "object", required: [r] }, {}));
      }
    }
    if (schema.additionalProperties === false) {
      for (const [key, groups] of view.groupsWithKey) {
        if (!Object.hasOwn(props, key)) {
          fail(
            groups,
            this.#issue({ type: "object", additionalProperties: false }, {
              [key]: null,
            }),
          );
        }
      }
    }
    for (const k of ["minProperties", "maxProperties"]) {
      const n = schema[k];
      if (typeof n !== "number") continue;
      const groups = all.filter((g) =>
        k === "minProperties" ? view.keysets[g].keys.length < n : view.keysets[g].keys.length > n
      );
      for (const g of groups) {
        const probe = Object.fromEntries(
          view.keysets[g].keys.map((key) => [key, null]),
        );
        fail([g], this.#issue({ type: "object", [k]: n }, probe));
      }
    }
    if (isObject(schema.dependentRequired)) {
      for (const [name, needs] of Object.entries(schema.dependentRequired)) {
        if (!Array.isArray(needs)) continue;
        const trigger = view.groupsWithKey.get(name) ?? [];
        for (
          const need of new Set(
            needs.filter((x): x is string => typeof x === "string"),
          )
        ) {
          const has = new Set(view.groupsWithKey.get(need) ?? []);
          const issue = this.#issue({
            type: "object",
            dependentRequired: { [name]: [need] },
          }, {
            [name]: null,
          });
          fail(trigger.filter((g) => !has.has(g)), issue);
        }
      }
    }
    for (const [g, issues] of out) {
      if (issues.length > 1) out.set(g, sortIssues(issues));
    }
    return out;
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

  #remember(key: string, value: Map<number, SchemaIssue[]>): void {
    if (this.#parts.size > 20_000) this.#parts.clear();
    this.#parts.set(key, value);
  }
}
