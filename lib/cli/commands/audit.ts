/**
 * `estate audit verify [--key FILE]`, `estate audit show [filters]`, `estate audit checkpoint
 * --key FILE`, `estate audit keygen --out FILE`: the estate's tamper-evident audit log — its chain
 * checked, its records shown, its head signed with the operator's key, a key pair made.
 */
import fs from "node:fs";
import path from "node:path";
import {
  AUDIT_KINDS,
  type AuditFilter,
  type AuditKind,
  type AuditRecord,
  type AuditVerdict,
  generateAuditKeys,
  importAuditKey,
  signAuditCheckpoint,
  verifyAuditChain,
} from "../../../mod.ts";
import { CorpusError, type EstateStore } from "../../store/mod.ts";
import { EXIT, UsageError } from "../_args.ts";
import type { CliCommand, CommandContext } from "../_command.ts";
import { readText } from "../_read_text.ts";

/** A key file named by `--key`, read and imported. */
async function keyFrom(ctx: CommandContext, use: "sign" | "verify"): Promise<CryptoKey> {
  const named = ctx.args.flags.get("key");
  if (typeof named !== "string") {
    throw new UsageError(`--key FILE is required; usage: ${ctx.usage}`);
  }
  const file = path.resolve(ctx.io.cwd, named);
  try {
    return await importAuditKey(readText(file), use);
  } catch (e) {
    if (e instanceof UsageError) throw e;
    throw new UsageError(`cannot use ${file} as the audit key: ${(e as Error).message}`);
  }
}

/** The whole log verified against the checkpoints kept; a line that is not a record is malformed. */
async function verify(estate: EstateStore, publicKey?: CryptoKey): Promise<AuditVerdict> {
  const checkpoints = await estate.auditCheckpoints();
  try {
    return await verifyAuditChain(estate.readAudit(), {
      checkpoints,
      ...(publicKey ? { publicKey } : {}),
    });
  } catch (e) {
    if (!(e instanceof CorpusError)) throw e;
    return {
      ok: false,
      seq: e.line ?? 0,
      index: e.line ? e.line - 1 : 0,
      reason: "malformed",
      message: e.message,
    };
  }
}

/** `estate audit verify`. */
async function verifyCommand(ctx: CommandContext): Promise<number> {
  const key = ctx.args.flags.has("key") ? await keyFrom(ctx, "verify") : undefined;
  const verdict = await verify(await ctx.openEstate(), key);
  if (!verdict.ok) {
    ctx.out(
      `chain broken at record ${verdict.seq} (${verdict.reason}): ${verdict.message}\n`,
      { status: "broken", ...verdict },
    );
    return EXIT.failed;
  }
  const { records, head, checkpoints, signed } = verdict;
  const held = checkpoints === 0
    ? "no checkpoint (a cut end cannot be told: sign one with estate audit checkpoint --key FILE)"
    : `${checkpoints} checkpoint${checkpoints === 1 ? "" : "s"} held${
      signed ? ", signatures verified" : " (signatures not checked: give --key PUBLIC_KEY_FILE)"
    }`;
  ctx.out(
    `chain ok: ${records} records, head ${head.hash} (record ${head.seq}); ${held}\n`,
    { status: "ok", records, head, checkpoints, signed },
  );
  return EXIT.ok;
}

/** A time flag, checked. */
function timeFlag(ctx: CommandContext, name: string): string | undefined {
  const value = ctx.args.flags.get(name);
  if (value === undefined) return undefined;
  if (typeof value !== "string" || Number.isNaN(Date.parse(value))) {
    throw new UsageError(`--${name} takes an ISO 8601 time, got ${JSON.stringify(value)}`);
  }
  return value;
}

/** One line of `estate audit show`. */
function line(r: AuditRecord): string {
  const about = r.tool === undefined ? "" : ` ${r.tool}${r.version ? `@${r.version}` : ""}`;
  const who = r.principal === undefined ? "" : ` by ${r.principal}`;
  const detail = Object.keys(r.detail).length ? ` ${JSON.stringify(r.detail)}` : "";
  return `${String(r.seq).padStart(6)}  ${r.at}  ${r.kind}${about}${who}${detail}\n`;
}

