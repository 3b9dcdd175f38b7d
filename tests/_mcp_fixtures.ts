/** Shared fixtures for the MCP tests: a small estate, principals, and a server with a call log. */
import {
  type CallRecord,
  McpServer,
  type McpServerOptions,
  type Principal,
  type Session,
  ToolRegistry,
  type ToolSpec,
} from "../mod.ts";

export const RETAIL: Principal = {
  id: "retail-agent",
  scopes: ["transfers:read", "policy:read"],
  tenant: "retail",
  clearance: "confidential",
};
export const OPERATOR: Principal = {
  id: "wholesale-operator",
  scopes: ["payments:read", "payments:release", "policy:read"],
  tenant: "wholesale",
  clearance: "restricted",
};

export function spec(
  name: string,
  version: string,
  changes: Partial<ToolSpec> = {},
): ToolSpec {
  return {
    name,
    version,
    title: name,
    description: `The ${name} tool. Reads its system of record.`,
    inputSchema: {
      type: "object",
      properties: {
        reference: { type: "string", pattern: "^PMT-[0-9]{6}$" },
        amount: { type: "number" },
      },
      required: ["reference"],
      additionalProperties: false,
    },
    sideEffect: "read",
    requiredScopes: [],
    dataClassification: "internal",
    tenants: [],
    owner: "team",
    ...changes,
  };
}

/** An estate: payments tools for the wholesale operator, a retail tool, a shared policy tool. */
export function estate(): ToolRegistry {
  const r = new ToolRegistry();
  r.publish(
    spec("payments.lookup", "1.0.0", {
      requiredScopes: ["payments:read"],
      tenants: ["wholesale"],
    }),
  );
  r.publish(spec("payments.lookup", "1.1.0", {
    requiredScopes: ["payments:read"],
    tenants: ["wholesale"],
    title: "Lookup 1.1",
  }));
  // A write: its calls need no confirmation, so every client is listed it and these fixtures test
  // visibility alone. The confirmation of irreversible calls (and that a client which cannot
  // confirm is not listed them) is tested with specs of its own (server_asks_test.ts).
  r.publish(spec("payments.release", "1.0.0", {
    sideEffect: "write",
    requiredScopes: ["payments:release"],
    dataClassification: "restricted",
    tenants: ["wholesale"],
  }));
  r.publish(
    spec("policy.search", "1.0.0", { requiredScopes: ["policy:read"] }),
  );
  r.publish(
    spec("retail.transfers.lookup", "1.0.0", {
      requiredScopes: ["transfers:read"],
      tenants: ["retail"],
    }),
  );
  return r;
}

/** A server over `registry` whose handlers echo, with every call and handler run recorded. */
export function server(
  registry: ToolRegistry,
  options: Partial<McpServerOptions> = {},
): {
  server: McpServer;
  calls: CallRecord[];
  ran: string[];
} {
  const calls: CallRecord[] = [];
  const ran: string[] = [];
  const s = new McpServer({
    registry,
    handlerFor: (t) => (args) => {
      ran.push(`${t.name}@${t.version}`);
      if (args.reference === "PMT-999999") {
        throw new Error("core banking timed out");
      }
      return { tool: t.name, version: t.version, args };
    },
    onCall: (r) => calls.push(r),
    ...options,
  });
  return { server: s, calls, ran };
}

/** Opens a session and completes the handshake at `version`. */
export async function ready(
  s: McpServer,
  principal: Principal,
  version = "2025-11-25",
  notes: unknown[] = [],
): Promise<Session> {
  const session = s.openSession({ principal, notify: (m) => notes.push(m) });
  const init = await s.handle({
    jsonrpc: "2.0",
    id: "init",
    method: "initialize",
    params: {
      protocolVersion: version,
      capabilities: {},
      clientInfo: { name: "test", version: "1" },
    },
  }, session);
  if (!init || "error" in init) throw new Error(JSON.stringify(init));
  await s.handle(
    { jsonrpc: "2.0", method: "notifications/initialized" },
    session,
  );
  return session;
}
