/** `estate export --store URL --to DIR`: a database estate written out as a folder estate. */
import path from "node:path";
import { EXIT, UsageError } from "../_args.ts";
import type { CliCommand, CommandContext } from "../_command.ts";
import { openPostgres } from "../_open_store.ts";
import { counts } from "../_transfer_counts.ts";

/** `estate export`. */
export const exportCommand: CliCommand = {
  name: "export",
  usage: "estate export --store postgres://… --to DIR",
  summary:
    "write the estate in a database out as a folder estate (for review in git); a migrated\n" +
    "folder comes back byte for byte",
  flags: { values: ["to"], booleans: [] },
  async run(ctx: CommandContext): Promise<number> {
    const { args, usage, io } = ctx;
    const to = args.flags.get("to");
    if (args.positionals.length || typeof to !== "string") {
      throw new UsageError(usage);
    }
    const url = args.flags.get("store");
    if (typeof url !== "string") {
      throw new UsageError(
        `export writes a database estate out as a folder: it needs --store URL; ${usage}`,
      );
    }
    const store = await openPostgres(url, { now: ctx.now });
    try {
      const dir = path.resolve(io.cwd, to);
      // The database modules are loaded only when a database is named.
      const { exportToFolder } = await import("../../store/pg/transfer.ts");
      const result = await exportToFolder(store, dir);
      ctx.out(
        `exported ${counts(result)} to ${
          path.relative(io.cwd, dir) || "."
        } (${result.files.length} files)\n`,
        { status: "exported", to: dir, ...result },
      );
      return EXIT.ok;
    } finally {
      await store.close();
    }
  },
};
