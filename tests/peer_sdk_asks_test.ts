/**
 * The server-initiated directions (issue 13) between real peers: `estate serve` in a process, over
 * stdio and over Streamable HTTP on 127.0.0.1, asked by clients nobody here wrote — the official v1
 * SDK `Client` (@modelcontextprotocol/sdk 1.32.2, handshake era: the asks are JSON-RPC requests on
 * the session) and the v2 `Client` (@modelcontextprotocol/client 2.4.0, 2026-07-28: the asks are
 * `input_required` results it fulfils and retries) — and by our own `McpClient` in both eras,
 * answering only through its host's policy.
 *
 * The example bank's `payments.release` is irreversible, so the estate asks the user to
 * confirm it (form elicitation) before its handler runs; `policy.summarize@1.0.0` drafts its summary
 * with the client's model (sampling). Each test checks the system of record (`payments.lookup`)
 * and the server's call log, not only what the client was told.
 */
import assert from "node:assert/strict";
import type { Readable } from "node:stream";
// The SDK's "./*" export maps types to `*.js.d.ts`, which do not exist: without the @ts-types
// lines below, Deno types these imports as `any` (as in peer_sdk_test.ts).
// @ts-types="@modelcontextprotocol/sdk/client/index"
import { Client as V1Client } from "@modelcontextprotocol/sdk/client/index.js";
// @ts-types="@modelcontextprotocol/sdk/client/stdio"
import { StdioClientTransport as V1Stdio } from "@modelcontextprotocol/sdk/client/stdio.js";
// @ts-types="@modelcontextprotocol/sdk/client/streamableHttp"
import { StreamableHTTPClientTransport as V1Http } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import {
  type CallToolResult as V1CallToolResult,
  CreateMessageRequestSchema,
  type CreateMessageResult,
  type ElicitRequest,
  ElicitRequestSchema,
  type ElicitResult,
} from "@modelcontextprotocol/sdk/types.js";
import {
  type CallToolResult as V2CallToolResult,
  Client as V2Client,
  ProtocolError,
  StreamableHTTPClientTransport as V2Http,
} from "@modelcontextprotocol/client";
import { StdioClientTransport as V2Stdio } from "@modelcontextprotocol/client/stdio";
import { DEMO_TOKENS } from "../lib/cli/demo_tokens.ts";
import { StreamableHttpClientTransport } from "../lib/mcp/transports/http_client.ts";
import { StdioClientTransport } from "../lib/mcp/transports/stdio.ts";
import {
  type CallOutcome,
  type FormElicitation,
  type FormElicitationAnswer,
  McpClient,
  type SamplingRequest,
  type ServerRequestPolicy,
  type ServerRequestRecord,
} from "../mod.ts";
import { ROOT, SEES, serveArgs, startHttpServe, withEstate } from "./_serve.ts";

const OPERATOR = "wholesale-operator";
/** The held payment of the example bank, with the amount the user approves. */
const HELD = {
  reference: "PMT-004211",
  approvedAmount: 2_450_000,
  currency: "EUR",
};
/** The question the estate asks before payments.release (its default: title, arguments, cannot be undone). */
const QUESTION =
  "Release a held wholesale payment (payments.release) — reference PMT-004211, approvedAmount 2450000, currency EUR. This cannot be undone. Go ahead?";
/** What the clients' model "answers" when policy.summarize samples it. */
const SUMMARY =
  "POL-PAY-012: a held payment is released only after the approver confirms the amount and the sanctions screening.";
const MODEL = "peer-test-model";
/**
 * The user's answers to the confirmation, in order: declines, accepts without ticking the box
 * (which confirms nothing), then confirms.
 */
const USER_ANSWERS = [
  { action: "decline" },
  { action: "accept", content: { confirm: false } },
  { action: "accept", content: { confirm: true } },
] as const;
const ASK_SUMMARY = {
  question: "Who confirms the amount before a held payment is released?",
  area: "payments",
};

