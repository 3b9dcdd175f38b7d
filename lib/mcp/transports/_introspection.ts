/**
 * Token introspection (RFC 7662): asks the authorization server whether an opaque token is
 * active and what it grants, with the resource server's own client credentials; answers may be
 * kept for a short while (never past the token's expiry).
 *
 * @module
 */
import { createHash } from "node:crypto";
import { BearerChallenge } from "./oauth_resource.ts";

/** How to introspect at one authorization server. */
export interface IntrospectionOptions {
  /** The introspection endpoint. Default: the server's metadata `introspection_endpoint`. */
  endpoint?: string;
  /** This resource server's client id at the authorization server. */
  clientId: string;
  /** Its client secret (sent with HTTP Basic, RFC 6749 §2.3.1). */
  clientSecret: string;
  /**
   * How long an answer is kept, in milliseconds (never past the token's `exp`): a revoked token
   * keeps working that long. Default 0: every request is introspected.
   */
  cacheMs?: number;
}

/** The most answers kept. */
const MAX_CACHED = 10_000;

/** Introspects tokens at one endpoint, keeping answers for `cacheMs`. */
export class Introspector {
  readonly #options: IntrospectionOptions;
  readonly #fetch: typeof fetch;
  readonly #timeoutMs: number;
  readonly #now: () => number;
  readonly #cache = new Map<
    string,
    { claims: Record<string, unknown>; until: number }
  >();

  /**
   * Prepares the introspector.
   *
   * @param options The client credentials, the endpoint, the cache.
   * @param runtime The fetch, its timeout, the clock.
   */
  constructor(
    options: IntrospectionOptions,
    runtime: { fetch: typeof fetch; timeoutMs: number; now: () => number },
  ) {
    this.#options = options;
    this.#fetch = runtime.fetch;
    this.#timeoutMs = runtime.timeoutMs;
    this.#now = runtime.now;
  }

  /**
   * The claims of an active token.
   *
   * @param token The token.
   * @param endpoint The endpoint to ask (the configured one, or the metadata's).
   * @returns The introspection response of an active token.
   * @throws {BearerChallenge} 401 when the token is not active.
   * @throws {Error} When the endpoint cannot be asked (the request is answered 500, not 401).
   */
  async claims(
    token: string,
    endpoint: string,
  ): Promise<Record<string, unknown>> {
    const key = createHash("sha256").update(token, "utf8").digest("base64");
    const now = this.#now();
    const cached = this.#cache.get(key);
    if (cached && cached.until > now) return cached.claims;
    if (cached) this.#cache.delete(key);
    const form = (v: string) => encodeURIComponent(v).replace(/%20/g, "+");
    const basic = btoa(
      `${form(this.#options.clientId)}:${form(this.#options.clientSecret)}`,
    );
    const res = await this.#fetch(endpoint, {
      method: "POST",
      headers: {
        authorization: `Basic ${basic}`,
        "content-type": "application/x-www-form-urlencoded",
        accept: "application/json",
      },
      body: `token=${encodeURIComponent(token)}&token_type_hint=access_token`,
      signal: AbortSignal.timeout(this.#timeoutMs),
      redirect: "error",
    });
    if (!res.ok) {
      await res.body?.cancel();
      throw new Error(
        `token introspection at ${endpoint} answered HTTP ${res.status}`,
      );
    }
    const body = await res.json() as Record<string, unknown>;
    if (typeof body !== "object" || body === null || body.active !== true) {
      throw new BearerChallenge(
        "the token is not active (expired, revoked or unknown)",
      );
    }
    const cacheMs = this.#options.cacheMs ?? 0;
    if (cacheMs > 0) {
      const exp = typeof body.exp === "number" ? body.exp * 1000 : Infinity;
      const until = Math.min(now + cacheMs, exp);
      if (this.#cache.size >= MAX_CACHED) {
        this.#cache.delete(this.#cache.keys().next().value!); // the oldest
      }
      this.#cache.set(key, { claims: body, until });
    }
    return body;
  }
}
