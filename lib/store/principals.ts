/**
 * `principals.json`: the estate's example principals — whom discovery and the examples act for.
 *
 * @module
 */
import { isObject } from "../_object.ts";
import { DATA_CLASSIFICATIONS, type DataClassification, type Principal } from "../estate/spec.ts";
import { CorpusError } from "./corpus_error.ts";
import { parseJsonFile } from "./_json.ts";

/** A principal as `principals.json` describes it. */
export interface EstatePrincipal extends Principal {
  /** Who this is, for people reading the estate. */
  description?: string;
  /**
   * The SHA-256 of the bearer token standing for this principal (64 hexadecimal digits, read in
   * lower case): the file keeps the hash, never the token (see `bearerTokens`).
   */
  tokenSha256?: string;
  /**
   * A bearer token in plain text, accepted for local use only: `estate serve` warns about it, and
   * no tool of this library writes it. Store `tokenSha256` instead.
   */
  token?: string;
}

const FIELDS = new Set([
  "id",
  "scopes",
  "tenant",
  "clearance",
  "description",
  "tokenSha256",
  "token",
]);
const SHA256_HEX = /^[0-9a-fA-F]{64}$/;

/** The line (from 1) on which each element of the JSON list `text` starts. */
function elementLines(text: string): number[] {
  const lines: number[] = [];
  let line = 1, depth = 0, inString = false, expecting = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === "\n") line++;
    if (inString) {
      if (c === "\\") i++;
      else if (c === '"') inString = false;
      continue;
    }
    if (c === " " || c === "\t" || c === "\r" || c === "\n") continue;
    if (expecting && c !== "]") lines.push(line);
    expecting = false;
    if (c === '"') inString = true;
    else if (c === "[" || c === "{") {
      depth++;
      if (depth === 1) expecting = true;
    } else if (c === "]" || c === "}") depth--;
    else if (c === "," && depth === 1) expecting = true;
  }
  return lines;
}

/**
 * Parses and checks the text of a `principals.json`: a list of
 * `{ "id", "scopes", "tenant", "clearance", "description"?, "tokenSha256"? }` with unique ids
 * (a plain `"token"` instead of `"tokenSha256"` is accepted for local use).
 *
 * @param text The file's text.
 * @param file Its path, for errors.
 * @returns The principals, in file order.
 * @throws {CorpusError} Naming the file, the line (of the syntax error, or where the entry at
 *   fault starts) and the entry.
 *
 * @example
 * ```ts
 * import { parsePrincipals } from "@tool-estate/core/store";
 * import assert from "node:assert/strict";
 * const [ops] = parsePrincipals(
 *   '[{"id":"ops-bot","scopes":["payments:read"],"tenant":"wholesale","clearance":"confidential"}]',
 *   "principals.json",
 * );
 * assert.equal(ops.clearance, "confidential");
 * assert.throws(() => parsePrincipals('[{"id":"x"}]', "principals.json"), /principals\.json:1: entry 1 \(x\): scopes/);
 * ```
 */
export function parsePrincipals(text: string, file: string): EstatePrincipal[] {
  const value = parseJsonFile(text, file);
  if (!Array.isArray(value)) {
    throw new CorpusError(file, "must be a JSON list of principals", {
      line: 1,
    });
  }
  const seen = new Set<string>();
  const lines = elementLines(text);
  return value.map((raw, i): EstatePrincipal => {
    const id = typeof raw?.id === "string" ? raw.id : undefined;
    const fail = (problem: string): never => {
      throw new CorpusError(
        file,
        `entry ${i + 1}${id === undefined ? "" : ` (${id})`}: ${problem}`,
        { line: lines[i] },
      );
    };
    if (!isObject(raw)) fail("must be an object");
    const p = raw as Record<string, unknown>;
    for (const k of Object.keys(p)) {
      if (!FIELDS.has(k)) fail(`unknown field ${k}`);
    }
    if (id === undefined || id === "") fail("id must be a non-empty string");
    if (seen.has(id!)) fail(`id ${JSON.stringify(id)} appears twice`);
    seen.add(id!);
    if (
      !Array.isArray(p.scopes) || !p.scopes.every((s) => typeof s === "string")
    ) {
      fail("scopes must be a list of strings");
    }
    if (typeof p.tenant !== "string" || p.tenant === "") {
      fail("tenant must be a non-empty string");
    }
    if (!DATA_CLASSIFICATIONS.includes(p.clearance as DataClassification)) {
      fail(`clearance must be one of ${DATA_CLASSIFICATIONS.join(", ")}`);
    }
    for (const k of ["description", "token"]) {
      if (p[k] !== undefined && typeof p[k] !== "string") {
        fail(`${k} must be a string`);
      }
    }
    if (
      p.tokenSha256 !== undefined &&
      (typeof p.tokenSha256 !== "string" || !SHA256_HEX.test(p.tokenSha256))
    ) {
      fail(
        "tokenSha256 must be 64 hexadecimal digits (the SHA-256 of the token)",
      );
    }
    if (p.tokenSha256 !== undefined && p.token !== undefined) {
      fail("has both token and tokenSha256; keep tokenSha256 only");
    }
    const principal: EstatePrincipal = {
      id: id!,
      scopes: [...p.scopes as string[]],
      tenant: p.tenant as string,
      clearance: p.clearance as DataClassification,
    };
    if (p.description !== undefined) {
      principal.description = p.description as string;
    }
    if (p.tokenSha256 !== undefined) {
      principal.tokenSha256 = (p.tokenSha256 as string).toLowerCase();
    }
    if (p.token !== undefined) principal.token = p.token as string;
    return principal;
  });
}
