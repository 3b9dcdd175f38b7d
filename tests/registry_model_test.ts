/**
 * A model-based test of the registry's whole lifecycle: random sequences of publishes (compatible,
 * breaking-as-minor, major, identical republish), deprecations (with and without a retire-after
 * date, in the past or the future), retirements (bare, and under the retirement rules with their
 * exemptions), stored calls, a clock that moves (a deprecated version retires when its date has
 * passed), resolves, latest and discovers, checked step by step against a simple model.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  bumpFor,
  compareVersions,
  LifecycleError,
  type LifecycleState,
  type Principal,
  PublishError,
  retirementInstant,
  type RetirementRefusal,
  satisfies,
  type StoredCall,
  ToolRegistry,
  type ToolSpec,
} from "../mod.ts";

interface ModelVersion {
  spec: ToolSpec;
  state: LifecycleState;
  /** For a deprecation with a retire-after date: when it retires by itself (ms). */
  retiresAt?: number;
}
/** The estate (ascending by version), the time, and the stored calls. */
interface Model {
  tools: Map<string, ModelVersion[]>;
  now: number;
  calls: Map<string, StoredCall[]>;
}
/** The registry, with the clock and the stored calls (by tool) it reads. */
interface Real {
  registry: ToolRegistry;
  clock: { t: number };
  calls: Map<string, StoredCall[]>;
}

const START = Date.parse("2026-11-30T12:00:00.000Z");
const DAY = 86_400_000;

/** What the model says retires on its date: every deprecated version whose date has passed. */
function settle(m: Model): void {
  for (const vs of m.tools.values()) {
    for (const v of vs) {
      if (
        v.state === "deprecated" && v.retiresAt !== undefined &&
        m.now >= v.retiresAt
      ) {
        v.state = "retired";
      }
    }
  }
}

const NAMES = [
  "crm.customer.get",
  "payments.lookup",
  "payments.release",
] as const;
const SCOPES: Record<string, string[]> = {
  "crm.customer.get": ["crm:read"],
  "payments.lookup": ["payments:read"],
  "payments.release": ["payments:read", "payments:release"],
};
const PRINCIPALS: Principal[] = [
  {
    id: "retail-agent",
    scopes: ["crm:read"],
    tenant: "retail",
    clearance: "confidential",
  },
  {
    id: "wholesale-operator",
    scopes: ["payments:read", "payments:release"],
    tenant: "wholesale",
    clearance: "restricted",
  },
  { id: "nobody", scopes: [], tenant: "none", clearance: "public" },
];

function baseSpec(name: string): ToolSpec {
  return {
    name,
    version: "1.0.0",
    title: name,
    description: `The ${name} tool.`,
    inputSchema: {
      type: "object",
      properties: { reference: { type: "string" } },
      required: ["reference"],
    },
    sideEffect: name === "payments.release" ? "irreversible" : "read",
    requiredScopes: SCOPES[name],
    dataClassification: name === "payments.release" ? "restricted" : "confidential",
    tenants: [],
    owner: "team",
  };
}

type Schema = {
  type: "object";
  properties: Record<string, unknown>;
  required: string[];
};

function newest(m: Model, name: string): ModelVersion | undefined {
  const vs = m.tools.get(name) ?? [];
  return vs[vs.length - 1];
}

/** The next spec for a kind of publish, derived from the newest published version. */
function nextSpec(
  m: Model,
  name: string,
  kind: "patch" | "minor" | "major" | "breaking-as-minor",
): ToolSpec {
  const top = newest(m, name);
  if (!top) return baseSpec(name);
  const schema = structuredClone(top.spec.inputSchema) as Schema;
  const n = Object.keys(schema.properties).length;
  let version: string;
  if (kind === "patch") {
    version = bumpFor(top.spec.version, "patch");
    return { ...top.spec, version, title: `${name} ${version}` };
  }
  if (kind === "minor") {
    schema.properties[`p${n}`] = { type: "string" }; // an optional property: minor
    version = bumpFor(top.spec.version, "minor");
  } else {
    // Flip the reference's type: breaking either way.
    const ref = schema.properties.reference as { type: string };
    schema.properties.reference = {
      type: ref.type === "string" ? "integer" : "string",
    };
    version = bumpFor(top.spec.version, kind === "major" ? "major" : "minor");
  }
  return {
    ...top.spec,
    version,
    title: `${name} ${version}`,
    inputSchema: schema,
  };
}

