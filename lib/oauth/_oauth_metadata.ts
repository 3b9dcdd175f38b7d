// Discovery for the OAuth client, with its cache: the Protected Resource Metadata of an MCP
// endpoint, the authorization server it names, and that server's metadata (or, for a 2025-03-26
// server without resource metadata, its origin's metadata or default endpoints).
import type { BearerChallenge } from "./_oauth_challenge.ts";
import {
  authorizationServerMetadataUrls,
  getJson,
  resourceCovers,
  resourceMetadataUrls,
  secureEnough,
  strings,
} from "./_oauth_discovery.ts";
import { type AuthorizationServer, authorizationServerFrom } from "./_oauth_token.ts";
import { OAuthError } from "./oauth_error.ts";

/** What discovery found for an endpoint. */
export interface Discovered {
  /** The resource indicator to send (RFC 8707). */
  resource: string;
  server: AuthorizationServer;
  /** The resource metadata's `scopes_supported`. */
  scopesSupported?: string[];
}

/** Finds metadata, and keeps authorization server metadata by issuer. */
export class MetadataFinder {
  readonly #fetch: typeof fetch;
  readonly #timeoutMs: number;
  readonly #allowHttp: boolean;
  readonly #servers = new Map<string, AuthorizationServer>();

  constructor(
    options: { fetch: typeof fetch; timeoutMs: number; allowHttp: boolean },
  ) {
    this.#fetch = options.fetch;
    this.#timeoutMs = options.timeoutMs;
    this.#allowHttp = options.allowHttp;
  }

  /** The metadata of an issuer already found (a 2025-03-26 fallback's included), if any. */
  known(issuer: string): AuthorizationServer | undefined {
    return this.#servers.get(issuer);
  }

  /**
   * Finds the resource metadata and the authorization server for an endpoint: the challenge's
   * `resource_metadata`, else the well-known URLs, else the 2025-03-26 fallback. The metadata's
   * resource must cover the endpoint; the authorization server is `pinned` when listed, else the
   * first listed.
   *
   * @throws {OAuthError} `discovery`, `resource_mismatch`, `issuer_mismatch`.
   */
  async forEndpoint(
    endpoint: string,
    resourceFetch: typeof fetch,
    bearer: BearerChallenge,
    pinned?: string,
  ): Promise<Discovered> {
    let metadata: Record<string, unknown> | undefined;
    let from: string | undefined;
    const tried: string[] = [];
    if (bearer.resourceMetadata !== undefined) {
      const url = URL.canParse(bearer.resourceMetadata, endpoint)
        ? new URL(bearer.resourceMetadata, endpoint).href
        : undefined;
      if (url === undefined) {
        throw new OAuthError(
          "discovery",
          `the 401 from ${endpoint} names resource_metadata ${
            JSON.stringify(bearer.resourceMetadata.slice(0, 200))
          }, which is not a URL`,
        );
      }
      const got = await this.#get(resourceFetch, url, "discovery");
      if (got.body === undefined) {
        throw new OAuthError(
          "discovery",
          `the Protected Resource Metadata at ${url} (named by the 401 from ${endpoint}) answered HTTP ${got.status}${
            got.status < 300 ? " without a JSON object" : ""
          }`,
        );
      }
      metadata = got.body;
      from = url;
    } else {
      for (const url of resourceMetadataUrls(endpoint)) {
        const got = await this.#get(resourceFetch, url, "discovery");
        tried.push(`${url} (HTTP ${got.status})`);
        if (got.body !== undefined) {
          metadata = got.body;
          from = url;
          break;
        }
      }
    }
    if (metadata === undefined) return await this.#legacy(endpoint, tried);

    const resource = metadata.resource;
    if (typeof resource !== "string" || resource === "") {
      throw new OAuthError(
        "discovery",
        `the Protected Resource Metadata at ${from} has no "resource"`,
      );
    }
    if (!resourceCovers(resource, endpoint)) {
      throw new OAuthError(
        "resource_mismatch",
        `the Protected Resource Metadata at ${from} is for resource ${
          JSON.stringify(resource.slice(0, 200))
        }, not for ${endpoint}; not authorizing (a token for it must not be sent here)`,
      );
    }
    const servers = strings(metadata.authorization_servers) ?? [];
    if (servers.length === 0) {
      throw new OAuthError(
        "discovery",
        `the Protected Resource Metadata at ${from} names no authorization_servers`,
      );
    }
    const issuer = pinned !== undefined && servers.includes(pinned) ? pinned : servers[0];
    const server = await this.server(issuer);
    return {
      resource,
      server,
      scopesSupported: strings(metadata.scopes_supported),
    };
  }

