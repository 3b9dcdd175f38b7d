/**
 * The stdio transport: one JSON-RPC message per line. Server side: read requests from an input
 * stream, write responses and notifications to an output stream — nothing else goes to stdout;
 * logs go to stderr. Client side: spawn a server command and speak to its stdin and stdout.
 * A runtime edge: it uses `node:child_process` and Node streams (Deno and Node provide both).
 *
 * @module
 */
import { maxMessageBytes, MessageTooLargeError } from "./message_limit.ts";
import { spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import type { Readable, Writable } from "node:stream";
import { ERROR_CODES } from "../../jsonrpc/errors.ts";
import type { JsonRpcMessage } from "../../jsonrpc/types.ts";
import type { Principal } from "../../estate/spec.ts";
import { ServerConnection } from "../_connection.ts";
import type { McpServer, Session } from "../server.ts";
import type { Transport } from "../transport.ts";

/** Options for {@linkcode handleLine}. */
export interface HandleLineOptions {
  /** The server. */
  server: McpServer;
  /** The connection's session. */
  session: Session;
  /** One line, without its newline. */
  line: string;
}

/** The answer to a line that is not JSON. */
function parseError(e: unknown): string {
  return JSON.stringify({
    jsonrpc: "2.0",
    id: null,
    error: {
      code: ERROR_CODES.PARSE_ERROR,
      message: `Parse error: ${(e as Error).message}`,
    },
  });
}

/**
 * Handles one line of a stdio stream in a session: a parse error for text that is not JSON,
 * nothing for a blank line, otherwise whatever the server answers (nothing for a notification).
 *
 * @param options The server, the session, the line.
 * @returns The line to write back (no newline), or undefined.
 */
export function handleLine(
  options: HandleLineOptions,
): Promise<string | undefined>;
/**
 * Handles one line of a stdio stream in a session.
 *
 * @param server The server.
 * @param session The connection's session.
 * @param line One line, without its newline.
 * @returns The line to write back (no newline), or undefined.
 * @deprecated Pass one options object: `handleLine({ server, session, line })`.
 */
export function handleLine(
  server: McpServer,
  session: Session,
  line: string,
): Promise<string | undefined>;
export async function handleLine(
  first: McpServer | HandleLineOptions,
  session?: Session,
  line?: string,
): Promise<string | undefined> {
  const o: HandleLineOptions = "line" in first && "session" in first
    ? first
    : { server: first as McpServer, session: session!, line: line! };
  if (o.line.trim() === "") return undefined;
  let value: unknown;
  try {
    value = JSON.parse(o.line);
  } catch (e) {
    return parseError(e);
  }
  const response = await o.server.handle(value, o.session);
  return response === undefined ? undefined : JSON.stringify(response);
}

/** One stdio line, either era (see `ServerConnection`). */
async function handleStdioLine(
  connection: ServerConnection,
  line: string,
): Promise<string | undefined> {
  if (line.trim() === "") return undefined;
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (e) {
    return parseError(e);
  }
  const response = await connection.receive(value);
  return response === undefined ? undefined : JSON.stringify(response);
}

/**
 * Splits a byte stream into UTF-8 lines, whatever the chunk boundaries; a line that grows past
 * `maxChars` is not kept: `tooLong` is called and nothing more is read.
 */
function onLines(
  stream: Readable,
  line: (text: string) => void,
  end: () => void,
  limit?: { maxChars: number; tooLong: () => void },
): void {
  const decoder = new TextDecoder();
  let buffer = "";
  let over = false;
  stream.on("data", (chunk: Uint8Array | string) => {
    if (over) return;
    buffer += typeof chunk === "string" ? chunk : decoder.decode(chunk, { stream: true });
    let nl: number;
    while ((nl = buffer.indexOf("\n")) !== -1) {
      const text = buffer.slice(0, nl).replace(/\r$/, "");
      buffer = buffer.slice(nl + 1);
      if (limit && text.length > limit.maxChars) break;
      line(text);
    }
    if (limit && (buffer.length > limit.maxChars || nl !== -1)) {
      over = true;
      buffer = "";
      limit.tooLong();
    }
  });
  stream.on("end", () => {
    buffer += decoder.decode();
    if (buffer !== "") line(buffer);
    buffer = "";
    end();
  });
  stream.on("error", end);
}

/** Options for {@linkcode serveStdio}. */
export interface ServeStdioOptions {
  /** Who is connected: stdio carries no credential, so the operator says. */
  principal: Principal;
  /** Where requests come from, e.g. `process.stdin` (required: the core picks no stream itself). */
  input: Readable;
  /** Where responses go, e.g. `process.stdout` (required, as `input`). */
  output: Writable;
  /**
   * Stops serving when aborted, as when the input ends: no more lines are read, listen streams
   * end, pending responses are written, the session closes. (Closing the input is the caller's.)
   */
  signal?: AbortSignal;
}

/**
 * Serves one client over a pair of streams until the input ends (or `signal` aborts). Both eras
 * are served as the session's principal, which follows `McpServer.updatePrincipal`.
 *
 * @param server The server.
 * @param options The principal, the streams, the stop signal.
 * @returns Resolves when the input has ended (or the signal aborted) and every pending response
 *   was written.
 */
export function serveStdio(
  server: McpServer,
  options: ServeStdioOptions,
): Promise<void> {
  const { input, output } = options;
  const write = (text: string): void => {
    if (!output.writableEnded) output.write(text + "\n");
  };
  const connection = new ServerConnection(server, {
    principal: options.principal,
    send: (m) => write(JSON.stringify(m)),
    stateless: true,
  });
  const pending = new Set<Promise<void>>();
  return new Promise((resolve) => {
    let stopped = false;
    const stop = () => {
      if (stopped) return;
      stopped = true;
      connection.endListens();
      Promise.all(pending).then(() => {
        connection.close();
        resolve();
      });
    };
    options.signal?.addEventListener("abort", stop, { once: true });
    if (options.signal?.aborted) stop();
    onLines(input, (line) => {
      if (stopped) return;
      const p = handleStdioLine(connection, line).then((out) => {
        if (out !== undefined) write(out);
      }, () => {
        // receive() answers every failure itself; nothing reaches here but a bug.
      }).finally(() => pending.delete(p));
      pending.add(p);
    }, stop); // stdin closed
  });
}

/** Options for {@linkcode StdioClientTransport}. */
export interface StdioClientOptions {
  /** The server program. */
  command: string;
  /** Its arguments. */
  args?: string[];
  /** Its environment: pass a scrubbed one for servers you do not trust. Default: this process's. */
  env?: Record<string, string>;
  /** Its working directory. */
  cwd?: string;
  /** What to do with its stderr (its logs). Default `inherit`. */
  stderr?: "inherit" | "ignore" | "pipe";
  /**
   * The largest message taken from the server, in bytes (of UTF-16 text, as read): a longer line
   * is not read on; the server is stopped and the waiting requests fail with
   * `MessageTooLargeError`. Default 16 MiB.
   */
  maxMessageBytes?: number;
}

/**
 * The client side of stdio: spawns the server and exchanges lines with it. `close()` ends its
 * stdin, then terminates it if it does not exit. A plain transport: ids, waiting, timeouts,
 * progress and cancellation (`notifications/cancelled`) belong to the peer above it
 * (`JsonRpcPeer`, under `McpClient`).
 */
export class StdioClientTransport implements Transport {
  /** Called with each message from the server. */
  onmessage?: (message: unknown) => void;
  /** Called once when the server's stdout closes (with the reason when the transport closed it). */
  onclose?: (reason?: Error) => void;
  /** Lines from the server's stdout that were not JSON (a misbehaving server). */
  readonly strayLines: string[] = [];
  readonly #child: ChildProcess;
  #closed = false;
  #exited: Promise<void>;

  /**
   * Spawns the server.
   *
   * @param options The command, arguments, environment and stderr handling.
   */
  constructor(options: StdioClientOptions) {
    const cap = maxMessageBytes(options.maxMessageBytes, "StdioClientTransport");
    this.#child = spawn(options.command, options.args ?? [], {
      cwd: options.cwd,
      env: options.env,
      stdio: ["pipe", "pipe", options.stderr ?? "inherit"],
    });
    this.#exited = new Promise((resolve) => this.#child.once("close", () => resolve()));
    this.#child.stdin!.on("error", () => {});
    onLines(
      this.#child.stdout!,
      (line) => {
        if (line.trim() === "") return;
        let value: unknown;
        try {
          value = JSON.parse(line);
        } catch {
          this.strayLines.push(line);
          return;
        }
        this.onmessage?.(value);
      },
      () => this.#end(),
      {
        maxChars: cap,
        tooLong: () => {
          // Cut off: a server that sends more than the cap gets no further hearing.
          this.#child.kill("SIGKILL");
          this.#end(new MessageTooLargeError(cap, `the server ${options.command}`));
        },
      },
    );
  }

  /** The spawned process (for its pid and stderr). */
  get process(): ChildProcess {
    return this.#child;
  }

  /**
   * Writes one message as a line to the server's stdin.
   *
   * @param message The message.
   */
  send(message: JsonRpcMessage): Promise<void> {
    if (this.#closed) {
      return Promise.reject(new Error("the server process has closed"));
    }
    return new Promise((resolve, reject) => {
      this.#child.stdin!.write(
        JSON.stringify(message) + "\n",
        (e) => e ? reject(e) : resolve(),
      );
    });
  }

  /** Ends the server's stdin, then SIGTERM after 2 s and SIGKILL after 4 s if it has not exited. */
  async close(): Promise<void> {
    if (!this.#child.stdin!.writableEnded) this.#child.stdin!.end();
    const term = setTimeout(() => this.#child.kill("SIGTERM"), 2000);
    const kill = setTimeout(() => this.#child.kill("SIGKILL"), 4000);
    await this.#exited;
    clearTimeout(term);
    clearTimeout(kill);
    this.#end();
  }

  #end(reason?: Error): void {
    if (this.#closed) return;
    this.#closed = true;
    this.onclose?.(reason);
  }
}
