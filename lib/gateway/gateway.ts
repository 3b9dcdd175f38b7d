/**
 * The gateway: {@linkcode Gateway} serves the estate's upstream tools — tools that live in MCP
 * servers the estate did not write — as handlers an `McpServer` runs like any other. The server
 * has already done what it does for every call (visibility, version, schema: invalid arguments
 * never reach a handler); the gateway's handler forwards the call, under the upstream's own name,
 * over an MCP client connection it owns (one per server, identity verified before anything is
 * exchanged), and returns the upstream's result unchanged — except that `structuredContent` is
 * checked against the registered `outputSchema`, and that an upstream that cannot answer (refused
 * by its identity check, unreachable, too slow, circuit-broken, not listing the tool) gives a
 * clear `isError` result instead of a hang.
 *
 * What principals see of an upstream tool is always its registered version: the server lists the
 * registry's specs, never the upstream's listing. The gateway reads that listing only to drop
 * what a server may not serve and to classify drift (`drift.ts`), which it reports to the owner.
 *
 * @module
 */
import { linkSignals } from "../jsonrpc/signals.ts";
import { MessageTooLargeError } from "../mcp/transports/message_limit.ts";
import { isObject } from "../_object.ts";
import { JsonRpcError } from "../jsonrpc/errors.ts";
import type { EstateEvent, ToolRegistry } from "../estate/registry.ts";
import type { ServerRecord } from "../estate/server_record.ts";
import { RETRYABLE, type ToolSpec } from "../estate/spec.ts";
import type { McpClientOptions } from "../mcp/client.ts";
import { McpClientError, UnsupportedResultError } from "../mcp/client_errors.ts";
import type { CallToolResult } from "../mcp/protocol.ts";
import type { ServerTimers } from "../mcp/server_options.ts";
import type { ToolContext, ToolHandler } from "../mcp/tool_handler.ts";
import { canonicalJson } from "../schema/json_equal.ts";
import { limitIssues, shortenText } from "../schema/issue_limit.ts";
import type { SchemaIssue } from "../schema/types.ts";
import { type CompiledSchema, compileSchema } from "../schema/validate.ts";
import type { CallEnd } from "./_breaker.ts";
import { type LinkContext, Unavailable, UpstreamLink } from "./_link.ts";
import { deadline, formatDuration, raceAbort } from "./_signals.ts";
import type { DescriptionLint } from "./drift.ts";
import type { DriftEvent, GatewayLogEntry } from "./gateway_log.ts";
import type { ServerStatus } from "./status.ts";
import type { UpstreamConnector } from "./upstream.ts";