  /**
   * Revision 2025-03-26: no resource metadata, the MCP server's origin is the authorization
   * server; its RFC 8414 metadata, else the default endpoints `/authorize`, `/token`, `/register`.
   */
  async #legacy(endpoint: string, tried: string[]): Promise<Discovered> {
    const origin = new URL(endpoint).origin;
    let server: AuthorizationServer | undefined;
    for (const url of authorizationServerMetadataUrls(origin)) {
      const got = await this.#get(this.#fetch, url, "discovery");
      tried.push(`${url} (HTTP ${got.status})`);
      if (got.body !== undefined) {
        server = authorizationServerFrom(got.body, true);
        if (server) break;
      }
    }
    server ??= {
      issuer: origin,
      authorizationEndpoint: `${origin}/authorize`,
      tokenEndpoint: `${origin}/token`,
      registrationEndpoint: `${origin}/register`,
      clientIdMetadataDocumentSupported: false,
      issParameterSupported: false,
      legacy: true,
    };
    this.#checkSecure(server);
    this.#servers.set(server.issuer, server);
    return { resource: endpoint, server };
  }

  /**
   * The metadata of an authorization server, by its issuer: the first of the well-known URLs that
   * answers, whose `issuer` must be that issuer.
   *
   * @throws {OAuthError} `discovery`, `issuer_mismatch`.
   */
  async server(issuer: string): Promise<AuthorizationServer> {
    const known = this.#servers.get(issuer);
    if (known && !known.legacy) return known;
    if (!URL.canParse(issuer) || !secureEnough(issuer, this.#allowHttp)) {
      throw new OAuthError(
        "discovery",
        `the authorization server ${
          JSON.stringify(issuer.slice(0, 200))
        } is not an https URL (http is allowed on loopback addresses only)`,
      );
    }
    const tried: string[] = [];
    for (const url of authorizationServerMetadataUrls(issuer)) {
      const got = await this.#get(this.#fetch, url, "discovery");
      tried.push(`${url} (HTTP ${got.status})`);
      if (got.body === undefined) continue;
      if (got.body.issuer !== issuer) {
        throw new OAuthError(
          "issuer_mismatch",
          `the authorization server metadata at ${url} is for issuer ${
            JSON.stringify(String(got.body.issuer).slice(0, 200))
          }, not ${issuer}; not using it`,
        );
      }
      const server = authorizationServerFrom(got.body, false);
      if (!server) {
        throw new OAuthError(
          "discovery",
          `the authorization server metadata at ${url} has no token_endpoint`,
        );
      }
      this.#checkSecure(server);
      this.#servers.set(issuer, server);
      return server;
    }
    throw new OAuthError(
      "discovery",
      `no authorization server metadata for ${issuer}: tried ${tried.join(", ")}`,
    );
  }

  #checkSecure(server: AuthorizationServer): void {
    const allow = this.#allowHttp;
    for (
      const url of [
        server.authorizationEndpoint,
        server.tokenEndpoint,
        server.registrationEndpoint,
      ]
    ) {
      if (url !== undefined && !secureEnough(url, allow)) {
        throw new OAuthError(
          "discovery",
          `the authorization server ${server.issuer} names endpoint ${url}, which is not https (http is allowed on loopback addresses only)`,
        );
      }
    }
  }

  async #get(
    f: typeof fetch,
    url: string,
    failure: "discovery",
  ): Promise<{ status: number; body: Record<string, unknown> | undefined }> {
    try {
      return await getJson(f, url, this.#timeoutMs);
    } catch (e) {
      throw new OAuthError(
        failure,
        `GET ${url} failed: ${e instanceof Error ? e.message : String(e)}`,
        { cause: e },
      );
    }
  }
}
