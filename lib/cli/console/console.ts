/**
 * The estate's web console, served by `estate serve` beside the MCP endpoint (at `/console`): the
 * estate, each tool (versions on a timeline, the semantic diff of any two, stored calls per version
 * over time, who calls what and what a retirement would break), the servers and their drift, the
 * calls waiting on an approver, the audit trail — each for the signed-in principal only, by the
 * same rules as the MCP endpoint, live (a publish from anywhere reaches an open page).
 *
 * One more surface of the estate, not a second application: a person signs in with the
 * credential the MCP endpoint takes (a static bearer token, or OAuth's authorization code flow
 * under `--auth oidc`), judged on every request by the endpoint's own authenticator; pages are
 * rendered on the server from the same functions the CLI uses (`estate diff`'s findings, `estate
 * retire`'s plan, the pending-call desk of `estate approvals`); forms carry a CSRF token; every
 * answer carries a strict Content-Security-Policy (no inline script or style, nothing from another
 * origin).
 *
 * @module
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import {
  type AuditRecord,
  type AuditVerdict,
  decideCall,
  type DriftRecord,
  isProbeAuditRecord,
  isToolName,
  PendingCallDecisionError,
  type PendingCallDesk,
  pendingCallsFor,
  type Principal,
  verifyAuditChain,
} from "../../../mod.ts";
import {
  type Authenticate,
  type HttpPages,
  parseAuthorizationResponse,
  type PreRegisteredClient,
} from "../../mcp/transports/http_mod.ts";
import type { EstateStore } from "../../store/mod.ts";
import type { ServerStatus } from "../../gateway/status.ts";
import { CONSOLE_CSS, CONSOLE_JS } from "./_assets.ts";
import { CallCounts } from "./_call_counts.ts";
import { html } from "./_html.ts";
import { documentFor, type Page, PAGE_HEADERS, type Viewer } from "./_layout.ts";
import { OAuthSignIns } from "./_oauth_sign_in.ts";
import {
  approvalsPage,
  auditPage,
  type DecisionNote,
  seesTool,
  serversPage,
  toolsSeenBy,
} from "./_ops_pages.ts";
import {
  csrfToken,
  judgeCredential,
  parseCookies,
  sameText,
  SESSION_COOKIE,
  setCookie,
  SIGN_IN_COOKIE,
} from "./_session.ts";
import {
  diffPage,
  estatePage,
  notFoundPage,
  retirePage,
  toolPage,
  visibleVersions,
} from "./_tool_pages.ts";

/** How people sign in to the console. */
export type ConsoleSignIn =
  | {
    /** With the static bearer token the MCP endpoint takes (`principals.json`). */
    kind: "tokens";
  }
  | {
    /** With OAuth's authorization code flow, against the endpoint's authorization server. */
    kind: "oauth";
    /** Allow http authorization servers (loopback, a lab). Default false. */
    allowHttp?: boolean;
    /**
     * The scopes to ask for when the endpoint's 401 and metadata name none, space-separated (a
     * person is otherwise asked for what the endpoint asks agents for: `scopes_supported`).
     */
    scope?: string;
    /** A client registered with the authorization server (else dynamic registration). */
    client?: PreRegisteredClient;
  };

/** Options for {@linkcode webConsole}. */
export interface WebConsoleOptions {
  /** The estate. */
  estate: EstateStore;
  /** Where the console is served. Default `/console`. */
  path?: string;
  /** The MCP endpoint's path, which the credential is judged for. Default `/mcp`. */
  endpoint?: string;
  /** How people sign in. Default: tokens. */
  signIn?: ConsoleSignIn;
  /** The pending-call desk (approvals); absent: the approvals page lists nothing. */
  desk?: PendingCallDesk;
  /** Called after a decision, so that an approved call runs at once (the server's sweep). */
  decided?: () => void;
  /** The gateway's upstream servers as it finds them now, when `estate serve` is a gateway. */
  gateway?: () => ServerStatus[];
  /** The clock. Default `Date.now`. */
  now?: () => number;
  /** Where unexpected errors are told. */
  log?: (line: string) => void;
}