/** Checks a confirmation form: one required boolean, `confirm`. */
function assertConfirmationForm(schema: unknown): void {
  const form = schema as {
    type?: unknown;
    properties?: Record<string, { type?: unknown }>;
    required?: unknown;
  };
  assert.equal(form.type, "object");
  assert.deepEqual(Object.keys(form.properties ?? {}), ["confirm"]);
  assert.equal(form.properties?.confirm.type, "boolean");
  assert.deepEqual(form.required, ["confirm"]);
}

/** Checks what policy.summarize asked the client's model: the question, with the passage that answers it. */
function assertSummaryPrompt(
  request: { messages: { content: unknown }[]; maxTokens: number },
) {
  const text = request.messages.map((m) => (m.content as { text?: string }).text ?? "").join("\n");
  assert.ok(text.includes(ASK_SUMMARY.question), text);
  assert.ok(text.includes("[POL-PAY-012]"), text);
  assert.ok(request.maxTokens > 0);
}

// ---------------------------------------------------------------------------------------------
// Where the server runs, and its log.

/**
 * `estate serve` on a scratch estate, with its log. Over stdio each client spawns its own process
 * (its own bank); over HTTP one server serves every client (one bank).
 */
interface Served {
  readonly via: "stdio" | "http";
  /** The estate folder. */
  readonly dir: string;
  /** The HTTP endpoint (HTTP only). */
  readonly url?: URL;
  /** Collects a spawned server's stderr into the log (stdio). */
  watch(stderr: Readable | null | undefined): void;
}

/**
 * Runs `body` against `estate serve` (stdio: the clients spawn it; HTTP: started here), then
 * waits for every server's log to end and hands it to `check`. Every server started is stopped:
 * the HTTP one here, each stdio one by its client's `close()` in `body`.
 */
async function withServed(
  via: "stdio" | "http",
  body: (served: Served) => Promise<void>,
  check: (log: string) => void,
): Promise<void> {
  await withEstate("peer-sdk-asks-", async (dir) => {
    let text = "";
    const ended: Promise<void>[] = [];
    const watch = (stderr: Readable | null | undefined) => {
      assert.ok(stderr, "the server's stderr is not piped");
      stderr.setEncoding("utf8");
      stderr.on("data", (chunk: string) => (text += chunk));
      ended.push(
        new Promise((resolve) => stderr.once("close", () => resolve())),
      );
    };
    const http = via === "http" ? await startHttpServe(dir, (t) => (text += t)) : undefined;
    try {
      await body({ via, dir, url: http?.url, watch });
    } finally {
      await http?.stop();
      await Promise.all(ended);
    }
    check(text);
  });
}

/**
 * The log lines of payments.release calls, in order: `OUTCOME` or `OUTCOME ACTION by WHO` when
 * the user was asked to confirm (with a valid timestamp).
 */
function releasesLogged(log: string): string[] {
  const out: string[] = [];
  for (const line of log.split("\n")) {
    const m =
      /^\[estate serve\] call (\S+) payments\.release@1\.0\.0 (\S+) \d+ ms(?: \(confirmation: (\S+) by (\S+) at (\S+)\))?$/
        .exec(line.trim());
    if (!m) continue;
    assert.equal(m[1], OPERATOR);
    if (m[3] === undefined) {
      out.push(m[2]);
      continue;
    }
    assert.ok(!Number.isNaN(Date.parse(m[5])), line);
    out.push(`${m[2]} ${m[3]} by ${m[4]}`);
  }
  return out;
}

/**
 * The release calls each scenario makes, as logged: refused for want of elicitation, declined,
 * accepted unticked (logged as the decline it is), confirmed.
 */
