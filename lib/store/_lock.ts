/**
 * A lock file per folder (`.lock`), so that one process at a time reads-decides-writes a tool.
 * It is linked into place from a complete temporary file (so it is never seen empty) and holds
 * `{pid, host, at, nonce}`. A waiter retries with a
 * short backoff. A lock whose holder is a dead process on this host is stale and broken at once:
 * a crashed publish must not block the next one. (When either side's host name is unknown —
 * Deno without --allow-sys — the holder is taken to be on this host.) A lock file that cannot be
 * read for longer than `staleMs` is broken too. A lock held by a live process, or by one whose
 * pid cannot be checked (on another host, or without permission to signal processes), is never
 * broken: after `timeoutMs` the waiter gives up, saying who holds it.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import process from "node:process";

/** The lock file's name in the folder it locks. */
export const LOCK_NAME = ".lock";

/** Options for {@linkcode withLock}. */
export interface LockOptions {
  /** How long to wait for the lock, in milliseconds. */
  timeoutMs: number;
  /** After how long an unreadable lock file is taken to be stale, in milliseconds. */
  staleMs: number;
}

interface Holder {
  pid: number;
  host: string;
  at: string;
  nonce: string;
}

const pause = new Int32Array(new SharedArrayBuffer(4));

function sleep(ms: number): void {
  Atomics.wait(pause, 0, 0, ms);
}

/** Whether a process on this host is running; `unknown` without permission to ask (Deno). */
function probe(pid: number): "running" | "gone" | "unknown" {
  try {
    process.kill(pid, 0);
    return "running";
  } catch (e) {
    const code = (e as { code?: string }).code;
    return code === "ESRCH" ? "gone" : code === "EPERM" ? "running" : "unknown";
  }
}

/** This host's name; empty without permission to ask (Deno without --allow-sys). */
function hostname(): string {
  try {
    return os.hostname();
  } catch {
    return "";
  }
}

function readHolder(
  file: string,
): { text: string; holder?: Holder; ageMs: number } | undefined {
  let text: string, mtime: number;
  try {
    text = fs.readFileSync(file, "utf8");
    mtime = fs.statSync(file).mtimeMs;
  } catch (e) {
    if ((e as { code?: string }).code === "ENOENT") return undefined;
    throw e;
  }
  const ageMs = Date.now() - mtime;
  try {
    const h = JSON.parse(text) as Holder;
    if (Number.isInteger(h.pid) && typeof h.host === "string") {
      return { text, holder: h, ageMs };
    }
  } catch {
    // Being written, or damaged: judged by age.
  }
  return { text, ageMs };
}

/** Moves a stale lock aside and removes it, unless it turns out to be a fresh one just taken. */
function breakLock(file: string, staleText: string): void {
  const aside = `${file}.broken-${process.pid}-${Math.random().toString(16).slice(2)}`;
  try {
    fs.renameSync(file, aside);
  } catch (e) {
    if ((e as { code?: string }).code === "ENOENT") return;
    throw e;
  }
  try {
    if (fs.readFileSync(aside, "utf8") !== staleText) {
      // Another process broke the stale lock and took a fresh one in between: put it back.
      try {
        fs.linkSync(aside, file);
      } catch {
        // Someone holds the lock again; the fresh holder's lock was lost, which is as rare as it
        // is harmless here: version files are created exclusively regardless.
      }
    }
  } finally {
    fs.rmSync(aside, { force: true });
  }
}

/**
 * Removes the temporary lock files (`.lock-<pid>-<nonce>`) of processes that are gone: a waiter
 * killed between writing its temporary file and linking it leaves one. Files of live processes,
 * or of ones whose state cannot be checked, are kept.
 */
function removeDeadTemps(dir: string): void {
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    const m = /^\.lock-(\d+)-[0-9a-f]+$/.exec(name);
    if (m && Number(m[1]) !== process.pid && probe(Number(m[1])) === "gone") {
      fs.rmSync(path.join(dir, name), { force: true });
    }
  }
}

/**
 * Runs `fn` holding the lock of `dir` (which must exist), releasing it afterwards.
 *
 * @param dir The folder to lock.
 * @param purpose What the lock is for, for the timeout message, e.g. `publish payments.lookup@1.1.0`.
 * @param options Timeout and staleness.
 * @param fn The work.
 * @returns What `fn` returns.
 * @throws {Error} When the lock is not obtained within the timeout, naming the lock file and its
 *   holder.
 */
export function withLock<T>(
  dir: string,
  purpose: string,
  options: LockOptions,
  fn: () => T,
): T {
  const file = path.join(dir, LOCK_NAME);
  const host = hostname();
  const mine = JSON.stringify({
    pid: process.pid,
    host,
    at: new Date().toISOString(),
    nonce: Math.random().toString(16).slice(2),
  });
  const deadline = Date.now() + options.timeoutMs;
  let delay = 2;
  for (;;) {
    // The lock appears with its holder already written: a temporary file linked into place (the
    // link fails if the lock exists), so a holder killed at any moment never leaves an empty lock.
    // Not named `.tmp-*`: the lock holder removes those leftovers while others may be linking.
    const temp = path.join(
      dir,
      `.lock-${process.pid}-${Math.random().toString(16).slice(2)}`,
    );
    try {
      fs.writeFileSync(temp, mine, { flag: "wx" }); // a new file: never through a symbolic link
    } catch (e) {
      fs.rmSync(temp, { force: true }); // a full disk leaves it empty
      throw e;
    }
    let acquired = false;
    try {
      fs.linkSync(temp, file);
      acquired = true;
    } catch (e) {
      if ((e as { code?: string }).code !== "EEXIST") throw e;
    } finally {
      fs.rmSync(temp, { force: true });
    }
    if (acquired) {
      removeDeadTemps(dir);
      break;
    }
    const seen = readHolder(file);
    if (!seen) continue; // released meanwhile
    const { holder, ageMs } = seen;
    // A holder on this host (or on an unknown one: a host name needs --allow-sys in Deno) whose
    // pid can be probed.
    const local = holder !== undefined &&
      (holder.host === host || !holder.host || !host);
    const state = local && holder.pid !== process.pid ? probe(holder.pid) : undefined;
    const stale = holder ? state === "gone" : ageMs > options.staleMs;
    if (stale) {
      breakLock(file, seen.text);
      continue;
    }
    if (Date.now() >= deadline) {
      const who = holder
        ? `pid ${holder.pid}${holder.host ? ` on ${holder.host}` : ""} since ${holder.at}` +
          (!local
            ? " (another host, so whether it is running cannot be checked)"
            : state === "unknown"
            ? " (whether it is running cannot be checked without permission to signal processes)"
            : ", which is still running")
        : `an unreadable holder (modified ${Math.round(ageMs / 1000)} s ago)`;
      throw new Error(
        `Cannot ${purpose}: ${file} is held by ${who}; waited ${options.timeoutMs} ms. Try again; if no process is using the estate, delete ${file}`,
      );
    }
    sleep(Math.min(delay, Math.max(1, deadline - Date.now())));
    delay = Math.min(delay * 2, 100);
  }
  try {
    return fn();
  } finally {
    release(file, mine);
  }
}

/** Removes the lock file if it is still ours. */
function release(file: string, mine: string): void {
  try {
    if (fs.readFileSync(file, "utf8") === mine) {
      fs.rmSync(file, { force: true });
    }
  } catch (e) {
    if ((e as { code?: string }).code !== "ENOENT") throw e;
  }
}
