import assert from "node:assert/strict";
import {
  annotationsFor,
  canSee,
  classificationRank,
  lintDescription,
  parseToolSpec,
  type Principal,
  RETRYABLE,
  SIDE_EFFECTS,
  toMcpTool,
  type ToolSpec,
  ToolSpecError,
} from "../mod.ts";

const release: ToolSpec = {
  name: "payments.release",
  version: "2.1.0",
  title: "Release a held payment",
  description:
    "Releases a held wholesale payment for settlement by its reference. Writes to the payments system of record; cannot be undone.",
  inputSchema: {
    type: "object",
    properties: { reference: { type: "string" } },
    required: ["reference"],
  },
  sideEffect: "irreversible",
  requiredScopes: ["payments:release", "payments:read"],
  dataClassification: "restricted",
  tenants: ["wholesale"],
  owner: "payments-platform",
};

Deno.test("parseToolSpec() refuses a spec without sideEffect or owner, naming each field", () => {
  const { sideEffect: _s, owner: _o, ...rest } = release;
  assert.throws(() => parseToolSpec(rest), (e: unknown) => {
    assert.ok(e instanceof ToolSpecError);
    assert.deepEqual([...e.problems].sort(), [
      "owner is required",
      "sideEffect is required",
    ]);
    assert.match(e.message, /sideEffect is required/);
    assert.match(e.message, /owner is required/);
    return true;
  });
});

Deno.test("parseToolSpec() checks names, versions and enumerations, reporting every problem", () => {
  const bad = {
    ...release,
    name: "payments release!",
    version: "v2.1",
    sideEffect: "maybe",
    dataClassification: "secret",
    tenants: "wholesale",
    extra: 1,
  };
  assert.throws(() => parseToolSpec(bad, "draft.tool.json"), (e: unknown) => {
    assert.ok(e instanceof ToolSpecError);
    assert.equal(e.problems.length, 6, e.message);
    assert.match(e.message, /^Invalid tool spec draft\.tool\.json: /);
    for (
      const field of [
        "name",
        "version",
        "sideEffect",
        "dataClassification",
        "tenants",
        "unknown field extra",
      ]
    ) {
      assert.ok(e.problems.some((p) => p.includes(field)), field);
    }
    return true;
  });
  assert.equal(
    parseToolSpec({ ...release, name: "a".repeat(128) }).name.length,
    128,
  );
  assert.throws(
    () => parseToolSpec({ ...release, name: "a".repeat(129) }),
    ToolSpecError,
  );
  assert.throws(() => parseToolSpec({ ...release, name: "" }), ToolSpecError);
});

Deno.test("parseToolSpec() defaults scope and tenant lists to empty, and nothing else", () => {
  const { requiredScopes: _r, tenants: _t, ...rest } = release;
  const spec = parseToolSpec(rest);
  assert.deepEqual(spec.requiredScopes, []);
  assert.deepEqual(spec.tenants, []);
  const { dataClassification: _d, ...noClass } = release;
  assert.throws(() => parseToolSpec(noClass), /dataClassification is required/);
});

Deno.test("RETRYABLE derives retry policy from the side-effect class", () => {
  assert.deepEqual(SIDE_EFFECTS.map((s) => [s, RETRYABLE[s]]), [
    ["read", true],
    ["idempotent-write", true],
    ["write", false],
    ["irreversible", false],
  ]);
  assert.ok(Object.isFrozen(RETRYABLE));
});

Deno.test("annotationsFor() derives the MCP hints from the side-effect class", () => {
  assert.deepEqual(annotationsFor("read"), {
    readOnlyHint: true,
    idempotentHint: true,
    destructiveHint: false,
  });
  assert.deepEqual(annotationsFor("idempotent-write"), {
    readOnlyHint: false,
    idempotentHint: true,
    destructiveHint: false,
  });
  assert.deepEqual(annotationsFor("write"), {
    readOnlyHint: false,
    idempotentHint: false,
    destructiveHint: false,
  });
  assert.deepEqual(annotationsFor("irreversible"), {
    readOnlyHint: false,
    idempotentHint: false,
    destructiveHint: true,
  });
  for (const s of SIDE_EFFECTS) {
    assert.equal(annotationsFor(s).idempotentHint, RETRYABLE[s]);
  }
});

Deno.test("classifications rank public < internal < confidential < restricted", () => {
  assert.deepEqual(
    ["restricted", "public", "confidential", "internal"].map((c) => classificationRank(c as never)),
    [3, 0, 2, 1],
  );
});

Deno.test("toMcpTool() lists the contract, the hints and the version, and no platform metadata", () => {
  const specs: ToolSpec[] = [
    release,
    {
      ...release,
      name: "crm.customer.get",
      sideEffect: "read",
      requiredScopes: ["crm:read"],
      tenants: ["retail", "group"],
      owner: "crm-data-team",
      dataClassification: "confidential",
    },
  ];
  const listing = JSON.stringify({ tools: specs.map(toMcpTool) });
  for (const spec of specs) {
    for (
      const secret of [
        ...spec.requiredScopes,
        ...spec.tenants,
        spec.owner,
        spec.dataClassification,
      ]
    ) {
      assert.equal(
        listing.includes(JSON.stringify(secret)),
        false,
        `listing leaks ${secret}`,
      );
    }
  }
  const entry = toMcpTool(release);
  assert.deepEqual(Object.keys(entry).sort(), [
    "_meta",
    "annotations",
    "description",
    "inputSchema",
    "name",
    "title",
  ]);
  assert.deepEqual(entry._meta, { "dev.tool-estate/version": "2.1.0" });
  for (const key of Object.keys(entry._meta)) {
    const prefix = key.split("/")[0];
    assert.equal(
      /(^|\.)(modelcontextprotocol|mcp)(\.|$)/.test(prefix),
      false,
      `${key} uses a reserved prefix`,
    );
  }
  assert.deepEqual(
    toMcpTool({ ...release, outputSchema: { type: "object" } }).outputSchema,
    {
      type: "object",
    },
  );
});

Deno.test("canSee() needs every scope, an allowed tenant and enough clearance", () => {
  const operator: Principal = {
    id: "wholesale-operator",
    scopes: ["payments:read", "payments:release"],
    tenant: "wholesale",
    clearance: "restricted",
  };
  assert.equal(canSee(release, operator), true);
  assert.equal(
    canSee(release, { ...operator, scopes: ["payments:read"] }),
    false,
  );
  assert.equal(canSee(release, { ...operator, tenant: "retail" }), false);
  assert.equal(
    canSee(release, { ...operator, clearance: "confidential" }),
    false,
  );
  assert.equal(
    canSee({ ...release, tenants: [] }, { ...operator, tenant: "anyone" }),
    true,
  );
});

Deno.test("lintDescription() flags empty descriptions and platform metadata, not tenant words", () => {
  assert.deepEqual(lintDescription(release), []);
  assert.equal(lintDescription({ ...release, description: " " }).length, 1);
  assert.match(
    lintDescription({ ...release, description: "Needs payments:release." })[0],
    /required scope/,
  );
  assert.match(
    lintDescription({ ...release, description: "Owned by payments-platform." })
      .join(),
    /owner/,
  );
  assert.match(
    lintDescription({
      ...release,
      description: "Only for the wholesale tenant.",
    })[0],
    /tenant/,
  );
  assert.match(
    lintDescription({
      ...release,
      description: "Data classification: restricted.",
    })[0],
    /classification/,
  );
});
