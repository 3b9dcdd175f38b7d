/**
 * OAuth 2.1 access tokens as the HTTP transport's authentication: {@linkcode accessTokens} makes
 * an `Authenticate` that accepts only tokens issued for this server by the authorization servers
 * it trusts — JWTs checked against the issuer's published keys (JWKS), opaque tokens by
 * introspection (RFC 7662) — and maps their verified claims to the estate's principal.
 *
 * @module
 */
import {
  createLocalJWKSet,
  createRemoteJWKSet,
  decodeJwt,
  errors as joseErrors,
  type JWTPayload,
  jwtVerify,
  type JWTVerifyGetKey,
} from "jose";
import { createHash } from "node:crypto";
import type { Principal } from "../../estate/spec.ts";
import { type Authenticate, bearerToken } from "./bearer_tokens.ts";
import {
  AuthorizationUnavailable,
  BearerChallenge,
  canonicalResource,
  checkIssuer,
} from "./oauth_resource.ts";
import { type IntrospectionOptions, Introspector } from "./_introspection.ts";
import { type ServerMetadata, ServerMetadataCache } from "./_oauth_server_metadata.ts";
import { principalFromClaims, type PrincipalFromClaimsOptions } from "./token_principal.ts";

export type { IntrospectionOptions } from "./_introspection.ts";

/** The asymmetric JWS algorithms accepted by default; `none` and the HMAC ones never are. */
export const DEFAULT_TOKEN_ALGORITHMS: readonly string[] = [
  "RS256",
  "RS384",
  "RS512",
  "PS256",
  "PS384",
  "PS512",
  "ES256",
  "ES384",
  "ES512",
  "EdDSA",
  "Ed25519",
];

/** One authorization server whose tokens are accepted. */
export interface TrustedAuthorizationServer {
  /** Its issuer identifier: `iss` of its tokens, and where its metadata is found. */
  issuer: string;
  /** Where its signing keys are. Default: `jwks_uri` of its metadata. */
  jwksUri?: string;
  /**
   * Verify its tokens by introspection instead of as JWTs: for opaque tokens, or to see
   * revocations at once. Its JWT-shaped tokens are introspected too.
   */
  introspection?: IntrospectionOptions;
  /**
   * The JWS algorithms accepted (asymmetric only: an HMAC algorithm would let anyone holding the
   * public key sign). Default {@linkcode DEFAULT_TOKEN_ALGORITHMS}.
   */
  algorithms?: readonly string[];
}

/** Options for {@linkcode accessTokens}. */
export interface AccessTokensOptions extends PrincipalFromClaimsOptions {
  /**
   * This server's resource identifier (RFC 8707), e.g. `https://mcp.bank.example/mcp`: every
   * token's audience must name it (compared in canonical form).
   */
  resource: string;
  /**
   * Other audience values accepted besides the resource, for authorization servers that put an
   * API identifier in `aud` instead.
   */
  audiences?: readonly string[];
  /** The authorization servers whose tokens are accepted. */
  authorizationServers: readonly TrustedAuthorizationServer[];
  /** Clock skew allowed on `exp`, `nbf` and `iat`, in seconds. Default 30. */
  clockToleranceSec?: number;
  /**
   * How long the keys fetched are kept, in milliseconds (then fetched again on the next token).
   * Default 10 minutes.
   */
  jwksMaxAgeMs?: number;
  /**
   * The shortest time between two fetches of the keys, in milliseconds: a token naming an unknown
   * key (`kid`) fetches them again, at most this often, so a flood of forged key ids cannot make
   * this server hammer the authorization server. Default 30 s.
   */
  jwksCooldownMs?: number;
  /**
   * How long a JWT whose signature, issuer and audience verified is remembered (by its SHA-256,
   * never past its `exp`), in milliseconds: the same token on the next request skips the
   * signature check; `exp` and `nbf` are checked on every request all the same. 0 checks the
   * signature every time. Default 60 s.
   */
  verifiedCacheMs?: number;
  /** How long a request to an authorization server may take, in milliseconds. Default 5 s. */
  timeoutMs?: number;
  /** The longest token accepted, in bytes. Default 16 KiB. */
  maxTokenBytes?: number;
  /** Told each refusal (for the log); the token itself is never given. */
  onRefused?: (refusal: BearerChallenge) => void;
  /** The clock, in milliseconds since the epoch. Default `Date.now`. */
  now?: () => number;
  /** The fetch used to reach authorization servers. Default the global `fetch`. */
  fetch?: typeof fetch;
}

/** The most verified tokens remembered. */
const MAX_VERIFIED = 10_000;