/** A running console. */
export interface WebConsole {
  /** Its path, e.g. `/console`. */
  readonly path: string;
  /** The pages, for `serveHttp`'s `pages`. */
  readonly pages: HttpPages;
  /** Ends the live streams and stops following the estate. */
  close(): void;
}

/** A signed-in request. */
interface Who {
  principal: Principal;
  credential: string;
  viewer: Viewer;
}

interface Stream {
  res: ServerResponse;
  credential: string;
  headers: Record<string, string>;
  remoteAddress?: string;
  principal: Principal;
  authenticate: Authenticate;
}

const MAX_FORM_BYTES = 16 * 1024;
const MAX_STREAMS = 256;

function headerMap(req: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers)) {
    if (v !== undefined) out[k] = Array.isArray(v) ? v.join(", ") : v;
  }
  return out;
}

async function readForm(req: IncomingMessage): Promise<URLSearchParams | string> {
  const type = (req.headers["content-type"] ?? "").split(";")[0].trim().toLowerCase();
  if (type !== "application/x-www-form-urlencoded") {
    return `a form must be sent as application/x-www-form-urlencoded, not ${type || "(none)"}`;
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Uint8Array).length;
    if (size > MAX_FORM_BYTES) return `a form is at most ${MAX_FORM_BYTES} bytes`;
    chunks.push(chunk as Uint8Array);
  }
  const all = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) all.set(c, at), at += c.length;
  return new URLSearchParams(new TextDecoder().decode(all));
}

/**
 * Makes the console over an estate.
 *
 * @param options The estate, where to serve, how to sign in, the approvals desk.
 * @returns The console; hand `pages` to `serveHttp`.
 */
