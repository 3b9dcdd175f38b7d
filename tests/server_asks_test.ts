// The server-initiated directions, server side: a handler's sample/elicit/listRoots, the estate's
// confirmation of irreversible calls, and the 2026-07-28 input-required rounds — over a linked
// pair, stdio and HTTP, answered by a plain JSON-RPC peer playing the client.
import assert from "node:assert/strict";
import { PassThrough } from "node:stream";
import {
  type CallRecord,
  createLinkedTransports,
  type JsonRpcError,
  JsonRpcPeer,
  McpServer,
  type Principal,
  type PromptProvider,
  serveTransport,
  type ToolHandler,
  ToolRegistry,
  type ToolSpec,
  type Transport,
} from "../mod.ts";
import { serveStdio } from "../lib/mcp/transports/stdio.ts";
import {
  bearerTokens,
  serveHttp,
  StreamableHttpClientTransport,
} from "../lib/mcp/transports/http_mod.ts";
import { STATELESS_META } from "../lib/mcp/rev2026_07_28.ts";
import { OPERATOR, spec } from "./_mcp_fixtures.ts";

const RELEASE = spec("payments.release", "1.0.1", {
  sideEffect: "irreversible",
  requiredScopes: ["payments:release"],
  dataClassification: "restricted",
  tenants: ["wholesale"],
  confirm: { message: "Release payment {reference} of {amount} GBP?" },
});
const SUMMARIZE = spec("policy.summarize", "1.0.0", { uses: ["sampling"] });
const ROOTS = spec("drafts.review", "1.0.0", {
  uses: ["roots", "elicitation"],
});
const SNEAKY = spec("policy.sneaky", "1.0.0"); // asks without declaring it
const FORMS = spec("forms.ask", "1.0.0", { uses: ["elicitation"] });
const TOGETHER = spec("drafts.together", "1.0.0", {
  uses: ["roots", "sampling", "elicitation"],
});
const TWICE = spec("drafts.twice", "1.0.0", { uses: ["roots"] });

/** Forms `forms.ask` sends, by reference: every enum form the spec lists, with defaults; nested. */
const FORM_BY_REFERENCE: Record<string, Record<string, unknown>> = {
  "PMT-000001": {
    type: "object",
    properties: {
      status: {
        type: "string",
        enum: ["active", "inactive"],
        default: "active",
      },
      titled: {
        type: "string",
        oneOf: [{ const: "v1", title: "First" }],
        default: "v1",
      },
      legacy: { type: "string", enum: ["o1", "o2"], enumNames: ["One", "Two"] },
      many: {
        type: "array",
        items: { type: "string", enum: ["a", "b"] },
        default: ["a"],
      },
      titledMany: {
        type: "array",
        items: { anyOf: [{ const: "x", title: "X" }] },
      },
      age: { type: "integer", minimum: 0, default: 30 },
      verified: { type: "boolean", default: true },
    },
    required: ["status"],
  },
  "PMT-000002": {
    type: "object",
    properties: {
      address: { type: "object", properties: { city: { type: "string" } } },
    },
  },
};

function registry(...specs: ToolSpec[]): ToolRegistry {
  const r = new ToolRegistry();
  for (const s of specs) r.publish(s);
  return r;
}

