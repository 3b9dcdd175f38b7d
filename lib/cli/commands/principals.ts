/** `estate principals [set FILE]`: the estate's principals; `set` replaces a database estate's. */
import path from "node:path";
import { EXIT, UsageError } from "../_args.ts";
import type { CliCommand, CommandContext } from "../_command.ts";
import { openPostgres } from "../_open_store.ts";
import { readText } from "../_read_text.ts";

/** `estate principals`. */
export const principalsCommand: CliCommand = {
  name: "principals",
  usage: "estate principals [set FILE] --store postgres://…",
  summary:
    "the principals of the estate; set FILE replaces them with a principals.json (in a folder\n" +
    "estate, edit its principals.json): every replica takes it in at once",
  flags: { values: [], booleans: [] },
  async run(ctx: CommandContext): Promise<number> {
    const { args, io, out } = ctx;
    const url = args.flags.get("store");
    const [sub, ...files] = args.positionals;
    if (sub !== undefined && (sub !== "set" || files.length !== 1)) {
      throw new UsageError(ctx.usage);
    }
    if (sub === "set") {
      if (typeof url !== "string") {
        throw new UsageError(
          "principals set is for a database estate (--store URL); in a folder estate, edit its principals.json",
        );
      }
      const file = path.resolve(io.cwd, files[0]);
      const text = readText(file);
      const store = await openPostgres(url, { now: ctx.now });
      try {
        await store.setPrincipalsText(text);
        const ids = store.principals().map((p) => p.id);
        out(
          `set ${ids.length} principal${ids.length === 1 ? "" : "s"}: ${ids.join(", ")}\n`,
          {
            status: "set",
            principals: ids,
          },
        );
        return EXIT.ok;
      } finally {
        await store.close();
      }
    }
    const estate = await ctx.openEstate();
    const principals = estate.principals().map((p) => ({
      id: p.id,
      tenant: p.tenant,
      clearance: p.clearance,
      scopes: p.scopes,
    }));
    out(
      principals.map((p) =>
        `${p.id} (${p.tenant}, clearance ${p.clearance}): ${p.scopes.join(" ")}\n`
      ).join(""),
      { principals },
    );
    return EXIT.ok;
  },
};
