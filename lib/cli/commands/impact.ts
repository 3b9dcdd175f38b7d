/** `estate impact NAME@VERSION`: who called a version, how often, last seen. */
import { versionImpactStream } from "../../../mod.ts";
import type { EstateStore } from "../../store/mod.ts";
import { EXIT, parseToolRef, UsageError } from "../_args.ts";
import type { CliCommand, CommandContext } from "../_command.ts";
import { callerRows, callers } from "../_callers.ts";

/** `estate impact`. */
export const impactCommand: CliCommand = {
  name: "impact",
  usage: "estate impact NAME@VERSION",
  summary:
    "who called a version, how often, last seen (after retirement: who called it after it\n" +
    "retired, the calls that now fail)",
  flags: { values: [], booleans: [] },
  async run(ctx: CommandContext): Promise<number> {
    if (ctx.args.positionals.length !== 1) throw new UsageError(ctx.usage);
    return await impact(
      await ctx.openEstate(),
      parseToolRef(ctx.args.positionals[0], impactCommand.usage),
      ctx.out,
    );
  },
};

async function impact(
  estate: EstateStore,
  ref: { name: string; version: string },
  out: (h: string, d: unknown) => void,
): Promise<number> {
  const record = estate.registry.version(ref.name, ref.version);
  if (!record) {
    throw new UsageError(
      `${ref.name}@${ref.version} is not a published version`,
    );
  }
  const last = record.history.at(-1)!;
  const retiredAt = record.state === "retired" ? last.at : undefined;
  // Every call since the deprecation was answered with its notice: those callers were told.
  const deprecatedAt = record.state === "deprecated" ? last.at : undefined;
  const report = await versionImpactStream(
    estate.readCalls(ref.name),
    ref.version,
    retiredAt !== undefined
      ? { retiredAt }
      : deprecatedAt !== undefined
      ? { since: deprecatedAt }
      : {},
  );
  const rows = report.callers;
  const total = report.calls;
  if (retiredAt !== undefined) {
    // After retirement: the calls made since then are the ones that now fail.
    const after = report.afterRetirement;
    out(
      `${ref.name}@${ref.version} (retired ${retiredAt}${last.reason ? `: ${last.reason}` : ""}): ${
        after.calls
          ? `${callers(after)} after it retired; these calls now fail`
          : "no calls after it retired"
      } (${callers(report)} in all)\n` + callerRows(after),
      {
        name: ref.name,
        version: ref.version,
        state: record.state,
        retiredAt,
        calls: total,
        callers: rows,
        afterRetirement: after,
      },
    );
    return EXIT.ok;
  }
  const told = deprecatedAt === undefined
    ? undefined
    : report.recent.callers.map((c) => c.principal);
  const untold = told === undefined
    ? []
    : rows.map((r) => r.principal).filter((p) => !told.includes(p));
  out(
    `${ref.name}@${ref.version} (${record.state}${
      last.retireAfter ? `, retire after ${last.retireAfter}` : ""
    }): ${total} call${total === 1 ? "" : "s"} from ${rows.length} principal${
      rows.length === 1 ? "" : "s"
    }${rows.length ? " who must migrate before retirement" : ""}\n` +
      rows.map((r) =>
        `  ${r.principal.padEnd(24)} ${
          String(r.calls).padStart(6)
        } calls, last seen ${r.lastSeen}\n`
      ).join("") +
      (told === undefined
        ? ""
        : `told of the deprecation (called it since ${deprecatedAt}): ${
          told.length ? told.join(", ") : "nobody yet"
        }\n${untold.length ? `not yet told (no call since): ${untold.join(", ")}\n` : ""}`),
    {
      name: ref.name,
      version: ref.version,
      state: record.state,
      calls: total,
      callers: rows,
      ...(told === undefined ? {} : { deprecatedAt, told, untold }),
    },
  );
  return EXIT.ok;
}