/** Options for a {@linkcode Gateway}. */
export interface GatewayOptions {
  /** The estate: the registered versions calls are held to, and drift is classified against. */
  registry: ToolRegistry;
  /**
   * Which server serves a tool (by the estate's name): its record, or undefined for a tool that
   * is not upstream (an in-process one). Exactly one server serves a name.
   */
  serverFor: (tool: string) => ServerRecord | undefined;
  /** Every server record of the estate (what `start` connects and `status` reports). */
  servers: () => ServerRecord[];
  /** Opens a transport to a server and verifies its identity (see `identity.ts`). */
  connector: UpstreamConnector;
  /** Told of every drift event (for the drift log and the tool's owner). Default: nothing. */
  onDrift?: (event: DriftEvent) => void;
  /** Told of every operations log entry. Default: nothing. */
  onLog?: (entry: GatewayLogEntry) => void;
  /**
   * The description lint run on every text an upstream changed (tool poisoning: invisible
   * characters, instructions to the model, references to other tools, files or secrets). Its
   * findings go into `description` drift events. Default: none.
   */
  descriptionSignals?: DescriptionLint;
  /**
   * How long a forwarded call may take, connecting included, in milliseconds; then the upstream
   * call is cancelled and the caller gets an `isError` result. Default 30 s.
   */
  callTimeoutMs?: number;
  /** How long opening a connection (identity check, handshake, first listing) may take. Default `callTimeoutMs`. */
  connectTimeoutMs?: number;
  /**
   * How often each connected server's `tools/list` is read again to classify drift (besides its
   * `list_changed`), and servers that failed are tried again, in milliseconds; 0 never. Default
   * 60 s. The timer runs once a connection opened (or `start` was called) and stops with `close`.
   */
  relistIntervalMs?: number;
  /**
   * The circuit breaker per server: `failures` consecutive failed calls (no answer in time, a
   * connection lost or not opened) open it for `coolDownMs`; then one probe call goes through.
   * Default 5 failures, 30 s.
   */
  circuit?: { failures?: number; coolDownMs?: number };
  /**
   * Waiting between failed connection attempts: `initialMs` after the first failure, doubling up
   * to `maxMs`; calls in between get an `isError` result at once. Default 1 s, 60 s.
   */
  reconnect?: { initialMs?: number; maxMs?: number };
  /**
   * Options for the MCP clients the gateway opens (`clientInfo`, `era`, `serverRequests`, ...).
   * Their `serverName` is always the record's id, their request timeout `connectTimeoutMs`.
   */
  client?: McpClientOptions;
  /** The clock, in milliseconds (log times, backoff, the circuit's cool-down). Default `Date.now`. */
  now?: () => number;
  /** The timers (call and connection deadlines, the re-list). Default the platform's. */
  timers?: ServerTimers;
}

