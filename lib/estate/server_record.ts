/**
 * The MCP servers of the estate that the estate did not write: {@linkcode ServerRecord}, what the
 * estate records of each — how to reach it, the identity it must prove, who owns it, and the tool
 * names it may serve — and {@linkcode parseServerRecord}, which checks a record as a file holds it
 * (`servers/<id>.json` beside `tools/`). Governance (side effect, scopes, tenants, classification,
 * owner) never comes from a server: it is each tool's spec in the estate.
 *
 * @module
 */
import { isObject } from "../_object.ts";
import { isServerId, isToolName } from "./spec.ts";

/** How the gateway starts a stdio server, and the binary it must be. */
export interface StdioUpstream {
  /** `stdio`. */
  kind: "stdio";
  /** The program (a path, or a name found on `PATH`). */
  command: string;
  /** Its arguments. */
  args?: string[];
  /** Its environment: exactly this, nothing of the gateway's own (scrubbed). */
  env?: Record<string, string>;
  /**
   * SHA-256 (hex) of the program the command resolves to: a different binary is refused. For an
   * interpreter (`deno`, `node`), pin the interpreter, and pin the script with `scriptSha256`.
   */
  sha256: string;
  /** SHA-256 (hex) of the script file named by the first argument, when the command runs one. */
  scriptSha256?: string;
}

/** How the gateway reaches an HTTP server, and how it verifies the server is the one recorded. */
export interface HttpUpstream {
  /** `http`. */
  kind: "http";
  /** The MCP endpoint, `https://…` (plain `http://` only on loopback, for tests). */
  url: string;
  /**
   * The identity the server's TLS certificate must prove: a URI SAN issued by the estate's trust
   * root (`spiffe://bank.example/payments`), or the certificate itself, pinned by the SHA-256 of
   * its DER encoding (hex).
   */
  identity: { spiffeId: string } | { certificateSha256: string };
}

/** An MCP server of the estate. */
export interface ServerRecord {
  /** A short id, `[a-z0-9][a-z0-9-]*`: the file name and how tool specs name it. */
  id: string;
  /** The accountable team. */
  owner: string;
  /** What the server is, in a sentence. */
  description: string;
  /** How to reach it. */
  upstream: StdioUpstream | HttpUpstream;
  /**
   * The tool names it may serve, as the estate names them (exactly one server serves a name). A
   * tool it lists that is not here is dropped, and logged with the evidence.
   */
  tools: string[];
  /**
   * Where an estate name differs from the server's own: estate name → upstream name. Default: the
   * same name.
   */
  upstreamNames?: Record<string, string>;
  /**
   * The server's own tool names the estate leaves out on purpose (a filesystem server's write
   * tools, say): never exposed, like any tool not in `tools`, but not logged as dropped each time
   * the server lists them. A tool listed that is in neither is still dropped and logged.
   */
  leftOut?: string[];
}

/** A server record that was refused, with every problem found (each names its field). */
export class ServerRecordError extends Error {
  /** One sentence per problem. */
  readonly problems: string[];

  /**
   * Makes the error.
   *
   * @param subject What was read (a file name, or the record's id).
   * @param problems Every problem found.
   */
  constructor(subject: string, problems: string[]) {
    super(`Invalid server record ${subject}: ${problems.join("; ")}`);
    this.name = "ServerRecordError";
    this.problems = problems;
  }
}

const HEX64 = /^[0-9a-f]{64}$/;

/**
 * Checks a value (a parsed `servers/<id>.json`) and returns it as a {@linkcode ServerRecord}: every
 * problem is reported at once, each naming its field.
 *
 * @param value The candidate.
 * @param subject What to call it in the error.
 * @returns A fresh record with only the known fields.
 * @throws {ServerRecordError} Naming every field that is missing or wrong.
 *
 * @example
 * ```ts
 * import { parseServerRecord } from "@tool-estate/core";
 * import assert from "node:assert/strict";
 * const record = parseServerRecord({
 *   id: "payments-mcp", owner: "payments-platform", description: "The payments team's MCP server.",
 *   upstream: { kind: "http", url: "https://payments.internal:8443/mcp", identity: { spiffeId: "spiffe://bank.example/payments" } },
 *   tools: ["payments.release"],
 * });
 * assert.equal(record.upstream.kind, "http");
 * ```
 */
