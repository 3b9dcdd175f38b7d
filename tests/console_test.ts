/**
 * The web console over HTTP, in process: sign-in with the MCP endpoint's own credentials, each
 * page for the signed-in principal only (a hidden tool's page byte-identical to a nonexistent
 * one's), CSRF and Origin refusals, the security headers, the audit trail without probes, live
 * events only for what the principal may see, and an approval decided from the console.
 * (`e2e/console.mjs` drives the same console in real Chromium.)
 */
import assert from "node:assert/strict";
import {
  holdCall,
  McpServer,
  type PendingCallDesk,
  pendingCallsFor,
  type Principal,
} from "../mod.ts";
import { bearerTokens, type McpHttpServer, serveHttp } from "../lib/mcp/transports/http_mod.ts";
import { EstateDir } from "../lib/store/mod.ts";
import { webConsole } from "../lib/cli/console/console.ts";
import { pendingDesk } from "../lib/cli/_pending_desk.ts";
import { SEES, startHttpServe, withEstate } from "./_serve.ts";
import { readEvents } from "./_console.ts";

const TOKENS: Record<string, string> = {
  "retail-agent": "tok-retail-agent-0001",
  "wholesale-operator": "tok-wholesale-operator-0002",
  "treasury-lead": "tok-treasury-lead-0003",
};
const TREASURY: Principal = {
  id: "treasury-lead",
  scopes: ["payments:read", "payments:release", "payments:approve"],
  tenant: "wholesale",
  clearance: "restricted",
};

interface Fixture {
  base: string;
  origin: string;
  estate: EstateDir;
  desk: PendingCallDesk;
  http: McpHttpServer;
}

async function withConsole(body: (f: Fixture) => Promise<void>): Promise<void> {
  await withEstate("console-", async (dir) => {
    const estate = EstateDir.open(dir);
    const principals = [
      ...estate.principals().filter((p) => TOKENS[p.id]).map((p) => ({
        id: p.id,
        scopes: p.scopes,
        tenant: p.tenant,
        clearance: p.clearance,
        token: TOKENS[p.id],
      })),
      { ...TREASURY, token: TOKENS["treasury-lead"] },
    ];
    const server = new McpServer({ registry: estate.registry, handlerFor: () => () => ({}) });
    const desk = pendingDesk(estate, Date.now);
    const web = webConsole({ estate, desk });
    const http = await serveHttp(server, {
      authenticate: bearerTokens(principals),
      pages: web.pages,
    });
    const origin = new URL(http.url).origin;
    try {
      await body({ base: `${origin}/console`, origin, estate, desk, http });
    } finally {
      web.close();
      await http.close();
      server.close();
    }
  });
}

/** Signs in through the form; the session cookie. */
async function signIn(f: Fixture, who: string): Promise<string> {
  const res = await fetch(`${f.base}/sign-in`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", origin: f.origin },
    body: new URLSearchParams({ token: TOKENS[who], next: "/console/" }),
    redirect: "manual",
  });
  await res.body?.cancel();
  assert.equal(res.status, 303);
  assert.equal(res.headers.get("location"), "/console/");
  const cookie = res.headers.get("set-cookie") ?? "";
  assert.match(cookie, /HttpOnly/);
  assert.match(cookie, /SameSite=Strict/);
  return cookie.split(";")[0];
}

async function get(f: Fixture, cookie: string, path: string) {
  const res = await fetch(`${f.base}${path}`, { headers: { cookie }, redirect: "manual" });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

const tools = (page: string) => [...page.matchAll(/<tr data-tool="([^"]+)"/g)].map((m) => m[1]);

Deno.test("console: a principal signs in with the MCP endpoint's token; a token it refuses sets no cookie", async () => {
  await withConsole(async (f) => {
    const out = await get(f, "", "/");
    assert.equal(out.status, 303);
    assert.match(out.headers.get("location")!, /^\/console\/sign-in\?next=/);
    const bad = await fetch(`${f.base}/sign-in`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "token=not-a-token-anyone-has",
      redirect: "manual",
    });
    assert.equal(bad.status, 401);
    assert.equal(bad.headers.get("set-cookie"), null);
    assert.match(await bad.text(), /not accepted here/);
    const cookie = await signIn(f, "retail-agent");
    const home = await get(f, cookie, "/");
    assert.equal(home.status, 200);
    assert.match(home.text, /Signed in as <strong data-principal>retail-agent<\/strong>/);
  });
});

