/**
 * The estate on PostgreSQL (`@tool-estate/core/postgres`): {@linkcode PgEstateStore}, an
 * `EstateStore` several `estate serve` replicas share, its schema {@linkcode migrate}d from the
 * SQL files shipped beside this module, and {@linkcode migrateToPostgres} and
 * {@linkcode exportToFolder} to move an estate between a folder and a database. A runtime edge: it
 * uses the `postgres` driver and `node:fs`; the core does not depend on it.
 *
 * ```ts ignore
 * import { exportToFolder, migrateToPostgres, PgEstateStore } from "@tool-estate/core/postgres";
 *
 * const store = await PgEstateStore.open("postgres://estate@127.0.0.1:5432/estate"); // migrates
 * await migrateToPostgres("corpus", store); // a folder estate into the empty database
 * console.log(store.registry.latest("payments.lookup")?.version);
 * const watch = await store.watch(() => store.refresh()); // hear other replicas' changes
 * await exportToFolder(store, "estate-export"); // and back out, byte for byte
 * await watch.close();
 * await store.close();
 * ```
 *
 * The migrations are read without a database:
 *
 * ```ts
 * import { MIGRATION_FILES, migrations } from "@tool-estate/core/postgres";
 * import assert from "node:assert/strict";
 *
 * const all = await migrations();
 * assert.deepEqual(all.map((m) => m.name), MIGRATION_FILES);
 * assert.equal(all[0].version, 1);
 * ```
 *
 * @module
 */
export { CHANGE_CHANNEL, PgEstateStore, type PgStoreOptions } from "./pg_store.ts";
export { migrate, type Migration, MIGRATION_FILES, migrations } from "./migrate.ts";
export {
  type ExportOptions,
  type ExportResult,
  exportToFolder,
  type MigrateOptions,
  type MigrateResult,
  migrateToPostgres,
  type TransferCounts,
  type TransferNote,
} from "./transfer.ts";
