/**
 * Server-initiated requests from a server nobody here wrote: @modelcontextprotocol/server-everything
 * 2026.8.31 (official SDK 1.x) over stdio, in a real process with a scrubbed environment, behind
 * `McpHost`. Its sampling, elicitation and roots tools exist only for a client that declares those
 * capabilities: a third-party server (no policy) gets none declared, so it never asks; a server the
 * host allows gets its requests served through the host's callbacks, within the policy's caps, and
 * every request is logged.
 */
import assert from "node:assert/strict";
import {
  type FormElicitation,
  McpHost,
  type Root,
  type SamplingRequest,
  type ServerRequestPolicy,
  type UrlElicitation,
} from "../mod.ts";
import { StdioClientTransport } from "../lib/mcp/transports/stdio.ts";

const ROOT = new URL("../", import.meta.url).pathname;
const EVERYTHING = "npm:@modelcontextprotocol/server-everything@2026.8.31";
const ASKING_TOOLS = [
  "get-roots-list",
  "trigger-elicitation-request",
  "trigger-sampling-request",
  "trigger-url-elicitation",
];

/** Starts server-everything with only PATH and a throwaway HOME under `host` as `id`. */
async function withEverything(
  host: McpHost,
  id: string,
  body: () => Promise<void>,
): Promise<void> {
  const home = await Deno.makeTempDir({ prefix: "peer-everything-requests-" });
  const transport = new StdioClientTransport({
    command: Deno.execPath(),
    args: ["run", "-A", EVERYTHING, "stdio"],
    cwd: ROOT,
    env: { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin", HOME: home },
    stderr: "ignore",
  });
  const client = await host.connect(id, transport, {
    clientInfo: { name: "tool-estate-peer-test", version: "0.1.0" },
    requestTimeoutMs: 15_000,
    era: "auto",
  });
  try {
    await body();
  } finally {
    await client.close();
    await Deno.remove(home, { recursive: true });
  }
}

/** Waits until the host's log holds `count` records of `method` (the server asks on its own). */
async function logged(
  host: McpHost,
  method: string,
  count: number,
): Promise<void> {
  for (let i = 0; i < 300; i++) {
    if (
      host.serverRequestLog.entries().filter((r) => r.method === method)
        .length >= count
    ) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  assert.fail(`no ${count} ${method} request(s) from the server within 6 s`);
}

function texts(outcome: unknown): string {
  const o = outcome as {
    kind: string;
    result?: { content: { text?: string }[] };
  };
  return (o.result?.content ?? []).map((c) => c.text ?? "").join("\n");
}

Deno.test("server-everything, a third-party server: nothing declared, its asking tools absent, nothing served", async () => {
  const host = new McpHost(); // no policy for anyone: the default for a third-party server
  await withEverything(host, "everything", async () => {
    const names = (await host.tools()).map((t) => t.name);
    assert.ok(names.includes("get-sum"));
    for (const tool of ASKING_TOOLS) {
      assert.ok(!names.includes(tool), `${tool} is not listed`);
    }
    const call = await host.callTool("trigger-sampling-request", {
      prompt: "hello",
    });
    assert.equal(call.kind, "protocol-error", "an unknown exposed name");
    await new Promise((r) => setTimeout(r, 500)); // past the server's own roots sync (350 ms)
    assert.deepEqual(
      host.serverRequestLog.entries(),
      [],
      "the server never asked",
    );
  });
});

Deno.test("server-everything, an allowed server: sampling, form and URL elicitation, roots served; a cap refuses, logged", async () => {
  const sampled: SamplingRequest[] = [];
  const forms: FormElicitation[] = [];
  const urls: UrlElicitation[] = [];
  let roots: Root[] = [{ uri: "file:///work/estate", name: "estate" }];
  let approve = true;
  const policy: ServerRequestPolicy = {
    sampling: {
      maxTokens: 64,
      sample: (request) => {
        sampled.push(request);
        return {
          role: "assistant",
          content: { type: "text", text: "The capital of France is Paris." },
          model: "host-model-1",
          stopReason: "endTurn",
        };
      },
    },
    elicitation: {
      form: (request) => {
        forms.push(request);
        return {
          action: "accept",
          content: {
            name: "Ada Lovelace",
            check: true,
            email: "ada@example.com",
            integer: 7,
          },
        };
      },
      url: (request) => {
        urls.push(request);
        return { approved: approve };
      },
    },
    roots: { list: () => roots },
    // Six requests this minute are served (two roots lists, a sampling, a form, two URLs); the
    // seventh is refused.
    limits: { maxPerMinute: 6 },
  };
  const host = new McpHost({ serverRequests: { everything: policy } });
  await withEverything(host, "everything", async () => {
    const names = (await host.tools()).map((t) => t.name);
    for (const tool of ASKING_TOOLS) {
      assert.ok(names.includes(tool), `${tool} is listed`);
    }

    // Roots: asked once on its own after initialization; again when the host's roots change.
    await logged(host, "roots/list", 1);
    roots = [{ uri: "file:///work/other", name: "other" }];
    assert.deepEqual(await host.rootsChanged(), ["everything"]);
    await logged(host, "roots/list", 2);
    const listed = await host.callTool("get-roots-list", {});
    assert.equal(listed.kind, "ok");
    assert.match(texts(listed), /1\. other\n\s+URI: file:\/\/\/work\/other/);

    // Sampling: the callback's answer comes back in the tool result; maxTokens was clamped.
    const sampling = await host.callTool("trigger-sampling-request", {
      prompt: "What is the capital of France?",
      maxTokens: 5000,
    });
    assert.equal(sampling.kind, "ok");
    assert.match(texts(sampling), /The capital of France is Paris\./);
    assert.match(texts(sampling), /host-model-1/);
    assert.equal(sampled[0].maxTokens, 64);
    assert.equal(sampled[0].systemPrompt, "You are a helpful test server.");
    assert.deepEqual(sampled[0].messages, [{
      role: "user",
      content: {
        type: "text",
        text: "Resource trigger-sampling-request context: What is the capital of France?",
      },
    }]);

    // Form elicitation: every field kind of its schema is in the restricted form; the message is
    // the server's, attributed to it; the accepted content comes back.
    const form = await host.callTool("trigger-elicitation-request", {});
    assert.equal(form.kind, "ok");
    assert.deepEqual(forms[0].serverMessage, {
      server: "everything",
      message: "Please provide inputs for the following fields:",
    });
    assert.match(texts(form), /User provided the requested information/);
    assert.match(texts(form), /- Name: Ada Lovelace/);
    assert.match(texts(form), /- Email: ada@example\.com/);

    // URL elicitation: the full URL and its domain; accepted only when approved.
    const url = "https://modelcontextprotocol.io/connect?step=1";
    const opened = await host.callTool("trigger-url-elicitation", {
      url,
      message: "Connect",
    });
    assert.match(texts(opened), /User completed the URL elicitation flow/);
    assert.deepEqual(
      [urls[0].url, urls[0].domain, urls[0].punycode, urls[0].serverMessage],
      [url, "modelcontextprotocol.io", false, {
        server: "everything",
        message: "Connect",
      }],
    );
    approve = false;
    const declined = await host.callTool("trigger-url-elicitation", {
      url,
      message: "Again",
    });
    assert.match(texts(declined), /User declined to open the URL/);

    // The seventh request this minute: refused by the policy's cap; the tool reports the error.
    const capped = await host.callTool("trigger-sampling-request", {
      prompt: "Again?",
    });
    assert.equal(capped.kind, "tool-error");
    assert.match(texts(capped), /-1.*more than 6 requests per minute/);
    assert.equal(
      sampled.length,
      1,
      "the refused request never reached the callback",
    );

    assert.deepEqual(
      host.serverRequestLog.entries().map((
        r,
      ) => [r.server, r.method, r.outcome, r.action]),
      [
        ["everything", "roots/list", "served", undefined],
        ["everything", "roots/list", "served", undefined],
        ["everything", "sampling/createMessage", "served", undefined],
        ["everything", "elicitation/create", "served", "accept"],
        ["everything", "elicitation/create", "served", "accept"],
        ["everything", "elicitation/create", "served", "decline"],
        ["everything", "sampling/createMessage", "refused", undefined],
      ],
    );
    const records = host.serverRequestLog.entries();
    assert.deepEqual(records[2].adjustments, ["maxTokens 5000 → 64"]);
    assert.equal(records[6].code, -1);
    assert.ok(records.every((r) => r.via === "request"));
    // The sizes of the params as sent: roots/list has none; the others carry their text.
    assert.deepEqual(records.map((r) => r.bytes > 0), [
      false,
      false,
      true,
      true,
      true,
      true,
      true,
    ]);
  });
});
