/**
 * Call limits: how many `tools/call`s the estate admits per window, per principal, per tool and
 * for the whole estate, as `estate.json`'s `limits` declares them. Pure: which limits a call
 * falls under, the counters it must take, and the refusal a caller is told; the counting itself
 * is a {@linkcode QuotaCounter} (in memory here, in the estate's store across replicas).
 *
 * Windows are fixed and aligned to UTC (a per-minute limit starts afresh at each whole minute),
 * so every replica counting in one store agrees on the window without talking to the others.
 * Within one window a limit admits at most `calls` calls; a refused call is not counted, so a
 * caller that keeps calling at its limit takes nothing from anyone else's. A limiter remembers a
 * counter it found at its max until the window ends and refuses its calls without asking the
 * counter again. (A counter at its max can fall back by one only when a call that took it was
 * refused by a later counter and gave it back; a limiter that saw it full in that instant refuses
 * for the rest of the window: a limit may then admit one call fewer, never more.)
 *
 * @module
 */
import { isObject } from "../_object.ts";
import { isToolPattern, toolPatternMatches } from "./_tool_pattern.ts";

/** The windows a limit counts over, and their length in milliseconds. */
export const LIMIT_WINDOWS: Readonly<Record<LimitWindow, number>> = Object.freeze({
  second: 1_000,
  minute: 60_000,
  hour: 3_600_000,
  day: 86_400_000,
});

/** A window a limit counts over. */
export type LimitWindow = "second" | "minute" | "hour" | "day";

/** How a limit is counted: for each principal apart, or once for every caller together. */
export type LimitEach = "principal" | "estate";

/**
 * One limit, as `estate.json`'s `limits` lists it.
 *
 * @example `payments.release` at most 5 times a minute for each principal
 * ```json
 * { "tool": "payments.release", "calls": 5, "per": "minute" }
 * ```
 */
export interface CallLimit {
  /** The tool it applies to: a name, or a prefix ending in `.*` (`payments.*`). Default: every tool. */
  tool?: string;
  /** The principal it applies to (an id). Default: every principal. */
  principal?: string;
  /**
   * Counted for each principal apart (`principal`, the default) or once for all the calls it
   * applies to, whoever makes them (`estate`).
   */
  each?: LimitEach;
  /** At most this many calls (a positive integer) … */
  calls: number;
  /** … in each window of this length. */
  per: LimitWindow;
}

/** What one admitted call takes from one limit's counter. */
export interface QuotaTake {
  /** The counter: the limit, whose count it is (a principal, or everyone), and the window. */
  readonly key: string;
  /** The most the counter may reach. */
  readonly max: number;
  /** When the window ends (ms since the epoch): the counter is not needed after it. */
  readonly until: number;
}

/**
 * Where the counts are kept. `take` counts one call against each counter, or against none: when
 * any counter is at its `max`, nothing is taken and the index of the first such take is returned.
 * Implementations must do this atomically for every process that shares the counter (the estate's
 * store does, for the replicas of one estate).
 */
export interface QuotaCounter {
  /**
   * Takes one call from each counter, all or none.
   *
   * @param takes The counters, in the order they are checked.
   * @param now The time (ms since the epoch), for forgetting windows that have ended.
   * @returns -1 when every take was counted; else the index of the first counter at its max.
   */
  take(takes: readonly QuotaTake[], now: number): number | Promise<number>;
}

/** Why a call was refused: the limit it reached, and when to try again. */
export interface LimitRefusal {
  /** The limit, in words (`payments.release: 5 calls a minute for each principal`). */
  readonly limit: string;
  /** The limit's `calls`. */
  readonly calls: number;
  /** The limit's window. */
  readonly per: LimitWindow;
  /** Whole seconds until the window ends (at least 1): HTTP's `Retry-After`. */
  readonly retryAfterSeconds: number;
  /** When the window ends (ISO 8601). */
  readonly resetsAt: string;
}

/**
 * Every problem with a value as `estate.json`'s `limits`, each naming the entry and field.
 *
 * @param value The candidate.
 * @returns One sentence per problem; empty when the limits are valid.
 *
 * @example
 * ```ts
 * import { callLimitProblems } from "@tool-estate/core";
 * import assert from "node:assert/strict";
 * assert.deepEqual(callLimitProblems([{ tool: "payments.release", calls: 5, per: "minute" }]), []);
 * assert.deepEqual(callLimitProblems([{ calls: 0, per: "week" }]), [
 *   "limits[0].calls must be a positive integer, got 0",
 *   'limits[0].per must be one of second, minute, hour, day, got "week"',
 * ]);
 * ```
 */