Deno.test("console: a token revoked at the endpoint ends its console session at the next request", async () => {
  await withConsole(async (f) => {
    const cookie = await signIn(f, "retail-agent");
    assert.equal((await get(f, cookie, "/")).status, 200);
    // principals.json changed: retail-agent's token is no longer accepted.
    await f.http.reauthenticate(bearerTokens([{ ...TREASURY, token: TOKENS["treasury-lead"] }]));
    const after = await get(f, cookie, "/tools/retail.transfers.lookup");
    assert.equal(after.status, 303);
    assert.match(after.headers.get("location")!, /^\/console\/sign-in\?next=/);
    const events = await fetch(`${f.base}/events`, { headers: { cookie } });
    assert.equal(events.status, 401);
    await events.body?.cancel();
  });
});

Deno.test("console: two principals see the estates the MCP endpoint lists for them", async () => {
  await withConsole(async (f) => {
    for (const who of ["retail-agent", "wholesale-operator"] as const) {
      const cookie = await signIn(f, who);
      const listed = tools((await get(f, cookie, "/")).text);
      const principal = f.estate.principal(who)!;
      // The oracle: the names MCP discovery lists for this principal (the corpus has no tool
      // whose only visible versions are retired).
      assert.deepEqual(listed, f.estate.registry.discover(principal).map((s) => s.name), who);
      assert.deepEqual(listed.filter((n) => SEES[who].includes(n)), SEES[who]);
    }
  });
});

Deno.test("console: the estate's filters narrow the rows; unfiltered, each filter is at any", async () => {
  await withConsole(async (f) => {
    const cookie = await signIn(f, "wholesale-operator");
    const all = await get(f, cookie, "/");
    assert.doesNotMatch(all.text, /<option value="[^"]*" selected>/);
    const values = [...all.text.matchAll(/<select name="server">([\s\S]*?)<\/select>/g)][0][1]
      .match(/value="[^"]*"/g)!;
    assert.equal(new Set(values).size, values.length, "each Server option its own value");
    const writes = await get(f, cookie, "/?sideEffect=irreversible");
    assert.deepEqual(tools(writes.text), ["payments.release"]);
    const inProcess = await get(f, cookie, "/?server=%3Ain-process");
    assert.deepEqual(tools(inProcess.text), tools(all.text));
    assert.deepEqual(tools((await get(f, cookie, "/?q=quote")).text), ["fx.quote"]);
  });
});

Deno.test("console: a hidden tool's pages answer byte for byte as a nonexistent tool's", async () => {
  await withConsole(async (f) => {
    const cookie = await signIn(f, "retail-agent");
    const nothing = await get(f, cookie, "/tools/no.such.tool");
    assert.equal(nothing.status, 404);
    for (
      const path of [
        "/tools/payments.release",
        "/tools/payments.lookup/diff?from=1.0.0&to=2.0.0",
        "/tools/payments.lookup/retire/1.0.0",
        "/tools/fx.quote",
        "/tools/retail.transfers.lookup/diff?from=1.0.0&to=9.9.9",
        "/tools/%E0%A4%A",
      ]
    ) {
      const hidden = await get(f, cookie, path);
      assert.equal(hidden.status, 404, path);
      assert.equal(hidden.text, nothing.text, path);
      assert.deepEqual(
        [...hidden.headers].filter(([k]) => k !== "date"),
        [...nothing.headers].filter(([k]) => k !== "date"),
        path,
      );
    }
    // And the wholesale operator, who may see payments.release, gets its page.
    const ops = await signIn(f, "wholesale-operator");
    assert.equal((await get(f, ops, "/tools/payments.release")).status, 200);
  });
});

