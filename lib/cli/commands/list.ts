/** `estate list [--principal ID]`: what a principal discovers, or every tool and version. */
import type { EstateStore } from "../../store/mod.ts";
import { EXIT, UsageError } from "../_args.ts";
import type { CliCommand, CommandContext } from "../_command.ts";

/** `estate list`. */
export const listCommand: CliCommand = {
  name: "list",
  usage: "estate list [--principal ID]",
  summary: "what a principal discovers (every tool and version without --principal)",
  flags: { values: ["principal"], booleans: [] },
  async run(ctx: CommandContext): Promise<number> {
    if (ctx.args.positionals.length) throw new UsageError(ctx.usage);
    return list(
      await ctx.openEstate(),
      ctx.args.flags.get("principal") as string | undefined,
      ctx.out,
    );
  },
};

function list(
  estate: EstateStore,
  principalId: string | undefined,
  out: (h: string, d: unknown) => void,
): number {
  const registry = estate.registry;
  if (principalId === undefined) {
    const tools = registry.names().map((name) => ({
      name,
      versions: registry.versions(name).map((v) => ({
        version: v.spec.version,
        state: v.state,
      })),
    }));
    const width = Math.max(0, ...tools.map((t) => t.name.length));
    out(
      tools.map((t) =>
        `${t.name.padEnd(width)}  ${
          t.versions.map((v) => `${v.version}${v.state === "active" ? "" : ` (${v.state})`}`).join(
            ", ",
          )
        }\n`
      )
        .join(""),
      { tools },
    );
    return EXIT.ok;
  }
  const principal = estate.principal(principalId);
  if (!principal) {
    throw new UsageError(
      `no principal ${JSON.stringify(principalId)} in the estate; known: ${
        estate.principals().map((p) => p.id).join(", ")
      }`,
    );
  }
  const seen = registry.discover(principal);
  out(
    `${principal.id} (${principal.tenant}, clearance ${principal.clearance}) sees ${seen.length} tool${
      seen.length === 1 ? "" : "s"
    }:\n` +
      (() => {
        const ids = seen.map((s) => `${s.name}@${s.version}`);
        const width = Math.max(0, ...ids.map((id) => id.length));
        return seen.map((s, i) => `  ${ids[i].padEnd(width)}  ${s.title}\n`)
          .join("");
      })(),
    {
      principal: principal.id,
      tools: seen.map((s) => ({
        name: s.name,
        version: s.version,
        title: s.title,
      })),
    },
  );
  return EXIT.ok;
}
