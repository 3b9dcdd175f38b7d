/**
 * The client the MCP conformance suite's client scenarios run: our `McpClient` over our Streamable
 * HTTP client transport. The suite starts a mock server, then runs this script with the server's
 * URL as the last argument and the scenario's name in `MCP_CONFORMANCE_SCENARIO`.
 *
 * Run by the suite: `conformance client --command "deno run -A tests/conformance/fixture_client.ts"
 * --scenario initialize`.
 *
 * @module
 */
import { McpClient } from "../../mod.ts";
import {
  OAuthClient,
  parseAuthorizationResponse,
  StreamableHttpClientTransport,
} from "../../lib/mcp/transports/http_mod.ts";

/** The client id metadata document URL the suite's CIMD scenarios expect (it is never fetched). */
const CIMD_URL = "https://conformance-test.local/client-metadata.json";
const REDIRECT_URI = "http://localhost:3000/callback";

/**
 * The OAuth client for an `auth/*` scenario. The user-agent step follows the mock authorization
 * server's redirect without a browser: its authorization endpoint answers at once with a redirect
 * to the redirect URI carrying the code. Pre-registered credentials come in
 * `MCP_CONFORMANCE_CONTEXT`.
 */
function oauthFor(scenario: string): OAuthClient {
  const context = JSON.parse(Deno.env.get("MCP_CONFORMANCE_CONTEXT") ?? "{}");
  if (scenario.startsWith("auth/client-credentials-")) {
    return new OAuthClient({
      grant: "client_credentials",
      client: {
        clientId: context.client_id,
        clientSecret: context.client_secret,
        privateKey: context.private_key_pem,
        privateKeyAlgorithm: context.signing_algorithm,
      },
    });
  }
  return new OAuthClient({
    redirectUri: REDIRECT_URI,
    clientName: "tool-estate-conformance-client",
    clientMetadataUrl: CIMD_URL,
    client: context.client_id === undefined
      ? undefined
      : { clientId: context.client_id, clientSecret: context.client_secret },
    redirectToAuthorization: async (url) => {
      const res = await fetch(url, { redirect: "manual" });
      await res.body?.cancel();
      const location = res.headers.get("location");
      if (location === null) {
        throw new Error(`the authorization endpoint answered ${res.status}`);
      }
      return parseAuthorizationResponse(new URL(location, url));
    },
  });
}

/**
 * Plays one scenario against the server at `url`.
 *
 * @param url The mock server's MCP endpoint.
 * @param scenario The scenario's name.
 */
export async function play(url: string, scenario: string): Promise<void> {
  const auth = scenario.startsWith("auth/") ? oauthFor(scenario) : undefined;
  const client = new McpClient(
    new StreamableHttpClientTransport(url, { auth }),
    {
      clientInfo: { name: "tool-estate-conformance-client", version: "0.1.0" },
      // The 0.1.16 mock servers speak only the handshake era, and those of `initialize` and
      // `sse-retry` answer any method they do not know (`server/discover` included) with an empty
      // result, which the default "auto" client takes for a 2026-07-28 server. The `auth/*` mocks
      // answer `server/discover` with -32601 (0.1.16: handshake era) or serve 2026-07-28 (the
      // alpha's): "auto" finds out.
      era: auth ? "auto" : "handshake",
    },
  );
  try {
    await client.connect();
    const tools = await client.listTools();
    if (scenario === "tools_call") {
      const add = tools.find((t) => t.name === "add_numbers");
      if (!add) throw new Error("the server lists no add_numbers tool");
      const outcome = await client.callTool("add_numbers", { a: 5, b: 3 });
      if (outcome.kind !== "ok") {
        throw new Error(`add_numbers: ${JSON.stringify(outcome)}`);
      }
    } else if (
      scenario.startsWith("auth/") && tools.some((t) => t.name === "test-tool")
    ) {
      const outcome = await client.callTool("test-tool", {});
      if (outcome.kind !== "ok") {
        throw new Error(`test-tool: ${JSON.stringify(outcome)}`);
      }
    } else if (scenario === "sse-retry") {
      // The server closes the call's stream after a priming event with `retry:`, and answers
      // on the GET stream the client is expected to open with Last-Event-ID.
      const outcome = await client.callTool(tools[0].name, {}, {
        timeoutMs: 3_000,
      });
      if (outcome.kind !== "ok") {
        throw new Error(`${tools[0].name}: ${JSON.stringify(outcome)}`);
      }
    }
  } finally {
    await client.close();
  }
}

if (import.meta.main) {
  await play(
    Deno.args.at(-1)!,
    Deno.env.get("MCP_CONFORMANCE_SCENARIO") ?? "initialize",
  );
}
