/**
 * Compatibility modes on hand-written changes whose outcome is known: the classifier per mode
 * (inputs and outputs), publish's refusals naming the mode, the estate's default (`estate.json`)
 * against a tool's own field, a change of mode between versions, `checkDraft` (the CLI's and the
 * editor's check), and the gateway's drift check.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { EstateSnapshot } from "../extension/src/estate.ts";
import { classifyDrift } from "../lib/gateway/mod.ts";
import { CorpusError, EstateDir } from "../lib/store/mod.ts";
import {
  checkDraft,
  classifyForMode,
  type CompatibilityMode,
  type JsonSchema,
  parseToolSpec,
  PublishError,
  type StoredCall,
  ToolRegistry,
  type ToolSpec,
  ToolSpecError,
} from "../mod.ts";

const NOW = () => new Date("2026-11-30T12:00:00Z");

const CURRENCY2 = {
  type: "object",
  properties: {
    reference: { type: "string" },
    currency: { enum: ["EUR", "GBP"] },
  },
  required: ["reference"],
  additionalProperties: false,
};
const CURRENCY3 = {
  ...CURRENCY2,
  properties: {
    ...CURRENCY2.properties,
    currency: { enum: ["EUR", "GBP", "USD"] },
  },
};

/** `fx.convert` at a version with an input schema and options. */
function tool(
  version: string,
  inputSchema: JsonSchema,
  more: Partial<ToolSpec> = {},
): ToolSpec {
  return {
    name: "fx.convert",
    version,
    title: "Convert an amount",
    description: "Converts an amount between currencies at the treasury's rate of the day.",
    inputSchema,
    sideEffect: "read",
    requiredScopes: [],
    dataClassification: "internal",
    tenants: [],
    owner: "treasury",
    ...more,
  };
}

const bump = (
  o: JsonSchema,
  n: JsonSchema,
  mode: CompatibilityMode,
  output = false,
) => classifyForMode(o, n, { mode, output }).bump;

// --- the classifier per mode -----------------------------------------------------------------

Deno.test("an enum value added is minor under backward, major under forward and full", () => {
  assert.equal(bump(CURRENCY2, CURRENCY3, "backward"), "minor");
  assert.equal(bump(CURRENCY2, CURRENCY3, "forward"), "major");
  assert.equal(bump(CURRENCY2, CURRENCY3, "full"), "major");
  const [c] = classifyForMode(CURRENCY2, CURRENCY3, { mode: "forward" }).changes;
  assert.equal(c.path, "$.properties.currency.enum");
  assert.match(
    c.message,
    /callers built for the new contract may send values the old one rejects/,
  );
});

Deno.test("an enum value removed is major under backward and full, minor under forward", () => {
  assert.equal(bump(CURRENCY3, CURRENCY2, "backward"), "major");
  assert.equal(bump(CURRENCY3, CURRENCY2, "forward"), "minor");
  assert.equal(bump(CURRENCY3, CURRENCY2, "full"), "major");
  const [c] = classifyForMode(CURRENCY3, CURRENCY2, { mode: "forward" }).changes;
  assert.equal(
    c.message,
    'enum no longer allows "USD": the input now accepts only values the old contract accepted, so a rollback is safe',
  );
});

Deno.test("an optional property added to a closed object breaks forward; removed, it breaks backward", () => {
  const withNote = {
    ...CURRENCY2,
    properties: { ...CURRENCY2.properties, note: { type: "string" } },
  };
  assert.equal(bump(CURRENCY2, withNote, "backward"), "minor");
  assert.equal(bump(CURRENCY2, withNote, "forward"), "major");
  assert.equal(bump(CURRENCY2, withNote, "full"), "major");
  assert.equal(bump(withNote, CURRENCY2, "backward"), "major");
  assert.equal(bump(withNote, CURRENCY2, "forward"), "minor");
  assert.equal(bump(withNote, CURRENCY2, "full"), "major");
});

Deno.test("a property made required is minor under forward (new callers always send it), major otherwise", () => {
  const required = { ...CURRENCY2, required: ["reference", "currency"] };
  assert.equal(bump(CURRENCY2, required, "backward"), "major");
  assert.equal(bump(CURRENCY2, required, "forward"), "minor");
  assert.equal(bump(CURRENCY2, required, "full"), "major");
});