class Publish implements fc.Command<Model, Real> {
  constructor(
    readonly name: string,
    readonly kind: "patch" | "minor" | "major" | "breaking-as-minor",
  ) {}
  check(): boolean {
    return true;
  }
  run(m: Model, real: Real): void {
    const r = real.registry;
    const spec = nextSpec(m, this.name, this.kind);
    const hasBaseline = newest(m, this.name) !== undefined;
    if (this.kind === "breaking-as-minor" && hasBaseline) {
      assert.throws(
        () => r.publish(spec),
        (e: unknown) => e instanceof PublishError && e.refusal === "bump-too-small",
      );
      return;
    }
    assert.equal(r.publish(spec).status, "published");
    const vs = m.tools.get(this.name) ?? [];
    vs.push({ spec, state: "active" });
    m.tools.set(this.name, vs);
  }
  toString(): string {
    return `publish(${this.name}, ${this.kind})`;
  }
}

class Republish implements fc.Command<Model, Real> {
  constructor(
    readonly name: string,
    readonly pick: number,
    readonly identical: boolean,
  ) {}
  check(m: Readonly<Model>): boolean {
    return (m.tools.get(this.name)?.length ?? 0) > 0;
  }
  run(m: Model, real: Real): void {
    const r = real.registry;
    const vs = m.tools.get(this.name)!;
    const v = vs[this.pick % vs.length];
    if (this.identical) {
      assert.equal(
        r.publish(structuredClone(v.spec)).status,
        "already-published",
      );
    } else {
      assert.throws(
        () => r.publish({ ...v.spec, description: "rewritten" }),
        (e: unknown) => e instanceof PublishError && e.refusal === "republish",
      );
    }
  }
  toString(): string {
    return `republish(${this.name}#${this.pick}, ${this.identical ? "identical" : "changed"})`;
  }
}

class Transition implements fc.Command<Model, Real> {
  constructor(
    readonly name: string,
    readonly pick: number,
    readonly to: "deprecated" | "retired",
  ) {}
  check(m: Readonly<Model>): boolean {
    return (m.tools.get(this.name)?.length ?? 0) > 0;
  }
  run(m: Model, real: Real): void {
    const r = real.registry;
    const vs = m.tools.get(this.name)!;
    const v = vs[this.pick % vs.length];
    const allowed = this.to === "deprecated" ? v.state === "active" : v.state !== "retired";
    const act = () =>
      this.to === "deprecated"
        ? r.deprecate(this.name, v.spec.version, { reason: "test" })
        : r.retire(this.name, v.spec.version);
    if (!allowed) {
      assert.throws(act, LifecycleError);
      return;
    }
    assert.equal(act().state, this.to);
    v.state = this.to;
  }
  toString(): string {
    return `${this.to === "deprecated" ? "deprecate" : "retire"}(${this.name}#${this.pick})`;
  }
}

class Resolve implements fc.Command<Model, Real> {
  constructor(readonly name: string, readonly constraint: string) {}
  check(): boolean {
    return true;
  }
  run(m: Model, real: Real): void {
    const r = real.registry;
    const vs = [...(m.tools.get(this.name) ?? [])].reverse().filter((v) =>
      satisfies(v.spec.version, this.constraint)
    );
    const expected = vs.find((v) => v.state === "active") ??
      vs.find((v) => v.state === "deprecated");
    assert.equal(
      r.resolve(this.name, this.constraint)?.version,
      expected?.spec.version,
    );
    const latest = [...(m.tools.get(this.name) ?? [])].reverse().find((v) => v.state === "active");
    assert.equal(r.latest(this.name)?.version, latest?.spec.version);
  }
  toString(): string {
    return `resolve(${this.name}, ${this.constraint})`;
  }
}

class Discover implements fc.Command<Model, Real> {
  constructor(readonly principal: Principal) {}
  check(): boolean {
    return true;
  }
  run(m: Model, real: Real): void {
    const r = real.registry;
    const expected: string[] = [];
    for (const name of [...m.tools.keys()].sort()) {
      const visible = SCOPES[name].every((s) => this.principal.scopes.includes(s)) &&
        (name !== "payments.release" ||
          this.principal.clearance === "restricted") &&
        this.principal.clearance !== "public";
      const top = [...m.tools.get(name)!].reverse().find((v) => v.state === "active");
      if (visible && top) expected.push(`${name}@${top.spec.version}`);
    }
    assert.deepEqual(
      r.discover(this.principal).map((s) => `${s.name}@${s.version}`),
      expected,
    );
    for (const name of NAMES) {
      const one = r.visible(name, this.principal);
      assert.equal(
        one ? `${name}@${one.version}` : undefined,
        expected.find((e) => e.startsWith(`${name}@`)),
      );
    }
    for (const name of m.tools.keys()) {
      const versions = r.versions(name);
      assert.deepEqual(
        versions.map((v) => `${v.spec.version}:${v.state}`),
        m.tools.get(name)!.map((v) => `${v.spec.version}:${v.state}`),
      );
      for (let i = 1; i < versions.length; i++) {
        assert.ok(
          compareVersions(
            versions[i - 1].spec.version,
            versions[i].spec.version,
          ) < 0,
        );
      }
    }
  }
  toString(): string {
    return `discover(${this.principal.id})`;
  }
}

