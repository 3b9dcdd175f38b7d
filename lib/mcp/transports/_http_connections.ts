/**
 * Connection limits for the HTTP transport, below HTTP: how many connections are held at once
 * (in all, and from one address), and how long a connection may take to deliver a request's
 * headers — `node:http`'s own `headersTimeout` is not enforced under Deno, and its socket timeout
 * restarts with every byte, so a client sending a byte at a time would hold a connection for as
 * long as it likes.
 *
 * @module
 */
import { statusLine } from "./_http_status.ts";
import type { Socket } from "node:net";

/** The limits a {@linkcode ConnectionGuard} enforces. */
export interface ConnectionLimits {
  /** How long a connection may take to deliver a request's complete headers, in ms (0: no limit). */
  headersTimeoutMs: number;
  /** The most connections held at once. */
  maxConnections: number;
  /** The most connections held at once from one remote address. */
  maxConnectionsPerAddress: number;
}

/** A connection's state: requests under way on it, and the headers deadline while none is. */
interface Held {
  active: number;
  /** True until its first request's headers arrived. */
  fresh: boolean;
  deadline: ReturnType<typeof setTimeout> | undefined;
}

/**
 * Writes a complete HTTP answer on a bare socket (before or instead of any request) and closes
 * it; a peer that does not read it is cut off after a second.
 */
function answerAndClose(socket: Socket, status: string, message: string): void {
  const body = JSON.stringify({
    jsonrpc: "2.0",
    id: null,
    error: { code: -32600, message },
  });
  const text = `HTTP/1.1 ${status}\r\nconnection: close\r\ncontent-type: application/json\r\n` +
    `content-length: ${new TextEncoder().encode(body).length}\r\n\r\n${body}`;
  const cut = setTimeout(() => socket.destroy(), 1000);
  socket.once("close", () => clearTimeout(cut));
  try {
    socket.end(text, () => socket.destroy());
  } catch {
    socket.destroy();
  }
}

/**
 * Admits or refuses each new connection, and times the arrival of each request's headers.
 * The server calls {@linkcode ConnectionGuard.admit} on every `connection`, and
 * {@linkcode ConnectionGuard.requestStarted} / {@linkcode ConnectionGuard.requestEnded} around
 * every request.
 */
export class ConnectionGuard {
  readonly #limits: ConnectionLimits;
  readonly #held = new Map<Socket, Held>();
  readonly #byAddress = new Map<string, number>();
  readonly #refused = new WeakSet<Socket>();

  /**
   * Makes a guard.
   *
   * @param limits The limits.
   */
  constructor(limits: ConnectionLimits) {
    this.#limits = limits;
  }

  /** How many connections are held. */
  get count(): number {
    return this.#held.size;
  }

  /**
   * Takes a new connection in, or refuses it at once with 503 (not counted) when the server, or
   * its address, already holds the most allowed. An admitted connection's first request's
   * headers must arrive within the headers timeout.
   *
   * @param socket The new connection.
   * @returns Whether it was admitted.
   */
  admit(socket: Socket): boolean {
    const address = socket.remoteAddress ?? "unknown";
    const fromAddress = this.#byAddress.get(address) ?? 0;
    const { maxConnections, maxConnectionsPerAddress } = this.#limits;
    let refusal: string | undefined;
    if (this.#held.size >= maxConnections) {
      refusal =
        `Service Unavailable: this MCP server has ${this.#held.size} connections open, the most it holds (maxConnections); try again later`;
    } else if (fromAddress >= maxConnectionsPerAddress) {
      refusal =
        `Service Unavailable: ${fromAddress} connections are open from ${address}, the most one address may hold (maxConnectionsPerAddress); close one, or reuse it`;
    }
    if (refusal !== undefined) {
      this.#refused.add(socket);
      socket.on("error", () => {});
      answerAndClose(socket, statusLine("connections-full"), refusal);
      return false;
    }
    const held: Held = { active: 0, fresh: true, deadline: undefined };
    this.#held.set(socket, held);
    this.#byAddress.set(address, fromAddress + 1);
    socket.once("close", () => {
      clearTimeout(held.deadline);
      this.#held.delete(socket);
      const left = (this.#byAddress.get(address) ?? 1) - 1;
      if (left > 0) this.#byAddress.set(address, left);
      else this.#byAddress.delete(address);
    });
    this.#awaitHeaders(socket, held);
    return true;
  }

  /**
   * Whether a connection was refused: a request parsed from it anyway must not be served.
   *
   * @param socket The connection.
   * @returns True when refused.
   */
  refused(socket: Socket): boolean {
    return this.#refused.has(socket);
  }

  /**
   * A request's headers arrived: its connection's headers deadline stops.
   *
   * @param socket The request's connection.
   */
  requestStarted(socket: Socket): void {
    const held = this.#held.get(socket);
    if (!held) return;
    held.active++;
    held.fresh = false;
    clearTimeout(held.deadline);
    held.deadline = undefined;
  }

  /**
   * A request's response is over: when no other request is under way on its connection, the
   * next request's headers must arrive within the headers timeout (a kept-alive connection left
   * unused is closed then).
   *
   * @param socket The request's connection.
   */
  requestEnded(socket: Socket): void {
    const held = this.#held.get(socket);
    if (!held) return;
    held.active = Math.max(0, held.active - 1);
    if (held.active === 0 && !socket.destroyed) {
      this.#awaitHeaders(socket, held);
    }
  }

  /** Closes every connection (the server is stopping). */
  closeAll(): void {
    for (const socket of this.#held.keys()) socket.destroy();
  }

  #awaitHeaders(socket: Socket, held: Held): void {
    clearTimeout(held.deadline);
    const ms = this.#limits.headersTimeoutMs;
    if (!(ms > 0)) return; // no headers timeout
    held.deadline = setTimeout(() => {
      held.deadline = undefined;
      if (held.active > 0) return;
      if (held.fresh) {
        answerAndClose(
          socket,
          statusLine("headers-timeout"),
          `Request Timeout: the request's headers did not arrive within ${ms} ms (headersTimeoutMs)`,
        );
      } else socket.destroy(); // a kept-alive connection nobody used again
    }, ms);
  }
}
