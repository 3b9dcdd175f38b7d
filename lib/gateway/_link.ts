/**
 * The gateway's link to one upstream server: the MCP client connection it owns (opened through
 * the {@linkcode UpstreamConnector}, identity verified first; opened again after a loss, with
 * backoff after failures), the server's listing (each tool kept only when the server's record
 * allows it; every other one dropped and logged with the hash of what was listed), the drift of
 * each kept tool from its registered version (classified on connect, on the server's
 * `list_changed`, on each re-list and when the estate publishes), and the circuit breaker.
 *
 * @module
 */
import { isObject } from "../_object.ts";
import type { ToolRegistry } from "../estate/registry.ts";
import type { ServerRecord } from "../estate/server_record.ts";
import { McpClient, type McpClientOptions } from "../mcp/client.ts";
import type { ListedTool } from "../mcp/protocol.ts";
import type { ServerTimers } from "../mcp/server_options.ts";
import type { Transport } from "../jsonrpc/transport.ts";
import { canonicalJson } from "../schema/json_equal.ts";
import { CircuitBreaker } from "./_breaker.ts";
import { deadline, formatDuration, raceAbort } from "./_signals.ts";
import { classifyDrift, type DescriptionLint, type DriftAssessment } from "./drift.ts";
import type { DriftEvent, DriftEventKind, GatewayLogEntry } from "./gateway_log.ts";
import type { ConnectionState, ServerStatus, ToolStatus } from "./status.ts";
import { type IdentityEvidence, IdentityRefusedError, type UpstreamConnector } from "./upstream.ts";

/** What a link needs from its gateway. */
export interface LinkContext {
  registry: ToolRegistry;
  serverFor: (tool: string) => ServerRecord | undefined;
  connector: UpstreamConnector;
  client: McpClientOptions;
  now: () => number;
  timers: ServerTimers;
  connectTimeoutMs: number;
  reconnect: { initialMs: number; maxMs: number };
  circuit: { failures: number; coolDownMs: number };
  log: (entry: GatewayLogEntry) => void;
  drift: (event: DriftEvent) => void;
  descriptionSignals: DescriptionLint | undefined;
}

/** Why a server cannot take a call now; `reason` completes "<tool> is unavailable: …". */
export class Unavailable extends Error {
  /** Whether a connection was attempted (and failed) for it, rather than refused at once. */
  readonly attempted: boolean;
  constructor(reason: string, attempted: boolean) {
    super(reason);
    this.name = "Unavailable";
    this.attempted = attempted;
  }
}

/** A tool as the server lists it, kept. */
interface LiveTool {
  listed: ListedTool;
  upstreamName: string;
  sha256: string;
}

/** A tool the server listed and may not serve. */
interface DroppedTool {
  sha256: string;
  reason: string;
}

/** What was last reported of a tool's drift. */
interface Tracking {
  contractKey?: string;
  textKey?: string;
  quarantine: string[];
  version?: string;
}

/** The most pages of `tools/list` read from one server. */
const MAX_PAGES = 64;

/** One upstream server, as the gateway sees it. */
export class UpstreamLink {
  record: ServerRecord;
  readonly breaker: CircuitBreaker;
  readonly #ctx: LinkContext;
  #connection: ConnectionState = "idle";
  #client: McpClient | undefined;
  #connecting: Promise<McpClient> | undefined;
  #identity: IdentityEvidence | undefined;
  #error: string | undefined;
  #failures = 0;
  #retryAt = 0;
  #listed = false;
  #live = new Map<string, LiveTool>();
  #dropped = new Map<string, DroppedTool>();
  readonly #tracked = new Map<string, Tracking>();
  #relisting: Promise<void> | undefined;
  #again = false;

  constructor(record: ServerRecord, ctx: LinkContext) {
    this.record = record;
    this.#ctx = ctx;
    this.breaker = new CircuitBreaker({
      ...ctx.circuit,
      now: ctx.now,
      onChange: (state, failures) =>
        ctx.log({
          kind: "circuit",
          at: this.#at(),
          server: record.id,
          state,
          failures,
        }),
    });
  }

  /** The connection's state. */
  get connection(): ConnectionState {
    return this.#connection;
  }

  /** Whether a connection attempt would be made now (none open, none running, backoff over). */
  get due(): boolean {
    return !this.#client && !this.#connecting &&
      this.#connection !== "closed" &&
      this.#ctx.now() >= this.#retryAt;
  }

