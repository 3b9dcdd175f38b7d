/**
 * Shared by the gateway's end-to-end tests (tests/gateway_serve_test.ts): an official-SDK (v1)
 * `McpServer` behind `node:https` with mutual TLS and sessions (so that it can send
 * `list_changed` on its GET stream), counting every request that reaches it; the estate's CLI run
 * in-process; `estate serve --http` with the gateway's TLS flags, its log (stderr) kept and
 * waited on; and raw Streamable HTTP requests whose response bodies are compared byte for byte.
 */
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import fs from "node:fs";
import https from "node:https";
import type net from "node:net";
import type { TLSSocket } from "node:tls";
import type { IncomingMessage, ServerResponse } from "node:http";
// The SDK's "./*" export maps types to `*.js.d.ts`, which do not exist: hence @ts-types.
// @ts-types="@modelcontextprotocol/sdk/server/mcp"
import { McpServer as SdkMcpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
// @ts-types="@modelcontextprotocol/sdk/server/streamableHttp"
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { runCli } from "../lib/cli/main.ts";
import { DEMO_TOKENS } from "../lib/cli/demo_tokens.ts";
import type { DriftRecord } from "../mod.ts";
import type { Pem } from "./_pki.ts";
import { ROOT, type ServeProcess, spawnServe } from "./_serve.ts";

/** SHA-256, hex, computed here with WebCrypto (not with the code under test). */
export async function sha256Hex(bytes: Uint8Array): Promise<string> {
  const digest = await crypto.subtle.digest(
    "SHA-256",
    bytes as Uint8Array<ArrayBuffer>,
  );
  return Array.from(
    new Uint8Array(digest),
    (b) => b.toString(16).padStart(2, "0"),
  ).join("");
}

/** What reached an SDK upstream's MCP handler. */
export interface UpstreamSeen {
  /** TLS connections completed (both sides' certificates accepted). */
  connections: number;
  /** The client certificate SANs of the HTTP requests that reached the MCP handler. */
  clients: string[];
  /** The JSON-RPC methods of the POSTs that reached it, in order. */
  methods: string[];
  /** The `tools/call` requests that reached it: name and arguments. */
  calls: { name: string; arguments: unknown }[];
  /** Every `Authorization` header that reached it (a caller's token must never be one). */
  authorizations: string[];
}

/** A running SDK upstream. */
export interface SdkUpstream {
  /** Its port on 127.0.0.1. */
  port: number;
  /** Its MCP endpoint, `https://127.0.0.1:<port>/mcp`. */
  url: string;
  /** What reached it. */
  seen: UpstreamSeen;
  /** Closes every connection and the listener. */
  close(): Promise<void>;
}

/**
 * Starts an official-SDK `McpServer` (v1) over HTTPS that requires a client certificate chaining
 * to `ca`: one `McpServer` per session (`tools` registers its tools), sessions kept, so that a
 * tool changed later (`RegisteredTool.update`) sends `notifications/tools/list_changed` to the
 * session's GET stream.
 *
 * @param options The server's certificate and key, the CA its clients must chain to, its name, and
 *   what each session's server registers.
 * @returns The running upstream.
 */
export async function startSdkUpstream(options: {
  pem: Pem;
  ca: string;
  name: string;
  tools: (mcp: SdkMcpServer) => void;
}): Promise<SdkUpstream> {
  const seen: UpstreamSeen = {
    connections: 0,
    clients: [],
    methods: [],
    calls: [],
    authorizations: [],
  };
  const sockets = new Set<net.Socket>();
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const servers = new Set<SdkMcpServer>();
  const handle = async (
    req: IncomingMessage,
    res: ServerResponse,
  ): Promise<void> => {
    seen.clients.push(
      (req.socket as TLSSocket).getPeerCertificate().subjectaltname ?? "",
    );
    if (req.headers.authorization !== undefined) {
      seen.authorizations.push(req.headers.authorization);
    }
    let body: unknown;
    if (req.method === "POST") {
      const chunks: Uint8Array[] = [];
      for await (const chunk of req) chunks.push(chunk as Uint8Array);
      body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
      for (const m of Array.isArray(body) ? body : [body]) {
        if (typeof m?.method !== "string") continue;
        seen.methods.push(m.method);
        if (m.method === "tools/call") {
          seen.calls.push({
            name: m.params?.name,
            arguments: m.params?.arguments,
          });
        }
      }
    }
    const id = req.headers["mcp-session-id"];
    let transport = typeof id === "string" ? sessions.get(id) : undefined;
    if (!transport) {
      if (
        typeof id === "string" ||
        (body as { method?: string })?.method !== "initialize"
      ) {
        res.writeHead(404, { "content-type": "application/json" }).end(
          JSON.stringify({
            jsonrpc: "2.0",
            id: null,
            error: { code: -32000, message: "Bad Request: no such session" },
          }),
        );
        return;
      }
      const mcp = new SdkMcpServer({ name: options.name, version: "1.0.0" });
      options.tools(mcp);
      servers.add(mcp);
      const created: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => crypto.randomUUID(),
        onsessioninitialized: (sid) => void sessions.set(sid, created),
      });
      created.onclose = () => {
        if (created.sessionId) sessions.delete(created.sessionId);
        servers.delete(mcp);
      };
      await mcp.connect(created);
      transport = created;
    }
    await transport.handleRequest(req, res, body);
  };
  const server = https.createServer({
    key: options.pem.key,
    cert: options.pem.cert,
    ca: options.ca,
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
  const port = (server.address() as net.AddressInfo).port;
  return {
    port,
    url: `https://127.0.0.1:${port}/mcp`,
    seen,
    close: async () => {
      for (const mcp of servers) await mcp.close().catch(() => {});
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * An SDK `McpServer` that does not hold its results to its own `outputSchema`, as a server written
 * without the SDK's check (or an older SDK) would not: the gateway is what checks them.
 */
export function withoutOwnOutputCheck(mcp: SdkMcpServer): SdkMcpServer {
  Object.defineProperty(mcp, "validateToolOutput", {
    value: () => Promise.resolve(),
  });
  return mcp;
}

/** Runs the estate CLI in-process on an estate folder (as `estate ARGS --estate DIR`). */
export async function estateCli(
  dir: string,
  args: string[],
): Promise<{ code: number; out: string; err: string }> {
  let out = "", err = "";
  const code = await runCli([...args, "--estate", dir], {
    stdout: (t) => (out += t),
    stderr: (t) => (err += t),
    isTerminal: false,
    cwd: ROOT,
  });
  return { code, out, err };
}

/** Writes a JSON file (a server record, a tool file) and returns its path. */
export function writeJson(dir: string, name: string, value: unknown): string {
  const file = `${dir}/${name}`;
  fs.writeFileSync(file, JSON.stringify(value, null, 2) + "\n");
  return file;
}

/** The drift records of an estate, as `drift.jsonl` holds them (read here, not by the store). */
export function driftRecords(dir: string): DriftRecord[] {
  const file = `${dir}/drift.jsonl`;
  if (!fs.existsSync(file)) return [];
  return fs.readFileSync(file, "utf8").split("\n").filter((l) => l.trim() !== "").map((l) =>
    JSON.parse(l) as DriftRecord
  );
}

/**
 * Waits until the estate's drift log has a record `match` accepts (the gateway logs a line to
 * stderr, then appends the record: a reader that saw the line may be early).
 *
 * @returns The record.
 * @throws {Error} With the records, when none appears within `timeoutMs`.
 */
export async function waitForDrift(
  dir: string,
  match: (r: DriftRecord) => boolean,
  timeoutMs = 10_000,
): Promise<DriftRecord> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const records = driftRecords(dir);
    const found = records.find(match);
    if (found) return found;
    if (Date.now() > until) {
      throw new Error(
        `no such drift record within ${timeoutMs} ms: ${JSON.stringify(records)}`,
      );
    }
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** A running `estate serve --http` with its log. */
export interface GatewayServe {
  /** The MCP endpoint. */
  url: URL;
  /** Everything it wrote to stderr so far. */
  log(): string;
  /**
   * Waits until the log has a line matching `pattern` (after `from` characters of it).
   *
   * @returns The matching line.
   * @throws {Error} With the log, when none appears within `timeoutMs`.
   */
  waitFor(
    pattern: RegExp,
    options?: { from?: number; timeoutMs?: number },
  ): Promise<string>;
  /** Ends the process and waits for it. */
  stop(): Promise<void>;
  /** Kills the process with SIGKILL (nothing it holds is closed) and waits for it. */
  kill(): Promise<void>;
}

/**
 * Starts `estate serve --http 127.0.0.1:0` on an estate folder with more arguments (the gateway's
 * TLS flags), keeping its log.
 *
 * @throws {Error} With what it printed, when no URL appears.
 */
export function startGatewayServe(
  dir: string,
  extra: string[],
): Promise<GatewayServe> {
  return startServeProcess(["--estate", dir, ...extra]);
}

/**
 * Starts `estate serve --http 127.0.0.1:0` with these arguments (where the estate is, and more),
 * keeping its log.
 *
 * @throws {Error} With what it printed, when no URL appears.
 */
export async function startServeProcess(args: string[]): Promise<GatewayServe> {
  let log = "";
  const waiters = new Set<() => void>();
  let served: ServeProcess;
  try {
    served = await spawnServe(
      ["run", "-A", `${ROOT}cli.ts`, "serve", "--http", "127.0.0.1:0", ...args],
      (text) => {
        log += text;
        for (const w of waiters) w();
      },
    );
  } catch (e) {
    throw new Error(`${(e as Error).message}\n${log}`);
  }
  const { url, stop, kill } = served;
  const find = (pattern: RegExp, from: number): string | undefined =>
    log.slice(from).split("\n").find((line) => pattern.test(line));
  return {
    url,
    log: () => log,
    waitFor: (pattern, options = {}) => {
      const from = options.from ?? 0;
      const timeoutMs = options.timeoutMs ?? 20_000;
      const now = find(pattern, from);
      if (now !== undefined) return Promise.resolve(now);
      return new Promise((resolve, reject) => {
        const check = () => {
          const line = find(pattern, from);
          if (line === undefined) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve(line);
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(
            new Error(
              `no log line matching ${pattern} within ${timeoutMs} ms; log:\n${log}`,
            ),
          );
        }, timeoutMs);
        waiters.add(check);
      });
    },
    stop,
    kill,
  };
}

/** A principal of the example estate, by its demo token. */
export type DemoPrincipal =
  | "retail-agent"
  | "wholesale-operator"
  | "group-risk-analyst";

/** The `Authorization` header of a principal of the example estate. */
export function bearer(principal: DemoPrincipal): string {
  return `Bearer ${DEMO_TOKENS[principal]}`;
}

/** A raw HTTP answer: what a byte-level comparison looks at. */
export interface RawAnswer {
  status: number;
  contentType: string | null;
  body: string;
}

const MODERN = "2026-07-28";

/**
 * One stateless (2026-07-28) request to `estate serve`, as a principal, with a fixed JSON-RPC id;
 * the raw answer.
 */
export async function modernRequest(
  url: URL,
  principal: DemoPrincipal,
  method: string,
  params: Record<string, unknown> = {},
): Promise<RawAnswer> {
  const headers: Record<string, string> = {
    authorization: bearer(principal),
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": MODERN,
    "mcp-method": method,
  };
  if (typeof params.name === "string") headers["mcp-name"] = params.name;
  const res = await fetch(url, {
    method: "POST",
    headers,
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 7,
      method,
      params: {
        ...params,
        _meta: {
          "io.modelcontextprotocol/protocolVersion": MODERN,
          "io.modelcontextprotocol/clientCapabilities": {},
        },
      },
    }),
  });
  return {
    status: res.status,
    contentType: res.headers.get("content-type"),
    body: await res.text(),
  };
}

/** A handshake-era (2025-11-25) session with `estate serve`, raw. */
export interface RawSession {
  /** One request with a fixed JSON-RPC id; the raw answer (the id is the same for every request). */
  request(method: string, params?: Record<string, unknown>): Promise<RawAnswer>;
  /** Ends the session. */
  close(): Promise<void>;
}

/** Opens a handshake-era session as a principal (`initialize`, `notifications/initialized`). */
export async function legacySession(
  url: URL,
  principal: DemoPrincipal,
): Promise<RawSession> {
  const base = {
    authorization: bearer(principal),
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
  };
  const init = await fetch(url, {
    method: "POST",
    headers: base,
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: {
        protocolVersion: "2025-11-25",
        capabilities: {},
        clientInfo: { name: "gateway-serve-test", version: "0.1.0" },
      },
    }),
  });
  await init.body?.cancel();
  assert.equal(init.status, 200);
  const session = init.headers.get("mcp-session-id");
  assert.ok(session, "initialize gave a session id");
  const headers = {
    ...base,
    "mcp-session-id": session,
    "mcp-protocol-version": "2025-11-25",
  };
  const ack = await fetch(url, {
    method: "POST",
    headers,
    body: JSON.stringify({
      jsonrpc: "2.0",
      method: "notifications/initialized",
    }),
  });
  await ack.body?.cancel();
  return {
    request: async (method, params = {}) => {
      const res = await fetch(url, {
        method: "POST",
        headers,
        body: JSON.stringify({ jsonrpc: "2.0", id: 7, method, params }),
      });
      return {
        status: res.status,
        contentType: res.headers.get("content-type"),
        body: await res.text(),
      };
    },
    close: async () => {
      const res = await fetch(url, { method: "DELETE", headers });
      await res.body?.cancel();
    },
  };
}
