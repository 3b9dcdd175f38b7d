/**
 * The gateway's verified connections (`connectUpstreams`): an official-SDK `McpServer` (v1,
 * `StreamableHTTPServerTransport`) behind `node:https` with mutual TLS, certificates made at test
 * time (tests/_pki.ts), reached by our `McpClient` over the verified transport; impostors (another
 * CA, another SAN, another pinned certificate, a certificate swapped mid-session) refused with the
 * evidence before any MCP byte; the server's side of mutual TLS; and server-everything over stdio
 * with its interpreter and script pinned, other binaries and scripts refused, its environment
 * scrubbed.
 */
import assert from "node:assert/strict";
import https from "node:https";
import net from "node:net";
import type { TLSSocket } from "node:tls";
import type { IncomingMessage, ServerResponse } from "node:http";
// @ts-types="@modelcontextprotocol/sdk/server/mcp"
import { McpServer as SdkMcpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
// @ts-types="@modelcontextprotocol/sdk/server/streamableHttp"
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { z } from "zod";
import { McpClient } from "../mod.ts";
import type { HttpUpstream, ServerRecord, StdioUpstream } from "../lib/estate/server_record.ts";
import type { Transport } from "../lib/jsonrpc/transport.ts";
import { connectUpstreams, type GatewayTls } from "../lib/gateway/identity.ts";
import { IdentityRefusedError } from "../lib/gateway/upstream.ts";
import type { StdioClientTransport } from "../lib/mcp/transports/stdio.ts";
import { makeTestPki, PAYMENTS_ID, type Pem, type TestPki } from "./_pki.ts";

const ROOT = new URL("../", import.meta.url).pathname;
const EVERYTHING_SCRIPT =
  `${ROOT}node_modules/@modelcontextprotocol/server-everything/dist/index.js`;

/** SHA-256, hex, computed here with WebCrypto (not with the code under test). */
async function sha256(bytes: Uint8Array): Promise<string> {
  const digest = await crypto.subtle.digest(
    "SHA-256",
    bytes as Uint8Array<ArrayBuffer>,
  );
  return Array.from(
    new Uint8Array(digest),
    (b) => b.toString(16).padStart(2, "0"),
  ).join("");
}

/** The DER bytes of a PEM certificate. */
function der(pem: string): Uint8Array {
  const b64 = pem.replace(/-----(BEGIN|END) CERTIFICATE-----/g, "").replace(
    /\s+/g,
    "",
  );
  return Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
}

/** What the upstream saw. */
interface Seen {
  /** TLS connections completed (both sides' certificates accepted). */
  connections: number;
  /** The client certificate SANs of the HTTP requests that reached the MCP handler. */
  clients: string[];
  /** The JSON-RPC methods that reached the MCP handler. */
  methods: string[];
}

/** An official-SDK MCP server over HTTPS with mutual TLS (clients must chain to `ca`). */
async function startUpstream(
  pem: Pem,
  ca: string,
): Promise<{ port: number; seen: Seen; close: () => Promise<void> }> {
  const seen: Seen = { connections: 0, clients: [], methods: [] };
  const sockets = new Set<net.Socket>();
  const handle = async (
    req: IncomingMessage,
    res: ServerResponse,
  ): Promise<void> => {
    const socket = req.socket as TLSSocket;
    seen.clients.push(socket.getPeerCertificate().subjectaltname ?? "");
    let body: unknown;
    if (req.method === "POST") {
      const chunks: Uint8Array[] = [];
      for await (const chunk of req) chunks.push(chunk as Uint8Array);
      body = JSON.parse(
        new TextDecoder().decode(
          await new Blob(chunks as Uint8Array<ArrayBuffer>[]).arrayBuffer(),
        ),
      );
      const method = (body as { method?: string }).method;
      if (method) seen.methods.push(method);
    }
    const mcp = new SdkMcpServer({
      name: "payments-upstream",
      version: "1.0.0",
    });
    mcp.registerTool(
      "payments.release",
      {
        description: "Releases a held payment.",
        inputSchema: { paymentId: z.string() },
      },
      ({ paymentId }) => ({
        content: [{ type: "text", text: `released ${paymentId}` }],
      }),
    );
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
    });
    res.on("close", () => {
      void transport.close();
      void mcp.close();
    });
    await mcp.connect(transport);
    await transport.handleRequest(req, res, body);
  };
  const server = https.createServer({
    key: pem.key,
    cert: pem.cert,
    ca,
    requestCert: true,
    rejectUnauthorized: true,
  }, (req, res) => {
    handle(req, res).catch(() => res.destroy());
  });
  server.on("secureConnection", (socket: TLSSocket) => {
    seen.connections++;
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  server.on("tlsClientError", () => {});
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    seen,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A TCP relay whose backend can be switched: the server behind a URL changes its certificate. */
async function startRelay(
  backend: number,
): Promise<
  { port: number; switchTo: (port: number) => void; close: () => Promise<void> }
> {
  let target = backend;
  const sockets = new Set<net.Socket>();
  const relay = net.createServer((client) => {
    const upstream = net.connect(target, "127.0.0.1");
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on("close", () => sockets.delete(s));
      s.on("error", () => {
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => relay.listen(0, "127.0.0.1", resolve));
  const closeAll = () => {
    for (const s of sockets) s.destroy();
  };
  return {
    port: (relay.address() as net.AddressInfo).port,
    switchTo: (port) => {
      target = port;
      closeAll(); // established connections end: the next request needs a new one
    },
    close: async () => {
      closeAll();
      await new Promise<void>((resolve) => relay.close(() => resolve()));
    },
  };
}

function httpRecord(
  port: number,
  identity: HttpUpstream["identity"],
): ServerRecord {
  return {
    id: "payments-mcp",
    owner: "payments-platform",
    description: "The payments team's MCP server.",
    upstream: { kind: "http", url: `https://127.0.0.1:${port}/mcp`, identity },
    tools: ["payments.release"],
  };
}

function gatewayTls(pki: TestPki, client: Pem = pki.gateway): GatewayTls {
  return { key: client.key, cert: client.cert, ca: pki.ca.cert };
}

/** A client over a connector's transport; legacy era (the v1 SDK server speaks only it). */
function mcpClient(transport: Transport): McpClient {
  return new McpClient(transport, {
    clientInfo: { name: "gateway-identity-test", version: "0.1.0" },
    era: "handshake",
    requestTimeoutMs: 10_000,
  });
}

/** Calls a tool that must succeed; the text of its first content block. */
async function callText(
  client: McpClient,
  name: string,
  args: Record<string, unknown>,
): Promise<string> {
  const outcome = await client.callTool(name, args);
  assert.equal(outcome.kind, "ok", JSON.stringify(outcome));
  if (outcome.kind !== "ok") throw new Error("unreachable");
  return (outcome.result.content[0] as { text: string }).text;
}

async function refusal(
  promise: Promise<unknown>,
): Promise<IdentityRefusedError> {
  const error = await promise.then(() => undefined, (e: unknown) => e);
  assert.ok(
    error instanceof IdentityRefusedError,
    `expected a refusal, got ${error}`,
  );
  return error;
}

async function withPki(body: (pki: TestPki) => Promise<void>): Promise<void> {
  const pki = await makeTestPki();
  try {
    await body(pki);
  } finally {
    await pki.remove();
  }
}

Deno.test("connectUpstreams() connects to an HTTPS upstream whose certificate carries the record's SPIFFE id, over mutual TLS", async () => {
  await withPki(async (pki) => {
    const upstream = await startUpstream(pki.server, pki.ca.cert);
    try {
      const connect = connectUpstreams({ tls: gatewayTls(pki) });
      const { transport, identity } = await connect(
        httpRecord(upstream.port, { spiffeId: PAYMENTS_ID }),
      );
      assert.equal(identity.check, "spiffe");
      assert.equal(identity.expected, PAYMENTS_ID);
      assert.match(identity.observed, /URI:spiffe:\/\/bank\.example\/payments/);
      assert.match(identity.observed, /chain: issued by the trust root/);
      assert.equal(
        upstream.seen.methods.length,
        0,
        "nothing of MCP before the client speaks",
      );
      const client = mcpClient(transport);
      try {
        await client.connect();
        assert.deepEqual((await client.listTools()).map((t) => t.name), [
          "payments.release",
        ]);
        assert.equal(
          await callText(client, "payments.release", { paymentId: "p-1" }),
          "released p-1",
        );
      } finally {
        await client.close();
      }
      assert.ok(upstream.seen.methods.includes("tools/call"));
      // The server's side of mutual TLS: every request came with the gateway's certificate.
      assert.ok(upstream.seen.clients.length > 0);
      for (const san of upstream.seen.clients) {
        assert.equal(san, "URI:spiffe://bank.example/gateway");
      }
    } finally {
      await upstream.close();
    }
  });
});

Deno.test("connectUpstreams() refuses a certificate with the right SAN from another CA, with the evidence, before any request", async () => {
  await withPki(async (pki) => {
    const upstream = await startUpstream(pki.rogueServer, pki.ca.cert);
    try {
      const refused = await refusal(
        connectUpstreams({ tls: gatewayTls(pki) })(
          httpRecord(upstream.port, { spiffeId: PAYMENTS_ID }),
        ),
      );
      assert.equal(refused.evidence.server, "payments-mcp");
      assert.equal(refused.evidence.check, "spiffe");
      assert.equal(refused.evidence.expected, PAYMENTS_ID);
      assert.match(
        refused.evidence.observed,
        /URI:spiffe:\/\/bank\.example\/payments/,
      );
      assert.match(refused.evidence.observed, /not issued by the trust root/);
      const pin = await sha256(der(pki.rogueServer.cert));
      assert.match(
        refused.evidence.observed,
        new RegExp(`certificate SHA-256: ${pin}`),
      );
      assert.match(refused.message, /payments-mcp.*refused/);
      assert.deepEqual(upstream.seen.methods, []);
      assert.deepEqual(upstream.seen.clients, []);
    } finally {
      await upstream.close();
    }
  });
});

Deno.test("connectUpstreams() refuses a certificate from the trust root that names another service", async () => {
  await withPki(async (pki) => {
    const upstream = await startUpstream(pki.otherServer, pki.ca.cert);
    try {
      const refused = await refusal(
        connectUpstreams({ tls: gatewayTls(pki) })(
          httpRecord(upstream.port, { spiffeId: PAYMENTS_ID }),
        ),
      );
      assert.equal(refused.evidence.check, "spiffe");
      assert.match(
        refused.evidence.observed,
        /URI:spiffe:\/\/bank\.example\/crm/,
      );
      assert.match(
        refused.evidence.observed,
        /chain: issued by the trust root/,
      );
      assert.match(
        refused.message,
        /spiffe:\/\/bank\.example\/crm, not exactly spiffe:\/\/bank\.example\/payments/,
      );
      assert.deepEqual(upstream.seen.clients, []);
    } finally {
      await upstream.close();
    }
  });
});

Deno.test("connectUpstreams() ignores the host name (a certificate naming only its SPIFFE id is fine) and refuses one naming two services", async () => {
  await withPki(async (pki) => {
    const uriOnly = await startUpstream(pki.uriOnly, pki.ca.cert);
    const twoUris = await startUpstream(pki.twoUris, pki.ca.cert);
    try {
      const connect = connectUpstreams({ tls: gatewayTls(pki) });
      const { transport, identity } = await connect(
        httpRecord(uriOnly.port, { spiffeId: PAYMENTS_ID }),
      );
      assert.match(
        identity.observed,
        /^SANs: URI:spiffe:\/\/bank\.example\/payments; chain: issued/,
      );
      const client = mcpClient(transport);
      try {
        await client.connect();
        assert.deepEqual((await client.listTools()).map((t) => t.name), [
          "payments.release",
        ]);
      } finally {
        await client.close();
      }
      const refused = await refusal(
        connect(httpRecord(twoUris.port, { spiffeId: PAYMENTS_ID })),
      );
      assert.match(
        refused.message,
        /URI SANs are spiffe:\/\/bank\.example\/payments, spiffe:\/\/bank\.example\/crm, not exactly/,
      );
      assert.deepEqual(twoUris.seen.clients, []);
    } finally {
      await uriOnly.close();
      await twoUris.close();
    }
  });
});

Deno.test("connectUpstreams() accepts a pinned self-signed certificate and refuses any other, with both hashes", async () => {
  await withPki(async (pki) => {
    const pin = await sha256(der(pki.selfSigned.cert));
    const pinned = await startUpstream(pki.selfSigned, pki.ca.cert);
    const other = await startUpstream(pki.server, pki.ca.cert);
    try {
      const connect = connectUpstreams({ tls: gatewayTls(pki) });
      const { transport, identity } = await connect(
        httpRecord(pinned.port, { certificateSha256: pin }),
      );
      assert.deepEqual(identity, {
        server: "payments-mcp",
        check: "certificate",
        expected: pin,
        observed: pin,
      });
      const client = mcpClient(transport);
      try {
        await client.connect();
        assert.deepEqual((await client.listTools()).map((t) => t.name), [
          "payments.release",
        ]);
      } finally {
        await client.close();
      }
      // A certificate that chains to the trust root and names the service is still not the pin.
      const refused = await refusal(
        connect(httpRecord(other.port, { certificateSha256: pin })),
      );
      assert.deepEqual(refused.evidence, {
        server: "payments-mcp",
        check: "certificate",
        expected: pin,
        observed: await sha256(der(pki.server.cert)),
      });
      assert.deepEqual(other.seen.clients, []);
    } finally {
      await pinned.close();
      await other.close();
    }
  });
});

Deno.test("connectUpstreams() checks every new connection: a server that swaps its certificate mid-session is refused", async () => {
  await withPki(async (pki) => {
    const good = await startUpstream(pki.server, pki.ca.cert);
    const rogue = await startUpstream(pki.rogueServer, pki.ca.cert);
    const relay = await startRelay(good.port);
    const refusals: IdentityRefusedError[] = [];
    try {
      const connect = connectUpstreams({
        tls: gatewayTls(pki),
        onRefused: (e) => refusals.push(e),
      });
      const { transport } = await connect(
        httpRecord(relay.port, { spiffeId: PAYMENTS_ID }),
      );
      const client = mcpClient(transport);
      try {
        await client.connect();
        assert.equal((await client.listTools()).length, 1);
        relay.switchTo(rogue.port);
        const failed = await client.request("tools/list").then(
          () => undefined,
          (e: Error) => e,
        );
        assert.ok(
          failed instanceof Error,
          "the request over a new, unverified connection fails",
        );
        assert.match(failed.message, /refused/);
      } finally {
        await client.close();
      }
      assert.ok(refusals.length >= 1);
      assert.match(
        refusals[0].evidence.observed,
        /not issued by the trust root/,
      );
      assert.deepEqual(
        rogue.seen.methods,
        [],
        "no MCP byte reached the impostor",
      );
    } finally {
      await relay.close();
      await good.close();
      await rogue.close();
    }
  });
});

Deno.test("an upstream refuses a gateway whose certificate is not from the trust root, and one without a certificate", async () => {
  await withPki(async (pki) => {
    const upstream = await startUpstream(pki.server, pki.ca.cert);
    try {
      // The gateway verifies the server (fine), but presents a certificate from another CA.
      const connect = connectUpstreams({
        tls: gatewayTls(pki, pki.rogueGateway),
      });
      const { transport } = await connect(
        httpRecord(upstream.port, { spiffeId: PAYMENTS_ID }),
      );
      const client = mcpClient(transport);
      try {
        // TLS 1.3: the client's handshake is done before the server judges its certificate; the
        // server then drops the connection, and the first request fails.
        await assert.rejects(
          client.connect(),
          /POST https:\/\/127\.0\.0\.1:\d+\/mcp failed/,
        );
      } finally {
        await client.close();
      }
      // No certificate at all.
      const error = await new Promise<Error | undefined>((resolve) => {
        const req = https.request({
          host: "127.0.0.1",
          port: upstream.port,
          path: "/mcp",
          method: "POST",
          ca: pki.ca.cert,
          checkServerIdentity: () => undefined,
        }, (res) => {
          res.resume();
          resolve(undefined);
        });
        req.on("error", resolve);
        req.end("{}");
      });
      assert.ok(
        error instanceof Error,
        "the server refuses a client without a certificate",
      );
      assert.match(error.message, /CertificateRequired|certificate required/i);
      assert.deepEqual(upstream.seen.methods, []);
      assert.deepEqual(upstream.seen.clients, []);
    } finally {
      await upstream.close();
    }
  });
});

Deno.test("connectUpstreams() refuses plain http (nothing to verify) and gives up on a handshake that never comes", async () => {
  await withPki(async (pki) => {
    const connect = connectUpstreams({ tls: gatewayTls(pki), timeoutMs: 300 });
    const record = httpRecord(1, { spiffeId: PAYMENTS_ID });
    const plain = await refusal(connect({
      ...record,
      upstream: {
        kind: "http",
        url: "http://127.0.0.1:1/mcp",
        identity: { spiffeId: PAYMENTS_ID },
      },
    }));
    assert.equal(plain.evidence.observed, "http: (no TLS, no certificate)");
    // A TCP server that accepts and says nothing.
    const sockets = new Set<net.Socket>();
    const silent = net.createServer((s) => sockets.add(s));
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    try {
      const port = (silent.address() as net.AddressInfo).port;
      const started = Date.now();
      await assert.rejects(
        connect(httpRecord(port, { spiffeId: PAYMENTS_ID })),
        (e: Error) =>
          !(e instanceof IdentityRefusedError) &&
          /no TLS handshake within 300 ms/.test(e.message),
      );
      assert.ok(Date.now() - started < 5000);
    } finally {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  });
});

// --- stdio -----------------------------------------------------------------------------------

const DENO = Deno.execPath();

async function fileSha256(path: string): Promise<string> {
  return await sha256(await Deno.readFile(path));
}

/**
 * A record for server-everything run by Deno. The script comes first: under Deno,
 * `node:child_process` runs Deno's own binary with Node's conventions (`deno script.js` becomes
 * `deno run -A … script.js`), and the script pin names the first argument.
 */
function stdioRecord(upstream: Partial<StdioUpstream>): ServerRecord {
  return {
    id: "everything",
    owner: "platform",
    description: "The reference server.",
    upstream: {
      kind: "stdio",
      command: DENO,
      args: [EVERYTHING_SCRIPT, "stdio"],
      sha256: "",
      ...upstream,
    },
    tools: ["echo"],
  };
}

Deno.test("connectUpstreams() starts a stdio upstream whose program and script match their pins, with a scrubbed environment", async () => {
  const canary = "TOOL_ESTATE_GATEWAY_CANARY";
  Deno.env.set(canary, "must-not-leak");
  const home = await Deno.makeTempDir({ prefix: "gateway-identity-home-" });
  try {
    const [program, script] = [
      await fileSha256(DENO),
      await fileSha256(EVERYTHING_SCRIPT),
    ];
    const connect = connectUpstreams({ cwd: ROOT, stderr: "ignore" });
    const { transport, identity } = await connect(stdioRecord({
      // By name, found on the record's PATH (not the gateway's); the script relative to cwd.
      command: "deno",
      args: [
        "node_modules/@modelcontextprotocol/server-everything/dist/index.js",
        "stdio",
      ],
      env: {
        HOME: home,
        PATH: DENO.slice(0, DENO.lastIndexOf("/")),
        RECORD_GIVEN: "yes",
      },
      sha256: program,
      scriptSha256: script,
    }));
    assert.equal(identity.check, "binary");
    assert.equal(identity.expected, `${program}; script ${script}`);
    assert.equal(
      identity.observed,
      `${DENO} ${program}; script ${EVERYTHING_SCRIPT} ${script}`,
    );
    // Started by absolute paths: no second PATH search or cwd lookup.
    const child = (transport as StdioClientTransport).process;
    assert.equal(child.spawnargs[0], DENO);
    assert.deepEqual(child.spawnargs.slice(-2), [EVERYTHING_SCRIPT, "stdio"]);
    const client = mcpClient(transport);
    try {
      await client.connect();
      assert.ok((await client.listTools()).some((t) => t.name === "get-env"));
      const env = JSON.parse(await callText(client, "get-env", {}));
      assert.equal(
        env[canary],
        undefined,
        "nothing of the gateway's environment",
      );
      // Exactly the record's (Deno marks a child it runs with Node's conventions: its own key).
      assert.deepEqual(
        Object.keys(env).filter((k) => k !== "DENO_NODE_SHIM_ACTIVE").sort(),
        ["HOME", "PATH", "RECORD_GIVEN"],
      );
      assert.equal(env.RECORD_GIVEN, "yes");
    } finally {
      await client.close();
    }
  } finally {
    Deno.env.delete(canary);
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("connectUpstreams() gives a stdio upstream the default PATH when its record gives none", async () => {
  const home = await Deno.makeTempDir({ prefix: "gateway-identity-home-" });
  try {
    const connect = connectUpstreams({ cwd: ROOT, stderr: "ignore" });
    const { transport } = await connect(stdioRecord({
      env: { HOME: home },
      sha256: await fileSha256(DENO),
      scriptSha256: await fileSha256(EVERYTHING_SCRIPT),
    }));
    const client = mcpClient(transport);
    try {
      await client.connect();
      const env = JSON.parse(await callText(client, "get-env", {}));
      delete env.DENO_NODE_SHIM_ACTIVE;
      assert.deepEqual(env, {
        HOME: home,
        PATH: "/usr/local/bin:/usr/bin:/bin",
      });
    } finally {
      await client.close();
    }
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("connectUpstreams() refuses a stdio upstream whose program or script differs from its pin, or is missing, with the evidence", async () => {
  const dir = await Deno.makeTempDir({ prefix: "gateway-identity-stdio-" });
  try {
    const program = await fileSha256(DENO);
    const script = await fileSha256(EVERYTHING_SCRIPT);
    const connect = connectUpstreams({ cwd: ROOT, stderr: "ignore" });

    // Another binary under the pinned hash.
    const cat = "/bin/cat";
    const wrongProgram = await refusal(
      connect(stdioRecord({ command: cat, sha256: program })),
    );
    assert.deepEqual(wrongProgram.evidence, {
      server: "everything",
      check: "binary",
      expected: program,
      observed: `${cat} ${await fileSha256(cat)}`,
    });

    // The pinned interpreter running another script.
    const other = `${dir}/other.js`;
    await Deno.writeTextFile(
      other,
      "console.log('not the reference server');\n",
    );
    const wrongScript = await refusal(connect(stdioRecord({
      args: [other, "stdio"],
      sha256: program,
      scriptSha256: script,
    })));
    assert.deepEqual(wrongScript.evidence, {
      server: "everything",
      check: "binary",
      expected: script,
      observed: `${other} ${await fileSha256(other)}`,
    });

    // A name not on the record's PATH, though it is on the gateway's.
    const notFound = await refusal(connect(stdioRecord({
      command: "deno",
      env: { PATH: dir },
      sha256: program,
    })));
    assert.equal(notFound.evidence.observed, "deno: not found");

    // A missing script; and `deno run -A script`, whose first argument is `run`.
    const missing = await refusal(connect(stdioRecord({
      args: [`${dir}/gone.js`],
      sha256: program,
      scriptSha256: script,
    })));
    assert.match(missing.evidence.observed, /gone\.js: unreadable \(ENOENT\)/);
    const run = await refusal(connect(stdioRecord({
      args: ["run", "-A", EVERYTHING_SCRIPT],
      sha256: program,
      scriptSha256: script,
    })));
    assert.match(run.evidence.observed, /\/run: unreadable/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
