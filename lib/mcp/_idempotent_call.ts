/**
 * The idempotency step of `tools/call`: a call carrying a key claims it before it may run (after
 * the schema check, so only a call that would run claims), stores its outcome under the key before
 * it is answered, and a repeat is answered from the store — never run again. See
 * `lib/estate/idempotency.ts` for the vocabulary and the store's contract.
 *
 * - claimed by this call: run; store the result (ok, tool error, declined, cancelled) or the
 *   JSON-RPC error it ended with; a 2026-07-28 round that ends asking for input stores nothing and
 *   releases the claim, so the retry carrying `requestState` and the same key goes on.
 * - done: the stored outcome, marked `_meta["dev.tool-estate/idempotentReplay"]: true`.
 * - bound to another tool, version or arguments: `-32602`, nothing runs.
 * - running: wait up to `idempotencyWaitMs` for its outcome; then `-32050` with
 *   `data.retryAfterSeconds` — or, once it has run longer than its lease, `-32051` (outcome
 *   unknown: its owner died; it is not run again).
 *
 * @module
 */
import {
  DEFAULT_IDEMPOTENCY_LEASE_MS,
  DEFAULT_IDEMPOTENCY_TTL_MS,
  type IdempotencyEntry,
  type IdempotencyOutcome,
  type IdempotencyStore,
  IDEMPOTENT_REPLAY_META_KEY,
  sameBinding,
} from "../estate/idempotency.ts";
import type { ToolSpec } from "../estate/spec.ts";
import { ERROR_CODES, ESTATE_ERROR_CODES, JsonRpcError } from "../jsonrpc/errors.ts";
import type { JsonRpcId } from "../jsonrpc/types.ts";
import { isObject } from "../_object.ts";
import { shortenText } from "../schema/issue_limit.ts";
import { argumentsDigest } from "./_request_state.ts";
import { type Caller, protocolError, type ServerCore } from "./_server_core.ts";
import type { CallToolResult } from "./protocol.ts";
import type { CallRecord } from "./server_options.ts";

/** Default bound of the wait for a running duplicate's outcome, in milliseconds. */
export const DEFAULT_IDEMPOTENCY_WAIT_MS = 5_000;

/** What the step needs of the call. */
export interface KeyedCall {
  /** Who calls. */
  caller: Caller;
  /** The request's id (for the outcome note). */
  id: JsonRpcId;
  /** Aborted when the caller cancels. */
  signal: AbortSignal;
  /** The key as sent (already checked). */
  key: string;
  /** The version that serves the call. */
  spec: ToolSpec;
  /** The (valid) arguments. */
  args: Record<string, unknown>;
  /** Logs the call's outcome. */
  record: (outcome: CallRecord["outcome"]) => void;
}

/** What running a claimed call came to, for the step to store (or not). */
export type RunAnswer<T> =
  /** A final result: stored. */
  | { kind: "final"; result: CallToolResult }
  /** A 2026-07-28 round that asks the client for input: nothing stored, the claim released. */
  | { kind: "again"; value: T };

/** Thrown by a run that ended before anything ran (a refused `requestState`): the key is freed. */
export class NotRun extends Error {
  /** What ended it. */
  readonly reason: unknown;
  /** @param reason What ended it. */
  constructor(reason: unknown) {
    super("the call ended before it ran");
    this.reason = reason;
  }
}

/**
 * Runs `run` at most once per key: claims the key, runs, stores the outcome, answers; or answers
 * a repeat from the store.
 *
 * @param core The server.
 * @param call The call and its key.
 * @param run Runs the call (the confirmation and the handler); a `JsonRpcError` it throws is an
 *   outcome too; a {@linkcode NotRun} frees the key and throws its reason.
 * @returns The result, or what `run` asked to pass on unstored.
 * @throws {JsonRpcError} The stored error, `-32602` for a key bound to another call, `-32050` while
 *   the first call runs, `-32051` when its outcome is unknown.
 */
export async function idempotently<T>(
  core: ServerCore,
  call: KeyedCall,
  run: () => Promise<RunAnswer<T>>,
): Promise<CallToolResult | T> {
  const { caller, key, spec } = call;
  const store = core.idempotency();
  const principal = caller.principal.id;
  const binding = {
    tool: spec.name,
    version: spec.version,
    digest: await argumentsDigest(call.args),
  };
  const owner = crypto.randomUUID();
  const startedAt = core.now();
  const ttl = core.options.idempotencyTtlMs ?? DEFAULT_IDEMPOTENCY_TTL_MS;
  const held = await store.claim({
    principal,
    key,
    binding,
    owner,
    startedAt,
    expires: startedAt + ttl,
  });
  if (held) return await answerRepeat(core, call, { store, entry: held, binding });
  const ref = { principal, key, owner };
  let answer: RunAnswer<T>;
  try {
    answer = await run();
  } catch (e) {
    if (e instanceof NotRun) {
      await store.release(ref);
      throw e.reason;
    }
    if (e instanceof JsonRpcError) {
      await store.finish(ref, { error: e.toJSON() });
      throw e;
    }
    // The server failed while the call ran: it may have run; a repeat is told so.
    throw e;
  }
  if (answer.kind === "again") {
    await store.release(ref);
    return answer.value;
  }
  let result = answer.result;
  if (call.signal.aborted) {
    // Cancelled while it ran: it may have done part of its work, so it is never run again.
    result = {
      content: [{
        type: "text",
        text: `${spec.name}: the call with idempotency key ${
          shown(key)
        } was cancelled while it ran; it is not run again with this key`,
      }],
      isError: true,
    };
  }
  await store.finish(ref, { result: result as unknown as Record<string, unknown> });
  return answer.result;
}

