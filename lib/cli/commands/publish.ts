/** `estate publish FILE`: publish a tool file. */
import path from "node:path";
import { keepToolSpec, PublishError, type PublishTrace, type ToolSpec } from "../../../mod.ts";
import { EXIT, UsageError } from "../_args.ts";
import type { CliCommand, CommandContext } from "../_command.ts";
import { readText } from "../_read_text.ts";

/** `estate publish`. */
export const publishCommand: CliCommand = {
  name: "publish",
  usage: "estate publish FILE",
  summary: "publish a tool file",
  flags: { values: [], booleans: [] },
  async run(ctx: CommandContext): Promise<number> {
    const { args, io, out } = ctx;
    if (args.positionals.length !== 1) throw new UsageError(ctx.usage);
    const file = path.resolve(io.cwd, args.positionals[0]);
    const estate = await ctx.openEstate();
    try {
      // Parsed once, here at the edge: the store and its registry take the kept spec as it is.
      const result = await estate.publish(readSpecFile(file, io.trace));
      const plan = result.plan;
      const id = `${plan.spec.name}@${plan.spec.version}`;
      out(
        result.status === "published"
          ? `published ${id} (${
            plan.baseline ? `${plan.bump} change against ${plan.baseline.spec.version}` : "new tool"
          })\n`
          : `${id} is already published with this content; nothing written\n`,
        {
          status: result.status,
          name: plan.spec.name,
          version: plan.spec.version,
          bump: plan.bump,
          newTool: plan.baseline === undefined,
        },
      );
      return EXIT.ok;
    } catch (e) {
      if (e instanceof PublishError) {
        out(`${e.message}\n`, {
          status: "refused",
          refusal: e.refusal,
          message: e.message,
          rejectedCalls: e.rejected.count,
        });
        return EXIT.failed;
      }
      throw e;
    }
  },
};

/**
 * Reads a tool file as a kept spec (`keepToolSpec`): JSON errors and spec problems are input
 * errors naming the file.
 */
function readSpecFile(file: string, trace: PublishTrace | undefined): ToolSpec {
  const text = readText(file);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new UsageError(`${file} is not valid JSON: ${(e as Error).message}`);
  }
  return keepToolSpec(value, { subject: file, ...(trace ? { trace } : {}) });
}
