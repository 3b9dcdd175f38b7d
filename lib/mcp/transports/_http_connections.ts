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
  /** How long a connection may sit with no request under way before it is dropped, in ms. */
  idleMs: number;
}

/** A connection's state: requests under way on it, and since when it has waited for one. */
interface Held {
  active: number;
  /** True until its first request's headers arrived. */
  fresh: boolean;
  /** When it began waiting for a request's headers (ms, `Date.now()`); -1 while one is under way. */
  waitingSince: number;
}

/** A deadline the guard's sweep keeps: when it passes, `fire` runs once. */
interface Deadline {
  at: number;
  fire: () => void;
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
 *
 * Its deadlines (the headers', a kept-alive connection's idle time, and any the transport asks of
 * {@linkcode ConnectionGuard.deadline}, such as a body's) are kept by one sweep, every eighth of the
 * shortest limit (10 ms to 500 ms), running while there is something to time: a request costs no
 * timer of its own, set and cleared. A deadline passes within that tick of its time.
 */
export class ConnectionGuard {
  readonly #limits: ConnectionLimits;
  readonly #held = new Map<Socket, Held>();
  readonly #byAddress = new Map<string, number>();
  readonly #refused = new WeakSet<Socket>();
  readonly #deadlines = new Set<Deadline>();
  readonly #tickMs: number;
  #sweep: ReturnType<typeof setInterval> | undefined;

  /**
   * Makes a guard.
   *
   * @param limits The limits.
   */
  constructor(limits: ConnectionLimits) {
    this.#limits = limits;
    const positive = [limits.headersTimeoutMs, limits.idleMs].filter((ms) => ms > 0);
    const shortest = positive.length ? Math.min(...positive) : 4000;
    this.#tickMs = Math.min(500, Math.max(10, Math.floor(shortest / 8)));
  }

  /**
   * Runs `fire` once `ms` from now (within the sweep's tick), unless cancelled first.
   *
   * @param ms How long from now.
   * @param fire What to run then.
   * @returns Cancels it.
   */
  deadline(ms: number, fire: () => void): () => void {
    const entry: Deadline = { at: Date.now() + ms, fire };
    this.#deadlines.add(entry);
    this.#startSweep();
    return () => {
      this.#deadlines.delete(entry);
    };
  }

  #startSweep(): void {
    if (this.#sweep !== undefined) return;
    this.#sweep = setInterval(() => this.#tick(), this.#tickMs);
  }

  #tick(): void {
    const now = Date.now();
    for (const entry of this.#deadlines) {
      if (entry.at > now) continue;
      this.#deadlines.delete(entry);
      entry.fire();
    }
    const { headersTimeoutMs, idleMs } = this.#limits;
    for (const [socket, held] of this.#held) {
      if (held.active > 0 || held.waitingSince < 0 || socket.destroyed) continue;
      const waited = now - held.waitingSince;
      if (held.fresh && headersTimeoutMs > 0 && waited >= headersTimeoutMs) {
        held.waitingSince = -1;
        answerAndClose(
          socket,
          statusLine("headers-timeout"),
          `Request Timeout: the request's headers did not arrive within ${headersTimeoutMs} ms (headersTimeoutMs)`,
        );
      } else if (
        (!held.fresh && headersTimeoutMs > 0 && waited >= headersTimeoutMs) ||
        (idleMs > 0 && waited >= idleMs)
      ) {
        held.waitingSince = -1;
        socket.destroy(); // a kept-alive connection nobody used again, or one never used
      }
    }
    if (this.#held.size === 0 && this.#deadlines.size === 0) {
      clearInterval(this.#sweep);
      this.#sweep = undefined;
    }
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
    const held: Held = { active: 0, fresh: true, waitingSince: Date.now() };
    this.#held.set(socket, held);
    this.#byAddress.set(address, fromAddress + 1);
    socket.once("close", () => {
      this.#held.delete(socket);
      const left = (this.#byAddress.get(address) ?? 1) - 1;
      if (left > 0) this.#byAddress.set(address, left);
      else this.#byAddress.delete(address);
    });
    this.#startSweep();
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
    held.waitingSince = -1;
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
    if (held.active === 0) held.waitingSince = Date.now();
  }

  /** Closes every connection (the server is stopping). */
  closeAll(): void {
    for (const socket of this.#held.keys()) socket.destroy();
    this.#deadlines.clear();
    clearInterval(this.#sweep);
    this.#sweep = undefined;
  }
}