const HANDSHAKE_ERA_LOG = [
  "tool-error",
  `declined decline by ${OPERATOR}`,
  `declined decline by ${OPERATOR}`,
  `ok accept by ${OPERATOR}`,
];
/** The same calls in 2026-07-28: each confirmation first ends a round with input-required. */
const STATELESS_LOG = [
  "tool-error",
  ...HANDSHAKE_ERA_LOG.slice(1).flatMap((line) => ["input-required", line]),
];

// ---------------------------------------------------------------------------------------------
// 1. The official v1 SDK client: the handshake era, asks as requests on the session.

interface V1Answers {
  elicit?: (params: ElicitRequest["params"]) => ElicitResult;
  sample?: (
    params: { messages: { content: unknown }[]; maxTokens: number },
  ) => CreateMessageResult;
}

async function v1Connect(
  served: Served,
  answers: V1Answers,
): Promise<V1Client> {
  const client = new V1Client(
    { name: "peer-sdk-asks-test", version: "1.0.0" },
    {
      capabilities: {
        ...(answers.sample ? { sampling: {} } : {}),
        ...(answers.elicit ? { elicitation: {} } : {}),
      },
    },
  );
  if (answers.elicit) {
    const elicit = answers.elicit;
    client.setRequestHandler(
      ElicitRequestSchema,
      (request) => elicit(request.params),
    );
  }
  if (answers.sample) {
    const sample = answers.sample;
    client.setRequestHandler(
      CreateMessageRequestSchema,
      (request) => sample(request.params),
    );
  }
  const transport = served.via === "stdio"
    ? new V1Stdio({
      command: Deno.execPath(),
      args: serveArgs(served.dir, "--stdio", "--principal", OPERATOR),
      cwd: ROOT,
      env: Deno.env.toObject(),
      stderr: "pipe",
    })
    : new V1Http(served.url!, {
      requestInit: {
        headers: { Authorization: `Bearer ${DEMO_TOKENS[OPERATOR]}` },
      },
    });
  if (transport instanceof V1Stdio) {
    served.watch(transport.stderr as Readable | null);
  }
  try {
    await client.connect(transport);
  } catch (e) {
    await client.close(); // a spawned server ends with its client
    throw e;
  }
  return client;
}

function v1Text(result: V1CallToolResult): string {
  return result.content.map((c) => (c.type === "text" ? c.text : "")).join(
    "\n",
  );
}

async function v1Status(client: V1Client): Promise<unknown> {
  const found = await client.callTool({
    name: "payments.lookup",
    arguments: { reference: HELD.reference },
  }) as V1CallToolResult;
  assert.notEqual(found.isError, true, v1Text(found));
  return (found.structuredContent as { status: string }).status;
}

/** The clients' model, as their sampling handlers give it: checks the prompt, answers SUMMARY. */
const theModel = (
  params: { messages: { content: unknown }[]; maxTokens: number },
) => {
  assertSummaryPrompt(params);
  return {
    role: "assistant" as const,
    content: { type: "text" as const, text: SUMMARY },
    model: MODEL,
  };
};