  /**
   * The open client, connecting first when there is none (one attempt at a time, shared).
   *
   * @throws {Unavailable} When the server cannot be used now.
   */
  ready(): Promise<McpClient> {
    if (this.#client) return Promise.resolve(this.#client);
    if (this.#connecting) return this.#connecting;
    const id = this.record.id;
    if (this.#connection === "closed") {
      return Promise.reject(
        new Unavailable("the gateway is shutting down", false),
      );
    }
    const wait = this.#retryAt - this.#ctx.now();
    if (wait > 0) {
      const what = this.#connection === "refused"
        ? `server ${id} failed its identity check`
        : `server ${id} cannot be reached`;
      return Promise.reject(
        new Unavailable(
          `${what} (next attempt in ${formatDuration(wait)})`,
          false,
        ),
      );
    }
    const attempt = this.#connect();
    this.#connecting = attempt;
    const done = (): void => {
      if (this.#connecting === attempt) this.#connecting = undefined;
    };
    attempt.then(done, done);
    return attempt;
  }

  /** Whether the server lists a tool (by the estate's name) and may serve it. */
  offers(tool: string): boolean {
    return this.#live.has(tool);
  }

  /**
   * Why a tool is quarantined (its live definition left the registered contract), or none.
   *
   * @param tool The estate's tool name.
   * @returns The reasons; empty when it is not quarantined.
   */
  quarantined(tool: string): readonly string[] {
    return this.#tracked.get(tool)?.quarantine ?? [];
  }

  /** Reads the server's listing again (one at a time; a request during one runs once more after). */
  relist(): Promise<void> {
    if (this.#relisting) {
      this.#again = true;
      return this.#relisting;
    }
    const run = async (): Promise<void> => {
      do {
        this.#again = false;
        await this.#relistOnce();
      } while (this.#again);
    };
    const running = run().finally(() => {
      this.#relisting = undefined;
    });
    this.#relisting = running;
    return running;
  }

  /**
   * Classifies a tool's live listing against its registered version again, and reports what
   * changed since the last report.
   */
  track(tool: string): void {
    const registered = this.#ctx.registry.latest(tool);
    const live = this.#live.get(tool);
    const t = this.#tracked.get(tool) ?? { quarantine: [] };
    this.#tracked.set(tool, t);
    if (!registered || !live) {
      // Reported afresh when it is listed (or registered) again.
      t.contractKey = t.textKey = undefined;
      return;
    }
    t.version = registered.version;
    const a = classifyDrift(registered, live.listed, {
      descriptionSignals: this.#ctx.descriptionSignals,
      compatibility: this.#ctx.registry.compatibilityOf(registered),
    });
    const version = registered.version;
    const stated = isObject(live.listed.annotations) ? live.listed.annotations : {};
    const contractKey = `${version}\u0000${
      canonicalJson([
        live.listed.inputSchema ?? null,
        live.listed.outputSchema ?? null,
        [stated.readOnlyHint, stated.idempotentHint, stated.destructiveHint]
          .map((h) => h ?? null),
      ])
    }`;
    const textKey = `${version}\u0000${
      canonicalJson(a.text.map((x) => [x.field, x.live ?? null]))
    }`;
    const event = (
      kind: DriftEventKind,
      message: string,
      more: Partial<DriftEvent>,
    ): void =>
      this.#ctx.drift({
        kind,
        at: this.#at(),
        server: this.record.id,
        serverOwner: this.record.owner,
        tool,
        upstreamName: live.upstreamName,
        version,
        owner: registered.owner,
        liveSha256: live.sha256,
        message,
        ...more,
      });
    const id = this.record.id;
    const at = `${tool}@${version}`;
    if (textKey !== t.textKey) {
      t.textKey = textKey;
      if (a.text.length) {
        const signals = a.text.flatMap((x) => x.signals.map((s) => s.code));
        const fields = a.text.map((x) => x.field).join(", ");
        event(
          "description",
          `${tool}: server ${id} changed what the model would read (${fields})` +
            (signals.length
              ? `, with signs of tool poisoning (${[...new Set(signals)].join(", ")})`
              : "") +
            `; principals still read ${at}`,
          { text: a.text },
        );
      }
    }
    if (contractKey !== t.contractKey) {
      t.contractKey = contractKey;
      const was = t.quarantine.length > 0;
      t.quarantine = a.quarantine;
      const changes = contractChanges(a);
      if (a.quarantine.length) {
        event(
          "quarantined",
          `${tool} quarantined: server ${id} left the contract of ${at}: ${
            a.quarantine.join("; ")
          }. Callers keep ${at} until a version is published or the server is fixed`,
          { ...changes, reasons: a.quarantine },
        );
      } else if (was) {
        event(
          "cleared",
          `${tool}: server ${id} is back within the contract of ${at}`,
          changes,
        );
      } else if (changes.input || changes.output || changes.annotations) {
        event(
          "compatible",
          `${tool}: server ${id} changed it within the contract of ${at} (${describe(a)})`,
          changes,
        );
      }
    }
  }

  /** Where the server and each of its tools stand. */
  status(): ServerStatus {
    const record = this.record;
    const connected = this.#connection === "connected";
    const circuit = this.breaker.state;
    const tools: ToolStatus[] = this.#tools().map((tool) => {
      const upstreamName = record.upstreamNames?.[tool] ?? tool;
      const live = this.#live.get(tool);
      const version = this.#ctx.registry.latest(tool)?.version;
      const base = {
        tool,
        upstreamName,
        ...(version === undefined ? {} : { version }),
        ...(live && connected ? { definitionSha256: live.sha256 } : {}),
      };
      const reasons: string[] = [];
      if (!connected) reasons.push(this.#connectionReason());
      else if (!live) reasons.push(`server ${record.id} does not list it`);
      if (circuit === "open") reasons.push(this.circuitReason());
      if (reasons.length) return { ...base, state: "unavailable", reasons };
      const q = this.quarantined(tool);
      return q.length
        ? { ...base, state: "quarantined", reasons: [...q] }
        : { ...base, state: "ok", reasons: [] };
    });
    for (const [name, d] of this.#dropped) {
      tools.push({
        tool: name,
        upstreamName: name,
        state: "dropped",
        definitionSha256: d.sha256,
        reasons: [d.reason],
      });
    }
    return {
      id: record.id,
      owner: record.owner,
      connection: this.#connection,
      circuit,
      ...(this.#identity ? { identity: { ...this.#identity } } : {}),
      ...(this.#error === undefined ? {} : { error: this.#error }),
      tools,
    };
  }

  /** Completes "<tool> is unavailable: …" for an open circuit. */
  circuitReason(): string {
    const wait = this.breaker.waitMs;
    return `server ${this.record.id} failed ${this.breaker.failures} calls in a row (circuit open` +
      (wait > 0 ? `; next try in ${formatDuration(wait)})` : "; a probe call is under way)");
  }

  /** Closes the connection for good. */
  async close(): Promise<void> {
    this.#connection = "closed";
    const client = this.#client;
    this.#client = undefined;
    await client?.close();
    await this.#connecting?.then((c) => c.close(), () => {});
  }

  #connectionReason(): string {
    const id = this.record.id;
    switch (this.#connection) {
      case "idle":
        return `server ${id} is not connected yet`;
      case "connecting":
        return `server ${id} is being connected`;
      case "refused":
        return `server ${id} failed its identity check`;
      case "closed":
        return "the gateway is closed";
      case "disconnected":
        return `the connection to server ${id} was lost`;
      default:
        return `server ${id} cannot be reached`;
    }
  }

  async #connect(): Promise<McpClient> {
    const ctx = this.#ctx;
    const record = this.record;
    this.#connection = "connecting";
    const limit = deadline(ctx.timers, ctx.connectTimeoutMs);
    let transport: Transport | undefined;
    let client: McpClient | undefined;
    try {
      const verified = await raceAbort(
        ctx.connector(record),
        limit.signal,
        (late) => void late.transport.close().catch(() => {}),
      );
      if (this.#shut()) {
        throw new Unavailable("the gateway is shutting down", true);
      }
      transport = verified.transport;
      const opened: McpClient = new McpClient(
        watchClose(transport, () => this.#lost(opened)),
        {
          clientInfo: { name: "tool-estate-gateway", version: "0.1.0" },
          ...ctx.client,
          serverName: record.id,
          requestTimeoutMs: ctx.connectTimeoutMs,
        },
      );
      client = opened;
      await raceAbort(opened.connect(), limit.signal);
      const tools = await listAll(opened, limit.signal);
      if (this.#shut()) {
        throw new Unavailable("the gateway is shutting down", true);
      }
      await this.#take(tools, verified.identity);
      this.#identity = verified.identity;
      this.#error = undefined;
      this.#failures = 0;
      this.#retryAt = 0;
      this.#client = opened;
      this.#connection = "connected";
      opened.onToolsChanged(() => void this.relist());
      ctx.log({
        kind: "connected",
        at: this.#at(),
        server: record.id,
        identity: verified.identity,
        tools: this.#live.size,
        dropped: this.#dropped.size,
      });
      return opened;
    } catch (e) {
      if (client) await client.close().catch(() => {});
      else await transport?.close().catch(() => {});
      if (this.#shut()) {
        throw e instanceof Unavailable ? e : new Unavailable("the gateway is shutting down", true);
      }
      this.#failures++;
      const retryInMs = Math.min(
        ctx.reconnect.initialMs * 2 ** (this.#failures - 1),
        ctx.reconnect.maxMs,
      );
      this.#retryAt = ctx.now() + retryInMs;
      const at = this.#at();
      if (e instanceof IdentityRefusedError) {
        this.#connection = "refused";
        this.#identity = { ...e.evidence };
        this.#error = e.message;
        ctx.log({
          kind: "refused",
          at,
          server: record.id,
          evidence: { ...e.evidence },
          message: e.message,
          retryInMs,
        });
        throw new Unavailable(
          `server ${record.id} failed its identity check`,
          true,
        );
      }
      this.#connection = "unreachable";
      const message = limit.signal.aborted
        ? `server ${record.id} did not finish connecting within ${
          formatDuration(ctx.connectTimeoutMs)
        }`
        : `server ${record.id} cannot be reached: ${(e as Error)?.message ?? String(e)}`;
      this.#error = message;
      ctx.log({
        kind: "unreachable",
        at,
        server: record.id,
        message,
        retryInMs,
      });
      throw new Unavailable(
        limit.signal.aborted
          ? `server ${record.id} did not answer within ${formatDuration(ctx.connectTimeoutMs)}`
          : `server ${record.id} cannot be reached`,
        true,
      );
    } finally {
      limit.clear();
    }
  }

  /** Whether the link was closed (read again after each wait). */
  #shut(): boolean {
    return this.#connection === "closed";
  }

  /** The connection of `client` closed: the next call opens another. */
  #lost(client: McpClient): void {
    if (this.#client !== client) return;
    this.#client = undefined;
    if (this.#connection === "closed") return;
    this.#connection = "disconnected";
    this.#ctx.log({
      kind: "disconnected",
      at: this.#at(),
      server: this.record.id,
    });
  }

  async #relistOnce(): Promise<void> {
    const client = this.#client;
    const identity = this.#identity;
    if (!client || !identity) return;
    const limit = deadline(this.#ctx.timers, this.#ctx.connectTimeoutMs);
    try {
      const tools = await listAll(client, limit.signal);
      if (client !== this.#client) return;
      await this.#take(tools, identity);
    } catch (e) {
      if (client !== this.#client) return;
      this.#ctx.log({
        kind: "relist-failed",
        at: this.#at(),
        server: this.record.id,
        message: limit.signal.aborted
          ? `tools/list got no answer within ${formatDuration(this.#ctx.connectTimeoutMs)}`
          : (e as Error)?.message ?? String(e),
      });
    } finally {
      limit.clear();
    }
  }

  /**
   * Takes a listing: keeps each tool the record allows (under the estate's name), drops and logs
   * every other, notes the registered tools it lacks, and classifies the drift of each kept one.
   */
  async #take(items: unknown[], identity: IdentityEvidence): Promise<void> {
    const record = this.record;
    const estateName = new Map<string, string>();
    for (const t of record.tools) {
      estateName.set(record.upstreamNames?.[t] ?? t, t);
    }
    const live = new Map<string, LiveTool>();
    const dropped = new Map<string, DroppedTool>();
    const leftOut = new Set(record.leftOut ?? []);
    for (const item of items) {
      if (!isObject(item) || typeof item.name !== "string") continue;
      const name = item.name;
      if (leftOut.has(name)) continue; // left out on purpose: never exposed, nothing to report
      const sha256 = await sha256Hex(canonicalJson(item));
      const tool = estateName.get(name);
      const servedBy = tool === undefined ? undefined : this.#ctx.serverFor(tool);
      let reason: string | undefined;
      if (tool === undefined) {
        reason = `the record of server ${record.id} does not allow ${name}`;
      } else if (servedBy && servedBy.id !== record.id) {
        reason = `${tool} is served by server ${servedBy.id}, not ${record.id}`;
      } else if (live.has(tool)) {
        reason = `server ${record.id} listed ${name} twice`;
      }
      if (reason !== undefined) {
        if (!dropped.has(name)) dropped.set(name, { sha256, reason });
        continue;
      }
      live.set(tool!, {
        listed: item as unknown as ListedTool,
        upstreamName: name,
        sha256,
      });
    }
    const at = this.#at();
    for (const [tool, d] of dropped) {
      if (this.#dropped.get(tool)?.sha256 === d.sha256) continue;
      this.#ctx.log({
        kind: "dropped",
        at,
        server: record.id,
        tool,
        definitionSha256: d.sha256,
        reason: d.reason,
        identity: { ...identity },
      });
    }
    for (const tool of this.#tools()) {
      const hadIt = !this.#listed || this.#live.has(tool);
      if (!live.has(tool) && hadIt && this.#ctx.registry.latest(tool)) {
        this.#ctx.log({ kind: "missing", at, server: record.id, tool });
      } else if (live.has(tool) && this.#listed && !this.#live.has(tool)) {
        this.#ctx.log({ kind: "restored", at, server: record.id, tool });
      }
    }
    this.#live = live;
    this.#dropped = dropped;
    this.#listed = true;
    for (const tool of this.#tools()) this.track(tool);
  }

