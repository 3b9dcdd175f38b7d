/**
 * Our server against the official v2 client (@modelcontextprotocol/client 2.4.0) in `auto`
 * negotiation mode: it probes with `server/discover` and, since `estate serve` is dual-era, must
 * settle on the stateless 2026-07-28 revision, over Streamable HTTP (bearer principals) and stdio.
 */
import assert from "node:assert/strict";
import {
  type CallToolResult,
  Client,
  ProtocolError,
  StreamableHTTPClientTransport,
  type Tool,
} from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
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
const MODERN = "2026-07-28";

/** Starts `estate serve --http 127.0.0.1:0`, reads the URL it prints, and stops it after `body`. */
async function withHttpServer(
  dir: string,
  body: (url: URL) => Promise<void>,
): Promise<void> {
  const { url, stop } = await startHttpServe(dir);
  try {
    await body(url);
  } finally {
    await stop();
  }
}

function textOf(result: CallToolResult): string {
  return result.content.map((c) => (c.type === "text" ? c.text : "")).join(
    "\n",
  );
}

function newClient(onToolsChanged?: (tools: Tool[]) => void): Client {
  return new Client({ name: "peer-sdk-v2-client-test", version: "1.0.0" }, {
    versionNegotiation: { mode: "auto" },
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
}

const names = async (c: Client) => (await c.listTools()).tools.map((t) => t.name);

Deno.test("v2 SDK client (auto) over Streamable HTTP: 2026-07-28, bearer principals, calls, errors, list_changed", async () => {
  await withEstate("peer-sdk-v2-client-", async (dir) => {
    await withHttpServer(dir, async (url) => {
      const tokens = new Map(Object.entries(DEMO_TOKENS)); // what estate serve prints
      const clients: Client[] = [];
      const connect = async (
        principal: PrincipalId,
        onToolsChanged?: (tools: Tool[]) => void,
      ) => {
        const client = newClient(onToolsChanged);
        clients.push(client);
        await client.connect(
          new StreamableHTTPClientTransport(url, {
            requestInit: {
              headers: { Authorization: `Bearer ${tokens.get(principal)}` },
            },
          }),
        );
        return client;
      };
      try {
        let changed!: (tools: Tool[]) => void;
        const afterPublish = new Promise<Tool[]>((r) => changed = r);
        const operator = await connect(
          "wholesale-operator",
          (tools) => changed(tools),
        );
        const retail = await connect("retail-agent");

        // The era: server/discover answered, so the stateless revision, with no handshake.
        for (const c of [operator, retail]) {
          assert.equal(c.getProtocolEra(), "modern");
          assert.equal(c.getNegotiatedProtocolVersion(), MODERN);
        }
        assert.equal(
          operator.getServerVersion()?.name,
          "tool-estate-example-bank",
        );
        assert.equal(
          operator.getServerCapabilities()?.tools?.listChanged,
          true,
        );

        // Discovery depends on the bearer token on each request.
        assert.deepEqual(await names(retail), seesWithoutElicitation("retail-agent"));
        assert.deepEqual(await names(operator), seesWithoutElicitation("wholesale-operator"));

        // A call that succeeds; the client checks structuredContent against the outputSchema.
        const quote = await operator.callTool({
          name: "fx.quote",
          arguments: { sell: "EUR", buy: "GBP", amount: 1000 },
        }) as CallToolResult;
        assert.notEqual(quote.isError, true);
        assert.deepEqual(quote.structuredContent, {
          sell: "EUR",
          buy: "GBP",
          tenor: "SPOT",
          rate: 0.8712,
          buyAmount: 871.2,
          validForSeconds: 30,
        });
        assert.deepEqual(JSON.parse(textOf(quote)), quote.structuredContent);

        // Invalid arguments (SEP-1303): an isError result carrying every issue.
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
          (e) => e instanceof ProtocolError && e.code === -32602,
        );

        // The operator's listChanged option auto-opened subscriptions/listen; a publish into the
        // estate folder reaches it, and the client re-lists.
        const subscription = operator.autoOpenedSubscription;
        assert.ok(subscription, "no subscriptions/listen was auto-opened");
        assert.equal(subscription.honoredFilter.toolsListChanged, true);
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
          relisted.find((t) => t.name === "payments.lookup")?._meta
            ?.[VERSION_KEY],
          next,
        );
        assert.deepEqual(await names(retail), seesWithoutElicitation("retail-agent"));
      } finally {
        for (const c of clients) await c.close();
      }
    });
  });
});

Deno.test("v2 SDK client (auto) over stdio: 2026-07-28 for `estate serve --stdio`", async () => {
  await withEstate("peer-sdk-v2-client-", async (dir) => {
    const client = newClient();
    try {
      await client.connect(
        new StdioClientTransport({
          command: Deno.execPath(),
          args: serveArgs(dir, "--stdio", "--principal", "wholesale-operator"),
          cwd: ROOT,
          env: Deno.env.toObject(),
          stderr: "ignore",
        }),
      );
      assert.equal(client.getProtocolEra(), "modern");
      assert.equal(client.getNegotiatedProtocolVersion(), MODERN);
      assert.deepEqual(await names(client), seesWithoutElicitation("wholesale-operator"));
    } finally {
      await client.close();
    }
  });
});
