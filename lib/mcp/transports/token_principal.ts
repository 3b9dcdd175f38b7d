/**
 * From an access token's verified claims to the estate's {@linkcode Principal}, by a declared
 * mapping: which claim names the principal, which carries the scopes, and where tenant and
 * clearance come from (claims, else the principal's record, else defaults). Pure: no I/O.
 *
 * @module
 */
import {
  DATA_CLASSIFICATIONS,
  type DataClassification,
  type Principal,
} from "../../estate/spec.ts";
import { BearerChallenge } from "./oauth_resource.ts";

/** Which claims the principal is read from. */
export interface ClaimMapping {
  /**
   * The claim naming the principal: `sub` (the default: the user, or the client itself for the
   * client-credentials grant), `client_id` (the agent, whoever it acts for), or any other claim
   * holding a string.
   */
  principal?: string;
  /**
   * The claim carrying the granted scopes: a space-separated string (`scope`, the default, RFC
   * 9068 and RFC 7662) or a list of strings (such as `scp`).
   */
  scopes?: string;
  /** The claim carrying the tenant, when the authorization server issues one. */
  tenant?: string;
  /** The claim carrying the clearance (`public` … `restricted`), when the authorization server issues one. */
  clearance?: string;
}

/** What the estate records of a principal, besides its token: tenant and clearance. */
export interface PrincipalRecord {
  /** The principal's tenant. */
  tenant: string;
  /** The principal's clearance. */
  clearance: DataClassification;
}

/** Options for {@linkcode principalFromClaims}. */
export interface PrincipalFromClaimsOptions {
  /** Which claims to read. Default: `sub`, `scope`, and no tenant or clearance claims. */
  claims?: ClaimMapping;
  /**
   * The estate's record of a principal (e.g. its entry in `principals.json`): tenant and
   * clearance when the token has none. Its scopes are never used: the token's are what was
   * granted.
   */
  records?: (id: string) => PrincipalRecord | undefined;
  /** Tenant and clearance when neither the token nor a record gives them. */
  defaults?: Partial<PrincipalRecord>;
}

/**
 * The principal verified claims stand for. The id is the mapped claim's string; the scopes are the
 * token's (deduplicated, in order); tenant and clearance each come from the mapped claim when it is
 * present, else the principal's record, else the defaults.
 *
 * @param claims The verified claims (a JWT's payload, or an active introspection response).
 * @param options The mapping, the records and the defaults.
 * @returns The principal.
 * @throws {BearerChallenge} 401 `invalid_token` when the principal claim is missing, a claim has
 *   the wrong type, the clearance is not a classification, or the subject has no tenant or
 *   clearance anywhere (it is not a principal of this estate).
 *
 * @example
 * ```ts
 * import { principalFromClaims } from "@tool-estate/core/http";
 * import assert from "node:assert/strict";
 * const principal = principalFromClaims(
 *   { sub: "wholesale-operator", scope: "payments:read fx:quote", iss: "https://login.bank.example" },
 *   { records: (id) => id === "wholesale-operator" ? { tenant: "wholesale", clearance: "restricted" } : undefined },
 * );
 * assert.deepEqual(principal, {
 *   id: "wholesale-operator", scopes: ["payments:read", "fx:quote"], tenant: "wholesale", clearance: "restricted",
 * });
 * ```
 */
export function principalFromClaims(
  claims: Record<string, unknown>,
  options: PrincipalFromClaimsOptions = {},
): Principal {
  const mapping = options.claims ?? {};
  const idClaim = mapping.principal ?? "sub";
  const id = claims[idClaim];
  if (typeof id !== "string" || id === "") {
    throw new BearerChallenge(
      `the token has no ${idClaim} claim naming the caller`,
    );
  }
  const scopes = readScopes(claims, mapping.scopes ?? "scope");
  const record = options.records?.(id);
  const tenant = stringClaim(claims, mapping.tenant) ?? record?.tenant ??
    options.defaults?.tenant;
  const clearance = stringClaim(claims, mapping.clearance) ??
    record?.clearance ??
    options.defaults?.clearance;
  if (tenant === undefined || clearance === undefined) {
    throw new BearerChallenge(
      `${idClaim} ${
        JSON.stringify(id)
      } is not a principal of this estate (no tenant or clearance for it)`,
    );
  }
  if (!DATA_CLASSIFICATIONS.includes(clearance as DataClassification)) {
    throw new BearerChallenge(
      `the clearance ${JSON.stringify(clearance)} is not one of ${DATA_CLASSIFICATIONS.join(", ")}`,
    );
  }
  return { id, scopes, tenant, clearance: clearance as DataClassification };
}

function stringClaim(
  claims: Record<string, unknown>,
  name: string | undefined,
): string | undefined {
  if (name === undefined || claims[name] === undefined) return undefined;
  const v = claims[name];
  if (typeof v !== "string" || v === "") {
    throw new BearerChallenge(
      `the token's ${name} claim must be a non-empty string`,
    );
  }
  return v;
}

function readScopes(claims: Record<string, unknown>, name: string): string[] {
  const v = claims[name];
  if (v === undefined) return [];
  if (typeof v === "string") {
    return [...new Set(v.split(" ").filter((s) => s !== ""))];
  }
  if (Array.isArray(v) && v.every((s) => typeof s === "string")) {
    return [...new Set(v)];
  }
  throw new BearerChallenge(
    `the token's ${name} claim must be a space-separated string or a list of strings`,
  );
}