const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

/** One trusted authorization server, ready to verify its tokens. */
interface Verifier {
  issuer: string;
  metadata: ServerMetadataCache;
  introspector: Introspector | undefined;
  introspectionEndpoint: string | undefined;
  algorithms: string[];
  jwks: JWTVerifyGetKey | undefined;
  jwksUri: string | undefined;
  /** Until when (ms) a failed fetch of its keys or metadata is not repeated. */
  failedUntil: number;
}

/**
 * An {@linkcode Authenticate} for OAuth access tokens (`Authorization: Bearer <token>`), as the
 * MCP specification's resource server validates them (OAuth 2.1 §5.2, RFC 8707, RFC 9068):
 *
 * - a JWT is attributed to its `iss`, which must be a trusted authorization server; its signature
 *   is checked against that server's keys (fetched from `jwks_uri`, kept `jwksMaxAgeMs`, fetched
 *   again for an unknown `kid` at most every `jwksCooldownMs`) with an asymmetric algorithm from
 *   `algorithms` (`none` and HMAC are refused); `exp` is required and, with `nbf` and `iat`, held
 *   to the clock with `clockToleranceSec`; `aud` must name the resource; a token that passed is
 *   remembered for `verifiedCacheMs` (its `exp` and `nbf` still checked at every request);
 * - an opaque token (or any token of a server configured with `introspection`) is introspected at
 *   the trusted server(s) with introspection: it must be active, and its `aud` must name the
 *   resource, its `iss` (when given) the server, its `exp` (when given) be in the future;
 * - the verified claims become the principal by the declared mapping
 *   ({@linkcode principalFromClaims}).
 *
 * A request without a bearer token is refused with a plain 401; a refused token with 401
 * `invalid_token` and a description of why (never the token). An authorization server that
 * cannot be reached makes the request fail (500), not the token.
 *
 * @param options The resource, the trusted authorization servers, the mapping, the limits.
 * @returns The authenticator.
 * @throws {TypeError} When the resource or an issuer is not valid, or no server is given.
 *
 * @example
 * ```ts ignore
 * import { accessTokens, serveHttp } from "@tool-estate/core/http";
 * const authenticate = accessTokens({
 *   resource: "https://mcp.bank.example/mcp",
 *   authorizationServers: [{ issuer: "https://login.bank.example" }],
 *   claims: { principal: "sub", scopes: "scope", tenant: "tenant" },
 *   records: (id) => ({ tenant: "wholesale", clearance: "restricted" }),
 * });
 * ```
 */
