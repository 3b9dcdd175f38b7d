/**
 * Verified connections to upstream MCP servers: {@linkcode connectUpstreams} makes the gateway's
 * {@linkcode UpstreamConnector} from its TLS material. Before any MCP message is exchanged, an
 * HTTP upstream proves its workload identity over mutual TLS (a URI SAN under the estate's trust
 * root, or its pinned certificate), and a stdio upstream's program (and script) must hash to the
 * record's pins. A runtime edge: `node:tls`, `node:https`, `node:fs`, `node:child_process`.
 *
 * @module
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import process from "node:process";
import type { HttpUpstream, ServerRecord, StdioUpstream } from "../estate/server_record.ts";
import { StdioClientTransport } from "../mcp/transports/stdio.ts";
import {
  type StreamableHttpClientOptions,
  StreamableHttpClientTransport,
} from "../mcp/transports/http_client.ts";
import {
  type IdentityEvidence,
  IdentityRefusedError,
  type UpstreamConnector,
  type VerifiedTransport,
} from "./upstream.ts";
import { DEFAULT_PATH, resolveCommand, sha256File } from "./_identity_program.ts";
import { openVerified, type PeerTarget, verifiedFetch } from "./_identity_tls.ts";

/** The gateway's TLS material, PEM strings. */
export interface GatewayTls {
  /** The gateway's private key. */
  key: string;
  /** The gateway's client certificate, presented to every HTTP upstream (mutual TLS). */
  cert: string;
  /** The estate's trust root: the CA certificate(s) that issue upstreams' SPIFFE certificates. */
  ca: string;
}

/** What a stdio upstream's stderr (its log) goes to: inherited, dropped, or given to a function. */
export type UpstreamStderr =
  | "inherit"
  | "ignore"
  | ((text: string, server: string) => void);

/** Options for {@linkcode connectUpstreams}. */
export interface ConnectUpstreamsOptions {
  /** The gateway's client certificate and key, and the estate's trust root. Needed for HTTP upstreams. */
  tls?: GatewayTls;
  /**
   * How long a TCP connection and its TLS handshake to an HTTP upstream may take, each time.
   * Default 10 000 ms. (MCP requests, the handshake's included, are timed by the client above.)
   */
  timeoutMs?: number;
  /**
   * The folder stdio upstreams run in; relative commands, `PATH` entries and script arguments are
   * taken against it. Default this process's working directory.
   */
  cwd?: string;
  /** What to do with a stdio upstream's stderr. Default `inherit`. */
  stderr?: UpstreamStderr;
  /** Options for the Streamable HTTP transports (their `fetch` is the verifying one). */
  http?: Omit<StreamableHttpClientOptions, "fetch">;
  /**
   * The largest answer taken from an upstream, in bytes: past it the answer is not read on (a
   * stdio upstream is stopped, an HTTP answer dropped) and the call is answered with an error
   * saying so. Default 16 MiB (`DEFAULT_MAX_MESSAGE_BYTES`).
   */
  maxMessageBytes?: number;
  /**
   * Told when an HTTP upstream that was verified presents a certificate that fails on a later
   * connection (the request fails too, with this error as its cause).
   */
  onRefused?: (error: IdentityRefusedError) => void;
}

const DEFAULT_TIMEOUT_MS = 10_000;

/** A Streamable HTTP transport that drops its verified connections when it closes. */
class VerifiedHttpTransport extends StreamableHttpClientTransport {
  readonly #destroy: () => void;

  constructor(
    url: string,
    options: StreamableHttpClientOptions,
    destroy: () => void,
  ) {
    super(url, options);
    this.#destroy = destroy;
  }

  override async close(): Promise<void> {
    try {
      await super.close();
    } finally {
      this.#destroy();
    }
  }
}

