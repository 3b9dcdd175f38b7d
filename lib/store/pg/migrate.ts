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
 * The migrations in the repository, in order.
 *
 * @returns Every `migrations/NNN_*.sql`, by number.
 */
export function migrations(): Migration[] {
  const dir = new URL("./migrations/", import.meta.url);
  return fs.readdirSync(dir).filter((f) => /^\d{3}_[a-z0-9_]+\.sql$/.test(f)).sort().map((f) => ({
    version: Number(f.slice(0, 3)),
    name: f,
    sql: fs.readFileSync(new URL(f, dir), "utf8"),
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
    for (const m of migrations()) {
      if (done.has(m.version)) continue;
      await tx.unsafe(m.sql);
      await tx`insert into estate_migrations (version, name) values (${m.version}, ${m.name})`;
      applied.push(m.name);
    }
  });
  return applied;
}