const HANDLERS: Record<string, ToolHandler> = {
  "payments.release": (args) => ({ released: args.reference }),
  "policy.summarize": async (_args, ctx) => {
    const answer = await ctx.sample({
      messages: [{
        role: "user",
        content: { type: "text", text: "Summarise policy P-7" },
      }],
      maxTokens: 100,
    });
    return {
      summary: (answer.content as { text: string }).text,
      model: answer.model,
    };
  },
  "drafts.review": async (_args, ctx) => {
    const roots = await ctx.listRoots();
    const form = await ctx.elicit({
      message: "Which root?",
      requestedSchema: {
        type: "object",
        properties: { root: { type: "string", enum: roots.map((r) => r.uri) } },
        required: ["root"],
      },
    });
    return {
      roots: roots.length,
      action: form.action,
      chosen: form.content?.root ?? null,
    };
  },
  "forms.ask": async (args, ctx) => {
    const form = await ctx.elicit({
      message: "Your details?",
      requestedSchema: FORM_BY_REFERENCE[args.reference as string],
    });
    return { action: form.action, content: form.content ?? null };
  },
  "drafts.together": async (_args, ctx) => {
    const [roots, summary, who] = await Promise.all([
      ctx.listRoots({ key: "roots" }),
      ctx.sample({
        messages: [{
          role: "user",
          content: { type: "text", text: "Summarise the draft" },
        }],
        maxTokens: 50,
      }, { key: "summary" }),
      ctx.elicit({
        message: "Who reviews?",
        requestedSchema: {
          type: "object",
          properties: { name: { type: "string" } },
        },
      }, { key: "who" }),
    ]);
    return {
      roots: roots.length,
      summary: (summary.content as { text: string }).text,
      reviewer: who.content?.name ?? null,
    };
  },
  "drafts.twice": async (_args, ctx) => {
    await Promise.all([
      ctx.listRoots({ key: "roots" }),
      ctx.listRoots({ key: "roots" }),
    ]);
    return "never";
  },
  "policy.sneaky": async (_args, ctx) => {
    await ctx.sample({ messages: [], maxTokens: 1 });
    return "never";
  },
};

function bank(options: { specs?: ToolSpec[]; prompts?: PromptProvider } = {}) {
  const calls: CallRecord[] = [];
  const ran: string[] = [];
  const server = new McpServer({
    registry: registry(
      ...(options.specs ?? [RELEASE, SUMMARIZE, ROOTS, SNEAKY]),
    ),
    handlerFor: (s) => {
      const h = HANDLERS[s.name];
      return h && ((args, ctx) => {
        ran.push(s.name);
        return h(args, ctx);
      });
    },
    onCall: (r) => calls.push(r),
    prompts: options.prompts,
  });
  return { server, calls, ran };
}

/** What the playing client answers. */
interface ClientAnswers {
  capabilities?: Record<string, unknown>;
  confirm?: "accept" | "decline" | "cancel" | "accept-no";
  sample?: unknown;
  form?: unknown;
}

/** A plain JSON-RPC peer playing an MCP client that answers the server's requests. */
async function client(
  transport: Transport,
  answers: ClientAnswers = {},
): Promise<{ peer: JsonRpcPeer; asked: string[] }> {
  const peer = new JsonRpcPeer(transport);
  const asked: string[] = [];
  peer.onRequest("sampling/createMessage", (params) => {
    asked.push("sampling/createMessage");
    return answers.sample ?? {
      role: "assistant",
      content: {
        type: "text",
        text: `summary of ${JSON.stringify(params)}`.slice(0, 40),
      },
      model: "test-model",
    };
  });
  peer.onRequest("elicitation/create", (params) => {
    const p = params as {
      message: string;
      requestedSchema: { properties: Record<string, unknown> };
    };
    asked.push(`elicitation/create: ${p.message}`);
    if (p.requestedSchema.properties.confirm) {
      const how = answers.confirm ?? "accept";
      if (how === "accept-no") {
        return { action: "accept", content: { confirm: false } };
      }
      return how === "accept" ? { action: "accept", content: { confirm: true } } : { action: how };
    }
    return answers.form ??
      { action: "accept", content: { root: "file:///work/a" } };
  });
  peer.onRequest("roots/list", () => {
    asked.push("roots/list");
    return {
      roots: [{ uri: "file:///work/a", name: "a" }, { uri: "file:///work/b" }],
    };
  });
  await peer.request("initialize", {
    protocolVersion: "2025-11-25",
    capabilities: answers.capabilities ??
      { sampling: {}, elicitation: {}, roots: {} },
    clientInfo: { name: "playing-client", version: "1" },
  });
  await peer.notify("notifications/initialized");
  return { peer, asked };
}

function linked(server: McpServer, principal: Principal = OPERATOR): Transport {
  const [near, far] = createLinkedTransports();
  serveTransport({ server, transport: far, principal });
  return near;
}

