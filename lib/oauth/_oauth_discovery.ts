// Where OAuth metadata is, and whether it may be used: Protected Resource Metadata (RFC 9728) for
// an MCP endpoint, authorization server metadata (RFC 8414, OpenID Connect Discovery 1.0) for an
// issuer, in the orders the MCP authorization specification gives (2025-11-25 and 2026-07-28,
// "Protected Resource Metadata Discovery Requirements", "Authorization Server Metadata
// Discovery"), and the canonical resource URI (RFC 8707 §2).
import { isObject } from "../_object.ts";

/** The largest metadata document read, in bytes. */
const MAX_DOCUMENT_BYTES = 1024 * 1024;

/**
 * The canonical URI of an MCP endpoint (RFC 8707 §2): scheme and host in lower case, no fragment,
 * no trailing slash on a bare origin.
 */
export function canonicalResource(url: string | URL): string {
  const u = new URL(String(url));
  u.hash = "";
  const href = u.href;
  return u.pathname === "/" && u.search === "" ? href.slice(0, -1) : href;
}

/**
 * The well-known Protected Resource Metadata URLs for an endpoint, in the order to try: with the
 * endpoint's path inserted (`/.well-known/oauth-protected-resource/mcp`), then at the root.
 */
export function resourceMetadataUrls(endpoint: string | URL): string[] {
  const u = new URL(String(endpoint));
  const root = `${u.origin}/.well-known/oauth-protected-resource`;
  const path = u.pathname.replace(/\/+$/, "");
  return path === "" ? [root] : [`${root}${path}`, root];
}

/**
 * The authorization server metadata URLs for an issuer, in the order to try. With a path
 * (`https://as.example/tenant1`): RFC 8414 with the path inserted, OpenID Connect with the path
 * inserted, OpenID Connect with the path appended; without: RFC 8414, then OpenID Connect.
 */
export function authorizationServerMetadataUrls(
  issuer: string | URL,
): string[] {
  const u = new URL(String(issuer));
  const path = u.pathname.replace(/\/+$/, "");
  if (path === "") {
    return [
      `${u.origin}/.well-known/oauth-authorization-server`,
      `${u.origin}/.well-known/openid-configuration`,
    ];
  }
  return [
    `${u.origin}/.well-known/oauth-authorization-server${path}`,
    `${u.origin}/.well-known/openid-configuration${path}`,
    `${u.origin}${path}/.well-known/openid-configuration`,
  ];
}

/**
 * Whether a resource identifier a server declares covers the endpoint the client talks to: the
 * same origin, and a path that is the endpoint's or one of its parent paths.
 */
export function resourceCovers(declared: string, endpoint: string): boolean {
  let d: URL, e: URL;
  try {
    d = new URL(declared);
    e = new URL(endpoint);
  } catch {
    return false;
  }
  if (d.hash !== "" || d.origin !== e.origin) return false;
  const dp = d.pathname.endsWith("/") ? d.pathname : `${d.pathname}/`;
  const ep = e.pathname.endsWith("/") ? e.pathname : `${e.pathname}/`;
  return ep.startsWith(dp);
}

/** Whether a URL may carry OAuth traffic: https, or http to a loopback host. */
export function secureEnough(url: string, allowHttp: boolean): boolean {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return false;
  }
  if (u.protocol === "https:") return true;
  if (u.protocol !== "http:") return false;
  if (allowHttp) return true;
  const host = u.hostname.replace(/^\[(.*)\]$/, "$1");
  return host === "localhost" || host === "::1" ||
    /^127\.\d+\.\d+\.\d+$/.test(host);
}

/** A JSON document fetched: its HTTP status and body (undefined when it was not a JSON object). */
export interface Fetched {
  status: number;
  body: Record<string, unknown> | undefined;
}

/**
 * GETs a JSON document (metadata). Network failures reject; any HTTP answer resolves with its
 * status, and its body when that is a JSON object of at most a mebibyte.
 */
export async function getJson(
  fetchFn: typeof fetch,
  url: string,
  timeoutMs: number,
): Promise<Fetched> {
  const res = await fetchFn(url, {
    method: "GET",
    headers: { accept: "application/json" },
    signal: AbortSignal.timeout(timeoutMs),
  });
  return {
    status: res.status,
    body: res.ok ? await readJsonObject(res) : await drop(res),
  };
}

/** Reads a response's JSON object body (undefined when it is not one, or too large). */
export async function readJsonObject(
  res: Response,
): Promise<Record<string, unknown> | undefined> {
  const text = await readLimited(res, MAX_DOCUMENT_BYTES);
  if (text === undefined) return undefined;
  try {
    const value = JSON.parse(text);
    return isObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

async function drop(res: Response): Promise<undefined> {
  await res.body?.cancel().catch(() => {});
  return undefined;
}

async function readLimited(
  res: Response,
  max: number,
): Promise<string | undefined> {
  if (!res.body) return "";
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (true) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > max) {
        await reader.cancel().catch(() => {});
        return undefined;
      }
      chunks.push(value);
    }
  } catch {
    return undefined;
  }
  const all = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    all.set(c, at);
    at += c.byteLength;
  }
  return new TextDecoder().decode(all);
}

/** The strings of a metadata field that should be an array of strings (others dropped). */
export function strings(value: unknown): string[] | undefined {
  return Array.isArray(value) ? value.filter((s): s is string => typeof s === "string") : undefined;
}