export function accessTokens(options: AccessTokensOptions): Authenticate {
  const resource = canonicalResource(options.resource);
  const accepted = new Set([resource, ...(options.audiences ?? [])]);
  if (
    !Array.isArray(options.authorizationServers) ||
    options.authorizationServers.length === 0
  ) {
    throw new TypeError(
      "accessTokens(): authorizationServers must name at least one issuer",
    );
  }
  const now = options.now ?? Date.now;
  const fetchFn = options.fetch ?? globalThis.fetch.bind(globalThis);
  const timeoutMs = options.timeoutMs ?? 5_000;
  const skew = options.clockToleranceSec ?? 30;
  const maxBytes = options.maxTokenBytes ?? 16 * 1024;
  const verifiers = new Map<string, Verifier>();
  for (const as of options.authorizationServers) {
    checkIssuer(as.issuer);
    if (verifiers.has(as.issuer)) {
      throw new TypeError(
        `accessTokens(): issuer ${as.issuer} is listed twice`,
      );
    }
    const algorithms = [...(as.algorithms ?? DEFAULT_TOKEN_ALGORITHMS)];
    const weak = algorithms.find((a) => a === "none" || /^HS/i.test(a));
    if (weak) {
      throw new TypeError(
        `accessTokens(): ${as.issuer}: algorithm ${weak} is not accepted (only asymmetric signatures)`,
      );
    }
    verifiers.set(as.issuer, {
      issuer: as.issuer,
      metadata: new ServerMetadataCache(as.issuer, {
        fetch: fetchFn,
        timeoutMs,
        retryAfterMs: 5_000,
        now,
      }),
      introspector: as.introspection
        ? new Introspector(as.introspection, { fetch: fetchFn, timeoutMs, now })
        : undefined,
      introspectionEndpoint: as.introspection?.endpoint,
      algorithms,
      jwks: undefined,
      jwksUri: as.jwksUri,
      failedUntil: 0,
    });
  }
  const introspecting = [...verifiers.values()].filter((v) => v.introspector !== undefined);
  const cacheMs = options.verifiedCacheMs ?? 60_000;
  /** Verified JWTs by the SHA-256 of the token: their claims, and until when they are kept. */
  const verified = new Map<string, { payload: JWTPayload; until: number }>();

  const cooldownMs = options.jwksCooldownMs ?? 30_000;
  /**
   * The issuer's keys could not be had: say so (503). A failed fetch is not repeated for
   * `cooldownMs` — the same bound on fetches as an unknown `kid` has when the issuer answers.
   */
  const unavailable = (v: Verifier, why: string, failed: boolean): AuthorizationUnavailable => {
    if (failed) v.failedUntil = now() + cooldownMs;
    return new AuthorizationUnavailable(
      `the keys of the authorization server ${v.issuer} could not be fetched (${why}); the token cannot be checked now`,
      (v.failedUntil - now()) / 1000,
    );
  };
  const jwksOf = async (v: Verifier): Promise<JWTVerifyGetKey> => {
    if (v.jwks) return v.jwks;
    if (v.failedUntil > now()) throw unavailable(v, "it failed moments ago", false);
    let uri = v.jwksUri;
    if (uri === undefined) {
      try {
        uri = (await v.metadata.get()).jwks_uri;
      } catch (e) {
        throw unavailable(v, `its metadata: ${(e as Error).message}`, true);
      }
    }
    if (uri === undefined) throw new Error(`${v.issuer} publishes no jwks_uri`);
    const remote = createRemoteJWKSet(new URL(uri), {
      cacheMaxAge: options.jwksMaxAgeMs ?? 10 * 60_000,
      cooldownDuration: cooldownMs,
      timeoutDuration: timeoutMs,
    });
    // jose refetches for an unknown kid only after a successful fetch's cooldown; after a failed
    // fetch it would fetch again for every request: the failure gets the cooldown here, during
    // which the keys held from the last good fetch still verify.
    v.jwks ??= async (header, token) => {
      if (v.failedUntil > now()) {
        const held = remote.jwks();
        if (held) {
          try {
            return await createLocalJWKSet(held)(header, token);
          } catch (e) {
            if (!(e instanceof joseErrors.JWKSNoMatchingKey)) throw e;
          }
        }
        throw unavailable(v, "it failed moments ago", false);
      }
      try {
        return await remote(header, token);
      } catch (e) {
        if (isTokenFault(e)) throw e;
        throw unavailable(v, e instanceof Error ? e.message : String(e), true);
      }
    };
    return v.jwks;
  };

  const audienceOk = (aud: unknown): boolean => {
    const list = typeof aud === "string" ? [aud] : Array.isArray(aud) ? aud : [];
    return list.some((a) => typeof a === "string" && accepted.has(canonicalOr(a)));
  };

  const verifyJwt = async (token: string, v: Verifier): Promise<JWTPayload> => {
    const key = cacheMs > 0 ? createHash("sha256").update(token, "utf8").digest("base64") : "";
    const hit = cacheMs > 0 ? verified.get(key) : undefined;
    if (hit && hit.until > now()) {
      const t = now() / 1000;
      if (hit.payload.exp! + skew <= t) {
        throw new BearerChallenge("the token has expired");
      }
      if (typeof hit.payload.nbf === "number" && hit.payload.nbf - skew > t) {
        throw new BearerChallenge("the token is not valid yet");
      }
      return hit.payload;
    }
    if (hit) verified.delete(key);
    const keys = await jwksOf(v);
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, keys, {
        issuer: v.issuer,
        algorithms: v.algorithms,
        clockTolerance: skew,
        currentDate: new Date(now()),
        requiredClaims: ["exp"],
      }));
    } catch (e) {
      throw refusalOf(e);
    }
    if (!audienceOk(payload.aud)) {
      throw new BearerChallenge(
        `the token was not issued for this resource (${resource})`,
      );
    }
    if (cacheMs > 0) {
      if (verified.size >= MAX_VERIFIED) {
        verified.delete(verified.keys().next().value!);
      }
      verified.set(key, {
        payload,
        until: Math.min(now() + cacheMs, payload.exp! * 1000),
      });
    }
    return payload;
  };

  const introspect = async (
    token: string,
    v: Verifier,
  ): Promise<Record<string, unknown>> => {
    const endpoint = v.introspectionEndpoint ??
      (await v.metadata.get() as ServerMetadata).introspection_endpoint;
    if (endpoint === undefined) {
      throw new Error(`${v.issuer} publishes no introspection_endpoint`);
    }
    const claims = await v.introspector!.claims(token, endpoint);
    if (claims.iss !== undefined && claims.iss !== v.issuer) {
      throw new BearerChallenge(
        `the token was issued by ${String(claims.iss)}, not ${v.issuer}`,
      );
    }
    const t = now() / 1000;
    if (typeof claims.exp === "number" && claims.exp + skew <= t) {
      throw new BearerChallenge("the token has expired");
    }
    if (typeof claims.nbf === "number" && claims.nbf - skew > t) {
      throw new BearerChallenge("the token is not valid yet");
    }
    if (!audienceOk(claims.aud)) {
      throw new BearerChallenge(
        `the token was not issued for this resource (${resource})`,
      );
    }
    return claims;
  };

  const claimsOf = async (token: string): Promise<Record<string, unknown>> => {
    if (new TextEncoder().encode(token).length > maxBytes) {
      throw new BearerChallenge(`the token is longer than ${maxBytes} bytes`);
    }
    if (JWT_SHAPE.test(token)) {
      let iss: unknown;
      try {
        iss = decodeJwt(token).iss;
      } catch {
        throw new BearerChallenge("the token is not a well-formed JWT");
      }
      const v = typeof iss === "string" ? verifiers.get(iss) : undefined;
      if (!v) {
        throw new BearerChallenge(
          `the token's issuer ${
            JSON.stringify(iss)
          } is not an authorization server this resource trusts`,
        );
      }
      return v.introspector ? await introspect(token, v) : await verifyJwt(token, v);
    }
    if (introspecting.length === 0) {
      throw new BearerChallenge(
        "the token is not a JWT, and no authorization server introspects",
      );
    }
    let last: BearerChallenge | undefined;
    for (const v of introspecting) {
      try {
        return await introspect(token, v);
      } catch (e) {
        if (!(e instanceof BearerChallenge)) throw e;
        last = e;
      }
    }
    throw last!;
  };

  return async (request): Promise<Principal | undefined> => {
    const token = bearerToken(request.headers.authorization);
    if (token === undefined) {
      if ((request.headers.authorization ?? "").trim() === "") return undefined;
      const refusal = new BearerChallenge(
        "the Authorization header must be Bearer <token>",
        { status: 400, error: "invalid_request" },
      );
      options.onRefused?.(refusal);
      throw refusal;
    }
    try {
      return principalFromClaims(await claimsOf(token), options);
    } catch (e) {
      if (e instanceof BearerChallenge) options.onRefused?.(e);
      throw e;
    }
  };
}

