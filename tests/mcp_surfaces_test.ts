/**
 * The surfaces around the tools, relative to the principal, in both eras: prompts, resources,
 * resource templates and completions declared with `requires`; `cacheScope` computed from what
 * the answer depends on; probes for hidden and nonexistent names logged.
 */
import assert from "node:assert/strict";
import { BankSystem } from "../examples/bank_system.ts";
import {
  type JsonRpcResponse,
  type McpServer,
  type Principal,
  type ProbeRecord,
  type PromptProvider,
  type ResourceProvider,
  STATELESS_META,
  ToolRegistry,
} from "../mod.ts";
import { estate, OPERATOR, ready, RETAIL, server, spec } from "./_mcp_fixtures.ts";

type Era = "2025-11-25" | "2026-07-28";
const ERAS: Era[] = ["2025-11-25", "2026-07-28"];

const ENVELOPE = {
  [STATELESS_META.protocolVersion]: "2026-07-28",
  [STATELESS_META.clientCapabilities]: {},
};

const resultOf = (r: JsonRpcResponse | undefined) =>
  (r as { result: Record<string, unknown> }).result;

/** Asks `server` as `principal` in `era` (a fresh handshake-era session, or a stateless request). */
async function asker(
  s: McpServer,
  principal: Principal,
  era: Era,
): Promise<
  (method: string, params?: Record<string, unknown>) => Promise<JsonRpcResponse>
> {
  if (era === "2026-07-28") {
    return async (method, params = {}) =>
      (await s.handleStateless(
        {
          jsonrpc: "2.0",
          id: 1,
          method,
          params: {
            ...params,
            _meta: { ...ENVELOPE, ...(params._meta as object ?? {}) },
          },
        },
        { principal },
      ))!;
  }
  const session = await ready(s, principal);
  return async (method, params = {}) =>
    (await s.handle({ jsonrpc: "2.0", id: 1, method, params }, session))!;
}

/** Providers whose payment items require `payments.lookup`; every call to them is recorded. */
function providers(
  asked: string[],
): { resources: ResourceProvider; prompts: PromptProvider } {
  return {
    resources: {
      list: () => [
        {
          uri: "bank://policies/cutoff",
          name: "cutoff",
          requires: { tools: ["policy.search"] },
        },
        {
          uri: "bank://payments/held",
          name: "held",
          requires: { tools: ["payments.lookup"] },
        },
      ],
      templates: () => [{
        uriTemplate: "bank://payments/{reference}",
        name: "payment",
        requires: { tools: ["payments.lookup"] },
      }],
      read: (uri) => {
        asked.push(`read ${uri}`);
        return uri === "bank://nothing" ? undefined : [{ uri, text: `contents of ${uri}` }];
      },
    },
    prompts: {
      list: () => [
        {
          name: "investigate",
          arguments: [{ name: "reference", required: true }],
          requires: { tools: ["payments.lookup"] },
        },
        { name: "summarise", arguments: [{ name: "topic" }] },
      ],
      get: (name, args) => {
        asked.push(`get ${name}`);
        if (name !== "investigate" && name !== "summarise") return undefined;
        return {
          messages: [{
            role: "user",
            content: {
              type: "text",
              text: `${name} ${args.reference ?? args.topic}`,
            },
          }],
        };
      },
      complete: (name, _argument, value) => {
        asked.push(`complete ${name}`);
        return name === "investigate" ? ["PMT-004211"].filter((r) => r.startsWith(value)) : [];
      },
    },
  };
}

Deno.test("prompts, resources and templates are listed per principal, and requires never reaches the wire", async () => {
  for (const era of ERAS) {
    const { server: s } = server(estate(), providers([]));
    const retail = await asker(s, RETAIL, era);
    const operator = await asker(s, OPERATOR, era);
    const names = async (
      ask: typeof retail,
      method: string,
      key: string,
      field: string,
    ) => {
      const result = resultOf(await ask(method));
      assert.equal(
        JSON.stringify(result).includes("requires"),
        false,
        `${era} ${method}`,
      );
      return (result[key] as Record<string, string>[]).map((x) => x[field]);
    };
    assert.deepEqual(await names(retail, "prompts/list", "prompts", "name"), [
      "summarise",
    ]);
    assert.deepEqual(await names(operator, "prompts/list", "prompts", "name"), [
      "investigate",
      "summarise",
    ]);
    assert.deepEqual(
      await names(retail, "resources/list", "resources", "uri"),
      [
        "bank://policies/cutoff",
      ],
    );
    assert.deepEqual(
      await names(operator, "resources/list", "resources", "uri"),
      [
        "bank://policies/cutoff",
        "bank://payments/held",
      ],
    );
    assert.deepEqual(
      await names(
        retail,
        "resources/templates/list",
        "resourceTemplates",
        "uriTemplate",
      ),
      [],
    );
    assert.deepEqual(
      await names(
        operator,
        "resources/templates/list",
        "resourceTemplates",
        "uriTemplate",
      ),
      ["bank://payments/{reference}"],
    );
    s.close();
  }
});