async function v1Proves(served: Served): Promise<void> {
  // Without the elicitation capability there is no one to confirm: the release is not listed (as a
  // tool that `uses` what the client did not declare is not), and a call is refused naming it.
  const bare = await v1Connect(served, { sample: theModel });
  try {
    const names = (await bare.listTools()).tools.map((t) => t.name);
    assert.ok(
      !names.includes("payments.release") && names.includes("payments.lookup"),
      "a release nobody can confirm is not listed to a client that cannot confirm",
    );
    const refused = await bare.callTool({
      name: "payments.release",
      arguments: HELD,
    }) as V1CallToolResult;
    assert.equal(refused.isError, true);
    assert.match(
      v1Text(refused),
      /payments\.release needs the client capability .*"elicitation"/,
    );
    assert.equal(await v1Status(bare), "HELD");
  } finally {
    await bare.close();
  }

  // With it: the user is asked the spec's question on the spec's form; a decline releases nothing.
  const asked: ElicitRequest["params"][] = [];
  const answers: ElicitResult[] = [...USER_ANSWERS];
  const client = await v1Connect(served, {
    elicit: (params) => {
      asked.push(params);
      return answers.shift()!;
    },
    sample: theModel,
  });
  try {
    for (const _ of ["decline", "accept unticked"]) {
      const declined = await client.callTool({
        name: "payments.release",
        arguments: HELD,
      }) as V1CallToolResult;
      assert.equal(declined.isError, true);
      assert.ok(
        v1Text(declined).includes("declined the confirmation"),
        v1Text(declined),
      );
      assert.equal(await v1Status(client), "HELD");
    }

    const released = await client.callTool({
      name: "payments.release",
      arguments: HELD,
    }) as V1CallToolResult;
    assert.notEqual(released.isError, true, v1Text(released));
    assert.deepEqual(released.structuredContent, {
      reference: HELD.reference,
      status: "RELEASED",
    });
    assert.equal(await v1Status(client), "RELEASED");

    assert.equal(asked.length, 3);
    for (const params of asked) {
      assert.equal(params.message, QUESTION);
      assertConfirmationForm(
        (params as { requestedSchema?: unknown }).requestedSchema,
      );
    }

    // Sampling: the summary is what the client's model said.
    const summary = await client.callTool({
      name: "policy.summarize",
      arguments: ASK_SUMMARY,
    }) as V1CallToolResult;
    assert.notEqual(summary.isError, true, v1Text(summary));
    const out = summary.structuredContent as {
      summary: string;
      policyIds: string[];
      model: string;
    };
    assert.equal(out.summary, SUMMARY);
    assert.equal(out.model, MODEL);
    assert.ok(out.policyIds.includes("POL-PAY-012"), out.policyIds.join());
  } finally {
    await client.close();
  }
}

Deno.test("v1 SDK client over stdio: a confirmed release, a declined one, sampling; no elicitation, no release", async () => {
  await withServed("stdio", v1Proves, (log) => {
    assert.deepEqual(releasesLogged(log), HANDSHAKE_ERA_LOG);
  });
});

Deno.test("v1 SDK client over HTTP: the asks on the POST's SSE stream; confirmed, declined, sampled", async () => {
  await withServed("http", v1Proves, (log) => {
    assert.deepEqual(releasesLogged(log), HANDSHAKE_ERA_LOG);
  });
});

// ---------------------------------------------------------------------------------------------
// 2. The official v2 SDK client in 2026-07-28: the asks are input_required results it fulfils
//    through the same handlers, then calls again with inputResponses and the requestState.

interface V2Answers {
  elicit?: (
    params: { message: string; requestedSchema?: unknown },
  ) => ElicitResult;
  sample?: (
    params: { messages: { content: unknown }[]; maxTokens: number },
  ) => CreateMessageResult;
}

interface V2Connection {
  client: V2Client;
  /** Every message the client received after connecting, as it arrived. */
  wire: unknown[];
}

