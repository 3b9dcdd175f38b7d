/**
 * The folder store's idempotency keys: one file per key, `.idempotency/<sha256(principal, key)>.json`
 * (a folder git ignores: runtime, not estate). A claim creates its file exclusively (linked into
 * place complete, so one creator wins and no reader sees it half written); replacing a lapsed
 * entry, storing an outcome, releasing a claim and deleting lapsed files are done under the
 * folder's lock, so two processes on one folder agree.
 *
 * @module
 */
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import type {
  IdempotencyClaim,
  IdempotencyEntry,
  IdempotencyOutcome,
  IdempotencyRef,
} from "../estate/idempotency.ts";
import { createExclusive, ensureRuntimeDir, replaceAtomic } from "./_atomic.ts";
import { type LockOptions, withLock } from "./_lock.ts";

/** The folder of idempotency keys, in the estate's folder. */
export const IDEMPOTENCY_DIR = ".idempotency";

/** A key's file: its ref and its entry. */
type KeyFile = IdempotencyRef & IdempotencyEntry;

function fileOf(dir: string, ref: IdempotencyRef): string {
  const name = createHash("sha256").update(`${ref.principal}\u0000${ref.key}`).digest("hex");
  return path.join(dir, `${name}.json`);
}

function readKey(file: string): KeyFile | undefined {
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (e) {
    if ((e as { code?: string }).code === "ENOENT") return undefined;
    throw e;
  }
  return JSON.parse(text) as KeyFile;
}

function entryOf(file: KeyFile): IdempotencyEntry {
  const { principal: _p, key: _k, ...entry } = file;
  return entry;
}

/** The idempotency keys of the estate in folder `estate`. */
export class IdempotencyDir {
  readonly #dir: string;
  readonly #lock: LockOptions;

  /**
   * @param estate The estate's folder.
   * @param lock How long to wait for the folder's lock.
   */
  constructor(estate: string, lock: LockOptions) {
    this.#dir = path.join(estate, IDEMPOTENCY_DIR);
    this.#lock = lock;
  }

  #ensure(): void {
    ensureRuntimeDir(this.#dir);
  }

  #locked<T>(what: string, fn: () => T): T {
    return withLock(this.#dir, what, this.#lock, fn);
  }

  claim(claim: IdempotencyClaim): IdempotencyEntry | undefined {
    this.#ensure();
    if (Math.random() < 1 / 64) this.#sweep(claim.startedAt);
    const file = fileOf(this.#dir, claim);
    const text = JSON.stringify({
      principal: claim.principal,
      key: claim.key,
      binding: claim.binding,
      owner: claim.owner,
      startedAt: claim.startedAt,
      expires: claim.expires,
    });
    if (createExclusive(file, text)) return undefined;
    const held = readKey(file);
    if (held && held.expires > claim.startedAt) return entryOf(held);
    return this.#locked("claim an idempotency key", () => {
      const now = readKey(file);
      if (now && now.expires > claim.startedAt) return entryOf(now);
      replaceAtomic(file, text);
      return undefined;
    });
  }

  finish(ref: IdempotencyRef & { owner: string }, outcome: IdempotencyOutcome): boolean {
    const file = fileOf(this.#dir, ref);
    return this.#locked("store an idempotency outcome", () => {
      const held = readKey(file);
      if (!held || held.owner !== ref.owner) return false;
      replaceAtomic(file, JSON.stringify({ ...held, outcome }));
      return true;
    });
  }

  release(ref: IdempotencyRef & { owner: string }): void {
    const file = fileOf(this.#dir, ref);
    this.#locked("release an idempotency key", () => {
      const held = readKey(file);
      if (held && held.owner === ref.owner && !held.outcome) fs.rmSync(file, { force: true });
    });
  }

  read(ref: IdempotencyRef, now: number): IdempotencyEntry | undefined {
    const held = readKey(fileOf(this.#dir, ref));
    return held && held.expires > now ? entryOf(held) : undefined;
  }

  /** Deletes the files of keys lapsed at `now`. */
  #sweep(now: number): void {
    this.#locked("delete lapsed idempotency keys", () => {
      for (const name of fs.readdirSync(this.#dir)) {
        if (!name.endsWith(".json")) continue;
        const file = path.join(this.#dir, name);
        try {
          const held = readKey(file);
          if (held && held.expires <= now) fs.rmSync(file, { force: true });
        } catch {
          // a file that cannot be read is left for the next sweep
        }
      }
    });
  }
}
