/**
 * Our server against a client nobody here wrote: the official TypeScript SDK's `Client`
 * (@modelcontextprotocol/sdk 1.32.2, which validates every result against its own Zod schemas)
 * drives the example estate's server, `estate serve` in a real process, over stdio and over
 * Streamable HTTP on 127.0.0.1.
 */
import assert from "node:assert/strict";
// The SDK's "./*" export maps types to `*.js.d.ts`, which do not exist: without the @ts-types
// lines below, Deno types these imports as `any`.
// @ts-types="@modelcontextprotocol/sdk/client/index"
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
// @ts-types="@modelcontextprotocol/sdk/client/stdio"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
// @ts-types="@modelcontextprotocol/sdk/client/streamableHttp"
import {
  StreamableHTTPClientTransport,
  StreamableHTTPError,
} from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport";
// @ts-types="@modelcontextprotocol/sdk/types"
import { type CallToolResult, ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { DEMO_TOKENS } from "../lib/cli/demo_tokens.ts";
import { EstateDir } from "../lib/store/mod.ts";
import type { SchemaIssue } from "../mod.ts";
import {
  type PrincipalId,
  ROOT,
  seesWithoutElicitation,
  serveArgs,
  startHttpServe,
  withEstate,
} from "./_serve.ts";

const VERSION_KEY = "dev.tool-estate/version";

/** How a test reaches the server as a principal; `close` ends whatever `open` started. */
interface Link {
  open(principal: PrincipalId): Transport;
  close(): Promise<void>;
}

function stdioLink(dir: string): Link {
  return {
    open: (principal) =>
      new StdioClientTransport({
        command: Deno.execPath(),
        args: serveArgs(dir, "--stdio", "--principal", principal),
        cwd: ROOT,
        env: Deno.env.toObject(),
        stderr: "ignore",
      }),
    close: () => Promise.resolve(),
  };
}

/** Starts `estate serve --http 127.0.0.1:0` and links to it with each principal's token. */
async function httpLink(dir: string): Promise<Link & { url: URL }> {
  const { url, stop } = await startHttpServe(dir);
  const tokens = new Map(Object.entries(DEMO_TOKENS)); // what estate serve prints
  return {
    url,
    open: (principal) =>
      new StreamableHTTPClientTransport(url, {
        requestInit: {
          headers: { Authorization: `Bearer ${tokens.get(principal)}` },
        },
      }),
    close: stop,
  };
}

interface Progress {
  progressToken: string | number;
  progress: number;
  total?: number;
}

function textOf(result: CallToolResult): string {
  return result.content.map((c) => (c.type === "text" ? c.text : "")).join(
    "\n",
  );
}

/** The checks, whatever the transport. */
async function conformsToTheSdk(link: Link, dir: string): Promise<void> {
  const clients: Client[] = [];
  const wire: unknown[] = [];
  const connect = async (
    principal: PrincipalId,
    onToolsChanged?: (
      tools: { name: string; _meta?: Record<string, unknown> }[],
    ) => void,
  ): Promise<Client> => {
    const client = new Client({ name: "peer-sdk-test", version: "1.0.0" }, {
      listChanged: onToolsChanged
        ? {
          tools: {
            debounceMs: 0,
            onChanged: (error, tools) => {
              if (!error && tools) onToolsChanged(tools);
            },
          },
        }
        : undefined,
    });
    const transport = link.open(principal);
    // The v1 SDK is handshake-era only: it must negotiate 2025-11-25, not the stateless revision.
    let negotiated: string | undefined;
    const setVersion = transport.setProtocolVersion?.bind(transport);
    transport.setProtocolVersion = (version) => {
      negotiated = version;
      setVersion?.(version);
    };
    await client.connect(transport);
    assert.equal(negotiated, "2025-11-25");
    // Record what arrives on the wire, beside what the SDK makes of it.
    const deliver = transport.onmessage!;
    transport.onmessage = (message, extra) => {
      wire.push(message);
      deliver(message, extra);
    };
    clients.push(client);
    return client;
  };
  try {
    // The handshake: our server advertises list_changed, which the SDK needs to follow it.
    let changed!: (
      tools: { name: string; _meta?: Record<string, unknown> }[],
    ) => void;
    const afterPublish = new Promise<
      { name: string; _meta?: Record<string, unknown> }[]
    >((r) => changed = r);
    const operator = await connect(
      "wholesale-operator",
      (tools) => changed(tools),
    );
    const retail = await connect("retail-agent");
    assert.deepEqual(operator.getServerCapabilities()?.tools, {
      listChanged: true,
    });
    assert.equal(operator.getServerVersion()?.name, "tool-estate-example-bank");

    // Discovery depends on who asks (and on what the client can do: this one declares no
    // elicitation, so a tool the user must confirm is not listed to it).
    const names = async (c: Client) => (await c.listTools()).tools.map((t) => t.name);
    assert.deepEqual(await names(retail), seesWithoutElicitation("retail-agent"));
    assert.deepEqual(await names(operator), seesWithoutElicitation("wholesale-operator"));

    // A call that succeeds, with the progress the handler reports.
    wire.length = 0;
    const quote = await operator.callTool(
      {
        name: "fx.quote",
        arguments: { sell: "EUR", buy: "GBP", amount: 1000 },
      },
      undefined,
      { onprogress: () => {} },
    ) as CallToolResult;
    assert.equal(quote.isError, undefined);
    assert.deepEqual(quote.structuredContent, {
      sell: "EUR",
      buy: "GBP",
      tenor: "SPOT",
      rate: 0.8712,
      buyAmount: 871.2,
      validForSeconds: 30,
    });
    assert.deepEqual(JSON.parse(textOf(quote)), quote.structuredContent);
    // Both progress notifications come before the response, for the SDK's token. (SDK 1.x may
    // still drop them: it dispatches notifications a microtask late, after a response in the same
    // read retired the token — typescript-sdk issue #2580; v2 fixed it in PR #2378.)
    const kinds = wire.map((m) => {
      const { method, id, params } = m as {
        method?: string;
        id?: number;
        params?: Progress;
      };
      return method === "notifications/progress"
        ? `progress ${params!.progress}/${params!.total} token ${params!.progressToken}`
        : `response ${id}`;
    });
    const id = Number((wire.at(-1) as { id: number }).id);
    assert.deepEqual(kinds, [
      `progress 1/2 token ${id}`,
      `progress 2/2 token ${id}`,
      `response ${id}`,
    ]);

    // Invalid arguments (2025-11-25, SEP-1303): an isError result with every issue, as text and
    // as structuredContent. The SDK returns it as a result, not an exception.
    const bad = await operator.callTool({
      name: "fx.quote",
      arguments: { sell: "EUR", buy: "XAU", amount: -5, venue: "LSE" },
    }) as CallToolResult;
    assert.equal(bad.isError, true);
    const issues = (bad.structuredContent as { issues: SchemaIssue[] }).issues;
    assert.deepEqual(issues.map((i) => `${i.path} ${i.keyword}`), [
      "$.amount exclusiveMinimum",
      "$.buy enum",
      "$.venue additionalProperties",
    ]);
    for (const i of issues) {
      assert.ok(textOf(bad).includes(`${i.path}: ${i.message}`), i.path);
    }

    // A tool the principal may not see is answered like an unknown one: a -32602 error.
    await assert.rejects(
      retail.callTool({ name: "payments.release", arguments: {} }),
      (e) => e instanceof McpError && e.code === ErrorCode.InvalidParams,
    );

    // A publish into the estate folder reaches the operator as list_changed; the SDK re-lists.
    const writer = EstateDir.open(dir);
    const current = writer.registry.latest("payments.lookup")!;
    const schema = current.inputSchema as {
      properties: Record<string, unknown>;
    };
    const next = current.version.replace(
      /^(\d+)\.(\d+)\.\d+$/,
      (_, a, b) => `${a}.${+b + 1}.0`,
    );
    writer.publish({
      ...current,
      version: next,
      inputSchema: {
        ...schema,
        properties: { ...schema.properties, channel: { type: "string" } },
      },
    });
    const relisted = await afterPublish;
    assert.equal(
      relisted.find((t) => t.name === "payments.lookup")?._meta?.[VERSION_KEY],
      next,
    );
    assert.deepEqual(await names(retail), seesWithoutElicitation("retail-agent"));
  } finally {
    for (const c of clients) await c.close();
  }
}

Deno.test("SDK client over stdio: per-principal lists, a call, schema issues, list_changed", async () => {
  await withEstate("peer-sdk-", async (dir) => {
    const link = stdioLink(dir);
    try {
      await conformsToTheSdk(link, dir);
    } finally {
      await link.close();
    }
  });
});

Deno.test("SDK client over Streamable HTTP: bearer principals, a call, schema issues, list_changed", async () => {
  await withEstate("peer-sdk-", async (dir) => {
    const link = await httpLink(dir);
    try {
      await conformsToTheSdk(link, dir);
      // A token nobody holds: the handshake is refused with 401.
      const stranger = new Client({ name: "peer-sdk-test", version: "1.0.0" });
      await assert.rejects(
        stranger.connect(
          new StreamableHTTPClientTransport(link.url, {
            requestInit: {
              headers: { Authorization: "Bearer not-a-demo-token" },
            },
          }),
        ),
        (e) => e instanceof StreamableHTTPError && e.code === 401,
      );
    } finally {
      await link.close();
    }
  });
});