Deno.test("an invisible prompt, resource or completion is answered byte for byte as a nonexistent one, without asking the provider", async () => {
  for (const era of ERAS) {
    const asked: string[] = [];
    const { server: s } = server(estate(), providers(asked));
    const retail = await asker(s, RETAIL, era);
    const same = async (
      method: string,
      hidden: Record<string, unknown>,
      missing: Record<string, unknown>,
      name: [string, string],
    ) => {
      const a = JSON.stringify(await retail(method, hidden));
      const b = JSON.stringify(await retail(method, missing));
      assert.equal(
        a.split(name[0]).join("<n>"),
        b.split(name[1]).join("<n>"),
        `${era} ${method}`,
      );
      return a;
    };
    const get = await same(
      "prompts/get",
      { name: "investigate", arguments: { reference: "PMT-004211" } },
      { name: "nosuchprompt", arguments: { reference: "PMT-004211" } },
      ["investigate", "nosuchprompt"],
    );
    assert.match(get, /"code":-32602,"message":"Unknown prompt: investigate"/);
    // Without the required argument too: a hidden prompt never says which argument it lacks.
    await same(
      "prompts/get",
      { name: "investigate" },
      { name: "nosuchprompt" },
      [
        "investigate",
        "nosuchprompt",
      ],
    );
    for (const uri of ["bank://payments/held", "bank://payments/PMT-004211"]) {
      const read = await same("resources/read", { uri }, {
        uri: "bank://nothing",
      }, [
        uri,
        "bank://nothing",
      ]);
      assert.match(
        read,
        era === "2025-11-25" ? /"code":-32002/ : /"code":-32602/,
      );
    }
    const completion = await same(
      "completion/complete",
      {
        ref: { type: "ref/prompt", name: "investigate" },
        argument: { name: "reference", value: "PMT" },
      },
      {
        ref: { type: "ref/prompt", name: "nosuchprompt" },
        argument: { name: "reference", value: "PMT" },
      },
      ["investigate", "nosuchprompt"],
    );
    assert.match(completion, /"values":\[\]/);
    assert.deepEqual(asked, [
      "get nosuchprompt",
      "get nosuchprompt",
      "read bank://nothing",
      "read bank://nothing",
      "complete nosuchprompt",
    ]);
    // The principal who may see them gets them.
    const operator = await asker(s, OPERATOR, era);
    assert.equal(
      JSON.stringify(resultOf(
        await operator("prompts/get", {
          name: "investigate",
          arguments: { reference: "PMT-004211" },
        }),
      )).includes("investigate PMT-004211"),
      true,
    );
    assert.deepEqual(
      (resultOf(
        await operator("resources/read", { uri: "bank://payments/PMT-004211" }),
      )
        .contents as unknown[]).length,
      1,
    );
    assert.deepEqual(
      resultOf(
        await operator("completion/complete", {
          ref: { type: "ref/prompt", name: "investigate" },
          argument: { name: "reference", value: "PMT" },
        }),
      ).completion,
      { values: ["PMT-004211"], total: 1, hasMore: false },
    );
    s.close();
  }
});

Deno.test("resources/subscribe to a URI the principal may not see is answered {} and hears no updates", async () => {
  const notes: { retail: unknown[]; operator: unknown[] } = {
    retail: [],
    operator: [],
  };
  const { server: s } = server(estate(), providers([]));
  const retail = await ready(s, RETAIL, "2025-11-25", notes.retail);
  const operator = await ready(s, OPERATOR, "2025-11-25", notes.operator);
  for (
    const [session, uri] of [[retail, "bank://payments/held"], [
      retail,
      "bank://nothing",
    ], [
      operator,
      "bank://payments/held",
    ]] as const
  ) {
    const r = await s.handle(
      { jsonrpc: "2.0", id: 9, method: "resources/subscribe", params: { uri } },
      session,
    );
    assert.deepEqual(r, { jsonrpc: "2.0", id: 9, result: {} });
  }
  s.resourceUpdated("bank://payments/held");
  assert.deepEqual(notes.retail, []);
  assert.deepEqual(notes.operator, [{
    jsonrpc: "2.0",
    method: "notifications/resources/updated",
    params: { uri: "bank://payments/held" },
  }]);
  s.close();
});