type Result = {
  content: { text: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
};

async function call(
  peer: JsonRpcPeer,
  name: string,
  args: Record<string, unknown>,
): Promise<Result> {
  return await peer.request("tools/call", { name, arguments: args }) as Result;
}

Deno.test("handshake era: a handler samples, lists roots and elicits through its context, over the session", async () => {
  const { server, calls } = bank();
  const { peer, asked } = await client(linked(server));
  const summary = await call(peer, "policy.summarize", {
    reference: "PMT-000001",
  });
  assert.equal(summary.isError, undefined);
  assert.equal(summary.structuredContent?.model, "test-model");
  const review = await call(peer, "drafts.review", { reference: "PMT-000001" });
  assert.deepEqual(review.structuredContent, {
    roots: 2,
    action: "accept",
    chosen: "file:///work/a",
  });
  assert.deepEqual(asked, [
    "sampling/createMessage",
    "roots/list",
    "elicitation/create: Which root?",
  ]);
  assert.deepEqual(calls.map((c) => c.outcome), ["ok", "ok"]);
  await peer.close();
  server.close();
});

Deno.test("handshake era: a tool may ask only for what it declared, and an answer must fit its form", async () => {
  const { server } = bank();
  const { peer, asked } = await client(linked(server), {
    form: { action: "accept", content: { root: "file:///etc" } }, // not one of the enum
  });
  const sneaky = await call(peer, "policy.sneaky", { reference: "PMT-000001" });
  assert.equal(sneaky.isError, true);
  assert.match(sneaky.content[0].text, /does not declare uses: \["sampling"\]/);
  const forged = await call(peer, "drafts.review", { reference: "PMT-000001" });
  assert.equal(forged.isError, true);
  assert.match(
    forged.content[0].text,
    /answer to elicitation\/create is not valid: the content does not fit the form/,
  );
  assert.deepEqual(asked, ["roots/list", "elicitation/create: Which root?"]);
  await peer.close();
  server.close();
});

Deno.test("handshake era: a form is checked by the rules the client side uses (elicitation_schema.ts): enum forms and defaults go out, a nested form does not", async () => {
  const { server } = bank({ specs: [FORMS] });
  const content = {
    status: "inactive",
    legacy: "o2",
    many: ["a", "b"],
    titledMany: ["x"],
  };
  const { peer, asked } = await client(linked(server), {
    form: { action: "accept", content },
  });
  const sent = await call(peer, "forms.ask", { reference: "PMT-000001" });
  assert.deepEqual(sent.structuredContent, { action: "accept", content });
  const nested = await call(peer, "forms.ask", { reference: "PMT-000002" });
  assert.equal(nested.isError, true);
  assert.match(
    nested.content[0].text,
    /requestedSchema is not a form MCP allows: \$\.properties\.address\.type: /,
  );
  assert.deepEqual(asked, ["elicitation/create: Your details?"]); // the nested one never went out
  await peer.close();
  server.close();
});

Deno.test("handshake era: tools that ask for what the client did not declare — a confirmation included — are not listed, and a call is refused naming it", async () => {
  const { server, ran } = bank();
  const { peer } = await client(linked(server), { capabilities: {} });
  const listed = await peer.request("tools/list") as {
    tools: { name: string }[];
  };
  // The release needs the user's confirmation, an elicitation: not listed either.
  assert.deepEqual(listed.tools.map((t) => t.name).sort(), ["policy.sneaky"]);
  // A client that can elicit sees it.
  const { peer: eliciting } = await client(linked(server), { capabilities: { elicitation: {} } });
  const seen = await eliciting.request("tools/list") as { tools: { name: string }[] };
  assert.deepEqual(seen.tools.map((t) => t.name).sort(), ["payments.release", "policy.sneaky"]);
  await eliciting.close();
  const refused = await call(peer, "policy.summarize", {
    reference: "PMT-000001",
  });
  assert.equal(refused.isError, true);
  assert.match(
    refused.content[0].text,
    /needs the client capability \{"sampling":\{\}\}/,
  );
  // The confirmation needs elicitation: refused before the handler.
  const release = await call(peer, "payments.release", {
    reference: "PMT-000042",
    amount: 1200,
  });
  assert.equal(release.isError, true);
  assert.match(
    release.content[0].text,
    /needs the client capability \{"elicitation":\{"form":\{\}\}\}/,
  );
  assert.deepEqual(ran, ["policy.summarize"]); // reached, then refused at its ask
  await peer.close();
  server.close();
});

Deno.test("a tool the user must confirm is not listed to a client that cannot confirm: its tools/list is byte for byte the list of an estate without it, in both eras", async () => {
  const withRelease = bank({ specs: [RELEASE, SNEAKY] }).server;
  const without = bank({ specs: [SNEAKY] }).server;
  const lists: string[] = [];
  for (const server of [withRelease, without]) {
    const { peer } = await client(linked(server), { capabilities: {} });
    lists.push(JSON.stringify(await peer.request("tools/list")));
    await peer.close();
  }
  assert.equal(lists[0], lists[1]);
  assert.doesNotMatch(lists[0], /payments\.release/);
  // The stateless era: the same, for a principal the release would admit.
  const stateless = await Promise.all([withRelease, without].map(async (server) =>
    JSON.stringify(
      await server.handleStateless({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/list",
        params: {
          _meta: {
            [STATELESS_META.protocolVersion]: "2026-07-28",
            [STATELESS_META.clientCapabilities]: {},
          },
        },
      }, { principal: OPERATOR }),
    )
  ));
  assert.equal(stateless[0], stateless[1]);
  withRelease.close();
  without.close();
});

Deno.test("confirmation: an irreversible call runs only after the user accepts; every answer is logged", async () => {
  for (
    const [how, runs, action] of [
      ["accept", true, "accept"],
      ["decline", false, "decline"],
      ["cancel", false, "cancel"],
      ["accept-no", false, "decline"],
    ] as const
  ) {
    const { server, calls, ran } = bank();
    const { peer, asked } = await client(linked(server), { confirm: how });
    const result = await call(peer, "payments.release", {
      reference: "PMT-000042",
      amount: 1200,
    });
    assert.deepEqual(asked, [
      "elicitation/create: Release payment PMT-000042 of 1200 GBP?",
    ], how);
    assert.equal(ran.length, runs ? 1 : 0, how);
    assert.equal(result.isError, runs ? undefined : true, how);
    if (!runs) assert.match(result.content[0].text, /nothing was done/);
    assert.equal(calls.length, 1);
    assert.equal(calls[0].outcome, runs ? "ok" : "declined");
    assert.equal(calls[0].confirmation?.by, OPERATOR.id);
    assert.equal(calls[0].confirmation?.action, action);
    assert.ok(!Number.isNaN(Date.parse(calls[0].confirmation!.at)));
    await peer.close();
    server.close();
  }
});

Deno.test("stdio: the server's requests go out as lines and the client's answers come back the same way", async () => {
  const { server, calls } = bank();
  const input = new PassThrough();
  const output = new PassThrough();
  const done = serveStdio(server, { principal: OPERATOR, input, output });
  // The client end: lines in, lines out.
  let buffer = "";
  const transport: Transport = {
    send: (m) => {
      input.write(JSON.stringify(m) + "\n");
      return Promise.resolve();
    },
    close: () => {
      input.end();
      return Promise.resolve();
    },
  };
  output.on("data", (chunk: Uint8Array) => {
    buffer += new TextDecoder().decode(chunk);
    let nl;
    while ((nl = buffer.indexOf("\n")) !== -1) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      transport.onmessage?.(JSON.parse(line));
    }
  });
  const { peer } = await client(transport);
  const result = await call(peer, "payments.release", {
    reference: "PMT-000042",
    amount: 1200,
  });
  assert.deepEqual(result.structuredContent, { released: "PMT-000042" });
  assert.equal(calls[0].confirmation?.action, "accept");
  await peer.close();
  await done;
  server.close();
});

