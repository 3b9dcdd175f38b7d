/**
 * How an `McpServer` is set up and what it reports: {@linkcode McpServerOptions}, the timers it
 * takes, the options of one stateless request, and the records of calls and probes it logs.
 *
 * @module
 */
import type { TaskOptions } from "./tasks.ts";
import type { CallApprovalRule, PendingCallStore } from "../estate/call_approvals.ts";
import type { ToolRegistry } from "../estate/registry.ts";
import type { DeprecationNotice } from "../estate/deprecation.ts";
import type { CallLimiter } from "../estate/limits.ts";
import type { Principal, ToolSpec } from "../estate/spec.ts";
import type { Implementation } from "./protocol.ts";
import type { HeaderCheckedRequest } from "./rev2026_07_28.ts";
import type { SpentStates } from "./_request_state.ts";
import type { IdempotencyStore } from "../estate/idempotency.ts";
import type { AuditSink } from "../estate/audit.ts";

export type { SpentStates };
import type { PromptProvider, ResourceProvider } from "./providers.ts";
import type { Notify, ToolHandler } from "./tool_handler.ts";

/** One tool call, as logged: what `impact` and corpus replay learn from. */
export interface CallRecord {
  /** The principal's id. */
  principal: string;
  /** The tool. */
  tool: string;
  /** The version that served (or would have served) it. */
  version: string;
  /**
   * How it ended: `declined` when the user declined (or dismissed) the confirmation the estate
   * asked for, so the handler never ran; `input-required` when a 2026-07-28 round ended asking
   * the client for input (the client's retry is logged again); `insufficient-scope` when the
   * caller may see the tool but its credential lacks one of the version's `callScopes`, so the
   * call was refused with the step-up answer before anything ran; `rate-limited` when one of
   * the estate's call limits refused it before anything ran; `replayed` when a repeat of an
   * idempotency key was answered with the stored outcome of its first call (the handler did not
   * run again); `key-refused` when a repeat was refused (its key bound to other arguments, its
   * first call still running or its outcome unknown) and nothing ran; `held` when the estate's
   * `callApprovals` held it for a second person, so nothing ran yet (it is logged again, with its
   * outcome, when it runs once approved).
   */
  outcome:
    | "ok"
    | "tool-error"
    | "invalid-arguments"
    | "cancelled"
    | "declined"
    | "input-required"
    | "insufficient-scope"
    | "rate-limited"
    | "replayed"
    | "key-refused"
    | "held";
  /** Wall time in milliseconds. */
  durationMs: number;
  /** When it arrived (ISO 8601). */
  at: string;
  /** The arguments as received. */
  arguments: unknown;
  /** The user's answer to the confirmation the estate asked for, when it asked. */
  confirmation?: ConfirmationRecord;
  /** What the caller was told of the version's deprecation, when it is deprecated. */
  deprecation?: DeprecationNotice;
}

/** A confirmation, as logged: who answered, when, and what. */
export interface ConfirmationRecord {
  /** The principal whose user answered. */
  by: string;
  /** When the answer arrived (ISO 8601). */
  at: string;
  /** `accept` (confirmed), `decline` or `cancel`. */
  action: "accept" | "decline" | "cancel";
}

/**
 * A probe, as logged: a request that named a tool, prompt or resource the server then answered as
 * nonexistent — because there is none, or because the principal may not see it. The client's
 * bytes are the same either way; only this record says which.
 */
export interface ProbeRecord {
  /** The principal's id. */
  principal: string;
  /** The request: `tools/call`, `prompts/get`, `resources/read` or `completion/complete`. */
  method: string;
  /** The tool or prompt name, or the resource URI, as sent. */
  name: string;
  /** For a `tools/call` pinned with `_meta["dev.tool-estate/version"]`: the constraint. */
  version?: string;
  /**
   * True when it exists but the principal may not see it (the estate has the tool; a requirement
   * kept the prompt or resource away); false when nothing by that name exists.
   */
  hidden: boolean;
  /** When it arrived (ISO 8601). */
  at: string;
}