/** `estate audit show`. */
async function showCommand(ctx: CommandContext): Promise<number> {
  const filter: AuditFilter = {};
  for (const name of ["tool", "principal"] as const) {
    const value = ctx.args.flags.get(name);
    if (typeof value === "string") filter[name] = value;
  }
  const kind = ctx.args.flags.get("kind");
  if (kind !== undefined) {
    if (!AUDIT_KINDS.includes(kind as AuditKind)) {
      throw new UsageError(`--kind takes one of ${AUDIT_KINDS.join(", ")}, got ${String(kind)}`);
    }
    filter.kind = kind as AuditKind;
  }
  const since = timeFlag(ctx, "since"), until = timeFlag(ctx, "until");
  if (since !== undefined) filter.since = since;
  if (until !== undefined) filter.until = until;
  const estate = await ctx.openEstate();
  const records: AuditRecord[] = [];
  for await (const r of estate.readAudit(filter)) records.push(r);
  ctx.out(
    records.length ? records.map(line).join("") : "no audit records match\n",
    records,
  );
  return EXIT.ok;
}

/** `estate audit checkpoint`. */
async function checkpointCommand(ctx: CommandContext): Promise<number> {
  const privateKey = await keyFrom(ctx, "sign");
  const publicKey = await keyFrom(ctx, "verify");
  const estate = await ctx.openEstate();
  // Only a chain that holds is signed: a checkpoint vouches for everything up to its head.
  const verdict = await verify(estate, publicKey);
  if (!verdict.ok) {
    ctx.out(
      `not signed: the chain is broken at record ${verdict.seq} (${verdict.reason}): ${verdict.message}\n`,
      { status: "broken", ...verdict },
    );
    return EXIT.failed;
  }
  if (verdict.head.seq === 0) {
    ctx.out("not signed: the audit log is empty\n", { status: "empty" });
    return EXIT.failed;
  }
  const checkpoint = await signAuditCheckpoint(verdict.head, {
    privateKey,
    at: ctx.now().toISOString(),
  });
  await estate.appendAuditCheckpoint(checkpoint);
  ctx.out(
    `checkpoint: record ${checkpoint.seq}, head ${checkpoint.head}, signed ${checkpoint.at}\n` +
      `keep a copy beyond the estate's reach: ${JSON.stringify(checkpoint)}\n`,
    { status: "signed", checkpoint },
  );
  return EXIT.ok;
}

/** `estate audit keygen`. */
async function keygenCommand(ctx: CommandContext): Promise<number> {
  const named = ctx.args.flags.get("out");
  if (typeof named !== "string") {
    throw new UsageError(`--out FILE is required; usage: ${ctx.usage}`);
  }
  const file = path.resolve(ctx.io.cwd, named);
  const { privatePem, publicPem } = await generateAuditKeys();
  try {
    fs.writeFileSync(file, privatePem, { flag: "wx", mode: 0o600 });
  } catch (e) {
    throw new UsageError(`cannot write ${file}: ${(e as Error).message}`);
  }
  try {
    fs.writeFileSync(`${file}.pub`, publicPem, { flag: "wx", mode: 0o644 });
  } catch (e) {
    fs.rmSync(file, { force: true });
    throw new UsageError(`cannot write ${file}.pub: ${(e as Error).message}`);
  }
  ctx.out(
    `wrote ${file} (the private key: keep it with the operator, never in the estate) and ` +
      `${file}.pub (the public key: estate audit verify --key ${named}.pub)\n`,
    { status: "written", privateKey: file, publicKey: `${file}.pub` },
  );
  return EXIT.ok;
}

const SUBCOMMANDS: Readonly<Record<string, (ctx: CommandContext) => Promise<number>>> = {
  verify: verifyCommand,
  show: showCommand,
  checkpoint: checkpointCommand,
  keygen: keygenCommand,
};

/** `estate audit`. */
export const auditCommand: CliCommand = {
  name: "audit",
  usage:
    "estate audit verify [--key PUBLIC_KEY_FILE] | show [--tool T] [--principal P] [--kind K] [--since ISO] [--until ISO] | checkpoint --key PRIVATE_KEY_FILE | keygen --out FILE",
  summary:
    "the estate's tamper-evident audit log (publish, lifecycle, proposals, call decisions, drift):\n" +
    "verify checks the hash chain and the signed checkpoints (exit 1 naming the first broken\n" +
    "record: edited, deleted, reordered, truncated); show lists records; checkpoint signs the\n" +
    "head with the operator's Ed25519 key; keygen makes a key pair (PEM)",
  flags: {
    values: ["key", "tool", "principal", "kind", "since", "until", "out"],
    booleans: [],
  },
  async run(ctx: CommandContext): Promise<number> {
    const [sub, ...rest] = ctx.args.positionals;
    const run = sub !== undefined && Object.hasOwn(SUBCOMMANDS, sub) ? SUBCOMMANDS[sub] : undefined;
    if (!run || rest.length) throw new UsageError(ctx.usage);
    return await run(ctx);
  },
};
