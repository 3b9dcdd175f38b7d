/**
 * Idempotency keys: at most once for a `tools/call` a caller may send again. A call carrying a key
 * (`_meta["dev.tool-estate/idempotencyKey"]`, or HTTP's `Idempotency-Key`) claims it before its
 * handler runs; the claim is bound to the principal (keys are per principal), the tool, the
 * version and a digest of the arguments. The call's outcome is stored under the key before it is
 * answered, and a repeat is answered with the stored outcome instead of running again — on every
 * replica sharing the store. A key lapses a stated time (`ttlMs`, 24 hours by default) after its
 * claim; then the same key runs anew.
 *
 * This module holds the vocabulary and the store's contract, with a store in memory; the server
 * step is `lib/mcp/_idempotent_call.ts`, the folder and PostgreSQL stores implement
 * {@linkcode IdempotencyStore} as `EstateStore` methods.
 *
 * @module
 */
import { META_PREFIX } from "./spec.ts";

/** The `_meta` key of a `tools/call` that carries its idempotency key. */
export const IDEMPOTENCY_META_KEY: string = `${META_PREFIX}idempotencyKey`;

/** The `_meta` key of a result answered from a stored outcome (`true`), not by running the tool. */
export const IDEMPOTENT_REPLAY_META_KEY: string = `${META_PREFIX}idempotentReplay`;

/** How long a key is kept after its claim, by default: 24 hours. */
export const DEFAULT_IDEMPOTENCY_TTL_MS: number = 24 * 60 * 60_000;

/**
 * How long a claim may stay running before a repeat is told its outcome is unknown, by default:
 * 10 minutes (the owner is taken to have died without reporting; the call is never run again).
 */
export const DEFAULT_IDEMPOTENCY_LEASE_MS: number = 10 * 60_000;

/**
 * Whether a value is a usable idempotency key: a string of 1 to 255 printable ASCII characters
 * (`!` to `~`, no spaces or controls).
 *
 * @param value The value sent.
 * @returns True when it is one.
 *
 * @example
 * ```ts
 * import { isIdempotencyKey } from "@tool-estate/core";
 * import assert from "node:assert/strict";
 * assert.equal(isIdempotencyKey("8e03978e-40d5-43e8-bc93-6894a57f9324"), true);
 * assert.equal(isIdempotencyKey(""), false);
 * assert.equal(isIdempotencyKey("naïve"), false);
 * ```
 */
export function isIdempotencyKey(value: unknown): value is string {
  return typeof value === "string" && /^[\x21-\x7e]{1,255}$/.test(value);
}

/** What a key is bound to beside its principal: the same key with another binding is refused. */
export interface IdempotencyBinding {
  /** The tool's name. */
  tool: string;
  /** The version that serves the call. */
  version: string;
  /** SHA-256 (hex) of the arguments' canonical JSON. */
  digest: string;
}

/** Which key: keys are per principal (one string from two principals is two keys). */
export interface IdempotencyRef {
  /** The principal's id. */
  principal: string;
  /** The key as sent. */
  key: string;
}

/** A claim of a key, as {@linkcode IdempotencyStore.claim} takes it. */
export interface IdempotencyClaim extends IdempotencyRef {
  /** What the key is bound to. */
  binding: IdempotencyBinding;
  /** Who runs the call: a random id per claim. */
  owner: string;
  /** When the claim is made (ms since the epoch). */
  startedAt: number;
  /** When the key lapses (ms since the epoch): after it, the same key runs anew. */
  expires: number;
}

/** How a call ended, as stored under its key: its result, or the JSON-RPC error it ended with. */
export type IdempotencyOutcome =
  | { result: Record<string, unknown> }
  | { error: { code: number; message: string; data?: unknown } };

/** A key as stored: claimed and running (no `outcome` yet), or done. */
export interface IdempotencyEntry {
  /** What the key is bound to. */
  binding: IdempotencyBinding;
  /** Who claimed it. */
  owner: string;
  /** When it was claimed (ms since the epoch). */
  startedAt: number;
  /** When it lapses (ms since the epoch). */
  expires: number;
  /** The outcome, once the call ended; absent while it runs. */
  outcome?: IdempotencyOutcome;
}

