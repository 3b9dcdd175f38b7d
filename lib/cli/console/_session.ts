/**
 * Who is asking, for the console: the credential the browser holds in an HttpOnly, SameSite=Strict
 * cookie is the very credential the MCP endpoint takes (a static bearer token, or an OAuth access
 * token), judged on every request by the endpoint's own authenticator — so a revoked token or a
 * changed principal applies to the console at once, and any replica answers any request (nothing
 * is kept in a process). Forms carry a CSRF token derived from the credential (unguessable without
 * it), on top of the cookie's SameSite and the server's Origin check.
 *
 * @module
 */
import type { Authenticate } from "../../mcp/transports/http_mod.ts";
import type { Principal } from "../../../mod.ts";

/** The cookie holding the credential. */
export const SESSION_COOKIE = "estate_console";

/** The cookie binding a browser to the OAuth sign-in it started. */
export const SIGN_IN_COOKIE = "estate_console_signin";

/**
 * The request's cookies (first value of each name).
 *
 * @param header The `Cookie` header.
 * @returns The cookies.
 */
export function parseCookies(header: string | undefined): Map<string, string> {
  const out = new Map<string, string>();
  for (const part of (header ?? "").split(";")) {
    const i = part.indexOf("=");
    if (i < 0) continue;
    const name = part.slice(0, i).trim();
    if (out.has(name)) continue;
    try {
      out.set(name, decodeURIComponent(part.slice(i + 1).trim()));
    } catch {
      // A value that does not decode is no credential.
    }
  }
  return out;
}

/** Options for {@linkcode setCookie}. */
export interface CookieOptions {
  /** The path the cookie is sent for. */
  path: string;
  /** Only over https. */
  secure: boolean;
  /** `Strict` for the credential; `Lax` for a sign-in the authorization server redirects back to. */
  sameSite: "Strict" | "Lax";
  /** Seconds until it lapses; 0 removes it. Absent: until the browser closes. */
  maxAge?: number;
}

/**
 * A `Set-Cookie` value: HttpOnly always.
 *
 * @param name The name.
 * @param value The value.
 * @param options Where, how, how long.
 * @returns The header value.
 */
export function setCookie(name: string, value: string, options: CookieOptions): string {
  return [
    `${name}=${encodeURIComponent(value)}`,
    `Path=${options.path}`,
    "HttpOnly",
    `SameSite=${options.sameSite}`,
    ...(options.secure ? ["Secure"] : []),
    ...(options.maxAge === undefined ? [] : [`Max-Age=${options.maxAge}`]),
  ].join("; ");
}

/**
 * The CSRF token of a credential: SHA-256 of it under a label, base64url. A page from this
 * server carries it; a page elsewhere cannot compute it without the credential.
 *
 * @param credential The credential in the cookie.
 * @returns The token.
 */
export async function csrfToken(credential: string): Promise<string> {
  const digest = await crypto.subtle.digest(
    "SHA-256",
    new TextEncoder().encode(`tool-estate console csrf\u0000${credential}`),
  );
  let s = "";
  for (const b of new Uint8Array(digest)) s += String.fromCharCode(b);
  return btoa(s).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** Whether two texts are equal, in time independent of where they differ. */
export function sameText(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let d = 0;
  for (let i = 0; i < a.length; i++) d |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return d === 0;
}

/** What the authenticator made of a credential. */
export type Judged =
  | { ok: true; principal: Principal }
  | { ok: false; why: string };

/**
 * Judges a credential as the MCP endpoint would: the same authenticator, handed the credential as
 * the endpoint receives it (`Authorization: Bearer`).
 *
 * @param authenticate The endpoint's authenticator.
 * @param credential The token.
 * @param request The request's headers and address.
 * @returns The principal, or why not.
 */
export async function judgeCredential(
  authenticate: Authenticate,
  credential: string,
  request: { headers: Record<string, string>; remoteAddress?: string; endpoint: string },
): Promise<Judged> {
  if (!/^[A-Za-z0-9\-._~+/]+=*$/.test(credential)) {
    return { ok: false, why: "That is not a bearer token." };
  }
  const headers: Record<string, string> = {
    ...request.headers,
    authorization: `Bearer ${credential}`,
  };
  delete headers.cookie;
  try {
    const principal = await authenticate({
      method: "GET",
      path: request.endpoint,
      headers,
      ...(request.remoteAddress ? { remoteAddress: request.remoteAddress } : {}),
    });
    return principal ? { ok: true, principal } : {
      ok: false,
      why: "That token is not accepted here.",
    };
  } catch (e) {
    const message = (e as Error).message ?? String(e);
    return { ok: false, why: `That token is not accepted here: ${message}` };
  }
}
