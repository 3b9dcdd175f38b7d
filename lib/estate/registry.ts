/**
 * The registry: an immutable, versioned estate of tools in memory — its state (every version with
 * its lifecycle, and the servers that serve tools it did not write), the queries over it (latest,
 * resolve, versions, discovery per principal, which server serves a tool), and the events
 * subscribers hear. The rules it applies live beside it: `publish_plan.ts` (publishing),
 * `retirement.ts` and `retirement_plan.ts` (retiring), `replay.ts` (stored calls), `servers.ts`
 * (the server directory). Pure: storage and I/O are the caller's (see the disk estate).
 *
 * @module
 */
import { type DeprecationNotice, deprecationNotice } from "./deprecation.ts";
import { compareVersions, satisfies } from "../compat/semver.ts";
import {
  type CompatibilityMode,
  DEFAULT_COMPATIBILITY,
  isCompatibilityMode,
} from "../compat/compatibility_mode.ts";
import {
  copyRecord,
  type DeprecateVersionOptions,
  type LifecycleEntry,
  LifecycleError,
  retiredAlready,
  type VersionRecord,
} from "./lifecycle.ts";
import {
  type PlanOptions,
  PublishError,
  publishError,
  type PublishPlan,
  publishPlan,
  type PublishResult,
  sameContent,
} from "./publish_plan.ts";
import { type CallSource, replayCalls } from "./replay.ts";
import { dueRetirement, retireAfterProblem, scheduledRetirement } from "./retirement.ts";
import {
  RetirementError,
  type RetirementOptions,
  type RetirementPlan,
  retirementPlan,
  type RetireVersionOptions,
} from "./retirement_plan.ts";
import { hiddenToolMentions } from "./tool_mentions.ts";
import type { ServerRecord } from "./server_record.ts";
import {
  type RegisterServerOptions,
  type RegisterServerResult,
  sameServerRecord,
  ServerDirectory,
  type ServerLookup,
} from "./servers.ts";
import { canSee, classificationRank, keepToolSpec, type Principal, type ToolSpec } from "./spec.ts";
import type { PublishTrace } from "./publish_trace.ts";

/** A change to the estate, for subscribers such as an MCP server's list_changed. */
export interface EstateEvent {
  /**
   * What happened: a version was published, deprecated or retired; or a server was registered,
   * or its record replaced by an update.
   */
  type:
    | "published"
    | "deprecated"
    | "retired"
    | "server-registered"
    | "server-updated";
  /** The tool; for a server event, the server's id. */
  name: string;
  /** The version; empty for a server event. */
  version: string;
}

/** Options for a {@linkcode ToolRegistry}. */
export interface RegistryOptions {
  /** The stored calls publish replays for a non-major bump. Default: none. */
  storedCalls?: CallSource;
  /**
   * The clock: for lifecycle timestamps, and for retirement on its date — a deprecated version
   * whose retire-after date has passed by this clock is retired. Default: `new Date()`.
   */
  now?: () => Date;
  /** How many rejected calls a refusal lists. Default 3. */
  rejectedSample?: number;
  /**
   * The estate's compatibility mode, for a tool that declares none in its spec (`compatibility`):
   * what publish, `plan` and the gateway's drift check hold its changes to. Default `backward`.
   */
  compatibility?: CompatibilityMode;
  /**
   * Told what `plan`, `publish` and `adopt` do on their way: each candidate checked, each schema
   * classified (see {@linkcode PublishTrace}). Default: none.
   */
  trace?: PublishTrace;
}

/** A version as it was reviewed and stored, for {@linkcode ToolRegistry.restore}. */
export interface StoredVersion {
  /** The spec as published. */
  spec: ToolSpec;
  /** Its lifecycle, oldest first (empty: active, with no recorded time). */
  history: LifecycleEntry[];
}

/** Options for {@linkcode ToolRegistry.restore}. */
export interface RestoreOptions {
  /**
   * Tell subscribers a new version was published (for changes another process made to the estate
   * on disk). Default false, for loading.
   */
  emit?: boolean;
}