Deno.test("the example bank completes payment references only for principals entitled to them", async () => {
  const bank = new BankSystem();
  const prompts = bank.prompts();
  const complete = (p: Principal) =>
    prompts.completeArgument!({
      name: "investigate-payment",
      argument: "reference",
      value: "",
      principal: p,
    });
  assert.deepEqual(complete(OPERATOR), [
    "PMT-000771",
    "PMT-004211",
    "PMT-004212",
  ]);
  assert.deepEqual(complete({ ...OPERATOR, scopes: ["policy:read"] }), []);
  assert.deepEqual(complete({ ...OPERATOR, tenant: "group" }), []);
  assert.deepEqual(
    complete({ ...RETAIL, scopes: [...RETAIL.scopes, "payments:read"] }),
    [],
  );
  // Through the server the retail agent never reaches the provider: the prompt is not theirs.
  const registry = new ToolRegistry();
  for (const name of ["payments.lookup", "policy.search"]) {
    registry.publish(
      spec(name, "1.0.0", {
        requiredScopes: name === "payments.lookup" ? ["payments:read"] : ["policy:read"],
        tenants: name === "payments.lookup" ? ["wholesale"] : [],
      }),
    );
  }
  const { server: s } = server(registry, { prompts });
  for (const era of ERAS) {
    const values = async (p: Principal) =>
      (resultOf(
        await (await asker(s, p, era))("completion/complete", {
          ref: { type: "ref/prompt", name: "investigate-payment" },
          argument: { name: "reference", value: "PMT-0042" },
        }),
      ).completion as { values: string[] }).values;
    assert.deepEqual(await values(RETAIL), []);
    assert.deepEqual(await values(OPERATOR), ["PMT-004211", "PMT-004212"]);
  }
  s.close();
});

Deno.test("cacheScope is public only where the answer is the same for every principal", async () => {
  const open = spec("policy.search", "1.0.0", { dataClassification: "public" });
  const scope = async (
    s: McpServer,
    method: string,
    params = {},
    p: Principal = RETAIL,
  ) =>
    resultOf(await (await asker(s, p, "2026-07-28"))(method, params))
      .cacheScope;

  // tools/list: public while each tool's newest version admits everyone.
  const registry = new ToolRegistry();
  registry.publish(open);
  const { server: s } = server(registry);
  assert.equal(await scope(s, "tools/list"), "public");
  assert.equal(await scope(s, "tools/list", {}, OPERATOR), "public");
  registry.publish({
    ...open,
    version: "1.1.0",
    requiredScopes: ["policy:read"],
  });
  assert.equal(await scope(s, "tools/list"), "private"); // someone now sees 1.0.0, someone 1.1.0
  s.close();
  assert.equal(await scope(server(estate()).server, "tools/list"), "private");
  // No providers at all: the same (empty) answer for everyone.
  for (
    const m of ["resources/list", "resources/templates/list", "prompts/list"]
  ) {
    assert.equal(await scope(server(estate()).server, m), "public", m);
  }

  // Providers: public when they ignore the principal and every item is for everyone.
  const unguarded = {
    resources: {
      list: () => [{ uri: "bank://rates", name: "rates" }],
      templates: () => [{ uriTemplate: "bank://rates/{ccy}", name: "rate" }],
      read: (uri: string) => [{ uri, text: "1.17" }],
      variesByPrincipal: false,
    },
    prompts: {
      list: () => [{ name: "hello" }],
      get: () => undefined,
      variesByPrincipal: false,
    },
  };
  const { server: plain } = server(estate(), unguarded);
  for (
    const m of ["resources/list", "resources/templates/list", "prompts/list"]
  ) {
    assert.equal(await scope(plain, m), "public", m);
  }
  assert.equal(
    await scope(plain, "resources/read", { uri: "bank://rates" }),
    "public",
  );
  assert.equal(
    await scope(plain, "resources/read", { uri: "bank://rates/GBP" }),
    "public",
  );

  // One guarded item makes the list private (it differs between principals), not the others.
  const guarded = {
    resources: {
      ...unguarded.resources,
      list: () => [...unguarded.resources.list(), {
        uri: "bank://payments/held",
        name: "held",
        requires: { tools: ["payments.lookup"] },
      }],
    },
    prompts: {
      ...unguarded.prompts,
      list: () => [{ name: "hello" }, {
        name: "audit",
        requires: { scopes: ["audit:read"] },
      }],
    },
  };
  const { server: mixed } = server(estate(), guarded);
  assert.equal(await scope(mixed, "resources/list"), "private");
  assert.equal(await scope(mixed, "resources/list", {}, OPERATOR), "private");
  assert.equal(await scope(mixed, "prompts/list"), "private");
  assert.equal(await scope(mixed, "resources/templates/list"), "public");
  assert.equal(
    await scope(mixed, "resources/read", { uri: "bank://rates" }),
    "public",
  );
  assert.equal(
    await scope(
      mixed,
      "resources/read",
      { uri: "bank://payments/held" },
      OPERATOR,
    ),
    "private",
  );

  // A provider that does not say it ignores the principal is assumed not to.
  const { server: undeclared } = server(estate(), {
    resources: { ...unguarded.resources, variesByPrincipal: undefined },
    prompts: { ...unguarded.prompts, variesByPrincipal: undefined },
  });
  assert.equal(await scope(undeclared, "resources/list"), "private");
  assert.equal(
    await scope(undeclared, "resources/read", { uri: "bank://rates" }),
    "private",
  );
  assert.equal(await scope(undeclared, "prompts/list"), "private");
  // A requirement everyone meets (a tool open to all) keeps the answer public.
  const r2 = new ToolRegistry();
  r2.publish(open);
  const { server: everyone } = server(r2, {
    prompts: {
      list: () => [{ name: "find", requires: { tools: ["policy.search"] } }],
      get: () => undefined,
      variesByPrincipal: false,
    },
  });
  assert.equal(await scope(everyone, "prompts/list"), "public");
  for (const x of [s, plain, mixed, undeclared, everyone]) x.close();
});