Deno.test("HTTP: the server's requests go out on the POST's SSE stream; the answers come back as POSTs", async () => {
  const { server, calls } = bank();
  const http = await serveHttp(server, {
    authenticate: bearerTokens([{
      ...OPERATOR,
      token: "operator-token-000000000000000000",
    }]),
  });
  try {
    const transport = new StreamableHttpClientTransport(new URL(http.url), {
      token: "operator-token-000000000000000000",
      listen: false,
    });
    const { peer, asked } = await client(transport);
    const result = await call(peer, "payments.release", {
      reference: "PMT-000042",
      amount: 1200,
    });
    assert.deepEqual(result.structuredContent, { released: "PMT-000042" });
    const summary = await call(peer, "policy.summarize", {
      reference: "PMT-000001",
    });
    assert.equal(summary.structuredContent?.model, "test-model");
    assert.deepEqual(asked, [
      "elicitation/create: Release payment PMT-000042 of 1200 GBP?",
      "sampling/createMessage",
    ]);
    assert.deepEqual(calls.map((c) => c.outcome), ["ok", "ok"]);
    await peer.close();
  } finally {
    await http.close();
    server.close();
  }
});

// --- 2026-07-28: input-required results -------------------------------------------------------

const CAPS = { elicitation: {}, sampling: {}, roots: {} };