const PLATFORM_TIMERS: ServerTimers = {
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/** The `_meta` prefix MCP reserves for the protocol. */
const RESERVED_META = "io.modelcontextprotocol/";

/** What an output without `structuredContent` breaks. */
const MISSING_STRUCTURED: SchemaIssue = Object.freeze({
  path: "$",
  keyword: "required",
  message: "structuredContent is missing, and the tool has an outputSchema",
  schemaPath: "$",
});

/**
 * Forwards the estate's upstream tools to the MCP servers that serve them. Give its
 * {@linkcode Gateway.handlerFor} to the `McpServer` (before the in-process handlers), call
 * {@linkcode Gateway.start} to connect every server up front (or let the first call to each
 * connect it), and {@linkcode Gateway.close} at the end.
 *
 * @example
 * ```ts
 * import { createLinkedTransports, Gateway, McpClient, McpServer, type ServerRecord, serveTransport, ToolRegistry, type ToolSpec } from "@tool-estate/core";
 * import assert from "node:assert/strict";
 *
 * const quote: ToolSpec = {
 *   name: "fx.quote", version: "1.0.0", title: "FX quote", description: "Quotes a rate from the pricing engine.",
 *   inputSchema: { type: "object", properties: { pair: { type: "string" } }, required: ["pair"] },
 *   sideEffect: "read", requiredScopes: [], dataClassification: "internal", tenants: [], owner: "treasury",
 * };
 * // The upstream: an MCP server the estate did not write (here one of ours, in memory).
 * const theirs = new ToolRegistry();
 * theirs.publish(quote);
 * const pricing = new McpServer({ registry: theirs, handlerFor: () => ({ pair }) => `${pair} 1.17` });
 * const record: ServerRecord = {
 *   id: "pricing", owner: "treasury", description: "The pricing engine's MCP server.",
 *   upstream: { kind: "http", url: "https://pricing.internal/mcp", identity: { spiffeId: "spiffe://bank.example/pricing" } },
 *   tools: ["fx.quote"],
 * };
 * // The estate registers the tool and serves it through the gateway.
 * const estate = new ToolRegistry();
 * estate.publish(quote);
 * const gateway = new Gateway({
 *   registry: estate,
 *   serverFor: (name) => (record.tools.includes(name) ? record : undefined),
 *   servers: () => [record],
 *   connector: () => {
 *     const [near, far] = createLinkedTransports();
 *     serveTransport({ server: pricing, transport: far, principal: { id: "gateway", scopes: [], tenant: "group", clearance: "internal" } });
 *     const identity = { server: "pricing", check: "spiffe" as const, expected: "spiffe://bank.example/pricing", observed: "spiffe://bank.example/pricing" };
 *     return Promise.resolve({ transport: near, identity });
 *   },
 *   client: { era: "handshake" },
 * });
 * const server = new McpServer({ registry: estate, handlerFor: (spec) => gateway.handlerFor(spec) });
 * const [near, far] = createLinkedTransports();
 * serveTransport({ server, transport: far, principal: { id: "desk", scopes: [], tenant: "group", clearance: "internal" } });
 * const client = new McpClient(near, { era: "handshake" });
 * await client.connect();
 * const outcome = await client.callTool("fx.quote", { pair: "EURUSD" });
 * assert.equal(outcome.kind, "ok");
 * assert.deepEqual(outcome.kind === "ok" && outcome.result.content, [{ type: "text", text: "EURUSD 1.17" }]);
 * assert.equal(gateway.status()[0].tools[0].state, "ok");
 * await client.close();
 * await gateway.close();
 * server.close();
 * pricing.close();
 * ```
 */
export class Gateway {
  readonly #options: GatewayOptions;
  readonly #ctx: LinkContext;
  readonly #links = new Map<string, UpstreamLink>();
  readonly #validators = new WeakMap<ToolSpec, CompiledSchema | null>();
  readonly #callTimeoutMs: number;
  readonly #relistMs: number;
  readonly #unsubscribe: () => void;
  #timer: unknown;
  #started = false;
  #closed = false;

  /**
   * Makes a gateway (nothing is connected yet).
   *
   * @param options The estate, the servers, the connector, the hooks, the limits.
   * @throws {RangeError} When a time or count is negative or not a number.
   */
  constructor(options: GatewayOptions) {
    this.#options = options;
    const positive = (
      v: number | undefined,
      fallback: number,
      what: string,
    ): number => {
      const n = v ?? fallback;
      if (typeof n !== "number" || Number.isNaN(n) || n < 0) {
        throw new RangeError(
          `Gateway option ${what} must be a non-negative number`,
        );
      }
      return n;
    };
    this.#callTimeoutMs = positive(
      options.callTimeoutMs,
      30_000,
      "callTimeoutMs",
    );
    this.#relistMs = positive(
      options.relistIntervalMs,
      60_000,
      "relistIntervalMs",
    );
    const failures = positive(options.circuit?.failures, 5, "circuit.failures");
    if (failures < 1) {
      throw new RangeError(
        "Gateway option circuit.failures must be at least 1",
      );
    }
    this.#ctx = {
      registry: options.registry,
      serverFor: options.serverFor,
      connector: options.connector,
      client: options.client ?? {},
      now: options.now ?? Date.now,
      timers: options.timers ?? PLATFORM_TIMERS,
      connectTimeoutMs: positive(
        options.connectTimeoutMs,
        this.#callTimeoutMs,
        "connectTimeoutMs",
      ),
      reconnect: {
        initialMs: positive(
          options.reconnect?.initialMs,
          1000,
          "reconnect.initialMs",
        ),
        maxMs: positive(options.reconnect?.maxMs, 60_000, "reconnect.maxMs"),
      },
      circuit: {
        failures,
        coolDownMs: positive(
          options.circuit?.coolDownMs,
          30_000,
          "circuit.coolDownMs",
        ),
      },
      log: (entry) => {
        if (entry.kind === "connected") this.#arm();
        options.onLog?.(entry);
      },
      drift: (event) => options.onDrift?.(event),
      descriptionSignals: options.descriptionSignals,
    };
    this.#unsubscribe = options.registry.subscribe((e) => this.#estateChanged(e));
  }

  /**
   * The handler for a tool version when the tool is upstream, else undefined (compose:
   * `handlerFor: (spec) => gateway.handlerFor(spec) ?? local(spec)`). Cheap: the `McpServer`
   * asks once per call.
   *
   * The handler forwards the (already validated) arguments to the tool's server under its
   * upstream name and returns the result unchanged, but for: a `structuredContent` that breaks
   * the registered `outputSchema` (or is missing when there is one) — an `isError` result naming
   * the server, logged; a server that cannot answer — an `isError` result saying why
   * ("payments.release is unavailable: server payments-mcp did not answer within 30 s"); a JSON-RPC
   * error the server answered with — an `isError` result carrying its message. Cancelling the
   * caller's request cancels the upstream call. Progress from the server reaches the caller.
   *
   * @param spec The version being called.
   * @returns Its handler, or undefined when no server record serves the tool.
   */
  handlerFor(spec: ToolSpec): ToolHandler | undefined {
    const record = this.#options.serverFor(spec.name);
    if (!record) return undefined;
    return (args, context) => this.#forward(spec, record, args, context);
  }

  /**
   * Connects every server of `servers()` (each at most once at a time; a failure is logged and
   * retried with backoff) and starts the periodic re-list. Never rejects.
   *
   * @returns Resolves when every connection attempt settled.
   */
  async start(): Promise<void> {
    if (this.#closed) return;
    this.#started = true;
    this.#arm();
    await Promise.all(
      this.#options.servers().map((record) => this.#link(record).ready().catch(() => {})),
    );
  }

  /**
   * Reads the listing of each connected server again now (classifying drift), and tries once
   * more the servers whose backoff is over.
   *
   * @returns Resolves when done.
   */
  async refresh(): Promise<void> {
    if (this.#closed) return;
    const links = this.#started
      ? this.#options.servers().map((r) => this.#link(r))
      : [...this.#links.values()];
    await Promise.all(links.map((link) => {
      if (link.connection === "connected") return link.relist();
      return link.due ? link.ready().then(() => {}, () => {}) : undefined;
    }));
  }

  /**
   * Where each server of `servers()` and each of its tools stands: connection, circuit, identity,
   * and per tool `ok`, `quarantined`, `unavailable` or `dropped`, with the reasons.
   *
   * @returns One entry per server record, in `servers()` order.
   */
  status(): ServerStatus[] {
    return this.#options.servers().map((record) => {
      const link = this.#links.get(record.id);
      if (link && sameRecord(link.record, record)) return link.status();
      return new UpstreamLink(record, this.#ctx).status();
    });
  }

  /** Closes every connection and stops the timers; calls after this get an `isError` result. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#unsubscribe();
    if (this.#timer !== undefined) this.#ctx.timers.clearTimeout(this.#timer);
    this.#timer = undefined;
    await Promise.all([...this.#links.values()].map((l) => l.close()));
  }

  /** The link for a record: the same one while the record says the same. */
  #link(record: ServerRecord): UpstreamLink {
    let link = this.#links.get(record.id);
    if (link && link.record !== record) {
      if (sameRecord(link.record, record)) link.record = record;
      else {
        void link.close();
        link = undefined;
      }
    }
    if (!link) {
      link = new UpstreamLink(record, this.#ctx);
      if (this.#closed) void link.close();
      this.#links.set(record.id, link);
    }
    return link;
  }

  async #forward(
    spec: ToolSpec,
    record: ServerRecord,
    args: Record<string, unknown>,
    context: ToolContext,
  ): Promise<CallToolResult> {
    const link = this.#link(record);
    const admission = link.breaker.admit();
    if (!admission) return unavailable(spec, link.circuitReason());
    const limit = deadline(this.#ctx.timers, this.#callTimeoutMs);
    const linked = linkSignals(context.signal, limit.signal);
    const signal = linked.signal;
    let end: CallEnd = "neither";
    try {
      const client = await raceAbort(link.ready(), signal);
      if (!link.offers(spec.name)) {
        return unavailable(spec, `server ${record.id} does not offer it`);
      }
      // A quarantined tool may still be read through (its answer is checked), but nothing that
      // changes the world is forwarded to a definition the gateway no longer stands behind.
      const quarantine = link.quarantined(spec.name);
      if (quarantine.length && spec.sideEffect !== "read") {
        return toolError(
          `${spec.name} was not forwarded: server ${record.id} is quarantined for it (${
            quarantine.join("; ")
          }); nothing was done. An owner must re-register the tool or restore the server`,
        );
      }
      const raw = await client.request(
        "tools/call",
        {
          name: record.upstreamNames?.[spec.name] ?? spec.name,
          arguments: args,
        },
        { signal, timeoutMs: Infinity, onProgress: (p) => context.progress(p) },
      );
      end = "answered";
      const checked = this.#checked(spec, record, raw);
      return ranUpstream(spec, record, checked.result, checked.refused);
    } catch (e) {
      if (limit.signal.aborted) {
        end = "failed";
        this.#ctx.log({
          kind: "timeout",
          at: this.#at(),
          server: record.id,
          tool: spec.name,
          version: spec.version,
          timeoutMs: this.#callTimeoutMs,
        });
        return unavailable(
          spec,
          `server ${record.id} did not answer within ${formatDuration(this.#callTimeoutMs)}`,
          true,
        );
      }
      if (context.signal.aborted) return { content: [] }; // cancelled: the answer is dropped
      if (e instanceof Unavailable) {
        end = e.attempted ? "failed" : "neither";
        return unavailable(spec, e.message);
      }
      const tooLarge = e instanceof MessageTooLargeError
        ? e
        : e instanceof Error && e.cause instanceof MessageTooLargeError
        ? e.cause
        : undefined;
      if (tooLarge) {
        end = "failed";
        this.#callFailed(spec, record, tooLarge.message);
        return ranUpstream(
          spec,
          record,
          toolError(
            `${spec.name}: server ${record.id} answered with more than ${tooLarge.limit} bytes (maxMessageBytes); the answer was not read`,
          ),
          true,
        );
      }
      if (e instanceof JsonRpcError) {
        end = "answered";
        return toolError(
          `${spec.name}: server ${record.id} refused the call: ${
            shortenText(e.message, 500)
          } (${e.code})`,
        );
      }
      const message = e instanceof Error ? e.message : String(e);
      if (e instanceof McpClientError || e instanceof UnsupportedResultError) {
        end = "answered";
        this.#callFailed(spec, record, message);
        return ranUpstream(
          spec,
          record,
          toolError(
            `${spec.name}: server ${record.id} answered in a way the gateway cannot forward`,
          ),
          true,
        );
      }
      end = "failed";
      this.#callFailed(spec, record, message);
      return unavailable(
        spec,
        `the connection to server ${record.id} failed`,
        true,
      );
    } finally {
      limit.clear();
      linked.release();
      link.breaker.settle(admission, end);
    }
  }

  /** The upstream's answer, as forwarded: unchanged, unless it breaks the registered contract. */
  #checked(
    spec: ToolSpec,
    record: ServerRecord,
    raw: unknown,
  ): { result: CallToolResult; refused: boolean } {
    if (!isObject(raw) || !Array.isArray(raw.content)) {
      this.#callFailed(spec, record, "the result has no content list");
      return {
        result: toolError(`${spec.name}: server ${record.id} returned a malformed result`),
        refused: true,
      };
    }
    const result = withoutEnvelope(raw);
    const passed = { result: result as unknown as CallToolResult, refused: false };
    if (result.isError === true) return passed;
    const validate = this.#outputValidator(spec);
    if (!validate) return passed;
    const issues = Object.hasOwn(result, "structuredContent")
      ? validate(result.structuredContent)
      : [MISSING_STRUCTURED];
    if (!issues.length) return passed;
    const limited = limitIssues(issues);
    this.#ctx.log({
      kind: "output-violation",
      at: this.#at(),
      server: record.id,
      tool: spec.name,
      version: spec.version,
      issues: limited.issues,
      omitted: limited.omitted,
    });
    const shown = limited.issues.slice(0, 3);
    const more = issues.length - shown.length;
    const text =
      `${spec.name}: server ${record.id} returned a result that breaks the outputSchema of ` +
      `${spec.name}@${spec.version}: ` +
      shown.map((i) => `${i.path}: ${i.message} (${i.keyword})`).join("; ") +
      (more > 0 ? `; … and ${more} more issue${more === 1 ? "" : "s"}` : "");
    return { result: toolError(text), refused: true };
  }

  /** The compiled output validator of a version (compiled once), or null when it has none. */
  #outputValidator(spec: ToolSpec): CompiledSchema | null {
    let v = this.#validators.get(spec);
    if (v === undefined) {
      v = spec.outputSchema === undefined ? null : compileSchema(spec.outputSchema);
      this.#validators.set(spec, v);
    }
    return v;
  }

  #callFailed(spec: ToolSpec, record: ServerRecord, message: string): void {
    this.#ctx.log({
      kind: "call-failed",
      at: this.#at(),
      server: record.id,
      tool: spec.name,
      version: spec.version,
      message,
    });
  }

  /** A publish, deprecation or retirement of an upstream tool: classify its drift again. */
  #estateChanged(event: EstateEvent): void {
    const record = this.#options.serverFor(event.name);
    const link = record && this.#links.get(record.id);
    if (link?.connection === "connected") link.track(event.name);
  }

  /** Sets the re-list timer (once; again after each run). */
  #arm(): void {
    if (this.#closed || this.#relistMs === 0 || this.#timer !== undefined) {
      return;
    }
    this.#timer = this.#ctx.timers.setTimeout(() => {
      this.refresh().finally(() => {
        this.#timer = undefined;
        this.#arm();
      });
    }, this.#relistMs);
  }

  #at(): string {
    return new Date(this.#ctx.now()).toISOString();
  }
}

