/**
 * `estate propose FILE --as ID`, `estate proposals`, `estate approve ID --as ID [--note TEXT]`,
 * `estate reject ID --as ID --reason TEXT`: drafts that need a second owner before publish. Who
 * acts is `--as` (an id as `estate.json`'s `approval.owners` and `approval.approvers` name it).
 */
import path from "node:path";
import {
  approvalRules,
  type Proposal,
  ProposalError,
  type ProposalEvent,
  shortProposalId,
} from "../../../mod.ts";
import { type EstateStore, findProposal, propose } from "../../store/mod.ts";
import { type Args, EXIT, UsageError } from "../_args.ts";
import type { CliCommand, CommandContext } from "../_command.ts";
import { readSpecFile } from "../_spec_file.ts";

/** The acting id: `--as ID`, required. */
function actor(args: Args, usage: string): string {
  const as = args.flags.get("as");
  if (typeof as !== "string" || as.trim() === "") {
    throw new UsageError(`--as ID is required: who acts; usage: ${usage}`);
  }
  return as.trim();
}

/** A refused event is exit 1 with why (`--json`: `{status: "refused", message}`). */
async function refusal(
  out: CommandContext["out"],
  f: () => Promise<number>,
): Promise<number> {
  try {
    return await f();
  } catch (e) {
    if (!(e instanceof ProposalError)) throw e;
    out(`${e.message}\n`, { status: "refused", message: e.message });
    return EXIT.failed;
  }
}

/** A proposal as `--json` shows it: the record without its text (the file's bytes). */
function summary(p: Proposal): Omit<Proposal, "text"> {
  const { text: _text, ...rest } = p;
  return rest;
}

/** One line of `estate proposals`. */
function line(p: Proposal): string {
  const who = p.state === "approved" || p.state === "published"
    ? ` approved by ${p.approvals.map((a) => a.principal).join(", ")}`
    : p.state === "rejected"
    ? ` rejected by ${p.rejection?.principal}: ${p.rejection?.reason}`
    : p.state === "superseded"
    ? ` by ${shortProposalId(p.supersededBy ?? "")}`
    : "";
  return `${shortProposalId(p.id)}  ${`${p.tool}@${p.version}`.padEnd(32)} ${
    p.state.padEnd(10)
  } by ${p.proposer} ${p.created.slice(0, 10)}${who}\n`;
}

/** `estate propose`. */
export const proposeCommand: CliCommand = {
  name: "propose",
  usage: "estate propose FILE --as ID",
  summary:
    "record a tool file as a proposal (pending): its id is the SHA-256 of the file's text; the\n" +
    "plan's classification, witness and impact, and the approval rules it meets, are kept",
  flags: { values: ["as"], booleans: [] },
  async run(ctx: CommandContext): Promise<number> {
    const { args, io, out } = ctx;
    if (args.positionals.length !== 1) throw new UsageError(ctx.usage);
    const by = actor(args, ctx.usage);
    const file = path.resolve(io.cwd, args.positionals[0]);
    const estate = await ctx.openEstate();
    const { text, spec } = readSpecFile(file, io.trace);
    return await refusal(out, async () => {
      const { proposal, requirement } = await propose(estate, spec, {
        text,
        proposer: by,
        at: ctx.now(),
      });
      const id = shortProposalId(proposal.id);
      out(
        `proposed ${proposal.tool}@${proposal.version} as ${id} (${proposal.classification.bump} change${
          proposal.classification.baseline ? ` against ${proposal.classification.baseline}` : ""
        }): ${
          requirement.needed
            ? `needs approval (rule ${
              approvalRules(requirement)
            }); another owner runs estate approve ${id} --as ID`
            : "the estate's approval policy does not require approval of it"
        }\n`,
        { status: "proposed", needsApproval: requirement.needed, proposal: summary(proposal) },
      );
      return EXIT.ok;
    });
  },
};

/** `estate proposals`. */
export const proposalsCommand: CliCommand = {
  name: "proposals",
  usage: "estate proposals [--tool NAME] [--state STATE]",
  summary:
    "the proposals, oldest first: id, tool and version, state (pending, approved, rejected,\n" +
    "published, superseded), who proposed and who decided",
  flags: { values: ["tool", "state"], booleans: [] },
  async run(ctx: CommandContext): Promise<number> {
    const { args, out } = ctx;
    if (args.positionals.length !== 0) throw new UsageError(ctx.usage);
    const tool = args.flags.get("tool") as string | undefined;
    const state = args.flags.get("state") as string | undefined;
    const estate = await ctx.openEstate();
    const all = (await estate.proposals()).filter((p) =>
      (tool === undefined || p.tool === tool) && (state === undefined || p.state === state)
    );
    out(
      all.length ? all.map(line).join("") : "no proposals\n",
      { proposals: all.map(summary) },
    );
    return EXIT.ok;
  },
};

/** Approve or reject: find the proposal, record the event, say what it became. */
async function decide(
  ctx: CommandContext,
  estate: EstateStore,
  event: (id: string) => ProposalEvent,
): Promise<number> {
  return await refusal(ctx.out, async () => {
    const found = await findProposal(estate, ctx.args.positionals[0]);
    const [p] = await estate.recordProposal(event(found.id));
    const id = shortProposalId(p.id);
    ctx.out(
      p.state === "approved"
        ? `approved ${p.tool}@${p.version} (proposal ${id}); estate publish FILE publishes exactly these bytes\n`
        : `rejected ${p.tool}@${p.version} (proposal ${id}): ${p.rejection?.reason}\n`,
      { status: p.state, proposal: summary(p) },
    );
    return EXIT.ok;
  });
}

/** `estate approve`. */
export const approveCommand: CliCommand = {
  name: "approve",
  usage: "estate approve ID --as ID [--note TEXT]",
  summary: "approve a pending proposal (ID: at least 8 digits of its id): an owner of the tool\n" +
    "(estate.json approval.owners) or an approver, never its proposer",
  flags: { values: ["as", "note"], booleans: [] },
  async run(ctx: CommandContext): Promise<number> {
    if (ctx.args.positionals.length !== 1) throw new UsageError(ctx.usage);
    const principal = actor(ctx.args, ctx.usage);
    const note = ctx.args.flags.get("note") as string | undefined;
    const estate = await ctx.openEstate();
    return await decide(ctx, estate, (id) => ({
      kind: "approve",
      id,
      principal,
      at: ctx.now().toISOString(),
      ...(note ? { note } : {}),
    }));
  },
};

/** `estate reject`. */
export const rejectCommand: CliCommand = {
  name: "reject",
  usage: "estate reject ID --as ID --reason TEXT",
  summary: "reject a pending proposal, saying why: as approve decides who may",
  flags: { values: ["as", "reason"], booleans: [] },
  async run(ctx: CommandContext): Promise<number> {
    if (ctx.args.positionals.length !== 1) throw new UsageError(ctx.usage);
    const principal = actor(ctx.args, ctx.usage);
    const reason = ctx.args.flags.get("reason");
    if (typeof reason !== "string" || reason.trim() === "") {
      throw new UsageError(`--reason TEXT is required: say why; usage: ${ctx.usage}`);
    }
    const estate = await ctx.openEstate();
    return await decide(ctx, estate, (id) => ({
      kind: "reject",
      id,
      principal,
      at: ctx.now().toISOString(),
      reason,
    }));
  },
};