/** The UTC date `days` days after the model's today. */
function dateAfter(now: number, days: number): string {
  return new Date(now + days * DAY).toISOString().slice(0, 10);
}

class DeprecateWithDate implements fc.Command<Model, Real> {
  constructor(
    readonly name: string,
    readonly pick: number,
    readonly days: number,
  ) {}
  check(m: Readonly<Model>): boolean {
    return (m.tools.get(this.name)?.length ?? 0) > 0;
  }
  run(m: Model, real: Real): void {
    const vs = m.tools.get(this.name)!;
    const v = vs[this.pick % vs.length];
    const retireAfter = dateAfter(m.now, this.days);
    const act = () =>
      real.registry.deprecate(this.name, v.spec.version, {
        reason: "dated",
        retireAfter,
      });
    // A retire-after date must be after today (UTC); only an active version is deprecated.
    if (v.state !== "active" || this.days <= 0) {
      assert.throws(act, LifecycleError);
      return;
    }
    const record = act();
    assert.equal(record.state, "deprecated");
    v.state = "deprecated";
    v.retiresAt = Date.parse(retirementInstant(retireAfter));
  }
  toString(): string {
    return `deprecate(${this.name}#${this.pick}, retire after today+${this.days})`;
  }
}

/** The moments at which the model has a retirement pending. */
function pendingRetirements(m: Readonly<Model>): number[] {
  return [...m.tools.values()].flat().filter((v) =>
    v.state === "deprecated" && v.retiresAt !== undefined
  ).map((v) => v.retiresAt!);
}

class Advance implements fc.Command<Model, Real> {
  /**
   * @param ms How far to move the clock; or, with `edge`, to the next pending retirement's moment
   *   plus `edge` ms (-1: just before it, 0: exactly at it).
   */
  constructor(readonly ms: number, readonly edge?: number) {}
  check(m: Readonly<Model>): boolean {
    return this.edge === undefined ||
      pendingRetirements(m).some((t) => t + this.edge! > m.now);
  }
  run(m: Model, real: Real): void {
    const step = this.edge === undefined ? this.ms : Math.min(
      ...pendingRetirements(m).filter((t) => t + this.edge! > m.now),
    ) + this.edge -
      m.now;
    m.now += step;
    real.clock.t += step;
    settle(m); // the registry settles when next read, by any read: the commands after check
  }
  toString(): string {
    return this.edge === undefined
      ? `advance(${(this.ms / DAY).toFixed(2)} days)`
      : `advance(to the next retirement ${this.edge === 0 ? "moment" : `${this.edge} ms`})`;
  }
}

class NextRetirement implements fc.Command<Model, Real> {
  check(): boolean {
    return true;
  }
  run(m: Model, real: Real): void {
    // The next retirement on a date is the earliest the model still has pending.
    const pending = pendingRetirements(m);
    assert.equal(
      real.registry.nextRetirement(),
      pending.length ? new Date(Math.min(...pending)).toISOString() : undefined,
    );
  }
  toString(): string {
    return "nextRetirement()";
  }
}

class Call implements fc.Command<Model, Real> {
  constructor(
    readonly name: string,
    readonly pick: number,
    readonly principal: string,
  ) {}
  check(m: Readonly<Model>): boolean {
    return (m.tools.get(this.name)?.length ?? 0) > 0;
  }
  run(m: Model, real: Real): void {
    const vs = m.tools.get(this.name)!;
    const v = vs[this.pick % vs.length];
    if (v.state === "retired") return; // no longer reachable
    const ref = (v.spec.inputSchema as Schema).properties.reference as {
      type: string;
    };
    const call: StoredCall = {
      version: v.spec.version,
      arguments: { reference: ref.type === "string" ? "R-1" : 1 },
      principal: this.principal,
      at: new Date(m.now).toISOString(),
    };
    for (const calls of [m.calls, real.calls]) {
      calls.set(this.name, [...(calls.get(this.name) ?? []), call]);
    }
  }
  toString(): string {
    return `call(${this.name}#${this.pick}, ${this.principal})`;
  }
}