async function v2Connect(
  served: Served,
  answers: V2Answers,
): Promise<V2Connection> {
  const client = new V2Client(
    { name: "peer-sdk-asks-test", version: "1.0.0" },
    {
      versionNegotiation: { mode: "auto" },
      capabilities: {
        ...(answers.sample ? { sampling: {} } : {}),
        ...(answers.elicit ? { elicitation: { form: {} } } : {}),
      },
    },
  );
  if (answers.elicit) {
    const elicit = answers.elicit;
    client.setRequestHandler(
      "elicitation/create",
      (request) =>
        elicit(
          request.params as { message: string; requestedSchema?: unknown },
        ) as never,
    );
  }
  if (answers.sample) {
    const sample = answers.sample;
    client.setRequestHandler(
      "sampling/createMessage",
      (request) =>
        sample(
          request.params as {
            messages: { content: unknown }[];
            maxTokens: number;
          },
        ) as never,
    );
  }
  const transport = served.via === "stdio"
    ? new V2Stdio({
      command: Deno.execPath(),
      args: serveArgs(served.dir, "--stdio", "--principal", OPERATOR),
      cwd: ROOT,
      env: Deno.env.toObject(),
      stderr: "pipe",
    })
    : new V2Http(served.url!, {
      requestInit: {
        headers: { Authorization: `Bearer ${DEMO_TOKENS[OPERATOR]}` },
      },
    });
  if (transport instanceof V2Stdio) {
    served.watch(transport.stderr as Readable | null);
  }
  try {
    await client.connect(transport);
    assert.equal(client.getProtocolEra(), "modern");
    assert.equal(client.getNegotiatedProtocolVersion(), "2026-07-28");
  } catch (e) {
    await client.close(); // a spawned server ends with its client
    throw e;
  }
  const wire: unknown[] = [];
  const tap = transport as unknown as {
    onmessage?: (message: unknown, extra?: unknown) => void;
  };
  const deliver = tap.onmessage!;
  tap.onmessage = (message, extra) => {
    wire.push(message);
    deliver(message, extra);
  };
  return { client, wire };
}

function v2Text(result: V2CallToolResult): string {
  return result.content.map((c) => (c.type === "text" ? c.text : "")).join(
    "\n",
  );
}

async function v2Status(client: V2Client): Promise<unknown> {
  const found = await client.callTool({
    name: "payments.lookup",
    arguments: { reference: HELD.reference },
  }) as V2CallToolResult;
  assert.notEqual(found.isError, true, v2Text(found));
  return (found.structuredContent as { status: string }).status;
}

/** The resultType of each response on the wire, in order. */
function resultTypes(wire: unknown[]): unknown[] {
  return wire.flatMap((m) => {
    const result = (m as { result?: { resultType?: unknown } }).result;
    return result ? [result.resultType] : [];
  });
}

async function v2Proves(served: Served): Promise<void> {
  // No elicitation declared: the stateless revision's answer is -32021 naming the capability.
  const bare = await v2Connect(served, { sample: theModel });
  try {
    await assert.rejects(
      bare.client.callTool({ name: "payments.release", arguments: HELD }),
      (e) => {
        assert.ok(e instanceof ProtocolError, String(e));
        assert.equal(e.code, -32021);
        assert.deepEqual(
          (e.data as { requiredCapabilities?: unknown }).requiredCapabilities,
          { elicitation: { form: {} } },
        );
        return true;
      },
    );
    assert.equal(await v2Status(bare.client), "HELD");
  } finally {
    await bare.client.close();
  }

  const asked: { message: string; requestedSchema?: unknown }[] = [];
  const answers: ElicitResult[] = [...USER_ANSWERS];
  const { client, wire } = await v2Connect(served, {
    elicit: (params) => {
      asked.push(params);
      return answers.shift()!;
    },
    sample: theModel,
  });
  try {
    // Each release is two rounds: input_required, then the call again with the user's answer.
    for (const _ of ["decline", "accept unticked"]) {
      wire.length = 0;
      const declined = await client.callTool({
        name: "payments.release",
        arguments: HELD,
      }) as V2CallToolResult;
      assert.equal(declined.isError, true);
      assert.ok(
        v2Text(declined).includes("declined the confirmation"),
        v2Text(declined),
      );
      assert.deepEqual(resultTypes(wire), ["input_required", "complete"]);
      const first = wire[0] as {
        result: {
          inputRequests: Record<string, { method: string }>;
          requestState: unknown;
        };
      };
      assert.deepEqual(Object.keys(first.result.inputRequests), ["ask-0"]);
      assert.equal(
        first.result.inputRequests["ask-0"].method,
        "elicitation/create",
      );
      assert.equal(typeof first.result.requestState, "string");
      assert.equal(await v2Status(client), "HELD");
    }

    wire.length = 0;
    const released = await client.callTool({
      name: "payments.release",
      arguments: HELD,
    }) as V2CallToolResult;
    assert.notEqual(released.isError, true, v2Text(released));
    assert.deepEqual(released.structuredContent, {
      reference: HELD.reference,
      status: "RELEASED",
    });
    assert.deepEqual(resultTypes(wire), ["input_required", "complete"]);
    assert.equal(await v2Status(client), "RELEASED");

    assert.equal(asked.length, 3);
    for (const params of asked) {
      assert.equal(params.message, QUESTION);
      assertConfirmationForm(params.requestedSchema);
    }

    // Sampling, also as a round: the summary is what the client's model said.
    wire.length = 0;
    const summary = await client.callTool({
      name: "policy.summarize",
      arguments: ASK_SUMMARY,
    }) as V2CallToolResult;
    assert.notEqual(summary.isError, true, v2Text(summary));
    assert.deepEqual(resultTypes(wire), ["input_required", "complete"]);
    const out = summary.structuredContent as {
      summary: string;
      policyIds: string[];
      model: string;
    };
    assert.equal(out.summary, SUMMARY);
    assert.equal(out.model, MODEL);
  } finally {
    await client.close();
  }
}

