/**
 * An authorization server's metadata (RFC 8414, or OpenID Connect Discovery), fetched once and
 * kept; a failed fetch is retried after a pause, never on every request.
 *
 * @module
 */

/** What a resource server needs of an authorization server's metadata. */
export interface ServerMetadata {
  /** The issuer, as the document states it (equal to the one configured). */
  issuer: string;
  /** Where its signing keys are. */
  jwks_uri?: string;
  /** Where tokens are introspected (RFC 7662). */
  introspection_endpoint?: string;
}

/**
 * The URLs an issuer's metadata may be at, in the order the MCP specification has clients try
 * them: RFC 8414 (path inserted), OpenID Connect with the path inserted, then appended.
 *
 * @param issuer The issuer identifier.
 * @returns The URLs.
 */
export function metadataUrls(issuer: string): string[] {
  const url = new URL(issuer);
  const path = url.pathname === "/" ? "" : url.pathname.replace(/\/$/, "");
  const origin = `${url.protocol}//${url.host}`;
  if (path === "") {
    return [
      `${origin}/.well-known/oauth-authorization-server`,
      `${origin}/.well-known/openid-configuration`,
    ];
  }
  return [
    `${origin}/.well-known/oauth-authorization-server${path}`,
    `${origin}/.well-known/openid-configuration${path}`,
    `${origin}${path}/.well-known/openid-configuration`,
  ];
}

/** Fetches an issuer's metadata once, and again only after a failure and a pause. */
export class ServerMetadataCache {
  readonly #issuer: string;
  readonly #fetch: typeof fetch;
  readonly #timeoutMs: number;
  readonly #retryAfterMs: number;
  readonly #now: () => number;
  #pending: Promise<ServerMetadata> | undefined;
  #failedAt = -Infinity;
  #failure: Error | undefined;

  /**
   * Prepares the cache (nothing is fetched yet).
   *
   * @param issuer The issuer.
   * @param options The fetch, its timeout, the pause after a failure, the clock.
   */
  constructor(
    issuer: string,
    options: {
      fetch: typeof fetch;
      timeoutMs: number;
      retryAfterMs: number;
      now: () => number;
    },
  ) {
    this.#issuer = issuer;
    this.#fetch = options.fetch;
    this.#timeoutMs = options.timeoutMs;
    this.#retryAfterMs = options.retryAfterMs;
    this.#now = options.now;
  }

  /**
   * The metadata.
   *
   * @returns It, from the first document found whose `issuer` is the one configured.
   * @throws {Error} When none is found (again, within the pause after a failure).
   */
  get(): Promise<ServerMetadata> {
    if (this.#pending) return this.#pending;
    if (this.#failure && this.#now() - this.#failedAt < this.#retryAfterMs) {
      return Promise.reject(this.#failure);
    }
    this.#pending = this.#load().then(
      (m) => m,
      (e: Error) => {
        this.#pending = undefined;
        this.#failure = e;
        this.#failedAt = this.#now();
        throw e;
      },
    );
    return this.#pending;
  }

  async #load(): Promise<ServerMetadata> {
    const problems: string[] = [];
    for (const url of metadataUrls(this.#issuer)) {
      let res: Response;
      try {
        res = await this.#fetch(url, {
          headers: { accept: "application/json" },
          signal: AbortSignal.timeout(this.#timeoutMs),
          redirect: "error",
        });
      } catch (e) {
        problems.push(`${url}: ${(e as Error).message}`);
        continue;
      }
      if (!res.ok) {
        await res.body?.cancel();
        problems.push(`${url}: HTTP ${res.status}`);
        continue;
      }
      let doc: unknown;
      try {
        doc = await res.json();
      } catch {
        problems.push(`${url}: not JSON`);
        continue;
      }
      const m = doc as Partial<ServerMetadata>;
      if (
        typeof doc !== "object" || doc === null || m.issuer !== this.#issuer
      ) {
        // RFC 8414 §3.3: the document must be the configured issuer's own.
        problems.push(
          `${url}: issuer ${JSON.stringify(m?.issuer)} is not ${this.#issuer}`,
        );
        continue;
      }
      return m as ServerMetadata;
    }
    throw new Error(
      `cannot read the authorization server metadata of ${this.#issuer}: ${problems.join("; ")}`,
    );
  }
}