Deno.test("console: every page carries a strict CSP and no inline script, style or handler", async () => {
  await withConsole(async (f) => {
    const cookie = await signIn(f, "wholesale-operator");
    for (
      const path of [
        "/",
        "/tools/payments.lookup",
        "/tools/payments.lookup/diff?from=1.1.0&to=2.0.0",
        "/tools/payments.lookup/retire/1.0.0",
        "/servers",
        "/approvals",
        "/audit",
        "/sign-in",
      ]
    ) {
      const page = await get(f, cookie, path);
      assert.equal(page.status, 200, path);
      const csp = page.headers.get("content-security-policy")!;
      assert.match(csp, /default-src 'none'/);
      assert.match(csp, /script-src 'self'(;|$)/);
      assert.match(csp, /frame-ancestors 'none'/);
      assert.equal(page.headers.get("x-content-type-options"), "nosniff");
      // Under no-referrer a browser posts forms with `Origin: null`, which the Origin guard refuses.
      assert.equal(page.headers.get("referrer-policy"), "same-origin");
      assert.equal(page.headers.get("cache-control"), "no-store");
      assert.doesNotMatch(page.text, /<script(?![^>]*\ssrc=)[^>]*>/, path);
      assert.doesNotMatch(page.text, /\sstyle=|\son[a-z]+=/i, path);
    }
  });
});

Deno.test("console: the diff page shows each change with its bump and rule, and the witness of a major change", async () => {
  await withConsole(async (f) => {
    const cookie = await signIn(f, "wholesale-operator");
    const page = (await get(f, cookie, "/tools/payments.lookup/diff?from=1.1.0&to=2.0.0")).text;
    assert.match(page, /data-bump="major"/);
    assert.match(page, /<tr data-rule="[a-z-]+">/);
    assert.match(page, /data-witness/);
  });
});

Deno.test("console: a form without the session's CSRF token, or from another origin, decides nothing", async () => {
  await withConsole(async (f) => {
    const caller = f.estate.principal("wholesale-operator")!;
    const held = await holdCall(f.desk, {
      spec: { name: "payments.release", version: "1.0.0" },
      principal: caller,
      arguments: { reference: "PMT-004211", approvedAmount: 2_450_000, currency: "EUR" },
      rule: { tool: "payments.release", approverScope: "payments:approve" },
    });
    const cookie = await signIn(f, "treasury-lead");
    const page = (await get(f, cookie, "/approvals")).text;
    assert.match(page, new RegExp(`data-pending="${held.id}" data-state="pending"`));
    const csrf = /name="csrf" value="([^"]+)"/.exec(page)![1];
    const post = (body: Record<string, string>, headers: Record<string, string> = {}) =>
      fetch(`${f.base}/approvals/${held.id}`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", cookie, ...headers },
        body: new URLSearchParams(body),
      });
    const forged = await post({ decision: "approve", csrf: "x".repeat(csrf.length) });
    assert.equal(forged.status, 403);
    await forged.body?.cancel();
    const foreign = await post({ decision: "approve", csrf }, { origin: "https://evil.example" });
    assert.equal(foreign.status, 403);
    await foreign.body?.cancel();
    assert.equal((await f.desk.store.get(held.id))?.state, "pending");
    // The caller may not approve its own call: the desk's rule, said on the page.
    const own = await signIn(f, "wholesale-operator");
    const ownPage = (await get(f, own, "/approvals")).text;
    assert.doesNotMatch(ownPage, /value="approve"/);
    const ok = await post({ decision: "approve", csrf });
    assert.equal(ok.status, 200);
    assert.match(
      await ok.text(),
      /data-decision>payments\.release@1\.0\.0 for wholesale-operator: approved\./,
    );
    // The page the answer came on refreshes (or reloads) to the desk, not to a 404.
    const again = await get(f, cookie, `/approvals/${held.id}`);
    assert.equal(again.status, 200);
    assert.match(again.text, new RegExp(`data-pending="${held.id}" data-state="approved"`));
    const [after] = await pendingCallsFor(f.desk, TREASURY);
    assert.equal(after.state, "approved");
    assert.equal(after.decidedBy, "treasury-lead");
    const trail = [...f.estate.readAudit({ kind: "pending-call" })].map((r) =>
      r.detail.step ?? r.detail.state
    );
    assert.ok(trail.length >= 2, JSON.stringify(trail));
  });
});