export function callLimitProblems(value: unknown): string[] {
  if (!Array.isArray(value)) return ["limits must be an array of limits"];
  const problems: string[] = [];
  value.forEach((limit, i) => {
    const at = `limits[${i}]`;
    if (!isObject(limit)) {
      problems.push(`${at} must be an object`);
      return;
    }
    if (!(Number.isSafeInteger(limit.calls) && (limit.calls as number) > 0)) {
      problems.push(`${at}.calls must be a positive integer, got ${JSON.stringify(limit.calls)}`);
    }
    if (typeof limit.per !== "string" || !Object.hasOwn(LIMIT_WINDOWS, limit.per)) {
      problems.push(
        `${at}.per must be one of ${Object.keys(LIMIT_WINDOWS).join(", ")}, got ${
          JSON.stringify(limit.per)
        }`,
      );
    }
    for (const field of ["tool", "principal"] as const) {
      const v = limit[field];
      if (v !== undefined && !isToolPattern(v)) {
        problems.push(`${at}.${field} must be a non-empty string, got ${JSON.stringify(v)}`);
      }
    }
    if (limit.each !== undefined && limit.each !== "principal" && limit.each !== "estate") {
      problems.push(
        `${at}.each must be "principal" or "estate", got ${JSON.stringify(limit.each)}`,
      );
    }
    for (const k of Object.keys(limit)) {
      if (!["tool", "principal", "each", "calls", "per"].includes(k)) {
        problems.push(`${at} has an unknown field ${k}`);
      }
    }
  });
  return problems;
}

/**
 * A limit in words, as a refusal names it.
 *
 * @param limit The limit.
 * @returns E.g. `payments.release: 5 calls a minute for each principal`.
 */
export function limitText(limit: CallLimit): string {
  const what = limit.tool ?? "every tool";
  const calls = `${limit.calls} call${limit.calls === 1 ? "" : "s"} ${
    limit.per === "hour" ? "an" : "a"
  } ${limit.per}`;
  const whom = limit.principal !== undefined
    ? `for ${limit.principal}`
    : (limit.each ?? "principal") === "principal"
    ? "for each principal"
    : "for every caller together";
  return `${what}: ${calls} ${whom}`;
}

/** Whether a limit applies to a call of `tool` by `principal`. */
function appliesTo(limit: CallLimit, call: { principal: string; tool: string }): boolean {
  if (limit.principal !== undefined && limit.principal !== call.principal) return false;
  return limit.tool === undefined || toolPatternMatches(limit.tool, call.tool);
}

/** Whether a limit is counted for each principal apart. */
function perPrincipal(limit: CallLimit): boolean {
  return limit.principal !== undefined || (limit.each ?? "principal") === "principal";
}

/**
 * The counters a call must take, with their limits: those counted for one principal first, then
 * those every caller shares, each group in the order declared — so a principal at its own limit
 * is refused before it touches a shared counter.
 *
 * @param limits The estate's limits.
 * @param call Who calls what, and when (ms since the epoch).
 * @returns The takes, each with the limit it counts for.
 */
export function quotaTakes(
  limits: readonly CallLimit[],
  call: { principal: string; tool: string; now: number },
): { limit: CallLimit; take: QuotaTake }[] {
  const applying = limits.filter((l) => appliesTo(l, call));
  const ordered = [
    ...applying.filter(perPrincipal),
    ...applying.filter((l) => !perPrincipal(l)),
  ];
  return ordered.map((limit) => {
    const length = LIMIT_WINDOWS[limit.per];
    const start = Math.floor(call.now / length) * length;
    const whose = perPrincipal(limit) ? `principal ${call.principal}` : "estate";
    return {
      limit,
      take: {
        key: JSON.stringify([limit.tool ?? "*", limit.principal ?? "*", limit.per, whose, start]),
        max: limit.calls,
        until: start + length,
      },
    };
  });
}

/**
 * The refusal for a call that reached `limit`'s max in the window ending at `until`.
 *
 * @param limit The limit.
 * @param until When its window ends (ms since the epoch).
 * @param now The time.
 * @returns What the caller is told.
 */