export function webConsole(options: WebConsoleOptions): WebConsole {
  const base = (options.path ?? "/console").replace(/\/+$/, "");
  const endpoint = options.endpoint ?? "/mcp";
  const estate = options.estate;
  const now = options.now ?? Date.now;
  const log = options.log ?? (() => {});
  const signIn = options.signIn ?? { kind: "tokens" };
  const oauth = signIn.kind === "oauth" ? new OAuthSignIns(signIn) : undefined;
  const counts = new CallCounts(estate);
  const streams = new Set<Stream>();
  let verdict: { head: string; verdict: AuditVerdict } | undefined;

  const send = (
    res: ServerResponse,
    status: number,
    body: string,
    headers: Record<string, string> = {},
  ) => {
    res.writeHead(status, { ...PAGE_HEADERS, ...headers });
    res.end(body);
  };
  const sendPage = (
    res: ServerResponse,
    page: Page,
    who?: Who,
    headers: Record<string, string> = {},
  ) =>
    send(res, page.status ?? 200, documentFor(base, page, who?.viewer), {
      "content-type": "text/html; charset=utf-8",
      ...headers,
    });
  const redirect = (res: ServerResponse, to: string, headers: Record<string, string> = {}) =>
    send(res, 303, "", { location: to, ...headers });
  const secure = (req: IncomingMessage) =>
    (req.socket as { encrypted?: boolean }).encrypted === true;
  const sessionCookie = (req: IncomingMessage, value: string, maxAge?: number) =>
    setCookie(SESSION_COOKIE, value, {
      path: base,
      secure: secure(req),
      sameSite: "Strict",
      ...(maxAge === undefined ? {} : { maxAge }),
    });
  const safeNext = (next: string | null) =>
    next && next.startsWith(`${base}/`) && !next.startsWith("//") && !/[\r\n\\]/.test(next)
      ? next
      : `${base}/`;

  async function who(req: IncomingMessage, authenticate: Authenticate): Promise<Who | undefined> {
    const credential = parseCookies(req.headers.cookie).get(SESSION_COOKIE);
    if (!credential) return undefined;
    const judged = await judgeCredential(authenticate, credential, {
      headers: headerMap(req),
      remoteAddress: req.socket.remoteAddress,
      endpoint,
    });
    if (!judged.ok) return undefined;
    return {
      principal: judged.principal,
      credential,
      viewer: { id: judged.principal.id, csrf: await csrfToken(credential) },
    };
  }

  function signInPage(message?: string, next?: string, status = 200): Page {
    const to = next ?? `${base}/`;
    return {
      status,
      title: "Sign in",
      main: html`<div class="signin"><h1>Sign in to the estate</h1>
${message ? html`<p class="notice verdict-bad" role="alert">${message}</p>` : ""}
${
        signIn.kind === "oauth"
          ? html`<p>Sign in with the authorization server that issues this estate's MCP tokens.</p>
<p><a class="button" href="${base}/oauth/start?next=${
            encodeURIComponent(to)
          }" data-oauth-start>Sign in with OAuth</a></p>`
          : html`
            <p>Use the bearer token you connect to the MCP endpoint with: what you see here is what that token may see.</p>
            <form method="post" action="${base}/sign-in">
              <input type="hidden" name="next" value="${to}">
              <label for="token">Bearer token</label>
              <input id="token" name="token" type="password" autocomplete="off" required>
              <p><button type="submit">Sign in</button></p>
            </form>
          `
      }</div>`,
    };
  }

  async function tokenSignIn(
    req: IncomingMessage,
    res: ServerResponse,
    authenticate: Authenticate,
  ): Promise<void> {
    const form = await readForm(req);
    if (typeof form === "string") return sendPage(res, signInPage(form, undefined, 400));
    const next = safeNext(form.get("next"));
    if (signIn.kind !== "tokens") {
      return sendPage(res, signInPage("Sign in with OAuth.", next, 400));
    }
    const token = (form.get("token") ?? "").trim();
    const judged = await judgeCredential(authenticate, token, {
      headers: headerMap(req),
      remoteAddress: req.socket.remoteAddress,
      endpoint,
    });
    if (!judged.ok) {
      log(`console: sign-in refused from ${req.socket.remoteAddress}: ${judged.why}`);
      return sendPage(res, signInPage(judged.why, next, 401));
    }
    redirect(res, next, { "set-cookie": sessionCookie(req, token) });
  }

  async function oauthStart(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    if (!oauth) return sendPage(res, notFoundPage(base));
    const origin = `${secure(req) ? "https" : "http"}://${req.headers.host}`;
    const started = await oauth.start(`${origin}${endpoint}`, `${origin}${base}/oauth/callback`);
    if ("error" in started) {
      log(`console: OAuth sign-in could not start: ${started.error}`);
      return sendPage(res, signInPage(`Sign-in could not start: ${started.error}`, undefined, 502));
    }
    const next = safeNext(url.searchParams.get("next"));
    redirect(res, started.url.href, {
      "set-cookie": setCookie(SIGN_IN_COOKIE, `${started.state} ${next}`, {
        path: base,
        secure: secure(req),
        sameSite: "Lax",
        maxAge: 600,
      }),
    });
  }

  async function oauthCallback(
    req: IncomingMessage,
    res: ServerResponse,
    url: URL,
    authenticate: Authenticate,
  ): Promise<void> {
    if (!oauth) return sendPage(res, notFoundPage(base));
    const response = parseAuthorizationResponse(url);
    const [state, next] = (parseCookies(req.headers.cookie).get(SIGN_IN_COOKIE) ?? "").split(" ");
    const clear = setCookie(SIGN_IN_COOKIE, "", {
      path: base,
      secure: secure(req),
      sameSite: "Lax",
      maxAge: 0,
    });
    if (!state || !response.state || !sameText(state, response.state)) {
      return sendPage(
        res,
        signInPage("This sign-in was not started in this browser: start again.", undefined, 400),
        undefined,
        {
          "set-cookie": clear,
        },
      );
    }
    const finished = await oauth.finish(state, response);
    if ("error" in finished) {
      return sendPage(
        res,
        signInPage(`Sign-in failed: ${finished.error}`, undefined, 401),
        undefined,
        {
          "set-cookie": clear,
        },
      );
    }
    const judged = await judgeCredential(authenticate, finished.token, {
      headers: headerMap(req),
      remoteAddress: req.socket.remoteAddress,
      endpoint,
    });
    if (!judged.ok) {
      return sendPage(res, signInPage(judged.why, undefined, 401), undefined, {
        "set-cookie": clear,
      });
    }
    // A page, not a redirect: the Strict cookie is sent by the same-site navigation that follows,
    // never by a redirect chain that began at the authorization server.
    const to = safeNext(next ?? null);
    send(
      res,
      200,
      "<!doctype html>\n" + html`
        <html lang="en">
          <head>
            <meta charset="utf-8">
            <meta http-equiv="refresh" content="0;url=${to}">
            <title>Signed in · tool-estate console</title>
            <link rel="stylesheet" href="${base}/assets/console.css">
          </head>
          <body>
            <main>
              <p>Signed in as ${judged.principal.id}. <a href="${to}">Continue</a>.</p>
            </main>
          </body>
        </html>
      `.text,
      {
        "content-type": "text/html; charset=utf-8",
        "set-cookie": [sessionCookie(req, finished.token), clear] as unknown as string,
      },
    );
  }

  async function decide(
    req: IncomingMessage,
    res: ServerResponse,
    id: string,
    me: Who,
  ): Promise<void> {
    const form = await readForm(req);
    if (typeof form === "string") {
      return send(res, 400, form, { "content-type": "text/plain; charset=utf-8" });
    }
    if (!sameText(form.get("csrf") ?? "", me.viewer.csrf)) {
      return send(
        res,
        403,
        "Forbidden: the form's token does not match your session; reload the page",
        {
          "content-type": "text/plain; charset=utf-8",
        },
      );
    }
    const decision = form.get("decision");
    let note: DecisionNote;
    if (!options.desk || (decision !== "approve" && decision !== "reject")) {
      note = { ok: false, message: "Choose approve or reject." };
    } else {
      try {
        const reason = (form.get("reason") ?? "").trim();
        const decided = await decideCall(options.desk, id, {
          by: me.principal,
          approve: decision === "approve",
          ...(reason ? { reason } : {}),
        });
        note = {
          ok: true,
          message: `${decided.tool}@${decided.version} for ${decided.caller}: ${decided.state}.`,
        };
        options.decided?.();
      } catch (e) {
        if (!(e instanceof PendingCallDecisionError)) throw e;
        note = { ok: false, message: e.message };
      }
    }
    const calls = options.desk ? await pendingCallsFor(options.desk, me.principal) : [];
    sendPage(res, approvalsPage(base, calls, me.viewer, me.principal, note), me, {});
  }

  async function auditFor(me: Who, query: URLSearchParams): Promise<Page> {
    const head = await estate.auditHead();
    if (!verdict || verdict.head !== head.hash) {
      const checkpoints = await estate.auditCheckpoints();
      let v: AuditVerdict;
      try {
        v = await verifyAuditChain(estate.readAudit(), { checkpoints });
      } catch (e) {
        v = { ok: false, seq: 0, index: 0, reason: "malformed", message: (e as Error).message };
      }
      verdict = { head: head.hash, verdict: v };
    }
    const registry = estate.registry;
    const tool = query.get("tool") || undefined;
    const kind = query.get("kind") || undefined;
    const shown: AuditRecord[] = [];
    const sees = toolsSeenBy(registry, me.principal);
    // A record about a tool the principal may see, or their own about no tool; never a probe
    // (a call refused as hidden or unknown: what the principal could not see stays unsaid).
    const mayRead = (r: AuditRecord) => {
      if (isProbeAuditRecord(r)) return false;
      if (r.tool === undefined) return r.principal === me.principal.id;
      return sees(r.tool);
    };
    try {
      for await (
        const r of estate.readAudit({
          ...(tool ? { tool } : {}),
          ...(kind ? { kind: kind as AuditRecord["kind"] } : {}),
        })
      ) {
        if (!mayRead(r)) continue;
        shown.push(r);
        if (shown.length > 500) shown.shift();
      }
    } catch (e) {
      log(`console: the audit log could not be read: ${(e as Error).message}`);
    }
    return auditPage(shown.reverse(), verdict.verdict, query, base);
  }

  function events(
    req: IncomingMessage,
    res: ServerResponse,
    me: Who,
    authenticate: Authenticate,
  ) {
    if (streams.size >= MAX_STREAMS) {
      return send(res, 503, "too many live pages open", { "retry-after": "30" });
    }
    res.writeHead(200, {
      ...PAGE_HEADERS,
      "content-type": "text/event-stream; charset=utf-8",
      connection: "keep-alive",
    });
    res.write("retry: 3000\n\n");
    const stream: Stream = {
      res,
      credential: me.credential,
      headers: headerMap(req),
      remoteAddress: req.socket.remoteAddress,
      principal: me.principal,
      authenticate,
    };
    streams.add(stream);
    const ping = setInterval(() => res.write(": keep-alive\n\n"), 20_000);
    res.on("close", () => {
      clearInterval(ping);
      streams.delete(stream);
    });
  }

  // A change reaches every live page whose principal may see what changed — and no other.
  const unsubscribe = estate.registry.subscribe((event) => {
    for (const s of [...streams]) {
      judgeCredential(s.authenticate, s.credential, {
        headers: s.headers,
        ...(s.remoteAddress ? { remoteAddress: s.remoteAddress } : {}),
        endpoint,
      }).then((judged) => {
        if (!judged.ok) {
          s.res.end("event: signed-out\ndata: {}\n\n");
          streams.delete(s);
          return;
        }
        s.principal = judged.principal;
        const registry = estate.registry;
        const visible = event.type.startsWith("server-")
          ? registry.server(event.name)?.tools.some((t) => seesTool(registry, t, judged.principal))
          : seesTool(registry, event.name, judged.principal);
        if (visible) {
          s.res.write(`event: change\ndata: ${JSON.stringify({ name: event.name })}\n\n`);
        }
      }, (e) => log(`console: ${(e as Error).message}`));
    }
  });

  async function route(
    req: IncomingMessage,
    res: ServerResponse,
    authenticate: Authenticate,
  ): Promise<void> {
    const url = new URL(req.url ?? "/", "http://console.invalid");
    const rel = url.pathname.slice(base.length) || "/";
    const method = req.method ?? "GET";
    if (method !== "GET" && method !== "POST") {
      return send(res, 405, "Method Not Allowed", {
        allow: "GET, POST",
        "content-type": "text/plain",
      });
    }
    if (rel === "/assets/console.css" && method === "GET") {
      return send(res, 200, CONSOLE_CSS, {
        "content-type": "text/css; charset=utf-8",
        "cache-control": "no-cache",
      });
    }
    if (rel === "/assets/console.js" && method === "GET") {
      return send(res, 200, CONSOLE_JS, {
        "content-type": "text/javascript; charset=utf-8",
        "cache-control": "no-cache",
      });
    }
    if (rel === "/sign-in") {
      if (method === "POST") return await tokenSignIn(req, res, authenticate);
      return sendPage(res, signInPage(undefined, safeNext(url.searchParams.get("next"))));
    }
    if (rel === "/oauth/start" && method === "GET") return await oauthStart(req, res, url);
    if (rel === "/oauth/callback" && method === "GET") {
      return await oauthCallback(req, res, url, authenticate);
    }
    const me = await who(req, authenticate);
    if (rel === "/sign-out" && method === "POST") {
      const form = await readForm(req);
      if (me && (typeof form === "string" || !sameText(form.get("csrf") ?? "", me.viewer.csrf))) {
        return send(res, 403, "Forbidden: the form's token does not match your session", {
          "content-type": "text/plain; charset=utf-8",
        });
      }
      return redirect(res, `${base}/sign-in`, { "set-cookie": sessionCookie(req, "", 0) });
    }
    if (!me) {
      if (rel === "/events") {
        return send(res, 401, "event: signed-out\ndata: {}\n\n", {
          "content-type": "text/event-stream",
        });
      }
      if (method === "GET") {
        return redirect(
          res,
          `${base}/sign-in?next=${encodeURIComponent(url.pathname + url.search)}`,
        );
      }
      return sendPage(res, signInPage("Your session has ended: sign in again.", undefined, 401));
    }
    const registry = estate.registry;
    if (method === "GET" && (rel === "/" || rel === "")) {
      return sendPage(res, estatePage(base, registry, me.principal, url.searchParams), me);
    }
    if (method === "GET" && rel === "/events") return events(req, res, me, authenticate);
    if (method === "GET" && rel === "/servers") {
      const drift: DriftRecord[] = [];
      for await (const d of estate.readDrift()) drift.push(d);
      const live = options.gateway?.() ?? [];
      return sendPage(res, serversPage(registry, drift, me.principal, live), me);
    }
    if (method === "GET" && rel === "/approvals") {
      const calls = options.desk ? await pendingCallsFor(options.desk, me.principal) : [];
      return sendPage(res, approvalsPage(base, calls, me.viewer, me.principal), me);
    }
    const decision = /^\/approvals\/([A-Za-z0-9-]{1,64})$/.exec(rel);
    if (decision && method === "POST") return await decide(req, res, decision[1], me);
    if (decision) {
      // Where a decision's answer was shown: a reload (or the page's refresh) shows the desk.
      const calls = options.desk ? await pendingCallsFor(options.desk, me.principal) : [];
      return sendPage(res, approvalsPage(base, calls, me.viewer, me.principal), me);
    }
    if (method === "GET" && rel === "/audit") {
      return sendPage(res, await auditFor(me, url.searchParams), me);
    }
    const m = /^\/tools\/([^/]+)(?:\/(diff|retire\/([^/]+)))?$/.exec(rel);
    if (m && method === "GET") {
      let name: string;
      try {
        name = decodeURIComponent(m[1]);
      } catch {
        return sendPage(res, notFoundPage(base), me);
      }
      const records = isToolName(name) ? visibleVersions(registry, name, me.principal) : [];
      if (records.length === 0) return sendPage(res, notFoundPage(base), me);
      const byVersion = (v: string | null) => records.find((r) => r.spec.version === v)?.spec;
      if (m[2] === "diff") {
        const from = byVersion(url.searchParams.get("from"));
        const to = byVersion(url.searchParams.get("to"));
        if (!from || !to) return sendPage(res, notFoundPage(base), me);
        return sendPage(res, diffPage(base, from, to), me);
      }
      if (m[3] !== undefined) {
        let version: string;
        try {
          version = decodeURIComponent(m[3]);
        } catch {
          return sendPage(res, notFoundPage(base), me);
        }
        const r = records.find((x) => x.spec.version === version);
        if (!r || r.state === "retired") return sendPage(res, notFoundPage(base), me);
        return sendPage(res, await retirePage(base, estate, r.spec), me);
      }
      const stats = await counts.of(name);
      return sendPage(res, toolPage(base, records, stats, now()), me);
    }
    return sendPage(res, notFoundPage(base), me);
  }

  const pages: HttpPages = async (req, res, context) => {
    const path = (req.url ?? "/").split("?")[0];
    if (path !== base && !path.startsWith(`${base}/`)) return false;
    try {
      await route(req, res, context.authenticate);
    } catch (e) {
      log(`console: ${(e as Error).stack ?? e}`);
      if (!res.headersSent) {
        send(
          res,
          500,
          "Internal Server Error: the console could not answer; the server log says why",
          {
            "content-type": "text/plain; charset=utf-8",
          },
        );
      } else res.end();
    }
    return true;
  };

  return {
    path: base,
    pages,
    close() {
      unsubscribe();
      for (const s of streams) s.res.end();
      streams.clear();
    },
  };
}