function modern(
  id: number,
  name: string,
  args: Record<string, unknown>,
  extra: Record<string, unknown> = {},
  caps: Record<string, unknown> = CAPS,
) {
  return {
    jsonrpc: "2.0",
    id,
    method: "tools/call",
    params: {
      name,
      arguments: args,
      ...extra,
      _meta: {
        [STATELESS_META.protocolVersion]: "2026-07-28",
        [STATELESS_META.clientCapabilities]: caps,
      },
    },
  };
}

type Wire = {
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: unknown };
};

Deno.test("2026-07-28: a confirmation is an input-required result; the retry with the answer runs the call once", async () => {
  const { server, calls, ran } = bank();
  const args = { reference: "PMT-000042", amount: 1200 };
  const first = await server.handleStateless(
    modern(1, "payments.release", args),
    {
      principal: OPERATOR,
    },
  ) as Wire;
  assert.equal(first.result?.resultType, "input_required");
  const requests = first.result?.inputRequests as Record<
    string,
    { method: string; params: { message: string } }
  >;
  assert.deepEqual(Object.keys(requests), ["ask-0"]);
  assert.equal(requests["ask-0"].method, "elicitation/create");
  assert.equal(
    requests["ask-0"].params.message,
    "Release payment PMT-000042 of 1200 GBP?",
  );
  const requestState = first.result?.requestState as string;
  assert.equal(typeof requestState, "string");
  assert.deepEqual(ran, []);

  const retry = (
    id: number,
    extra: Record<string, unknown>,
    principal = OPERATOR,
    a = args,
  ) =>
    server.handleStateless(modern(id, "payments.release", a, extra), {
      principal,
    }) as Promise<
      Wire
    >;
  const accepted = {
    requestState,
    inputResponses: {
      "ask-0": { action: "accept", content: { confirm: true } },
    },
  };
  const done = await retry(2, accepted);
  assert.equal(done.result?.resultType, "complete");
  assert.deepEqual(done.result?.structuredContent, { released: "PMT-000042" });
  assert.deepEqual(ran, ["payments.release"]);
  assert.deepEqual(calls.map((c) => c.outcome), ["input-required", "ok"]);
  assert.equal(calls[1].confirmation?.action, "accept");

  // A replayed confirmation is refused: the state is spent.
  const replay = await retry(3, accepted);
  assert.equal(replay.error?.code, -32602);
  assert.match(replay.error!.message, /requestState refused \(spent\)/);
  // A forged or re-bound state is refused too.
  const forged = await retry(4, {
    ...accepted,
    requestState: requestState.slice(0, -2) + "AA",
  });
  assert.match(forged.error!.message, /\((forged|malformed)\)/);
  const other = await retry(5, accepted, { ...OPERATOR, id: "someone-else" });
  assert.match(other.error!.message, /\(other-principal\)/);
  const changed = await retry(6, accepted, OPERATOR, {
    ...args,
    amount: 1_200_000,
  });
  assert.match(changed.error!.message, /\(other-call\)/);
  assert.deepEqual(ran, ["payments.release"]); // once, whatever was replayed
  server.close();
});