Deno.test("only a change that keeps the accepted values is not major under full", () => {
  const described = {
    ...CURRENCY2,
    properties: {
      ...CURRENCY2.properties,
      reference: { type: "string", description: "Ours." },
    },
  };
  for (const mode of ["backward", "forward", "full"] as const) {
    assert.equal(bump(CURRENCY2, described, mode), "patch", mode);
    assert.equal(
      bump(CURRENCY2, structuredClone(CURRENCY2), mode),
      "patch",
      mode,
    );
  }
  // A default changes no accepted value: minor, in every mode.
  const defaulted = {
    ...CURRENCY2,
    properties: {
      ...CURRENCY2.properties,
      currency: { enum: ["EUR", "GBP"], default: "EUR" },
    },
  };
  for (const mode of ["backward", "forward", "full"] as const) {
    assert.equal(bump(CURRENCY2, defaulted, mode), "minor", mode);
  }
});

Deno.test("outputs mirror the modes: wider output breaks backward, narrower breaks forward", () => {
  const held = { type: "object", properties: { status: { enum: ["HELD"] } } };
  const both = {
    type: "object",
    properties: { status: { enum: ["HELD", "RELEASED"] } },
  };
  assert.equal(bump(held, both, "backward", true), "major");
  assert.equal(bump(held, both, "forward", true), "minor");
  assert.equal(bump(held, both, "full", true), "major");
  assert.equal(bump(both, held, "backward", true), "minor");
  assert.equal(bump(both, held, "forward", true), "major");
  assert.equal(bump(both, held, "full", true), "major");
  const [c] = classifyForMode(both, held, { mode: "forward", output: true }).changes;
  assert.match(
    c.message,
    /after a rollback, consumers built for the new output schema/,
  );
  // An output schema added: consumers of the new contract rely on it, which a rollback breaks.
  const added = (mode: CompatibilityMode) =>
    classifyForMode(undefined, held, { mode, output: true }).bump;
  assert.deepEqual([added("backward"), added("forward"), added("full")], [
    "minor",
    "major",
    "major",
  ]);
  const removed = (mode: CompatibilityMode) =>
    classifyForMode(held, undefined, { mode, output: true }).bump;
  assert.deepEqual([removed("backward"), removed("forward"), removed("full")], [
    "major",
    "minor",
    "major",
  ]);
});

Deno.test("a transitive mode is major against an earlier version it breaks, naming it", () => {
  const line = [{ version: "1.0.0", schema: CURRENCY2 as JsonSchema }];
  const same = structuredClone(CURRENCY3);
  assert.equal(bump(CURRENCY3, same, "forward"), "patch");
  const t = classifyForMode(CURRENCY3, same, {
    mode: "forward-transitive",
    earlier: line,
  });
  assert.equal(t.bump, "major");
  assert.deepEqual(t.breaksAgainst, ["1.0.0"]);
  assert.match(t.changes[0].message, /\(against 1\.0\.0\)$/);
  // A non-transitive mode ignores the earlier versions.
  assert.equal(
    classifyForMode(CURRENCY3, same, { mode: "forward", earlier: line }).bump,
    "patch",
  );
});

Deno.test("classifyForMode() refuses an undefined input schema", () => {
  assert.throws(() => classifyForMode(undefined, CURRENCY2), TypeError);
});

// --- the spec field --------------------------------------------------------------------------

Deno.test("parseToolSpec() keeps a declared compatibility mode and refuses an unknown one", () => {
  assert.equal(
    parseToolSpec(tool("1.0.0", CURRENCY2, { compatibility: "full" }))
      .compatibility,
    "full",
  );
  assert.equal(
    parseToolSpec(tool("1.0.0", CURRENCY2)).compatibility,
    undefined,
  );
  assert.throws(
    () => parseToolSpec({ ...tool("1.0.0", CURRENCY2), compatibility: "both" }),
    (e: unknown) =>
      e instanceof ToolSpecError &&
      /compatibility must be one of backward, /.test(e.message),
  );
});

// --- publish ---------------------------------------------------------------------------------

function refusal(registry: ToolRegistry, spec: ToolSpec): PublishError {
  try {
    registry.publish(spec);
  } catch (e) {
    if (e instanceof PublishError) return e;
    throw e;
  }
  assert.fail(`${spec.name}@${spec.version} was published`);
}

