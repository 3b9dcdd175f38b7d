/**
 * Authentication in front of the MCP endpoint: the Protected Resource Metadata (public, behind
 * the Host check only), the authenticator asked for each request's principal, and the bearer
 * answers — 401 (or the authenticator's own refusal) with its challenge, and the step-up 403 for a
 * call whose action scopes the credential lacks. The endpoint behind it sees only authenticated
 * principals.
 *
 * @module
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { ERROR_CODES } from "../../jsonrpc/errors.ts";
import type { JsonRpcId } from "../../jsonrpc/types.ts";
import type { Principal } from "../../estate/spec.ts";
import type { ScopeChallenge } from "../outcome.ts";
import type { Authenticate, HttpRequestInfo } from "./bearer_tokens.ts";
import { type Guard, guardProblem } from "./_http_guard.ts";
import { writeJson, writeRefusal } from "./_http_reply.ts";
import { NO_CONTENT, OUTCOME_STATUS, REFUSAL_STATUS } from "./_http_status.ts";
import {
  AuthorizationUnavailable,
  BearerChallenge,
  bearerChallengeHeader,
  PROTECTED_RESOURCE_WELL_KNOWN,
  protectedResourceMetadata,
  protectedResourceMetadataUrl,
  type ProtectedResourceOptions,
} from "./oauth_resource.ts";

/** What the guard is built from (the `serveHttp` options it reads). */
export interface AuthGuardOptions {
  /** Who is calling, from the request's headers. */
  authenticate: Authenticate;
  /** The OAuth protected resource this endpoint is, when it is one. */
  protectedResource?: ProtectedResourceOptions;
  /** The `resource_metadata` of every challenge, when not derived from `protectedResource`. */
  resourceMetadataUrl?: string;
  /** Told of an authenticator that failed (answered 500). */
  onError?: (error: unknown) => void;
}

/** A recheck's verdict: the principal now, refused (undefined), or `keep` when the check failed. */
export type Recheck = Principal | undefined | "keep";

/** Authentication in front of the endpoint. */
export class AuthGuard {
  #authenticate: Authenticate;
  readonly #options: AuthGuardOptions;
  /** The Protected Resource Metadata document and the paths it is served at. */
  readonly #metadata: { body: Record<string, unknown>; paths: Set<string> } | undefined;
  /** The `resource_metadata` of every challenge. */
  readonly #metadataUrl: string | undefined;