export function parseServerRecord(
  value: unknown,
  subject = "server record",
): ServerRecord {
  const problems: string[] = [];
  if (!isObject(value)) {
    throw new ServerRecordError(subject, ["a server record must be an object"]);
  }
  const str = (v: unknown, field: string): string => {
    if (typeof v !== "string" || v.trim() === "") {
      problems.push(`${field} must be a non-empty string`);
      return "";
    }
    return v;
  };
  const id = str(value.id, "id");
  if (id && !isServerId(id)) {
    problems.push(
      `id ${JSON.stringify(id)} must be 1-63 characters of a-z 0-9 - (not starting with -)`,
    );
  }
  const owner = str(value.owner, "owner");
  const description = str(value.description, "description");
  const tools: string[] = [];
  if (!Array.isArray(value.tools) || value.tools.length === 0) {
    problems.push("tools must list the tool names the server may serve");
  } else {
    for (const t of value.tools) {
      if (typeof t !== "string" || !isToolName(t)) {
        problems.push(`tools: ${JSON.stringify(t)} is not a tool name`);
      } else if (tools.includes(t)) {
        problems.push(`tools: ${t} is listed twice`);
      } else tools.push(t);
    }
  }
  let upstream: StdioUpstream | HttpUpstream | undefined;
  const u = value.upstream;
  if (!isObject(u)) {
    problems.push(
      'upstream must be an object: {kind: "stdio", ...} or {kind: "http", ...}',
    );
  } else if (u.kind === "stdio") {
    const command = str(u.command, "upstream.command");
    const args = u.args === undefined ? undefined : u.args;
    if (
      args !== undefined &&
      !(Array.isArray(args) && args.every((a) => typeof a === "string"))
    ) {
      problems.push("upstream.args must be a list of strings");
    }
    const env = u.env;
    if (
      env !== undefined &&
      !(isObject(env) && Object.values(env).every((v) => typeof v === "string"))
    ) {
      problems.push("upstream.env must map names to strings");
    }
    if (typeof u.sha256 !== "string" || !HEX64.test(u.sha256)) {
      problems.push(
        "upstream.sha256 must be the program's SHA-256, 64 lowercase hex digits",
      );
    }
    if (
      u.scriptSha256 !== undefined &&
      (typeof u.scriptSha256 !== "string" || !HEX64.test(u.scriptSha256))
    ) {
      problems.push("upstream.scriptSha256 must be 64 lowercase hex digits");
    }
    upstream = {
      kind: "stdio",
      command,
      ...(Array.isArray(args) ? { args: [...args as string[]] } : {}),
      ...(isObject(env) ? { env: { ...env as Record<string, string> } } : {}),
      sha256: String(u.sha256),
      ...(typeof u.scriptSha256 === "string" ? { scriptSha256: u.scriptSha256 } : {}),
    };
  } else if (u.kind === "http") {
    const url = str(u.url, "upstream.url");
    let parsed: URL | undefined;
    try {
      parsed = new URL(url);
    } catch {
      if (url) {
        problems.push(`upstream.url ${JSON.stringify(url)} is not a URL`);
      }
    }
    if (
      parsed && parsed.protocol !== "https:" &&
      !["127.0.0.1", "localhost", "[::1]"].includes(parsed.hostname)
    ) {
      problems.push("upstream.url must be https (plain http only on loopback)");
    }
    const identity = u.identity;
    let id2: HttpUpstream["identity"] | undefined;
    if (
      isObject(identity) && typeof identity.spiffeId === "string" &&
      identity.spiffeId.startsWith("spiffe://")
    ) {
      id2 = { spiffeId: identity.spiffeId };
    } else if (
      isObject(identity) && typeof identity.certificateSha256 === "string" &&
      HEX64.test(identity.certificateSha256)
    ) {
      id2 = { certificateSha256: identity.certificateSha256 };
    } else {
      problems.push(
        'upstream.identity must be {spiffeId: "spiffe://…"} or {certificateSha256: 64 hex digits}',
      );
    }
    upstream = {
      kind: "http",
      url,
      identity: id2 ?? { certificateSha256: "" },
    };
  } else {
    problems.push('upstream.kind must be "stdio" or "http"');
  }
  let upstreamNames: Record<string, string> | undefined;
  if (value.upstreamNames !== undefined) {
    const n = value.upstreamNames;
    if (
      !isObject(n) ||
      !Object.values(n).every((v) => typeof v === "string" && v !== "")
    ) {
      problems.push(
        "upstreamNames must map estate names to the server's names (non-empty strings)",
      );
    } else {
      for (const k of Object.keys(n)) {
        if (!tools.includes(k)) {
          problems.push(`upstreamNames: ${k} is not one of tools`);
        }
      }
      upstreamNames = { ...n as Record<string, string> };
    }
  }
  let leftOut: string[] | undefined;
  if (value.leftOut !== undefined) {
    const l = value.leftOut;
    if (!Array.isArray(l) || !l.every((v) => typeof v === "string" && v !== "")) {
      problems.push("leftOut must list the server's tool names the estate leaves out (strings)");
    } else {
      leftOut = [];
      for (const name of l as string[]) {
        if (leftOut.includes(name)) problems.push(`leftOut: ${name} is listed twice`);
        else leftOut.push(name);
      }
    }
  }
  // Each of the server's names serves one estate name: two would make its listing ambiguous.
  const servedAs = new Map<string, string>();
  for (const t of tools) {
    const theirs = upstreamNames?.[t] ?? t;
    const other = servedAs.get(theirs);
    if (other !== undefined) {
      problems.push(
        `upstreamNames: ${other} and ${t} would both be the server's ${JSON.stringify(theirs)}`,
      );
    } else servedAs.set(theirs, t);
  }
  for (const name of leftOut ?? []) {
    if (servedAs.has(name)) {
      problems.push(
        `leftOut: ${name} is the server's name of ${servedAs.get(name)}, which it serves`,
      );
    }
  }
  const known = new Set([
    "id",
    "owner",
    "description",
    "upstream",
    "tools",
    "upstreamNames",
    "leftOut",
    "$schema",
  ]);
  for (const k of Object.keys(value)) {
    if (!known.has(k)) problems.push(`unknown field ${k}`);
  }
  if (problems.length) throw new ServerRecordError(subject, problems);
  const record: ServerRecord = {
    id,
    owner,
    description,
    upstream: upstream!,
    tools,
  };
  if (upstreamNames) record.upstreamNames = upstreamNames;
  if (leftOut?.length) record.leftOut = leftOut;
  return record;
}