async function connectHttp(
  record: ServerRecord,
  upstream: HttpUpstream,
  options: ConnectUpstreamsOptions,
): Promise<VerifiedTransport> {
  const spiffe = "spiffeId" in upstream.identity;
  const expected = "spiffeId" in upstream.identity
    ? upstream.identity.spiffeId
    : upstream.identity.certificateSha256;
  const url = new URL(upstream.url);
  if (url.protocol !== "https:") {
    const evidence: IdentityEvidence = {
      server: record.id,
      check: spiffe ? "spiffe" : "certificate",
      expected,
      observed: `${url.protocol} (no TLS, no certificate)`,
    };
    throw new IdentityRefusedError(
      evidence,
      `Upstream ${record.id} at ${upstream.url} refused: only https can prove its identity`,
    );
  }
  if (!options.tls) {
    throw new Error(
      `Cannot connect to upstream ${record.id} at ${upstream.url}: the gateway has no TLS material (connectUpstreams({ tls }))`,
    );
  }
  const target: PeerTarget = {
    server: record.id,
    host: url.hostname.replace(/^\[(.*)\]$/, "$1"),
    port: Number(url.port || 443),
    identity: upstream.identity,
    tls: options.tls,
    timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
  };
  // The first connection proves the identity before a transport exists; it carries nothing.
  const { socket, evidence } = await openVerified(target);
  socket.destroy();
  const verified = verifiedFetch(target, (e) => options.onRefused?.(e));
  const transport = new VerifiedHttpTransport(
    upstream.url,
    {
      ...options.http,
      fetch: verified.fetch,
      ...(options.maxMessageBytes === undefined
        ? {}
        : { maxMessageBytes: options.maxMessageBytes }),
    },
    verified.destroy,
  );
  return { transport, identity: evidence };
}

/** The file of a program or script and its hash; a refusal when it is missing or differs. */
async function checkFile(
  server: string,
  what: "program" | "script",
  file: string | undefined,
  expected: string,
  named: string,
): Promise<{ file: string; sha256: string }> {
  const refuse = (observed: string, why: string): IdentityRefusedError =>
    new IdentityRefusedError(
      { server, check: "binary", expected, observed },
      `Upstream ${server} refused: its ${what} ${JSON.stringify(named)} ${why}`,
    );
  if (file === undefined) throw refuse(`${named}: not found`, "was not found");
  let sha256: string;
  try {
    sha256 = await sha256File(file);
  } catch (e) {
    const code = (e as { code?: string }).code ?? (e as Error).message;
    throw refuse(
      `${file}: unreadable (${code})`,
      `cannot be read at ${file} (${code})`,
    );
  }
  if (sha256 !== expected.toLowerCase()) {
    throw refuse(
      `${file} ${sha256}`,
      `at ${file} has SHA-256 ${sha256}, not the pinned ${expected}`,
    );
  }
  return { file, sha256 };
}

async function connectStdio(
  record: ServerRecord,
  upstream: StdioUpstream,
  options: ConnectUpstreamsOptions,
): Promise<VerifiedTransport> {
  const cwd = path.resolve(options.cwd ?? process.cwd());
  const env: Record<string, string> = { ...upstream.env };
  env.PATH ??= DEFAULT_PATH;
  const program = await checkFile(
    record.id,
    "program",
    await resolveCommand(upstream.command, env.PATH, cwd),
    upstream.sha256,
    upstream.command,
  );
  const args = [...upstream.args ?? []];
  let expected = upstream.sha256;
  let observed = `${program.file} ${program.sha256}`;
  if (upstream.scriptSha256 !== undefined) {
    if (args.length === 0) {
      throw new IdentityRefusedError(
        {
          server: record.id,
          check: "binary",
          expected: upstream.scriptSha256,
          observed: "no arguments: no script",
        },
        `Upstream ${record.id} refused: a script is pinned but it has no arguments`,
      );
    }
    const script = await checkFile(
      record.id,
      "script",
      path.resolve(cwd, args[0]),
      upstream.scriptSha256,
      args[0],
    );
    args[0] = script.file;
    expected += `; script ${upstream.scriptSha256}`;
    observed += `; script ${script.file} ${script.sha256}`;
  }
  await fs.access(cwd); // a missing working folder fails here, not in the spawned process
  const stderr = options.stderr ?? "inherit";
  const transport = new StdioClientTransport({
    command: program.file,
    args,
    env,
    cwd,
    stderr: typeof stderr === "function" ? "pipe" : stderr,
    ...(options.maxMessageBytes === undefined ? {} : { maxMessageBytes: options.maxMessageBytes }),
  });
  // A process that cannot start (its stdout then ends, which closes the transport): reported,
  // not thrown (an unhandled "error" event would end the gateway).
  transport.process.on("error", (e: Error) => {
    if (typeof stderr === "function") {
      stderr(`cannot start ${program.file}: ${e.message}\n`, record.id);
    }
  });
  if (typeof stderr === "function") {
    transport.process.stderr?.setEncoding("utf8");
    transport.process.stderr?.on(
      "data",
      (text: string) => stderr(text, record.id),
    );
  }
  return {
    transport,
    identity: { server: record.id, check: "binary", expected, observed },
  };
}