  constructor(options: AuthGuardOptions) {
    this.#options = options;
    this.#authenticate = options.authenticate;
    const pr = options.protectedResource;
    if (pr) {
      const own = new URL(protectedResourceMetadataUrl(pr.resource)).pathname;
      this.#metadata = {
        body: protectedResourceMetadata(pr),
        paths: new Set([own, PROTECTED_RESOURCE_WELL_KNOWN]),
      };
    }
    this.#metadataUrl = options.resourceMetadataUrl ??
      (pr ? protectedResourceMetadataUrl(pr.resource) : undefined);
  }

  /** The authenticator in force. */
  get authenticate(): Authenticate {
    return this.#authenticate;
  }

  /** Replaces the authenticator (`reauthenticate(authenticate)`). */
  set authenticate(authenticate: Authenticate) {
    this.#authenticate = authenticate;
  }

  /**
   * Answers a request for the Protected Resource Metadata: public (any origin, no credentials),
   * behind the Host check only; GET or HEAD.
   *
   * @returns Whether the request was one (and is answered).
   */
  serveMetadata(
    req: IncomingMessage,
    res: ServerResponse,
    options: { path: string; headers: Record<string, string>; guard: Guard },
  ): boolean {
    if (!this.#metadata?.paths.has(options.path)) return false;
    const headers = options.headers;
    const problem = guardProblem(options.guard, headers.host, undefined);
    if (problem) {
      writeRefusal(res, REFUSAL_STATUS["host-refused"], problem);
      return true;
    }
    const cors: Record<string, string> = headers.origin === undefined
      ? {}
      : { "access-control-allow-origin": "*" };
    const method = req.method ?? "GET";
    const allow = "GET, HEAD, OPTIONS";
    if (method === "OPTIONS") {
      res.writeHead(NO_CONTENT, {
        ...cors,
        "access-control-allow-methods": "GET",
        "access-control-allow-headers": "mcp-protocol-version",
        allow,
      });
      res.end();
    } else if (method !== "GET" && method !== "HEAD") {
      writeRefusal(
        res,
        REFUSAL_STATUS["method-not-allowed"],
        `Method Not Allowed: ${method}; the metadata is read with GET`,
        { headers: { ...cors, allow } },
      );
    } else {
      const text = JSON.stringify(this.#metadata.body);
      res.writeHead(200, {
        ...cors,
        "content-type": "application/json",
        "cache-control": "max-age=300",
        "content-length": String(new TextEncoder().encode(text).length),
      });
      res.end(method === "HEAD" ? undefined : text);
    }
    return true;
  }

  /**
   * The principal a request's credentials stand for, or undefined after answering it: 401 with a
   * challenge (or the authenticator's own refusal), 500 when the authenticator failed.
   */
  async admit(
    res: ServerResponse,
    credentials: HttpRequestInfo,
    cors: Record<string, string>,
  ): Promise<Principal | undefined> {
    let principal: Principal | undefined;
    try {
      principal = await this.#authenticate(credentials);
    } catch (e) {
      if (e instanceof BearerChallenge) {
        this.unauthorized(res, { headers: credentials.headers, cors }, e);
        return undefined;
      }
      if (e instanceof AuthorizationUnavailable) {
        writeRefusal(
          res,
          REFUSAL_STATUS["authorization-unavailable"],
          `Service Unavailable: ${e.message}; retry after ${e.retryAfterSeconds} s`,
          { headers: { ...cors, "retry-after": String(e.retryAfterSeconds) } },
        );
        return undefined;
      }
      this.#options.onError?.(e);
      writeRefusal(
        res,
        REFUSAL_STATUS["authenticator-failed"],
        "Internal Server Error: the authenticator failed",
        { code: ERROR_CODES.INTERNAL_ERROR, headers: cors },
      );
      return undefined;
    }
    if (!principal) this.unauthorized(res, { headers: credentials.headers, cors });
    return principal;
  }

  /**
   * Asks again who stored credentials stand for (a session's, a running call's).
   *
   * @param credentials What the request presented.
   * @param was The principal they stood for.
   * @returns The principal now; undefined when refused or another; `keep` when the check failed.
   */
  async recheck(credentials: HttpRequestInfo, was: Principal): Promise<Recheck> {
    let now: Principal | undefined;
    try {
      now = await this.#authenticate(credentials);
    } catch (e) {
      if (e instanceof BearerChallenge) return undefined; // refused, with reasons
      if (e instanceof AuthorizationUnavailable) return "keep"; // cannot tell now: judged later
      this.#options.onError?.(e);
      return "keep";
    }
    return now === undefined || now.id !== was.id ? undefined : now;
  }

  /**
   * Refuses a request whose credentials are missing or not accepted: 401 (or the refusal's own
   * status) with a `WWW-Authenticate: Bearer` challenge — `error` only when credentials were
   * presented (RFC 6750 §3.1), `scope` the scopes to start with, `resource_metadata`.
   */
  unauthorized(
    res: ServerResponse,
    request: { headers: Record<string, string>; cors: Record<string, string> },
    refusal?: BearerChallenge,
  ): void {
    const presented = (request.headers.authorization ?? "").trim() !== "";
    const status = refusal?.status ?? REFUSAL_STATUS.unauthorized;
    const scope = refusal?.scope ??
      (status === REFUSAL_STATUS.unauthorized
        ? this.#options.protectedResource?.scopesSupported
        : undefined);
    const challenge = bearerChallengeHeader({
      realm: "mcp",
      error: refusal?.error ?? (presented ? "invalid_token" : undefined),
      errorDescription: refusal?.message,
      scope,
      resourceMetadata: this.#metadataUrl,
    });
    const what = status === 400 ? "Bad Request" : status === 403 ? "Forbidden" : "Unauthorized";
    writeRefusal(
      res,
      status,
      refusal
        ? `${what}: ${refusal.message}`
        : presented
        ? "Unauthorized: the credentials in Authorization are not valid for this MCP server"
        : "Unauthorized: this MCP server needs an Authorization: Bearer <token> header",
      { headers: { ...request.cors, "www-authenticate": challenge } },
    );
  }

  /**
   * The step-up answer (MCP authorization, "Runtime Insufficient Scope Errors"): 403 with
   * `WWW-Authenticate: Bearer error="insufficient_scope"` and, in `scope`, the scopes the
   * credential has and those the call needs (so a token asked for with them loses nothing); the
   * body is a JSON-RPC error with the request's id, the same in both eras.
   */
  insufficientScope(
    res: ServerResponse,
    post: { cors: Record<string, string>; id: JsonRpcId | null; principal: Principal },
    challenge: ScopeChallenge,
  ): void {
    const scope = [...new Set([...post.principal.scopes, ...challenge.needed])];
    const which = challenge.missing.length === 1 ? "scope" : "scopes";
    const description = `${challenge.tool} needs the ${which} ${challenge.missing.join(" ")}`;
    writeJson(res, OUTCOME_STATUS["step-up"].stateless, {
      jsonrpc: "2.0",
      id: post.id,
      error: {
        code: ERROR_CODES.INVALID_REQUEST,
        message:
          `Forbidden: insufficient_scope: ${description} to run, which the access token does not carry; authorize with scope "${
            scope.join(" ")
          }" and send the request again`,
        data: { error: "insufficient_scope", scope: scope.join(" ") },
      },
    }, {
      ...post.cors,
      "www-authenticate": bearerChallengeHeader({
        realm: "mcp",
        error: "insufficient_scope",
        errorDescription: description,
        scope,
        resourceMetadata: this.#metadataUrl,
      }),
    });
  }
}