class RetireByRules implements fc.Command<Model, Real> {
  constructor(
    readonly name: string,
    readonly pick: number,
    readonly early: boolean,
    readonly reason: boolean,
    readonly force: boolean,
    readonly recentDays: number,
  ) {}
  check(m: Readonly<Model>): boolean {
    return (m.tools.get(this.name)?.length ?? 0) > 0;
  }
  run(m: Model, real: Real): void {
    const vs = m.tools.get(this.name)!;
    const v = vs[this.pick % vs.length];
    const options = {
      early: this.early,
      force: this.force,
      recentDays: this.recentDays,
      ...(this.reason ? { reason: "why" } : {}),
    };
    if (v.state === "retired") {
      assert.throws(
        () => real.registry.planRetirement(this.name, v.spec.version, options),
        LifecycleError,
      );
      return;
    }
    const since = m.now - this.recentDays * DAY;
    const recent = (m.calls.get(this.name) ?? []).filter((c) =>
      c.version === v.spec.version && Date.parse(c.at) >= since
    );
    const expected: RetirementRefusal[] = [];
    if (this.early && !this.reason) expected.push("no-reason");
    if (v.state === "active" && !this.early) expected.push("not-deprecated");
    else if (v.retiresAt !== undefined && !this.early) {
      expected.push("date-not-reached");
    }
    const onlyActive = v.state === "active" &&
      vs.every((o) => o === v || o.state !== "active");
    if (onlyActive && !this.force) expected.push("only-active");
    if (recent.length > 0 && !this.force) expected.push("recent-calls");
    const plan = real.registry.planRetirement(
      this.name,
      v.spec.version,
      options,
    );
    assert.deepEqual(plan.refusals.map((r) => r.refusal), expected);
    assert.equal(plan.onlyActive, onlyActive);
    assert.equal(plan.impact.recent.calls, recent.length);
    const rules = {
      early: this.early,
      force: this.force,
      recentDays: this.recentDays,
    };
    const act = () =>
      real.registry.retire(this.name, v.spec.version, {
        rules,
        ...(this.reason ? { reason: "why" } : {}),
      });
    if (expected.length) {
      assert.throws(act, LifecycleError);
      return;
    }
    assert.equal(act().state, "retired");
    v.state = "retired";
  }
  toString(): string {
    return `retireByRules(${this.name}#${this.pick}, early=${this.early}, reason=${this.reason}, force=${this.force}, recentDays=${this.recentDays})`;
  }
}

const name = fc.constantFrom(...NAMES);
const commands = [
  fc.tuple(
    name,
    fc.constantFrom(
      "patch",
      "minor",
      "major",
      "breaking-as-minor",
    ) as fc.Arbitrary<
      "patch" | "minor" | "major" | "breaking-as-minor"
    >,
  )
    .map(([n, k]) => new Publish(n, k)),
  fc.tuple(name, fc.nat(10), fc.boolean()).map(([n, p, i]) => new Republish(n, p, i)),
  fc.tuple(
    name,
    fc.nat(10),
    fc.constantFrom("deprecated", "retired") as fc.Arbitrary<
      "deprecated" | "retired"
    >,
  )
    .map(([n, p, t]) => new Transition(n, p, t)),
  fc.tuple(
    name,
    fc.constantFrom(
      "*",
      "^1.0.0",
      "^2.0.0",
      "~1.1.0",
      "1.0.0",
      ">=1.1.0 <3.0.0",
      "^0.1.0",
    ),
  ).map(([n, c]) => new Resolve(n, c)),
  fc.constantFrom(...PRINCIPALS).map((p) => new Discover(p)),
  fc.tuple(name, fc.nat(10), fc.integer({ min: -2, max: 20 })).map((
    [n, p, d],
  ) => new DeprecateWithDate(n, p, d)),
  // From a minute to three weeks, often across a retirement's moment.
  fc.integer({ min: 60_000, max: 21 * DAY }).map((ms) => new Advance(ms)),
  fc.constantFrom(-1, 0).map((edge) => new Advance(0, edge)),
  fc.constant(new NextRetirement()),
  fc.tuple(name, fc.nat(10), fc.constantFrom(...PRINCIPALS.map((p) => p.id)))
    .map(([n, p, id]) => new Call(n, p, id)),
  fc.tuple(
    name,
    fc.nat(10),
    fc.boolean(),
    fc.boolean(),
    fc.boolean(),
    fc.constantFrom(0, 1, 7, 30),
  ).map(([n, p, early, reason, force, days]) =>
    new RetireByRules(n, p, early, reason, force, days)
  ),
];

Deno.test("model: the registry's lifecycle matches a simple model under random command sequences", () => {
  fc.assert(
    fc.property(
      fc.commands(commands, { maxCommands: 80, size: "large" }),
      (cmds) => {
        fc.modelRun(() => {
          const clock = { t: START };
          const calls = new Map<string, StoredCall[]>();
          const registry = new ToolRegistry({
            now: () => new Date(clock.t),
            storedCalls: (tool) => calls.get(tool) ?? [],
          });
          const model: Model = {
            tools: new Map(),
            now: START,
            calls: new Map(),
          };
          return { model, real: { registry, clock, calls } };
        }, cmds);
      },
    ),
    { numRuns: 200 },
  );
});