/** A name's active versions, newest first, with what visibility needs precomputed. */
interface IndexEntry {
  name: string;
  active: { spec: ToolSpec; rank: number; tenants: Set<string> | undefined }[];
}

interface Entry {
  records: VersionRecord[]; // ascending by version
}

/**
 * The registry's own copy of a candidate spec (`keepToolSpec`): checked with `parseToolSpec`, then
 * copied deep and frozen, so nothing the caller does to its object afterwards reaches a published
 * version; a spec kept already (parsed once, at the edge) is taken as it is.
 */
function keep(candidate: unknown, trace?: PublishTrace): ToolSpec {
  return keepToolSpec(candidate, { trace });
}

/**
 * An in-memory estate of tool versions. Every published version is immutable — the registry keeps
 * a deep, frozen copy of each spec and hands out only that — lifecycle moves one way (active →
 * deprecated → retired); discovery answers per principal.
 *
 * Retirement happens on its date: a deprecated version whose retire-after date has passed by the
 * registry's clock is retired before anything is read — it no longer resolves, its history ends
 * with a `retired` entry at the moment the date passed, and subscribers hear a `retired` event —
 * so whoever reads the registry at a given moment sees the same estate. `nextRetirement()` says
 * when the next one is due, for a timer; `retireDue()` applies what is due now.
 *
 * @example
 * ```ts
 * import { PublishError, ToolRegistry, type ToolSpec } from "@tool-estate/core";
 * import assert from "node:assert/strict";
 *
 * const v1: ToolSpec = {
 *   name: "payments.lookup", version: "1.0.0", title: "Look up a payment",
 *   description: "Returns a wholesale payment's status by reference. Reads the payments system of record.",
 *   inputSchema: { type: "object", properties: { reference: { type: "string" }, currency: { type: "string" } }, required: ["reference"] },
 *   sideEffect: "read", requiredScopes: ["payments:read"], dataClassification: "confidential", tenants: ["wholesale"], owner: "payments-platform",
 * };
 * const registry = new ToolRegistry();
 * registry.publish(v1);
 * const breaking = { ...v1, version: "1.1.0", inputSchema: { type: "object", properties: { reference: { type: "string" } }, required: ["reference"] } };
 * assert.throws(() => registry.publish(breaking), (e: unknown) => e instanceof PublishError && e.refusal === "bump-too-small");
 * registry.publish({ ...breaking, version: "2.0.0" });
 * assert.equal(registry.latest("payments.lookup")?.version, "2.0.0");
 * ```
 */
export class ToolRegistry implements ServerLookup {
  readonly #tools = new Map<string, Entry>();
  #servers = new ServerDirectory();
  readonly #listeners = new Set<(event: EstateEvent) => void>();
  readonly #storedCalls: CallSource;
  readonly #now: () => Date;
  readonly #sample: number;
  #compatibility: CompatibilityMode;
  readonly #trace: PublishTrace | undefined;
  /** Sorted names with their active versions newest first; rebuilt lazily after a change. */
  #discoveryIndex: IndexEntry[] | undefined;
  /** The earliest retirement scheduled and not yet applied (ms); undefined: to compute; null: none. */
  #due: number | null | undefined = null;

  /**
   * Makes an empty registry.
   *
   * @param options Stored calls for replay, the clock, the size of refusal samples.
   */
  constructor(options: RegistryOptions = {}) {
    this.#storedCalls = options.storedCalls ?? (() => []);
    this.#now = options.now ?? (() => new Date());
    this.#sample = options.rejectedSample ?? 3;
    this.#compatibility = options.compatibility ?? DEFAULT_COMPATIBILITY;
    this.#trace = options.trace;
  }

  /**
   * The estate's compatibility mode: for a tool whose spec declares none.
   *
   * @returns The mode given as `RegistryOptions.compatibility`, else `backward`.
   */
  get compatibility(): CompatibilityMode {
    return this.#compatibility;
  }

