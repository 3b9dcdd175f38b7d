/**
 * Bearer-token authentication from a fixed list of principals, for the HTTP transport.
 *
 * @module
 */
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
 * 401. It runs on every request, so a revoked credential stops working mid-session.
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
export function bearerToken(authorization: string | undefined): string | undefined {
  const m = /^bearer +([A-Za-z0-9\-._~+/]+=*) *$/i.exec(authorization ?? "");
  return m?.[1];
}

/** Compares two strings in time that depends on their lengths only, not on where they differ. */
function sameText(a: string, b: string): boolean {
  const x = new TextEncoder().encode(a), y = new TextEncoder().encode(b);
  let diff = x.length ^ y.length;
  for (let i = 0; i < Math.max(x.length, y.length); i++) diff |= (x[i] ?? 0) ^ (y[i] ?? 0);
  return diff === 0;
}

/**
 * An {@linkcode Authenticate} that maps `Authorization: Bearer <token>` to the principal holding
 * that token (principals without a `token` are never matched). Every token is compared, in time
 * independent of where a guess goes wrong. The principal is returned without its token.
 *
 * @param principals The principals, e.g. an estate's `principals.json`.
 * @returns The authenticator.
 * @throws {TypeError} When a token is empty or two principals share one.
 *
 * @example
 * ```ts
 * import { bearerTokens } from "@tool-estate/core/http";
 * import assert from "node:assert/strict";
 * const authenticate = bearerTokens([
 *   { id: "teller", scopes: [], tenant: "retail", clearance: "internal", token: "t-123" },
 * ]);
 * const who = await authenticate({ method: "POST", path: "/mcp", headers: { authorization: "Bearer t-123" } });
 * assert.deepEqual(who, { id: "teller", scopes: [], tenant: "retail", clearance: "internal" });
 * assert.equal(await authenticate({ method: "POST", path: "/mcp", headers: {} }), undefined);
 * ```
 */
export function bearerTokens(
  principals: readonly (Principal & { token?: string })[],
): Authenticate {
  const entries: { token: string; principal: Principal }[] = [];
  for (const p of principals) {
    if (p.token === undefined) continue;
    if (p.token === "") throw new TypeError(`bearerTokens(): principal ${p.id} has an empty token`);
    const clash = entries.find((e) => e.token === p.token);
    if (clash) {
      throw new TypeError(
        `bearerTokens(): principals ${clash.principal.id} and ${p.id} share a token; each needs its own`,
      );
    }
    const { token, ...principal } = p;
    entries.push({ token, principal });
  }
  return (request) => {
    const token = bearerToken(request.headers.authorization);
    if (token === undefined) return undefined;
    let found: Principal | undefined;
    for (const e of entries) if (sameText(e.token, token)) found = e.principal;
    return found;
  };
}
