// Requests to an authorization server's endpoints: the token endpoint (RFC 6749 §3.2, with client
// authentication by `none`, `client_secret_basic`, `client_secret_post` or `private_key_jwt`) and
// the registration endpoint (RFC 7591). Errors never carry a secret: what the server echoes is
// redacted before it reaches a message.
import { isObject } from "../_object.ts";
import { clientAssertion } from "./_oauth_crypto.ts";
import type { AssertionAlgorithm, TokenEndpointAuthMethod } from "./oauth_options.ts";
import { readJsonObject, strings } from "./_oauth_discovery.ts";
import { OAuthError } from "./oauth_error.ts";
import type { ClientRegistration } from "./oauth_token_store.ts";

/** The authorization server metadata fields the client uses (RFC 8414 §2). */
export interface AuthorizationServer {
  issuer: string;
  authorizationEndpoint?: string;
  tokenEndpoint: string;
  registrationEndpoint?: string;
  scopesSupported?: string[];
  codeChallengeMethods?: string[];
  tokenEndpointAuthMethods?: string[];
  clientIdMetadataDocumentSupported: boolean;
  issParameterSupported: boolean;
  /** Found by the 2025-03-26 fallback (the MCP server's origin), not through resource metadata. */
  legacy: boolean;
}

/** Reads authorization server metadata; undefined when a required field is missing. */
export function authorizationServerFrom(
  body: Record<string, unknown>,
  legacy: boolean,
): AuthorizationServer | undefined {
  const str = (k: string): string | undefined =>
    typeof body[k] === "string" && body[k] !== "" ? body[k] as string : undefined;
  const issuer = str("issuer");
  const tokenEndpoint = str("token_endpoint");
  if (issuer === undefined || tokenEndpoint === undefined) return undefined;
  return {
    issuer,
    authorizationEndpoint: str("authorization_endpoint"),
    tokenEndpoint,
    registrationEndpoint: str("registration_endpoint"),
    scopesSupported: strings(body.scopes_supported),
    codeChallengeMethods: strings(body.code_challenge_methods_supported),
    tokenEndpointAuthMethods: strings(
      body.token_endpoint_auth_methods_supported,
    ),
    clientIdMetadataDocumentSupported: body.client_id_metadata_document_supported === true,
    issParameterSupported: body.authorization_response_iss_parameter_supported === true,
    legacy,
  };
}

/** The client as the token endpoint sees it. */
export interface TokenClient {
  clientId: string;
  clientSecret?: string;
  method: TokenEndpointAuthMethod;
  privateKey?: CryptoKey;
  algorithm?: AssertionAlgorithm;
  keyId?: string;
}

/** A successful token response (RFC 6749 §5.1). */
export interface TokenResponse {
  accessToken: string;
  refreshToken?: string;
  expiresIn?: number;
  scope?: string;
}

/** Replaces each secret in a text; long texts from a server are cut. */
export function redact(
  text: string,
  secrets: readonly (string | undefined)[],
): string {
  let out = text.length > 300 ? `${text.slice(0, 300)}…` : text;
  for (const s of secrets) {
    if (s !== undefined && s.length >= 4) out = out.split(s).join("[redacted]");
  }
  return out;
}

/** `application/x-www-form-urlencoded` encoding of one value (RFC 6749 Appendix B). */
function formEncode(s: string): string {
  return encodeURIComponent(s).replace(/%20/g, "+");
}

/** The OAuth error of a refusal's body: `error`, `error_description`. */
function oauthErrorOf(body: Record<string, unknown> | undefined): {
  error?: string;
  description?: string;
} {
  if (!isObject(body)) return {};
  return {
    error: typeof body.error === "string" ? body.error : undefined,
    description: typeof body.error_description === "string" ? body.error_description : undefined,
  };
}

/** Options for one token request. */
export interface TokenRequest {
  fetch: typeof fetch;
  timeoutMs: number;
  server: AuthorizationServer;
  client: TokenClient;
  /** The grant's parameters (`grant_type` and the rest). */
  params: Record<string, string | undefined>;
  now: number;
  /** Values never to appear in an error: the code, the verifier, the refresh token. */
  secrets: readonly (string | undefined)[];
}

/**
 * POSTs a token request with the client's authentication, and reads the answer.
 *
 * @throws {OAuthError} `token` when the endpoint cannot be reached, refuses, or answers without
 *   a usable bearer token.
 */