/** A URI audience in canonical form; anything else as it is. */
function canonicalOr(aud: string): string {
  try {
    return canonicalResource(aud);
  } catch {
    return aud;
  }
}

/** Whether jose refused the token itself (its key, its form), rather than failing to fetch keys. */
function isTokenFault(e: unknown): boolean {
  return e instanceof joseErrors.JWKSNoMatchingKey ||
    e instanceof joseErrors.JWKSMultipleMatchingKeys ||
    e instanceof joseErrors.JOSENotSupported || e instanceof joseErrors.JOSEAlgNotAllowed ||
    e instanceof joseErrors.JWSInvalid || e instanceof joseErrors.JWTInvalid;
}

/** What jose's verdict means for the client: a 401 saying why. */
function refusalOf(e: unknown): Error {
  if (e instanceof joseErrors.JWTExpired) {
    return new BearerChallenge("the token has expired");
  }
  if (e instanceof joseErrors.JWTClaimValidationFailed) {
    return new BearerChallenge(
      `the token's ${e.claim} claim is not valid: ${e.reason}`,
    );
  }
  if (e instanceof joseErrors.JOSEAlgNotAllowed) {
    return new BearerChallenge(
      "the token's signature algorithm is not accepted",
    );
  }
  if (e instanceof joseErrors.JWSSignatureVerificationFailed) {
    return new BearerChallenge("the token's signature does not verify");
  }
  if (
    e instanceof joseErrors.JWKSNoMatchingKey ||
    e instanceof joseErrors.JWKSMultipleMatchingKeys
  ) {
    return new BearerChallenge(
      "the token is signed with a key the issuer does not publish",
    );
  }
  if (
    e instanceof joseErrors.JWSInvalid || e instanceof joseErrors.JWTInvalid
  ) {
    return new BearerChallenge("the token is not a valid JWT");
  }
  if (e instanceof joseErrors.JOSENotSupported) {
    return new BearerChallenge(
      "the token uses an algorithm or key this server does not support",
    );
  }
  // The keys could not be fetched (JWKSTimeout, a network error): not the token's fault.
  return e instanceof Error ? e : new Error(String(e));
}