Deno.test("publish under forward refuses a widening as a minor release, naming the mode", () => {
  const registry = new ToolRegistry({ now: NOW });
  registry.publish(tool("1.0.0", CURRENCY2, { compatibility: "forward" }));
  const e = refusal(
    registry,
    tool("1.1.0", CURRENCY3, { compatibility: "forward" }),
  );
  assert.equal(e.refusal, "bump-too-small");
  assert.equal(
    e.message,
    'Cannot publish fx.convert@1.1.0: under forward compatibility, change is major (enum now also allows "USD" at $.properties.currency.enum); publish 2.0.0, not 1.1.0. For example, a call the draft accepts, {"reference":"","currency":"USD"}, fails after a rollback to the published version: $.currency must be one of "EUR", "GBP"',
  );
  // A narrowing is a minor release under forward.
  registry.publish(tool("2.0.0", CURRENCY3, { compatibility: "forward" }));
  assert.equal(
    registry.publish(tool("2.1.0", CURRENCY2, { compatibility: "forward" }))
      .plan.bump,
    "minor",
  );
});

Deno.test("publish under backward (the default) refuses a narrowing and allows a widening", () => {
  const registry = new ToolRegistry({ now: NOW });
  registry.publish(tool("1.0.0", CURRENCY3));
  const e = refusal(registry, tool("1.1.0", CURRENCY2));
  assert.match(
    e.message,
    /^Cannot publish fx\.convert@1\.1\.0: change is major \(/,
  );
  registry.publish(tool("2.0.0", CURRENCY2));
  assert.equal(
    registry.publish(tool("2.1.0", CURRENCY3)).plan.compatibility,
    "backward",
  );
});

Deno.test("publish under full refuses both a widening and a narrowing as minor releases", () => {
  const registry = new ToolRegistry({ now: NOW, compatibility: "full" });
  registry.publish(tool("1.0.0", CURRENCY2));
  assert.match(
    refusal(registry, tool("1.1.0", CURRENCY3)).message,
    /under full compatibility, change is major/,
  );
  const required = { ...CURRENCY2, required: ["reference", "currency"] };
  assert.match(
    refusal(registry, tool("1.1.0", required)).message,
    /under full compatibility, change is major \(property currency is now required/,
  );
  const described = tool("1.0.1", CURRENCY2, {
    title: "Convert an amount of money",
  });
  assert.equal(registry.publish(described).plan.bump, "patch");
});

Deno.test("publish under a transitive mode checks every version of the major line not retired", () => {
  const registry = new ToolRegistry({ now: NOW });
  // Published under backward: 1.0.0 takes EUR and GBP, 1.1.0 also USD.
  registry.publish(tool("1.0.0", CURRENCY2));
  registry.publish(tool("1.1.0", CURRENCY3));
  // Declaring forward-transitive: against 1.1.0 nothing changes, but a caller built for 1.2.0 that
  // sends USD is rejected after a rollback to 1.0.0. (The mode changes: held to backward too.)
  const e = refusal(
    registry,
    tool("1.2.0", CURRENCY3, {
      compatibility: "forward-transitive",
      title: "Convert",
    }),
  );
  assert.equal(
    e.message,
    'Cannot publish fx.convert@1.2.0: under full-transitive compatibility, change is major (enum now also allows "USD" at $.properties.currency.enum, against 1.0.0); publish 2.0.0, not 1.2.0',
  );
  const plan = registry.plan(
    tool("2.0.0", CURRENCY3, { compatibility: "forward-transitive" }),
  );
  assert.deepEqual(plan.breaksAgainst, ["1.0.0"]);
  assert.deepEqual(plan.refusals, []);
  // Once 1.0.0 is retired, only 1.1.0 is in the line: the change is a patch.
  registry.deprecate("fx.convert", "1.0.0");
  registry.retire("fx.convert", "1.0.0");
  const again = registry.plan(
    tool("1.2.0", CURRENCY3, {
      compatibility: "forward-transitive",
      title: "Convert",
    }),
  );
  assert.deepEqual(again.refusals, []);
  assert.equal(again.bump, "patch");
});

Deno.test("a change of mode between versions is held to both modes", () => {
  const registry = new ToolRegistry({ now: NOW });
  registry.publish(tool("1.0.0", CURRENCY3, { compatibility: "forward" }));
  // forward alone calls the narrowing minor; the move to backward holds it to backward too.
  const plan = registry.plan(
    tool("1.1.0", CURRENCY2, { compatibility: "backward" }),
  );
  assert.equal(plan.compatibility, "full");
  assert.equal(plan.bump, "major");
  assert.equal(plan.refusals[0].refusal, "bump-too-small");
});

Deno.test("the stored-call replay runs only where the mode protects callers of older versions", () => {
  const calls: StoredCall[] = [{
    version: "1.0.0",
    arguments: { reference: "PMT-1", currency: "GBP" },
    principal: "ops-bot",
    at: "2026-11-01T09:00:00.000Z",
  }];
  const eurOnly = {
    ...CURRENCY2,
    properties: { ...CURRENCY2.properties, currency: { enum: ["EUR"] } },
  };
  const forward = new ToolRegistry({
    now: NOW,
    storedCalls: () => calls,
    compatibility: "forward",
  });
  forward.publish(tool("1.0.0", CURRENCY2));
  assert.equal(forward.publish(tool("1.1.0", eurOnly)).plan.rejected.count, 0);
  // Under backward the same release replays the call, and it is rejected.
  const backward = new ToolRegistry({ now: NOW, storedCalls: () => calls });
  backward.publish(tool("1.0.0", CURRENCY2));
  const plan = backward.plan(tool("1.1.0", eurOnly));
  assert.equal(plan.rejected.count, 1);
  assert.ok(plan.refusals.some((r) => r.refusal === "corpus-rejected"));
  const full = new ToolRegistry({
    now: NOW,
    storedCalls: () => calls,
    compatibility: "full",
  });
  full.publish(tool("1.0.0", CURRENCY2));
  assert.equal(
    full.plan(tool("2.0.0", eurOnly)).rejected.count,
    0,
    "a major release replays nothing",
  );
});

Deno.test("a tool's own compatibility wins over the estate's", () => {
  const registry = new ToolRegistry({ now: NOW, compatibility: "forward" });
  registry.publish(tool("1.0.0", CURRENCY2, { compatibility: "backward" }));
  assert.equal(registry.compatibility, "forward");
  assert.equal(
    registry.compatibilityOf(registry.latest("fx.convert")!),
    "backward",
  );
  assert.equal(
    registry.plan(tool("1.1.0", CURRENCY3, { compatibility: "backward" })).bump,
    "minor",
  );
  // Without its own field, the estate's mode applies (combined with 1.0.0's backward).
  const plan = registry.plan(tool("1.1.0", CURRENCY3));
  assert.equal(plan.compatibility, "full");
  assert.equal(plan.bump, "major");
});

// --- estate.json, checkDraft, the editor ------------------------------------------------------

async function withEstate(
  config: unknown,
  fn: (dir: string) => void | Promise<void>,
): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "estate-modes-" });
  try {
    if (config !== undefined) {
      fs.writeFileSync(
        path.join(dir, "estate.json"),
        JSON.stringify(config, null, 2),
      );
    }
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("estate.json gives the estate's default mode; a tool's own field wins", async () => {
  await withEstate({ compatibility: "forward" }, (dir) => {
    const estate = EstateDir.open(dir, { now: NOW });
    assert.equal(estate.registry.compatibility, "forward");
    estate.publish(tool("1.0.0", CURRENCY2));
    assert.throws(
      () => estate.publish(tool("1.1.0", CURRENCY3)),
      (e: unknown) =>
        e instanceof PublishError &&
        /under forward compatibility, change is major/.test(e.message),
    );
    // Reopened, the estate still has its mode.
    assert.equal(EstateDir.open(dir).registry.compatibility, "forward");
  });
  await withEstate({ compatibility: "forward" }, (dir) => {
    const estate = EstateDir.open(dir, { now: NOW });
    estate.publish(tool("1.0.0", CURRENCY2, { compatibility: "backward" }));
    const done = estate.publish(
      tool("1.1.0", CURRENCY3, { compatibility: "backward" }),
    );
    assert.equal(done.status, "published");
  });
  await withEstate(undefined, (dir) => {
    assert.equal(EstateDir.open(dir).registry.compatibility, "backward");
  });
});

Deno.test("an edited estate.json reaches a running estate on refresh(); a bad one keeps the mode and says so", async () => {
  await withEstate(undefined, (dir) => {
    const estate = EstateDir.open(dir, { now: NOW });
    const registry = estate.registry;
    assert.equal(registry.compatibility, "backward");
    fs.writeFileSync(
      path.join(dir, "estate.json"),
      JSON.stringify({ compatibility: "full" }),
    );
    estate.refresh();
    assert.equal(
      estate.registry,
      registry,
      "the same registry: a server holding it sees the mode",
    );
    assert.equal(registry.compatibility, "full");
    fs.writeFileSync(
      path.join(dir, "estate.json"),
      JSON.stringify({ compatibility: "up" }),
    );
    assert.throws(
      () => estate.refresh(),
      /estate\.json.*compatibility must be one of/,
    );
    assert.equal(registry.compatibility, "full");
    fs.rmSync(path.join(dir, "estate.json"));
    estate.refresh();
    assert.equal(registry.compatibility, "backward");
  });
});

Deno.test("EstateDir.open() refuses a bad estate.json, naming the file and the field", async () => {
  await withEstate({ compatibility: "sideways" }, (dir) => {
    assert.throws(
      () => EstateDir.open(dir),
      (e: unknown) =>
        e instanceof CorpusError && e.message.includes("estate.json") &&
        /compatibility must be one of/.test(e.message),
    );
  });
  await withEstate({ compatibility: "full", rules: {} }, (dir) => {
    assert.throws(() => EstateDir.open(dir), /unknown field rules/);
  });
});

Deno.test("checkDraft() says the mode in the version finding, for the CLI and the editor alike", async () => {
  await withEstate({ compatibility: "forward" }, (dir) => {
    const estate = EstateDir.open(dir, { now: NOW });
    estate.publish(tool("1.0.0", CURRENCY2));
    const draft = tool("1.1.0", CURRENCY3);
    const report = checkDraft(
      draft,
      EstateDir.open(dir, { now: NOW }).registry,
    );
    assert.equal(report.ok, false);
    assert.equal(report.compatibility, "forward");
    assert.equal(report.findings[0].code, "version-too-low");
    assert.equal(
      report.findings[0].message,
      'Under forward compatibility, change is major against fx.convert@1.0.0 (published): enum now also allows "USD" — version must be at least 2.0.0',
    );
    // The editor checks against the same estate: the same report.
    assert.deepEqual(
      EstateSnapshot.load(dir, { now: NOW }).check(draft),
      report,
    );
    // A narrowing is enough as a minor release under forward.
    const ok = EstateSnapshot.load(dir, { now: NOW }).check(
      tool("1.1.0", { ...CURRENCY2, required: ["reference", "currency"] }),
    );
    assert.equal(ok.ok, true);
    assert.equal(
      ok.findings.find((f) => f.code === "version-ok")?.message,
      "Under forward compatibility, minor change against 1.0.0: version 1.1.0 is enough",
    );
  });
});

Deno.test("checkDraft() honours the draft's own mode under the default estate", () => {
  const registry = new ToolRegistry({ now: NOW });
  registry.publish(
    tool("1.0.0", CURRENCY2, { compatibility: "full-transitive" }),
  );
  const report = checkDraft(
    tool("1.1.0", CURRENCY3, { compatibility: "full-transitive" }),
    registry,
  );
  assert.equal(report.compatibility, "full-transitive");
  assert.equal(report.bump, "major");
  assert.match(
    report.findings[0].message,
    /^Under full-transitive compatibility, change is major/,
  );
});

// --- the gateway's drift check ----------------------------------------------------------------

Deno.test("classifyDrift() holds a forward tool to forward too: a wider upstream is quarantined", () => {
  const listed = (inputSchema: JsonSchema) => ({
    name: "convert",
    description: tool("1.0.0", CURRENCY2).description,
    inputSchema,
  });
  const backward = tool("1.0.0", CURRENCY2);
  const forward = tool("1.0.0", CURRENCY2, { compatibility: "forward" });
  // Wider: fine for the gateway's backward guarantee; outside a forward tool's contract.
  assert.deepEqual(classifyDrift(backward, listed(CURRENCY3)).quarantine, []);
  const q = classifyDrift(forward, listed(CURRENCY3)).quarantine;
  assert.equal(q.length, 1);
  assert.match(
    q[0],
    /^its input schema changed beyond the registered contract under full compatibility/,
  );
  // The estate's mode, as the gateway passes it, counts the same.
  assert.equal(
    classifyDrift(backward, listed(CURRENCY3), {
      compatibility: "forward-transitive",
    }).quarantine
      .length,
    1,
  );
  // Narrower: always quarantined (the gateway forwards what the registered contract accepts).
  for (const spec of [backward, forward]) {
    const narrower = { ...CURRENCY2, required: ["reference", "currency"] };
    assert.equal(classifyDrift(spec, listed(narrower)).quarantine.length, 1);
  }
  // The same contract, written differently: compatible under every mode.
  const rewritten = { ...structuredClone(CURRENCY2), description: "Convert." };
  assert.deepEqual(classifyDrift(forward, listed(rewritten)).quarantine, []);
});
