/**
 * Bearer-token authentication from a fixed list of principals, for the HTTP transport.
 *
 * @module
 */
import { createHash, timingSafeEqual } from "node:crypto";
import type { Principal } from "../../estate/spec.ts";

/** What an authenticator sees of an HTTP request. */
export interface HttpRequestInfo {
  /** The method, e.g. `POST`. */
  method: string;
  /** The path and query, e.g. `/mcp`. */
  path: string;
  /** The headers, names in lower case, repeated headers joined with `, `. */
  headers: Readonly<Record<string, string>>;
  /** The peer's address, when known. */
  remoteAddress?: string;
}

/**
 * Decides who is calling from a request's headers: the principal, or undefined to refuse with
 * 401; or it throws a `BearerChallenge` to refuse with that status and challenge (an expired
 * token: 401 `invalid_token` saying so). Any other throw is answered 500. It runs on every
 * request, so a revoked credential stops working mid-session.
 */
export type Authenticate = (
  request: HttpRequestInfo,
) => Principal | undefined | Promise<Principal | undefined>;

/**
 * The token in an `Authorization: Bearer <token>` header (RFC 6750; the scheme is
 * case-insensitive), or undefined when there is none or it is malformed.
 *
 * @param authorization The header's value.
 * @returns The token.
 *
 * @example
 * ```ts
 * import { bearerToken } from "@tool-estate/core/http";
 * import assert from "node:assert/strict";
 * assert.equal(bearerToken("Bearer abc.DEF-123"), "abc.DEF-123");
 * assert.equal(bearerToken("Basic dXNlcg=="), undefined);
 * ```
 */
export function bearerToken(
  authorization: string | undefined,
): string | undefined {
  const m = /^bearer +([A-Za-z0-9\-._~+/]+=*) *$/i.exec(authorization ?? "");
  return m?.[1];
}

/**
 * The SHA-256 of a bearer token as 64 lower-case hexadecimal digits: what `principals.json` stores
 * (`tokenSha256`) instead of the token. The same as `printf %s TOKEN | sha256sum`.
 *
 * @param token The token.
 * @returns The hash.
 *
 * @example
 * ```ts
 * import { tokenSha256 } from "@tool-estate/core/http";
 * import assert from "node:assert/strict";
 * assert.equal(tokenSha256("a"), "ca978112ca1bbdcafac231b39a23dc4da786eff8147c4e72b9807785afee48bb");
 * ```
 */
export function tokenSha256(token: string): string {
  return createHash("sha256").update(token, "utf8").digest("hex");
}

const SHA256_HEX = /^[0-9a-fA-F]{64}$/;

/** A principal as {@linkcode bearerTokens} takes it: with the hash of its token, or the token. */
export type TokenPrincipal = Principal & {
  /** The SHA-256 of the principal's bearer token, in hexadecimal (see {@linkcode tokenSha256}). */
  tokenSha256?: string;
  /** The token itself (for tests and local use; prefer `tokenSha256`). */
  token?: string;
};

/**
 * An {@linkcode Authenticate} that maps `Authorization: Bearer <token>` to the principal whose
 * `tokenSha256` is the SHA-256 of that token (a plain `token` is hashed at once; principals with
 * neither are never matched). Only hashes are kept. The presented token's hash is compared with
 * every principal's, each in constant time, so the time taken says nothing about how close a
 * guess came or whose token it was. The principal is returned without its token or hash.
 *
 * @param principals The principals, e.g. an estate's `principals.json`.
 * @returns The authenticator.
 * @throws {TypeError} When a token is empty, a hash is not 64 hexadecimal digits, a principal has
 *   both, or two principals share a token.
 *
 * @example
 * ```ts
 * import { bearerTokens, tokenSha256 } from "@tool-estate/core/http";
 * import assert from "node:assert/strict";
 * const authenticate = bearerTokens([
 *   { id: "teller", scopes: [], tenant: "retail", clearance: "internal", tokenSha256: tokenSha256("t-123") },
 * ]);
 * const who = await authenticate({ method: "POST", path: "/mcp", headers: { authorization: "Bearer t-123" } });
 * assert.deepEqual(who, { id: "teller", scopes: [], tenant: "retail", clearance: "internal" });
 * assert.equal(await authenticate({ method: "POST", path: "/mcp", headers: {} }), undefined);
 * ```
 */
export function bearerTokens(
  principals: readonly TokenPrincipal[],
): Authenticate {
  const entries: { hash: Uint8Array; hex: string; principal: Principal }[] = [];
  for (const p of principals) {
    const { token, tokenSha256: stored, ...principal } = p;
    if (token !== undefined && stored !== undefined) {
      throw new TypeError(
        `bearerTokens(): principal ${p.id} has both token and tokenSha256; give one`,
      );
    }
    if (token === "") {
      throw new TypeError(
        `bearerTokens(): principal ${p.id} has an empty token`,
      );
    }
    if (
      stored !== undefined &&
      (typeof stored !== "string" || !SHA256_HEX.test(stored))
    ) {
      throw new TypeError(
        `bearerTokens(): principal ${p.id}: tokenSha256 must be 64 hexadecimal digits`,
      );
    }
    const hex = token !== undefined ? tokenSha256(token) : stored?.toLowerCase();
    if (hex === undefined) continue;
    const clash = entries.find((e) => e.hex === hex);
    if (clash) {
      throw new TypeError(
        `bearerTokens(): principals ${clash.principal.id} and ${p.id} share a token; each needs its own`,
      );
    }
    entries.push({ hash: hexBytes(hex), hex, principal });
  }
  return (request) => {
    const token = bearerToken(request.headers.authorization);
    if (token === undefined) return undefined;
    const presented = createHash("sha256").update(token, "utf8").digest();
    let found: Principal | undefined;
    for (const e of entries) {
      if (timingSafeEqual(e.hash, presented)) found = e.principal;
    }
    return found;
  };
}

function hexBytes(hex: string): Uint8Array {
  const bytes = new Uint8Array(hex.length / 2);
  for (let i = 0; i < bytes.length; i++) {
    bytes[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  }
  return bytes;
}