Deno.test("2026-07-28: a declined confirmation ends the call; sampling and roots rounds chain; undeclared capabilities are -32021", async () => {
  const { server, ran } = bank();
  const args = { reference: "PMT-000042", amount: 1200 };
  const first = await server.handleStateless(
    modern(1, "payments.release", args),
    {
      principal: OPERATOR,
    },
  ) as Wire;
  const declined = await server.handleStateless(
    modern(2, "payments.release", args, {
      requestState: first.result?.requestState,
      inputResponses: { "ask-0": { action: "decline" } },
    }),
    { principal: OPERATOR },
  ) as Wire;
  assert.equal(declined.result?.isError, true);
  assert.deepEqual(ran, []);

  // Two asks: roots first, then the form — each round carries the answers so far.
  const r1 = await server.handleStateless(
    modern(3, "drafts.review", { reference: "PMT-000001" }),
    {
      principal: OPERATOR,
    },
  ) as Wire;
  assert.equal(
    (r1.result?.inputRequests as Record<string, { method: string }>)["ask-0"]
      .method,
    "roots/list",
  );
  const r2 = await server.handleStateless(
    modern(4, "drafts.review", { reference: "PMT-000001" }, {
      requestState: r1.result?.requestState,
      inputResponses: { "ask-0": { roots: [{ uri: "file:///work/a" }] } },
    }),
    { principal: OPERATOR },
  ) as Wire;
  assert.equal(
    (r2.result?.inputRequests as Record<string, { method: string }>)["ask-1"]
      .method,
    "elicitation/create",
  );
  const r3 = await server.handleStateless(
    modern(5, "drafts.review", { reference: "PMT-000001" }, {
      requestState: r2.result?.requestState,
      inputResponses: {
        "ask-1": { action: "accept", content: { root: "file:///work/a" } },
      },
    }),
    { principal: OPERATOR },
  ) as Wire;
  assert.deepEqual(r3.result?.structuredContent, {
    roots: 1,
    action: "accept",
    chosen: "file:///work/a",
  });

  // A client without elicitation: -32021 naming it, the handler never reached.
  const noCaps = await server.handleStateless(
    modern(6, "payments.release", args, {}, {}),
    { principal: OPERATOR },
  ) as Wire;
  assert.equal(noCaps.error?.code, -32021);
  assert.deepEqual(noCaps.error?.data, {
    requiredCapabilities: { elicitation: { form: {} } },
  });
  assert.deepEqual(ran, ["drafts.review", "drafts.review", "drafts.review"]);
  server.close();
});

Deno.test("handshake era: an answer to a request the server never sent, or a second answer, changes nothing", async () => {
  const { server, ran, calls } = bank();
  const asked: { id: string | number; method: string }[] = [];
  const session = server.openSession({
    principal: OPERATOR,
    notify: () => {},
    request: (m) => asked.push({ id: m.id, method: m.method }),
  });
  await server.handle({
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: {
      protocolVersion: "2025-11-25",
      capabilities: { elicitation: {} },
      clientInfo: { name: "c", version: "1" },
    },
  }, session);
  await server.handle(
    { jsonrpc: "2.0", method: "notifications/initialized" },
    session,
  );
  const accept = { action: "accept", content: { confirm: true } };
  // A confirmation sent before anything asked for it answers nothing.
  assert.equal(
    await server.handle({ jsonrpc: "2.0", id: 0, result: accept }, session),
    undefined,
  );
  const pending = server.handle({
    jsonrpc: "2.0",
    id: 2,
    method: "tools/call",
    params: {
      name: "payments.release",
      arguments: { reference: "PMT-000042", amount: 1200 },
    },
  }, session);
  while (asked.length === 0) await new Promise((r) => setTimeout(r, 1));
  assert.equal(asked[0].method, "elicitation/create");
  // A forged answer to another id is ignored; the call still waits for the user's.
  assert.equal(
    await server.handle(
      { jsonrpc: "2.0", id: "forged", result: accept },
      session,
    ),
    undefined,
  );
  assert.equal(ran.length, 0);
  await server.handle({
    jsonrpc: "2.0",
    id: asked[0].id,
    result: { action: "decline" },
  }, session);
  const answered = await pending as { result: { isError?: boolean } };
  assert.equal(answered.result.isError, true);
  // Replaying an acceptance with the confirmation's id afterwards runs nothing.
  await server.handle(
    { jsonrpc: "2.0", id: asked[0].id, result: accept },
    session,
  );
  assert.equal(ran.length, 0);
  assert.deepEqual(calls.map((c) => [c.outcome, c.confirmation?.action]), [[
    "declined",
    "decline",
  ]]);
  server.close();
});

