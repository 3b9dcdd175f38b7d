/** `estate publish FILE`: publish a tool file (with an approved proposal, when its change needs one). */
import path from "node:path";
import { PublishError, shortProposalId } from "../../../mod.ts";
import { ApprovalRequiredError, publishApproved } from "../../store/mod.ts";
import { EXIT, UsageError } from "../_args.ts";
import type { CliCommand, CommandContext } from "../_command.ts";
import { readSpecFile } from "../_spec_file.ts";

/** `estate publish`. */
export const publishCommand: CliCommand = {
  name: "publish",
  usage: "estate publish FILE [--as ID]",
  summary: "publish a tool file; a change the estate's approval policy names needs an approved\n" +
    "proposal of exactly these bytes (estate propose, estate approve)",
  flags: { values: ["as"], booleans: [] },
  async run(ctx: CommandContext): Promise<number> {
    const { args, io, out } = ctx;
    if (args.positionals.length !== 1) throw new UsageError(ctx.usage);
    const file = path.resolve(io.cwd, args.positionals[0]);
    const estate = await ctx.openEstate();
    try {
      // Parsed once, here at the edge: the store and its registry take the kept spec as it is.
      const { text, spec } = readSpecFile(file, io.trace);
      const result = await publishApproved(estate, spec, { text, now: ctx.now() });
      const plan = result.plan;
      const id = `${plan.spec.name}@${plan.spec.version}`;
      out(
        result.status === "published"
          ? `published ${id} (${
            plan.baseline ? `${plan.bump} change against ${plan.baseline.spec.version}` : "new tool"
          })${
            result.proposal
              ? `, approved by ${
                result.proposal.approvals.map((a) => a.principal).join(", ")
              } (proposal ${shortProposalId(result.proposal.id)})`
              : ""
          }\n`
          : `${id} is already published with this content; nothing written\n`,
        {
          status: result.status,
          name: plan.spec.name,
          version: plan.spec.version,
          bump: plan.bump,
          newTool: plan.baseline === undefined,
          ...(result.proposal ? { proposal: result.proposal.id } : {}),
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
      if (e instanceof ApprovalRequiredError) {
        out(`${e.message}\n`, {
          status: "refused",
          refusal: "needs-approval",
          message: e.message,
          rules: e.requirement.rules,
          ...(e.proposal ? { proposal: e.proposal.id, proposalState: e.proposal.state } : {}),
        });
        return EXIT.failed;
      }
      throw e;
    }
  },
};
