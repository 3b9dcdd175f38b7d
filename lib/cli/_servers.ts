/**
 * `estate servers` and `estate servers add FILE`: the servers the estate did not write — listed
 * with how each is reached, the identity it must prove and the tools it may serve (a tool the
 * gateway quarantined is marked) — and registered from a record file.
 */
import path from "node:path";
import {
  type DriftRecord,
  quarantinesInForce,
  type RegisterServerResult,
  type ServerRecord,
  ServerRegistrationError,
  showHiddenCharacters,
} from "../../mod.ts";
import type { EstateStore } from "../store/mod.ts";
import { EXIT } from "./_args.ts";

/** Writes human text, or the JSON data with `--json`. */
export type Out = (human: string, data: unknown) => void;

/** How a server is reached, in words: `http https://…` or `stdio /usr/bin/node server.js`. */
function target(record: ServerRecord): string {
  const u = record.upstream;
  return u.kind === "http" ? u.url : [u.command, ...(u.args ?? [])].join(" ");
}

/** The identity a server must prove, in words. */
function identity(record: ServerRecord): string {
  const u = record.upstream;
  if (u.kind === "stdio") {
    return `binary sha256 ${u.sha256.slice(0, 16)}…${
      u.scriptSha256 ? `, script sha256 ${u.scriptSha256.slice(0, 16)}…` : ""
    }`;
  }
  return "spiffeId" in u.identity
    ? `SPIFFE ID ${u.identity.spiffeId}`
    : `certificate sha256 ${u.identity.certificateSha256.slice(0, 16)}…`;
}

/** A tool a server may serve, as the estate has it. */
interface ServedTool {
  name: string;
  /** The newest active version, or null when none is published. */
  version: string | null;
  /** The gateway quarantined it (see `quarantinesInForce`). */
  quarantined: boolean;
}

/**
 * `estate servers`: every server record, with its tools as the estate has them.
 *
 * @returns The exit code (0).
 */
export async function listServers(
  estate: EstateStore,
  out: Out,
): Promise<number> {
  const registry = estate.registry;
  const drift: DriftRecord[] = [];
  for await (const r of estate.readDrift()) drift.push(r);
  const held = new Set(
    quarantinesInForce(drift, registry).map((r) => `${r.server}\u0000${r.tool}`),
  );
  const servers = registry.servers().map((record) => ({
    record,
    tools: record.tools.map((name): ServedTool => ({
      name,
      version: registry.latest(name)?.version ?? null,
      quarantined: held.has(`${record.id}\u0000${name}`),
    })),
  }));
  const safe = showHiddenCharacters;
  const human = servers.length === 0
    ? "no servers recorded (servers/<id>.json; estate servers add FILE registers one)\n"
    : servers.map(({ record, tools }) =>
      `${record.id} (owner ${safe(record.owner)}): ${safe(record.description)}\n` +
      `  upstream  ${record.upstream.kind} ${safe(target(record))}\n` +
      `  identity  ${safe(identity(record))}\n` +
      `  tools     ${
        tools.map((t) =>
          `${t.name}${t.version ? `@${t.version}` : " (not published)"}${
            t.quarantined ? " (quarantined: see estate drift)" : ""
          }`
        ).join(", ")
      }\n`
    ).join("");
  out(human, {
    servers: servers.map(({ record, tools }) => ({ ...record, tools })),
  });
  return EXIT.ok;
}

/**
 * `estate servers add FILE`: registers a record file; a refusal is exit 1, with why.
 *
 * @returns The exit code: 0 registered, updated or unchanged; 1 refused.
 */
export async function addServer(
  estate: EstateStore,
  file: string,
  options: { update: boolean; cwd: string },
  out: Out,
): Promise<number> {
  try {
    const result: RegisterServerResult & { file?: string } = await estate
      .registerServer(file, {
        update: options.update,
      });
    const r = result.record;
    const tools = `${r.tools.length} tool${r.tools.length === 1 ? "" : "s"}: ${r.tools.join(", ")}`;
    out(
      result.status === "unchanged"
        ? `server ${r.id} is already registered with this record; nothing written\n`
        : `${result.status} server ${r.id} (${tools})${
          result.file ? ` in ${path.relative(options.cwd, result.file)}` : ""
        }\n`,
      {
        status: result.status,
        server: r.id,
        file: result.file,
        tools: r.tools,
      },
    );
    return EXIT.ok;
  } catch (e) {
    if (!(e instanceof ServerRegistrationError)) throw e;
    const message = e.refusal === "changed-without-update"
      ? `${e.message} (estate servers add FILE --update)`
      : e.message;
    out(`${message}\n`, {
      status: "refused",
      refusal: e.refusal,
      server: e.server,
      message,
      conflicts: e.conflicts,
      changed: e.changed,
    });
    return EXIT.failed;
  }
}