Deno.test("2026-07-28: asks made together go out in one round under their keys; a retry adds only the answers its state asked for", async () => {
  const { server, ran } = bank({ specs: [TOGETHER, TWICE] });
  const args = { reference: "PMT-000001" };
  const send = (id: number, extra: Record<string, unknown> = {}) =>
    server.handleStateless(modern(id, "drafts.together", args, extra), {
      principal: OPERATOR,
    }) as Promise<Wire>;
  const requests = (w: Wire) => w.result?.inputRequests as Record<string, { method: string }>;
  const ROOTS = { roots: [{ uri: "file:///work/a" }] };
  const SUMMARY = {
    role: "assistant",
    content: { type: "text", text: "A short draft." },
    model: "test-model",
  };
  const WHO = { action: "accept", content: { name: "Ada" } };

  const first = await send(1);
  assert.equal(first.result?.resultType, "input_required");
  assert.deepEqual(
    Object.entries(requests(first)).map(([k, r]) => `${k} ${r.method}`),
    [
      "roots roots/list",
      "summary sampling/createMessage",
      "who elicitation/create",
    ],
  );

  // All three answered, plus a key nobody asked for: it is ignored.
  const done = await send(2, {
    requestState: first.result?.requestState,
    inputResponses: {
      roots: ROOTS,
      summary: SUMMARY,
      who: WHO,
      stray: { action: "accept" },
    },
  });
  assert.deepEqual(done.result?.structuredContent, {
    roots: 1,
    summary: "A short draft.",
    reviewer: "Ada",
  });

  // One answered: the next round asks the other two again, and carries the first in its state.
  const again = await send(3);
  const partial = await send(4, {
    requestState: again.result?.requestState,
    inputResponses: { roots: ROOTS },
  });
  assert.deepEqual(Object.keys(requests(partial)), ["summary", "who"]);
  assert.notEqual(partial.result?.requestState, again.result?.requestState);
  // The new state asked for summary and who only: a roots answer sent now does not count.
  const rest = await send(5, {
    requestState: partial.result?.requestState,
    inputResponses: { summary: SUMMARY, who: WHO, roots: { roots: [] } },
  });
  assert.equal(rest.result?.resultType, "complete");
  assert.equal((rest.result?.structuredContent as { roots: number }).roots, 1);

  // Answers without a state answer nothing the server asked: the call starts over.
  const unasked = await send(6, {
    inputResponses: { roots: ROOTS, summary: SUMMARY, who: WHO },
  });
  assert.equal(unasked.result?.resultType, "input_required");
  assert.deepEqual(Object.keys(requests(unasked)), ["roots", "summary", "who"]);
  // inputResponses that is not a map of answers is a protocol error.
  const malformed = await send(7, { inputResponses: null });
  assert.equal(malformed.error?.code, -32602);
  assert.match(malformed.error!.message, /inputResponses must be an object/);
  assert.equal(ran.filter((n) => n === "drafts.together").length, 6);

  // Two asks of one call with one key: the handler's error, before anything goes out.
  const twice = await server.handleStateless(modern(8, "drafts.twice", args), {
    principal: OPERATOR,
  }) as Wire;
  assert.equal(twice.result?.isError, true);
  assert.match(
    (twice.result?.content as { text: string }[])[0].text,
    /two asks of one call have the key roots/,
  );
  server.close();
});