export async function requestToken(
  request: TokenRequest,
): Promise<TokenResponse> {
  const { server, client, params } = request;
  const body = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    if (v !== undefined) body.set(k, v);
  }
  const headers: Record<string, string> = {
    "content-type": "application/x-www-form-urlencoded",
    accept: "application/json",
  };
  const secrets = [...request.secrets, client.clientSecret];
  switch (client.method) {
    case "client_secret_basic":
      headers.authorization = `Basic ${
        btoa(
          `${formEncode(client.clientId)}:${formEncode(client.clientSecret ?? "")}`,
        )
      }`;
      break;
    case "client_secret_post":
      body.set("client_id", client.clientId);
      body.set("client_secret", client.clientSecret ?? "");
      break;
    case "private_key_jwt": {
      if (!client.privateKey) {
        throw new OAuthError(
          "configuration",
          `client ${client.clientId} authenticates with private_key_jwt but has no private key`,
        );
      }
      const assertion = await clientAssertion({
        clientId: client.clientId,
        audience: server.issuer,
        key: client.privateKey,
        algorithm: client.algorithm ?? "ES256",
        keyId: client.keyId,
        now: request.now,
      });
      secrets.push(assertion);
      body.set("client_id", client.clientId);
      body.set(
        "client_assertion_type",
        "urn:ietf:params:oauth:client-assertion-type:jwt-bearer",
      );
      body.set("client_assertion", assertion);
      break;
    }
    default:
      body.set("client_id", client.clientId);
  }
  const grant = params.grant_type ?? "token";
  let res: Response;
  try {
    res = await request.fetch(server.tokenEndpoint, {
      method: "POST",
      headers,
      body: body.toString(),
      signal: AbortSignal.timeout(request.timeoutMs),
    });
  } catch (e) {
    throw new OAuthError(
      "token",
      `the token endpoint ${server.tokenEndpoint} could not be reached for the ${grant} grant: ${
        e instanceof Error ? e.message : String(e)
      }`,
      { cause: e },
    );
  }
  const json = await readJsonObject(res);
  if (!res.ok) {
    const { error, description } = oauthErrorOf(json);
    const detail = [error, description && `(${description})`].filter(Boolean)
      .join(" ");
    throw new OAuthError(
      "token",
      redact(
        `the token endpoint ${server.tokenEndpoint} refused the ${grant} grant with HTTP ${res.status}${
          detail ? `: ${detail}` : ""
        }`,
        secrets,
      ),
      { oauthError: error },
    );
  }
  const accessToken = json?.access_token;
  if (typeof accessToken !== "string" || accessToken === "") {
    throw new OAuthError(
      "token",
      `the token endpoint ${server.tokenEndpoint} answered the ${grant} grant without an access_token`,
    );
  }
  const type = typeof json!.token_type === "string" ? json!.token_type : "";
  if (type.toLowerCase() !== "bearer") {
    throw new OAuthError(
      "token",
      `the token endpoint ${server.tokenEndpoint} issued a token of type ${
        JSON.stringify(type.slice(0, 40))
      }; only Bearer tokens are supported`,
    );
  }
  const expiresIn = Number(json!.expires_in);
  return {
    accessToken,
    refreshToken: typeof json!.refresh_token === "string" && json!.refresh_token !== ""
      ? json!.refresh_token
      : undefined,
    expiresIn: Number.isFinite(expiresIn) && expiresIn > 0 ? expiresIn : undefined,
    scope: typeof json!.scope === "string" ? json!.scope : undefined,
  };
}

/**
 * Registers a client dynamically (RFC 7591 §3).
 *
 * @throws {OAuthError} `registration` when the endpoint cannot be reached or refuses.
 */
export async function registerClient(request: {
  fetch: typeof fetch;
  timeoutMs: number;
  endpoint: string;
  metadata: Record<string, unknown>;
}): Promise<ClientRegistration> {
  let res: Response;
  try {
    res = await request.fetch(request.endpoint, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json",
      },
      body: JSON.stringify(request.metadata),
      signal: AbortSignal.timeout(request.timeoutMs),
    });
  } catch (e) {
    throw new OAuthError(
      "registration",
      `the registration endpoint ${request.endpoint} could not be reached: ${
        e instanceof Error ? e.message : String(e)
      }`,
      { cause: e },
    );
  }
  const json = await readJsonObject(res);
  if (!res.ok || typeof json?.client_id !== "string" || json.client_id === "") {
    const { error, description } = oauthErrorOf(json);
    const detail = [error, description && `(${description})`].filter(Boolean)
      .join(" ");
    throw new OAuthError(
      "registration",
      redact(
        `the registration endpoint ${request.endpoint} ${
          res.ok ? "answered without a client_id" : `refused with HTTP ${res.status}`
        }${detail ? `: ${detail}` : ""}`,
        [],
      ),
      { oauthError: error },
    );
  }
  const expires = Number(json.client_secret_expires_at);
  return {
    clientId: json.client_id,
    ...(typeof json.client_secret === "string" && json.client_secret !== ""
      ? { clientSecret: json.client_secret }
      : {}),
    ...(typeof json.token_endpoint_auth_method === "string"
      ? { tokenEndpointAuthMethod: json.token_endpoint_auth_method }
      : {}),
    ...(Number.isFinite(expires) && expires > 0 ? { clientSecretExpiresAt: expires * 1000 } : {}),
  };
}