Deno.test("probes for hidden and nonexistent names are logged with the principal in both eras; the answers do not change", async () => {
  for (const era of ERAS) {
    const probes: ProbeRecord[] = [];
    const quiet = server(estate(), providers([])).server;
    const logged = server(estate(), {
      ...providers([]),
      onProbe: (p) => probes.push(p),
      now: () => Date.parse("2026-11-30T10:00:00Z"),
    }).server;
    const requests: [string, Record<string, unknown>][] = [
      ["tools/call", {
        name: "payments.lookup",
        arguments: { reference: "PMT-004211" },
      }],
      ["tools/call", { name: "payments.cancel", arguments: {} }],
      ["tools/call", {
        name: "policy.search",
        arguments: { reference: "PMT-004211" },
        _meta: { "dev.tool-estate/version": "^7.0.0" },
      }],
      ["tools/call", {
        name: "policy.search",
        arguments: { reference: "PMT-004211" },
      }],
      ["prompts/get", {
        name: "investigate",
        arguments: { reference: "PMT-1" },
      }],
      ["prompts/get", { name: "nosuchprompt" }],
      ["prompts/get", { name: "summarise", arguments: { topic: "x" } }],
      ["resources/read", { uri: "bank://payments/held" }],
      ["resources/read", { uri: "bank://nothing" }],
      ["resources/read", { uri: "bank://policies/cutoff" }],
      ["completion/complete", {
        ref: { type: "ref/prompt", name: "investigate" },
        argument: { name: "reference", value: "" },
      }],
      ["completion/complete", {
        ref: { type: "ref/prompt", name: "nosuchprompt" },
        argument: { name: "reference", value: "" },
      }],
      ["completion/complete", {
        ref: { type: "ref/prompt", name: "summarise" },
        argument: { name: "topic", value: "" },
      }],
    ];
    const a = await asker(quiet, RETAIL, era);
    const b = await asker(logged, RETAIL, era);
    for (const [method, params] of requests) {
      assert.deepEqual(
        await b(method, params),
        await a(method, params),
        `${era} ${method}`,
      );
    }
    const at = "2026-11-30T10:00:00.000Z";
    const p = "retail-agent";
    assert.deepEqual(probes, [
      {
        principal: p,
        method: "tools/call",
        name: "payments.lookup",
        hidden: true,
        at,
      },
      {
        principal: p,
        method: "tools/call",
        name: "payments.cancel",
        hidden: false,
        at,
      },
      {
        principal: p,
        method: "tools/call",
        name: "policy.search",
        version: "^7.0.0",
        hidden: false,
        at,
      },
      {
        principal: p,
        method: "prompts/get",
        name: "investigate",
        hidden: true,
        at,
      },
      {
        principal: p,
        method: "prompts/get",
        name: "nosuchprompt",
        hidden: false,
        at,
      },
      {
        principal: p,
        method: "resources/read",
        name: "bank://payments/held",
        hidden: true,
        at,
      },
      {
        principal: p,
        method: "resources/read",
        name: "bank://nothing",
        hidden: false,
        at,
      },
      {
        principal: p,
        method: "completion/complete",
        name: "investigate",
        hidden: true,
        at,
      },
      {
        principal: p,
        method: "completion/complete",
        name: "nosuchprompt",
        hidden: false,
        at,
      },
    ]);
    quiet.close();
    logged.close();
  }
});