/** A value, or a promise of it: a store in memory or in a folder answers at once. */
export type MaybePromise<T> = T | Promise<T>;

/**
 * Where idempotency keys are kept. Every replica that may answer another's retry shares one (the
 * estate's store under `estate serve`); the default is in memory, per server.
 */
export interface IdempotencyStore {
  /**
   * Claims a key: when no live entry has it (none, or one lapsed at `startedAt`), stores the claim
   * as running and answers undefined; otherwise changes nothing and answers the live entry. Of
   * concurrent claims of one key, by any writer, exactly one gets undefined.
   */
  claim(claim: IdempotencyClaim): MaybePromise<IdempotencyEntry | undefined>;
  /**
   * Stores a claimed call's outcome (before it is answered).
   *
   * @returns False when `owner` no longer holds the claim (it lapsed and was claimed again).
   */
  finish(ref: IdempotencyRef & { owner: string }, outcome: IdempotencyOutcome): MaybePromise<
    boolean
  >;
  /** Drops a running claim `owner` holds, with nothing stored: the call may run again. */
  release(ref: IdempotencyRef & { owner: string }): MaybePromise<void>;
  /** The live entry of a key at `now`, or undefined (none, or lapsed). */
  read(ref: IdempotencyRef, now: number): MaybePromise<IdempotencyEntry | undefined>;
}

/**
 * Idempotency keys in memory, at most `max` live ones (the oldest claimed forgotten first; lapsed
 * ones are dropped as claims go).
 *
 * @param max How many keys to keep at most. Default 100,000.
 * @returns The store.
 *
 * @example
 * ```ts
 * import { memoryIdempotencyStore } from "@tool-estate/core";
 * import assert from "node:assert/strict";
 * const store = memoryIdempotencyStore();
 * const binding = { tool: "payments.release", version: "1.0.1", digest: "ab" };
 * const claim = { principal: "ops", key: "k1", binding, owner: "o1", startedAt: 0, expires: 10 };
 * assert.equal(await store.claim(claim), undefined);
 * assert.equal((await store.claim({ ...claim, owner: "o2" }))?.owner, "o1");
 * await store.finish({ principal: "ops", key: "k1", owner: "o1" }, { result: { content: [] } });
 * const entry = await store.read({ principal: "ops", key: "k1" }, 5);
 * assert.deepEqual(entry?.outcome, { result: { content: [] } });
 * assert.equal(await store.read({ principal: "ops", key: "k1" }, 10), undefined); // lapsed
 * ```
 */
export function memoryIdempotencyStore(max = 100_000): IdempotencyStore {
  const entries = new Map<string, IdempotencyEntry>();
  const id = (ref: IdempotencyRef) => JSON.stringify([ref.principal, ref.key]);
  const copy = (e: IdempotencyEntry): IdempotencyEntry => structuredClone(e);
  return {
    claim(claim) {
      const at = id(claim);
      const live = entries.get(at);
      if (live && live.expires > claim.startedAt) return copy(live);
      entries.delete(at);
      entries.set(at, {
        binding: { ...claim.binding },
        owner: claim.owner,
        startedAt: claim.startedAt,
        expires: claim.expires,
      });
      for (const [k, e] of entries) {
        if (entries.size <= max && e.expires > claim.startedAt) break;
        entries.delete(k);
      }
      return undefined;
    },
    finish(ref, outcome) {
      const entry = entries.get(id(ref));
      if (!entry || entry.owner !== ref.owner) return false;
      entry.outcome = structuredClone(outcome);
      return true;
    },
    release(ref) {
      const entry = entries.get(id(ref));
      if (entry && entry.owner === ref.owner && !entry.outcome) entries.delete(id(ref));
    },
    read(ref, now) {
      const entry = entries.get(id(ref));
      return entry && entry.expires > now ? copy(entry) : undefined;
    },
  };
}

/**
 * Whether two bindings are the same call.
 *
 * @param a One.
 * @param b The other.
 * @returns True when tool, version and digest agree.
 */
export function sameBinding(a: IdempotencyBinding, b: IdempotencyBinding): boolean {
  return a.tool === b.tool && a.version === b.version && a.digest === b.digest;
}