/**
 * Makes the gateway's {@linkcode UpstreamConnector}: given a server record, it proves the server is
 * the one recorded and only then returns a transport to it.
 *
 * **HTTP upstreams** (`https:` only: plain `http:` proves nothing and is refused). A TLS connection
 * to the URL's host presents the gateway's client certificate (`tls.cert`, `tls.key`), and the
 * server's certificate is checked before any byte of MCP is sent:
 * - `{spiffeId}`: the certificate must chain to `tls.ca` (the estate's trust root) and carry
 *   exactly one URI SAN, equal to the record's (an X.509-SVID has exactly one: a certificate naming
 *   two services could impersonate either).
 * - `{certificateSha256}`: the SHA-256 of its DER encoding must equal the pin; chain, names and
 *   validity dates are not consulted, so a self-signed certificate is fine (rotating it means
 *   publishing a new pin).
 *
 * Either way the host name plays no part (the identity is the SAN or the pin, not DNS). The
 * Streamable HTTP transport's requests then run over a `fetch` built on `node:https` whose agent
 * opens and checks every new connection the same way before handing it over, so a server that
 * changes its certificate after the first check is refused on its next connection (the request
 * fails with the {@linkcode IdentityRefusedError} as its cause, and `onRefused` is told).
 *
 * **stdio upstreams** (POSIX). The command is resolved as the OS would (a path, or the first executable of
 * that name on the record's `PATH`, else on `/usr/local/bin:/usr/bin:/bin` — never the gateway's
 * own `PATH`) and its file's SHA-256 must equal `sha256`. With `scriptSha256`, the first argument
 * names the script (taken against `cwd`), whose SHA-256 must equal the pin: `node server.js …`.
 * (Under Deno, `node:child_process` runs Deno's own binary with Node's argument conventions —
 * `deno server.js` becomes `deno run -A … server.js` — so a script run by Deno is named first too;
 * `deno run -A server.js` would pin a file called `run`, which is refused.) The process gets
 * exactly the record's `env` — nothing of the gateway's environment — plus `PATH` (the default
 * above) when the record gives none. A program or script that is missing or unreadable is refused
 * like one that differs.
 *
 * Hashing and starting are two steps (a time-of-check to time-of-use gap): the process is started
 * from the resolved absolute path, and the script from its absolute path, so no second `PATH`
 * search or working-folder lookup can pick another file; a file replaced in between still runs.
 * Keep pinned programs where only their owner can write.
 *
 * @param options The TLS material, the connection timeout, stdio's folder and stderr.
 * @returns The connector.
 *
 * @example
 * ```ts
 * import { connectUpstreams, IdentityRefusedError } from "@tool-estate/core/gateway";
 * import assert from "node:assert/strict";
 * const connect = connectUpstreams({ timeoutMs: 2000 });
 * const refused = await connect({
 *   id: "plain", owner: "ops", description: "Plain HTTP proves nothing.", tools: ["ops.ping"],
 *   upstream: { kind: "http", url: "http://127.0.0.1:1/mcp", identity: { spiffeId: "spiffe://bank.example/ops" } },
 * }).catch((e) => e);
 * assert.ok(refused instanceof IdentityRefusedError);
 * assert.equal(refused.evidence.observed, "http: (no TLS, no certificate)");
 * ```
 */
export function connectUpstreams(
  options: ConnectUpstreamsOptions = {},
): UpstreamConnector {
  return (record: ServerRecord): Promise<VerifiedTransport> =>
    record.upstream.kind === "http"
      ? connectHttp(record, record.upstream, options)
      : connectStdio(record, record.upstream, options);
}
