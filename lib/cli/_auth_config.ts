/**
 * `estate serve --auth oidc`: the resource server's settings, from flags or a JSON file
 * (`--auth-config FILE`), flags winning. Secrets are never flags: an introspection client's
 * secret is read from the environment variable the file names.
 */
import fs from "node:fs";
import path from "node:path";
import process from "node:process";
import type {
  ClaimMapping,
  PrincipalRecord,
  TrustedAuthorizationServer,
} from "../mcp/transports/http_mod.ts";
import { isObject } from "../_object.ts";
import { UsageError } from "./_args.ts";

/** What `--auth oidc` serves with. */
export interface OidcSettings {
  /** The resource identifier; undefined: the URL served. */
  resource: string | undefined;
  /** Audience values accepted besides the resource. */
  audiences: string[];
  /** The trusted authorization servers. */
  authorizationServers: TrustedAuthorizationServer[];
  /** `scopes_supported`, and the scope of a 401. */
  scopesSupported: string[] | undefined;
  /** Which claims the principal comes from. */
  claims: ClaimMapping;
  /** Tenant and clearance for principals neither the token nor principals.json place. */
  defaults: Partial<PrincipalRecord>;
}

/** The flags `--auth oidc` reads. */
export const OIDC_FLAGS = [
  "auth",
  "auth-config",
  "issuer",
  "resource",
  "audience",
  "scopes",
  "principal-claim",
  "tenant-claim",
  "clearance-claim",
] as const;

const FILE_FIELDS = new Set([
  "issuer",
  "authorizationServers",
  "resource",
  "audiences",
  "scopesSupported",
  "claims",
  "defaults",
]);

/**
 * The settings from the flags and the config file.
 *
 * @param flags The parsed flags.
 * @param cwd Where a relative config path starts.
 * @param env The environment (for introspection secrets).
 * @returns The settings.
 * @throws {UsageError} When they are incomplete or malformed.
 */
export function oidcSettings(
  flags: Map<string, string | true>,
  cwd: string,
  env: Record<string, string | undefined> = process.env,
): OidcSettings {
  const flag = (name: string): string | undefined => {
    const v = flags.get(name);
    return typeof v === "string" ? v : undefined;
  };
  let file: Record<string, unknown> = {};
  const configPath = flag("auth-config");
  if (configPath !== undefined) {
    const where = path.resolve(cwd, configPath);
    try {
      file = JSON.parse(fs.readFileSync(where, "utf8"));
    } catch (e) {
      throw new UsageError(`--auth-config ${where}: ${(e as Error).message}`);
    }
    if (!isObject(file)) {
      throw new UsageError(`--auth-config ${where}: must be a JSON object`);
    }
    for (const k of Object.keys(file)) {
      if (!FILE_FIELDS.has(k)) {
        throw new UsageError(
          `--auth-config ${where}: unknown field ${k}; known: ${[...FILE_FIELDS].join(", ")}`,
        );
      }
    }
  }
  const list = (v: unknown, what: string): string[] | undefined => {
    if (v === undefined) return undefined;
    if (Array.isArray(v) && v.every((x) => typeof x === "string")) {
      return v as string[];
    }
    throw new UsageError(`${what} must be a list of strings`);
  };
  const split = (v: string | undefined, sep: RegExp) =>
    v === undefined ? undefined : v.split(sep).filter((s) => s !== "");

  const servers: TrustedAuthorizationServer[] = [];
  const issuer = flag("issuer") ??
    (typeof file.issuer === "string" ? file.issuer : undefined);
  if (issuer !== undefined) servers.push({ issuer });
  if (flag("issuer") === undefined && file.authorizationServers !== undefined) {
    if (!Array.isArray(file.authorizationServers)) {
      throw new UsageError("authorizationServers must be a list");
    }
    for (const a of file.authorizationServers) {
      servers.push(trustedServer(a, env));
    }
  }
  if (servers.length === 0) {
    throw new UsageError(
      "--auth oidc needs --issuer URL (the authorization server), or an --auth-config file naming authorizationServers",
    );
  }
  const claims: ClaimMapping = isObject(file.claims) ? { ...file.claims as ClaimMapping } : {};
  for (
    const [k, f] of [["principal", "principal-claim"], [
      "tenant",
      "tenant-claim",
    ], [
      "clearance",
      "clearance-claim",
    ]] as const
  ) {
    const v = flag(f);
    if (v !== undefined) claims[k] = v;
  }
  return {
    resource: flag("resource") ??
      (typeof file.resource === "string" ? file.resource : undefined),
    audiences: split(flag("audience"), /,/) ??
      list(file.audiences, "audiences") ?? [],
    authorizationServers: servers,
    scopesSupported: split(flag("scopes"), /[ ,]+/) ??
      list(file.scopesSupported, "scopesSupported"),
    claims,
    defaults: isObject(file.defaults) ? file.defaults as Partial<PrincipalRecord> : {},
  };
}

function trustedServer(
  a: unknown,
  env: Record<string, string | undefined>,
): TrustedAuthorizationServer {
  if (!isObject(a) || typeof a.issuer !== "string") {
    throw new UsageError(
      "each of authorizationServers needs an issuer (a URL)",
    );
  }
  const out: TrustedAuthorizationServer = { issuer: a.issuer };
  if (typeof a.jwksUri === "string") out.jwksUri = a.jwksUri;
  if (Array.isArray(a.algorithms)) out.algorithms = a.algorithms.map(String);
  if (a.introspection !== undefined) {
    const i = a.introspection;
    if (
      !isObject(i) || typeof i.clientId !== "string" ||
      typeof i.clientSecretEnv !== "string"
    ) {
      throw new UsageError(
        `${a.issuer}: introspection needs clientId and clientSecretEnv (the environment variable holding the secret)`,
      );
    }
    const secret = env[i.clientSecretEnv];
    if (secret === undefined || secret === "") {
      throw new UsageError(
        `${a.issuer}: the environment variable ${i.clientSecretEnv} (the introspection client's secret) is not set`,
      );
    }
    out.introspection = { clientId: i.clientId, clientSecret: secret };
    if (typeof i.endpoint === "string") out.introspection.endpoint = i.endpoint;
    if (typeof i.cacheMs === "number") out.introspection.cacheMs = i.cacheMs;
  }
  return out;
}