Deno.test("v2 SDK client, 2026-07-28 over HTTP: input_required rounds confirm, decline and sample", async () => {
  await withServed("http", v2Proves, (log) => {
    assert.deepEqual(releasesLogged(log), STATELESS_LOG);
  });
});

Deno.test("v2 SDK client, 2026-07-28 over stdio: input_required rounds confirm, decline and sample", async () => {
  await withServed("stdio", v2Proves, (log) => {
    assert.deepEqual(releasesLogged(log), STATELESS_LOG);
  });
});

// ---------------------------------------------------------------------------------------------
// 3. Our McpClient, both eras: it answers only through its host's policy, and declares only what
//    the policy allows.

type Era = "handshake" | "stateless";

async function ourConnect(
  served: Served,
  era: Era,
  policy?: ServerRequestPolicy,
): Promise<McpClient> {
  const transport = served.via === "stdio"
    ? new StdioClientTransport({
      command: Deno.execPath(),
      args: serveArgs(served.dir, "--stdio", "--principal", OPERATOR),
      cwd: ROOT,
      env: Deno.env.toObject(),
      stderr: "pipe",
    })
    : new StreamableHttpClientTransport(served.url!, {
      token: DEMO_TOKENS[OPERATOR],
    });
  if (transport instanceof StdioClientTransport) {
    served.watch(transport.process.stderr);
  }
  const client = new McpClient(transport, { era, serverRequests: policy });
  try {
    await client.connect();
    assert.equal(client.era, era);
  } catch (e) {
    await client.close(); // a spawned server ends with its client
    throw e;
  }
  return client;
}

function outcomeText(outcome: CallOutcome): string {
  if (outcome.kind === "ok" || outcome.kind === "tool-error") {
    return outcome.result.content.map((c) => (c.type === "text" ? c.text : ""))
      .join("\n");
  }
  return JSON.stringify(outcome);
}

async function ourStatus(client: McpClient): Promise<unknown> {
  const found = await client.callTool("payments.lookup", {
    reference: HELD.reference,
  });
  assert.equal(found.kind, "ok", outcomeText(found));
  return found.kind === "ok" &&
    (found.result.structuredContent as { status: string }).status;
}

