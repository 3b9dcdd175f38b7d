/**
 * `principals.json`: the estate's example principals — whom discovery and the examples act for.
 *
 * @module
 */
import { DATA_CLASSIFICATIONS, type DataClassification, type Principal } from "../estate/spec.ts";
import { CorpusError } from "./corpus_error.ts";
import { parseJsonFile } from "./_json.ts";

/** A principal as `principals.json` describes it. */
export interface EstatePrincipal extends Principal {
  /** Who this is, for people reading the estate. */
  description?: string;
  /** A bearer token standing for this principal in examples (passed through, not checked here). */
  token?: string;
}

const FIELDS = new Set(["id", "scopes", "tenant", "clearance", "description", "token"]);

/**
 * Parses and checks the text of a `principals.json`: a list of
 * `{ "id", "scopes", "tenant", "clearance", "description"?, "token"? }` with unique ids.
 *
 * @param text The file's text.
 * @param file Its path, for errors.
 * @returns The principals, in file order.
 * @throws {CorpusError} Naming the file (and the line, for invalid JSON) and the entry at fault.
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
 * assert.throws(() => parsePrincipals('[{"id":"x"}]', "principals.json"), /principals\.json: entry 1 \(x\): scopes/);
 * ```
 */
export function parsePrincipals(text: string, file: string): EstatePrincipal[] {
  const value = parseJsonFile(text, file);
  if (!Array.isArray(value)) {
    throw new CorpusError(file, "must be a JSON list of principals", { line: 1 });
  }
  const seen = new Set<string>();
  return value.map((raw, i): EstatePrincipal => {
    const id = typeof raw?.id === "string" ? raw.id : undefined;
    const fail = (problem: string): never => {
      throw new CorpusError(
        file,
        `entry ${i + 1}${id === undefined ? "" : ` (${id})`}: ${problem}`,
      );
    };
    if (typeof raw !== "object" || raw === null || Array.isArray(raw)) fail("must be an object");
    const p = raw as Record<string, unknown>;
    for (const k of Object.keys(p)) if (!FIELDS.has(k)) fail(`unknown field ${k}`);
    if (id === undefined || id === "") fail("id must be a non-empty string");
    if (seen.has(id!)) fail(`id ${JSON.stringify(id)} appears twice`);
    seen.add(id!);
    if (!Array.isArray(p.scopes) || !p.scopes.every((s) => typeof s === "string")) {
      fail("scopes must be a list of strings");
    }
    if (typeof p.tenant !== "string" || p.tenant === "") fail("tenant must be a non-empty string");
    if (!DATA_CLASSIFICATIONS.includes(p.clearance as DataClassification)) {
      fail(`clearance must be one of ${DATA_CLASSIFICATIONS.join(", ")}`);
    }
    for (const k of ["description", "token"]) {
      if (p[k] !== undefined && typeof p[k] !== "string") fail(`${k} must be a string`);
    }
    const principal: EstatePrincipal = {
      id: id!,
      scopes: [...p.scopes as string[]],
      tenant: p.tenant as string,
      clearance: p.clearance as DataClassification,
    };
    if (p.description !== undefined) principal.description = p.description as string;
    if (p.token !== undefined) principal.token = p.token as string;
    return principal;
  });
}