/** Whether two records say the same (the link keeps its connection). */
function sameRecord(a: ServerRecord, b: ServerRecord): boolean {
  return a === b || canonicalJson(a) === canonicalJson(b);
}

/**
 * A result without what belongs to the upstream connection rather than to the result: the
 * 2026-07-28 `resultType`, and `_meta` keys under MCP's reserved `io.modelcontextprotocol/` prefix
 * (the upstream's `serverInfo`). The estate's server adds its own.
 */
function withoutEnvelope(
  raw: Record<string, unknown>,
): Record<string, unknown> {
  const { resultType: _envelope, ...result } = raw;
  if (isObject(result._meta)) {
    const meta = Object.fromEntries(
      Object.entries(result._meta).filter(([k]) => !k.startsWith(RESERVED_META)),
    );
    if (Object.keys(meta).length) result._meta = meta;
    else delete result._meta;
  }
  return result;
}

/** An `isError` result with one text block. */
function toolError(text: string): CallToolResult {
  return { content: [{ type: "text", text }], isError: true };
}

/**
 * A result the gateway made of an answer it would not forward (a malformed result, one that
 * breaks the outputSchema): for a tool that changes the world, it says plainly that the call ran
 * upstream, so nobody retries it blindly. The upstream's own results pass unchanged.
 */
function ranUpstream(
  spec: ToolSpec,
  record: ServerRecord,
  result: CallToolResult,
  refused: boolean,
): CallToolResult {
  if (!refused || spec.sideEffect === "read") return result;
  return toolError(
    `${(result.content[0] as { text: string }).text}. The call ran on server ${record.id} and ` +
      `may have taken effect (${spec.sideEffect}): check before calling ${spec.name} again`,
  );
}

/**
 * "<tool> is unavailable: <reason>", with a warning when the call may have reached a server that
 * did not answer and the tool's side effect makes a blind retry unsafe.
 */
function unavailable(
  spec: ToolSpec,
  reason: string,
  mayHaveRun = false,
): CallToolResult {
  const warning = mayHaveRun && !RETRYABLE[spec.sideEffect]
    ? `; the call may have reached it, so check before calling ${spec.name} again`
    : "";
  return toolError(`${spec.name} is unavailable: ${reason}${warning}`);
}