export function limitRefusal(limit: CallLimit, until: number, now: number): LimitRefusal {
  return {
    limit: limitText(limit),
    calls: limit.calls,
    per: limit.per,
    retryAfterSeconds: Math.max(1, Math.ceil((until - now) / 1000)),
    resetsAt: new Date(until).toISOString(),
  };
}

/**
 * The sentence a refused caller reads.
 *
 * @param refusal The refusal.
 * @returns E.g. `Rate limited (payments.release: 5 calls a minute for each principal); nothing was
 *   done; try again in 42 s`.
 */
export function limitRefusalText(refusal: LimitRefusal): string {
  return `Rate limited (${refusal.limit}); nothing was done; try again in ${refusal.retryAfterSeconds} s`;
}

/**
 * Counts in this process's memory: exact for one server; replicas each count apart unless they
 * share a counter in the estate's store. Windows that have ended are forgotten as calls go.
 *
 * @returns The counter.
 */
export function memoryQuotaCounter(): QuotaCounter {
  const counts = new Map<string, { n: number; until: number }>();
  let sweepAt = 0;
  return {
    take(takes, now) {
      if (now >= sweepAt) {
        for (const [key, c] of counts) if (c.until <= now) counts.delete(key);
        sweepAt = now + 1_000;
      }
      const refused = takes.findIndex((t) => (counts.get(t.key)?.n ?? 0) >= t.max);
      if (refused >= 0) return refused;
      for (const t of takes) {
        const c = counts.get(t.key);
        if (c) c.n++;
        else counts.set(t.key, { n: 1, until: t.until });
      }
      return -1;
    },
  };
}

/**
 * Decides whether a call may run under the estate's limits, and counts it when it may.
 *
 * @example
 * ```ts
 * import { CallLimiter } from "@tool-estate/core";
 * import assert from "node:assert/strict";
 * const limiter = new CallLimiter([{ tool: "payments.release", calls: 1, per: "minute" }]);
 * const call = { principal: "agent-1", tool: "payments.release", now: 0 };
 * assert.equal(await limiter.admit(call), undefined);
 * assert.equal((await limiter.admit(call))?.retryAfterSeconds, 60);
 * assert.equal(await limiter.admit({ ...call, principal: "agent-2" }), undefined);
 * ```
 */
export class CallLimiter {
  readonly #limits: () => readonly CallLimit[];
  readonly #counter: QuotaCounter;
  /** Counters found at their max, until their window ends: refused here, without the counter. */
  readonly #full = new Map<string, { until: number; max: number }>();
  #sweepAt = 0;

  /**
   * A limiter over the estate's limits.
   *
   * @param limits The limits, or a function giving the ones in force (read per call, so a
   *   settings change applies to the next call).
   * @param counter Where the counts are kept. Default: this process's memory.
   */
  constructor(
    limits: readonly CallLimit[] | (() => readonly CallLimit[]),
    counter: QuotaCounter = memoryQuotaCounter(),
  ) {
    this.#limits = typeof limits === "function" ? limits : () => limits;
    this.#counter = counter;
  }

  /**
   * Counts the call against every limit it falls under, or refuses it (counting nothing).
   *
   * @param call Who calls which tool, and when (ms since the epoch).
   * @returns Undefined when the call may run; the refusal otherwise.
   */
  async admit(
    call: { principal: string; tool: string; now: number },
  ): Promise<LimitRefusal | undefined> {
    const limits = this.#limits();
    if (!limits.length) return undefined;
    const takes = quotaTakes(limits, call);
    if (!takes.length) return undefined;
    if (call.now >= this.#sweepAt) {
      for (const [key, full] of this.#full) if (full.until <= call.now) this.#full.delete(key);
      this.#sweepAt = call.now + 1_000;
    }
    // A counter at its max stays there until its window ends: a caller calling on at its limit
    // is refused here, at no cost to the shared counter (nor to anyone else's calls) — unless the
    // limit was raised since.
    const known = takes.findIndex((t) => {
      const full = this.#full.get(t.take.key);
      return full !== undefined && full.until > call.now && t.take.max <= full.max;
    });
    const refused = known >= 0
      ? known
      : await this.#counter.take(takes.map((t) => t.take), call.now);
    if (refused < 0) return undefined;
    const { limit, take } = takes[refused];
    this.#full.set(take.key, { until: take.until, max: take.max });
    return limitRefusal(limit, take.until, call.now);
  }
}
