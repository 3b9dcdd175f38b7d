/**
 * Where a command finds the estate: the folder (`--estate DIR`; by default the nearest folder holding
 * `estate.json`, from the working folder upwards, as `findEstateDir` finds it; else `corpus`, this
 * repository's example) or a PostgreSQL database (`--store postgres://…`). The database driver is loaded only when a database is named,
 * so the folder estate needs nothing else installed.
 *
 * @module
 */
import fs from "node:fs";
import path from "node:path";
import { EstateDir, type EstateStore, tornLineMessage } from "../store/mod.ts";
import { findEstateDir } from "../store/find_estate.ts";
import { UsageError } from "./_args.ts";
import type { PgEstateStore } from "../store/pg/pg_store.ts";
import type { PublishTrace } from "../estate/publish_trace.ts";

/** The flags that name the store; both commands and `estate serve` take them. */
export const STORE_FLAGS = ["estate", "store"] as const;

/** What {@linkcode openStore} needs besides the flags. */
export interface OpenStoreOptions {
  /** The folder relative paths resolve against. */
  cwd: string;
  /** The clock. */
  now?: () => Date;
  /** Told once per distinct note (a torn last line of a calls file). */
  note: (message: string) => void;
  /** Told what a publish does on its way to its decision. Default: none. */
  trace?: PublishTrace;
  /** Who acts (`--as`, else `$ESTATE_ACTOR`): recorded in the audit log. Default: none. */
  actor?: string;
}

/** What {@linkcode openPostgres} needs besides the URL. */
export interface OpenPostgresOptions {
  /** The clock. */
  now?: () => Date;
  /** Told what a publish does on its way to its decision. Default: none. */
  trace?: PublishTrace;
  /** Who acts: recorded in the audit log. Default: none. */
  actor?: string;
}

/** A store, and how to say where it is (a folder path, or the database URL without password). */
export interface OpenedStore {
  /** The store. */
  store: EstateStore;
  /** Where it is, for messages: never a password. */
  where: string;
  /** Whether it is a database (several replicas may share it). */
  database: boolean;
}

/** A `postgres://` URL as it may be shown: the password replaced by `***`. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = "***";
    return u.toString();
  } catch {
    return "(a database URL that cannot be parsed)";
  }
}

/** Whether a `--store` value names a PostgreSQL database. */
function isPostgresUrl(value: string): boolean {
  return /^postgres(ql)?:\/\//i.test(value);
}

/** The estate folder when no `--estate` names one and no `estate.json` is found. */
export const FALLBACK_ESTATE_FOLDER = "corpus";

/**
 * The estate folder a command works on: `--estate DIR`, else the nearest folder holding
 * `estate.json` (`findEstateDir` from the working folder), else `./corpus` when it exists.
 *
 * @param flags The parsed flags.
 * @param cwd The working folder.
 * @returns The folder's absolute path.
 * @throws {UsageError} When the named folder does not exist, or none is named or found.
 */
export function estateFolder(
  flags: Map<string, string | boolean>,
  cwd: string,
): string {
  const named = flags.get("estate");
  const dir = named !== undefined
    ? path.resolve(cwd, String(named))
    : findEstateDir(cwd) ?? path.resolve(cwd, FALLBACK_ESTATE_FOLDER);
  if (!fs.existsSync(dir) || !fs.statSync(dir).isDirectory()) {
    throw new UsageError(
      named !== undefined
        ? `estate folder ${dir} does not exist (use --estate DIR)`
        : `no estate found: no estate.json in ${cwd}, its estate/ folder or a folder above it ` +
          `in the repository; run estate init to create one, or name it with --estate DIR`,
    );
  }
  return dir;
}

/**
 * Opens the store the flags name.
 *
 * @param flags The parsed flags (`estate`, `store`).
 * @param options The working folder, the clock, where notes go.
 * @returns The store; close it when done.
 * @throws {UsageError} When both flags are given, the folder does not exist, the URL is not a
 *   PostgreSQL URL, or the database cannot be reached (the message names it, without password).
 */
export async function openStore(
  flags: Map<string, string | boolean>,
  options: OpenStoreOptions,
): Promise<OpenedStore> {
  const url = flags.get("store");
  if (url !== undefined) {
    if (flags.has("estate")) {
      throw new UsageError(
        "--store and --estate exclude each other: the estate is in one place",
      );
    }
    if (typeof url !== "string" || !isPostgresUrl(url)) {
      throw new UsageError(
        `--store takes a postgres:// URL (the folder estate is --estate DIR), got ${
          JSON.stringify(String(url))
        }`,
      );
    }
    return {
      store: await openPostgres(url, {
        now: options.now,
        trace: options.trace,
        ...(options.actor ? { actor: options.actor } : {}),
      }),
      where: redactUrl(url),
      database: true,
    };
  }
  const dir = estateFolder(flags, options.cwd);
  // A torn last line of calls.jsonl is no error: it is said once.
  const told = new Set<string>();
  const store = EstateDir.open(dir, {
    now: options.now,
    ...(options.trace ? { trace: options.trace } : {}),
    ...(options.actor ? { actor: options.actor } : {}),
    onTornLine: (torn) => {
      const message = tornLineMessage(torn);
      if (told.has(message)) return;
      told.add(message);
      options.note(message);
    },
  });
  return { store, where: dir, database: false };
}

/**
 * Opens an estate in PostgreSQL (the driver is loaded now, not before).
 *
 * @param url A `postgres://` URL.
 * @param options The clock, and a trace of publishes.
 * @returns The store; close it when done.
 * @throws {UsageError} When the URL is not a PostgreSQL URL or the database cannot be reached.
 */
export async function openPostgres(
  url: string,
  options: OpenPostgresOptions = {},
): Promise<PgEstateStore> {
  if (!isPostgresUrl(url)) {
    throw new UsageError(
      `expected a postgres:// URL, got ${JSON.stringify(url)}`,
    );
  }
  const { PgEstateStore } = await import("../store/pg/pg_store.ts");
  try {
    return await PgEstateStore.open(url, {
      now: options.now,
      ...(options.trace ? { trace: options.trace } : {}),
      ...(options.actor ? { actor: options.actor } : {}),
    });
  } catch (e) {
    throw new UsageError(
      `cannot open the estate at ${redactUrl(url)}: ${(e as Error).message}`,
    );
  }
}

/**
 * Applies the schema migrations a database lacks (`estate migrate --to URL`), and nothing else.
 *
 * @param url A `postgres://` URL.
 * @returns The migrations applied now (none when the schema was up to date).
 * @throws {UsageError} When the URL is not a PostgreSQL URL or the database cannot be reached.
 */
export async function migrateSchema(url: string): Promise<string[]> {
  if (!isPostgresUrl(url)) {
    throw new UsageError(
      `expected a postgres:// URL, got ${JSON.stringify(url)}`,
    );
  }
  const [{ default: postgres }, { migrate }] = await Promise.all([
    import("postgres"),
    import("../store/pg/migrate.ts"),
  ]);
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    return await migrate(sql);
  } catch (e) {
    throw new UsageError(
      `cannot migrate the estate at ${redactUrl(url)}: ${(e as Error).message}`,
    );
  } finally {
    await sql.end({ timeout: 5 });
  }
}