/** How a key is shown in a message: quoted, and shortened. */
function shown(key: string): string {
  return JSON.stringify(shortenText(key));
}

/** Answers a repeat of a key another call holds: replay, refuse, wait, or say it is unknown. */
async function answerRepeat(
  core: ServerCore,
  call: KeyedCall,
  held: {
    store: IdempotencyStore;
    entry: IdempotencyEntry;
    binding: { tool: string; version: string; digest: string };
  },
): Promise<CallToolResult> {
  const { caller, key, spec, record } = call;
  const { store, binding } = held;
  let entry: IdempotencyEntry | undefined = held.entry;
  if (!sameBinding(entry.binding, binding)) {
    record("key-refused");
    caller.outcomes.set(call.id, { kind: "idempotency-conflict" });
    throw protocolError(
      ERROR_CODES.INVALID_PARAMS,
      `Idempotency key ${
        shown(key)
      } was used with other arguments (first with ${entry.binding.tool}@${entry.binding.version}, arguments digest ${
        entry.binding.digest.slice(0, 12)
      }…); nothing was run. Use a new key for a new call.`,
      { idempotencyKey: key },
    );
  }
  const waitMs = core.options.idempotencyWaitMs ?? DEFAULT_IDEMPOTENCY_WAIT_MS;
  let waited = 0;
  let pause = 10;
  while (entry && !entry.outcome && waited < waitMs && !call.signal.aborted) {
    const ms = Math.min(pause, waitMs - waited);
    await sleep(ms, AbortSignal.any([call.signal, core.closed]));
    waited += ms;
    pause = Math.min(pause * 2, 250);
    entry = await store.read({ principal: caller.principal.id, key }, core.now());
  }
  if (!entry) {
    // The claim was released (a round that asked for input) or lapsed: nothing is stored to
    // answer with, and this call does not run in its place.
    record("key-refused");
    caller.outcomes.set(call.id, { kind: "in-progress", retryAfterSeconds: 1 });
    throw protocolError(
      ESTATE_ERROR_CODES.IDEMPOTENCY_IN_PROGRESS,
      `The call with idempotency key ${
        shown(key)
      } has not finished; nothing was run. Retry in 1 s.`,
      { idempotencyKey: key, retryAfterSeconds: 1 },
    );
  }
  if (entry.outcome) return replay(call, entry.outcome);
  const started = new Date(entry.startedAt).toISOString();
  const lease = core.options.idempotencyLeaseMs ?? DEFAULT_IDEMPOTENCY_LEASE_MS;
  record("key-refused");
  if (core.now() - entry.startedAt >= lease) {
    throw protocolError(
      ESTATE_ERROR_CODES.IDEMPOTENCY_OUTCOME_UNKNOWN,
      `Outcome unknown: the first call of ${spec.name} with idempotency key ${
        shown(key)
      } started at ${started} and never reported; it was not run again and will not be with this key.`,
      { idempotencyKey: key, startedAt: started },
    );
  }
  const retryAfterSeconds = Math.max(1, Math.ceil(waitMs / 1000));
  caller.outcomes.set(call.id, { kind: "in-progress", retryAfterSeconds });
  throw protocolError(
    ESTATE_ERROR_CODES.IDEMPOTENCY_IN_PROGRESS,
    `The first call of ${spec.name} with idempotency key ${
      shown(key)
    } (started at ${started}) is still running; nothing was run again. Retry in ${retryAfterSeconds} s for its outcome.`,
    { idempotencyKey: key, startedAt: started, retryAfterSeconds },
  );
}

/** The stored outcome as this call's answer. */
function replay(call: KeyedCall, outcome: IdempotencyOutcome): CallToolResult {
  call.record("replayed");
  if ("error" in outcome) {
    const { code, message, data } = outcome.error;
    throw new JsonRpcError(code, message, data === undefined ? {} : { data });
  }
  call.caller.outcomes.set(call.id, { kind: "answered", replayed: true });
  const result = outcome.result;
  return {
    ...result,
    _meta: { ...(isObject(result._meta) ? result._meta : {}), [IDEMPOTENT_REPLAY_META_KEY]: true },
  } as unknown as CallToolResult;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
  });
}
