/**
 * Schema migrations of the PostgreSQL store: `migrations/NNN_name.sql`, applied in order in one
 * transaction, recorded in `estate_migrations`; concurrent callers serialize on an
 * advisory lock, so two replicas starting at once apply each migration once.
 *
 * @module
 */
import fs from "node:fs";
import type { Sql } from "postgres";

/** A migration: its number, its name, and its SQL. */
export interface Migration {
  /** The `NNN` of its file name. */
  version: number;
  /** The file name. */
  name: string;
  /** The SQL. */
  sql: string;
}

/** The advisory lock key migrations hold (an arbitrary constant: "estate" in ASCII). */
const MIGRATION_LOCK = 0x657374617465;

/**
 * The migration files, in order. A new migration is a new file in `migrations/` and a new name
 * here (a test holds the two to each other): the list is explicit because a published module
 * cannot list its own folder.
 */
export const MIGRATION_FILES: readonly string[] = [
  "001_initial.sql",
  "002_principals_text.sql",
  "003_estate_files.sql",
  "004_request_states.sql",
  "005_call_quotas.sql",
  "006_idempotency.sql",
  "009_proposals.sql",
  "010_pending_calls.sql",
  "011_audit.sql",
  "012_tasks.sql",
];

/**
 * The migrations in the repository, in order, read beside this module (from a local copy with
 * `node:fs`, from a registry over HTTPS with `fetch`).
 *
 * @returns Every migration, by number.
 */
export async function migrations(): Promise<Migration[]> {
  const dir = new URL("./migrations/", import.meta.url);
  return await Promise.all(MIGRATION_FILES.map(async (name) => {
    const url = new URL(name, dir);
    const sql = url.protocol === "file:"
      ? fs.readFileSync(url, "utf8")
      : await (await fetch(url)).text();
    return { version: Number(name.slice(0, 3)), name, sql };
  }));
}

/**
 * Applies the migrations not yet applied to the database.
 *
 * @param sql A connection (pool) to the database.
 * @returns The names of the migrations applied now (none when it was up to date).
 * @throws {Error} When a migration fails (that migration is rolled back; earlier ones stay).
 */
export async function migrate(sql: Sql): Promise<string[]> {
  const applied: string[] = [];
  const all = await migrations();
  await sql.begin(async (tx) => {
    await tx`select pg_advisory_xact_lock(${MIGRATION_LOCK})`;
    await tx.unsafe(`create table if not exists estate_migrations (
      version integer primary key,
      name text not null,
      applied_at timestamptz not null default now()
    )`);
    const done = new Set(
      (await tx`select version from estate_migrations`).map((r) => r.version as number),
    );
    for (const m of all) {
      if (done.has(m.version)) continue;
      await tx.unsafe(m.sql);
      await tx`insert into estate_migrations (version, name) values (${m.version}, ${m.name})`;
      applied.push(m.name);
    }
  });
  return applied;
}