async function ourProves(served: Served, era: Era): Promise<void> {
  // The default policy: nothing declared, so neither the sampling tool nor the release, which
  // the user must confirm, is listed; a call to the release is refused naming the capability (a
  // tool error before 2026-07-28, -32021 in it).
  const bare = await ourConnect(served, era);
  try {
    assert.deepEqual(
      (await bare.listTools()).map((t) => t.name),
      SEES[OPERATOR].filter((name) => name !== "payments.release"),
    );
    const refused = await bare.callTool("payments.release", HELD);
    if (era === "handshake") {
      assert.equal(refused.kind, "tool-error", outcomeText(refused));
      assert.match(
        outcomeText(refused),
        /needs the client capability .*"elicitation"/,
      );
    } else {
      assert.equal(refused.kind, "protocol-error", outcomeText(refused));
      assert.equal(refused.kind === "protocol-error" && refused.code, -32021);
      assert.deepEqual(
        refused.kind === "protocol-error" &&
          (refused.data as { requiredCapabilities?: unknown })
            .requiredCapabilities,
        { elicitation: { form: {} } },
      );
    }
    assert.equal(await ourStatus(bare), "HELD");
    assert.deepEqual(bare.serverRequestLog.entries(), []);
  } finally {
    await bare.close();
  }

  // A policy that shows the user the form (who declines, then accepts) and samples a model.
  const forms: FormElicitation[] = [];
  const answers: FormElicitationAnswer[] = [...USER_ANSWERS];
  const records: ServerRequestRecord[] = [];
  const policy: ServerRequestPolicy = {
    elicitation: {
      form: (request) => {
        forms.push(request);
        return answers.shift()!;
      },
    },
    sampling: {
      sample: (request: SamplingRequest) => {
        assertSummaryPrompt(request);
        return {
          role: "assistant",
          content: { type: "text", text: SUMMARY },
          model: MODEL,
        };
      },
    },
  };
  const client = await ourConnect(served, era, policy);
  try {
    assert.deepEqual(
      (await client.listTools()).map((t) => t.name).sort(),
      [...SEES[OPERATOR], "policy.summarize"].sort(),
    );
    for (const _ of ["decline", "accept unticked"]) {
      const declined = await client.callTool("payments.release", HELD);
      assert.equal(declined.kind, "tool-error", outcomeText(declined));
      assert.ok(
        outcomeText(declined).includes("declined the confirmation"),
        outcomeText(declined),
      );
      assert.equal(await ourStatus(client), "HELD");
    }

    const released = await client.callTool("payments.release", HELD);
    assert.equal(released.kind, "ok", outcomeText(released));
    assert.deepEqual(
      released.kind === "ok" && released.result.structuredContent,
      { reference: HELD.reference, status: "RELEASED" },
    );
    assert.equal(await ourStatus(client), "RELEASED");

    assert.equal(forms.length, 3);
    for (const form of forms) {
      assert.equal(form.serverMessage.message, QUESTION);
      assertConfirmationForm(form.requestedSchema);
    }

    const summary = await client.callTool("policy.summarize", ASK_SUMMARY);
    assert.equal(summary.kind, "ok", outcomeText(summary));
    const out = summary.kind === "ok" &&
      summary.result.structuredContent as { summary: string; model: string };
    assert.equal(out && out.summary, SUMMARY);
    assert.equal(out && out.model, MODEL);

    // Each ask came the era's way and was served by the policy.
    records.push(...client.serverRequestLog.entries());
    assert.deepEqual(
      records.map((r) => `${r.method} ${r.via} ${r.outcome}`),
      [
        ...Array(3).fill(
          `elicitation/create ${era === "handshake" ? "request" : "input-required"} served`,
        ),
        `sampling/createMessage ${era === "handshake" ? "request" : "input-required"} served`,
      ],
    );
  } finally {
    await client.close();
  }
}

for (const era of ["handshake", "stateless"] as const) {
  const expected = era === "handshake" ? HANDSHAKE_ERA_LOG : STATELESS_LOG;
  for (const via of ["stdio", "http"] as const) {
    Deno.test(`McpClient (${era}) over ${via}: confirmed and declined releases and sampling under a policy; refused by default`, async () => {
      await withServed(via, (served) => ourProves(served, era), (log) => {
        assert.deepEqual(releasesLogged(log), expected);
      });
    });
  }
}
