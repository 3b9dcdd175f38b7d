/**
 * What a caller of a deprecated version is told, in one shape for every place it is told: the
 * call's result (`_meta["dev.tool-estate/deprecation"]`), the HTTP answer's `Deprecation` (RFC
 * 9745) and `Sunset` (RFC 8594) headers, the server's log and the client's event. Pure: read from
 * the version's record and the tool's newest active version.
 *
 * @module
 */
import type { VersionRecord } from "./lifecycle.ts";
import { META_PREFIX } from "./spec.ts";

/** The `_meta` key a deprecated version's call result carries its notice under. */
export const DEPRECATION_META_KEY = `${META_PREFIX}deprecation`;

/** What a caller of a deprecated version is told. */
export interface DeprecationNotice {
  /** The tool. */
  tool: string;
  /** The deprecated version. */
  version: string;
  /** When it was deprecated (ISO 8601). */
  deprecatedAt: string;
  /** Why, when the deprecation said. */
  reason?: string;
  /** The last day it resolves (`YYYY-MM-DD`), when a retirement is set. */
  retireAfter?: string;
  /** When it stops resolving (ISO 8601: 00:00 UTC the day after `retireAfter`). */
  sunset?: string;
  /** The tool's newest active version, when there is one: what to move to. */
  successor?: string;
}

/**
 * The notice for a version, or undefined when it is not deprecated.
 *
 * @param record The version's record.
 * @param latest The tool's newest active version, if any.
 * @returns The notice.
 *
 * @example
 * ```ts
 * import { deprecationNotice } from "@tool-estate/core";
 * import assert from "node:assert/strict";
 * const spec = { name: "payments.lookup", version: "1.1.0" } as never;
 * const record = {
 *   spec, state: "deprecated" as const,
 *   history: [
 *     { state: "active" as const, at: "2026-01-05T09:00:00.000Z" },
 *     { state: "deprecated" as const, at: "2026-11-02T10:00:00.000Z", reason: "use 2.x", retireAfter: "2027-01-31" },
 *   ],
 * };
 * assert.deepEqual(deprecationNotice(record, "2.0.0"), {
 *   tool: "payments.lookup", version: "1.1.0", deprecatedAt: "2026-11-02T10:00:00.000Z",
 *   reason: "use 2.x", retireAfter: "2027-01-31", sunset: "2027-02-01T00:00:00.000Z", successor: "2.0.0",
 * });
 * ```
 */
export function deprecationNotice(
  record: VersionRecord,
  latest: string | undefined,
): DeprecationNotice | undefined {
  if (record.state !== "deprecated") return undefined;
  const entry = [...record.history].reverse().find((h) => h.state === "deprecated");
  if (!entry) return undefined;
  const notice: DeprecationNotice = {
    tool: record.spec.name,
    version: record.spec.version,
    deprecatedAt: entry.at,
  };
  if (entry.reason !== undefined) notice.reason = entry.reason;
  if (entry.retireAfter !== undefined) {
    notice.retireAfter = entry.retireAfter;
    const day = new Date(`${entry.retireAfter}T00:00:00.000Z`);
    day.setUTCDate(day.getUTCDate() + 1);
    notice.sunset = day.toISOString();
  }
  if (latest !== undefined && latest !== record.spec.version) notice.successor = latest;
  return notice;
}

/**
 * The HTTP headers that say a version is deprecated: `Deprecation` (RFC 9745, the date it was
 * deprecated as a structured-field date, `@<seconds>`) and, when a retirement is set, `Sunset`
 * (RFC 8594, an HTTP-date).
 *
 * @param notice The notice.
 * @returns The headers, lower-case names.
 */
export function deprecationHeaders(notice: DeprecationNotice): Record<string, string> {
  const headers: Record<string, string> = {
    deprecation: `@${Math.floor(Date.parse(notice.deprecatedAt) / 1000)}`,
  };
  if (notice.sunset !== undefined) headers.sunset = new Date(notice.sunset).toUTCString();
  return headers;
}

/**
 * The notice as one sentence, for a log line or a model.
 *
 * @param notice The notice.
 * @returns E.g. `payments.lookup@1.1.0 is deprecated (use 2.x); it stops working after 2027-01-31; use 2.0.0`.
 */
export function deprecationText(notice: DeprecationNotice): string {
  return `${notice.tool}@${notice.version} is deprecated${
    notice.reason ? ` (${notice.reason})` : ""
  }${notice.retireAfter ? `; it stops working after ${notice.retireAfter}` : ""}${
    notice.successor ? `; use ${notice.successor}` : ""
  }`;
}