  /** The tools the record allows that no other server's record serves. */
  #tools(): string[] {
    const id = this.record.id;
    return this.record.tools.filter((t) => (this.#ctx.serverFor(t)?.id ?? id) === id);
  }

  #at(): string {
    return new Date(this.#ctx.now()).toISOString();
  }
}

/** The schema and hint changes of an assessment, as a drift event carries them. */
function contractChanges(a: DriftAssessment): Partial<DriftEvent> {
  return {
    ...(a.input ? { input: a.input } : {}),
    ...(a.output ? { output: a.output } : {}),
    ...(a.annotations.length ? { annotations: a.annotations } : {}),
  };
}

/** "input minor, output patch, hints". */
function describe(a: DriftAssessment): string {
  const parts: string[] = [];
  if (a.input) parts.push(`input ${a.input.bump}`);
  if (a.output) parts.push(`output ${a.output.bump}`);
  if (a.annotations.length) {
    parts.push(`hints ${a.annotations.map((x) => x.hint).join(", ")}`);
  }
  return parts.join(", ");
}

/** Every page of the server's `tools/list`, fresh (never the client's cache). */
async function listAll(
  client: McpClient,
  signal: AbortSignal,
): Promise<unknown[]> {
  const out: unknown[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const result = await client.request(
      "tools/list",
      cursor === undefined ? {} : { cursor },
      { signal, timeoutMs: Infinity },
    );
    const tools = isObject(result) ? result.tools : undefined;
    if (!Array.isArray(tools)) {
      throw new Error("tools/list returned no tools list");
    }
    out.push(...tools);
    if (!isObject(result) || typeof result.nextCursor !== "string") return out;
    cursor = result.nextCursor;
  }
  throw new Error(`tools/list did not end within ${MAX_PAGES} pages`);
}

/** The transport, with `onClose` told (before the client) when it closes. */
function watchClose(inner: Transport, onClose: () => void): Transport {
  const outer: Transport = {
    send: (message, options) => inner.send(message, options),
    close: () => inner.close(),
  };
  if (inner.cancel) outer.cancel = (id) => inner.cancel!(id);
  inner.onmessage = (message) => outer.onmessage?.(message);
  inner.onclose = (reason) => {
    onClose();
    outer.onclose?.(reason);
  };
  return outer;
}

async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest(
    "SHA-256",
    new TextEncoder().encode(text),
  );
  return Array.from(
    new Uint8Array(digest),
    (b) => b.toString(16).padStart(2, "0"),
  ).join("");
}
