/**
 * `estate settings [set FILE]`: which settings files the estate has; `set` stores one in a
 * database estate.
 */
import fs from "node:fs";
import path from "node:path";
import { ESTATE_FILES, isEstateFileName } from "../../estate/estate_files.ts";
import { EXIT, UsageError } from "../_args.ts";
import type { CliCommand, CommandContext } from "../_command.ts";
import { estateFolder, openPostgres, redactUrl } from "../_open_store.ts";
import { readText } from "../_read_text.ts";

/** `estate settings`. */
export const settingsCommand: CliCommand = {
  name: "settings",
  usage: "estate settings [set FILE] --store postgres://…",
  summary:
    "the estate's settings files, estate.json (its compatibility mode) and rules.json (rule\n" +
    "severities and ignores for estate check), and whether each is set; set FILE stores one in a\n" +
    "database estate, named by its file name (in a folder estate, edit the file): every replica\n" +
    "takes it in at once",
  flags: { values: [], booleans: [] },
  async run(ctx: CommandContext): Promise<number> {
    const { args, io, out } = ctx;
    const url = args.flags.get("store");
    const [sub, ...files] = args.positionals;
    if (sub !== undefined && (sub !== "set" || files.length !== 1)) {
      throw new UsageError(ctx.usage);
    }
    if (sub === "set") {
      const name = path.basename(files[0]);
      if (!isEstateFileName(name)) {
        throw new UsageError(
          `settings set takes ${
            ESTATE_FILES.join(" or ")
          } (the file's name says which), got ${name}`,
        );
      }
      if (typeof url !== "string") {
        throw new UsageError(
          `settings set is for a database estate (--store URL); in a folder estate, edit its ${name}`,
        );
      }
      const file = path.resolve(io.cwd, files[0]);
      const text = readText(file);
      const store = await openPostgres(url, { now: ctx.now });
      try {
        try {
          await store.setEstateFile(name, text);
        } catch (e) {
          throw new UsageError(`cannot set ${(e as Error).message}`);
        }
        out(`set ${name} in ${redactUrl(url)}\n`, { status: "set", file: name });
        return EXIT.ok;
      } finally {
        await store.close();
      }
    }
    let has: (name: string) => boolean;
    if (typeof url === "string") {
      if (args.flags.has("estate")) {
        throw new UsageError(
          "--store and --estate exclude each other: the estate is in one place",
        );
      }
      const store = await openPostgres(url, { now: ctx.now });
      try {
        const set = new Set<string>(
          ESTATE_FILES.filter((n) => store.estateFile(n) !== undefined),
        );
        has = (name) => set.has(name);
      } finally {
        await store.close();
      }
    } else {
      const dir = estateFolder(args.flags, io.cwd);
      has = (name) => fs.existsSync(path.join(dir, name));
    }
    const list = ESTATE_FILES.map((file) => ({ file, set: has(file) }));
    out(
      list.map((f) => `${f.file}: ${f.set ? "set" : "not set"}\n`).join(""),
      { settings: list },
    );
    return EXIT.ok;
  },
};
