/**
 * A model-based test of the registry's whole lifecycle: random sequences of publishes (compatible,
 * breaking-as-minor, major, identical republish), deprecations, retirements, resolves, latest and
 * discovers, checked step by step against a simple model.
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
  satisfies,
  ToolRegistry,
  type ToolSpec,
} from "../mod.ts";

interface ModelVersion {
  spec: ToolSpec;
  state: LifecycleState;
}
type Model = Map<string, ModelVersion[]>; // ascending by version

const NAMES = ["crm.customer.get", "payments.lookup", "payments.release"] as const;
const SCOPES: Record<string, string[]> = {
  "crm.customer.get": ["crm:read"],
  "payments.lookup": ["payments:read"],
  "payments.release": ["payments:read", "payments:release"],
};
const PRINCIPALS: Principal[] = [
  { id: "retail-agent", scopes: ["crm:read"], tenant: "retail", clearance: "confidential" },
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

type Schema = { type: "object"; properties: Record<string, unknown>; required: string[] };

function newest(m: Model, name: string): ModelVersion | undefined {
  const vs = m.get(name) ?? [];
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
    schema.properties.reference = { type: ref.type === "string" ? "integer" : "string" };
    version = bumpFor(top.spec.version, kind === "major" ? "major" : "minor");
  }
  return { ...top.spec, version, title: `${name} ${version}`, inputSchema: schema };
}

class Publish implements fc.Command<Model, ToolRegistry> {
  constructor(
    readonly name: string,
    readonly kind: "patch" | "minor" | "major" | "breaking-as-minor",
  ) {}
  check(): boolean {
    return true;
  }
  run(m: Model, r: ToolRegistry): void {
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
    const vs = m.get(this.name) ?? [];
    vs.push({ spec, state: "active" });
    m.set(this.name, vs);
  }
  toString(): string {
    return `publish(${this.name}, ${this.kind})`;
  }
}

class Republish implements fc.Command<Model, ToolRegistry> {
  constructor(readonly name: string, readonly pick: number, readonly identical: boolean) {}
  check(m: Readonly<Model>): boolean {
    return (m.get(this.name)?.length ?? 0) > 0;
  }
  run(m: Model, r: ToolRegistry): void {
    const vs = m.get(this.name)!;
    const v = vs[this.pick % vs.length];
    if (this.identical) {
      assert.equal(r.publish(structuredClone(v.spec)).status, "already-published");
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

class Transition implements fc.Command<Model, ToolRegistry> {
  constructor(
    readonly name: string,
    readonly pick: number,
    readonly to: "deprecated" | "retired",
  ) {}
  check(m: Readonly<Model>): boolean {
    return (m.get(this.name)?.length ?? 0) > 0;
  }
  run(m: Model, r: ToolRegistry): void {
    const vs = m.get(this.name)!;
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

class Resolve implements fc.Command<Model, ToolRegistry> {
  constructor(readonly name: string, readonly constraint: string) {}
  check(): boolean {
    return true;
  }
  run(m: Model, r: ToolRegistry): void {
    const vs = [...(m.get(this.name) ?? [])].reverse().filter((v) =>
      satisfies(v.spec.version, this.constraint)
    );
    const expected = vs.find((v) => v.state === "active") ??
      vs.find((v) => v.state === "deprecated");
    assert.equal(r.resolve(this.name, this.constraint)?.version, expected?.spec.version);
    const latest = [...(m.get(this.name) ?? [])].reverse().find((v) => v.state === "active");
    assert.equal(r.latest(this.name)?.version, latest?.spec.version);
  }
  toString(): string {
    return `resolve(${this.name}, ${this.constraint})`;
  }
}

class Discover implements fc.Command<Model, ToolRegistry> {
  constructor(readonly principal: Principal) {}
  check(): boolean {
    return true;
  }
  run(m: Model, r: ToolRegistry): void {
    const expected: string[] = [];
    for (const name of [...m.keys()].sort()) {
      const visible = SCOPES[name].every((s) => this.principal.scopes.includes(s)) &&
        (name !== "payments.release" || this.principal.clearance === "restricted") &&
        this.principal.clearance !== "public";
      const top = [...m.get(name)!].reverse().find((v) => v.state === "active");
      if (visible && top) expected.push(`${name}@${top.spec.version}`);
    }
    assert.deepEqual(r.discover(this.principal).map((s) => `${s.name}@${s.version}`), expected);
    for (const name of NAMES) {
      const one = r.visible(name, this.principal);
      assert.equal(
        one ? `${name}@${one.version}` : undefined,
        expected.find((e) => e.startsWith(`${name}@`)),
      );
    }
    for (const name of m.keys()) {
      const versions = r.versions(name);
      assert.deepEqual(
        versions.map((v) => `${v.spec.version}:${v.state}`),
        m.get(name)!.map((v) => `${v.spec.version}:${v.state}`),
      );
      for (let i = 1; i < versions.length; i++) {
        assert.ok(compareVersions(versions[i - 1].spec.version, versions[i].spec.version) < 0);
      }
    }
  }
  toString(): string {
    return `discover(${this.principal.id})`;
  }
}

const name = fc.constantFrom(...NAMES);
const commands = [
  fc.tuple(
    name,
    fc.constantFrom("patch", "minor", "major", "breaking-as-minor") as fc.Arbitrary<
      "patch" | "minor" | "major" | "breaking-as-minor"
    >,
  )
    .map(([n, k]) => new Publish(n, k)),
  fc.tuple(name, fc.nat(10), fc.boolean()).map(([n, p, i]) => new Republish(n, p, i)),
  fc.tuple(
    name,
    fc.nat(10),
    fc.constantFrom("deprecated", "retired") as fc.Arbitrary<"deprecated" | "retired">,
  )
    .map(([n, p, t]) => new Transition(n, p, t)),
  fc.tuple(
    name,
    fc.constantFrom("*", "^1.0.0", "^2.0.0", "~1.1.0", "1.0.0", ">=1.1.0 <3.0.0", "^0.1.0"),
  ).map(([n, c]) => new Resolve(n, c)),
  fc.constantFrom(...PRINCIPALS).map((p) => new Discover(p)),
];

Deno.test("model: the registry's lifecycle matches a simple model under random command sequences", () => {
  fc.assert(
    fc.property(fc.commands(commands, { maxCommands: 80, size: "large" }), (cmds) => {
      fc.modelRun(() => ({ model: new Map() as Model, real: new ToolRegistry() }), cmds);
    }),
    { numRuns: 200 },
  );
});