/** Options for an {@linkcode McpServer}. */
export interface McpServerOptions {
  /** The estate: it decides what each principal sees and which version serves a call. */
  registry: ToolRegistry;
  /** The handler for a tool version, or undefined when none is deployed. */
  handlerFor: (spec: ToolSpec) => ToolHandler | undefined;
  /** Resources; none when absent. */
  resources?: ResourceProvider;
  /** Prompts; none when absent. */
  prompts?: PromptProvider;
  /** This server's `serverInfo`. */
  serverInfo?: Implementation;
  /** Instructions for the model, sent in the `initialize` result. */
  instructions?: string;
  /** Items per page of `tools/list`, `resources/list`, `prompts/list`. Default 50. */
  pageSize?: number;
  /** Called once per `tools/call` that reached a tool version (see {@linkcode CallRecord}). */
  onCall?: (record: CallRecord) => void;
  /**
   * Called once per probe (see {@linkcode ProbeRecord}): a `tools/call`, `prompts/get`,
   * `resources/read` or `completion/complete` for a hidden or nonexistent name. Nothing the
   * client receives changes.
   */
  onProbe?: (probe: ProbeRecord) => void;
  /**
   * The estate's audit log: each `tools/call` decision (`call`: `allowed`, `refused` — a hidden or
   * unknown tool, a missing action scope, invalid arguments, a declined confirmation, a refused
   * idempotency key — or `rate-limited`) and each user's answer to a confirmation
   * (`confirmation`), redacted as `auditArguments` says (no argument values of `confidential` or
   * `restricted` tools), handed to the sink as the call ends (`estate serve`: the estate's store,
   * `EstateStore.appendAudit`). Default: none.
   */
  audit?: AuditSink;
  /**
   * The clock: call timings, and when the next retirement on its date is due for the timer.
   * Default `Date.now`.
   */
  now?: () => number;
  /**
   * Timers, for the retirement timer: while sessions or `subscriptions/listen` streams are open
   * the server keeps one timer set for the registry's next retirement on its date
   * (`registry.nextRetirement()`); when it fires the registry retires what is due, and every
   * session or stream that could see a retired version hears `notifications/tools/list_changed`.
   * Default: the platform's `setTimeout`/`clearTimeout`. Tests pass their own and move the clock.
   */
  timers?: ServerTimers;
  /**
   * How long a stateless (2026-07-28) client may cache a list, read or `server/discover` result
   * (`ttlMs`), in milliseconds. Default 0: re-fetch each time (the estate changes under
   * governance; a `subscriptions/listen` stream says when).
   */
  cacheTtlMs?: number;
  /**
   * The key that seals a 2026-07-28 input-required result's `requestState` (HMAC-SHA-256; 32
   * random bytes or more), or the keys newest first while rotating: the first seals, and a state
   * sealed under any of them opens (keep the old key listed until its states have lapsed,
   * `requestStateTtlMs`). Replicas that may serve each other's retries share them. Default: a
   * random key per server, so a retry must reach the server that asked.
   */
  requestStateKey?: Uint8Array | readonly Uint8Array[];
  /**
   * Where each `requestState`'s single use is claimed, as a retry presents it and before the call
   * runs. Replicas that share `requestStateKey` share this too, or a state spent on one could run
   * its call again on another (`estate serve` keeps it in the estate's store). Default: in memory.
   */
  spentStates?: SpentStates;
  /** How long a `requestState` stays valid, in milliseconds. Default 10 minutes. */
  requestStateTtlMs?: number;
  /**
   * The estate's call limits: each `tools/call` whose arguments were accepted is admitted and
   * counted, or refused with `-32029` (HTTP 429 with `Retry-After`) before anything runs. Replicas
   * count in one shared counter (`estate serve`: the estate's store). Default: no limits.
   */
  limiter?: CallLimiter;
  /**
   * Where the idempotency keys of `tools/call` (`_meta["dev.tool-estate/idempotencyKey"]`, HTTP
   * `Idempotency-Key`) are claimed and their outcomes stored. Replicas that may answer each
   * other's retries share it, or a retry reaching another replica runs the call again (`estate
   * serve` keeps it in the estate's store). Default: in memory, per server.
   */
  idempotency?: IdempotencyStore;
  /**
   * How long an idempotency key is kept after its first call claimed it, in milliseconds; after
   * that the same key runs anew. Default 24 hours.
   */
  idempotencyTtlMs?: number;
  /**
   * How long the first call with a key may run before a repeat is told its outcome is unknown
   * (`-32051`: it started and never reported — its server died; it is not run again), in
   * milliseconds. Default 10 minutes.
   */
  idempotencyLeaseMs?: number;
  /**
   * How long a repeat waits for the outcome of a first call still running before it is answered
   * `-32050` (retry later), in milliseconds. Default 5 seconds.
   */
  idempotencyWaitMs?: number;
  /**
   * Tasks (`tools/call`s answered with a handle the client polls; see `tasks.ts`): where they are
   * kept, their default TTL and poll interval. A handler makes one by returning `asTask(plan)`.
   * Default: in memory, per server.
   */
  tasks?: TaskOptions;
  /**
   * Calls that wait on a person (`estate.json`'s `callApprovals`): a call a rule holds becomes a
   * task that waits until a second person decides it (see `lib/estate/pending_calls.ts`), kept in
   * `pendingCalls` — shared by every replica, each of which runs approved calls (exactly one runs
   * each). Without it no call is held.
   */
  callApprovals?: CallApprovalOptions;
}

/** Where a server finds the rules that hold calls and keeps the calls they hold. */
export interface CallApprovalOptions {
  /** The rules in force, read per call (the settings as last taken in). */
  rules(): readonly CallApprovalRule[];
  /** Where the pending calls are kept (`EstateStore.pendingCalls()` for replicas). */
  pendingCalls: PendingCallStore;
  /** How often the server looks for approved and lapsed calls, in ms. Default 1000. */
  sweepMs?: number;
  /** Told when a look at the pending calls failed (the next one tries again). Default: stderr. */
  onError?: (error: unknown) => void;
}

/** Setting and clearing one timer (see `McpServerOptions.timers`). */
export interface ServerTimers {
  /** Calls `fn` once after `ms` milliseconds; returns a handle for `clearTimeout`. */
  setTimeout(fn: () => void, ms: number): unknown;
  /** Cancels a timer set with `setTimeout`. */
  clearTimeout(handle: unknown): void;
}

/** Options for {@linkcode McpServer.handleStateless}: who is calling and how to reach them. */
export interface StatelessOptions {
  /** The principal the transport authenticated for this request. */
  principal: Principal;
  /**
   * Sends a notification related to this request (progress, log messages, and a
   * `subscriptions/listen` stream's notifications). Default: none are sent.
   */
  notify?: Notify;
  /** Aborted when the caller cancels (closes the HTTP stream, sends `notifications/cancelled`). */
  signal?: AbortSignal;
  /**
   * The transport's own check of the request against what came with it (Streamable HTTP: the
   * `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name` headers, `modernHeaderProblem`). Run
   * after the envelope is read and before the revision and the method are checked; a message
   * refuses the request with `-32020` (outcome `header-mismatch`). Default: no check.
   */
  checkHeaders?: (request: HeaderCheckedRequest) => string | undefined;
}