  /**
   * Changes the estate's compatibility mode (the estate's settings changed: a store took in a new
   * `estate.json`). Versions already published stay; the next `plan` and publish use the mode.
   *
   * @param mode The mode for a tool whose spec declares none.
   * @throws {TypeError} When `mode` is not a compatibility mode.
   *
   * @example
   * ```ts
   * import { ToolRegistry } from "@tool-estate/core";
   * import assert from "node:assert/strict";
   * const registry = new ToolRegistry();
   * registry.setCompatibility("forward");
   * assert.equal(registry.compatibility, "forward");
   * ```
   */
  setCompatibility(mode: CompatibilityMode): void {
    if (!isCompatibilityMode(mode)) {
      throw new TypeError(`Not a compatibility mode: ${JSON.stringify(mode)}`);
    }
    this.#compatibility = mode;
  }

  /**
   * The compatibility mode a version is held to: its own `compatibility`, else the estate's.
   *
   * @param spec The version (or a candidate).
   * @returns The mode.
   */
  compatibilityOf(spec: ToolSpec): CompatibilityMode {
    return spec.compatibility ?? this.#compatibility;
  }

  /**
   * Works out what publishing `spec` would do, without publishing.
   *
   * @param candidate The spec (validated with `parseToolSpec`).
   * @param options `replay`: answers the stored-call replay instead of streaming the calls
   *   through `replayCalls` — e.g. a {@linkcode CallIndex} for an editor that plans on every
   *   keystroke; it must give the same answer.
   * @returns The plan: baseline, required bump, and every refusal.
   * @throws {ToolSpecError} When the candidate is not a valid spec.
   */
  plan(candidate: ToolSpec | unknown, options: PlanOptions = {}): PublishPlan {
    const spec = keep(candidate, this.#trace);
    this.#settle();
    return publishPlan({
      spec,
      versions: this.#tools.get(spec.name)?.records ?? [],
      hiddenMentions: (s) => hiddenToolMentions(s, this),
      // Replays the stored calls of the new version's major line through its schema.
      replay: options.replay ??
        ((schema, line) => replayCalls(schema, this.#storedCalls(spec.name), line)),
      sample: this.#sample,
      compatibility: this.#compatibility,
      servers: this.#servers,
      calls: () => this.#storedCalls(spec.name),
      trace: this.#trace,
    });
  }

  /**
   * Publishes a version, or refuses with a {@linkcode PublishError} whose message says what and how
   * to fix it. An identical republish is reported as `already-published` and changes nothing.
   *
   * The registry keeps a deep copy of the spec and freezes it: changing the caller's object
   * afterwards changes nothing, and every reader (`latest`, `resolve`, `discover`, `visible`,
   * `versions`, `plan`) hands out that one frozen value.
   *
   * @param candidate The spec.
   * @returns What happened, with the plan.
   * @throws {PublishError} For a republish with different content, a version not newer than the
   *   newest, a bump smaller than the change requires, a schema `checkSchema` rejects, stored
   *   calls the new schema rejects (non-major bumps), or a description that names a tool some
   *   principal who sees this one may not see (`hiddenToolMentions`), a `server` that is not
   *   registered or whose record does not list the tool, or a title, description or schema text
   *   with characters a reviewer cannot see (`specPoisoning`). Platform metadata in a description
   *   (`lintDescription`) and the visible signs of tool poisoning are warnings of `checkDraft`,
   *   never refusals.
   * @throws {ToolSpecError} When the candidate is not a valid spec.
   */
  publish(candidate: ToolSpec | unknown): PublishResult {
    // Decided here, then adopted as any plan is: one path from a plan to a published version.
    return this.adopt(this.plan(candidate));
  }

  /**
   * Publishes a version as a plan already decided it: a store plans once, against the estate as
   * stored (`plan`, on this registry or on one loaded from the same store), writes the version,
   * and this registry, which mirrors the store, adopts that decision instead of making it again.
   * The version is inserted (its first lifecycle entry `active`, now) and subscribers hear of it,
   * as for {@linkcode ToolRegistry.publish}.
   *
   * @param plan The plan the store followed.
   * @returns What happened, with the plan: `already-published` for a plan that found the version
   *   published with the same content, or when this registry holds it already with that content.
   * @throws {PublishError} When the plan has refusals (the error `publish` would throw), or this
   *   registry holds the version with different content.
   *
   * @example
   * ```ts
   * import { ToolRegistry, type ToolSpec } from "@tool-estate/core";
   * import assert from "node:assert/strict";
   *
   * const v1: ToolSpec = {
   *   name: "fx.quote", version: "1.0.0", title: "Quote", description: "Quotes a currency rate.",
   *   inputSchema: { type: "object" }, sideEffect: "read", requiredScopes: ["fx:read"],
   *   dataClassification: "internal", tenants: ["wholesale"], owner: "fx-desk",
   * };
   * const decided = new ToolRegistry().plan(v1);
   * const mirror = new ToolRegistry();
   * assert.equal(mirror.adopt(decided).status, "published");
   * assert.equal(mirror.latest("fx.quote")?.version, "1.0.0");
   * ```
   */
  adopt(plan: PublishPlan): PublishResult {
    const spec = keep(plan.spec, this.#trace);
    this.#settle();
    if (plan.alreadyPublished) return { status: "already-published", plan };
    if (plan.refusals.length) throw publishError(plan);
    const existing = this.#find(spec.name, spec.version);
    if (existing) {
      if (sameContent(existing.spec, spec)) return { status: "already-published", plan };
      throw new PublishError(
        "republish",
        `Cannot publish ${spec.name}@${spec.version}: ${spec.version} is already published with different content, and published versions are immutable`,
      );
    }
    this.#insert({
      spec,
      state: "active",
      history: [{ state: "active", at: this.#now().toISOString() }],
    });
    this.#emit({ type: "published", name: spec.name, version: spec.version });
    return { status: "published", plan };
  }

  /**
   * Adds a version as it was reviewed and stored (loading an estate from disk), with its
   * lifecycle history. Only immutability is checked: the rules applied when it was published.
   *
   * @param record The spec and its lifecycle history (oldest first); the spec is kept as a deep,
   *   frozen copy, as {@linkcode ToolRegistry.publish} keeps it.
   * @param options `emit: true` tells subscribers a new version was published (for changes another
   *   process made to the estate on disk); default false, for loading.
   * @returns True when the version was added, false when it was already present.
   * @throws {PublishError} When the same version is already present with different content.
   */
  restore(record: StoredVersion, options: RestoreOptions = {}): boolean {
    const spec = keep(record.spec);
    const existing = this.#find(spec.name, spec.version);
    if (existing) {
      if (sameContent(existing.spec, spec)) return false;
      throw new PublishError(
        "republish",
        `Cannot restore ${spec.name}@${spec.version}: present with different content`,
      );
    }
    const history = record.history.length
      ? record.history.map((h) => ({ ...h }))
      : [{ state: "active" as const, at: "" }];
    this.#insert({ spec, state: history[history.length - 1].state, history });
    if (options.emit) {
      this.#emit({ type: "published", name: spec.name, version: spec.version });
    }
    return true;
  }

  /**
   * Deprecates an active version: it is no longer `latest()` or listed, but a pin only it satisfies
   * still resolves to it.
   *
   * @param name The tool.
   * @param version The version.
   * @param options Why, and the retire-after date: a calendar date (`YYYY-MM-DD`) after today
   *   (UTC, by the registry's clock); once it has passed the version retires by itself.
   * @returns A copy of the version's record, after the change.
   * @throws {LifecycleError} When the version is unknown or not active, or `retireAfter` is not a
   *   calendar date in the future.
   */
  deprecate(
    name: string,
    version: string,
    options: DeprecateVersionOptions = {},
  ): VersionRecord {
    const r = this.#require(name, version, "deprecate");
    if (r.state !== "active") {
      throw new LifecycleError(
        `Cannot deprecate ${name}@${version}: it is ${r.state}; only an active version can be deprecated`,
      );
    }
    const now = this.#now();
    if (options.retireAfter !== undefined) {
      const problem = retireAfterProblem(options.retireAfter, now);
      if (problem) {
        throw new LifecycleError(
          `Cannot deprecate ${name}@${version}: ${problem}`,
        );
      }
    }
    const entry: LifecycleEntry = {
      state: "deprecated",
      at: now.toISOString(),
    };
    if (options.reason !== undefined) entry.reason = options.reason;
    if (options.retireAfter !== undefined) {
      entry.retireAfter = options.retireAfter;
    }
    this.#transition(r, entry);
    return copyRecord(r);
  }

  /**
   * Retires a version: it never resolves again.
   *
   * @param name The tool.
   * @param version The version.
   * @param options Why; and `rules`, to apply the retirement rules of
   *   {@linkcode ToolRegistry.planRetirement} with those exemptions (the CLI does).
   * @returns A copy of the version's record, after the change.
   * @throws {RetirementError} With `rules`, when a rule refuses it (the error carries the plan).
   * @throws {LifecycleError} When the version is unknown or already retired.
   */
  retire(
    name: string,
    version: string,
    options: RetireVersionOptions = {},
  ): VersionRecord {
    if (options.rules) {
      const plan = this.planRetirement(name, version, {
        ...options.rules,
        reason: options.reason,
      });
      if (plan.refusals.length) throw new RetirementError(plan);
    }
    const r = this.#require(name, version, "retire");
    if (r.state === "retired") {
      throw new LifecycleError(
        `Cannot retire ${name}@${version}: ${retiredAlready(r)}`,
      );
    }
    const entry: LifecycleEntry = {
      state: "retired",
      at: this.#now().toISOString(),
    };
    if (options.reason !== undefined) entry.reason = options.reason;
    this.#transition(r, entry);
    return copyRecord(r);
  }

  /**
   * Works out what retiring a version would do under the retirement rules, without retiring it:
   * who calls it (from the stored calls), and which rules refuse it. The rules:
   *
   * - the version must be deprecated first, and its retire-after date (if it has one) passed —
   *   unless retired `early`, which needs a `reason`;
   * - retiring the only active version of a tool needs `force`;
   * - so does retiring a version called in the last `recentDays` days (default 30).
   *
   * @param name The tool.
   * @param version The version.
   * @param options The exemptions, and why.
   * @returns The plan: record, impact report, refusals.
   * @throws {LifecycleError} When the version is unknown or already retired.
   *
   * @example
   * ```ts
   * import { ToolRegistry, type ToolSpec } from "@tool-estate/core";
   * import assert from "node:assert/strict";
   * const spec: ToolSpec = {
   *   name: "fx.quote", version: "1.0.0", title: "FX quote",
   *   description: "Quotes a foreign exchange rate for a currency pair. Reads the pricing engine.",
   *   inputSchema: { type: "object", properties: { pair: { type: "string" } } },
   *   sideEffect: "read", requiredScopes: ["fx:read"], dataClassification: "internal", tenants: [], owner: "fx-desk",
   * };
   * const registry = new ToolRegistry({ now: () => new Date("2026-11-30T12:00:00Z") });
   * registry.publish(spec);
   * registry.publish({ ...spec, version: "2.0.0" });
   * registry.deprecate("fx.quote", "1.0.0", { retireAfter: "2027-03-31" });
   * const plan = registry.planRetirement("fx.quote", "1.0.0");
   * assert.deepEqual(plan.refusals.map((r) => r.refusal), ["date-not-reached"]);
   * assert.equal(plan.retiresAt, "2027-04-01T00:00:00.000Z");
   * const early = registry.planRetirement("fx.quote", "1.0.0", { early: true, reason: "pricing bug" });
   * assert.deepEqual(early.refusals, []);
   * ```
   */
  planRetirement(
    name: string,
    version: string,
    options: RetirementOptions = {},
  ): RetirementPlan {
    this.#settle();
    const r = this.#require(name, version, "retire");
    if (r.state === "retired") {
      throw new LifecycleError(
        `Cannot retire ${name}@${version}: ${retiredAlready(r)}`,
      );
    }
    return retirementPlan({
      now: this.#now(),
      record: r,
      versions: this.#tools.get(name)!.records,
      calls: () => this.#storedCalls(name),
    }, options);
  }

  /**
   * When the next retirement on a retire-after date is due (the registry applies it by itself
   * when anything is read at or after that moment; a server sets a timer for it).
   *
   * @returns The moment (ISO 8601), or undefined when none is scheduled.
   */
  nextRetirement(): string | undefined {
    this.#settle();
    return this.#due === null || this.#due === undefined
      ? undefined
      : new Date(this.#due).toISOString();
  }

  /**
   * Retires, now, every deprecated version whose retire-after date has passed by the registry's
   * clock (reads do this by themselves; a timer calls it to tell subscribers on time). Each gets a
   * `retired` entry at the moment its date passed, and subscribers hear a `retired` event.
   *
   * @returns Copies of the records retired now, if any.
   */
  retireDue(): VersionRecord[] {
    return this.#settle().map(copyRecord);
  }

  /**
   * The newest active version of a tool.
   *
   * @param name The tool.
   * @returns Its spec, or undefined when no version is active.
   */
  latest(name: string): ToolSpec | undefined {
    this.#settle();
    const records = this.#tools.get(name)?.records ?? [];
    for (let i = records.length - 1; i >= 0; i--) {
      if (records[i].state === "active") return records[i].spec;
    }
    return undefined;
  }

  /**
   * Resolves a version constraint (`^1.2.0`, `~1.2.0`, `1.2.3`, `*`, ranges): the newest active
   * match, else the newest deprecated one; retired versions never resolve.
   *
   * @param name The tool.
   * @param constraint An npm-style constraint.
   * @returns The spec, or undefined.
   * @throws {TypeError} When the constraint is not valid.
   */
  resolve(name: string, constraint: string): ToolSpec | undefined {
    this.#settle();
    const records = this.#tools.get(name)?.records ?? [];
    let deprecated: ToolSpec | undefined;
    for (let i = records.length - 1; i >= 0; i--) {
      const r = records[i];
      if (r.state === "retired" || !satisfies(r.spec.version, constraint)) {
        continue;
      }
      if (r.state === "active") return r.spec;
      deprecated ??= r.spec;
    }
    return deprecated;
  }

  /**
   * Every published version of a tool, oldest first, with its lifecycle.
   *
   * @param name The tool.
   * @returns Copies of the records (each with the one frozen spec).
   */
  versions(name: string): VersionRecord[] {
    this.#settle();
    return (this.#tools.get(name)?.records ?? []).map(copyRecord);
  }

  /**
   * One published version, whatever its state (active, deprecated or retired).
   *
   * @param name The tool.
   * @param version The version.
   * @returns A copy of its record (with the one frozen spec); undefined when it was never
   *   published.
   */
  version(name: string, version: string): VersionRecord | undefined {
    this.#settle();
    const record = this.#find(name, version);
    return record && copyRecord(record);
  }

  /**
   * What a caller of a version is told when the version is deprecated: the reason, the
   * retirement date, the successor (the tool's newest active version).
   *
   * @param name The tool.
   * @param version The version.
   * @returns The notice; undefined when the version is active, retired or unknown.
   */
  deprecation(name: string, version: string): DeprecationNotice | undefined {
    this.#settle();
    const record = this.#tools.get(name)?.records.find((r) => r.spec.version === version);
    if (record?.state !== "deprecated") return undefined;
    return deprecationNotice(record, this.latest(name)?.version);
  }

  /**
   * Every tool name, sorted.
   *
   * @returns The names.
   */
  names(): string[] {
    return [...this.#tools.keys()].sort();
  }

  /**
   * What a principal may see: for each tool name in sorted order, the newest active version whose
   * scopes, tenants and classification admit the principal. A tool the principal may not see is
   * simply absent. Cost grows with the estate, not with the number of principals.
   *
   * @param principal The caller.
   * @returns The visible specs.
   */
  discover(principal: Principal): ToolSpec[] {
    this.#settle();
    const out: ToolSpec[] = [];
    const clearance = classificationRank(principal.clearance);
    const scopes = new Set(principal.scopes);
    for (const { active } of this.#index()) {
      for (const v of active) {
        // The same rule as canSee(), with the principal's side computed once per call.
        if (v.rank > clearance) continue;
        if (v.tenants !== undefined && !v.tenants.has(principal.tenant)) {
          continue;
        }
        if (!v.spec.requiredScopes.every((s) => scopes.has(s))) continue;
        out.push(v.spec);
        break;
      }
    }
    return out;
  }

  /**
   * The version of one tool a principal may call unpinned: the newest active version whose scopes,
   * tenants and classification admit the principal — what `discover` lists for that name.
   *
   * @param name The tool.
   * @param principal The caller.
   * @returns The spec, or undefined when the principal may see no active version of it.
   */
  visible(name: string, principal: Principal): ToolSpec | undefined {
    this.#settle();
    const records = this.#tools.get(name)?.records ?? [];
    for (let i = records.length - 1; i >= 0; i--) {
      if (records[i].state === "active" && canSee(records[i].spec, principal)) {
        return records[i].spec;
      }
    }
    return undefined;
  }

  /**
   * Records a server the estate did not write: how to reach it, the identity it must prove, and
   * the tool names it may serve. Exactly one server serves a name: a record that lists a name
   * another server lists is refused. A different record under a registered id is refused unless
   * `update` is set; the same record again changes nothing. Subscribers hear `server-registered`
   * or `server-updated`.
   *
   * The record is kept as a deep, frozen copy. Tool specs that name the server are checked
   * against it when they are published; an update does not re-check versions already published
   * (which server serves a name is always the directory's answer, `serverFor`).
   *
   * @param candidate The record (checked with `parseServerRecord`).
   * @param options `update: true` to replace a different record registered under its id.
   * @returns What happened, with the record as kept.
   * @throws {ServerRecordError} When the candidate is not a valid record.
   * @throws {ServerRegistrationError} When it lists a tool another server serves, or differs from
   *   the registered record and is not an update.
   *
   * @example
   * ```ts
   * import { ServerRegistrationError, ToolRegistry } from "@tool-estate/core";
   * import assert from "node:assert/strict";
   * const registry = new ToolRegistry();
   * const crm = {
   *   id: "crm-mcp", owner: "crm-team", description: "The CRM team's MCP server.",
   *   upstream: { kind: "http", url: "https://crm.internal/mcp", identity: { spiffeId: "spiffe://bank.example/crm" } },
   *   tools: ["crm.customer.get"],
   * };
   * assert.equal(registry.registerServer(crm).status, "registered");
   * assert.equal(registry.serverFor("crm.customer.get")?.id, "crm-mcp");
   * assert.throws(
   *   () => registry.registerServer({ ...crm, id: "rogue", tools: ["crm.customer.get"] }),
   *   (e: unknown) => e instanceof ServerRegistrationError && e.refusal === "tool-served-elsewhere",
   * );
   * ```
   */
  registerServer(
    candidate: ServerRecord | unknown,
    options: RegisterServerOptions = {},
  ): RegisterServerResult {
    const result = this.#servers.register(candidate, options);
    if (result.status !== "unchanged") {
      this.#emit({
        type: result.status === "registered" ? "server-registered" : "server-updated",
        name: result.record.id,
        version: "",
      });
    }
    return result;
  }

  /**
   * Replaces the servers with records as they were reviewed and stored (loading an estate from
   * disk, or taking in what another process changed there). The records must obey exactly-one
   * among themselves; the rules against the records already here are not applied. On error
   * nothing changes.
   *
   * @param records Every server of the estate.
   * @param options `emit: true` tells subscribers of each server registered or updated (for
   *   changes another process made on disk); default false, for loading.
   * @throws {ServerRecordError} When a record is not valid.
   * @throws {ServerRegistrationError} When two records list the same tool, or two different
   *   records have the same id.
   */
  restoreServers(
    records: readonly ServerRecord[],
    options: RestoreOptions = {},
  ): void {
    const next = new ServerDirectory();
    for (const r of records) next.register(r);
    const before = this.#servers;
    this.#servers = next;
    if (!options.emit) return;
    for (const r of next.servers()) {
      const old = before.server(r.id);
      if (old && sameServerRecord(old, r)) continue;
      this.#emit({
        type: old ? "server-updated" : "server-registered",
        name: r.id,
        version: "",
      });
    }
  }

  /**
   * Every server the estate records.
   *
   * @returns The records (frozen), sorted by id.
   */
  servers(): ServerRecord[] {
    return this.#servers.servers();
  }

  /**
   * A server's record.
   *
   * @param id The server's id.
   * @returns The record (frozen), or undefined when the estate records no such server.
   */
  server(id: string): ServerRecord | undefined {
    return this.#servers.server(id);
  }

  /**
   * Which server serves a tool: the one whose record lists its name (exactly one can).
   *
   * @param toolName The tool.
   * @returns The server's record (frozen), or undefined for a tool served in-process.
   */
  serverFor(toolName: string): ServerRecord | undefined {
    return this.#servers.serverFor(toolName);
  }

  /**
   * Subscribes to changes (publish, deprecation, retirement, server registration).
   *
   * @param listener Called synchronously after each change.
   * @returns A function that unsubscribes.
   */
  subscribe(listener: (event: EstateEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #index(): IndexEntry[] {
    if (!this.#discoveryIndex) {
      this.#discoveryIndex = this.names().map((name) => ({
        name,
        active: this.#tools.get(name)!.records.filter((r) => r.state === "active").reverse().map((
          r,
        ) => ({
          spec: r.spec,
          rank: classificationRank(r.spec.dataClassification),
          tenants: r.spec.tenants.length ? new Set(r.spec.tenants) : undefined,
        })),
      })).filter((e) => e.active.length > 0);
    }
    return this.#discoveryIndex;
  }

  #find(name: string, version: string): VersionRecord | undefined {
    return this.#tools.get(name)?.records.find((r) => r.spec.version === version);
  }

  #require(name: string, version: string, verb: string): VersionRecord {
    this.#settle();
    const r = this.#find(name, version);
    if (!r) {
      throw new LifecycleError(
        `Cannot ${verb} ${name}@${version}: no such published version`,
      );
    }
    return r;
  }

  #insert(record: VersionRecord): void {
    let entry = this.#tools.get(record.spec.name);
    if (!entry) {
      entry = { records: [] };
      this.#tools.set(record.spec.name, entry);
    }
    entry.records.push(record);
    entry.records.sort((a, b) => compareVersions(a.spec.version, b.spec.version));
    this.#discoveryIndex = undefined;
    if (scheduledRetirement(record.history) !== undefined) {
      this.#due = undefined;
    }
  }

  #transition(r: VersionRecord, entry: LifecycleEntry): void {
    r.history.push(entry);
    r.state = entry.state;
    this.#discoveryIndex = undefined;
    this.#due = undefined;
    this.#emit({
      type: entry.state === "retired" ? "retired" : "deprecated",
      name: r.spec.name,
      version: r.spec.version,
    });
  }

  /**
   * Applies the retirements whose date has passed (before any read), then tells subscribers.
   * Cheap when none is scheduled: the clock is not even read.
   */
  #settle(): VersionRecord[] {
    if (this.#due === undefined) this.#due = this.#computeDue();
    if (this.#due === null) return [];
    const now = this.#now();
    if (now.getTime() < this.#due) return [];
    const retired: VersionRecord[] = [];
    for (const { records } of this.#tools.values()) {
      for (const r of records) {
        const entry = dueRetirement(r.history, now);
        if (!entry) continue;
        r.history.push(entry);
        r.state = "retired";
        retired.push(r);
      }
    }
    this.#discoveryIndex = undefined;
    this.#due = this.#computeDue();
    // Told after every due retirement is applied: a subscriber who reads sees them all.
    for (const r of retired) {
      this.#emit({
        type: "retired",
        name: r.spec.name,
        version: r.spec.version,
      });
    }
    return retired;
  }

  #computeDue(): number | null {
    let due = Infinity;
    for (const { records } of this.#tools.values()) {
      for (const r of records) {
        const at = scheduledRetirement(r.history);
        if (at !== undefined) due = Math.min(due, Date.parse(at));
      }
    }
    return due === Infinity ? null : due;
  }

  #emit(event: EstateEvent): void {
    for (const l of [...this.#listeners]) l(event);
  }
}