/** A prompt that asks the user which root to brief on; another the operator may not see. */
const BRIEF: PromptProvider = {
  list: () => [
    {
      name: "review.brief",
      description: "Briefs a review of a root the user picks.",
    },
    {
      name: "review.secret",
      description: "Hidden.",
      requires: { tools: ["no.such.tool"] },
    },
  ],
  getPrompt: async ({ name }, ctx) => {
    if (name !== "review.brief") return undefined;
    const form = await ctx.elicit({
      message: "Which root?",
      requestedSchema: {
        type: "object",
        properties: { root: { type: "string" } },
      },
    }, { key: "root" });
    const root = form.content?.root ?? "(none)";
    return {
      messages: [{
        role: "user",
        content: { type: "text", text: `Review ${root}` },
      }],
    };
  },
};

Deno.test("prompts/get may ask: over the session in the handshake era, as an input-required result in 2026-07-28", async () => {
  const { server } = bank({ specs: [], prompts: BRIEF });
  const { peer, asked } = await client(linked(server));
  const got = await peer.request("prompts/get", { name: "review.brief" }) as {
    messages: { content: { text: string } }[];
  };
  assert.equal(got.messages[0].content.text, "Review file:///work/a");
  assert.deepEqual(asked, ["elicitation/create: Which root?"]);
  await peer.close();
  // A client that did not declare elicitation: -32602 naming it (the era has no -32021).
  const { peer: bare } = await client(linked(server), { capabilities: {} });
  await assert.rejects(
    bare.request("prompts/get", { name: "review.brief" }),
    (e: JsonRpcError) => {
      assert.equal(e.code, -32602);
      assert.deepEqual(e.data, {
        requiredCapabilities: { elicitation: { form: {} } },
      });
      return true;
    },
  );
  await bare.close();

  const get = (
    id: number,
    extra: Record<string, unknown> = {},
    caps: Record<string, unknown> = CAPS,
    name = "review.brief",
  ) =>
    server.handleStateless({
      jsonrpc: "2.0",
      id,
      method: "prompts/get",
      params: {
        name,
        ...extra,
        _meta: {
          [STATELESS_META.protocolVersion]: "2026-07-28",
          [STATELESS_META.clientCapabilities]: caps,
        },
      },
    }, { principal: OPERATOR }) as Promise<Wire>;
  const first = await get(1);
  assert.equal(first.result?.resultType, "input_required");
  assert.deepEqual(
    (first.result?.inputRequests as Record<string, { method: string }>).root
      .method,
    "elicitation/create",
  );
  const answered = {
    requestState: first.result?.requestState,
    inputResponses: {
      root: { action: "accept", content: { root: "file:///work/b" } },
    },
  };
  const done = await get(2, answered);
  assert.equal(done.result?.resultType, "complete");
  assert.deepEqual(done.result?.messages, [
    { role: "user", content: { type: "text", text: "Review file:///work/b" } },
  ]);
  // Spent once it served; bound to the prompt.
  assert.match(
    (await get(3, answered)).error!.message,
    /requestState refused \(spent\)/,
  );
  const other = await get(
    4,
    { ...answered, requestState: (await get(5)).result?.requestState },
    CAPS,
    "review.other",
  );
  assert.match(other.error!.message, /\(other-call\)/);
  // A client without elicitation: -32021 naming it.
  const noCaps = await get(6, {}, {});
  assert.equal(noCaps.error?.code, -32021);
  assert.deepEqual(noCaps.error?.data, {
    requiredCapabilities: { elicitation: { form: {} } },
  });
  // A hidden prompt and a missing one answer alike, with a state or without.
  for (const extra of [{}, { requestState: "junk" }]) {
    const hidden = await get(7, extra, CAPS, "review.secret");
    const missing = await get(8, extra, CAPS, "review.nothing");
    assert.equal(
      hidden.error?.message.replace("review.secret", "X"),
      missing.error?.message.replace("review.nothing", "X"),
    );
  }
  server.close();
});
