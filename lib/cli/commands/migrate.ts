/**
 * `estate migrate`: bring a database's schema up to date, and with `--from DIR` copy a folder
 * estate into the empty database, all or nothing.
 */
import fs from "node:fs";
import path from "node:path";
import { tornLineMessage } from "../../store/mod.ts";
import { EXIT, UsageError } from "../_args.ts";
import type { CliCommand, CommandContext } from "../_command.ts";
import { migrateSchema, openPostgres, redactUrl } from "../_open_store.ts";
import { counts } from "../_transfer_counts.ts";

/** `estate migrate`. */
export const migrateCommand: CliCommand = {
  name: "migrate",
  usage: "estate migrate [--from DIR] --to postgres://…",
  summary:
    "bring the database's schema up to date (the migrations in lib/store/pg/migrations/ it\n" +
    "lacks, in order); with --from, then copy a folder estate into the empty database\n" +
    "(versions, lifecycles, stored calls, servers, drift, principals, each file's bytes kept),\n" +
    "all or nothing",
  flags: { values: ["from", "to"], booleans: [] },
  async run(ctx: CommandContext): Promise<number> {
    const { args, usage } = ctx;
    const from = args.flags.get("from"), to = args.flags.get("to");
    if (args.positionals.length || typeof to !== "string" || from === true) {
      throw new UsageError(usage);
    }
    if (args.flags.has("store") || args.flags.has("estate")) {
      throw new UsageError(
        `migrate takes --from DIR and --to URL only; ${usage}`,
      );
    }
    if (from === undefined) {
      const applied = await migrateSchema(to);
      ctx.out(
        applied.length
          ? `applied ${applied.length} migration${applied.length === 1 ? "" : "s"} to ${
            redactUrl(to)
          }: ${applied.join(", ")}\n`
          : `the schema of ${redactUrl(to)} is up to date\n`,
        { status: "migrated", to: redactUrl(to), applied },
      );
      return EXIT.ok;
    }
    return await migrate(path.resolve(ctx.io.cwd, from), to, ctx);
  },
};

/** `estate migrate --from DIR`: a folder estate into an empty database, all or nothing. */
async function migrate(
  from: string,
  to: string,
  ctx: CommandContext,
): Promise<number> {
  if (!fs.statSync(from, { throwIfNoEntry: false })?.isDirectory()) {
    throw new UsageError(`estate folder ${from} does not exist (--from DIR)`);
  }
  const store = await openPostgres(to, { now: ctx.now });
  const { migrateToPostgres } = await import("../../store/pg/transfer.ts");
  try {
    const result = await migrateToPostgres(from, store, {
      onTornLine: (torn) => ctx.io.stderr(`estate: note: ${tornLineMessage(torn)}\n`),
    });
    const notes = result.changed.map((c) => `  ${c.file}: ${c.note}\n`).join(
      "",
    );
    ctx.out(
      `migrated ${counts(result)} from ${path.relative(ctx.io.cwd, from) || "."} to ${
        redactUrl(to)
      }\n` +
        (result.changed.length
          ? `${result.changed.length} file(s) will not export byte for byte:\n${notes}`
          : "") +
        (result.skipped.length
          ? `not part of the estate, not copied: ${result.skipped.join(", ")}\n`
          : ""),
      { status: "migrated", from, to: redactUrl(to), ...result },
    );
    return EXIT.ok;
  } catch (e) {
    if (/already holds an estate/.test((e as Error).message)) {
      ctx.out(`${(e as Error).message}\n`, {
        status: "refused",
        message: (e as Error).message,
      });
      return EXIT.failed;
    }
    throw e;
  } finally {
    await store.close();
  }
}