Deno.test("console: the audit trail shows no probe and nothing about a tool the principal may not see", async () => {
  await withConsole(async (f) => {
    f.estate.appendAudit([
      {
        kind: "call",
        principal: "retail-agent",
        tool: "fx.quote",
        detail: { decision: "refused", outcome: "hidden-tool" },
      },
      {
        kind: "call",
        principal: "retail-agent",
        tool: "no.such",
        detail: { decision: "refused", outcome: "unknown-tool" },
      },
      {
        kind: "call",
        principal: "wholesale-operator",
        tool: "payments.release",
        detail: { decision: "allowed", outcome: "ok" },
      },
      {
        kind: "call",
        principal: "retail-agent",
        tool: "policy.search",
        detail: { decision: "allowed", outcome: "ok" },
      },
    ]);
    const cookie = await signIn(f, "retail-agent");
    const page = (await get(f, cookie, "/audit")).text;
    assert.match(page, /data-audit-verdict="ok"/);
    assert.match(page, /policy\.search/);
    for (
      const hidden of ["fx.quote", "no.such", "payments.release", "hidden-tool", "unknown-tool"]
    ) {
      assert.doesNotMatch(page, new RegExp(hidden.replace(".", "\\.")), hidden);
    }
  });
});

Deno.test("console: a publish reaches the live pages of principals who may see the tool, and no other", async () => {
  await withConsole(async (f) => {
    const retail = await signIn(f, "retail-agent");
    const ops = await signIn(f, "wholesale-operator");
    const open = (cookie: string) => fetch(`${f.base}/events`, { headers: { cookie } });
    const [r, o] = await Promise.all([open(retail), open(ops)]);
    assert.equal(r.status, 200);
    assert.match(r.headers.get("content-type")!, /^text\/event-stream/);
    const spec = JSON.parse(
      Deno.readTextFileSync(`${f.estate.dir}/tools/retail.transfers.lookup/1.1.0.json`),
    );
    const reading = [
      readEvents(r, 5000, (t) => t.includes("event: change")),
      readEvents(o, 1500, (t) => t.includes("event: change")),
    ];
    f.estate.publish({ ...spec, name: "retail.statements.list", version: "1.0.0" });
    const [seen, unseen] = await Promise.all(reading);
    assert.match(seen, /event: change\ndata: \{"name":"retail\.statements\.list"\}/);
    assert.doesNotMatch(unseen, /event: change/);
    const page = (await get(f, retail, "/")).text;
    assert.ok(tools(page).includes("retail.statements.list"));
    assert.ok(!tools((await get(f, ops, "/")).text).includes("retail.statements.list"));
  });
});

Deno.test("estate serve serves the console at /console beside /mcp, and not with --no-console", async () => {
  await withEstate("console-serve-", async (dir) => {
    for (const [args, status] of [[[], 303], [["--no-console"], 404]] as const) {
      const served = await startHttpServe(dir, undefined, { args: [...args] });
      try {
        const res = await fetch(new URL("/console/", served.url), { redirect: "manual" });
        await res.body?.cancel();
        assert.equal(res.status, status, args.join(" ") || "(default)");
      } finally {
        await served.stop();
      }
    }
  });
});
